/* Datatypes.
 *
 * A tn_dt_t describes an MPI datatype.  Predefined types live in a static
 * table indexed by the low byte of their ABI handle (0x200..0x2ff); derived
 * types are heap objects made by the tn_dt_create_* constructors below, and
 * their MPI handle is the object's address.
 *
 * Layout ("flattening").  Every type, predefined or derived, carries the
 * byte layout of ONE element, computed when the type is constructed:
 *
 *   for i_0 < dims[0].n, ..., for i_{d-1} < dims[d-1].n:      (outermost first)
 *       for s < nsegs:
 *           bytes [base + segs[s].off, + segs[s].len)   base = sum i_k * dims[k].stride
 *
 * i.e. a "leaf" list of (offset, length) byte segments repeated over at most
 * TN_DT_MAX_DIMS nested strided loops.  A vector of doubles is one segment
 * under one loop; a 3-d subarray one segment under two loops; a struct a
 * list of segments.  Segments are in type-map order (the order of the packed
 * stream, not address order), zero-length segments are dropped, segments that
 * touch in that order are merged, loops of one iteration are dropped, loops
 * that continue each other are merged, and an inner loop over a contiguous
 * leaf is folded into the leaf.  Element i of a buffer lies at buf + i*extent.
 *
 * is_contig != 0 means "count elements occupy count*size bytes starting at
 * the buffer" (no loops, one segment at offset 0 whose length is the extent,
 * or size 0): the messaging layer moves such data straight from the user
 * buffer.  Everything else goes through tn_dt_pack/tn_dt_unpack, which need
 * no per-element dispatch: a strided layout is one tight loop of fixed-size
 * copies.  The pair types whose C struct has padding (MPI_SHORT_INT,
 * MPI_DOUBLE_INT, MPI_LONG_INT, MPI_LONG_DOUBLE_INT on x86-64) are not
 * contiguous either.
 *
 * Type signature.  runs[0..nruns) repeated run_rep times is the sequence of
 * predefined types of one element (run-length encoded, adjacent equal runs
 * merged); basic is the single predefined type of a homogeneous type (the
 * type itself when predefined), NULL when the signature mixes types.
 *
 * Lifetime.  Predefined objects are static and never freed; retain/release
 * do nothing on them.  A derived type starts with one reference (the user's
 * handle); MPI_Type_free drops it.  Whoever keeps a type beyond the call
 * that received it (a pending request, a persistent request, a nonblocking
 * collective schedule) takes a reference with tn_dt_retain and drops it with
 * tn_dt_release; the last release frees the object.  Objects are not locked:
 * only the reference count is atomic, everything else is immutable after
 * construction except `committed` and `user_name` (MPI layer, under its lock).
 *
 * Committed.  Predefined types are committed.  A derived type is usable as
 * a building block right away but may be used for communication, packing or
 * reductions only once committed (MPI_ERR_TYPE otherwise, checked by mpi/). */
#ifndef TN_DT_DT_H
#define TN_DT_DT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>
#include "base/status.h"

#define TN_DT_MAGIC 0x54445459u      /* "TDTY" */
#define TN_DT_COMBINER_NAMED 101     /* MPI_COMBINER_NAMED (ABI value) */
#define TN_DT_MAX_DIMS 6             /* nested loops of a layout */

/* Element kinds, the unit reductions work on. */
typedef enum {
    TN_DK_NONE = 0,          /* not reducible (MPI_PACKED, MPI_CHARACTER, ...) */
    TN_DK_CHAR,              /* MPI_CHAR: character, not arithmetic */
    TN_DK_WCHAR,
    TN_DK_BYTE,
    TN_DK_INT8, TN_DK_INT16, TN_DK_INT32, TN_DK_INT64,
    TN_DK_UINT8, TN_DK_UINT16, TN_DK_UINT32, TN_DK_UINT64,
    TN_DK_FLOAT, TN_DK_DOUBLE, TN_DK_LONG_DOUBLE,
    TN_DK_C_FLOAT_COMPLEX, TN_DK_C_DOUBLE_COMPLEX, TN_DK_C_LONG_DOUBLE_COMPLEX,
    TN_DK_BOOL,              /* C _Bool / C++ bool (1 byte) */
    TN_DK_FLOGICAL4,         /* Fortran LOGICAL of 1/2/4/8 bytes */
    TN_DK_FLOGICAL1, TN_DK_FLOGICAL2, TN_DK_FLOGICAL8,
    /* pair types for MINLOC/MAXLOC */
    TN_DK_FLOAT_INT, TN_DK_DOUBLE_INT, TN_DK_LONG_INT, TN_DK_2INT,
    TN_DK_SHORT_INT, TN_DK_LONG_DOUBLE_INT, TN_DK_2FLOAT, TN_DK_2DOUBLE,
    TN_DK_2INT32F,           /* MPI_2INTEGER: pair of Fortran INTEGER */
    TN_DK_COUNT_
} tn_dt_kind_t;

