/* Unit test of the reduction operations (src/dt/op.c).
 *
 * The (op, type) rules are restated here from the standard's "Predefined
 * Reduction Operations" section (plus Tern's extension: the logical ops on
 * MPI_AINT, MPI_OFFSET and MPI_COUNT), independently of op.c's tables; every
 * pair the standard allows is computed on 77 elements (more than two of op.c's
 * blocks, plus a tail) and compared with a reference written here on
 * 64-bit integers / long doubles, and every pair it forbids must be refused
 * without touching the output. */
#include <limits.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dt/dt.h"
#include "dt/op.h"

static int failures;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            failures++;                                                         \
            fprintf(stderr, "test_op:%d: check failed: %s: ", __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
        }                                                                       \
    } while (0)

#define N 77

static const tn_dt_t *DT(MPI_Datatype h)
{
    return tn_dt_predefined((uintptr_t)h);
}

static const tn_op_t *OP(MPI_Op h)
{
    return tn_op_predefined((uintptr_t)h);
}

/* ---- the standard's rules ----------------------------------------------- */

enum { C_INT = 1, F_INT = 2, FLOATING = 4, LOGICAL = 8, COMPLEX = 16, BYTE = 32,
       MULTI = 64, PAIR = 128, CHAR = 256, ANY = 0xffff };

static const struct { MPI_Datatype h; unsigned cat; } type_cats[] = {
    { MPI_INT, C_INT }, { MPI_LONG, C_INT }, { MPI_SHORT, C_INT },
    { MPI_UNSIGNED_SHORT, C_INT }, { MPI_UNSIGNED, C_INT }, { MPI_UNSIGNED_LONG, C_INT },
    { MPI_LONG_LONG, C_INT }, { MPI_UNSIGNED_LONG_LONG, C_INT },
    { MPI_SIGNED_CHAR, C_INT }, { MPI_UNSIGNED_CHAR, C_INT },
    { MPI_INT8_T, C_INT }, { MPI_INT16_T, C_INT }, { MPI_INT32_T, C_INT },
    { MPI_INT64_T, C_INT }, { MPI_UINT8_T, C_INT }, { MPI_UINT16_T, C_INT },
    { MPI_UINT32_T, C_INT }, { MPI_UINT64_T, C_INT },
    { MPI_INTEGER, F_INT }, { MPI_INTEGER1, F_INT }, { MPI_INTEGER2, F_INT },
    { MPI_INTEGER4, F_INT }, { MPI_INTEGER8, F_INT }, { MPI_INTEGER16, F_INT },
    { MPI_FLOAT, FLOATING }, { MPI_DOUBLE, FLOATING }, { MPI_LONG_DOUBLE, FLOATING },
    { MPI_REAL, FLOATING }, { MPI_DOUBLE_PRECISION, FLOATING }, { MPI_REAL2, FLOATING },
    { MPI_REAL4, FLOATING }, { MPI_REAL8, FLOATING }, { MPI_REAL16, FLOATING },
    { MPI_LOGICAL, LOGICAL }, { MPI_LOGICAL1, LOGICAL }, { MPI_LOGICAL2, LOGICAL },
    { MPI_LOGICAL4, LOGICAL }, { MPI_LOGICAL8, LOGICAL }, { MPI_LOGICAL16, LOGICAL },
    { MPI_C_BOOL, LOGICAL }, { MPI_CXX_BOOL, LOGICAL },
    { MPI_COMPLEX, COMPLEX }, { MPI_C_FLOAT_COMPLEX, COMPLEX },
    { MPI_C_DOUBLE_COMPLEX, COMPLEX }, { MPI_C_LONG_DOUBLE_COMPLEX, COMPLEX },
    { MPI_DOUBLE_COMPLEX, COMPLEX }, { MPI_COMPLEX4, COMPLEX }, { MPI_COMPLEX8, COMPLEX },
    { MPI_COMPLEX16, COMPLEX }, { MPI_COMPLEX32, COMPLEX },
    { MPI_CXX_FLOAT_COMPLEX, COMPLEX }, { MPI_CXX_DOUBLE_COMPLEX, COMPLEX },
    { MPI_CXX_LONG_DOUBLE_COMPLEX, COMPLEX },
    { MPI_BYTE, BYTE }, { MPI_CHAR, CHAR },
    { MPI_AINT, MULTI }, { MPI_OFFSET, MULTI }, { MPI_COUNT, MULTI },
    { MPI_FLOAT_INT, PAIR }, { MPI_DOUBLE_INT, PAIR }, { MPI_LONG_INT, PAIR },
    { MPI_2INT, PAIR }, { MPI_SHORT_INT, PAIR }, { MPI_LONG_DOUBLE_INT, PAIR },
    { MPI_2REAL, PAIR }, { MPI_2DOUBLE_PRECISION, PAIR }, { MPI_2INTEGER, PAIR },
};

