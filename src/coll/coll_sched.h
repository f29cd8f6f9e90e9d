/* Collective schedules: the nonblocking (MPI_I<coll>) and persistent
 * (MPI_<coll>_init) collectives.
 *
 * A schedule is a list of rounds.  A round is a sequence of steps: local
 * steps (copy, reduce) run in order when the round begins, then its sends
 * and receives are posted; the round ends when all of them have completed,
 * and the next round begins.  Schedules advance from tn_coll_sched_progress,
 * which the progress engine calls (through the MPI layer's progress hook),
 * so a collective moves on during MPI_Test and every other progressing
 * call, never only at MPI_Wait.
 *
 * Messages go on the communicator's collective context with tag
 * TN_SCHED_TAG_BASE + (sequence mod TN_SCHED_TAG_SPAN) * TN_SCHED_TAG_SUBS
 * + sub (sub < TN_SCHED_TAG_SUBS, 0 unless a builder needs to tell apart
 * messages between the same pair of ranks): each start takes the
 * next value of comm->coll_seq, and MPI requires collectives to be started
 * in the same order on every member, so outstanding schedules on one
 * communicator never exchange each other's messages, nor the blocking
 * collectives' (small fixed tags, below the base).
 *
 * A persistent collective takes its tag once, when it is initialized, from
 * its own sequence (comm->coll_pseq) in the range above the nonblocking
 * ones: MPI lets ranks start persistent collectives in different orders
 * (only the info assertion mpi_assert_strict_persistent_collective_ordering
 * promises the same order), so they are matched by initialization order,
 * which is the same everywhere.  A request's successive starts reuse the
 * tag; each start's messages between a pair of ranks are ordered after the
 * previous start's (non-overtaking), and a start begins only after the
 * previous one completed locally.
 *
 * Builders (one per collective kind, coll/nbc/) add steps to a schedule
 * that belongs to a generic request (tn_req_new_generic); buffers are
 * resolved at build time (MPI_IN_PLACE included).  The schedule holds
 * references on its communicator, datatypes and ops, and owns its
 * temporaries.  Called with the progress lock held. */
#ifndef TN_COLL_COLL_SCHED_H
#define TN_COLL_COLL_SCHED_H

#include "coll/coll.h"
#include "p2p/p2p.h"

#define TN_SCHED_TAG_BASE 0x10000
#define TN_SCHED_TAG_SPAN 0x100000
#define TN_SCHED_TAG_SUBS 64
/* persistent schedules: above every nonblocking tag (still below INT_MAX) */
#define TN_SCHED_TAG_PBASE (TN_SCHED_TAG_BASE + TN_SCHED_TAG_SPAN * TN_SCHED_TAG_SUBS)

typedef struct tn_sched tn_sched_t;

/* ---- building ---------------------------------------------------------- */
tn_sched_t *tn_sched_new(tn_comm_t *comm);
/* Steps; errors (TN_ERR_NOMEM) are remembered and returned by finishing. */
void tn_sched_send(tn_sched_t *s, const void *buf, size_t count, const tn_dt_t *dt, int peer);
void tn_sched_recv(tn_sched_t *s, void *buf, size_t count, const tn_dt_t *dt, int peer);
/* With a sub-tag (0 <= sub < TN_SCHED_TAG_SUBS). */
void tn_sched_send_sub(tn_sched_t *s, const void *buf, size_t count, const tn_dt_t *dt,
                       int peer, int sub);
void tn_sched_recv_sub(tn_sched_t *s, void *buf, size_t count, const tn_dt_t *dt, int peer,
                       int sub);
/* tn_coll_copy semantics (sbuf's data into rbuf's data bytes) */
void tn_sched_copy(tn_sched_t *s, const void *sbuf, size_t scount, const tn_dt_t *sdt,
                   void *rbuf, size_t rcount, const tn_dt_t *rdt);
/* inout = in op inout */
void tn_sched_reduce(tn_sched_t *s, const void *in, void *inout, size_t count,
                     const tn_dt_t *dt, const tn_op_t *op);