/* Categories of the MPI standard (section "Predefined Reduction Operations"),
 * as bits, so that an op can say which it accepts. */
enum {
    TN_DC_C_INT      = 1 << 0,
    TN_DC_F_INT      = 1 << 1,
    TN_DC_FLOAT      = 1 << 2,
    TN_DC_LOGICAL    = 1 << 3,
    TN_DC_COMPLEX    = 1 << 4,
    TN_DC_BYTE       = 1 << 5,
    TN_DC_MULTI_LANG = 1 << 6,   /* MPI_AINT, MPI_OFFSET, MPI_COUNT */
    TN_DC_PAIR       = 1 << 7,
    TN_DC_CHAR       = 1 << 8,   /* MPI_CHAR: text, but reducible as an extension */
};

/* One contiguous piece of an element: bytes [off, off + len) from the
 * element's origin; pos is where the piece starts in the packed form of one
 * leaf (the sum of the lengths before it). */
typedef struct tn_dt_seg {
    ptrdiff_t off;
    size_t    len;
    size_t    pos;
} tn_dt_seg_t;

/* One loop of a layout: n >= 2 repetitions, stride bytes apart. */
typedef struct tn_dt_dim {
    size_t    n;
    ptrdiff_t stride;
} tn_dt_dim_t;

/* n consecutive elements of one predefined type in a type signature. */
typedef struct tn_dt_run {
    const struct tn_dt *type;
    size_t              n;
} tn_dt_run_t;

struct tn_dt_contents;

typedef struct tn_dt {
    uint32_t      magic;
    int           predefined;     /* 1 for the static table */
    uintptr_t     handle;         /* ABI handle value for predefined types */
    const char   *name;           /* standard name, "MPI_INT"; NULL for derived */
    size_t        size;           /* bytes of data in one element */
    ptrdiff_t     lb, extent;
    ptrdiff_t     true_lb, true_extent;
    int           is_contig;
    tn_dt_kind_t  kind;           /* element kind (predefined; NONE for derived) */
    unsigned      category;       /* TN_DC_* bits (predefined; 0 for derived) */
    int           combiner;       /* MPI_COMBINER_* of the constructor */
    char          user_name[128]; /* set by MPI_Type_set_name ("" = default) */

    int           committed;      /* predefined: always; derived: MPI_Type_commit */
    int           refcount;       /* derived only (atomic) */
    int           marked;         /* lb/ub set explicitly (create_resized), inherited */
    size_t        align;          /* alignment of the C data (struct extent padding) */

    /* layout of one element (see the top of this file) */
    int                 ndims;
    tn_dt_dim_t         dims[TN_DT_MAX_DIMS];
    size_t              nsegs;
    const tn_dt_seg_t  *segs;
    size_t              leaf_size;    /* bytes of one leaf: size / prod(dims[].n) */

    /* type signature */
    size_t              nruns;
    const tn_dt_run_t  *runs;
    size_t              run_rep;
    const struct tn_dt *basic;        /* homogeneous: the predefined type; else NULL */
    uint64_t            nbasic;       /* basic elements per element (a pair counts 2) */

    struct tn_dt_contents *contents;  /* constructor arguments (derived) */

    /* storage for the layout and signature of predefined types */
    tn_dt_seg_t   seg_inline[2];
    tn_dt_run_t   run_inline[1];
} tn_dt_t;

/* The constructor arguments of a derived type, for MPI_Type_get_envelope /
 * MPI_Type_get_contents.  The MPI layer decides what goes in (it knows the
 * combiners); the datatype layer only keeps it and holds a reference on each
 * type listed.  large != 0: made by an MPI_*_c constructor. */
typedef struct tn_dt_contents {
    int            combiner;
    int            large;
    size_t         ni, na, nl, nd;
    int           *ints;
    int64_t       *addrs;
    int64_t       *larges;
    const tn_dt_t **types;
} tn_dt_contents_t;

