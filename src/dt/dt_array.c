/* Array constructors: subarray and distributed array, composed from the
 * basic constructors the way the standard defines them (nested vectors of
 * the element type, then a resize to the whole array).
 *
 * Axes are walked from the fastest-varying one (the last for C order, the
 * first for Fortran order) outwards: the type built so far describes the
 * selected elements of one slice of the faster axes, and the next axis
 * places copies of it one slice apart.  The layout normalization then merges
 * what is contiguous, so a subarray of whole rows is one loop, not two. */
#include <stdlib.h>
#include "dt/dt_impl.h"

/* After a constructor returned st: replace *t by next (releasing the old
 * one) unless it failed. */
static tn_status_t step(tn_dt_t **t, tn_status_t st, tn_dt_t *next)
{
    if (st != TN_OK) {
        return st;
    }
    if (*t != NULL) {
        tn_dt_release(*t);
    }
    *t = next;
    return TN_OK;
}

/* The axis processed at position i (0 = fastest). */
static int axis_at(int ndims, int i, int fortran_order)
{
    return fortran_order ? i : ndims - 1 - i;
}

/* Resize t to [0, full) and hand it out. */
static tn_status_t array_end(tn_dt_t *t, ptrdiff_t full, tn_dt_t **new_p)
{
    tn_dt_t *r;
    tn_status_t st = tn_dt_create_resized(t, 0, full, &r);

    tn_dt_release(t);
    if (st == TN_OK) {
        *new_p = r;
    }
    return st;
}

tn_status_t tn_dt_create_subarray(int ndims, const int64_t *sizes, const int64_t *subsizes,
                                  const int64_t *starts, int fortran_order,
                                  const tn_dt_t *old, tn_dt_t **new_p)
{
    tn_dt_t *t = NULL, *next = NULL;
    ptrdiff_t stride = old->extent, disp = 0, off;
    tn_status_t st = TN_OK;

    for (int i = 0; i < ndims && st == TN_OK; i++) {
        int a = axis_at(ndims, i, fortran_order);

        if (__builtin_mul_overflow((ptrdiff_t)starts[a], stride, &off) ||
            __builtin_add_overflow(disp, off, &disp)) {
            st = TN_ERR_INVAL;
            break;
        }
        if (i == 0) {
            st = tn_dt_create_contig((size_t)subsizes[a], old, &next);
            st = step(&t, st, next);
        } else {
            st = tn_dt_create_hvector((size_t)subsizes[a], 1, stride, t, &next);
            st = step(&t, st, next);
        }
        if (__builtin_mul_overflow(stride, (ptrdiff_t)sizes[a], &stride)) {
            st = TN_ERR_INVAL;
        }
    }
    if (st == TN_OK && t == NULL) {
        st = tn_dt_create_contig(1, old, &next);    /* no dimensions */
        st = step(&t, st, next);
    }
    if (st == TN_OK) {
        tn_dt_block_t b = { disp, 1, t };
        st = tn_dt_create_blocks(1, &b, 0, &next);
        st = step(&t, st, next);
    }
    if (st != TN_OK) {
        if (t != NULL) {
            tn_dt_release(t);
        }
        return st;
    }
    return array_end(t, stride, new_p);
}

/* The blocks of one axis of a darray: the runs of indices [start, start +
 * len) this process owns, as blocks of slices of type t (resized to one
 * slice), slice bytes apart.  *n_p blocks in *blocks_p (malloc'd). */
static tn_status_t darray_axis(int64_t g, int p, int c, int distrib, int darg, ptrdiff_t slice,
                               const tn_dt_t *t, tn_dt_block_t **blocks_p, size_t *n_p)
{
    tn_dt_block_t *b;
    int64_t d, start;
    size_t n = 0, cap;

    switch (distrib) {
    case TN_DT_DISTRIB_NONE:
        if (p != 1) {
            return TN_ERR_INVAL;
        }
        d = g;
        break;
    case TN_DT_DISTRIB_BLOCK:
        d = darg == TN_DT_DARG_DEFAULT ? (g + p - 1) / p : darg;
        if (d <= 0 || d * p < g) {
            return TN_ERR_INVAL;
        }
        break;
    case TN_DT_DISTRIB_CYCLIC:
        d = darg == TN_DT_DARG_DEFAULT ? 1 : darg;
        if (d <= 0) {
            return TN_ERR_INVAL;
        }
        break;
    default:
        return TN_ERR_INVAL;
    }
    start = (int64_t)c * d;
    /* CYCLIC: every p*d indices; NONE and BLOCK: one run */
    cap = distrib == TN_DT_DISTRIB_CYCLIC && start < g
              ? (size_t)((g - start + (int64_t)p * d - 1) / ((int64_t)p * d))
              : 1;
    b = malloc(cap * sizeof(*b));
    if (b == NULL) {
        return TN_ERR_NOMEM;
    }
    for (int64_t j = start; n < cap; j += (int64_t)p * d) {
        int64_t len = j < g ? (g - j < d ? g - j : d) : 0;
        b[n].disp = (ptrdiff_t)j * slice;
        b[n].count = (size_t)len;
        b[n].type = t;
        n++;
    }
    *blocks_p = b;
    *n_p = n;
    return TN_OK;
}

tn_status_t tn_dt_create_darray(int size, int rank, int ndims, const int64_t *gsizes,
                                const int *distribs, const int *dargs, const int *psizes,
                                int fortran_order, const tn_dt_t *old, tn_dt_t **new_p)
{
    tn_dt_t *t = NULL, *next = NULL, *slice_t = NULL;
    int coords[64];
    ptrdiff_t slice = old->extent;
    tn_status_t st = TN_OK;
    int64_t nprocs = 1;

    if (ndims < 0 || ndims > 64 || rank < 0 || rank >= size) {
        return TN_ERR_INVAL;
    }
    for (int a = 0; a < ndims; a++) {
        if (psizes[a] <= 0 || gsizes[a] <= 0) {
            return TN_ERR_INVAL;
        }
        nprocs *= psizes[a];
        if (nprocs > size) {
            return TN_ERR_INVAL;
        }
    }
    if (nprocs != size) {
        return TN_ERR_INVAL;
    }
    /* the process grid is row-major whatever the array order */
    for (int a = ndims - 1, r = rank; a >= 0; a--) {
        coords[a] = r % psizes[a];
        r /= psizes[a];
    }
    st = tn_dt_create_contig(1, old, &next);
    st = step(&t, st, next);
    for (int i = 0; i < ndims && st == TN_OK; i++) {
        int a = axis_at(ndims, i, fortran_order);
        tn_dt_block_t *blocks = NULL;
        size_t nblocks = 0;

        /* one element of this axis is one slice of the faster ones */
        st = tn_dt_create_resized(t, 0, slice, &slice_t);
        if (st == TN_OK) {
            st = darray_axis(gsizes[a], psizes[a], coords[a], distribs[a], dargs[a], slice,
                             slice_t, &blocks, &nblocks);
        }
        if (st == TN_OK) {
            st = tn_dt_create_blocks(nblocks, blocks, 0, &next);
            st = step(&t, st, next);
        }
        free(blocks);
        if (slice_t != NULL) {
            tn_dt_release(slice_t);
            slice_t = NULL;
        }
        if (st == TN_OK && __builtin_mul_overflow(slice, (ptrdiff_t)gsizes[a], &slice)) {
            st = TN_ERR_INVAL;
        }
    }
    if (st != TN_OK) {
        if (t != NULL) {
            tn_dt_release(t);
        }
        return st;
    }
    return array_end(t, slice, new_p);
}