/* Types of a category that Tern cannot compute on (no C type for them). */
static const MPI_Datatype no_kernel[] = {
    MPI_REAL2, MPI_REAL16, MPI_COMPLEX4, MPI_COMPLEX32, MPI_INTEGER16, MPI_LOGICAL16,
};

static const struct {
    MPI_Op h; const char *name; int commutative; unsigned cats;
} ops[] = {
    /* CHAR: an extension (as in Open MPI and MPICH) */
    { MPI_MAX, "MPI_MAX", 1, C_INT | F_INT | FLOATING | MULTI | CHAR },
    { MPI_MIN, "MPI_MIN", 1, C_INT | F_INT | FLOATING | MULTI | CHAR },
    { MPI_SUM, "MPI_SUM", 1, C_INT | F_INT | FLOATING | MULTI | COMPLEX | CHAR },
    { MPI_PROD, "MPI_PROD", 1, C_INT | F_INT | FLOATING | MULTI | COMPLEX | CHAR },
    /* MULTI: an extension (as in Open MPI and MPICH) */
    { MPI_LAND, "MPI_LAND", 1, C_INT | LOGICAL | MULTI },
    { MPI_LOR, "MPI_LOR", 1, C_INT | LOGICAL | MULTI },
    { MPI_LXOR, "MPI_LXOR", 1, C_INT | LOGICAL | MULTI },
    { MPI_BAND, "MPI_BAND", 1, C_INT | F_INT | BYTE | MULTI | CHAR },
    { MPI_BOR, "MPI_BOR", 1, C_INT | F_INT | BYTE | MULTI | CHAR },
    { MPI_BXOR, "MPI_BXOR", 1, C_INT | F_INT | BYTE | MULTI | CHAR },
    { MPI_MAXLOC, "MPI_MAXLOC", 1, PAIR },
    { MPI_MINLOC, "MPI_MINLOC", 1, PAIR },
    { MPI_REPLACE, "MPI_REPLACE", 0, ANY },
    { MPI_NO_OP, "MPI_NO_OP", 0, ANY },
};
#define NOPS ((int)(sizeof(ops) / sizeof(ops[0])))

static unsigned cat_of(const tn_dt_t *dt)
{
    for (size_t i = 0; i < sizeof(type_cats) / sizeof(type_cats[0]); i++) {
        if ((uintptr_t)type_cats[i].h == dt->handle) {
            return type_cats[i].cat;
        }
    }
    return 0;   /* MPI_WCHAR, MPI_CHARACTER, MPI_PACKED */
}

static int has_kernel(const tn_dt_t *dt)
{
    for (size_t i = 0; i < sizeof(no_kernel) / sizeof(no_kernel[0]); i++) {
        if ((uintptr_t)no_kernel[i] == dt->handle) {
            return 0;
        }
    }
    return 1;
}

static int expect_valid(int o, const tn_dt_t *dt)
{
    if (ops[o].cats == ANY) {
        return 1;
    }
    return (ops[o].cats & cat_of(dt)) != 0 && has_kernel(dt);
}

/* ---- table -------------------------------------------------------------- */

static void test_table(void)
{
    int n = 0;

    for (int o = 0; o < NOPS; o++) {
        const tn_op_t *op = OP(ops[o].h);
        CHECK(op != NULL, "%s missing", ops[o].name);
        if (op == NULL) {
            continue;
        }
        CHECK(op->magic == TN_OP_MAGIC && op->predefined, "%s header", ops[o].name);
        CHECK(op->handle == (uintptr_t)ops[o].h, "%s handle", ops[o].name);
        CHECK(strcmp(op->name, ops[o].name) == 0, "%s named %s", ops[o].name, op->name);
        CHECK(op->commutative == ops[o].commutative, "%s commutative %d", ops[o].name,
              op->commutative);
        CHECK(op->user_fn == NULL && op->user_c_fn == NULL, "%s user fns", ops[o].name);
    }
    /* nothing else in 0x00..0xff: MPI_OP_NULL is not an op */
    for (uintptr_t h = 0; h < 0x100; h++) {
        n += tn_op_predefined(h) != NULL;
    }
    CHECK(n == NOPS, "%d predefined ops, want %d", n, NOPS);
    CHECK(OP(MPI_OP_NULL) == NULL, "MPI_OP_NULL");
    CHECK(tn_op_predefined(0x40) == NULL && tn_op_predefined(UINTPTR_MAX) == NULL,
          "out of range");
}