/* The predefined type for an ABI handle value, or NULL. */
const tn_dt_t *tn_dt_predefined(uintptr_t handle);
/* MPI_BYTE, the type of packed data. */
const tn_dt_t *tn_dt_byte(void);
/* Number of valid predefined types and iteration over them (for tests). */
int tn_dt_predefined_count(void);
const tn_dt_t *tn_dt_predefined_at(int i);

/* ---- constructors ---------------------------------------------------------
 * Each makes a new derived type (one reference, not committed) from types
 * that may themselves be uncommitted; the result does not refer to its
 * inputs (the layout is copied), so they may be freed right after.  Byte
 * displacements and strides are signed.  Errors: TN_ERR_NOMEM, TN_ERR_INVAL
 * (sizes or extents that overflow). */

/* count consecutive elements of type at byte displacement disp. */
typedef struct tn_dt_block {
    ptrdiff_t      disp;
    size_t         count;
    const tn_dt_t *type;
} tn_dt_block_t;

/* The general constructor (hindexed, struct): the blocks in order.  is_struct
 * pads the extent to the largest alignment of the types (C struct rule)
 * unless one of them has explicit bounds. */
tn_status_t tn_dt_create_blocks(size_t nblocks, const tn_dt_block_t *blocks, int is_struct,
                                tn_dt_t **new_p);
tn_status_t tn_dt_create_contig(size_t count, const tn_dt_t *old, tn_dt_t **new_p);
/* count blocks of blen elements, stride bytes apart (MPI_Type_create_hvector;
 * MPI_Type_vector passes stride * extent). */
tn_status_t tn_dt_create_hvector(size_t count, size_t blen, ptrdiff_t stride,
                                 const tn_dt_t *old, tn_dt_t **new_p);
tn_status_t tn_dt_create_resized(const tn_dt_t *old, ptrdiff_t lb, ptrdiff_t extent,
                                 tn_dt_t **new_p);
/* Same layout and bounds; committed if old is. */
tn_status_t tn_dt_create_dup(const tn_dt_t *old, tn_dt_t **new_p);
/* MPI_Type_create_subarray: arguments already checked (0 <= starts,
 * starts + subsizes <= sizes, sizes > 0); fortran_order selects
 * MPI_ORDER_FORTRAN. */
tn_status_t tn_dt_create_subarray(int ndims, const int64_t *sizes, const int64_t *subsizes,
                                  const int64_t *starts, int fortran_order,
                                  const tn_dt_t *old, tn_dt_t **new_p);
/* MPI_Type_create_darray with distribs in TN_DT_DISTRIB_* and dargs
 * TN_DT_DARG_DEFAULT or > 0.  TN_ERR_INVAL for a distribution that does not
 * cover the array (block size * processes < global size) or a NONE
 * dimension over more than one process. */
enum { TN_DT_DISTRIB_NONE, TN_DT_DISTRIB_BLOCK, TN_DT_DISTRIB_CYCLIC };
#define TN_DT_DARG_DEFAULT (-1)
tn_status_t tn_dt_create_darray(int size, int rank, int ndims, const int64_t *gsizes,
                                const int *distribs, const int *dargs, const int *psizes,
                                int fortran_order, const tn_dt_t *old, tn_dt_t **new_p);

/* Keep the constructor arguments on dt (copies the arrays, retains the
 * types).  Replaces earlier contents.  TN_ERR_NOMEM. */
tn_status_t tn_dt_set_contents(tn_dt_t *dt, const tn_dt_contents_t *c);

/* References (no-ops on predefined types). */
void tn_dt_retain(const tn_dt_t *dt);
void tn_dt_release(const tn_dt_t *dt);

static inline void tn_dt_commit(tn_dt_t *dt)
{
    dt->committed = 1;
}

/* ---- pack / unpack -------------------------------------------------------
 * The packed form of count elements is the concatenation, in type-map order,
 * of their data bytes: count*size bytes.  Element i lies at buf + i*extent.
 * unpack writes only the data bytes of buf, never the holes.  The buffers
 * must not overlap.  Any type and count; contiguous types are one memcpy,
 * strided ones a loop of fixed-size copies. */
void tn_dt_pack(const tn_dt_t *dt, const void *buf, size_t count, void *out);
void tn_dt_unpack(const tn_dt_t *dt, const void *in, size_t count, void *buf);

