/* Pack and unpack: moving the packed stream of count elements to and from
 * a user buffer, whole or a byte range of it.
 *
 * One engine does all of it.  A message of count elements is the type's
 * layout under one more loop (count, extent); after merging that loop with
 * the type's outermost one (a vector of doubles sent with count > 1 whose
 * extent continues the stride is still one loop) the engine walks the loops
 * like an odometer.  Whole leaves along the innermost loop go through a
 * tight loop: for a one-segment leaf (every strided type) a fixed-size
 * copy of 4, 8 or 16 bytes or one memcpy per block, no per-element dispatch.
 * A byte range starts with a division per loop and a binary search over the
 * leaf's segment positions, then goes on segment by segment, so its cost is
 * what it touches. */
#include <string.h>
#include "dt/dt.h"

typedef struct {
    int                nd;
    tn_dt_dim_t        dims[TN_DT_MAX_DIMS + 1];
    const tn_dt_seg_t *segs;
    size_t             nsegs;
    size_t             leaf;
    tn_dt_seg_t        one;      /* the single segment, when folded here */
} walk_t;

static void walk_init(walk_t *w, const tn_dt_t *dt, size_t count)
{
    int k = 0;

    if (count != 1) {
        w->dims[k].n = count;
        w->dims[k].stride = dt->extent;
        k++;
    }
    memcpy(&w->dims[k], dt->dims, (size_t)dt->ndims * sizeof(dt->dims[0]));
    w->nd = k + dt->ndims;
    w->segs = dt->segs;
    w->nsegs = dt->nsegs;
    w->leaf = dt->leaf_size;
    /* the message loop continues the type's outermost loop */
    if (k == 1 && w->nd >= 2 &&
        w->dims[0].stride == (ptrdiff_t)w->dims[1].n * w->dims[1].stride) {
        w->dims[1].n *= count;
        memmove(&w->dims[0], &w->dims[1], (size_t)(w->nd - 1) * sizeof(w->dims[0]));
        w->nd--;
    }
    /* or covers a contiguous leaf: one longer segment */
    if (w->nd == 1 && w->nsegs == 1 && w->dims[0].stride == (ptrdiff_t)w->segs[0].len) {
        w->one = w->segs[0];
        w->one.len *= w->dims[0].n;
        w->segs = &w->one;
        w->leaf = w->one.len;
        w->nd = 0;
    }
}

/* Copy len bytes between the user buffer at u and the packed stream at p. */
static inline __attribute__((always_inline)) void
cp(char *u, char *p, size_t len, int unpack)
{
    if (unpack) {
        memcpy(u, p, len);
    } else {
        memcpy(p, u, len);
    }
}

/* The same, with the common small sizes as constant-size moves. */
static inline __attribute__((always_inline)) void
cp_small(char *u, char *p, size_t len, int unpack)
{
    switch (len) {
    case 1:  cp(u, p, 1, unpack); break;
    case 2:  cp(u, p, 2, unpack); break;
    case 4:  cp(u, p, 4, unpack); break;
    case 8:  cp(u, p, 8, unpack); break;
    case 16: cp(u, p, 16, unpack); break;
    default: cp(u, p, len, unpack); break;
    }
}

/* n blocks of L bytes, stride bytes apart at u, back to back at p. */
#define TN_STRIDED(L)                                                               \
    for (size_t i_ = 0; i_ < n; i_++) {                                             \
        cp(u + (ptrdiff_t)i_ * stride, p + i_ * (L), (L), unpack);                  \
    }

static inline __attribute__((always_inline)) void
strided(char *u, ptrdiff_t stride, char *p, size_t len, size_t n, int unpack)
{
    switch (len) {
    case 4:  TN_STRIDED(4); break;
    case 8:  TN_STRIDED(8); break;
    case 16: TN_STRIDED(16); break;
    default: TN_STRIDED(len); break;
    }
}

/* Advance the odometer idx (base: the matching byte offset) from loop k
 * outwards by one step. */
static inline void odo_carry(const walk_t *w, size_t *idx, ptrdiff_t *base, int k)
{
    for (; k >= 0; k--) {
        *base += w->dims[k].stride;
        if (++idx[k] < w->dims[k].n) {
            return;
        }
        *base -= (ptrdiff_t)w->dims[k].n * w->dims[k].stride;
        idx[k] = 0;
    }
}

/* Where packed byte offset falls: the odometer idx and its byte offset
 * *base_p (which leaf: mixed-radix digits), segment *s_p, and *soff_p bytes
 * into it.  w->leaf > 0. */