/* A local step that calls fn(s, arg) when reached: it may add steps at the
 * end of the schedule (a schedule whose length is decided as it runs, such
 * as the context id agreement's retries); an error it returns ends the
 * schedule with that error.  Persistent schedules must not grow. */
typedef tn_status_t (tn_sched_fn_t)(tn_sched_t *s, void *arg);
void tn_sched_call(tn_sched_t *s, tn_sched_fn_t *fn, void *arg);
/* fn(arg) runs when the schedule is freed (once). */
void tn_sched_on_free(tn_sched_t *s, void (*fn)(void *arg), void *arg);
/* End the current round (no-op on an empty round). */
void tn_sched_barrier(tn_sched_t *s);
/* A temporary for count elements of dt laid out like dt (freed with the
 * schedule); NULL when malloc failed (also remembered). */
char *tn_sched_tmp(tn_sched_t *s, const tn_dt_t *dt, size_t count);
/* On an intercommunicator: send and receive steps added from now on name
 * ranks of the local group and travel on comm->local (local != 0), or name
 * remote ranks on the intercommunicator itself (local == 0, the default).
 * comm->local lives as long as comm, which the schedule holds; the tags
 * are the intercommunicator's, and comm->local runs no schedules of its
 * own, so they meet no other collective's messages.  No-op on an
 * intracommunicator. */
void tn_sched_use_local(tn_sched_t *s, int local);
/* Record a build failure (the first one is kept). */
void tn_sched_fail(tn_sched_t *s, tn_status_t st);
/* The schedule's error so far (TN_OK while building went well). */
tn_status_t tn_sched_status(const tn_sched_t *s);

/* Wrap a built schedule in a request: a nonblocking one starts now, a
 * persistent one waits for tn_p2p_start.  On failure the schedule is freed. */
tn_status_t tn_sched_commit(tn_sched_t *s, int persistent, tn_req_t **req_p);
void tn_sched_free(tn_sched_t *s);

/* Advance every started schedule; returns the number of events. */
int tn_coll_sched_progress(void);

/* ---- building blocks on groups of ranks (coll/nbc/nbc_group.c) ---------- *
 * A group is a list of comm ranks (member i is comm rank ranks[i], or rank
 * i when ranks is NULL); me is my index in it, -1 when I am not a member
 * (the builders then add nothing).  The flat schedules run on the whole
 * communicator, the two-level ones (nbc_twolevel.c) on a node's ranks and
 * on the nodes' leaders.  Every builder preserves rank order (member order)
 * for non-commutative ops unless it says otherwise. */
typedef struct {
    const int *ranks;
    int        n;
    int        me;
} tn_nbc_grp_t;

static inline int tn_nbc_grp_rank(const tn_nbc_grp_t *g, int i)
{
    return g->ranks != NULL ? g->ranks[i] : i;
}

/* The whole communicator. */
static inline tn_nbc_grp_t tn_nbc_grp_all(const tn_comm_t *comm)
{
    tn_nbc_grp_t g = { NULL, comm->size, comm->rank };
    return g;
}

/* Binomial tree from member root. */
void tn_nbc_grp_bcast(tn_sched_t *s, void *buf, size_t count, const tn_dt_t *dt, int root,
                      const tn_nbc_grp_t *g);
/* Binomial tree to member root, every child's partial received in one
 * round; result written at root only (it may be mine).  A non-commutative
 * op reduces to member 0 and hands the result to root. */
void tn_nbc_grp_reduce(tn_sched_t *s, const void *mine, void *result, size_t count,
                       const tn_dt_t *dt, const tn_op_t *op, int root,
                       const tn_nbc_grp_t *g);
/* Allreduce into rbuf (mine may be rbuf): recursive doubling, or for long
 * vectors and commutative ops the ring (reduce-scatter, then allgather, in
 * blocks of count / n); TERN_COLL_ALLREDUCE=recdbl/ring/reduce_bcast forces
 * one where it applies. */