/* The same for the packed bytes [offset, offset + len) of the stream of count
 * elements only (offset + len <= count*size): out receives len bytes; unpack
 * reads len bytes from in and stores them where they belong in buf.  Cost:
 * O(log nsegs) to find the position plus the segments touched, so a stream
 * can be moved in pieces (pipelining, packing straight into transport
 * cells). */
void tn_dt_pack_partial(const tn_dt_t *dt, const void *buf, size_t count, size_t offset,
                        size_t len, void *out);
void tn_dt_unpack_partial(const tn_dt_t *dt, const void *in, size_t count, size_t offset,
                          size_t len, void *buf);

/* The memory of the packed bytes [offset, offset + len) of count elements at
 * buf as at most *n_p iovecs (touching pieces merged), in stream order:
 * sets *n_p to the number used and returns the bytes they cover, which is
 * less than len when the iovecs ran out (call again from offset + the
 * result).  For scatter/gather I/O such as process_vm_readv. */
size_t tn_dt_iov(const tn_dt_t *dt, void *buf, size_t count, size_t offset, size_t len,
                 struct iovec *iov, int *n_p);

/* Contiguous pieces in the layout of one element (an upper bound: pieces
 * that touch across loops are counted apart).  size / this is the mean
 * piece length, which tells gather/scatter I/O from copying apart. */
static inline size_t tn_dt_pieces(const tn_dt_t *dt)
{
    size_t n = dt->nsegs;
    for (int k = 0; k < dt->ndims; k++) {
        n *= dt->dims[k].n;
    }
    return n;
}

/* Copy the first `bytes` packed bytes of scount elements of sdt at sbuf into
 * the layout of rdt at rbuf (bytes <= both streams; type signatures are the
 * caller's business).  Same layout: segment by segment; otherwise through a
 * small bounce buffer.  No allocation. */
void tn_dt_copy(const tn_dt_t *sdt, const void *sbuf, size_t scount, const tn_dt_t *rdt,
                void *rbuf, size_t rcount, size_t bytes);

/* Call fn(off, len, arg) for every segment of count elements, in type-map
 * order (off from buf; segments of consecutive elements merged when they
 * touch).  Stops at and returns the first non-zero value fn returns. */
typedef int (tn_dt_seg_fn_t)(ptrdiff_t off, size_t len, void *arg);
int tn_dt_foreach_seg(const tn_dt_t *dt, size_t count, tn_dt_seg_fn_t *fn, void *arg);

/* ---- signatures ------------------------------------------------------------ */

/* Basic elements in the first `bytes` packed bytes of a stream of dt:
 * complete elements times nbasic, plus the basic elements of a trailing
 * partial element (a pair type whose value arrived without its index counts
 * 1).  -1 when the bytes end inside a basic element. */
int64_t tn_dt_count_elements(const tn_dt_t *dt, uint64_t bytes);

/* ---- external32 ------------------------------------------------------------
 * The portable representation of the standard: big-endian, fixed sizes
 * (MPI_LONG 4 bytes, MPI_WCHAR 2, MPI_LONG_DOUBLE an IEEE binary128 of 16,
 * ...), no padding.  Values that do not fit the smaller external size are
 * truncated (as a C conversion to the narrower integer would). */
size_t tn_dt_ext32_size(const tn_dt_t *dt);          /* bytes of one element */
/* Pack/unpack count elements to/from external32 (out: count *
 * tn_dt_ext32_size bytes).  TN_ERR_NOMEM (needs a temporary of count*size). */
tn_status_t tn_dt_pack_ext32(const tn_dt_t *dt, const void *buf, size_t count, void *out);
tn_status_t tn_dt_unpack_ext32(const tn_dt_t *dt, const void *in, size_t count, void *buf);

/* Byte size of count elements. */
static inline size_t tn_dt_bytes(const tn_dt_t *dt, size_t count)
{
    return dt->size * count;
}

/* Memory that count elements of dt occupy: a temporary for them must hold
 * *span_p bytes, and the buffer pointer to pass is tmp - *shift_p (the
 * data can start before the buffer pointer: negative true_lb).  count > 0. */
static inline void tn_dt_span(const tn_dt_t *dt, size_t count, size_t *span_p,
                              ptrdiff_t *shift_p)
{
    ptrdiff_t lo = dt->true_lb, hi = dt->true_lb + dt->true_extent;
    ptrdiff_t step = (ptrdiff_t)(count - 1) * dt->extent;

    if (step < 0) {
        lo += step;
    } else {
        hi += step;
    }
    *span_p = (size_t)(hi - lo);
    *shift_p = lo;
}

#endif
