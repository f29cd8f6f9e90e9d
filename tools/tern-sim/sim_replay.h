/* Trace replay (docs/sim.md, "Trace replay"): a recorded job turned into
 * a program of messages and joins with dependencies, then into a batch
 * DAG (sim_dag.h) that the flow engine runs like any synthetic workload.
 *
 * The program is built from a Tern trace directory (sim_replay_trace.c,
 * through tools/tern-trace's loader and matcher) or from a VEF file
 * (sim_replay_vef.c, through trace_vef_read.c).  Its nodes name world
 * ranks, in any order, with edges in any direction; tn_sim_prog_dag sorts
 * them (a cycle, which only a forged trace can make, is refused) and
 * turns ranks into the job's endpoint slots:
 *  - slot mode "trace": ranks the trace puts on one node share a slot
 *    (one endpoint, one NIC), and a message between two of them does not
 *    touch the fabric: it becomes a join that takes shm_lat + bytes /
 *    shm_bw;
 *  - slot mode "rank": every rank is a slot of its own, placed by the
 *    job's mapping policy.
 *
 * Per rank (Tern traces): each MPI call the program made (depth 0) is an
 * entry join E and an exit join X.  E waits for the previous call's X
 * plus the compute gap between them (exact, from the trace); the first
 * call's E waits its traced entry time.  X waits for E, plus nothing more
 * when the call moved traffic the replay models (it then ends when what
 * it completed has arrived), else the call's traced duration (a call the
 * replay models nothing of, MPI_Init or MPI_Comm_split, takes the time it
 * took).  MPI_Finalize is taken as instantaneous.
 *
 * Point to point (trace_match.h's pairs): a message starts when its send
 * call starts; a rendezvous (more than `eager` bytes, or a synchronous
 * send) also waits for its receive's posting call to start and holds the
 * call that completes the send until it arrives; the call that completes
 * the receive waits for its arrival.
 *
 * Collectives: expanded into rounds of messages by the algorithm the trace
 * recorded (sim_replay_coll.c lists the expansions).
 *
 * Hosts: with cpu_o > 0 every message node becomes three DAG nodes, the
 * sender's CPU work (TN_SIM_DAG_CPU), the message, the receiver's CPU
 * work; what waited for the message waits for the last.  A node with dst
 * TN_SIM_PROG_CPU is a rank's own work of `delay` ns (a collective's
 * reduction or copy): a core of its host with the host model, else a
 * join with that delay.  A node with dst <= TN_SIM_PROG_MCAST is a
 * multicast (tn_sim_prog_mcast). */
#ifndef TN_SIM_REPLAY_H
#define TN_SIM_REPLAY_H

#include <stdint.h>
#include <stdio.h>

#include "sim_dag.h"

typedef enum { TN_SIM_SLOT_TRACE, TN_SIM_SLOT_RANK } tn_sim_slot_mode_t;

enum { TN_SIM_PROG_JOIN = -1, TN_SIM_PROG_CPU = -2, TN_SIM_PROG_MCAST = -3 };

typedef struct {
    uint64_t eager;      /* rendezvous above this many bytes */
    double shm_lat;      /* ns, intra-node message */
    double shm_bw;       /* bytes/ns, intra-node message */
    int slot_mode;       /* tn_sim_slot_mode_t */
    const char *coll_plan; /* tern-coll-plan's path (sim_plan.h); NULL: the models only */
    int bcast_mcast;     /* each broadcast one multicast (tn_sim_coll_mcast) */
    int32_t coll_plan_max; /* communicators above this many ranks use the models */
    uint64_t coll_plan_ops; /* plans above this many operations: the models */
    double op_bw;        /* bytes/ns of a collective's reductions (plans); 0: free */
    double copy_bw;      /* bytes/ns of a collective's local copies (plans); 0: free */
    /* hosts (docs/sim.md "Hosts"): every message costs cpu_o ns of a
     * core at its sender before it leaves and at its receiver after it
     * arrives; ranks of one traced node (cpu_share 0) or all ranks
     * (cpu_share 1) share cpu_cores cores.  cpu_o 0: no host model. */
    double cpu_o;
    int32_t cpu_cores;
    int cpu_share;
    int cpu_wait;        /* cpu_charge = wait: a message waits for a core, not
                          * for the work, whose time its latency holds */
    /* hosts that also forward frames (software switches, link emulators):
     * a message's receiver work grows by cpu_fwd ns per frame (cpu_frame
     * bytes, at least one) for each switch-to-switch link on its route,
     * ss_hops(ss_ctx, from slot, to slot) of them (NULL: none) */
    double cpu_fwd, cpu_frame;
    int (*ss_hops)(void *ctx, int32_t s, int32_t d);
    void *ss_ctx;
} tn_sim_replay_conf_t;

struct tn_sim_plan_cache;

