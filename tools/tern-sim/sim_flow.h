/* The flow-level engine: every message is a flow along its route, flows
 * share links max-min fairly (sim_maxmin.h), rates are brought up to date
 * incrementally whenever flows start or end, and the time a flow's last
 * byte leaves is an event on a deterministic queue (sim_evq.h).
 *
 * Model (docs/sim.md, "Flow-level model"):
 *  - a message of B bytes posted at t starts at t (its route is chosen
 *    then; adaptive routers see the flows on each port, UGAL included);
 *  - it drains at its max-min rate, which changes only when some flow
 *    starts or ends; when its B bytes have drained the flow ends and
 *    frees its share, and the message is delivered one path latency
 *    (the sum of the links' latencies) later (the source is told at
 *    once, with that time: what it posts in answer starts then);
 *  - no packets, no queues, no buffers, no per-hop serialization: that is
 *    the packet engine's job.  Under this model latency does not hold
 *    bandwidth and a flow's rate is its fair share from its first byte;
 *  - a multicast (tn_sim_eng_post_mcast) is one flow over a tree: the
 *    route to each destination in turn, grafted where it first reaches
 *    a node already on the tree (so every switch gets one copy and
 *    replicates it); its max-min rate is charged once on each tree
 *    link, and it is delivered the longest root-to-destination latency
 *    on the tree after its bytes have drained.  Flow level only: the
 *    packet engine has no switch replication, and refuses it.
 * Events at the same time are taken as one batch: all of them first, one
 * rate update after.  Counting: an "event" in the figures is a flow start
 * or a flow end (timers and messages that never reach the fabric are
 * extra queue entries, counted in the queue pops).
 *
 * Determinism: one seeded generator gives every message its random bits
 * (ECMP hashes, Valiant's group); events tie on sequence numbers; nothing
 * depends on addresses or the clock.  Same configuration, same seed: the
 * same output, bit for bit. */
#ifndef TN_SIM_FLOW_H
#define TN_SIM_FLOW_H

#include <stdint.h>

#include "sim_evq.h"
#include "sim_heat.h"
#include "sim_maxmin.h"
#include "sim_pkt.h"
#include "sim_route.h"
#include "sim_rng.h"
#include "sim_stats.h"
#include "sim_work.h"

typedef struct tn_sim_eng tn_sim_eng_t;

/* How many flows the engine routes before it puts the first of them on
 * its links (their links' entries come into the cache meanwhile). */
enum { TN_SIM_ENG_START_AHEAD = 4 };

/* What a rate update, a flow's end and its delivery read of a flow,
 * together: one cache line (the array is 64-byte aligned), where an array
 * per field cost a miss each for the scattered flows an update
 * reschedules and the flows that end. */
typedef struct {
    double rem;          /* bytes left at tlast (flow level) */
    double tlast;
    double lat;          /* the path's (the tree's longest) latency */
    int32_t evh;         /* its event in the queue, or -1 */
    int32_t job;
    double bytes;        /* the message's */
    double post;         /* when it was posted */
    double ideal;        /* its time on an idle fabric */
    int64_t cookie;      /* the source's, for delivered() */
} tn_sim_eng_flow_t;
typedef struct tn_sim_src tn_sim_src_t;

/* A job's traffic source: open loop (sim_open.c), a DAG (sim_dag.c), a
 * trace replay later.  Callbacks may post messages and arm timers at the
 * current time or later; delivered() gets the delivery time, which may be
 * later than the current time (a path latency after the flow ended), and
 * what it posts must not be earlier than that. */
typedef struct {
    tn_sim_status_t (*start)(tn_sim_src_t *src, tn_sim_eng_t *eng);
    tn_sim_status_t (*timer)(tn_sim_src_t *src, tn_sim_eng_t *eng, int32_t arg, double t);
    tn_sim_status_t (*delivered)(tn_sim_src_t *src, tn_sim_eng_t *eng, int64_t cookie, double t);
} tn_sim_src_ops_t;

struct tn_sim_src {
    const tn_sim_src_ops_t *ops;
    int job;
};

typedef struct {
    double t_end;        /* stop there (open loop); INFINITY: when nothing is left */
    double w0;           /* measurement window [w0, t_end) (warm-up before) */
    int32_t bins;        /* throughput bins (see sim_stats.h) */
    double bin_w;        /* their first width, ns */
    int full;            /* rates from scratch at every change (for comparison) */
    int heat;            /* keep the heatmaps (sim_heat.h) */
    int heat_queues;     /* ... with the switch queues (packet level) */
    int32_t heat_bins;   /* their bins and first width, ns */
    double heat_bin_w;
    uint64_t seed;
    double store_fwd;    /* flow level: switches store this many bytes (a frame)
                          * before forwarding; 0: cut-through (sim_flow.c) */
    int fifo;            /* flow level: first come, first served instead of
                          * max-min (tn_sim_mm_solve_fifo); a flow may wait
                          * at rate 0 */
} tn_sim_eng_conf_t;

