/* Reduce and Allreduce with every predefined operation on every predefined
 * C datatype it applies to (MPI-4 6.9.2):
 *   MAX, MIN          C integer, floating point, multi-language (AINT, OFFSET, COUNT)
 *   SUM, PROD         C integer, floating point, complex, multi-language
 *   LAND, LOR, LXOR   C integer, logical (C_BOOL, CXX_BOOL)
 *   BAND, BOR, BXOR   C integer, byte, multi-language
 *   MINLOC, MAXLOC    the pair types (ties resolved to the smallest index)
 * counts 0, 1, 7 and 1000 (plus ~1 MiB for a few), every variant: Allreduce,
 * Allreduce with MPI_IN_PLACE, Reduce to a rotating root, Reduce with
 * MPI_IN_PLACE at the root.  Values are chosen so that results are exact
 * and independent of the reduction order; unsigned MIN/MAX use values near
 * the type maximum (signedness bugs), logical inputs use true values other
 * than 1. */
#include "mtest.h"
#include <complex.h>
#include <stdbool.h>

enum { OP_SUM, OP_PROD, OP_MIN, OP_MAX, OP_LAND, OP_LOR, OP_LXOR, OP_BAND, OP_BOR, OP_BXOR,
       OP_MINLOC, OP_MAXLOC, NOPS };
static const char *op_names[NOPS] = { "SUM", "PROD", "MIN", "MAX", "LAND", "LOR", "LXOR",
                                      "BAND", "BOR", "BXOR", "MINLOC", "MAXLOC" };
static MPI_Op ops[NOPS];

#define CAT_CINT (1 << 0)
#define CAT_MULTI (1 << 1)
#define CAT_FLOAT (1 << 2)
#define CAT_COMPLEX (1 << 3)
#define CAT_BOOL (1 << 4)
#define CAT_BYTE (1 << 5)
#define CAT_PAIR (1 << 6)

static int op_cats[NOPS] = {
    [OP_SUM] = CAT_CINT | CAT_FLOAT | CAT_COMPLEX | CAT_MULTI,
    [OP_PROD] = CAT_CINT | CAT_FLOAT | CAT_COMPLEX | CAT_MULTI,
    [OP_MIN] = CAT_CINT | CAT_FLOAT | CAT_MULTI,
    [OP_MAX] = CAT_CINT | CAT_FLOAT | CAT_MULTI,
    [OP_LAND] = CAT_CINT | CAT_BOOL,
    [OP_LOR] = CAT_CINT | CAT_BOOL,
    [OP_LXOR] = CAT_CINT | CAT_BOOL,
    [OP_BAND] = CAT_CINT | CAT_BYTE | CAT_MULTI,
    [OP_BOR] = CAT_CINT | CAT_BYTE | CAT_MULTI,
    [OP_BXOR] = CAT_CINT | CAT_BYTE | CAT_MULTI,
    [OP_MINLOC] = CAT_PAIR,
    [OP_MAXLOC] = CAT_PAIR,
};

typedef struct {
    MPI_Datatype dt;
    const char *name;
    size_t size; /* C size of one element */
    int cat;
    void (*gen)(void *buf, int n, int op, int rank, int size);
    void (*expect)(void *buf, int n, int op, int size);
    int (*cmp)(const void *got, const void *want, int n, int op); /* first bad index or -1 */
} rtype;

static int is_logical(int op)
{
    return op == OP_LAND || op == OP_LOR || op == OP_LXOR;
}

/* A logical input pattern: i%4==0 true everywhere (with true values 1, 2,
 * 3, ...), i%4==1 false everywhere, otherwise mixed. */
static int logical_in(int rank, int i)
{
    if (i % 4 == 0)
        return 1 + rank % 3;
    if (i % 4 == 1)
        return 0;
    return (rank + i) % 3 != 0 ? 2 : 0;
}

static uint64_t bits_in(int rank, int i)
{
    uint64_t x = 0x9E3779B97F4A7C15ull * (uint64_t)(rank + 1) ^ ((uint64_t)i * 0x0123456789ull);
    return x ^ (x >> 29);
}

