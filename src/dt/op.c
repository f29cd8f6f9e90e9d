/* Reduction operations: the predefined op table, their kernels, user ops.
 *
 * Kernels are instantiated from one loop macro per element kind list and one
 * element macro per op (F(T, U, in, inout) -> result); each op is a switch
 * over element kinds.  Which (op, type) pairs are legal is decided by the
 * standard's categories (tn_op_valid_for), not by which kernels exist: a
 * kernel is there for every kind that a legal pair can reach.
 *
 * Integer arithmetic runs in an unsigned type U (never narrower than
 * unsigned int) so that signed overflow wraps instead of being undefined.
 * Loops run in fixed blocks of TN_OP_BLOCK elements plus a tail, so that
 * gcc -O2 (which only vectorizes loops whose trip count it knows) vectorizes
 * SUM/PROD/MIN/MAX/bitwise on the common kinds.  On x86-64 with gcc each
 * kernel is built twice, for the baseline (SSE2) and for AVX2, and the
 * dynamic loader picks the one the CPU runs (TN_OP_CLONES). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "base/objreg.h"
#include "dt/op.h"

#define TN_OP_HANDLE_BASE 0x20u
#define TN_OP_TABLE_SIZE  0x20u
#define TN_OP_ANY_TYPE    (~0u)    /* categories of REPLACE / NO_OP */
#define TN_OP_BLOCK       32

/* ABI handle values (tools/abi/constants.tsv; checked by the unit test). */
enum {
    TN_OP_SUM = 0x21, TN_OP_MIN = 0x22, TN_OP_MAX = 0x23, TN_OP_PROD = 0x24,
    TN_OP_BAND = 0x28, TN_OP_BOR = 0x29, TN_OP_BXOR = 0x2a,
    TN_OP_LAND = 0x30, TN_OP_LOR = 0x31, TN_OP_LXOR = 0x32,
    TN_OP_MINLOC = 0x38, TN_OP_MAXLOC = 0x39,
    TN_OP_REPLACE = 0x3c, TN_OP_NO_OP = 0x3d,
};

/* Categories of the standard's "Predefined Reduction Operations".  Two
 * extensions (README.md, "Extensions to the standard"), as in Open MPI and
 * MPICH, so that programs written for them port unchanged: the logical ops
 * also take the multi-language integers MPI_AINT, MPI_OFFSET and MPI_COUNT,
 * and MIN, MAX, SUM, PROD and the bitwise ops take MPI_CHAR as the integer
 * type char is (the OSU benchmarks reduce MPI_CHAR with MPI_SUM). */
#define TN_OP_MINMAX  (TN_DC_C_INT | TN_DC_F_INT | TN_DC_FLOAT | TN_DC_MULTI_LANG | TN_DC_CHAR)
#define TN_OP_ARITH   (TN_OP_MINMAX | TN_DC_COMPLEX)
#define TN_OP_LOGICAL (TN_DC_C_INT | TN_DC_LOGICAL | TN_DC_MULTI_LANG)
#define TN_OP_BITWISE (TN_DC_C_INT | TN_DC_F_INT | TN_DC_BYTE | TN_DC_MULTI_LANG | TN_DC_CHAR)

#define TN_OP_DEF(hval, nm, comm, cats)                                            \
    [(hval) - TN_OP_HANDLE_BASE] = {                                               \
        .magic = TN_OP_MAGIC, .predefined = 1, .handle = (hval), .name = (nm),     \
        .commutative = (comm), .categories = (cats), .refcount = 1 }

