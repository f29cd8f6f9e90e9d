/* Batch workloads as DAGs of messages and joins (sim_work.h), and the
 * source that runs one on an engine (sim_flow.h).
 *
 * Node i is a message from rank src[i] to rank dst[i] of bytes[i] bytes,
 * a join (dst[i] == TN_SIM_DAG_JOIN): no traffic, done as soon as it
 * starts, or a multicast (dst[i] <= TN_SIM_DAG_MCAST): bytes[i] from
 * src[i] to each of the ranks mc.v[mc.off[k] .. mc.off[k + 1]) with
 * k = TN_SIM_DAG_MCAST - dst[i], one flow over a tree (sim_flow.h),
 * complete when the last of them has it.  It
 * starts delay[i] ns after the last of the nodes it depends on completed
 * (or after the job's start when it depends on none).  Edges are stored
 * once, as CSR lists of dependents.  A trace replay builds the same
 * structure from per-rank message lists.
 *
 * Hosts (the replay's host model, docs/sim.md "Hosts"): a node with dst
 * TN_SIM_DAG_CPU is work on a host's cores: src[i] is the host (a pool
 * of `cores` cores), delay[i] the ns of core time it takes.  Once its
 * dependencies are done it takes a free core of its host for that long,
 * or waits for one, first come first served.  Its dependents go on when
 * it is done, or (wait_only, tn_sim_dag_pools) as soon as it has its
 * core: the work's time is then part of a latency measured elsewhere, and
 * only the wait for a core adds to it (message ends only, bytes
 * TN_SIM_DAG_CPU_END). */
#ifndef TN_SIM_DAG_H
#define TN_SIM_DAG_H

#include <stdint.h>

#include "sim_flow.h"
#include "sim_work.h"

enum { TN_SIM_DAG_JOIN = -1, TN_SIM_DAG_CPU = -2, TN_SIM_DAG_MCAST = -3 };
/* A CPU node's bytes: TN_SIM_DAG_CPU_END marks the work of a message's
 * end, which wait_only (tn_sim_dag_pools) applies to; 0 a rank's own work,
 * which always keeps its time. */
enum { TN_SIM_DAG_CPU_END = 1 };

/* Lists of ranks kept one after another (a DAG's or a replay program's
 * multicast destinations): list k is v[off[k] .. off[k + 1]). */
typedef struct {
    int32_t n, cap;         /* lists; room in off */
    int32_t *off;           /* [n + 1] */
    int32_t *v;
    int64_t nv, vcap;
} tn_sim_lists_t;

/* Appends v[0 .. n) (n >= 1) as the next list; its index, or -1 (no
 * memory, too many). */
int32_t tn_sim_lists_add(tn_sim_lists_t *l, const int32_t *v, int32_t n);
/* Takes the last list back off. */
void tn_sim_lists_pop(tn_sim_lists_t *l);
void tn_sim_lists_free(tn_sim_lists_t *l);

/* A node: what its completion and its start read, together (32 bytes,
 * two to a cache line), where an array per field cost a miss each on the
 * scattered dependents a completion releases. */
typedef struct {
    double ready;           /* latest completion among its dependencies so far */
    double delay;
    int32_t src, dst;       /* dst: a rank, or TN_SIM_DAG_* (<= MCAST: multicast MCAST - dst) */
    int32_t deps;           /* dependencies not completed yet */
} tn_sim_dag_node_t;

/* DAGs up to 2^31 nodes and edges. */
typedef struct {
    int32_t n, cap;
    tn_sim_dag_node_t *nd;  /* [cap] */
    uint64_t *bytes;        /* [cap] */
    int64_t nedge, ecap;
    int32_t *e_from, *e_to; /* while building */
    int32_t *out_off;       /* [n + 1] after tn_sim_dag_seal */
    int32_t *out;
    int32_t done;
    double t_last;
    int32_t npool, cores;   /* hosts of the CPU nodes (0: none), cores each */
    int wait_only;          /* CPU nodes done when they get a core (their
                             * dependents wait for the core, not the work) */
    tn_sim_lists_t mc;      /* multicasts' destinations (ranks) */
} tn_sim_dag_t;

void tn_sim_dag_init(tn_sim_dag_t *g);
void tn_sim_dag_free(tn_sim_dag_t *g);
/* A node; returns its index or -1 (out of memory, too many). */
int32_t tn_sim_dag_node(tn_sim_dag_t *g, int32_t src, int32_t dst, uint64_t bytes, double delay);
/* A multicast from rank src to the ranks dst[0 .. n-1] (n >= 1, src not
 * among them, no repeats); its index or -1 (bad input, out of memory,
 * too many). */
int32_t tn_sim_dag_mcast(tn_sim_dag_t *g, int32_t src, const int32_t *dst, int32_t n, uint64_t bytes,
                         double delay);
/* "to" depends on "from" (from < to: a DAG by construction). */
tn_sim_status_t tn_sim_dag_edge(tn_sim_dag_t *g, int32_t from, int32_t to);
/* npool hosts of `cores` cores each for the CPU nodes (src < npool);
 * wait_only: a CPU node is done when it gets its core (above). */
tn_sim_status_t tn_sim_dag_pools(tn_sim_dag_t *g, int32_t npool, int32_t cores, int wait_only);
/* Builds the dependents' lists; no more nodes or edges after. */
tn_sim_status_t tn_sim_dag_seal(tn_sim_dag_t *g);

/* The DAG of a batch job's pattern (sim_dag_gen.c):
 *  uniform, perm, tornado, incast: every sending rank sends `count`
 *    messages, at most `window` in flight (message k after message
 *    k - window of the same rank, plus delay);
 *  alltoall: pairwise exchange, phase k = 1 .. phases: rank r sends to
 *    r + k (mod n) once its phase k-1 send has completed and its phase k-1
 *    message (from r - k + 1) has arrived, plus delay;
 *  halo: iterations; in each every rank sends to its 2 * grid_nd
 *    neighbours; a join per rank waits for its sends and its receives,
 *    and the next iteration's sends start delay after it. */
tn_sim_status_t tn_sim_dag_generate(const tn_sim_job_t *j, uint64_t seed, int jobno, tn_sim_dag_t *g,
                                    char *why, size_t whylen);

/* A source running DAG g for job j (both outlive it). */
typedef struct {
    tn_sim_src_t base;
    const tn_sim_job_t *job;
    tn_sim_dag_t *dag;
    int32_t *stack;  /* nodes completed, their dependents not yet released */
    /* hosts: free cores, and each one's queue of CPU nodes waiting for a
     * core (linked through qnext, -1 ends) */
    int32_t *pfree, *phead, *ptail, *qnext;
    int32_t *mc_ep;  /* the multicasts' destinations as endpoints (g->mc.v) */
} tn_sim_dag_src_t;

tn_sim_status_t tn_sim_dag_src_init(tn_sim_dag_src_t *s, int jobno, const tn_sim_job_t *j,
                                    tn_sim_dag_t *g);
void tn_sim_dag_src_fini(tn_sim_dag_src_t *s);

#endif
