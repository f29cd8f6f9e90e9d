/* The predefined datatypes of the MPI-5.0 ABI.
 *
 * One entry per handle value 0x201..0x2ff (0x200 is MPI_DATATYPE_NULL, not a
 * type); holes in the ABI numbering stay zeroed (magic 0) and are rejected.
 * Sizes and kinds come from the C types of this platform (sizeof), so the
 * table is right on LP64 and ILP32 alike; Fortran types assume the usual
 * default kinds (INTEGER, REAL and LOGICAL of 4 bytes).  The unit test checks
 * every entry against sizeof/offsetof and against the handles of mpi.h.
 *
 * Each entry is also its own one-segment (or, for a pair with a gap, two-
 * segment) layout and its own one-run signature, so that pack/unpack and the
 * constructors treat predefined and derived types alike.
 *
 * The table is writable only for user_name (MPI_Type_set_name). */
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>
#include "dt/dt.h"

#define TN_DT_HANDLE_BASE 0x200u
#define TN_DT_TABLE_SIZE  0x100u

/* Pair types (MINLOC/MAXLOC) as C lays them out: value, then index. */
typedef struct { float v;       int i; } tn_dt_float_int_t;
typedef struct { double v;      int i; } tn_dt_double_int_t;
typedef struct { long v;        int i; } tn_dt_long_int_t;
typedef struct { int v;         int i; } tn_dt_2int_t;
typedef struct { short v;       int i; } tn_dt_short_int_t;
typedef struct { long double v; int i; } tn_dt_long_double_int_t;

/* Element kind of a C integer type, by size. */
#define TN_SKIND(T) (sizeof(T) == 1 ? TN_DK_INT8 : sizeof(T) == 2 ? TN_DK_INT16 :   \
                     sizeof(T) == 4 ? TN_DK_INT32 : TN_DK_INT64)
#define TN_UKIND(T) (sizeof(T) == 1 ? TN_DK_UINT8 : sizeof(T) == 2 ? TN_DK_UINT16 : \
                     sizeof(T) == 4 ? TN_DK_UINT32 : TN_DK_UINT64)

#define C_INT   TN_DC_C_INT
#define F_INT   TN_DC_F_INT
#define FLT     TN_DC_FLOAT
#define LOGICAL TN_DC_LOGICAL
#define CPLX    TN_DC_COMPLEX
#define BYTE    TN_DC_BYTE
#define MULTI   TN_DC_MULTI_LANG
#define PAIR    TN_DC_PAIR

/* Fields every entry shares: committed, one run of itself in its signature,
 * its own basic type, and a layout with no loops. */
#define TN_SELF(hval) tn_dt_table[(hval) - TN_DT_HANDLE_BASE]
#define DT_COMMON(hval)                                                             \
    .magic = TN_DT_MAGIC, .predefined = 1, .handle = (hval),                        \
    .combiner = TN_DT_COMBINER_NAMED, .committed = 1, .refcount = 1,                \
    .segs = TN_SELF(hval).seg_inline, .runs = TN_SELF(hval).run_inline,             \
    .nruns = 1, .run_rep = 1, .run_inline = { { &TN_SELF(hval), 1 } },               \
    .basic = &TN_SELF(hval)

/* A type of nbytes bytes with no holes, aligned to algn. */
#define DT_NA(hval, nm, nbytes, algn, knd, cat)                                     \
    [(hval) - TN_DT_HANDLE_BASE] = {                                                \
        DT_COMMON(hval), .name = (nm),                                              \
        .size = (nbytes), .lb = 0, .extent = (ptrdiff_t)(nbytes),                   \
        .true_lb = 0, .true_extent = (ptrdiff_t)(nbytes), .is_contig = 1,           \
        .kind = (knd), .category = (cat), .align = (algn), .nbasic = 1,             \
        .nsegs = 1, .leaf_size = (nbytes), .seg_inline = { { 0, (nbytes), 0 } } }
#define DT_N(hval, nm, nbytes, knd, cat) DT_NA(hval, nm, nbytes, 1, knd, cat)
#define DT(hval, nm, T, knd, cat) DT_NA(hval, nm, sizeof(T), _Alignof(T), knd, cat)
/* A pair struct P {v; i}: size counts the data only, extent the struct; one
 * segment when the index follows the value without a gap, else two. */
