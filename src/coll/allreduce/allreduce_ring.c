/* Allreduce around a ring, for commutative ops: a ring reduce-scatter
 * followed by a ring allgather.
 *
 * The vector is split into n pieces.  In step s of the reduce-scatter every
 * rank passes piece rank - s (which it has combined s times) to rank + 1
 * and combines piece rank - s - 1 from rank - 1 into its own; after n - 1
 * steps rank holds piece rank + 1 reduced over everyone.  n - 1 allgather
 * steps pass the finished pieces around.  Each rank sends and receives
 * 2 (n-1)/n of the vector, the least possible, in 2 (n - 1) steps: the
 * bandwidth-optimal choice for very long vectors.  Each piece is reduced at
 * one rank, so every rank gets the same bits. */
#include "coll/coll_util.h"

tn_status_t tn_coll_allreduce_ring(const void *sbuf, void *rbuf, size_t count,
                                   const tn_dt_t *dt, const tn_op_t *op, tn_comm_t *comm)
{
    int n = comm->size, rank = comm->rank, s;
    int right = (rank + 1) % n, left = (rank - 1 + n) % n;
    ptrdiff_t ext = dt->extent;
    uintptr_t dth = tn_coll_dt_handle(dt);
    char *acc = rbuf, *tmp;
    tn_coll_tmp_t t;
    tn_status_t st = TN_OK;

    if (sbuf != TN_IN_PLACE) {
        st = tn_coll_copy(sbuf, count, dt, rbuf, count, dt, comm);
        if (st != TN_OK) {
            return st;
        }
    }
    tmp = tn_coll_tmp_dt(&t, dt, (count + (size_t)n - 1) / (size_t)n);
    if (tmp == NULL) {
        return TN_ERR_NOMEM;
    }
#define OFF(i) tn_coll_piece_off(count, n, (i))
    for (s = 0; s < n - 1 && st == TN_OK; s++) {
        int sp = (rank - s + n) % n, rp = (rank - s - 1 + n) % n;
        size_t rc = OFF(rp + 1) - OFF(rp);

        st = tn_p2p_sendrecv(acc + (ptrdiff_t)OFF(sp) * ext, OFF(sp + 1) - OFF(sp), dt, right,
                             TN_COLL_TAG_ALLREDUCE, tmp, rc, dt, left, TN_COLL_TAG_ALLREDUCE,
                             comm, 1, NULL);
        if (st == TN_OK) {
            st = tn_op_apply(op, dt, dth, tmp, acc + (ptrdiff_t)OFF(rp) * ext, rc);
        }
    }
    for (s = 0; s < n - 1 && st == TN_OK; s++) {
        int sp = (rank + 1 - s + n) % n, rp = (rank - s + n) % n;

        st = tn_p2p_sendrecv(acc + (ptrdiff_t)OFF(sp) * ext, OFF(sp + 1) - OFF(sp), dt, right,
                             TN_COLL_TAG_ALLREDUCE, acc + (ptrdiff_t)OFF(rp) * ext,
                             OFF(rp + 1) - OFF(rp), dt, left, TN_COLL_TAG_ALLREDUCE, comm, 1,
                             NULL);
    }
#undef OFF
    tn_coll_tmp_put(&t);
    return st;
}