void tn_nbc_grp_allreduce(tn_sched_t *s, const void *mine, void *rbuf, size_t count,
                          const tn_dt_t *dt, const tn_op_t *op, const tn_nbc_grp_t *g);
/* Dissemination barrier. */
void tn_nbc_grp_barrier(tn_sched_t *s, const tn_nbc_grp_t *g);

/* Two-level schedules (coll/nbc/nbc_twolevel.c): inside every node over
 * its ranks, across nodes between the leaders (a node's lowest rank).
 * tn_nbc_twolevel_fits: comm spans several nodes with more than one rank on
 * some node, TERN_COLL_<kind> is auto or twolevel, and, for a
 * non-commutative op (ordered != 0), every node's ranks are consecutive. */
int tn_nbc_twolevel_fits(tn_comm_t *comm, tn_coll_kind_t kind, int ordered);
void tn_nbc_twolevel_barrier(tn_sched_t *s, tn_comm_t *comm);
void tn_nbc_twolevel_bcast(tn_sched_t *s, void *buf, size_t count, const tn_dt_t *dt,
                           int root, tn_comm_t *comm);
void tn_nbc_twolevel_reduce(tn_sched_t *s, const void *mine, void *result, size_t count,
                            const tn_dt_t *dt, const tn_op_t *op, int root, tn_comm_t *comm);
void tn_nbc_twolevel_allreduce(tn_sched_t *s, const void *mine, void *rbuf, size_t count,
                               const tn_dt_t *dt, const tn_op_t *op, tn_comm_t *comm);
/* equal blocks (rb->counts == NULL) and every node's ranks consecutive */
void tn_nbc_twolevel_allgather(tn_sched_t *s, const void *sbuf, size_t scount,
                               const tn_dt_t *sdt, void *rbuf, const tn_coll_blocks_t *rb,
                               tn_comm_t *comm);

/* equal blocks of blk bytes (every rank's block has the same signature) */
void tn_nbc_twolevel_gather(tn_sched_t *s, const void *sbuf, size_t scount,
                            const tn_dt_t *sdt, void *rbuf, const tn_coll_blocks_t *rb,
                            size_t blk, int root, tn_comm_t *comm);
void tn_nbc_twolevel_scatter(tn_sched_t *s, const void *sbuf, const tn_coll_blocks_t *sb,
                             void *rbuf, size_t rcount, const tn_dt_t *rdt, size_t blk,
                             int root, tn_comm_t *comm);

void tn_nbc_twolevel_alltoall(tn_sched_t *s, const void *sbuf, const tn_coll_blocks_t *sb,
                              void *rbuf, const tn_coll_blocks_t *rb, size_t blk,
                              tn_comm_t *comm);

/* ---- builders (coll/nbc/nbc_<kind>.c) ----------------------------------- *
 * Same arguments as the blocking entry points (coll.h); they only add steps.
 * sbuf TN_IN_PLACE follows the blocking rules. */
void tn_nbc_barrier(tn_sched_t *s, tn_comm_t *comm);
void tn_nbc_bcast(tn_sched_t *s, void *buf, size_t count, const tn_dt_t *dt, int root,
                  tn_comm_t *comm);
void tn_nbc_reduce(tn_sched_t *s, const void *sbuf, void *rbuf, size_t count,
                   const tn_dt_t *dt, const tn_op_t *op, int root, tn_comm_t *comm);
/* mine: this rank's contribution; the result is written at root only
 * (result may be mine). */
void tn_nbc_reduce_to(tn_sched_t *s, const void *mine, void *result, size_t count,
                      const tn_dt_t *dt, const tn_op_t *op, int root, tn_comm_t *comm);
void tn_nbc_allreduce(tn_sched_t *s, const void *sbuf, void *rbuf, size_t count,
                      const tn_dt_t *dt, const tn_op_t *op, tn_comm_t *comm);
/* rb: the root's receive blocks (NULL elsewhere); sbuf TN_IN_PLACE at root */
void tn_nbc_gather(tn_sched_t *s, const void *sbuf, size_t scount, const tn_dt_t *sdt,
                   void *rbuf, const tn_coll_blocks_t *rb, int root, tn_comm_t *comm);
