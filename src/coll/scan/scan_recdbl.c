/* Scan and exscan by recursive doubling, any op.
 *
 * partial holds the reduction of the aligned run of ranks around mine
 * (ranks [rank & ~(mask-1), + mask) before the step of mask); each step
 * swaps it with rank ^ mask.  A partial from a lower rank covers the run
 * just below everything the result holds, so it is prepended to the result
 * (result = theirs op result) and to partial; one from a higher rank is
 * appended to partial only (partial = partial op theirs).  The op is thus
 * applied in rank order.  ceil(log2 n) steps of whole vectors.  For exscan
 * the result starts empty: the first lower partial is copied, later ones
 * prepended; rank 0's recvbuf is not touched. */
#include "coll/coll_util.h"

tn_status_t tn_coll_scan_recdbl(const void *sbuf, void *rbuf, size_t count, const tn_dt_t *dt,
                                const tn_op_t *op, int exclusive, tn_comm_t *comm)
{
    int n = comm->size, rank = comm->rank, mask, have_result = !exclusive;
    uintptr_t dth = tn_coll_dt_handle(dt);
    const void *mine = sbuf == TN_IN_PLACE ? (const void *)rbuf : sbuf;
    tn_coll_tmp_t t[2];
    char *partial, *tmp, *swap;
    tn_status_t st = TN_OK;

    t[1].p = NULL;
    partial = tn_coll_tmp_dt(&t[0], dt, count);
    tmp = partial == NULL ? NULL : tn_coll_tmp_dt(&t[1], dt, count);
    if (tmp == NULL) {
        st = TN_ERR_NOMEM;
        goto out;
    }
    tn_coll_dup(partial, mine, dt, count);
    if (!exclusive && sbuf != TN_IN_PLACE) {
        st = tn_coll_copy(sbuf, count, dt, rbuf, count, dt, comm);
    }
    for (mask = 1; mask < n && st == TN_OK; mask <<= 1) {
        int partner = rank ^ mask;

        if (partner >= n) {
            continue;
        }
        st = tn_p2p_sendrecv(partial, count, dt, partner, TN_COLL_TAG_SCAN,
                             tmp, count, dt, partner, TN_COLL_TAG_SCAN, comm, 1, NULL);
        if (st != TN_OK) {
            break;
        }
        if (partner < rank) {
            if (have_result) {
                st = tn_op_apply(op, dt, dth, tmp, rbuf, count);
            } else {
                st = tn_coll_copy(tmp, count, dt, rbuf, count, dt, comm);
                have_result = 1;
            }
            if (st == TN_OK) {
                st = tn_op_apply(op, dt, dth, tmp, partial, count);
            }
        } else {
            st = tn_op_apply(op, dt, dth, partial, tmp, count);
            swap = partial;
            partial = tmp;
            tmp = swap;
        }
    }
out:
    tn_coll_tmp_put(&t[1]);
    tn_coll_tmp_put(&t[0]);
    return st;
}
