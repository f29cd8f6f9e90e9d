/* Nonblocking reduce and allreduce.  Reduce: a binomial tree (in rank
 * order for non-commutative ops, see tn_nbc_grp_reduce).  Allreduce:
 * recursive doubling, or the ring for long vectors.  Both run in two levels
 * on a communicator that spans nodes (nbc_twolevel.c). */
#include "coll/coll_sched.h"
#include "coll/coll_util.h"

void tn_nbc_reduce_to(tn_sched_t *s, const void *mine, void *result, size_t count,
                      const tn_dt_t *dt, const tn_op_t *op, int root, tn_comm_t *comm)
{
    tn_nbc_grp_t all = tn_nbc_grp_all(comm);

    if (count == 0) {
        return;
    }
    if (tn_nbc_twolevel_fits(comm, TN_COLL_REDUCE, !op->commutative)) {
        tn_nbc_twolevel_reduce(s, mine, result, count, dt, op, root, comm);
        return;
    }
    tn_nbc_grp_reduce(s, mine, result, count, dt, op, root, &all);
}

void tn_nbc_reduce(tn_sched_t *s, const void *sbuf, void *rbuf, size_t count,
                   const tn_dt_t *dt, const tn_op_t *op, int root, tn_comm_t *comm)
{
    tn_nbc_reduce_to(s, sbuf == TN_IN_PLACE ? rbuf : sbuf, rbuf, count, dt, op, root, comm);
}

void tn_nbc_allreduce(tn_sched_t *s, const void *sbuf, void *rbuf, size_t count,
                      const tn_dt_t *dt, const tn_op_t *op, tn_comm_t *comm)
{
    const void *mine = sbuf == TN_IN_PLACE ? rbuf : sbuf;
    tn_nbc_grp_t all = tn_nbc_grp_all(comm);

    if (tn_nbc_twolevel_fits(comm, TN_COLL_ALLREDUCE, !op->commutative)) {
        tn_nbc_twolevel_allreduce(s, mine, rbuf, count, dt, op, comm);
        return;
    }
    tn_nbc_grp_allreduce(s, mine, rbuf, count, dt, op, &all);
}
