/* Routing, one hop at a time, shared by the flow engine (which walks a
 * whole path when a flow starts) and the packet engine (which asks at
 * every switch a packet reaches, sim_pkt.h).
 *
 * A message carries a routing header (tn_sim_rhdr_t): source and
 * destination endpoints, per-message random bits, and what the algorithm
 * decided so far (intermediate group, phase, VC state).  tn_sim_route_begin
 * makes the source's decisions (Valiant's intermediate group, UGAL's
 * choice); then at switch sw, tn_sim_route_next returns the output port
 * (a global port id) and leaves in h->vc the virtual channel to use on
 * it.  Routers are pure functions of (topology, switch, header, load):
 * adaptive ones read port loads through the caller's oracle (the flow
 * engine answers with the number of flows on a port, the packet engine
 * with the bytes queued for it), and change nothing else.
 *
 * VCs (what a packet engine needs for deadlock freedom; n_vc says how many):
 *  - fat-tree: 1 (up*-down* routes have no cycle);
 *  - dragonfly / megafly: vc = number of global links taken so far
 *    (minimal 2 VCs, Valiant and UGAL 3);
 *  - torus: per dimension, VC 0 until the route takes the dimension's
 *    wrap-around link (the dateline, between k-1 and 0), VC 1 from that
 *    link on; back to VC 0 in the next dimension (2 VCs); mesh: 1;
 *  - graph: 1 (shortest paths on an arbitrary graph are not deadlock free
 *    in general: the packet engine runs them on one VC and may deadlock;
 *    docs/sim.md says so). */
#ifndef TN_SIM_ROUTE_H
#define TN_SIM_ROUTE_H

#include <stdint.h>

#include "sim_topo.h"

typedef enum {
    TN_SIM_RT_AUTO,      /* the kind's default */
    TN_SIM_RT_DMODK,     /* fat-tree: up port from the destination (D-mod-k) */
    TN_SIM_RT_ECMP,      /* fat-tree, graph: up / equal-cost port from a hash of the flow */
    TN_SIM_RT_ADAPTIVE,  /* fat-tree, graph: least-loaded up / equal-cost port */
    TN_SIM_RT_MINIMAL,   /* dragonfly, megafly */
    TN_SIM_RT_VALIANT,   /* dragonfly, megafly: via a random intermediate group */
    TN_SIM_RT_UGAL,      /* dragonfly, megafly: min or Valiant by load * hops at the source router */
    TN_SIM_RT_UGAL_G,    /* same, with the load of the whole path (global knowledge) */
    TN_SIM_RT_DOR,       /* torus, mesh: dimension order */
    TN_SIM_RT_SHORTEST,  /* graph: = ECMP over BFS shortest paths */
    TN_SIM_RT_COUNT
} tn_sim_route_alg_t;

typedef struct {
    int32_t src, dst;   /* endpoints */
    int32_t inter;      /* Valiant: intermediate group; -1 none */
    uint8_t phase;      /* 0: on the way to inter; 1: to dst */
    uint8_t vc;         /* VC on the port last returned */
    uint8_t ghops;      /* dragonfly: global links taken so far */
    uint8_t dim;        /* torus: dimension being corrected (+1; 0 none yet) */
    uint8_t crossed;    /* torus: took this dimension's dateline */
    uint8_t nonmin;     /* UGAL chose the non-minimal path */
    uint64_t hash;      /* per-message random bits (ECMP, Valiant) */
} tn_sim_rhdr_t;

/* Load of an output port (global port id), >= 0. */
typedef double (*tn_sim_load_fn_t)(void *ctx, int32_t port);

typedef struct tn_sim_router tn_sim_router_t;

typedef struct {
    const char *name;
    /* at the source, before the first switch */
    void (*begin)(const tn_sim_router_t *rt, tn_sim_rhdr_t *h, tn_sim_load_fn_t load, void *ctx);
    /* at switch sw (index): the output port, h->vc set */
    int32_t (*next)(const tn_sim_router_t *rt, int32_t sw, tn_sim_rhdr_t *h, tn_sim_load_fn_t load,
                    void *ctx);
} tn_sim_route_ops_t;

struct tn_sim_router {
    const tn_sim_topo_t *topo;
    const tn_sim_route_ops_t *ops;
    tn_sim_route_alg_t alg;
    int max_hops;       /* ports on the longest path it makes, host ports included */
    int n_vc;
    uint16_t *dist;     /* graph: [n_sw * n_sw] switch-to-switch hop counts */
    int32_t diameter;   /* graph: most switch-to-switch hops */
};

/* Sets rt up for topo (which must outlive it); alg AUTO picks the kind's
 * default (dmodk, minimal, dor, shortest).  An algorithm the kind does not
 * have is refused. */
tn_sim_status_t tn_sim_route_init(tn_sim_router_t *rt, const tn_sim_topo_t *topo,
                                  tn_sim_route_alg_t alg, char *why, size_t whylen);
void tn_sim_route_fini(tn_sim_router_t *rt);

/* A fresh header for a message src -> dst with random bits hash, with the
 * source's decisions made. */
void tn_sim_route_begin(const tn_sim_router_t *rt, tn_sim_rhdr_t *h, int32_t src, int32_t dst,
                        uint64_t hash, tn_sim_load_fn_t load, void *ctx);

static inline int32_t tn_sim_route_next(const tn_sim_router_t *rt, int32_t sw, tn_sim_rhdr_t *h,
                                        tn_sim_load_fn_t load, void *ctx)
{
    return rt->ops->next(rt, sw, h, load, ctx);
}

/* The whole path of a begun header: ports[0] is the source's own port,
 * the last one the port into dst; vcs (may be NULL) the VC on each.
 * Returns the number of ports (0 when src == dst), or -1 when the router
 * went astray (a bug: a loop, a dead port, another endpoint) or the path
 * is longer than max. */
/* Whether routes read the port loads (adaptive routers, UGAL): a caller
 * whose loads change between routes must route in the order they change. */
static inline int tn_sim_route_adaptive(const tn_sim_router_t *rt)
{
    return rt->alg == TN_SIM_RT_ADAPTIVE || rt->alg == TN_SIM_RT_UGAL || rt->alg == TN_SIM_RT_UGAL_G;
}

int tn_sim_route_path(const tn_sim_router_t *rt, tn_sim_rhdr_t *h, tn_sim_load_fn_t load, void *ctx,
                      int32_t *ports, uint8_t *vcs, int max);

/* Name <-> algorithm ("dmodk", "ugal-g", ...); -1 for an unknown name. */
const char *tn_sim_route_name(tn_sim_route_alg_t alg);
int tn_sim_route_parse(const char *name);

/* The routers (one file each). */
extern const tn_sim_route_ops_t tn_sim_route_fattree_ops;
extern const tn_sim_route_ops_t tn_sim_route_dfly_ops;
extern const tn_sim_route_ops_t tn_sim_route_mfly_ops;
extern const tn_sim_route_ops_t tn_sim_route_torus_ops;
extern const tn_sim_route_ops_t tn_sim_route_table_ops;
/* sim_route_table.c: the graph's distance table. */
tn_sim_status_t tn_sim_route_table_build(tn_sim_router_t *rt, char *why, size_t whylen);
/* sim_route_dfly.c: dragonfly and megafly hop counts for the bound. */
int tn_sim_route_dfly_max_hops(const tn_sim_router_t *rt);

#endif