static inline void walk_seek(const walk_t *w, size_t offset, size_t *idx, ptrdiff_t *base_p,
                             size_t *s_p, size_t *soff_p)
{
    const tn_dt_seg_t *segs = w->segs;
    size_t q = offset / w->leaf, r = offset % w->leaf, lo = 0, hi = w->nsegs;
    ptrdiff_t base = 0;

    for (int k = w->nd - 1; k >= 0; k--) {
        idx[k] = q % w->dims[k].n;
        q /= w->dims[k].n;
        base += (ptrdiff_t)idx[k] * w->dims[k].stride;
    }
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (segs[mid].pos <= r) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    *base_p = base;
    *s_p = lo;
    *soff_p = r - segs[lo].pos;
}

static inline __attribute__((always_inline)) void
walk_copy(const walk_t *w, char *ubuf, size_t offset, size_t len, char *p, int unpack)
{
    size_t idx[TN_DT_MAX_DIMS + 1];
    const tn_dt_seg_t *segs = w->segs;
    size_t s, soff;
    ptrdiff_t base;
    int in = w->nd - 1;

    if (len == 0 || w->leaf == 0) {
        return;
    }
    walk_seek(w, offset, idx, &base, &s, &soff);

    while (len > 0) {
        if (s == 0 && soff == 0 && len >= w->leaf) {
            /* whole leaves */
            if (in < 0) {
                for (size_t t = 0; t < w->nsegs; t++) {
                    cp(ubuf + base + segs[t].off, p, segs[t].len, unpack);
                    p += segs[t].len;
                }
                len -= w->leaf;
                continue;     /* only one leaf exists: len is now 0 */
            }
            size_t n = w->dims[in].n - idx[in], nfull = len / w->leaf;
            ptrdiff_t stride = w->dims[in].stride;
            if (n > nfull) {
                n = nfull;
            }
            if (w->nsegs == 1) {
                strided(ubuf + base + segs[0].off, stride, p, w->leaf, n, unpack);
                p += n * w->leaf;
            } else {
                char *u = ubuf + base;
                for (size_t i = 0; i < n; i++, u += stride) {
                    for (size_t t = 0; t < w->nsegs; t++) {
                        cp_small(u + segs[t].off, p, segs[t].len, unpack);
                        p += segs[t].len;
                    }
                }
            }
            len -= n * w->leaf;
            idx[in] += n;
            base += (ptrdiff_t)n * stride;
            if (idx[in] == w->dims[in].n) {
                idx[in] = 0;
                base -= (ptrdiff_t)w->dims[in].n * stride;
                odo_carry(w, idx, &base, in - 1);
            }
            continue;
        }
        /* part of a leaf: one segment (or its rest) at a time */
        size_t chunk = segs[s].len - soff;
        if (chunk > len) {
            chunk = len;
        }
        cp(ubuf + base + segs[s].off + (ptrdiff_t)soff, p, chunk, unpack);
        p += chunk;
        len -= chunk;
        soff += chunk;
        if (soff == segs[s].len) {
            soff = 0;
            if (++s == w->nsegs) {
                s = 0;
                odo_carry(w, idx, &base, in);
            }
        }
    }
}

static __attribute__((noinline)) void walk_pack(const walk_t *w, const void *buf,
                                                size_t offset, size_t len, void *out)
{
    walk_copy(w, (char *)buf, offset, len, out, 0);
}

static __attribute__((noinline)) void walk_unpack(const walk_t *w, const void *in,
                                                  size_t offset, size_t len, void *buf)
{
    walk_copy(w, buf, offset, len, (char *)in, 1);
}

void tn_dt_pack(const tn_dt_t *dt, const void *buf, size_t count, void *out)
{
    walk_t w;

    if (count == 0 || dt->size == 0) {
        return;
    }
    if (dt->is_contig) {
        memcpy(out, buf, count * dt->size);
        return;
    }
    walk_init(&w, dt, count);
    walk_pack(&w, buf, 0, count * dt->size, out);
}

void tn_dt_unpack(const tn_dt_t *dt, const void *in, size_t count, void *buf)
{
    walk_t w;

    if (count == 0 || dt->size == 0) {
        return;
    }
    if (dt->is_contig) {
        memcpy(buf, in, count * dt->size);
        return;
    }
    walk_init(&w, dt, count);
    walk_unpack(&w, in, 0, count * dt->size, buf);
}

void tn_dt_pack_partial(const tn_dt_t *dt, const void *buf, size_t count, size_t offset,
                        size_t len, void *out)
{
    walk_t w;

    if (len == 0) {
        return;
    }
    if (dt->is_contig) {
        memcpy(out, (const char *)buf + offset, len);
        return;
    }
    walk_init(&w, dt, count);
    walk_pack(&w, buf, offset, len, out);
}

void tn_dt_unpack_partial(const tn_dt_t *dt, const void *in, size_t count, size_t offset,
                          size_t len, void *buf)
{
    walk_t w;

    if (len == 0) {
        return;
    }
    if (dt->is_contig) {
        memcpy((char *)buf + offset, in, len);
        return;
    }
    walk_init(&w, dt, count);
    walk_unpack(&w, in, offset, len, buf);
}