/* ---- element access for the reference ------------------------------------ */

static int is_unsigned_kind(tn_dt_kind_t k)
{
    return k >= TN_DK_UINT8 && k <= TN_DK_UINT64;
}

static int is_float_kind(tn_dt_kind_t k)
{
    return k >= TN_DK_FLOAT && k <= TN_DK_LONG_DOUBLE;
}

static int is_complex_kind(tn_dt_kind_t k)
{
    return k >= TN_DK_C_FLOAT_COMPLEX && k <= TN_DK_C_LONG_DOUBLE_COMPLEX;
}

/* integers, logicals, bytes: sign- or zero-extended to 64 bits */
static int64_t ld_int(const tn_dt_t *dt, const void *buf, int i)
{
    const unsigned char *p = (const unsigned char *)buf + (size_t)i * dt->size;
    int sgn = !is_unsigned_kind(dt->kind) && dt->kind != TN_DK_BYTE &&
              dt->kind != TN_DK_BOOL;

    switch (dt->size) {
    case 1: { uint8_t v; memcpy(&v, p, 1); return sgn ? (int8_t)v : (int64_t)v; }
    case 2: { uint16_t v; memcpy(&v, p, 2); return sgn ? (int16_t)v : (int64_t)v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return sgn ? (int32_t)v : (int64_t)v; }
    default: { int64_t v; memcpy(&v, p, 8); return v; }
    }
}

/* store the low dt->size bytes (two's complement truncation) */
static void st_int(const tn_dt_t *dt, void *buf, int i, uint64_t v)
{
    unsigned char *p = (unsigned char *)buf + (size_t)i * dt->size;
    uint8_t v1 = (uint8_t)v;
    uint16_t v2 = (uint16_t)v;
    uint32_t v4 = (uint32_t)v;

    switch (dt->size) {
    case 1: memcpy(p, &v1, 1); break;
    case 2: memcpy(p, &v2, 2); break;
    case 4: memcpy(p, &v4, 4); break;
    default: memcpy(p, &v, 8); break;
    }
}

/* floats and complex parts: part 0 = real, 1 = imaginary */
static long double ld_flt(const tn_dt_t *dt, const void *buf, int i, int part)
{
    const unsigned char *p = (const unsigned char *)buf + (size_t)i * dt->size;

    switch (dt->kind) {
    case TN_DK_FLOAT: case TN_DK_C_FLOAT_COMPLEX:
        { float v; memcpy(&v, p + part * sizeof(v), sizeof(v)); return v; }
    case TN_DK_DOUBLE: case TN_DK_C_DOUBLE_COMPLEX:
        { double v; memcpy(&v, p + part * sizeof(v), sizeof(v)); return v; }
    default:
        { long double v; memcpy(&v, p + part * sizeof(v), sizeof(v)); return v; }
    }
}

static void st_flt(const tn_dt_t *dt, void *buf, int i, int part, long double x)
{
    unsigned char *p = (unsigned char *)buf + (size_t)i * dt->size;

    switch (dt->kind) {
    case TN_DK_FLOAT: case TN_DK_C_FLOAT_COMPLEX:
        { float v = (float)x; memcpy(p + part * sizeof(v), &v, sizeof(v)); break; }
    case TN_DK_DOUBLE: case TN_DK_C_DOUBLE_COMPLEX:
        { double v = (double)x; memcpy(p + part * sizeof(v), &v, sizeof(v)); break; }
    default:
        { long double v = x; memset(p + part * sizeof(v), 0, sizeof(v));
          memcpy(p + part * sizeof(v), &v, sizeof(v)); break; }
    }
}