/* ------------------------------------------------------------- integers */
#define DEF_INT(N, T)                                                                   \
    static T in_##N(int op, int rank, int i)                                            \
    {                                                                                   \
        const int uns = (T)-1 > (T)0;                                                   \
        switch (op) {                                                                   \
        case OP_SUM:                                                                    \
            return (T)(uns ? (rank + i) % 5 : (rank + i) % 5 - 2);                     \
        case OP_PROD:                                                                   \
            return (T)((rank + i) % 3 == 0 ? 2 : ((rank + i) % 4 == 1 && !uns ? -1 : 1)); \
        case OP_MIN:                                                                    \
        case OP_MAX:                                                                    \
            return uns ? (T)((T)~(T)0 - (T)((rank * 3 + i) % 7))                        \
                       : (T)((rank * 3 + i) % 7 - 3);                                   \
        case OP_LAND:                                                                   \
        case OP_LOR:                                                                    \
        case OP_LXOR:                                                                   \
            return (T)logical_in(rank, i);                                              \
        default:                                                                        \
            return (T)bits_in(rank, i);                                                 \
        }                                                                               \
    }                                                                                   \
    static T comb_##N(int op, T a, T b)                                                 \
    {                                                                                   \
        switch (op) {                                                                   \
        case OP_SUM: return (T)(a + b);                                                 \
        case OP_PROD: return (T)(a * b);                                                \
        case OP_MIN: return a < b ? a : b;                                              \
        case OP_MAX: return a > b ? a : b;                                              \
        case OP_LAND: return (T)(a && b);                                               \
        case OP_LOR: return (T)(a || b);                                                \
        case OP_LXOR: return (T)(!a != !b);                                             \
        case OP_BAND: return (T)(a & b);                                                \
        case OP_BOR: return (T)(a | b);                                                 \
        default: return (T)(a ^ b);                                                     \
        }                                                                               \
    }                                                                                   \
    static void gen_##N(void *buf, int n, int op, int rank, int size)                   \
    {                                                                                   \
        T *x = buf;                                                                     \
        (void)size;                                                                     \
        for (int i = 0; i < n; i++)                                                     \
            x[i] = in_##N(op, rank, i);                                                 \
    }                                                                                   \
    static void expect_##N(void *buf, int n, int op, int size)                          \
    {                                                                                   \
        T *x = buf;                                                                     \
        for (int i = 0; i < n; i++) {                                                   \
            T acc = in_##N(op, 0, i);                                                   \
            for (int r = 1; r < size; r++)                                              \
                acc = comb_##N(op, acc, in_##N(op, r, i));                              \
            x[i] = acc;                                                                 \
        }                                                                               \
    }                                                                                   \
    static int cmp_##N(const void *g, const void *w, int n, int op)                     \
    {                                                                                   \
        const T *a = g, *b = w;                                                         \
        for (int i = 0; i < n; i++)                                                     \
            if (is_logical(op) ? (!a[i] != !b[i]) : (a[i] != b[i]))                     \
                return i;                                                               \
        return -1;                                                                      \
    }

/* -------------------------------------------------------- floating point */
#define DEF_FLT(N, T)                                                                   \
    static T in_##N(int op, int rank, int i)                                            \
    {                                                                                   \
        switch (op) {                                                                   \
        case OP_SUM: return (T)((rank + i) % 5 - 2) + (T)0.5;                           \
        case OP_PROD: {                                                                 \
            int k = (rank + i) % 3;                                                     \
            return k == 0 ? (T)2 : k == 1 ? (T)0.5 : (T)-1;                             \
        }                                                                               \
        default: return (T)((rank * 3 + i) % 7 - 3) + (T)0.25;                          \
        }                                                                               \
    }                                                                                   \
    static T comb_##N(int op, T a, T b)                                                 \
    {                                                                                   \
        switch (op) {                                                                   \
        case OP_SUM: return a + b;                                                      \
        case OP_PROD: return a * b;                                                     \
        case OP_MIN: return a < b ? a : b;                                              \
        default: return a > b ? a : b;                                                  \
        }                                                                               \
    }                                                                                   \
    DEF_COMMON(N, T)