static const tn_op_t tn_op_table[TN_OP_TABLE_SIZE] = {
    TN_OP_DEF(TN_OP_SUM,     "MPI_SUM",     1, TN_OP_ARITH),
    TN_OP_DEF(TN_OP_MIN,     "MPI_MIN",     1, TN_OP_MINMAX),
    TN_OP_DEF(TN_OP_MAX,     "MPI_MAX",     1, TN_OP_MINMAX),
    TN_OP_DEF(TN_OP_PROD,    "MPI_PROD",    1, TN_OP_ARITH),
    TN_OP_DEF(TN_OP_BAND,    "MPI_BAND",    1, TN_OP_BITWISE),
    TN_OP_DEF(TN_OP_BOR,     "MPI_BOR",     1, TN_OP_BITWISE),
    TN_OP_DEF(TN_OP_BXOR,    "MPI_BXOR",    1, TN_OP_BITWISE),
    TN_OP_DEF(TN_OP_LAND,    "MPI_LAND",    1, TN_OP_LOGICAL),
    TN_OP_DEF(TN_OP_LOR,     "MPI_LOR",     1, TN_OP_LOGICAL),
    TN_OP_DEF(TN_OP_LXOR,    "MPI_LXOR",    1, TN_OP_LOGICAL),
    /* ties take the lower index, which makes them commutative */
    TN_OP_DEF(TN_OP_MINLOC,  "MPI_MINLOC",  1, TN_DC_PAIR),
    TN_OP_DEF(TN_OP_MAXLOC,  "MPI_MAXLOC",  1, TN_DC_PAIR),
    /* for accumulate: the order of origin and target matters */
    TN_OP_DEF(TN_OP_REPLACE, "MPI_REPLACE", 0, TN_OP_ANY_TYPE),
    TN_OP_DEF(TN_OP_NO_OP,   "MPI_NO_OP",   0, TN_OP_ANY_TYPE),
};

const tn_op_t *tn_op_predefined(uintptr_t handle)
{
    const tn_op_t *op;

    if (handle < TN_OP_HANDLE_BASE || handle >= TN_OP_HANDLE_BASE + TN_OP_TABLE_SIZE) {
        return NULL;
    }
    op = &tn_op_table[handle - TN_OP_HANDLE_BASE];
    return op->magic == TN_OP_MAGIC ? op : NULL;
}

int tn_op_valid_for(const tn_op_t *op, const tn_dt_t *dt)
{
    if (!op->predefined || op->categories == TN_OP_ANY_TYPE) {
        return 1;
    }
    if (!dt->predefined) {
        /* a derived type made of one predefined type only, which the op takes */
        return dt->basic != NULL && tn_op_valid_for(op, dt->basic);
    }
    /* kind NONE: a type of the category that has no kernel (REAL16, ...) */
    return (dt->category & op->categories) != 0 && dt->kind != TN_DK_NONE;
}

/* ---- element types ------------------------------------------------------ */

typedef struct { float re, im; }       tn_op_cf_t;
typedef struct { double re, im; }      tn_op_cd_t;
typedef struct { long double re, im; } tn_op_cld_t;

typedef struct { float v;       int i; }     tn_op_float_int_t;
typedef struct { double v;      int i; }     tn_op_double_int_t;
typedef struct { long v;        int i; }     tn_op_long_int_t;
typedef struct { int v;         int i; }     tn_op_2int_t;
typedef struct { short v;       int i; }     tn_op_short_int_t;
typedef struct { long double v; int i; }     tn_op_long_double_int_t;
typedef struct { float v;       float i; }   tn_op_2float_t;
typedef struct { double v;      double i; }  tn_op_2double_t;
typedef struct { int32_t v;     int32_t i; } tn_op_2int32_t;

/* Kind lists: X(kind, C type, arithmetic type, element op). */
#define TN_INT_KINDS(X, F)                                                          \
    X(TN_DK_INT8, int8_t, unsigned, F)    X(TN_DK_INT16, int16_t, unsigned, F)      \
    X(TN_DK_INT32, int32_t, unsigned, F)  X(TN_DK_INT64, int64_t, uint64_t, F)      \
    X(TN_DK_UINT8, uint8_t, unsigned, F)  X(TN_DK_UINT16, uint16_t, unsigned, F)    \
    X(TN_DK_UINT32, uint32_t, unsigned, F) X(TN_DK_UINT64, uint64_t, uint64_t, F)     \
    X(TN_DK_CHAR, char, unsigned, F)