typedef struct {
    /* nodes: src, dst world ranks (dst TN_SIM_PROG_JOIN, _CPU, or <=
     * TN_SIM_PROG_MCAST: multicast k = TN_SIM_PROG_MCAST - dst to the
     * ranks mc.v[mc.off[k] .. mc.off[k + 1])) */
    int32_t n, cap;
    int32_t *src, *dst;
    tn_sim_lists_t mc;
    uint64_t *bytes;
    double *delay;
    int64_t nedge, ecap;
    int32_t *e_from, *e_to;
    /* ranks */
    int32_t nranks;
    int32_t *node;       /* [nranks] the trace's node of each rank */
    int32_t nnodes;
    double *trace_end;   /* [nranks] ns, the trace's own end of each rank; < 0: none */
    /* messages measured: from node m_begin's completion to m_end's */
    size_t nmsg, mcap;
    int32_t *m_begin, *m_end;
    double *m_trace;     /* the trace's time of the same message, ns; < 0: none */
    uint64_t *m_bytes;
    /* collective calls measured the same way, each member's call from its
     * entry to its exit (a nonblocking one's: to the wait that completed
     * it), apart from the messages */
    size_t ncall, ccap;
    int32_t *c_begin, *c_end;
    double *c_trace;     /* the trace's time of the same call, ns; < 0: none */
    uint8_t *c_kind;     /* its kind (tn_sim_ckind_t, sim_replay_coll.h) */
    /* what the builder left out */
    uint64_t skipped_msgs, fallback_colls, opaque_colls;
    /* collectives expanded by Tern's own code (sim_plan.h), and those the
     * the models expanded (sim_replay_coll.h), among them those the
     * planner failed on, with the first reason */
    uint64_t planned_colls, modelled_colls, plan_failed;
    uint64_t mcast_colls;  /* broadcasts made one multicast (bcast_mcast) */
    char plan_why[200];
    struct tn_sim_plan_cache *plans;
    /* after a run: completion time of every node */
    double *t_done;
    /* set by tn_sim_prog_dag: program node -> DAG node */
    int32_t *to_dag;
    /* with hosts: the DAG node a program node's dependencies point to (the
     * sender's CPU work of a message; else to_dag's) */
    int32_t *in_dag;
} tn_sim_prog_t;

void tn_sim_prog_init(tn_sim_prog_t *p);
void tn_sim_prog_free(tn_sim_prog_t *p);
/* A node; its index or -1 (out of memory, too many). */
int32_t tn_sim_prog_node(tn_sim_prog_t *p, int32_t src, int32_t dst, uint64_t bytes, double delay);
/* A multicast of bytes from rank src to the ranks dst[0 .. n-1] (n >= 1;
 * src among them and repeats count once); its index, or -1 (n < 1, out
 * of memory, too many). */
int32_t tn_sim_prog_mcast(tn_sim_prog_t *p, int32_t src, const int32_t *dst, int32_t n, uint64_t bytes,
                          double delay);
/* "to" waits for "from" (any two existing nodes). */
tn_sim_status_t tn_sim_prog_edge(tn_sim_prog_t *p, int32_t from, int32_t to);
/* A message to measure; -1 on no memory. */
int tn_sim_prog_measure(tn_sim_prog_t *p, int32_t begin, int32_t end, double trace_ns, uint64_t bytes);
/* A collective call to measure; -1 on no memory. */
int tn_sim_prog_measure_call(tn_sim_prog_t *p, int32_t begin, int32_t end, double trace_ns, int kind);
/* Sets nranks and allocates node[] (0) and trace_end[] (-1). */
tn_sim_status_t tn_sim_prog_ranks(tn_sim_prog_t *p, int32_t nranks);

/* Endpoint slots the program needs in mode m (2 at least, what a job
 * needs to be placed). */
int32_t tn_sim_prog_slots(const tn_sim_prog_t *p, int slot_mode);
/* The DAG of p (g initialised empty here, sealed); why on failure. */
tn_sim_status_t tn_sim_prog_dag(tn_sim_prog_t *p, const tn_sim_replay_conf_t *rc, tn_sim_dag_t *g,
                                char *why, size_t whylen);
/* After the run of g: keeps every node's completion time in p->t_done. */
tn_sim_status_t tn_sim_prog_collect(tn_sim_prog_t *p, const tn_sim_dag_t *g);

/* Builders.  0 with p filled, or an error with why (p then freed). */
tn_sim_status_t tn_sim_replay_from_trace(tn_sim_prog_t *p, const char *dir, const tn_sim_replay_conf_t *rc,
                                         char *why, size_t whylen);
/* rc may be NULL (only bcast_mcast is read). */
tn_sim_status_t tn_sim_replay_from_vef(tn_sim_prog_t *p, const char *path, const tn_sim_replay_conf_t *rc,
                                       char *why, size_t whylen);

/* Writes replay.txt, replay_ranks.csv, replay_msgs.csv in dir and the
 * summary to f (may be NULL); 0 or -1. */
int tn_sim_replay_out(const tn_sim_prog_t *p, const char *dir, FILE *f, char *why, size_t whylen);

#endif