#define TN_PV(P)   sizeof(((P *)0)->v)
#define TN_PI(P)   sizeof(((P *)0)->i)
#define TN_PADJ(P) (offsetof(P, i) == TN_PV(P))
#define DT_PAIR(hval, nm, P, knd)                                                   \
    [(hval) - TN_DT_HANDLE_BASE] = {                                                \
        DT_COMMON(hval), .name = (nm),                                              \
        .size = TN_PV(P) + TN_PI(P),                                                \
        .lb = 0, .extent = sizeof(P),                                               \
        .true_lb = 0, .true_extent = offsetof(P, i) + TN_PI(P),                     \
        .is_contig = TN_PV(P) + TN_PI(P) == sizeof(P),                              \
        .kind = (knd), .category = PAIR, .align = _Alignof(P), .nbasic = 2,         \
        .leaf_size = TN_PV(P) + TN_PI(P), .nsegs = TN_PADJ(P) ? 1 : 2,              \
        .seg_inline = { { 0, TN_PADJ(P) ? TN_PV(P) + TN_PI(P) : TN_PV(P), 0 },      \
                        { (ptrdiff_t)offsetof(P, i), TN_PI(P), TN_PV(P) } } }
/* Fortran pairs: two of the same type T, no padding */
#define DT_PAIR2(hval, nm, T, knd)                                                  \
    [(hval) - TN_DT_HANDLE_BASE] = {                                                \
        DT_COMMON(hval), .name = (nm),                                              \
        .size = 2 * sizeof(T), .lb = 0, .extent = 2 * sizeof(T),                    \
        .true_lb = 0, .true_extent = 2 * sizeof(T), .is_contig = 1,                 \
        .kind = (knd), .category = PAIR, .align = _Alignof(T), .nbasic = 2,         \
        .nsegs = 1, .leaf_size = 2 * sizeof(T), .seg_inline = { { 0, 2 * sizeof(T), 0 } } }

/* Handle values are those of tools/abi/constants.tsv (checked by the unit
 * test against mpi.h; MPI_LONG_LONG_INT and MPI_C_COMPLEX are aliases). */
