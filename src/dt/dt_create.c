/* Derived datatype objects: allocation, references, constructor arguments,
 * and the constructors that every MPI constructor reduces to (blocks,
 * contiguous, hvector, resized, dup).
 *
 * Bounds follow the standard's type-map rules: lb is the lowest lb and ub
 * the highest ub (lb + extent) of the constituent elements, or, when a
 * constituent carries explicit bounds (create_resized, "marked"), of the
 * marked constituents only.  An element's ub may lie below its lb (a
 * negative extent), so the two are taken apart, never as an interval.  A
 * struct without marked constituents has its extent rounded up to the
 * largest alignment of its types, like a C struct; other constructors do not
 * pad (the extents of their inputs are already padded).  True bounds cover
 * the data bytes. */
#include <stdlib.h>
#include <string.h>
#include "base/objreg.h"
#include "dt/dt_impl.h"

tn_dt_t *tn_dt_alloc(void)
{
    tn_dt_t *dt = calloc(1, sizeof(*dt));

    if (dt == NULL) {
        return NULL;
    }
    if (tn_objreg_add(dt, TN_OBJ_DT) != TN_OK) {
        free(dt);
        return NULL;
    }
    dt->magic = TN_DT_MAGIC;
    dt->refcount = 1;
    dt->kind = TN_DK_NONE;
    dt->align = 1;
    return dt;
}

tn_status_t tn_dt_finish(tn_dt_t *dt, tn_dt_lay_t *lay)
{
    size_t pos = 0, size;
    tn_dt_seg_t *segs;

    for (size_t s = 0; s < lay->nsegs; s++) {
        lay->segs[s].pos = pos;
        if (__builtin_add_overflow(pos, lay->segs[s].len, &pos)) {
            return TN_ERR_INVAL;
        }
    }
    size = pos;
    for (int k = 0; k < lay->ndims; k++) {
        if (tn_dt_mul_ovf(size, lay->dims[k].n, &size)) {
            return TN_ERR_INVAL;
        }
    }
    if (size > (size_t)PTRDIFF_MAX) {
        return TN_ERR_INVAL;
    }
    dt->ndims = lay->ndims;
    memcpy(dt->dims, lay->dims, (size_t)lay->ndims * sizeof(dt->dims[0]));
    dt->nsegs = lay->nsegs;
    if (lay->nsegs <= 2) {
        if (lay->nsegs > 0) {
            memcpy(dt->seg_inline, lay->segs, lay->nsegs * sizeof(*segs));
        }
        segs = dt->seg_inline;
        tn_dt_lay_free(lay);
    } else {
        segs = lay->segs;     /* take the array; shrink it to fit */
        if (lay->cap > lay->nsegs) {
            tn_dt_seg_t *p = realloc(segs, lay->nsegs * sizeof(*segs));
            segs = p != NULL ? p : segs;
        }
        lay->segs = NULL;
        lay->cap = 0;
    }
    dt->segs = segs;
    dt->leaf_size = pos;
    dt->size = size;
    dt->is_contig = size == 0 ||
                    (dt->ndims == 0 && dt->nsegs == 1 && segs[0].off == 0 &&
                     (ptrdiff_t)segs[0].len == dt->extent);
    lay->nsegs = 0;
    lay->ndims = 0;
    return TN_OK;
}

static void contents_free(tn_dt_contents_t *c)
{
    if (c == NULL) {
        return;
    }
    for (size_t i = 0; i < c->nd; i++) {
        tn_dt_release(c->types[i]);
    }
    free(c);     /* the arrays live in the same block */
}

void tn_dt_destroy(tn_dt_t *dt)
{
    if (dt->segs != dt->seg_inline) {
        free((void *)dt->segs);
    }
    tn_dt_sig_free(dt);
    contents_free(dt->contents);
    dt->magic = 0;       /* a stale handle now fails the magic check */
    tn_objreg_del(dt);
    free(dt);
}

/* Derived objects are never const: casting the qualifier away is sound. */
void tn_dt_retain(const tn_dt_t *dt)
{
    if (!dt->predefined) {
        __atomic_add_fetch(&((tn_dt_t *)dt)->refcount, 1, __ATOMIC_RELAXED);
    }
}