static const int64_t int_vals[] = {
    0, 1, -1, 2, -2, 3, 7, -7, 100, 127, -128, 200, 255, 1000, 32767, -32768, 40000,
    65535, 65536, INT32_MAX, INT32_MIN, (int64_t)UINT32_MAX, 0x123456789abcdefLL,
    INT64_MAX, INT64_MIN, -1000003, 0x5a5a, 0x0f0f0f0f,
};
static const long double flt_vals[] = {
    0, 0.25L, -0.5L, 1, -1.75L, 3, 100.5L, -64, 1024, 7.25L, -3, 2,
};
#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* the i-th operand pair: a from in, b from inout */
static unsigned pick(int i, int which, int n)
{
    return (unsigned)((i * 7 + which * 13 + (i / n) * 5) % n);
}

static void fill(const tn_dt_t *dt, void *in, void *inout)
{
    for (int i = 0; i < N; i++) {
        if (is_float_kind(dt->kind) || is_complex_kind(dt->kind)) {
            int nparts = is_complex_kind(dt->kind) ? 2 : 1;
            for (int part = 0; part < nparts; part++) {
                st_flt(dt, in, i, part, flt_vals[pick(i + part, 0, NELEM(flt_vals))]);
                st_flt(dt, inout, i, part, flt_vals[pick(i + 3 * part, 1, NELEM(flt_vals))]);
            }
        } else {
            st_int(dt, in, i, (uint64_t)int_vals[pick(i, 0, NELEM(int_vals))]);
            st_int(dt, inout, i, (uint64_t)int_vals[pick(i, 1, NELEM(int_vals))]);
        }
    }
}

/* the reference result of element i into ref */
static void reference(MPI_Op h, const tn_dt_t *dt, const void *in, const void *inout,
                      void *ref, int i)
{
    if (is_float_kind(dt->kind) || is_complex_kind(dt->kind)) {
        long double ar = ld_flt(dt, in, i, 0), br = ld_flt(dt, inout, i, 0);
        long double ai = 0, bi = 0, rr, ri = 0;
        if (is_complex_kind(dt->kind)) {
            ai = ld_flt(dt, in, i, 1);
            bi = ld_flt(dt, inout, i, 1);
        }
        if (h == MPI_SUM) {
            rr = ar + br; ri = ai + bi;
        } else if (h == MPI_PROD) {
            rr = ar * br - ai * bi; ri = ar * bi + ai * br;
        } else if (h == MPI_MAX) {
            rr = ar > br ? ar : br;
        } else {
            rr = ar < br ? ar : br;
        }
        st_flt(dt, ref, i, 0, rr);
        if (is_complex_kind(dt->kind)) {
            st_flt(dt, ref, i, 1, ri);
        }
        return;
    }
    {
        int64_t a = ld_int(dt, in, i), b = ld_int(dt, inout, i);
        uint64_t ua = (uint64_t)a, ub = (uint64_t)b, r;
        int uns = is_unsigned_kind(dt->kind) && dt->size == 8;
        if (h == MPI_SUM) {
            r = ua + ub;
        } else if (h == MPI_PROD) {
            r = ua * ub;
        } else if (h == MPI_MAX) {
            r = uns ? (ua > ub ? ua : ub) : (uint64_t)(a > b ? a : b);
        } else if (h == MPI_MIN) {
            r = uns ? (ua < ub ? ua : ub) : (uint64_t)(a < b ? a : b);
        } else if (h == MPI_LAND) {
            r = a != 0 && b != 0;
        } else if (h == MPI_LOR) {
            r = a != 0 || b != 0;
        } else if (h == MPI_LXOR) {
            r = (a != 0) != (b != 0);
        } else if (h == MPI_BAND) {
            r = ua & ub;
        } else if (h == MPI_BOR) {
            r = ua | ub;
        } else {
            r = ua ^ ub;
        }
        st_int(dt, ref, i, r);
    }
}

static const char *show(const tn_dt_t *dt, const void *buf, int i, char *out)
{
    if (is_complex_kind(dt->kind)) {
        snprintf(out, 64, "(%Lg, %Lg)", ld_flt(dt, buf, i, 0), ld_flt(dt, buf, i, 1));
    } else if (is_float_kind(dt->kind)) {
        snprintf(out, 64, "%Lg", ld_flt(dt, buf, i, 0));
    } else {
        snprintf(out, 64, "%lld", (long long)ld_int(dt, buf, i));
    }
    return out;
}

