/* Private to src/dt: the layout builder used by the constructors, the
 * signature builder, and object allocation.
 *
 * A tn_dt_lay_t is a layout under construction (same meaning as the layout
 * fields of tn_dt_t, see dt.h): nested loops over a leaf segment list that it
 * owns.  Constructors build one, normalize it, and hand it to tn_dt_finish,
 * which moves it into the new object. */
#ifndef TN_DT_DT_IMPL_H
#define TN_DT_DT_IMPL_H

#include "dt/dt.h"

/* Layouts larger than this many leaf segments are refused (TN_ERR_NOMEM):
 * 24 bytes each, so 2^26 is 1.5 GiB of description. */
#define TN_DT_MAX_SEGS ((size_t)1 << 26)

typedef struct tn_dt_lay {
    int          ndims;
    tn_dt_dim_t  dims[TN_DT_MAX_DIMS + 2];   /* room for two loops before normalizing */
    size_t       nsegs, cap;
    tn_dt_seg_t *segs;
} tn_dt_lay_t;

/* Append a segment, merging it into the last one when they touch; len 0 is
 * dropped.  pos is not maintained here (tn_dt_finish computes it). */
tn_status_t tn_dt_lay_push(tn_dt_lay_t *l, ptrdiff_t off, size_t len);
/* l := count elements of type at disp: one loop (count, extent) around the
 * type's own loops, its leaf shifted by disp.  l must be empty. */
tn_status_t tn_dt_lay_from_block(tn_dt_lay_t *l, ptrdiff_t disp, size_t count,
                                 const tn_dt_t *type);
/* Put a loop (n, stride) outside the existing ones (before normalizing). */
tn_status_t tn_dt_lay_wrap(tn_dt_lay_t *l, size_t n, ptrdiff_t stride);
/* Drop, merge and fold loops (see dt.h); expand the innermost loops into
 * the leaf while there are more than TN_DT_MAX_DIMS. */
tn_status_t tn_dt_lay_normalize(tn_dt_lay_t *l);
/* Append every segment of src, loops expanded, to dst's leaf (dst has no
 * loops). */
tn_status_t tn_dt_lay_flatten_into(tn_dt_lay_t *dst, const tn_dt_lay_t *src);
/* A loop-free leaf of n >= 2 equal segments at a constant step becomes one
 * loop over one segment. */
void tn_dt_lay_regularize(tn_dt_lay_t *l);
void tn_dt_lay_free(tn_dt_lay_t *l);

/* A zeroed derived object with one reference (NULL: no memory). */
tn_dt_t *tn_dt_alloc(void);
/* Move lay into dt (lay is left empty), compute segment positions, size,
 * leaf_size and is_contig.  TN_ERR_INVAL if the size overflows. */
tn_status_t tn_dt_finish(tn_dt_t *dt, tn_dt_lay_t *lay);
/* Free a derived object that was never handed out (construction failed). */
void tn_dt_destroy(tn_dt_t *dt);

/* Signature of the concatenation of the blocks (types may differ). Sets
 * runs, nruns, run_rep, basic, nbasic.  TN_ERR_NOMEM / TN_ERR_INVAL. */
tn_status_t tn_dt_sig_blocks(tn_dt_t *dt, size_t nblocks, const tn_dt_block_t *blocks);
/* Signature of mult elements of old. */
tn_status_t tn_dt_sig_repeat(tn_dt_t *dt, const tn_dt_t *old, size_t mult);
void tn_dt_sig_free(tn_dt_t *dt);

/* Checked arithmetic: 0 on success, the status to return on overflow. */
static inline int tn_dt_mul_ovf(size_t a, size_t b, size_t *r)
{
    return __builtin_mul_overflow(a, b, r);
}

#endif