void tn_dt_release(const tn_dt_t *dt)
{
    if (dt->predefined) {
        return;
    }
    if (__atomic_sub_fetch(&((tn_dt_t *)dt)->refcount, 1, __ATOMIC_ACQ_REL) == 0) {
        tn_dt_destroy((tn_dt_t *)dt);
    }
}

tn_status_t tn_dt_set_contents(tn_dt_t *dt, const tn_dt_contents_t *c)
{
    size_t bytes = sizeof(*c) + c->na * sizeof(int64_t) + c->nl * sizeof(int64_t) +
                   c->nd * sizeof(tn_dt_t *) + c->ni * sizeof(int);
    tn_dt_contents_t *n = malloc(bytes);
    char *p;

    if (n == NULL) {
        return TN_ERR_NOMEM;
    }
    *n = *c;
    /* widest first: int64_t, pointers, int */
    p = (char *)(n + 1);
    n->addrs = (int64_t *)(void *)p;
    p += c->na * sizeof(int64_t);
    n->larges = (int64_t *)(void *)p;
    p += c->nl * sizeof(int64_t);
    n->types = (const tn_dt_t **)(void *)p;
    p += c->nd * sizeof(tn_dt_t *);
    n->ints = (int *)(void *)p;
    if (c->na > 0) {
        memcpy(n->addrs, c->addrs, c->na * sizeof(int64_t));
    }
    if (c->nl > 0) {
        memcpy(n->larges, c->larges, c->nl * sizeof(int64_t));
    }
    if (c->ni > 0) {
        memcpy(n->ints, c->ints, c->ni * sizeof(int));
    }
    for (size_t i = 0; i < c->nd; i++) {
        n->types[i] = c->types[i];
        tn_dt_retain(c->types[i]);
    }
    contents_free(dt->contents);
    dt->contents = n;
    return TN_OK;
}

/* ---- bounds ------------------------------------------------------------- */

typedef struct {
    int       any, any_true, marked;
    ptrdiff_t lb, ub, tlb, tub;
    size_t    align;
} bounds_t;

/* Add elements of t placed at offsets [lo, hi] (lo, hi: the extreme
 * offsets).  Marked elements, once seen, are the only ones that bound.
 * The lb of the lowest and the ub of the highest placed element bound the
 * result, whatever the sign of t's extent: with a negative one (resized to
 * ub < lb) the ub marker lies below the lb marker, and the type map's lb is
 * the lowest lb marker, its ub the highest ub marker. */
static void bounds_add(bounds_t *b, const tn_dt_t *t, ptrdiff_t lo, ptrdiff_t hi)
{
    ptrdiff_t elb = t->lb, eub = t->lb + t->extent;

    if (t->size > 0) {
        ptrdiff_t tl = lo + t->true_lb, tu = hi + t->true_lb + t->true_extent;
        if (!b->any_true || tl < b->tlb) {
            b->tlb = tl;
        }
        if (!b->any_true || tu > b->tub) {
            b->tub = tu;
        }
        b->any_true = 1;
    }
    if (t->size == 0 && !t->marked) {
        return;    /* an empty type map adds no bound */
    }
    if (t->align > b->align) {
        b->align = t->align;
    }
    if (t->marked && !b->marked) {
        b->any = 0;   /* marked bounds replace the unmarked ones seen so far */
        b->marked = 1;
    } else if (!t->marked && b->marked) {
        return;
    }
    if (!b->any || lo + elb < b->lb) {
        b->lb = lo + elb;
    }
    if (!b->any || hi + eub > b->ub) {
        b->ub = hi + eub;
    }
    b->any = 1;
}

static void bounds_set(tn_dt_t *dt, const bounds_t *b, int is_struct)
{
    dt->lb = b->any ? b->lb : 0;
    dt->extent = b->any ? b->ub - b->lb : 0;
    dt->true_lb = b->any_true ? b->tlb : 0;
    dt->true_extent = b->any_true ? b->tub - b->tlb : 0;
    dt->marked = b->marked;
    dt->align = b->align;
    if (is_struct && !b->marked && b->align > 1 && dt->extent % (ptrdiff_t)b->align != 0) {
        dt->extent += (ptrdiff_t)b->align - dt->extent % (ptrdiff_t)b->align;
    }
}