struct tn_sim_eng {
    const tn_sim_topo_t *topo;
    const tn_sim_router_t *rt;
    const tn_sim_job_t *jobs;
    tn_sim_src_t **src;
    int njobs;
    tn_sim_eng_conf_t conf;
    tn_sim_evq_t q;
    tn_sim_mm_t mm;
    tn_sim_stats_t stats;
    tn_sim_rng_t rng;
    tn_sim_pkt_t *pkt;   /* the packet engine (fidelity = packet), or NULL */
    double now;
    /* flows (= messages in flight), ids shared with mm */
    int32_t fcap, ffree;
    int32_t *zombie, nzombie;     /* [fcap] ended, the solver not told yet */
    tn_sim_eng_flow_t *fl;
    int32_t *f_next;
    int32_t *f_src, *f_dst;  /* f_dst -1: a multicast to f_mc[f][0 .. f_mcn[f]) */
    const int32_t **f_mc;
    int32_t *f_mcn;
    uint8_t *f_hrow;     /* heat on, flow level: the link rows of a flow's hops [fcap * max_hops] */
    /* timers: (job, arg) by slot */
    int32_t tcap, tfree;
    int32_t *t_job, *t_arg;
    int32_t *path;       /* [TN_SIM_ENG_START_AHEAD * max_hops] routes of flows not on their links yet */
    /* flows routed, not yet on their links (sim_flow.c, eng_place): a
     * ring, oldest at pend_hd; routers that read the loads (defer 0) put
     * each on at once */
    int32_t pend_f[TN_SIM_ENG_START_AHEAD], pend_n[TN_SIM_ENG_START_AHEAD];
    int pend_hd, npend, defer;
    /* multicast trees (allocated by the first one): links and their VCs
     * (the packet engine's), the nodes on the tree (stamp mc_ep) and
     * their latency from the root */
    int32_t *mc_tree;    /* [n_node] */
    uint8_t *mc_vc;      /* [n_node] */
    uint32_t *mc_mark;   /* [n_node] */
    double *mc_depth;    /* [n_node] */
    uint32_t mc_ep;
    tn_sim_status_t err; /* the first error a callback hit */
    char why[256];
    /* counters */
    uint64_t flow_starts, flow_ends, pops, batches;
    double wall_s, cpu_s;  /* the run's wall-clock and CPU time (set-up and output not counted) */
    tn_sim_heat_t heat;    /* off unless conf.heat; last: it is big and the hot fields stay together */
};

tn_sim_status_t tn_sim_eng_init(tn_sim_eng_t *e, const tn_sim_topo_t *topo,
                                const tn_sim_router_t *rt, const tn_sim_job_t *jobs,
                                tn_sim_src_t **src, int njobs, const tn_sim_eng_conf_t *conf);
void tn_sim_eng_fini(tn_sim_eng_t *e);
/* Runs until t_end or until no event is left; e->why says what failed. */
tn_sim_status_t tn_sim_eng_run(tn_sim_eng_t *e);

/* For sources: a message of job from endpoint src to dst at time t (>=
 * now); cookie comes back in delivered(). */
tn_sim_status_t tn_sim_eng_post(tn_sim_eng_t *e, double t, int job, int32_t src, int32_t dst,
                                uint64_t bytes, int64_t cookie);
/* For sources: a multicast of job from endpoint src to the endpoints
 * dst[0 .. n-1] at time t (>= now), one message of bytes to each: one
 * flow over a tree (above), delivered once, when the last destination
 * has it.  src among dst, and repeats, count once; n >= 1.  dst must
 * stay valid until delivered() (the tree is routed when the flow
 * starts).  Fails (TN_SIM_ERR_UNSUPP, e->why naming the options that
 * make multicasts) on the packet engine. */
tn_sim_status_t tn_sim_eng_post_mcast(tn_sim_eng_t *e, double t, int job, int32_t src, const int32_t *dst,
                                      int32_t n, uint64_t bytes, int64_t cookie);
/* For the packet engine: message f's last byte is at its destination
 * at t (>= now). */
tn_sim_status_t tn_sim_eng_pkt_done(tn_sim_eng_t *e, int32_t f, double t);

/* For sources: timer(arg) at time t (>= now). */
tn_sim_status_t tn_sim_eng_timer(tn_sim_eng_t *e, double t, int job, int32_t arg);

#endif