static tn_dt_t tn_dt_table[TN_DT_TABLE_SIZE];
static tn_dt_t tn_dt_table[TN_DT_TABLE_SIZE] = {
    /* multi-language types */
    DT(0x201, "MPI_AINT",   intptr_t, TN_SKIND(intptr_t), MULTI),
    DT(0x202, "MPI_COUNT",  int64_t,  TN_DK_INT64, MULTI),
    DT(0x203, "MPI_OFFSET", int64_t,  TN_DK_INT64, MULTI),
    /* MPI_PACKED moves like bytes but no reduction is defined on it */
    DT_N(0x207, "MPI_PACKED", 1, TN_DK_BYTE, 0),

    /* C integers */
    DT(0x208, "MPI_SHORT",              short,              TN_SKIND(short), C_INT),
    DT(0x209, "MPI_INT",                int,                TN_SKIND(int), C_INT),
    DT(0x20a, "MPI_LONG",               long,               TN_SKIND(long), C_INT),
    DT(0x20b, "MPI_LONG_LONG",          long long,          TN_SKIND(long long), C_INT),
    DT(0x20c, "MPI_UNSIGNED_SHORT",     unsigned short,     TN_UKIND(unsigned short), C_INT),
    DT(0x20d, "MPI_UNSIGNED",           unsigned,           TN_UKIND(unsigned), C_INT),
    DT(0x20e, "MPI_UNSIGNED_LONG",      unsigned long,      TN_UKIND(unsigned long), C_INT),
    DT(0x20f, "MPI_UNSIGNED_LONG_LONG", unsigned long long, TN_UKIND(unsigned long long), C_INT),

    /* C floating point and complex (C and C++ complex share the layout) */
    DT(0x210, "MPI_FLOAT",                   float,                TN_DK_FLOAT, FLT),
    DT(0x212, "MPI_C_FLOAT_COMPLEX",         float _Complex,       TN_DK_C_FLOAT_COMPLEX, CPLX),
    DT(0x213, "MPI_CXX_FLOAT_COMPLEX",       float _Complex,       TN_DK_C_FLOAT_COMPLEX, CPLX),
    DT(0x214, "MPI_DOUBLE",                  double,               TN_DK_DOUBLE, FLT),
    DT(0x216, "MPI_C_DOUBLE_COMPLEX",        double _Complex,      TN_DK_C_DOUBLE_COMPLEX, CPLX),
    DT(0x217, "MPI_CXX_DOUBLE_COMPLEX",      double _Complex,      TN_DK_C_DOUBLE_COMPLEX, CPLX),
    DT(0x220, "MPI_LONG_DOUBLE",             long double,          TN_DK_LONG_DOUBLE, FLT),
    DT(0x224, "MPI_C_LONG_DOUBLE_COMPLEX",   long double _Complex, TN_DK_C_LONG_DOUBLE_COMPLEX, CPLX),
    DT(0x225, "MPI_CXX_LONG_DOUBLE_COMPLEX", long double _Complex, TN_DK_C_LONG_DOUBLE_COMPLEX, CPLX),

    /* Fortran default kinds */
    DT(0x218, "MPI_LOGICAL",          int32_t, TN_DK_FLOGICAL4, LOGICAL),
    DT(0x219, "MPI_INTEGER",          int32_t, TN_DK_INT32, F_INT),
    DT(0x21a, "MPI_REAL",             float,   TN_DK_FLOAT, FLT),
    DT(0x21b, "MPI_COMPLEX",          float _Complex, TN_DK_C_FLOAT_COMPLEX, CPLX),
    DT(0x21c, "MPI_DOUBLE_PRECISION", double,  TN_DK_DOUBLE, FLT),
    DT(0x21d, "MPI_DOUBLE_COMPLEX",   double _Complex, TN_DK_C_DOUBLE_COMPLEX, CPLX),
    DT_N(0x21e, "MPI_CHARACTER",      1, TN_DK_CHAR, 0),

    /* pair types */
    DT_PAIR(0x228, "MPI_FLOAT_INT",       tn_dt_float_int_t,       TN_DK_FLOAT_INT),
    DT_PAIR(0x229, "MPI_DOUBLE_INT",      tn_dt_double_int_t,      TN_DK_DOUBLE_INT),
    DT_PAIR(0x22a, "MPI_LONG_INT",        tn_dt_long_int_t,        TN_DK_LONG_INT),
    DT_PAIR(0x22b, "MPI_2INT",            tn_dt_2int_t,            TN_DK_2INT),
    DT_PAIR(0x22c, "MPI_SHORT_INT",       tn_dt_short_int_t,       TN_DK_SHORT_INT),
    DT_PAIR(0x22d, "MPI_LONG_DOUBLE_INT", tn_dt_long_double_int_t, TN_DK_LONG_DOUBLE_INT),
    /* Fortran pairs: two of the same type, no padding */
    DT_PAIR2(0x230, "MPI_2REAL",             float,   TN_DK_2FLOAT),
    DT_PAIR2(0x231, "MPI_2DOUBLE_PRECISION", double,  TN_DK_2DOUBLE),
    DT_PAIR2(0x232, "MPI_2INTEGER",          int32_t, TN_DK_2INT32F),

    /* booleans and characters (characters are not reducible) */
    DT(0x238, "MPI_C_BOOL",   _Bool,   TN_DK_BOOL, LOGICAL),
    DT(0x239, "MPI_CXX_BOOL", _Bool,   TN_DK_BOOL, LOGICAL),
    DT(0x23c, "MPI_WCHAR",    wchar_t, TN_DK_WCHAR, 0),
    DT(0x243, "MPI_CHAR",     char,    TN_DK_CHAR, TN_DC_CHAR),

    /* fixed-size C integers, bytes */
    DT(0x240, "MPI_INT8_T",        int8_t,        TN_DK_INT8, C_INT),
    DT(0x241, "MPI_UINT8_T",       uint8_t,       TN_DK_UINT8, C_INT),
    DT(0x244, "MPI_SIGNED_CHAR",   signed char,   TN_SKIND(signed char), C_INT),
    DT(0x245, "MPI_UNSIGNED_CHAR", unsigned char, TN_UKIND(unsigned char), C_INT),
    DT_N(0x247, "MPI_BYTE",        1,             TN_DK_BYTE, BYTE),
    DT(0x248, "MPI_INT16_T",       int16_t,       TN_DK_INT16, C_INT),
    DT(0x249, "MPI_UINT16_T",      uint16_t,      TN_DK_UINT16, C_INT),
    DT(0x250, "MPI_INT32_T",       int32_t,       TN_DK_INT32, C_INT),
    DT(0x251, "MPI_UINT32_T",      uint32_t,      TN_DK_UINT32, C_INT),
    DT(0x258, "MPI_INT64_T",       int64_t,       TN_DK_INT64, C_INT),
    DT(0x259, "MPI_UINT64_T",      uint64_t,      TN_DK_UINT64, C_INT),

    /* Fortran sized types.  REAL2, REAL16, COMPLEX4, COMPLEX32, INTEGER16 and
     * LOGICAL16 have no C type here (no half/quad float or 128-bit integer
     * kernels): they move as bytes and carry their standard category, but
     * kind NONE, so no reduction accepts them except REPLACE/NO_OP. */
    DT(0x2c0, "MPI_LOGICAL1",   int8_t,  TN_DK_FLOGICAL1, LOGICAL),
    DT(0x2c1, "MPI_INTEGER1",   int8_t,  TN_DK_INT8, F_INT),
    DT(0x2c8, "MPI_LOGICAL2",   int16_t, TN_DK_FLOGICAL2, LOGICAL),
    DT(0x2c9, "MPI_INTEGER2",   int16_t, TN_DK_INT16, F_INT),
    DT_NA(0x2ca, "MPI_REAL2",   2, 2,     TN_DK_NONE, FLT),
    DT(0x2d0, "MPI_LOGICAL4",   int32_t, TN_DK_FLOGICAL4, LOGICAL),
    DT(0x2d1, "MPI_INTEGER4",   int32_t, TN_DK_INT32, F_INT),
    DT(0x2d2, "MPI_REAL4",      float,   TN_DK_FLOAT, FLT),
    DT_NA(0x2d3, "MPI_COMPLEX4", 4, 2,    TN_DK_NONE, CPLX),
    DT(0x2d8, "MPI_LOGICAL8",   int64_t, TN_DK_FLOGICAL8, LOGICAL),
    DT(0x2d9, "MPI_INTEGER8",   int64_t, TN_DK_INT64, F_INT),
    DT(0x2da, "MPI_REAL8",      double,  TN_DK_DOUBLE, FLT),
    DT(0x2db, "MPI_COMPLEX8", float _Complex, TN_DK_C_FLOAT_COMPLEX, CPLX),
    DT_NA(0x2e0, "MPI_LOGICAL16", 16, 16, TN_DK_NONE, LOGICAL),
    DT_NA(0x2e1, "MPI_INTEGER16", 16, 16, TN_DK_NONE, F_INT),
    DT_NA(0x2e2, "MPI_REAL16",    16, 16, TN_DK_NONE, FLT),
    DT(0x2e3, "MPI_COMPLEX16", double _Complex, TN_DK_C_DOUBLE_COMPLEX, CPLX),
    DT_NA(0x2eb, "MPI_COMPLEX32", 32, 16, TN_DK_NONE, CPLX),
};

const tn_dt_t *tn_dt_predefined(uintptr_t handle)
{
    const tn_dt_t *dt;

    if (handle < TN_DT_HANDLE_BASE || handle >= TN_DT_HANDLE_BASE + TN_DT_TABLE_SIZE) {
        return NULL;
    }
    dt = &tn_dt_table[handle - TN_DT_HANDLE_BASE];
    return dt->magic == TN_DT_MAGIC ? dt : NULL;
}

const tn_dt_t *tn_dt_byte(void)
{
    return &tn_dt_table[0x247 - TN_DT_HANDLE_BASE];   /* MPI_BYTE */
}

int tn_dt_predefined_count(void)
{
    int n = 0;

    for (unsigned i = 0; i < TN_DT_TABLE_SIZE; i++) {
        n += tn_dt_table[i].magic == TN_DT_MAGIC;
    }
    return n;
}

const tn_dt_t *tn_dt_predefined_at(int idx)
{
    for (unsigned i = 0; i < TN_DT_TABLE_SIZE; i++) {
        if (tn_dt_table[i].magic == TN_DT_MAGIC && idx-- == 0) {
            return &tn_dt_table[i];
        }
    }
    return NULL;
}