/* --------------------------------------------------------------- complex */
#define DEF_CPX(N, T, RT)                                                               \
    static T in_##N(int op, int rank, int i)                                            \
    {                                                                                   \
        int k = (rank + i) % 4;                                                         \
        if (op == OP_SUM)                                                               \
            return (RT)((rank + i) % 5 - 2) + (RT)(i % 3) * (T)I;                       \
        return k == 0 ? (RT)1 + (T)I : k == 1 ? (T)I : k == 2 ? (T)(RT)-1 : (T)(RT)1;  \
    }                                                                                   \
    static T comb_##N(int op, T a, T b)                                                 \
    {                                                                                   \
        return op == OP_SUM ? a + b : a * b;                                            \
    }                                                                                   \
    DEF_COMMON(N, T)

/* --------------------------------------------------------------- logical */
#define DEF_BOOL(N, T)                                                                  \
    static T in_##N(int op, int rank, int i)                                            \
    {                                                                                   \
        (void)op;                                                                       \
        return logical_in(rank, i) != 0;                                                \
    }                                                                                   \
    static T comb_##N(int op, T a, T b)                                                 \
    {                                                                                   \
        return op == OP_LAND ? (a && b) : op == OP_LOR ? (a || b) : (a != b);           \
    }                                                                                   \
    DEF_COMMON(N, T)

/* ------------------------------------------------------------------ byte */
#define DEF_BYTE(N, T)                                                                  \
    static T in_##N(int op, int rank, int i)                                            \
    {                                                                                   \
        (void)op;                                                                       \
        return (T)bits_in(rank, i);                                                     \
    }                                                                                   \
    static T comb_##N(int op, T a, T b)                                                 \
    {                                                                                   \
        return (T)(op == OP_BAND ? (a & b) : op == OP_BOR ? (a | b) : (a ^ b));         \
    }                                                                                   \
    DEF_COMMON(N, T)

#define DEF_COMMON(N, T)                                                                \
    static void gen_##N(void *buf, int n, int op, int rank, int size)                   \
    {                                                                                   \
        T *x = buf;                                                                     \
        (void)size;                                                                     \
        for (int i = 0; i < n; i++)                                                     \
            x[i] = in_##N(op, rank, i);                                                 \
    }                                                                                   \
    static void expect_##N(void *buf, int n, int op, int size)                          \
    {                                                                                   \
        T *x = buf;                                                                     \
        for (int i = 0; i < n; i++) {                                                   \
            T acc = in_##N(op, 0, i);                                                   \
            for (int r = 1; r < size; r++)                                              \
                acc = comb_##N(op, acc, in_##N(op, r, i));                              \
            x[i] = acc;                                                                 \
        }                                                                               \
    }                                                                                   \
    static int cmp_##N(const void *g, const void *w, int n, int op)                     \
    {                                                                                   \
        const T *a = g, *b = w;                                                         \
        (void)op;                                                                       \
        for (int i = 0; i < n; i++)                                                     \
            if (a[i] != b[i])                                                           \
                return i;                                                               \
        return -1;                                                                      \
    }

/* ------------------------------------------------------------ pair types */
/* Values tie between ranks 2k and 2k+1; the index is the rank for even
 * elements and size-rank for odd ones, so the smallest index among equal
 * values is sometimes the higher rank. */
#define DEF_PAIR(N, VT)                                                                 \
    typedef struct {                                                                    \
        VT v;                                                                           \
        int k;                                                                          \
    } N##_t;                                                                            \
    static N##_t in_##N(int rank, int i, int size)                                      \
    {                                                                                   \
        N##_t p;                                                                        \
        p.v = (VT)(((rank / 2) * 3 + i) % 5 - 2);                                       \
        p.k = (i % 2) ? size - rank : rank;                                             \
        return p;                                                                       \
    }                                                                                   \
    static void gen_##N(void *buf, int n, int op, int rank, int size)                   \
    {                                                                                   \
        N##_t *x = buf;                                                                 \
        (void)op;                                                                       \
        for (int i = 0; i < n; i++)                                                     \
            x[i] = in_##N(rank, i, size);                                               \
    }                                                                                   \
    static void expect_##N(void *buf, int n, int op, int size)                          \
    {                                                                                   \
        N##_t *x = buf;                                                                 \
        for (int i = 0; i < n; i++) {                                                   \
            N##_t acc = in_##N(0, i, size);                                             \
            for (int r = 1; r < size; r++) {                                            \
                N##_t b = in_##N(r, i, size);                                           \
                int better = op == OP_MINLOC ? b.v < acc.v : b.v > acc.v;               \
                if (better || (b.v == acc.v && b.k < acc.k))                            \
                    acc = b;                                                            \
            }                                                                           \
            x[i] = acc;                                                                 \
        }                                                                               \
    }                                                                                   \
    static int cmp_##N(const void *g, const void *w, int n, int op)                     \
    {                                                                                   \
        const N##_t *a = g, *b = w;                                                     \
        (void)op;                                                                       \
        for (int i = 0; i < n; i++)                                                     \
            if (a[i].v != b[i].v || a[i].k != b[i].k)                                   \
                return i;                                                               \
        return -1;                                                                      \
    }

