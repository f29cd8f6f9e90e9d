/* Reduce_scatter by pairwise exchange, any op and communicator size.
 *
 * In step i (1 <= i < n) every rank sends rank + i its contribution to that
 * rank's block and receives rank - i's contribution to its own.  The
 * sources come in the order rank-1, rank-2, ..., 0, n-1, ..., rank+1, so
 * the contributions of lower ranks are prepended to an accumulator that
 * starts as my own (lo = x_j op lo), those of higher ranks to a second one
 * (hi = x_j op hi), and the result is lo op hi: the op is applied in rank
 * order and non-commutative ops are correct.  n - 1 steps, each rank sends
 * and receives (n-1)/n of the vector: the choice when recursive halving
 * does not apply, and for long vectors.
 *
 * A commutative op without MPI_IN_PLACE accumulates straight in the user's
 * block: the first contribution is received there and my own combined into
 * it from the send buffer, the others come through one block-sized
 * temporary.  With two ranks that is one exchange and one reduce and no
 * temporary at all; the general path below allocates three blocks per call
 * and copies my block twice, which for long blocks costs more than the
 * exchange (fresh pages: malloc returns them to the kernel on free). */
#include "coll/coll_util.h"

static tn_status_t rs_pairwise_direct(const char *in, void *rbuf, const tn_coll_blocks_t *rc,
                                      const tn_op_t *op, tn_comm_t *comm)
{
    int n = comm->size, rank = comm->rank, i;
    const tn_dt_t *dt = rc->dt;
    uintptr_t dth = tn_coll_dt_handle(dt);
    ptrdiff_t ext = dt->extent;
    size_t cnt = tn_coll_blk_count(rc, rank);
    size_t own_off = tn_coll_blk_prefix(rc, rank), dst_off = own_off;
    tn_coll_tmp_t t;
    char *tmp = NULL;
    tn_status_t st = TN_OK;

    t.p = NULL;
    if (n > 2) {
        tmp = tn_coll_tmp_dt(&t, dt, cnt);
        if (tmp == NULL) {
            return TN_ERR_NOMEM;
        }
    }
    for (i = 1; i < n && st == TN_OK; i++) {
        int dst = (rank + i) % n, src = (rank - i + n) % n;

        dst_off = dst == 0 ? 0 : dst_off + tn_coll_blk_count(rc, dst - 1);
        st = tn_p2p_sendrecv(in + (ptrdiff_t)dst_off * ext, tn_coll_blk_count(rc, dst), dt, dst,
                             TN_COLL_TAG_REDUCE_SCATTER, i == 1 ? rbuf : (void *)tmp, cnt, dt,
                             src, TN_COLL_TAG_REDUCE_SCATTER, comm, 1, NULL);
        if (st == TN_OK) {
            st = i == 1 ? tn_op_apply(op, dt, dth, in + (ptrdiff_t)own_off * ext, rbuf, cnt)
                        : tn_op_apply(op, dt, dth, tmp, rbuf, cnt);
        }
    }
    tn_coll_tmp_put(&t);
    return st;
}

tn_status_t tn_coll_reduce_scatter_pairwise(const void *sbuf, void *rbuf,
                                            const tn_coll_blocks_t *rc, const tn_op_t *op,
                                            tn_comm_t *comm)
{
    int n = comm->size, rank = comm->rank, i, have_hi = 0;
    const tn_dt_t *dt = rc->dt;
    uintptr_t dth = tn_coll_dt_handle(dt);
    ptrdiff_t ext = dt->extent;
    const char *in = sbuf == TN_IN_PLACE ? (const char *)rbuf : (const char *)sbuf;
    size_t cnt = tn_coll_blk_count(rc, rank);
    size_t dst_off = tn_coll_blk_prefix(rc, rank);   /* block of rank + i, advanced below */
    tn_coll_tmp_t t[3];
    char *lo, *hi, *tmp, *swap;
    tn_status_t st = TN_OK;

    if (op->commutative && sbuf != TN_IN_PLACE) {
        return rs_pairwise_direct(in, rbuf, rc, op, comm);
    }
    t[1].p = t[2].p = NULL;
    lo = tn_coll_tmp_dt(&t[0], dt, cnt);
    hi = lo == NULL ? NULL : tn_coll_tmp_dt(&t[1], dt, cnt);
    tmp = hi == NULL ? NULL : tn_coll_tmp_dt(&t[2], dt, cnt);
    if (tmp == NULL) {
        st = TN_ERR_NOMEM;
        goto out;
    }
    tn_coll_dup(lo, in + (ptrdiff_t)dst_off * ext, dt, cnt);
    for (i = 1; i < n && st == TN_OK; i++) {
        int dst = (rank + i) % n, src = (rank - i + n) % n;

        /* offset of dst's block: after the previous block, 0 after the wrap */
        dst_off = dst == 0 ? 0 : dst_off + tn_coll_blk_count(rc, dst - 1);
        st = tn_p2p_sendrecv(in + (ptrdiff_t)dst_off * ext, tn_coll_blk_count(rc, dst), dt, dst,
                             TN_COLL_TAG_REDUCE_SCATTER, tmp, cnt, dt, src,
                             TN_COLL_TAG_REDUCE_SCATTER, comm, 1, NULL);
        if (st != TN_OK) {
            break;
        }
        if (src < rank) {
            st = tn_op_apply(op, dt, dth, tmp, lo, cnt);          /* lo = x_src op lo */
        } else if (!have_hi) {
            swap = hi;                                            /* hi = x_{n-1} */
            hi = tmp;
            tmp = swap;
            have_hi = 1;
        } else {
            st = tn_op_apply(op, dt, dth, tmp, hi, cnt);          /* hi = x_src op hi */
        }
    }
    if (st == TN_OK && have_hi) {
        st = tn_op_apply(op, dt, dth, lo, hi, cnt);               /* hi = lo op hi */
        lo = hi;
    }
    if (st == TN_OK) {
        st = tn_coll_copy(lo, cnt, dt, rbuf, cnt, dt, comm);
    }
out:
    tn_coll_tmp_put(&t[2]);
    tn_coll_tmp_put(&t[1]);
    tn_coll_tmp_put(&t[0]);
    return st;
}