/* ---- every (op, type) pair ------------------------------------------------ */

static void test_matrix(void)
{
    static unsigned char in[N * 32], inout[N * 32], ref[N * 32], save[N * 32];
    int nvalid = 0, ninvalid = 0;

    for (int t = 0; t < tn_dt_predefined_count(); t++) {
        const tn_dt_t *dt = tn_dt_predefined_at(t);
        size_t bytes = N * (size_t)dt->extent;

        for (int o = 0; o < NOPS; o++) {
            const tn_op_t *op = OP(ops[o].h);
            int want = expect_valid(o, dt);
            tn_status_t st;

            if (op == NULL) {
                continue;
            }
            CHECK(tn_op_valid_for(op, dt) == want, "%s on %s: valid_for %d, want %d",
                  ops[o].name, dt->name, tn_op_valid_for(op, dt), want);
            for (size_t k = 0; k < bytes; k++) {
                in[k] = (unsigned char)(k * 31 + 7);
                inout[k] = (unsigned char)(k * 17 + 3);
            }
            if (!want) {
                ninvalid++;
                memcpy(save, inout, bytes);
                st = tn_op_apply(op, dt, dt->handle, in, inout, N);
                CHECK(st == TN_ERR_INVAL, "%s on %s accepted", ops[o].name, dt->name);
                CHECK(memcmp(save, inout, bytes) == 0, "%s on %s wrote the output",
                      ops[o].name, dt->name);
                continue;
            }
            nvalid++;
            if (ops[o].h == MPI_MAXLOC || ops[o].h == MPI_MINLOC) {
                continue;   /* test_loc */
            }
            CHECK(tn_op_apply(op, dt, dt->handle, NULL, NULL, 0) == TN_OK,
                  "%s on %s, count 0", ops[o].name, dt->name);
            if (ops[o].h == MPI_REPLACE || ops[o].h == MPI_NO_OP) {
                memcpy(save, inout, bytes);
                st = tn_op_apply(op, dt, dt->handle, in, inout, N);
                CHECK(st == TN_OK, "%s on %s: %d", ops[o].name, dt->name, (int)st);
                CHECK(memcmp(inout, ops[o].h == MPI_REPLACE ? in : save, bytes) == 0,
                      "%s on %s: wrong result", ops[o].name, dt->name);
                continue;
            }
            fill(dt, in, inout);
            memset(ref, 0, sizeof(ref));
            for (int i = 0; i < N; i++) {
                reference(ops[o].h, dt, in, inout, ref, i);
            }
            memcpy(save, inout, bytes);
            st = tn_op_apply(op, dt, dt->handle, in, inout, N);
            CHECK(st == TN_OK, "%s on %s: status %d", ops[o].name, dt->name, (int)st);
            for (int i = 0; i < N; i++) {
                size_t off = (size_t)i * dt->size;
                size_t cmp = dt->size;
                if (dt->kind == TN_DK_LONG_DOUBLE || dt->kind == TN_DK_C_LONG_DOUBLE_COMPLEX) {
                    /* compare values: x87 long double has padding bytes */
                    int same = ld_flt(dt, inout, i, 0) == ld_flt(dt, ref, i, 0) &&
                               (dt->kind == TN_DK_LONG_DOUBLE ||
                                ld_flt(dt, inout, i, 1) == ld_flt(dt, ref, i, 1));
                    CHECK(same, "%s on %s, element %d: %Lg, want %Lg", ops[o].name,
                          dt->name, i, ld_flt(dt, inout, i, 0), ld_flt(dt, ref, i, 0));
                    continue;
                }
                if (memcmp(inout + off, ref + off, cmp) != 0) {
                    char sa[64], sb[64], sg[64], sw[64];
                    CHECK(0, "%s on %s, element %d: in %s inout %s: got %s, want %s",
                          ops[o].name, dt->name, i, show(dt, in, i, sa),
                          show(dt, save, i, sb), show(dt, inout, i, sg),
                          show(dt, ref, i, sw));
                    break;
                }
            }
        }
    }
    CHECK(nvalid > 300 && ninvalid > 300, "%d valid and %d invalid pairs", nvalid, ninvalid);
}

/* ---- a few results spelled out ---------------------------------------------- */

