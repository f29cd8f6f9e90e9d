/* Allreduce as a reduce to rank 0 followed by a broadcast from rank 0.
 * The reduce evaluates the op in rank order along one tree and the result is
 * computed once, so every rank gets the same bits: the algorithm for
 * non-commutative ops.  2 log2 n steps. */
#include "coll/coll_util.h"

tn_status_t tn_coll_allreduce_reduce_bcast(const void *sbuf, void *rbuf, size_t count,
                                           const tn_dt_t *dt, const tn_op_t *op,
                                           tn_comm_t *comm)
{
    tn_status_t st;

    /* reduce_binomial reads my contribution from rbuf for TN_IN_PLACE on any rank */
    st = tn_coll_reduce_binomial(sbuf, rbuf, count, dt, op, 0, comm);
    if (st != TN_OK || comm->size == 1) {
        return st;
    }
    return tn_coll_bcast_binomial(rbuf, count, dt, 0, comm);
}
