/* Collectives of a replay expanded into point-to-point messages
 * (docs/sim.md, "Trace replay"), one expansion per recorded algorithm.
 *
 * Member i of n (its rank in the communicator) starts at node state[i]
 * (its call's entry) and, on return, state[i] is the node its call's exit
 * must wait for.  The expansions run in rounds: in a round a member's
 * messages start when its previous round is over, and its round is over
 * when what it sent and what it received in it have completed (MPI's
 * sendrecv, which is how Tern's algorithms step).  Bytes: sbytes[i] and
 * rbytes[i] as the trace recorded them for member i.
 *
 *   barrier dissemination   ceil(log2 n) rounds: i -> i + 2^k, 0 bytes
 *   barrier flat            all -> 0, then 0 -> all, 0 bytes
 *   bcast binomial          rounds by mask from the top: v -> v + mask
 *                           (v relative to the root), the whole buffer
 *   reduce binomial         rounds by mask from 1: v -> v - mask
 *   allreduce recdbl        non-power-of-two: the first 2r ranks fold in
 *                           pairs (even -> odd); log2 rounds of i <-> i^mask
 *                           with the whole buffer; the folded get it back
 *   allreduce ring          2 (n-1) rounds of i -> i+1 with bytes/n
 *   allreduce rabenseifner  the fold, then recursive halving (bytes/2,
 *                           /4, ...) and recursive doubling back
 *   allgather ring          n-1 rounds of i -> i+1, one block
 *   allgather recdbl        power of two: rounds i <-> i^mask, mask blocks
 *                           (else as bruck)
 *   allgather bruck         rounds k = 1, 2, 4..: i -> i-k, min(k, n-k) blocks
 *   alltoall pairwise       n-1 rounds: i -> i+k, one block (sbytes/n)
 *   alltoall scattered      one round: every i -> every j, one block
 *   alltoall bruck          ceil(log2 n) rounds: i -> i+k, n/2 blocks
 *   shm (any kind)          members on one node (one slot): no traffic, a
 *                           join of all members plus shm_lat
 *   anything else (and nonblocking ones, which record no algorithm, and
 *   twolevel): the fallback, a flat gather of every member's sbytes to
 *   the root (or member 0) and a flat scatter of every member's rbytes
 *   from it.
 * These are models of Tern's algorithms written from their descriptions.
 * A replay of a Tern trace expands its blocking collectives with Tern's
 * own code instead (tn_sim_coll_plan, sim_plan.h) whenever the planner is
 * there (nonblocking and persistent ones as algorithm "nbc": their
 * coll/nbc schedules; vector forms with the blocks the trace recorded);
 * neighbourhood collectives with the lists and blocks their trace
 * recorded) whenever the planner is there; the models serve VEF traces,
 * vector forms whose blocks are not known and communicators above
 * coll_plan_max ranks, and run a neighbourhood collective whose lists
 * are known as its one round (a send along every edge, as Tern's
 * schedule does). */
#ifndef TN_SIM_REPLAY_COLL_H
#define TN_SIM_REPLAY_COLL_H

#include "sim_replay.h"

typedef enum {
    TN_SIM_C_BARRIER, TN_SIM_C_BCAST, TN_SIM_C_REDUCE, TN_SIM_C_ALLREDUCE, TN_SIM_C_ALLGATHER,
    TN_SIM_C_ALLTOALL, TN_SIM_C_GATHER, TN_SIM_C_SCATTER, TN_SIM_C_REDUCE_SCATTER, TN_SIM_C_SCAN,
    TN_SIM_C_EXSCAN, TN_SIM_C_NBR_ALLGATHER, TN_SIM_C_NBR_ALLTOALL, TN_SIM_C_OTHER
} tn_sim_ckind_t;

typedef struct {
    int32_t n;
    const int32_t *world;   /* [n] world rank of each member */
    int32_t *state;         /* [n] in: start nodes; out: the nodes the exits wait for */
    const uint64_t *sbytes, *rbytes;
    int32_t root;           /* member index, -1: none */
    int one_node;           /* every member on one slot */
    double shm_lat;
    int vector;             /* a v/w form (blocks may differ) */
    /* a vector form's blocks, bytes (NULL: not known, the models run it):
     * alltoall n rows of n (row i what member i sends to each), the
     * others one row (member i's block) */
    const uint64_t *counts;
    int noncommutative;     /* a user op (it may not commute) */
    /* a neighbourhood collective's lists (NULL: not known, the fallback
     * runs it): member i's numbers from nbrs[nbr_first[i]] on, as
     * tern-coll-plan's --neighbors takes them: indegree, outdegree, the
     * sources, the destinations (members), the bytes sent to each
     * destination, the bytes received from each source */
    const int64_t *nbrs;
    const size_t *nbr_first;   /* [n + 1] */
} tn_sim_coll_t;

/* A kind's name ("allreduce"; "other" for anything else). */
const char *tn_sim_ckind_name(int kind);

/* Rounds of messages among a collective's members (the models' steps):
 * in a round a member's messages start when its previous round is over,
 * and its round is over when what it sent and received in it have
 * completed.  Members are indices into c->world; c->state moves on. */
typedef struct {
    tn_sim_prog_t *p;
    tn_sim_coll_t *c;
    int32_t *pm, *pn;     /* this round's (member, message node) pairs, twice per message */
    size_t np, cap;
    int32_t *join;        /* [n] this round's join per member, -1 */
    tn_sim_status_t st;
} tn_sim_rounds_t;

tn_sim_status_t tn_sim_rounds_init(tn_sim_rounds_t *x, tn_sim_prog_t *p, tn_sim_coll_t *c);
/* Member i sends bytes to member j in this round (nothing when i == j). */
void tn_sim_rounds_send(tn_sim_rounds_t *x, int32_t i, int32_t j, uint64_t bytes);
/* Ends the round. */
void tn_sim_rounds_step(tn_sim_rounds_t *x);
/* Frees x; the first error of its sends and steps. */
tn_sim_status_t tn_sim_rounds_fini(tn_sim_rounds_t *x);

/* The collective expanded by Tern's own algorithm code (sim_plan.h),
 * when rc names a planner, the algorithm is known, the blocks are uniform
 * and the communicator has at most rc->coll_plan_max members: *planned_p
 * is 1 then, else 0 (the caller expands it with the models; a planner
 * that failed is counted in p->plan_failed with its reason). */
tn_sim_status_t tn_sim_coll_plan(tn_sim_prog_t *p, tn_sim_ckind_t kind, const char *algo, tn_sim_coll_t *c,
                                 const tn_sim_replay_conf_t *rc, int *planned_p);

/* Whether the models know algo for kind (else tn_sim_coll_expand takes
 * the fallback). */
int tn_sim_coll_has_model(tn_sim_ckind_t kind, const char *algo);

/* A broadcast as one multicast (bcast_mcast; coll_algo mcast): the root
 * c->root sends max(sbytes, rbytes) of its own once, over a tree, to
 * every other member (one program node, sim_flow.h's multicast); every
 * member's call, the root's included, ends when the last member has it.
 * TN_SIM_ERR_INVAL when there are no members or the root is not one
 * (c->root outside [0, n)); nothing is added then.  One member: no
 * traffic, the states stay. */
tn_sim_status_t tn_sim_coll_mcast(tn_sim_prog_t *p, tn_sim_coll_t *c);

/* Expands one collective; *fallback_p set when it took the fallback. */
tn_sim_status_t tn_sim_coll_expand(tn_sim_prog_t *p, tn_sim_ckind_t kind, const char *algo, tn_sim_coll_t *c,
                                   int *fallback_p);

#endif