static void test_spelled(void)
{
    {
        int a[3] = { -5, 7, INT_MAX }, b[3] = { 3, -9, 1 };
        tn_op_apply(OP(MPI_SUM), DT(MPI_INT), 0, a, b, 3);
        CHECK(b[0] == -2 && b[1] == -2 && b[2] == INT_MIN, "int sum %d %d %d",
              b[0], b[1], b[2]);
    }
    {
        unsigned char a[2] = { 200, 16 }, b[2] = { 100, 16 };
        tn_op_apply(OP(MPI_PROD), DT(MPI_UNSIGNED_CHAR), 0, a, b, 2);
        CHECK(b[0] == (unsigned char)(200 * 100) && b[1] == 0, "uchar prod wrap");
    }
    {
        unsigned a[2] = { 4000000000u, 1 }, b[2] = { 3, 2 };
        tn_op_apply(OP(MPI_MAX), DT(MPI_UNSIGNED), 0, a, b, 2);
        CHECK(b[0] == 4000000000u && b[1] == 2, "unsigned max");
    }
    {
        double a[3] = { -1.5, 2, 0.25 }, b[3] = { 2.5, -3, 4 };
        tn_op_apply(OP(MPI_MIN), DT(MPI_DOUBLE), 0, a, b, 3);
        CHECK(b[0] == -1.5 && b[1] == -3 && b[2] == 0.25, "double min");
    }
    {
        float a[2] = { 1, 2 }, b[2] = { 3, -1 };   /* (1+2i)(3-i) = 5+5i */
        tn_op_apply(OP(MPI_PROD), DT(MPI_C_FLOAT_COMPLEX), 0, a, b, 1);
        CHECK(b[0] == 5 && b[1] == 5, "complex prod %g%+gi", b[0], b[1]);
    }
    {
        int32_t a[4] = { 0, 5, -1, 0 }, b[4] = { 0, 7, 0, 9 };   /* Fortran LOGICAL */
        int32_t c[4], d[4];
        memcpy(c, b, sizeof(b));
        memcpy(d, b, sizeof(b));
        tn_op_apply(OP(MPI_LAND), DT(MPI_LOGICAL), 0, a, b, 4);
        tn_op_apply(OP(MPI_LOR), DT(MPI_LOGICAL), 0, a, c, 4);
        tn_op_apply(OP(MPI_LXOR), DT(MPI_LOGICAL), 0, a, d, 4);
        CHECK(b[0] == 0 && b[1] == 1 && b[2] == 0 && b[3] == 0, "logical and");
        CHECK(c[0] == 0 && c[1] == 1 && c[2] == 1 && c[3] == 1, "logical or");
        CHECK(d[0] == 0 && d[1] == 0 && d[2] == 1 && d[3] == 1, "logical xor");
    }
    {
        unsigned char a[2] = { 0xf0, 0x0f }, b[2] = { 0x3c, 0xff };
        tn_op_apply(OP(MPI_BXOR), DT(MPI_BYTE), 0, a, b, 2);
        CHECK(b[0] == 0xcc && b[1] == 0xf0, "byte xor");
    }
}

/* ---- MINLOC / MAXLOC ------------------------------------------------------- */