#define TN_FLOAT_KINDS(X, F)                                                        \
    X(TN_DK_FLOAT, float, float, F) X(TN_DK_DOUBLE, double, double, F)              \
    X(TN_DK_LONG_DOUBLE, long double, long double, F)
#define TN_COMPLEX_KINDS(X, F)                                                      \
    X(TN_DK_C_FLOAT_COMPLEX, tn_op_cf_t, float, F)                                  \
    X(TN_DK_C_DOUBLE_COMPLEX, tn_op_cd_t, double, F)                                \
    X(TN_DK_C_LONG_DOUBLE_COMPLEX, tn_op_cld_t, long double, F)
/* C _Bool is read as a byte: any non-zero byte is true */
#define TN_LOGICAL_KINDS(X, F)                                                      \
    X(TN_DK_BOOL, uint8_t, unsigned, F)       X(TN_DK_FLOGICAL1, int8_t, unsigned, F) \
    X(TN_DK_FLOGICAL2, int16_t, unsigned, F)  X(TN_DK_FLOGICAL4, int32_t, unsigned, F) \
    X(TN_DK_FLOGICAL8, int64_t, uint64_t, F)
#define TN_BYTE_KINDS(X, F) X(TN_DK_BYTE, uint8_t, unsigned, F)
#define TN_PAIR_KINDS(X, F)                                                         \
    X(TN_DK_FLOAT_INT, tn_op_float_int_t, int, F)                                   \
    X(TN_DK_DOUBLE_INT, tn_op_double_int_t, int, F)                                 \
    X(TN_DK_LONG_INT, tn_op_long_int_t, int, F)                                     \
    X(TN_DK_2INT, tn_op_2int_t, int, F)                                             \
    X(TN_DK_SHORT_INT, tn_op_short_int_t, int, F)                                   \
    X(TN_DK_LONG_DOUBLE_INT, tn_op_long_double_int_t, int, F)                       \
    X(TN_DK_2FLOAT, tn_op_2float_t, float, F)                                       \
    X(TN_DK_2DOUBLE, tn_op_2double_t, double, F)                                    \
    X(TN_DK_2INT32F, tn_op_2int32_t, int32_t, F)

/* ---- element ops: F(T, U, a = in, b = inout) ------------------------------ */
#define TN_E_SUM_I(T, U, a, b)  ((T)((U)(a) + (U)(b)))
#define TN_E_PROD_I(T, U, a, b) ((T)((U)(a) * (U)(b)))
#define TN_E_SUM_F(T, U, a, b)  ((a) + (b))
#define TN_E_PROD_F(T, U, a, b) ((a) * (b))
#define TN_E_SUM_C(T, U, a, b)  ((T){ (a).re + (b).re, (a).im + (b).im })
#define TN_E_PROD_C(T, U, a, b)                                                     \
    ((T){ (a).re * (b).re - (a).im * (b).im, (a).re * (b).im + (a).im * (b).re })
#define TN_E_MAX(T, U, a, b)    ((a) > (b) ? (a) : (b))
#define TN_E_MIN(T, U, a, b)    ((a) < (b) ? (a) : (b))
#define TN_E_LAND(T, U, a, b)   ((T)((a) != 0 && (b) != 0))
#define TN_E_LOR(T, U, a, b)    ((T)((a) != 0 || (b) != 0))
#define TN_E_LXOR(T, U, a, b)   ((T)(((a) != 0) != ((b) != 0)))
#define TN_E_BAND(T, U, a, b)   ((T)((a) & (b)))
#define TN_E_BOR(T, U, a, b)    ((T)((a) | (b)))
#define TN_E_BXOR(T, U, a, b)   ((T)((a) ^ (b)))
/* value first, then index; equal values keep the lower index */
#define TN_E_LOC_TIE(T, U, a, b) ((T){ (a).v, (a).i < (b).i ? (a).i : (b).i })
#define TN_E_MAXLOC(T, U, a, b)                                                     \
    ((a).v > (b).v ? (a) : (a).v < (b).v ? (b) : TN_E_LOC_TIE(T, U, a, b))