size_t tn_dt_iov(const tn_dt_t *dt, void *buf, size_t count, size_t offset, size_t len,
                 struct iovec *iov, int *n_p)
{
    size_t idx[TN_DT_MAX_DIMS + 1];
    size_t s, soff, done = 0;
    ptrdiff_t base;
    int n = 0, max = *n_p;
    walk_t w;

    if (len == 0 || max <= 0 || dt->size == 0) {
        *n_p = 0;
        return 0;
    }
    if (dt->is_contig) {
        iov[0].iov_base = (char *)buf + offset;
        iov[0].iov_len = len;
        *n_p = 1;
        return len;
    }
    walk_init(&w, dt, count);
    walk_seek(&w, offset, idx, &base, &s, &soff);
    while (done < len) {
        size_t chunk = w.segs[s].len - soff;
        char *at = (char *)buf + base + w.segs[s].off + (ptrdiff_t)soff;

        if (chunk > len - done) {
            chunk = len - done;
        }
        if (n > 0 && (char *)iov[n - 1].iov_base + iov[n - 1].iov_len == at) {
            iov[n - 1].iov_len += chunk;
        } else if (n < max) {
            iov[n].iov_base = at;
            iov[n].iov_len = chunk;
            n++;
        } else {
            break;
        }
        done += chunk;
        soff += chunk;
        if (soff == w.segs[s].len) {
            soff = 0;
            if (++s == w.nsegs) {
                s = 0;
                odo_carry(&w, idx, &base, w.nd - 1);
            }
        }
    }
    *n_p = n;
    return done;
}

int tn_dt_foreach_seg(const tn_dt_t *dt, size_t count, tn_dt_seg_fn_t *fn, void *arg)
{
    size_t idx[TN_DT_MAX_DIMS + 1] = { 0 };
    ptrdiff_t base = 0, poff = 0;
    size_t plen = 0;
    walk_t w;
    int rc;

    if (count == 0 || dt->size == 0) {
        return 0;
    }
    walk_init(&w, dt, count);
    for (;;) {
        int k;

        for (size_t t = 0; t < w.nsegs; t++) {
            ptrdiff_t off = base + w.segs[t].off;
            if (plen > 0 && poff + (ptrdiff_t)plen == off) {
                plen += w.segs[t].len;
                continue;
            }
            if (plen > 0 && (rc = fn(poff, plen, arg)) != 0) {
                return rc;
            }
            poff = off;
            plen = w.segs[t].len;
        }
        for (k = w.nd - 1; k >= 0; k--) {
            base += w.dims[k].stride;
            if (++idx[k] < w.dims[k].n) {
                break;
            }
            base -= (ptrdiff_t)w.dims[k].n * w.dims[k].stride;
            idx[k] = 0;
        }
        if (k < 0) {
            break;
        }
    }
    return plen > 0 ? fn(poff, plen, arg) : 0;
}

typedef struct {
    const char *src;
    char       *dst;
} copy_arg_t;

static int copy_seg(ptrdiff_t off, size_t len, void *arg)
{
    copy_arg_t *a = arg;

    memmove(a->dst + off, a->src + off, len);
    return 0;
}

static int same_layout(const tn_dt_t *a, const tn_dt_t *b)
{
    return a == b ||
           (a->extent == b->extent && a->ndims == b->ndims && a->nsegs == b->nsegs &&
            memcmp(a->dims, b->dims, (size_t)a->ndims * sizeof(a->dims[0])) == 0 &&
            memcmp(a->segs, b->segs, a->nsegs * sizeof(a->segs[0])) == 0);
}

#define TN_DT_BOUNCE 4096

void tn_dt_copy(const tn_dt_t *sdt, const void *sbuf, size_t scount, const tn_dt_t *rdt,
                void *rbuf, size_t rcount, size_t bytes)
{
    union {
        char        b[TN_DT_BOUNCE];
        long double align_;
    } bounce;

    if (bytes == 0) {
        return;
    }
    if (sdt->is_contig && rdt->is_contig) {
        memmove(rbuf, sbuf, bytes);
        return;
    }
    if (same_layout(sdt, rdt) && bytes == sdt->size * scount) {
        copy_arg_t a = { sbuf, rbuf };
        (void)tn_dt_foreach_seg(sdt, scount, copy_seg, &a);
        return;
    }
    for (size_t off = 0; off < bytes; off += TN_DT_BOUNCE) {
        size_t n = bytes - off < TN_DT_BOUNCE ? bytes - off : TN_DT_BOUNCE;
        tn_dt_pack_partial(sdt, sbuf, scount, off, n, bounce.b);
        tn_dt_unpack_partial(rdt, bounce.b, rcount, off, n, rbuf);
    }
}