#define TEST_LOC(h, V, I)                                                        \
    do {                                                                         \
        typedef struct { V v; I i; } P;                                          \
        static const int in_v[] = { 3, 1, 2, 2, -1, 5, -4, 0 };                  \
        static const int in_i[] = { 5, 2, 7, 1, 4, 0, 3, 9 };                    \
        static const int io_v[] = { 3, 1, 5, 2, -1, 4, -4, 1 };                  \
        static const int io_i[] = { 2, 9, 0, 3, 4, 1, 8, 2 };                    \
        static const int max_v[] = { 3, 1, 5, 2, -1, 5, -4, 1 };                 \
        static const int max_i[] = { 2, 2, 0, 1, 4, 0, 3, 2 };                   \
        static const int min_v[] = { 3, 1, 2, 2, -1, 4, -4, 0 };                 \
        static const int min_i[] = { 2, 2, 7, 1, 4, 1, 3, 9 };                   \
        enum { M = 8 };                                                          \
        P a[M * 5], mx[M * 5], mn[M * 5];                                        \
        const tn_dt_t *dt = DT(h);                                               \
        CHECK(dt->extent == (ptrdiff_t)sizeof(P), "%s extent", #h);              \
        for (int k = 0; k < M * 5; k++) {   /* 40 elements: a block and a tail */ \
            a[k].v = (V)in_v[k % M];  a[k].i = (I)in_i[k % M];                   \
            mx[k].v = (V)io_v[k % M]; mx[k].i = (I)io_i[k % M];                  \
        }                                                                        \
        memcpy(mn, mx, sizeof(mx));                                              \
        CHECK(tn_op_apply(OP(MPI_MAXLOC), dt, dt->handle, a, mx, M * 5) == TN_OK, \
              "MAXLOC on %s", #h);                                               \
        CHECK(tn_op_apply(OP(MPI_MINLOC), dt, dt->handle, a, mn, M * 5) == TN_OK, \
              "MINLOC on %s", #h);                                               \
        for (int k = 0; k < M * 5; k++) {                                        \
            CHECK(mx[k].v == (V)max_v[k % M] && mx[k].i == (I)max_i[k % M],      \
                  "MAXLOC on %s element %d: (%g, %g), want (%d, %d)", #h, k,     \
                  (double)mx[k].v, (double)mx[k].i, max_v[k % M], max_i[k % M]); \
            CHECK(mn[k].v == (V)min_v[k % M] && mn[k].i == (I)min_i[k % M],      \
                  "MINLOC on %s element %d: (%g, %g), want (%d, %d)", #h, k,     \
                  (double)mn[k].v, (double)mn[k].i, min_v[k % M], min_i[k % M]); \
        }                                                                        \
    } while (0)

static void test_loc(void)
{
    TEST_LOC(MPI_FLOAT_INT, float, int);
    TEST_LOC(MPI_DOUBLE_INT, double, int);
    TEST_LOC(MPI_LONG_INT, long, int);
    TEST_LOC(MPI_2INT, int, int);
    TEST_LOC(MPI_SHORT_INT, short, int);
    TEST_LOC(MPI_LONG_DOUBLE_INT, long double, int);
    TEST_LOC(MPI_2REAL, float, float);
    TEST_LOC(MPI_2DOUBLE_PRECISION, double, double);
    TEST_LOC(MPI_2INTEGER, int32_t, int32_t);
}

/* ---- user ops ------------------------------------------------------------- */

static int calls;
static int last_len;
static int64_t last_len_c;
static void *last_dt;
static const char *first_in;
static ptrdiff_t offs[4], ioffs[4];
static int64_t lens[4];

/* inout = 10 * in + inout: not commutative, so the order shows */
static void user_fn(void *in, void *inout, int *len, void *dtp)
{
    const int *a = in;
    int *b = inout;

    calls++;
    last_len = *len;
    memcpy(&last_dt, dtp, sizeof(last_dt));
    for (int i = 0; i < *len; i++) {
        b[i] = 10 * a[i] + b[i];
    }
    *len = -1;   /* a scribbling callee must not derail the caller */
}

static void user_c_fn(void *in, void *inout, int64_t *len, void *dtp)
{
    const int *a = in;
    int *b = inout;

    calls++;
    last_len_c = *len;
    memcpy(&last_dt, dtp, sizeof(last_dt));
    for (int64_t i = 0; i < *len; i++) {
        b[i] = 10 * a[i] + b[i];
    }
}

/* records the calls, touches nothing */
static void record_fn(void *in, void *inout, int *len, void *dtp)
{
    if (calls < 4) {
        offs[calls] = (const char *)in - first_in;
        ioffs[calls] = (const char *)inout - first_in;
        lens[calls] = *len;
    }
    calls++;
}

static void record_c_fn(void *in, void *inout, int64_t *len, void *dtp)
{
    if (calls < 4) {
        offs[calls] = (const char *)in - first_in;
        ioffs[calls] = (const char *)inout - first_in;
        lens[calls] = *len;
    }
    calls++;
}

static void test_user(void)
{
    tn_op_t *op = NULL, *cop = NULL;
    int a[40], b[40];
    const tn_dt_t *dt = DT(MPI_INT);

    CHECK(tn_op_create(NULL, NULL, 1, &op) == TN_ERR_INVAL, "create without fn");
    CHECK(tn_op_create(user_fn, user_c_fn, 1, &op) == TN_ERR_INVAL, "create with both");
    CHECK(tn_op_create(user_fn, NULL, 0, &op) == TN_OK && op != NULL, "create");
    CHECK(tn_op_create(NULL, user_c_fn, 5, &cop) == TN_OK && cop != NULL, "create_c");
    if (op == NULL || cop == NULL) {
        return;
    }
    CHECK(op->magic == TN_OP_MAGIC && !op->predefined && op->commutative == 0 &&
          op->refcount == 1, "user op fields");
    CHECK(cop->commutative == 1, "commutative normalized to 1");

    /* user ops accept every type, even those no predefined op takes */
    for (int t = 0; t < tn_dt_predefined_count(); t++) {
        CHECK(tn_op_valid_for(op, tn_dt_predefined_at(t)), "user op on %s",
              tn_dt_predefined_at(t)->name);
    }

    for (int i = 0; i < 40; i++) {
        a[i] = i;
        b[i] = 1000 + i;
    }
    calls = 0;
    CHECK(tn_op_apply(op, dt, 0x209, a, b, 40) == TN_OK, "apply user op");
    CHECK(calls == 1 && last_len == 40, "user op: %d calls, len %d", calls, last_len);
    CHECK(last_dt == (void *)(uintptr_t)0x209, "user op got handle %p", last_dt);
    for (int i = 0; i < 40; i++) {
        CHECK(b[i] == 10 * i + 1000 + i, "user op element %d: %d (in must come first)",
              i, b[i]);
    }
    calls = 0;
    CHECK(tn_op_apply(op, dt, 0x209, a, b, 0) == TN_OK && calls == 0, "count 0");

    calls = 0;
    CHECK(tn_op_apply(cop, DT(MPI_CHAR), 0x243, a, b, 40) == TN_OK, "apply user c op");
    CHECK(calls == 1 && last_len_c == 40, "user c op: %d calls, len %lld", calls,
          (long long)last_len_c);
    CHECK(last_dt == (void *)(uintptr_t)0x243, "user c op got handle %p", last_dt);
    CHECK(b[3] == 10 * 3 + 10 * 3 + 1000 + 3, "user c op result %d", b[3]);

    /* counts beyond INT_MAX go to the int callback in chunks */
    if (SIZE_MAX > (size_t)INT_MAX * 2) {
        tn_dt_t fake = { .magic = TN_DT_MAGIC, .name = "fake", .size = 2, .extent = 3,
                         .true_extent = 2 };
        tn_op_t *rop = NULL, *rcop = NULL;
        size_t big = (size_t)INT_MAX + 10;

        CHECK(tn_op_create(record_fn, NULL, 1, &rop) == TN_OK, "create recorder");
        CHECK(tn_op_create(NULL, record_c_fn, 1, &rcop) == TN_OK, "create c recorder");
        first_in = (const char *)a;
        calls = 0;
        CHECK(tn_op_apply(rop, &fake, 0x1234, a, b, big) == TN_OK, "apply big");
        CHECK(calls == 2 && offs[0] == 0 && lens[0] == INT_MAX &&
              offs[1] == (ptrdiff_t)INT_MAX * 3 && lens[1] == 10,
              "chunks: %d calls (%td, %lld) (%td, %lld)", calls, offs[0],
              (long long)lens[0], offs[1], (long long)lens[1]);
        CHECK(ioffs[1] - ioffs[0] == (ptrdiff_t)INT_MAX * 3, "inout chunk offset %td",
              ioffs[1] - ioffs[0]);
        calls = 0;
        CHECK(tn_op_apply(rcop, &fake, 0x1234, a, b, big) == TN_OK, "apply big c");
        CHECK(calls == 1 && lens[0] == (int64_t)big, "c op gets the count whole");
        tn_op_release(rop);
        tn_op_release(rcop);
    }

    /* references: the last release frees (ASan sees a double free or a leak) */
    tn_op_retain(op);
    CHECK(op->refcount == 2, "retain");
    tn_op_release(op);
    CHECK(op->refcount == 1, "release");
    tn_op_release(op);
    tn_op_release(cop);
    tn_op_retain(OP(MPI_SUM));
    tn_op_release(OP(MPI_SUM));
    CHECK(OP(MPI_SUM)->refcount == 1 && OP(MPI_SUM)->magic == TN_OP_MAGIC,
          "predefined ops are not counted");
}

int main(void)
{
    test_table();
    test_matrix();
    test_spelled();
    test_loc();
    test_user();
    if (failures) {
        fprintf(stderr, "test_op: %d check(s) failed\n", failures);
        return 1;
    }
    printf("test_op: OK\n");
    return 0;
}