/* Extreme offsets of count elements of t from disp. */
static int block_span(ptrdiff_t disp, size_t count, const tn_dt_t *t, ptrdiff_t *lo,
                      ptrdiff_t *hi)
{
    ptrdiff_t last;

    if (count > (size_t)PTRDIFF_MAX ||
        __builtin_mul_overflow((ptrdiff_t)count - 1, t->extent, &last) ||
        __builtin_add_overflow(last, disp, &last)) {
        return -1;
    }
    *lo = last < disp ? last : disp;
    *hi = last < disp ? disp : last;
    return 0;
}

/* ---- constructors --------------------------------------------------------- */

/* Finish a constructor: layout, bounds already set; is_contig needs extent. */
static tn_status_t create_end(tn_dt_t *dt, tn_dt_lay_t *lay, tn_dt_t **new_p)
{
    tn_status_t st = tn_dt_lay_normalize(lay);

    if (st == TN_OK) {
        st = tn_dt_finish(dt, lay);
    }
    tn_dt_lay_free(lay);
    if (st != TN_OK) {
        tn_dt_destroy(dt);
        return st;
    }
    *new_p = dt;
    return TN_OK;
}

tn_status_t tn_dt_create_blocks(size_t nblocks, const tn_dt_block_t *blocks, int is_struct,
                                tn_dt_t **new_p)
{
    tn_dt_lay_t lay = { 0 };
    bounds_t b = { 0 };
    tn_dt_t *dt = tn_dt_alloc();
    tn_status_t st;
    size_t first = nblocks, nlive = 0;
    int regular = 1;

    if (dt == NULL) {
        return TN_ERR_NOMEM;
    }
    if ((st = tn_dt_sig_blocks(dt, nblocks, blocks)) != TN_OK) {
        tn_dt_destroy(dt);
        return st;
    }
    for (size_t i = 0; i < nblocks; i++) {
        ptrdiff_t lo, hi;

        if (blocks[i].count == 0) {
            continue;
        }
        if (block_span(blocks[i].disp, blocks[i].count, blocks[i].type, &lo, &hi) != 0) {
            tn_dt_destroy(dt);
            return TN_ERR_INVAL;
        }
        bounds_add(&b, blocks[i].type, lo, hi);
        if (first == nblocks) {
            first = i;
        }
        nlive++;
    }
    bounds_set(dt, &b, is_struct);

    /* blocks of one type and length at a constant step are an hvector */
    if (nlive >= 2) {
        const tn_dt_block_t *b0 = &blocks[first];
        ptrdiff_t step = 0;
        size_t seen = 0;

        for (size_t i = first; i < nblocks && regular; i++) {
            if (blocks[i].count == 0) {
                continue;
            }
            if (blocks[i].type != b0->type || blocks[i].count != b0->count) {
                regular = 0;
            } else if (seen == 1) {
                step = blocks[i].disp - b0->disp;
            } else if (seen > 1 && blocks[i].disp - b0->disp != (ptrdiff_t)seen * step) {
                regular = 0;
            }
            seen++;
        }
    }
    if (nlive == 0) {
        st = TN_OK;
    } else if (nlive == 1 || regular) {
        const tn_dt_block_t *b0 = &blocks[first];
        st = tn_dt_lay_from_block(&lay, b0->disp, b0->count, b0->type);
        if (st == TN_OK && nlive > 1) {
            ptrdiff_t step = 0;
            for (size_t i = first + 1; i < nblocks; i++) {
                if (blocks[i].count != 0) {
                    step = blocks[i].disp - b0->disp;
                    break;
                }
            }
            st = tn_dt_lay_wrap(&lay, nlive, step);
        }
    } else {
        /* irregular: write every block out, in order */
        for (size_t i = first; i < nblocks && st == TN_OK; i++) {
            tn_dt_lay_t one = { 0 };

            if (blocks[i].count == 0) {
                continue;
            }
            st = tn_dt_lay_from_block(&one, blocks[i].disp, blocks[i].count, blocks[i].type);
            if (st == TN_OK) {
                st = tn_dt_lay_normalize(&one);
            }
            if (st == TN_OK) {
                st = tn_dt_lay_flatten_into(&lay, &one);
            }
            tn_dt_lay_free(&one);
        }
        if (st == TN_OK) {
            tn_dt_lay_regularize(&lay);
        }
    }
    if (st != TN_OK) {
        tn_dt_lay_free(&lay);
        tn_dt_destroy(dt);
        return st;
    }
    return create_end(dt, &lay, new_p);
}