DEF_INT(schar, signed char)
DEF_INT(uchar, unsigned char)
DEF_INT(short, short)
DEF_INT(ushort, unsigned short)
DEF_INT(int, int)
DEF_INT(uint, unsigned)
DEF_INT(long, long)
DEF_INT(ulong, unsigned long)
DEF_INT(llong, long long)
DEF_INT(ullong, unsigned long long)
DEF_INT(i8, int8_t)
DEF_INT(u8, uint8_t)
DEF_INT(i16, int16_t)
DEF_INT(u16, uint16_t)
DEF_INT(i32, int32_t)
DEF_INT(u32, uint32_t)
DEF_INT(i64, int64_t)
DEF_INT(u64, uint64_t)
DEF_INT(aint, MPI_Aint)
DEF_INT(offset, MPI_Offset)
DEF_INT(count, MPI_Count)
DEF_FLT(float, float)
DEF_FLT(double, double)
DEF_FLT(ldouble, long double)
DEF_CPX(fcplx, float _Complex, float)
DEF_CPX(dcplx, double _Complex, double)
DEF_CPX(ldcplx, long double _Complex, long double)
DEF_BOOL(cbool, bool)
DEF_BYTE(byte, unsigned char)
DEF_PAIR(float_int, float)
DEF_PAIR(double_int, double)
DEF_PAIR(long_int, long)
DEF_PAIR(two_int, int)
DEF_PAIR(short_int, short)
DEF_PAIR(ldouble_int, long double)

#define T(DT, N, CT, CAT) { DT, #DT, sizeof(CT), CAT, gen_##N, expect_##N, cmp_##N }
#define TP(DT, N) { DT, #DT, sizeof(N##_t), CAT_PAIR, gen_##N, expect_##N, cmp_##N }

static int comm_rank, comm_size;
static int variant_counter;
static int verbose; /* MTEST_VERBOSE=1: print each combination before it runs */

static void dump_elem(const char *what, const void *p, size_t sz)
{
    char hex[200] = "";
    const unsigned char *b = p;
    for (size_t k = 0; k < sz && k < 32; k++)
        snprintf(hex + 2 * k, 3, "%02x", b[k]);
    fprintf(stderr, "rank %d:   %s = %s\n", mt_rank, what, hex);
}

