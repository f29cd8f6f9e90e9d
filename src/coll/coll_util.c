/* Helpers shared by the collective algorithms. */
#include "coll/coll_util.h"

tn_status_t tn_coll_copy(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                         void *rbuf, size_t rcount, const tn_dt_t *rdt, tn_comm_t *comm)
{
    size_t sbytes = tn_dt_bytes(sdt, scount);

    /* Equal pointers are the same data only with the same type: both may be
     * MPI_BOTTOM with absolute-address types describing different memory. */
    if (sbytes == 0 || (sbuf == rbuf && sdt == rdt && scount == rcount)) {
        return sbytes > tn_dt_bytes(rdt, rcount) ? TN_ERR_TRUNCATE : TN_OK;
    }
    if (sbytes > tn_dt_bytes(rdt, rcount)) {
        return TN_ERR_TRUNCATE;
    }
    /* predefined types: the padding of pair types is the user's struct padding */
    if (sdt == rdt && (sdt->is_contig || sdt->predefined)) {
        memmove(rbuf, sbuf, tn_coll_span(sdt, scount));
        return TN_OK;
    }
    if (sdt->is_contig && rdt->is_contig) {
        memmove(rbuf, sbuf, sbytes);
        return TN_OK;
    }
    (void)comm;
    /* Different layouts: straight from one layout into the other. */
    tn_dt_copy(sdt, sbuf, scount, rdt, rbuf, rcount, sbytes);
    return TN_OK;
}

char *tn_coll_inplace_save(const tn_coll_blocks_t *rb, const void *rbuf, int n,
                           tn_coll_tmp_t *t, ptrdiff_t *shift_p)
{
    ptrdiff_t lo = 0, hi = 0;
    int any = 0, i;
    char *tmp;

    for (i = 0; i < n; i++) {
        size_t cnt = tn_coll_blk_count(rb, i);
        const tn_dt_t *dt = tn_coll_blk_dt(rb, i);
        ptrdiff_t b, e;

        if (cnt == 0 || dt->size == 0) {
            continue;
        }
        e = (ptrdiff_t)tn_coll_true_range(dt, cnt, &b);
        b += tn_coll_blk_off(rb, i);
        e += b;
        if (!any || b < lo) {
            lo = b;
        }
        if (!any || e > hi) {
            hi = e;
        }
        any = 1;
    }
    tmp = tn_coll_tmp_get(t, (size_t)(hi - lo));
    if (tmp != NULL && hi > lo) {
        memcpy(tmp, (const char *)rbuf + lo, (size_t)(hi - lo));
    }
    *shift_p = lo;
    return tmp;
}