tn_status_t tn_dt_create_contig(size_t count, const tn_dt_t *old, tn_dt_t **new_p)
{
    tn_dt_block_t b = { 0, count, old };

    return tn_dt_create_blocks(1, &b, 0, new_p);
}

tn_status_t tn_dt_create_hvector(size_t count, size_t blen, ptrdiff_t stride,
                                 const tn_dt_t *old, tn_dt_t **new_p)
{
    tn_dt_lay_t lay = { 0 };
    bounds_t b = { 0 };
    tn_dt_t *dt;
    tn_status_t st;
    ptrdiff_t lo, hi, vlast;
    size_t total;

    if (count == 0 || blen == 0) {
        return tn_dt_create_contig(0, old, new_p);
    }
    if (count > (size_t)PTRDIFF_MAX || tn_dt_mul_ovf(count, blen, &total) ||
        __builtin_mul_overflow((ptrdiff_t)count - 1, stride, &vlast) ||
        block_span(0, blen, old, &lo, &hi) != 0) {
        return TN_ERR_INVAL;
    }
    dt = tn_dt_alloc();
    if (dt == NULL) {
        return TN_ERR_NOMEM;
    }
    if ((st = tn_dt_sig_repeat(dt, old, total)) != TN_OK) {
        tn_dt_destroy(dt);
        return st;
    }
    bounds_add(&b, old, lo + (vlast < 0 ? vlast : 0), hi + (vlast > 0 ? vlast : 0));
    bounds_set(dt, &b, 0);
    st = tn_dt_lay_from_block(&lay, 0, blen, old);
    if (st == TN_OK) {
        st = tn_dt_lay_wrap(&lay, count, stride);
    }
    if (st != TN_OK) {
        tn_dt_lay_free(&lay);
        tn_dt_destroy(dt);
        return st;
    }
    return create_end(dt, &lay, new_p);
}

/* A copy of old's layout and signature into a fresh object. */
static tn_status_t create_copy(const tn_dt_t *old, tn_dt_t **new_p)
{
    tn_dt_lay_t lay = { 0 };
    tn_dt_t *dt = tn_dt_alloc();
    tn_status_t st;

    if (dt == NULL) {
        return TN_ERR_NOMEM;
    }
    if ((st = tn_dt_sig_repeat(dt, old, 1)) != TN_OK) {
        tn_dt_destroy(dt);
        return st;
    }
    dt->lb = old->lb;
    dt->extent = old->extent;
    dt->true_lb = old->true_lb;
    dt->true_extent = old->true_extent;
    dt->marked = old->marked;
    dt->align = old->align;
    st = tn_dt_lay_from_block(&lay, 0, 1, old);
    if (st != TN_OK) {
        tn_dt_lay_free(&lay);
        tn_dt_destroy(dt);
        return st;
    }
    return create_end(dt, &lay, new_p);
}

tn_status_t tn_dt_create_resized(const tn_dt_t *old, ptrdiff_t lb, ptrdiff_t extent,
                                 tn_dt_t **new_p)
{
    tn_status_t st = create_copy(old, new_p);

    if (st == TN_OK) {
        tn_dt_t *dt = *new_p;
        dt->lb = lb;
        dt->extent = extent;
        dt->marked = 1;
        dt->is_contig = dt->size == 0 ||
                        (dt->ndims == 0 && dt->nsegs == 1 && dt->segs[0].off == 0 &&
                         (ptrdiff_t)dt->segs[0].len == extent);
    }
    return st;
}

tn_status_t tn_dt_create_dup(const tn_dt_t *old, tn_dt_t **new_p)
{
    tn_status_t st = create_copy(old, new_p);

    if (st == TN_OK) {
        (*new_p)->committed = old->committed;
    }
    return st;
}
