/* tern-sim's fabric: endpoints and switches joined by links, shared by the
 * flow-level engine and the packet-level one.
 *
 * Layout (flat arrays, one allocation each, no object per node):
 *  - node ids: endpoints 0 .. n_ep-1, switches n_ep .. n_ep+n_sw-1.  The
 *    routing code speaks of switch indices (node - n_ep).
 *  - ports in CSR: the ports of node v are port_off[v] .. port_off[v+1]-1.
 *    An endpoint has exactly one port and its port id is its node id.
 *  - a port is the OUTPUT side of one direction of a cable: peer[p] is the
 *    node it leads to, peer_port[p] the port of that node that sends the
 *    other way, bw[p] its bandwidth (bytes/ns), lat[p] its latency (ns).
 *    An unconnected port (a mesh's edge, a dragonfly port beyond the group
 *    pairs) has peer -1.  The flow engine's capacity resources are the
 *    connected ports ("links" = directed channels).
 *  - per-kind parameters (fat-tree levels, dragonfly groups, torus dims)
 *    from which routing computes everything else arithmetically; only the
 *    graph kind has tables (sim_route_table.c).
 * Port numbering inside a switch is a documented convention of each kind
 * (below), so a router can name ports without looking anything up. */
#ifndef TN_SIM_TOPO_H
#define TN_SIM_TOPO_H

#include <stddef.h>
#include <stdint.h>

#include "sim_status.h"

#define TN_SIM_MAX_DIMS   6
#define TN_SIM_FT_LEVELS  6
/* Fabrics up to 16 M endpoints and 256 M ports: ids fit int32_t. */
#define TN_SIM_MAX_EP     (1 << 24)
#define TN_SIM_MAX_PORTS  (1 << 28)

typedef enum {
    TN_SIM_TOPO_FATTREE,
    TN_SIM_TOPO_DRAGONFLY,
    TN_SIM_TOPO_MEGAFLY,
    TN_SIM_TOPO_TORUS,
    TN_SIM_TOPO_MESH,
    TN_SIM_TOPO_GRAPH,
} tn_sim_topo_kind_t;

/* What a port is, for statistics and for routers that want to know. */
typedef enum {
    TN_SIM_PORT_HOST,    /* endpoint <-> its switch, either direction */
    TN_SIM_PORT_DOWN,    /* fat-tree / megafly spine: towards the leaves */
    TN_SIM_PORT_UP,      /* fat-tree / megafly leaf: towards the roots */
    TN_SIM_PORT_LOCAL,   /* dragonfly: inside a group */
    TN_SIM_PORT_GLOBAL,  /* dragonfly / megafly: between groups */
    TN_SIM_PORT_DIM,     /* torus / mesh: along a dimension */
    TN_SIM_PORT_LINK,    /* graph file: switch to switch */
} tn_sim_port_class_t;

/* Global-link arrangements of a dragonfly (sim_topo_dragonfly.c). */
typedef enum {
    TN_SIM_DF_ABSOLUTE,  /* port gp of a group -> groups in increasing order */
    TN_SIM_DF_RELATIVE,  /* port gp of group G -> group G+gp+1 (circulant) */
} tn_sim_df_arrange_t;

/* Link bandwidths (bytes/ns; Gbit/s / 8) and latencies (ns). */
typedef struct {
    double bw, lat;                /* switch to switch */
    double bw_host, lat_host;      /* endpoint to switch */
    double bw_global, lat_global;  /* dragonfly / megafly global links */
} tn_sim_linkp_t;

/* Extended generalized fat-tree XGFT(n; m1..mn; w1..wn), levels 1..n.
 * A level-i node has m[i-1] children and a level-(i-1) node w[i-1]
 * parents (w[0] = 1: an endpoint has one leaf switch).  Label of a level-i
 * node: (a_n..a_{i+1}, b_i..b_1), encoded as A * W_i + B with
 * A = a_{i+1} + m_{i+1} (a_{i+2} + ...), B = b_1 + w_1 (b_2 + ...),
 * W_i = w_1 ... w_i.  Endpoint e has label A = e.  Ports of a level-i
 * switch: [0, m_i) down (port d -> child with a_i = d), then w_{i+1} up
 * (port m_i + u -> parent with b_{i+1} = u); top switches have no up port.
 * k-ary n-tree: m = (k..k), w = (1, k..k).  tern-sim's fat-tree with
 * down:up ports at the leaves: m = (down, k..k), w = (1, up, k..k). */