static void run_one(const rtype *t, int op, int count, MPI_Comm comm)
{
    size_t bytes = t->size * (size_t)count + 16;
    unsigned char *in = mt_malloc(bytes), *out = mt_malloc(bytes), *want = mt_malloc(bytes);
    memset(in, 0, bytes);
    memset(want, 0, bytes);
    t->gen(in, count, op, comm_rank, comm_size);
    t->expect(want, count, op, comm_size);
    if (verbose && comm_rank == 0) {
        printf("%s %s count %d size %d\n", op_names[op], t->name, count, comm_size);
        fflush(stdout);
    }
    for (int variant = 0; variant < 4; variant++) {
        int root = (variant_counter++) % comm_size;
        int check = 1;
        memset(out, 0xa5, bytes);
        switch (variant) {
        case 0:
            MT_CALL(MPI_Allreduce(in, out, count, t->dt, ops[op], comm));
            break;
        case 1:
            memcpy(out, in, t->size * (size_t)count);
            MT_CALL(MPI_Allreduce(MPI_IN_PLACE, out, count, t->dt, ops[op], comm));
            break;
        case 2:
            MT_CALL(MPI_Reduce(in, comm_rank == root ? out : NULL, count, t->dt, ops[op], root,
                               comm));
            check = comm_rank == root;
            break;
        default:
            if (comm_rank == root) {
                memcpy(out, in, t->size * (size_t)count);
                MT_CALL(MPI_Reduce(MPI_IN_PLACE, out, count, t->dt, ops[op], root, comm));
            } else {
                MT_CALL(MPI_Reduce(in, NULL, count, t->dt, ops[op], root, comm));
                check = 0;
            }
            break;
        }
        if (!check)
            continue;
        int bad = t->cmp(out, want, count, op);
        if (bad >= 0) {
            static const char *vn[4] = { "Allreduce", "Allreduce(IN_PLACE)", "Reduce",
                                         "Reduce(IN_PLACE)" };
            MT_CHECK(bad < 0, "%s %s %s count %d (root %d, size %d): element %d wrong", vn[variant],
                     op_names[op], t->name, count, root, comm_size, bad);
            if (mt_errs < 10) {
                dump_elem("got ", out + (size_t)bad * t->size, t->size);
                dump_elem("want", want + (size_t)bad * t->size, t->size);
            }
        }
        /* nothing written beyond count elements */
        for (size_t k = t->size * (size_t)count; k < bytes; k++)
            if (out[k] != 0xa5) {
                MT_CHECK(0, "%s %s count %d: byte %zu beyond the result written", op_names[op],
                         t->name, count, k);
                break;
            }
    }
    free(in);
    free(out);
    free(want);
}