#define TN_E_MINLOC(T, U, a, b)                                                     \
    ((a).v < (b).v ? (a) : (a).v > (b).v ? (b) : TN_E_LOC_TIE(T, U, a, b))

/* b[i] = F(a[i], b[i]) for i < count: blocks of known length, then a tail. */
#define TN_OP_LOOP(T, U, F)                                                         \
    do {                                                                            \
        const T *a_ = in;                                                           \
        T *b_ = inout;                                                              \
        size_t n_ = count;                                                          \
        for (; n_ >= TN_OP_BLOCK; n_ -= TN_OP_BLOCK, a_ += TN_OP_BLOCK, b_ += TN_OP_BLOCK) { \
            for (size_t i_ = 0; i_ < TN_OP_BLOCK; i_++) {                           \
                b_[i_] = F(T, U, a_[i_], b_[i_]);                                   \
            }                                                                       \
        }                                                                           \
        for (size_t i_ = 0; i_ < n_; i_++) {                                        \
            b_[i_] = F(T, U, a_[i_], b_[i_]);                                       \
        }                                                                           \
    } while (0)

#define TN_OP_CASE(K, T, U, F) case K: TN_OP_LOOP(T, U, F); return TN_OK;

typedef tn_status_t (tn_op_kernel_fn_t)(tn_dt_kind_t kind, const void *restrict in,
                                        void *restrict inout, size_t count);

/* gcc only: clang 14's ThinLTO crashes linking target_clones; not under
 * the sanitizers, whose run-times and ifunc resolvers do not mix */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&                    \
    !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
#define TN_OP_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TN_OP_CLONES
#endif

#define TN_OP_KERNEL(name, ...)                                                     \
    TN_OP_CLONES                                                                    \
    static tn_status_t name(tn_dt_kind_t kind, const void *restrict in,            \
                            void *restrict inout, size_t count)                     \
    {                                                                               \
        switch (kind) {                                                             \
        __VA_ARGS__                                                                 \
        default:                                                                    \
            return TN_ERR_INVAL;                                                    \
        }                                                                           \
    }

TN_OP_KERNEL(tn_op_k_sum,
             TN_INT_KINDS(TN_OP_CASE, TN_E_SUM_I)
             TN_FLOAT_KINDS(TN_OP_CASE, TN_E_SUM_F)
             TN_COMPLEX_KINDS(TN_OP_CASE, TN_E_SUM_C))
TN_OP_KERNEL(tn_op_k_prod,
             TN_INT_KINDS(TN_OP_CASE, TN_E_PROD_I)
             TN_FLOAT_KINDS(TN_OP_CASE, TN_E_PROD_F)
             TN_COMPLEX_KINDS(TN_OP_CASE, TN_E_PROD_C))
TN_OP_KERNEL(tn_op_k_max,
             TN_INT_KINDS(TN_OP_CASE, TN_E_MAX)
             TN_FLOAT_KINDS(TN_OP_CASE, TN_E_MAX))
TN_OP_KERNEL(tn_op_k_min,
             TN_INT_KINDS(TN_OP_CASE, TN_E_MIN)
             TN_FLOAT_KINDS(TN_OP_CASE, TN_E_MIN))
TN_OP_KERNEL(tn_op_k_land,
             TN_INT_KINDS(TN_OP_CASE, TN_E_LAND)
             TN_LOGICAL_KINDS(TN_OP_CASE, TN_E_LAND))