typedef struct {
    int n;
    int32_t m[TN_SIM_FT_LEVELS], w[TN_SIM_FT_LEVELS];  /* [i-1] for level i */
    int64_t M[TN_SIM_FT_LEVELS + 1];   /* M[i] = m_1 .. m_i (M[0] = 1) */
    int64_t W[TN_SIM_FT_LEVELS + 1];   /* W[i] = w_1 .. w_i (W[0] = 1) */
    int32_t nsw[TN_SIM_FT_LEVELS];     /* switches of level i at [i-1] */
    int32_t off[TN_SIM_FT_LEVELS + 1]; /* first switch index of level i at [i-1] */
} tn_sim_ft_t;

/* Dragonfly (s == 0) and megafly / dragonfly+ (s > 0).
 * Dragonfly: g groups of a routers, all-to-all inside a group; router
 *   (G, r) is switch G*a + r; ports [0,p) endpoints, [p, p+a-1) local
 *   (to router t at p + (t < r ? t : t-1)), [p+a-1, p+a-1+h) global.
 * Megafly: a group is a 2-level leaf/spine: a leaves of p endpoints, s
 *   spines with h global links each; leaf (G, l) is switch G*(a+s) + l,
 *   spine (G, j) is G*(a+s) + a + j.  Leaf ports: [0,p) endpoints,
 *   [p, p+s) up to spine j at p+j.  Spine ports: [0,a) down to leaf l,
 *   [a, a+h) global.
 * Global ports of a group are numbered gp in [0, gpg), gpg = a*h
 * (dragonfly) or s*h (megafly); gp is port gp % h of router / spine
 * gp / h.  The arrangement says which group and global port it reaches
 * (tn_sim_df_gpeer). */
typedef struct {
    int32_t a, p, h, g, s;
    int32_t gpg;             /* global ports per group */
    int32_t per_group;       /* switches per group: a, or a + s */
    tn_sim_df_arrange_t arrange;
} tn_sim_df_t;

/* n-D torus (wrap) or mesh: router coordinates x_0..x_{nd-1}, switch
 * index sum x_d * stride[d] (x_0 fastest).  Ports: [0,c) endpoints, then
 * per dimension d: port c + 2d goes to x_d + 1, c + 2d + 1 to x_d - 1
 * (wrapping on a torus; unconnected at a mesh's edges). */
typedef struct {
    int nd;
    int32_t k[TN_SIM_MAX_DIMS];
    int64_t stride[TN_SIM_MAX_DIMS];
    int32_t c;
    int wrap;
} tn_sim_torus_t;

typedef struct tn_sim_topo {
    tn_sim_topo_kind_t kind;
    int32_t n_ep, n_sw, n_node;
    int32_t n_port;       /* all ports, connected or not */
    int32_t n_link;       /* connected ports (directed channels) */
    int32_t max_deg;      /* most ports of one switch */
    int32_t *port_off;    /* [n_node + 1] */
    int32_t *peer;        /* [n_port] */
    int32_t *peer_port;   /* [n_port] */
    double *bw;           /* [n_port] bytes/ns */
    double *lat;          /* [n_port] ns */
    uint8_t *pclass;      /* [n_port] tn_sim_port_class_t */
    tn_sim_linkp_t link;  /* what the builder was given */
    tn_sim_ft_t ft;
    tn_sim_df_t df;
    tn_sim_torus_t tor;
    /* graph files: names of the nodes (node id order), for output */
    char *names;          /* n_node names, each NUL-terminated */
    int32_t *name_off;    /* [n_node] */
} tn_sim_topo_t;

/* What a builder needs: the kind, its numbers, the links, and for a graph
 * the file's text (the caller read it; sim_topo_graph.c decodes it). */