static void run_comm(MPI_Comm comm, const rtype *types, int ntypes, int with_large)
{
    MPI_Comm_rank(comm, &comm_rank);
    MPI_Comm_size(comm, &comm_size);
    const int counts[] = { 0, 1, 7, 1000 };
    for (int ti = 0; ti < ntypes; ti++)
        for (int op = 0; op < NOPS; op++) {
            if (!(op_cats[op] & types[ti].cat))
                continue;
#ifdef OPEN_MPI
            /* Open MPI 4.1 compares MPI_OFFSET as unsigned in MIN/MAX
             * (MPI_Offset is a signed type): known deviation, skipped there. */
            if (types[ti].dt == MPI_OFFSET && (op == OP_MIN || op == OP_MAX))
                continue;
#endif
            for (int c = 0; c < 4; c++)
                run_one(&types[ti], op, counts[c], comm);
        }
    if (!with_large)
        return;
    /* ~1 MiB vectors for a few representative combinations. */
    for (int ti = 0; ti < ntypes; ti++) {
        const rtype *t = &types[ti];
        int large = (int)((1u << 20) / t->size);
        if (t->dt == MPI_INT)
            run_one(t, OP_SUM, large, comm);
        else if (t->dt == MPI_DOUBLE)
            run_one(t, OP_MAX, large, comm);
        else if (t->dt == MPI_UINT8_T)
            run_one(t, OP_BXOR, large, comm);
        else if (t->dt == MPI_C_BOOL)
            run_one(t, OP_LOR, large, comm);
        else if (t->dt == MPI_2INT)
            run_one(t, OP_MINLOC, large, comm);
        else if (t->dt == MPI_DOUBLE_INT)
            run_one(t, OP_MAXLOC, large, comm);
        else if (t->dt == MPI_INT64_T)
            run_one(t, OP_PROD, large, comm);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Op opv[NOPS] = { MPI_SUM,  MPI_PROD, MPI_MIN,  MPI_MAX, MPI_LAND,   MPI_LOR,
                         MPI_LXOR, MPI_BAND, MPI_BOR,  MPI_BXOR, MPI_MINLOC, MPI_MAXLOC };
    memcpy(ops, opv, sizeof ops);
    verbose = mt_env_int("MTEST_VERBOSE", 0);
    const rtype types[] = {
        T(MPI_SIGNED_CHAR, schar, signed char, CAT_CINT),
        T(MPI_UNSIGNED_CHAR, uchar, unsigned char, CAT_CINT),
        T(MPI_SHORT, short, short, CAT_CINT),
        T(MPI_UNSIGNED_SHORT, ushort, unsigned short, CAT_CINT),
        T(MPI_INT, int, int, CAT_CINT),
        T(MPI_UNSIGNED, uint, unsigned, CAT_CINT),
        T(MPI_LONG, long, long, CAT_CINT),
        T(MPI_UNSIGNED_LONG, ulong, unsigned long, CAT_CINT),
        T(MPI_LONG_LONG, llong, long long, CAT_CINT),
        T(MPI_UNSIGNED_LONG_LONG, ullong, unsigned long long, CAT_CINT),
        T(MPI_INT8_T, i8, int8_t, CAT_CINT),
        T(MPI_UINT8_T, u8, uint8_t, CAT_CINT),
        T(MPI_INT16_T, i16, int16_t, CAT_CINT),
        T(MPI_UINT16_T, u16, uint16_t, CAT_CINT),
        T(MPI_INT32_T, i32, int32_t, CAT_CINT),
        T(MPI_UINT32_T, u32, uint32_t, CAT_CINT),
        T(MPI_INT64_T, i64, int64_t, CAT_CINT),
        T(MPI_UINT64_T, u64, uint64_t, CAT_CINT),
        T(MPI_AINT, aint, MPI_Aint, CAT_MULTI),
        T(MPI_OFFSET, offset, MPI_Offset, CAT_MULTI),
        T(MPI_COUNT, count, MPI_Count, CAT_MULTI),
        T(MPI_FLOAT, float, float, CAT_FLOAT),
        T(MPI_DOUBLE, double, double, CAT_FLOAT),
        T(MPI_LONG_DOUBLE, ldouble, long double, CAT_FLOAT),
        T(MPI_C_FLOAT_COMPLEX, fcplx, float _Complex, CAT_COMPLEX),
        T(MPI_C_DOUBLE_COMPLEX, dcplx, double _Complex, CAT_COMPLEX),
        T(MPI_C_LONG_DOUBLE_COMPLEX, ldcplx, long double _Complex, CAT_COMPLEX),
        T(MPI_CXX_FLOAT_COMPLEX, fcplx, float _Complex, CAT_COMPLEX),
        T(MPI_CXX_DOUBLE_COMPLEX, dcplx, double _Complex, CAT_COMPLEX),
        T(MPI_CXX_LONG_DOUBLE_COMPLEX, ldcplx, long double _Complex, CAT_COMPLEX),
        T(MPI_C_BOOL, cbool, bool, CAT_BOOL),
        T(MPI_CXX_BOOL, cbool, bool, CAT_BOOL),
        T(MPI_BYTE, byte, unsigned char, CAT_BYTE),
        TP(MPI_FLOAT_INT, float_int),
        TP(MPI_DOUBLE_INT, double_int),
        TP(MPI_LONG_INT, long_int),
        TP(MPI_2INT, two_int),
        TP(MPI_SHORT_INT, short_int),
        TP(MPI_LONG_DOUBLE_INT, ldouble_int),
    };
    int ntypes = (int)(sizeof types / sizeof types[0]);
    /* MTEST_REDUCE_SKIP_CXX=1 leaves out the C++ types (an MPI built
     * without C++ support may not reduce them). */
    if (mt_env_int("MTEST_REDUCE_SKIP_CXX", 0)) {
        rtype *sel = mt_malloc(sizeof types);
        int k = 0;
        for (int i = 0; i < ntypes; i++)
            if (strncmp(types[i].name, "MPI_CXX_", 8))
                sel[k++] = types[i];
        run_comm(MPI_COMM_WORLD, sel, k, 1);
        free(sel);
    } else {
        run_comm(MPI_COMM_WORLD, types, ntypes, 1);
    }
    /* Again on a communicator of a different size (all but the last rank). */
    if (mt_size > 2) {
        MPI_Comm sub;
        MT_CALL(MPI_Comm_split(MPI_COMM_WORLD, mt_rank == mt_size - 1 ? MPI_UNDEFINED : 0,
                               mt_size - mt_rank, &sub));
        if (sub != MPI_COMM_NULL) {
            run_comm(sub, types, ntypes, 0);
            MT_CALL(MPI_Comm_free(&sub));
        }
    }
    return mt_finalize();
}