TN_OP_KERNEL(tn_op_k_lor,
             TN_INT_KINDS(TN_OP_CASE, TN_E_LOR)
             TN_LOGICAL_KINDS(TN_OP_CASE, TN_E_LOR))
TN_OP_KERNEL(tn_op_k_lxor,
             TN_INT_KINDS(TN_OP_CASE, TN_E_LXOR)
             TN_LOGICAL_KINDS(TN_OP_CASE, TN_E_LXOR))
TN_OP_KERNEL(tn_op_k_band,
             TN_INT_KINDS(TN_OP_CASE, TN_E_BAND)
             TN_BYTE_KINDS(TN_OP_CASE, TN_E_BAND))
TN_OP_KERNEL(tn_op_k_bor,
             TN_INT_KINDS(TN_OP_CASE, TN_E_BOR)
             TN_BYTE_KINDS(TN_OP_CASE, TN_E_BOR))
TN_OP_KERNEL(tn_op_k_bxor,
             TN_INT_KINDS(TN_OP_CASE, TN_E_BXOR)
             TN_BYTE_KINDS(TN_OP_CASE, TN_E_BXOR))
TN_OP_KERNEL(tn_op_k_maxloc, TN_PAIR_KINDS(TN_OP_CASE, TN_E_MAXLOC))
TN_OP_KERNEL(tn_op_k_minloc, TN_PAIR_KINDS(TN_OP_CASE, TN_E_MINLOC))

static tn_op_kernel_fn_t *const tn_op_kernels[TN_OP_TABLE_SIZE] = {
    [TN_OP_SUM - TN_OP_HANDLE_BASE]    = tn_op_k_sum,
    [TN_OP_MIN - TN_OP_HANDLE_BASE]    = tn_op_k_min,
    [TN_OP_MAX - TN_OP_HANDLE_BASE]    = tn_op_k_max,
    [TN_OP_PROD - TN_OP_HANDLE_BASE]   = tn_op_k_prod,
    [TN_OP_BAND - TN_OP_HANDLE_BASE]   = tn_op_k_band,
    [TN_OP_BOR - TN_OP_HANDLE_BASE]    = tn_op_k_bor,
    [TN_OP_BXOR - TN_OP_HANDLE_BASE]   = tn_op_k_bxor,
    [TN_OP_LAND - TN_OP_HANDLE_BASE]   = tn_op_k_land,
    [TN_OP_LOR - TN_OP_HANDLE_BASE]    = tn_op_k_lor,
    [TN_OP_LXOR - TN_OP_HANDLE_BASE]   = tn_op_k_lxor,
    [TN_OP_MINLOC - TN_OP_HANDLE_BASE] = tn_op_k_minloc,
    [TN_OP_MAXLOC - TN_OP_HANDLE_BASE] = tn_op_k_maxloc,
};

/* ---- user ops ----------------------------------------------------------- */

tn_status_t tn_op_create(tn_op_user_fn_t *fn, tn_op_user_c_fn_t *c_fn, int commutative,
                         tn_op_t **op_p)
{
    tn_op_t *op;

    if ((fn == NULL) == (c_fn == NULL)) {
        return TN_ERR_INVAL;
    }
    op = calloc(1, sizeof(*op));
    if (op == NULL) {
        return TN_ERR_NOMEM;
    }
    if (tn_objreg_add(op, TN_OBJ_OP) != TN_OK) {
        free(op);
        return TN_ERR_NOMEM;
    }
    op->magic = TN_OP_MAGIC;
    op->name = "user-defined op";
    op->commutative = commutative != 0;
    op->categories = TN_OP_ANY_TYPE;
    op->user_fn = fn;
    op->user_c_fn = c_fn;
    op->refcount = 1;
    *op_p = op;
    return TN_OK;
}