typedef struct {
    tn_sim_topo_kind_t kind;
    tn_sim_linkp_t link;
    int32_t ft_k, ft_n, ft_down, ft_up;
    int32_t df_a, df_p, df_h, df_g, df_s;
    tn_sim_df_arrange_t df_arrange;
    int nd;
    int32_t dims[TN_SIM_MAX_DIMS];
    int32_t tor_c;
    const char *graph_text;
    size_t graph_len;
} tn_sim_topo_params_t;

/* Builds the fabric the parameters describe into *t (zeroed first).  On
 * failure nothing is allocated and why holds the reason. */
tn_sim_status_t tn_sim_topo_build(tn_sim_topo_t *t, const tn_sim_topo_params_t *prm, char *why,
                                  size_t whylen);
void tn_sim_topo_free(tn_sim_topo_t *t);

/* The builders (one file each); same contract as tn_sim_topo_build. */
tn_sim_status_t tn_sim_topo_fattree(tn_sim_topo_t *t, const tn_sim_topo_params_t *prm, char *why,
                                    size_t whylen);
tn_sim_status_t tn_sim_topo_dragonfly(tn_sim_topo_t *t, const tn_sim_topo_params_t *prm, char *why,
                                      size_t whylen);
tn_sim_status_t tn_sim_topo_megafly(tn_sim_topo_t *t, const tn_sim_topo_params_t *prm, char *why,
                                    size_t whylen);
tn_sim_status_t tn_sim_topo_torus(tn_sim_topo_t *t, const tn_sim_topo_params_t *prm, char *why,
                                  size_t whylen);
/* Graph file (docs/sim.md, "Graph files"): hostile input, decoded whole
 * and checked (names, numbers, counts, every endpoint on exactly one link
 * to a switch) before anything is built. */
tn_sim_status_t tn_sim_topo_graph(tn_sim_topo_t *t, const tn_sim_topo_params_t *prm, char *why,
                                  size_t whylen);

/* For the builders: allocate a fabric of n_ep endpoints (one port each)
 * and n_sw switches of sw_deg[i] ports (or deg_all ports each when sw_deg
 * is NULL), every port unconnected. */
tn_sim_status_t tn_sim_topo_alloc(tn_sim_topo_t *t, tn_sim_topo_kind_t kind, int64_t n_ep,
                                  int64_t n_sw, const int32_t *sw_deg, int32_t deg_all, char *why,
                                  size_t whylen);
/* Join port pa and port pb by a cable (both directions, same bw and lat). */
tn_sim_status_t tn_sim_topo_connect(tn_sim_topo_t *t, int32_t pa, int32_t pb, double bw,
                                    double lat, tn_sim_port_class_t ca, tn_sim_port_class_t cb);
/* Checks a built fabric (cables symmetric, every endpoint on a switch)
 * and counts its links. */
tn_sim_status_t tn_sim_topo_finish(tn_sim_topo_t *t, char *why, size_t whylen);

static inline int32_t tn_sim_sw_port(const tn_sim_topo_t *t, int32_t sw, int32_t i)
{
    return t->port_off[t->n_ep + sw] + i;
}

static inline int32_t tn_sim_sw_deg(const tn_sim_topo_t *t, int32_t sw)
{
    return t->port_off[t->n_ep + sw + 1] - t->port_off[t->n_ep + sw];
}

/* The switch index an endpoint hangs off. */
static inline int32_t tn_sim_ep_switch(const tn_sim_topo_t *t, int32_t ep)
{
    return t->peer[ep] - t->n_ep;
}

/* Dragonfly / megafly: the group and global port that global port gp of
 * group G reaches; 0 if connected, -1 if that port is unused. */
int tn_sim_df_gpeer(const tn_sim_df_t *df, int32_t G, int32_t gp, int32_t *G2_p, int32_t *gp2_p);
/* The global ports of group G that reach group G2 (G != G2), at most max
 * of them into gps; returns how many there are. */
int tn_sim_df_gports(const tn_sim_df_t *df, int32_t G, int32_t G2, int32_t *gps, int max);

/* Kind's name ("fattree", ...). */
const char *tn_sim_topo_kind_name(tn_sim_topo_kind_t kind);

#endif