void tn_nbc_scatter(tn_sched_t *s, const void *sbuf, const tn_coll_blocks_t *sb, void *rbuf,
                    size_t rcount, const tn_dt_t *rdt, int root, tn_comm_t *comm);
void tn_nbc_allgather(tn_sched_t *s, const void *sbuf, size_t scount, const tn_dt_t *sdt,
                      void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm);
void tn_nbc_alltoall(tn_sched_t *s, const void *sbuf, const tn_coll_blocks_t *sb,
                     void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm);
/* rc: counts of every rank's result block (counts == NULL: rc->count each) */
void tn_nbc_reduce_scatter(tn_sched_t *s, const void *sbuf, void *rbuf,
                           const tn_coll_blocks_t *rc, const tn_op_t *op, tn_comm_t *comm);
void tn_nbc_scan(tn_sched_t *s, const void *sbuf, void *rbuf, size_t count,
                 const tn_dt_t *dt, const tn_op_t *op, int exclusive, tn_comm_t *comm);
/* Neighbourhood collectives on comm's topology (comm->topo != NULL):
 * block i of the receive side comes from in-neighbour i, block j of the send
 * side goes to out-neighbour j (allgather: sbuf to every out-neighbour);
 * TN_TOPO_PROC_NULL neighbours keep their block untouched. */
void tn_nbc_neighbor_allgather(tn_sched_t *s, const void *sbuf, size_t scount,
                               const tn_dt_t *sdt, void *rbuf, const tn_coll_blocks_t *rb,
                               tn_comm_t *comm);
void tn_nbc_neighbor_alltoall(tn_sched_t *s, const void *sbuf, const tn_coll_blocks_t *sb,
                              void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm);

/* ---- intercommunicator builders (coll/nbc/nbc_inter_<kind>.c) ------------ *
 * Same arguments and semantics as the blocking tn_coll_inter_* entry points
 * (coll/inter/coll_inter.h: roots TN_COLL_ROOT / TN_PROC_NULL / a remote
 * rank, blocks indexed by remote rank, no TN_IN_PLACE); they leave s
 * naming remote ranks (tn_sched_use_local(s, 0)). */
void tn_nbc_inter_barrier(tn_sched_t *s, tn_comm_t *comm);
void tn_nbc_inter_bcast(tn_sched_t *s, void *buf, size_t count, const tn_dt_t *dt, int root,
                        tn_comm_t *comm);
void tn_nbc_inter_gather(tn_sched_t *s, const void *sbuf, size_t scount, const tn_dt_t *sdt,
                         void *rbuf, const tn_coll_blocks_t *rb, int root, tn_comm_t *comm);
void tn_nbc_inter_scatter(tn_sched_t *s, const void *sbuf, const tn_coll_blocks_t *sb,
                          void *rbuf, size_t rcount, const tn_dt_t *rdt, int root,
                          tn_comm_t *comm);
void tn_nbc_inter_allgather(tn_sched_t *s, const void *sbuf, size_t scount,
                            const tn_dt_t *sdt, void *rbuf, const tn_coll_blocks_t *rb,
                            tn_comm_t *comm);
void tn_nbc_inter_alltoall(tn_sched_t *s, const void *sbuf, const tn_coll_blocks_t *sb,
                           void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm);
void tn_nbc_inter_reduce(tn_sched_t *s, const void *sbuf, void *rbuf, size_t count,
                         const tn_dt_t *dt, const tn_op_t *op, int root, tn_comm_t *comm);
void tn_nbc_inter_allreduce(tn_sched_t *s, const void *sbuf, void *rbuf, size_t count,
                            const tn_dt_t *dt, const tn_op_t *op, tn_comm_t *comm);
/* rc: result counts of the local ranks; sbuf holds their sum on every rank */
void tn_nbc_inter_reduce_scatter(tn_sched_t *s, const void *sbuf, void *rbuf,
                                 const tn_coll_blocks_t *rc, const tn_op_t *op,
                                 tn_comm_t *comm);

#endif