/* Heap ops are never const objects: casting the qualifier away is sound. */
void tn_op_retain(const tn_op_t *op)
{
    if (!op->predefined) {
        __atomic_add_fetch(&((tn_op_t *)op)->refcount, 1, __ATOMIC_RELAXED);
    }
}

void tn_op_release(const tn_op_t *op)
{
    tn_op_t *uop = (tn_op_t *)op;

    if (op->predefined) {
        return;
    }
    if (__atomic_sub_fetch(&uop->refcount, 1, __ATOMIC_ACQ_REL) == 0) {
        uop->magic = 0;      /* a stale handle now fails the magic check */
        tn_objreg_del(uop);
        free(uop);
    }
}

static tn_status_t tn_op_apply_user(const tn_op_t *op, const tn_dt_t *dt,
                                    uintptr_t dt_handle, const void *in, void *inout,
                                    size_t count)
{
    /* the user function gets a pointer to an MPI_Datatype: a handle is a
     * pointer-sized value, so a void * holding it has the same representation */
    void *h = (void *)dt_handle;
    const char *a = in;
    char *b = inout;

    if (op->user_c_fn != NULL) {
        int64_t len = (int64_t)count;
        op->user_c_fn((void *)a, b, &len, &h);
        return TN_OK;
    }
    while (count > 0) {
        int chunk = count > (size_t)INT_MAX ? INT_MAX : (int)count;
        int len = chunk;     /* the callee may scribble on it */
        op->user_fn((void *)a, b, &len, &h);
        a += (ptrdiff_t)chunk * dt->extent;
        b += (ptrdiff_t)chunk * dt->extent;
        count -= (size_t)chunk;
    }
    return TN_OK;
}

/* ---- derived types ------------------------------------------------------- */

/* Homogeneous derived types: the op runs on the user layout, one kernel call
 * per segment (each segment is a whole number of basic elements, since a
 * basic type without padding is one segment itself). */
typedef struct {
    tn_op_kernel_fn_t *kernel;
    tn_dt_kind_t       kind;
    size_t             esize, align;
    const char        *in;
    char              *inout;
    tn_status_t        st;
} tn_op_seg_arg_t;

static int tn_op_seg(ptrdiff_t off, size_t len, void *arg)
{
    tn_op_seg_arg_t *a = arg;
    const char *x = a->in + off;
    char *y = a->inout + off;

    if (((uintptr_t)x | (uintptr_t)y) & (a->align - 1)) {
        /* a layout that puts elements at unaligned addresses: the kernels
         * read typed values, so go through aligned copies */
        char *tx = malloc(len), *ty = malloc(len);
        a->st = TN_ERR_NOMEM;
        if (tx != NULL && ty != NULL) {
            memcpy(tx, x, len);
            memcpy(ty, y, len);
            a->st = a->kernel(a->kind, tx, ty, len / a->esize);
            memcpy(y, ty, len);
        }
        free(tx);
        free(ty);
    } else {
        a->st = a->kernel(a->kind, x, y, len / a->esize);
    }
    return a->st != TN_OK;
}

/* A basic pair type with padding (MPI_DOUBLE_INT, ...): its elements are
 * not whole segments, so gather both operands into arrays of the pair's C
 * layout, reduce, and scatter the result back. */
static tn_status_t tn_op_apply_padded(tn_op_kernel_fn_t *kernel, const tn_dt_t *dt,
                                      const void *in, void *inout, size_t count)
{
    const tn_dt_t *b = dt->basic;
    size_t n = count * (dt->size / b->size), bytes = count * dt->size;
    char *packed = malloc(bytes);
    char *ta = malloc(n * (size_t)b->extent), *tb = malloc(n * (size_t)b->extent);
    tn_status_t st = TN_ERR_NOMEM;

    if (packed != NULL && ta != NULL && tb != NULL) {
        tn_dt_pack(dt, in, count, packed);
        tn_dt_unpack(b, packed, n, ta);
        tn_dt_pack(dt, inout, count, packed);
        tn_dt_unpack(b, packed, n, tb);
        st = kernel(b->kind, ta, tb, n);
        if (st == TN_OK) {
            tn_dt_pack(b, tb, n, packed);
            tn_dt_unpack(dt, packed, count, inout);
        }
    }
    free(packed);
    free(ta);
    free(tb);
    return st;
}

