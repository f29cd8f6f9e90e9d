/* Allreduce as a reduce to rank 0 followed by a broadcast from rank 0, each
 * chosen like a user's call (TERN_COLL_REDUCE / TERN_COLL_BCAST apply).
 * The result is computed once, at rank 0, so every rank gets the same bits;
 * with a non-commutative op the reduce is the binomial tree, which applies
 * the op in rank order, and a long vector still gets the long-message
 * broadcast: the choice for long vectors with non-commutative ops. */
#include "coll/coll_util.h"

tn_status_t tn_coll_allreduce_reduce_bcast(const void *sbuf, void *rbuf, size_t count,
                                           const tn_dt_t *dt, const tn_op_t *op,
                                           tn_comm_t *comm)
{
    tn_status_t st;

    /* the reduce algorithms read my contribution from rbuf for TN_IN_PLACE
     * on any rank, not only at the root */
    st = tn_coll_reduce(sbuf, rbuf, count, dt, op, 0, comm);
    if (st != TN_OK) {
        return st;
    }
    return tn_coll_bcast(rbuf, count, dt, 0, comm);
}
