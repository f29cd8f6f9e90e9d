/* Layout algebra: building, normalizing and flattening the (loops, leaf)
 * description of one element (see dt.h for what it means).
 *
 * The normal form is what makes the pack fast paths apply: a vector of
 * doubles ends as one 8-byte segment under one loop, a contiguous type as
 * one segment with no loop, whatever chain of constructors produced them. */
#include <stdlib.h>
#include <string.h>
#include "dt/dt_impl.h"

static tn_status_t lay_reserve(tn_dt_lay_t *l, size_t n)
{
    size_t cap;
    tn_dt_seg_t *p;

    if (n <= l->cap) {
        return TN_OK;
    }
    if (n > TN_DT_MAX_SEGS) {
        return TN_ERR_NOMEM;
    }
    cap = l->cap < 8 ? 8 : l->cap;
    while (cap < n) {
        cap *= 2;
    }
    p = realloc(l->segs, cap * sizeof(*p));
    if (p == NULL) {
        return TN_ERR_NOMEM;
    }
    l->segs = p;
    l->cap = cap;
    return TN_OK;
}

tn_status_t tn_dt_lay_push(tn_dt_lay_t *l, ptrdiff_t off, size_t len)
{
    tn_status_t st;

    if (len == 0) {
        return TN_OK;
    }
    if (l->nsegs > 0) {
        tn_dt_seg_t *last = &l->segs[l->nsegs - 1];
        if (last->off + (ptrdiff_t)last->len == off) {
            last->len += len;
            return TN_OK;
        }
    }
    if ((st = lay_reserve(l, l->nsegs + 1)) != TN_OK) {
        return st;
    }
    l->segs[l->nsegs].off = off;
    l->segs[l->nsegs].len = len;
    l->segs[l->nsegs].pos = 0;
    l->nsegs++;
    return TN_OK;
}

tn_status_t tn_dt_lay_from_block(tn_dt_lay_t *l, ptrdiff_t disp, size_t count,
                                 const tn_dt_t *type)
{
    tn_status_t st;

    l->ndims = 0;
    l->nsegs = 0;
    if (count == 0 || type->size == 0) {
        return TN_OK;
    }
    l->dims[0].n = count;
    l->dims[0].stride = type->extent;
    memcpy(&l->dims[1], type->dims, (size_t)type->ndims * sizeof(type->dims[0]));
    l->ndims = 1 + type->ndims;
    if ((st = lay_reserve(l, type->nsegs)) != TN_OK) {
        return st;
    }
    for (size_t s = 0; s < type->nsegs; s++) {
        l->segs[s] = type->segs[s];
        l->segs[s].off += disp;
    }
    l->nsegs = type->nsegs;
    return TN_OK;
}

tn_status_t tn_dt_lay_wrap(tn_dt_lay_t *l, size_t n, ptrdiff_t stride)
{
    if (l->ndims >= TN_DT_MAX_DIMS + 2) {
        tn_status_t st = tn_dt_lay_normalize(l);
        if (st != TN_OK) {
            return st;
        }
    }
    memmove(&l->dims[1], &l->dims[0], (size_t)l->ndims * sizeof(l->dims[0]));
    l->dims[0].n = n;
    l->dims[0].stride = stride;
    l->ndims++;
    return TN_OK;
}

/* Replace the innermost loop by its iterations written out in the leaf. */
static tn_status_t lay_expand_inner(tn_dt_lay_t *l)
{
    tn_dt_dim_t d = l->dims[l->ndims - 1];
    tn_dt_lay_t t = { 0 };
    tn_status_t st;
    size_t need;

    if (tn_dt_mul_ovf(d.n, l->nsegs, &need) || need > TN_DT_MAX_SEGS) {
        return TN_ERR_NOMEM;
    }
    if ((st = lay_reserve(&t, need)) != TN_OK) {
        return st;
    }
    for (size_t i = 0; i < d.n; i++) {
        for (size_t s = 0; s < l->nsegs; s++) {
            /* cannot fail: the space is reserved */
            (void)tn_dt_lay_push(&t, l->segs[s].off + (ptrdiff_t)i * d.stride, l->segs[s].len);
        }
    }
    free(l->segs);
    l->segs = t.segs;
    l->nsegs = t.nsegs;
    l->cap = t.cap;
    l->ndims--;
    return TN_OK;
}