static tn_status_t tn_op_apply_derived(const tn_op_t *op, const tn_dt_t *dt, const void *in,
                                       void *inout, size_t count)
{
    tn_op_kernel_fn_t *kernel;
    tn_op_seg_arg_t a;

    switch (op->handle) {
    case TN_OP_NO_OP:
        return TN_OK;
    case TN_OP_REPLACE:
        tn_dt_copy(dt, in, count, dt, inout, count, tn_dt_bytes(dt, count));
        return TN_OK;
    default:
        break;
    }
    kernel = tn_op_kernels[op->handle - TN_OP_HANDLE_BASE];
    if (!dt->basic->is_contig) {
        return tn_op_apply_padded(kernel, dt, in, inout, count);
    }
    a.kernel = kernel;
    a.kind = dt->basic->kind;
    a.esize = dt->basic->size;
    a.align = dt->basic->align;
    a.in = in;
    a.inout = inout;
    a.st = TN_OK;
    (void)tn_dt_foreach_seg(dt, count, tn_op_seg, &a);
    return a.st;
}

/* ---- apply -------------------------------------------------------------- */

/* A predefined type at an address not aligned for it (a byte displacement
 * into a window, a user's char buffer): the kernels read typed values, so
 * go through aligned copies, a stack buffer's worth at a time.  The last
 * element's trailing padding (pair types) is not copied: the buffer may
 * end at its data (one element of a window). */
static tn_status_t tn_op_apply_unaligned(tn_op_kernel_fn_t *kernel, const tn_dt_t *dt,
                                         const char *in, char *inout, size_t count)
{
    _Alignas(64) char ta[2048], tb[2048];
    size_t ext = (size_t)dt->extent, per = sizeof(ta) / ext;
    while (count > 0) {
        size_t n = count < per ? count : per;
        size_t bytes = (n - 1) * ext + (size_t)(dt->true_lb + dt->true_extent);
        memcpy(ta, in, bytes);
        memcpy(tb, inout, bytes);
        tn_status_t st = kernel(dt->kind, ta, tb, n);
        if (st != TN_OK) {
            return st;
        }
        memcpy(inout, tb, bytes);
        in += n * ext;
        inout += n * ext;
        count -= n;
    }
    return TN_OK;
}

tn_status_t tn_op_apply(const tn_op_t *op, const tn_dt_t *dt, uintptr_t dt_handle,
                        const void *in, void *inout, size_t count)
{
    if (count == 0) {
        return tn_op_valid_for(op, dt) ? TN_OK : TN_ERR_INVAL;
    }
    if (!op->predefined) {
        return tn_op_apply_user(op, dt, dt_handle, in, inout, count);
    }
    if (!tn_op_valid_for(op, dt)) {
        return TN_ERR_INVAL;
    }
    if (!dt->predefined) {
        return tn_op_apply_derived(op, dt, in, inout, count);
    }
    switch (op->handle) {
    case TN_OP_NO_OP:
        return TN_OK;
    case TN_OP_REPLACE:
        /* a predefined element is extent bytes; its padding is not data */
        memcpy(inout, in, count * (size_t)dt->extent);
        return TN_OK;
    default:
        if (dt->align > 1 && (((uintptr_t)in | (uintptr_t)inout) & (dt->align - 1))) {
            return tn_op_apply_unaligned(tn_op_kernels[op->handle - TN_OP_HANDLE_BASE], dt,
                                         in, inout, count);
        }
        return tn_op_kernels[op->handle - TN_OP_HANDLE_BASE](dt->kind, in, inout, count);
    }
}
