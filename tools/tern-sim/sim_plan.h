/* Collectives of a replay expanded by Tern's own algorithm code
 * (docs/sim.md, "Collectives from Tern's own code").
 *
 * tern-coll-plan (tools/tern-coll-plan) runs the library's collective
 * algorithms against a recorder and prints, per rank, the sends, receives,
 * waits, reductions and shared-memory steps they make.  tern-sim runs it as
 * a separate program (it links nothing of the library), reads its output
 * through one decode step (tn_sim_plan_parse: every count, id, rank and
 * wait checked; fuzzed by fuzz_collplan) and turns the plan into program
 * nodes (tn_sim_plan_expand):
 *   s ID PEER B   message ID starts when the rank reaches it; above the
 *                 eager limit it also waits for the receive's post
 *   r ID PEER B   the receive's post (what a rendezvous waits for)
 *   w ID...       the rank goes on when the listed receives have arrived
 *                 and the listed rendezvous sends have been delivered
 *                 (an eager send completes at once)
 *   c B           a reduction of B bytes: B / coll_op_bw (0: free)
 *   m B           a local copy of B bytes: B / coll_copy_bw (0: free)
 *   y GID B       a shared-memory step: every member of group GID joins,
 *                 all leave shm_lat + B / shm_bw after the last arrives
 * Reductions and copies are the rank's own work (TN_SIM_PROG_CPU nodes:
 * with the host model they take a core, sim_replay.h).  Plans are cached
 * per request (same kind, algorithm, ranks, bytes, root, nodes, op class
 * and blocks give the same plan). */
#ifndef TN_SIM_PLAN_H
#define TN_SIM_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "sim_replay.h"
#include "sim_status.h"

typedef struct {
    uint8_t  type;     /* 's', 'r', 'w', 'c', 'm', 'y' */
    int32_t  peer;     /* s, r */
    int64_t  id;       /* s, r: message; y: group */
    uint64_t bytes;    /* s, r, c, m, y */
    uint32_t wfirst;   /* w: ids in waits[wfirst, wfirst + wn) */
    uint32_t wn;
} tn_sim_plan_op_t;

typedef struct {
    char kind[32], algo[32];
    int32_t n;
    uint64_t bytes;
    int32_t root;
    int64_t nmsg, ngroups;
    size_t *first;            /* [n + 1] each rank's ops: ops[first[i], first[i + 1]) */
    tn_sim_plan_op_t *ops;
    size_t nops;
    int64_t *waits;
    size_t nwaits;
    int32_t *msrc, *mdst;     /* [nmsg] */
    uint64_t *mbytes;         /* [nmsg] */
} tn_sim_plan_t;

/* The one decode step of tern-coll-plan's output (len bytes, not
 * necessarily NUL-terminated).  0, or an error with why (pl then empty). */
tn_sim_status_t tn_sim_plan_parse(const char *buf, size_t len, tn_sim_plan_t *pl, char *why,
                                  size_t whylen);
void tn_sim_plan_free(tn_sim_plan_t *pl);

/* What expanding needs from the replay's configuration. */
typedef struct {
    uint64_t eager;    /* bytes; rendezvous above */
    double shm_lat;    /* ns */
    double shm_bw;     /* bytes/ns */
    double op_bw;      /* bytes/ns of reductions; 0: free */
    double copy_bw;    /* bytes/ns of local copies; 0: free */
} tn_sim_plan_conf_t;

/* Adds pl's nodes to p for members whose world ranks are world[0..n) and
 * who start at state[i]; on return state[i] is where each member's call
 * ends.  pl->n must be n. */
tn_sim_status_t tn_sim_plan_expand(tn_sim_prog_t *p, const tn_sim_plan_t *pl, const int32_t *world,
                                   int32_t *state, const tn_sim_plan_conf_t *pc);

/* Runs the planner (argv[0] its path; argv NULL-terminated) with in[0..
 * inlen) as its standard input (in NULL: none) and returns its standard
 * output in *out (malloc'ed, *len bytes), at most max bytes.  0 or an
 * error with why (its standard error's first line when it failed). */
tn_sim_status_t tn_sim_plan_run(char *const argv[], const char *in, size_t inlen, size_t max, char **out,
                                size_t *len, char *why, size_t whylen);

/* The planner next to the running program (its directory's
 * tern-coll-plan) in buf; 0, or -1 when there is none. */
int tn_sim_plan_beside(char *buf, size_t len);

/* Plans fetched once per request. */
typedef struct tn_sim_plan_cache tn_sim_plan_cache_t;
/* The plan for argv and standard input in (NULL: none; part of the
 * request), run when not cached; NULL with why on failure.  The plan
 * belongs to the cache. */
const tn_sim_plan_t *tn_sim_plan_get(tn_sim_plan_cache_t **cache, char *const argv[], const char *in,
                                     char *why, size_t whylen);
void tn_sim_plan_cache_free(tn_sim_plan_cache_t *cache);

#endif
