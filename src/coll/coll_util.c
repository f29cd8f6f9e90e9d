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

tn_status_t tn_coll_unpack_prefix(const void *bytes, size_t len, void *buf, size_t count,
                                  const tn_dt_t *dt)
{
    size_t room = tn_dt_bytes(dt, count), n = len < room ? len : room;

    if (n > 0) {
        if (dt->is_contig) {
            memcpy(buf, bytes, n);
        } else if (n == room) {
            tn_dt_unpack(dt, bytes, count, buf);
        } else {
            tn_dt_unpack_partial(dt, bytes, count, 0, n, buf);
        }
    }
    return len > room ? TN_ERR_TRUNCATE : TN_OK;
}

char *tn_coll_stream_get(void *buf, size_t count, const tn_dt_t *dt, int pack,
                         tn_coll_tmp_t *t)
{
    char *p;

    t->p = NULL;
    if (dt->is_contig) {
        return buf;
    }
    p = tn_coll_tmp_get(t, tn_dt_bytes(dt, count));
    if (p != NULL && pack) {
        tn_dt_pack(dt, buf, count, p);
    }
    return p;
}

void tn_coll_stream_put(char *bytes, void *buf, size_t count, const tn_dt_t *dt, int unpack,
                        tn_coll_tmp_t *t)
{
    if (bytes == NULL || bytes == buf) {
        return;
    }
    if (unpack) {
        tn_dt_unpack(dt, bytes, count, buf);
    }
    tn_coll_tmp_put(t);
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

/* ---- kept temporaries (see tn_coll_buf_get) ------------------------------
 * Every buffer carries its size in a header in front of it.  Up to
 * TN_COLL_KEEP freed buffers of TN_COLL_KEEP_MIN bytes or more are kept,
 * TN_COLL_KEEP_MAX bytes at most in all; a request of TN_COLL_KEEP_MIN or
 * more takes the smallest kept buffer that is large enough.  Callers hold the runtime lock (every
 * collective and every schedule runs under it). */
#define TN_COLL_HDR      64                       /* keeps the payload aligned */
#define TN_COLL_KEEP     4
#define TN_COLL_KEEP_MIN ((size_t)64 * 1024)
#define TN_COLL_KEEP_MAX ((size_t)256 * 1024 * 1024)

static struct {
    char  *base[TN_COLL_KEEP];
    size_t size[TN_COLL_KEEP];    /* usable bytes; 0: empty slot */
    size_t total;
} tn_coll_keep;

void *tn_coll_buf_get(size_t bytes)
{
    int best = -1;
    for (int i = 0; i < TN_COLL_KEEP && bytes >= TN_COLL_KEEP_MIN; i++) {
        if (tn_coll_keep.size[i] >= bytes &&
            (best < 0 || tn_coll_keep.size[i] < tn_coll_keep.size[best])) {
            best = i;
        }
    }
    if (best >= 0) {
        char *base = tn_coll_keep.base[best];
        tn_coll_keep.total -= tn_coll_keep.size[best];
        tn_coll_keep.size[best] = 0;
        tn_coll_keep.base[best] = NULL;
        return base + TN_COLL_HDR;
    }
    char *base = malloc(TN_COLL_HDR + bytes);
    if (base == NULL) {
        return NULL;
    }
    memcpy(base, &bytes, sizeof(bytes));
    return base + TN_COLL_HDR;
}

void tn_coll_buf_put(void *p)
{
    if (p == NULL) {
        return;
    }
    char *base = (char *)p - TN_COLL_HDR;
    size_t size;
    memcpy(&size, base, sizeof(size));
    if (size >= TN_COLL_KEEP_MIN) {
        /* keep it in place of an empty slot or of the smallest kept one */
        int slot = -1;
        for (int i = 0; i < TN_COLL_KEEP; i++) {
            if (tn_coll_keep.size[i] == 0) {
                slot = i;
                break;
            }
            if (slot < 0 || tn_coll_keep.size[i] < tn_coll_keep.size[slot]) {
                slot = i;
            }
        }
        size_t out = tn_coll_keep.size[slot];
        if (out < size && tn_coll_keep.total - out + size <= TN_COLL_KEEP_MAX) {
            free(tn_coll_keep.base[slot]);
            tn_coll_keep.total += size - out;
            tn_coll_keep.base[slot] = base;
            tn_coll_keep.size[slot] = size;
            return;
        }
    }
    free(base);
}

void tn_coll_buf_drain(void)
{
    for (int i = 0; i < TN_COLL_KEEP; i++) {
        free(tn_coll_keep.base[i]);
        tn_coll_keep.base[i] = NULL;
        tn_coll_keep.size[i] = 0;
    }
    tn_coll_keep.total = 0;
}