tn_status_t tn_dt_lay_normalize(tn_dt_lay_t *l)
{
    int changed = 1;

    if (l->nsegs == 0) {
        l->ndims = 0;          /* nothing to repeat */
        return TN_OK;
    }
    while (changed) {
        int k = 0;

        changed = 0;
        /* loops of one iteration do nothing; a loop of none empties the type */
        for (int i = 0; i < l->ndims; i++) {
            if (l->dims[i].n == 0) {
                l->ndims = 0;
                l->nsegs = 0;
                return TN_OK;
            }
            if (l->dims[i].n != 1) {
                l->dims[k++] = l->dims[i];
            }
        }
        changed |= k != l->ndims;
        l->ndims = k;
        /* an outer loop that steps over exactly one whole inner loop
         * continues it: (a, n_b * s) around (n_b, s) is (a * n_b, s) */
        for (int i = l->ndims - 2; i >= 0; i--) {
            tn_dt_dim_t *o = &l->dims[i], *in = &l->dims[i + 1];
            ptrdiff_t span;
            size_t n;

            if (!__builtin_mul_overflow((ptrdiff_t)in->n, in->stride, &span) &&
                span == o->stride && !tn_dt_mul_ovf(o->n, in->n, &n)) {
                in->n = n;
                memmove(o, o + 1, (size_t)(l->ndims - i - 1) * sizeof(*o));
                l->ndims--;
                changed = 1;
            }
        }
        /* an inner loop over one segment as long as its stride is one
         * longer segment */
        while (l->ndims > 0 && l->nsegs == 1 &&
               l->dims[l->ndims - 1].stride == (ptrdiff_t)l->segs[0].len) {
            size_t len;

            if (tn_dt_mul_ovf(l->segs[0].len, l->dims[l->ndims - 1].n, &len)) {
                return TN_ERR_INVAL;
            }
            l->segs[0].len = len;
            l->ndims--;
            changed = 1;
        }
    }
    while (l->ndims > TN_DT_MAX_DIMS) {
        tn_status_t st = lay_expand_inner(l);
        if (st != TN_OK) {
            return st;
        }
    }
    return TN_OK;
}

tn_status_t tn_dt_lay_flatten_into(tn_dt_lay_t *dst, const tn_dt_lay_t *src)
{
    size_t idx[TN_DT_MAX_DIMS + 2] = { 0 };
    size_t total = src->nsegs;
    ptrdiff_t base = 0;
    tn_status_t st;

    if (src->nsegs == 0) {
        return TN_OK;
    }
    for (int k = 0; k < src->ndims; k++) {
        if (src->dims[k].n == 0) {
            return TN_OK;
        }
        if (tn_dt_mul_ovf(total, src->dims[k].n, &total) || total > TN_DT_MAX_SEGS) {
            return TN_ERR_NOMEM;
        }
    }
    for (;;) {
        int k;

        for (size_t s = 0; s < src->nsegs; s++) {
            st = tn_dt_lay_push(dst, base + src->segs[s].off, src->segs[s].len);
            if (st != TN_OK) {
                return st;
            }
        }
        /* odometer, innermost loop fastest */
        for (k = src->ndims - 1; k >= 0; k--) {
            base += src->dims[k].stride;
            if (++idx[k] < src->dims[k].n) {
                break;
            }
            base -= (ptrdiff_t)src->dims[k].n * src->dims[k].stride;
            idx[k] = 0;
        }
        if (k < 0) {
            return TN_OK;
        }
    }
}

void tn_dt_lay_regularize(tn_dt_lay_t *l)
{
    ptrdiff_t step;

    if (l->ndims != 0 || l->nsegs < 2) {
        return;
    }
    step = l->segs[1].off - l->segs[0].off;
    for (size_t s = 1; s < l->nsegs; s++) {
        if (l->segs[s].len != l->segs[0].len || l->segs[s].off - l->segs[s - 1].off != step) {
            return;
        }
    }
    l->dims[0].n = l->nsegs;
    l->dims[0].stride = step;
    l->ndims = 1;
    l->nsegs = 1;
}

void tn_dt_lay_free(tn_dt_lay_t *l)
{
    free(l->segs);
    l->segs = NULL;
    l->nsegs = l->cap = 0;
    l->ndims = 0;
}
