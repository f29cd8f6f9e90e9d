/* Unit test of the predefined datatype table (src/dt/dt_predef.c: sizes,
 * kinds, categories, and each entry's own layout and signature) and of
 * pack/unpack of predefined types.
 *
 * Every predefined datatype of mpi.h is listed below with what the C
 * compiler says about its C type (sizeof, offsetof) and with its category
 * as the standard's "Predefined Reduction Operations" section lists it; the
 * table must agree entry by entry and hold nothing else. */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>
#include "dt/dt.h"

static int failures;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            failures++;                                                         \
            fprintf(stderr, "test_dt:%d: check failed: %s: ", __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
        }                                                                       \
    } while (0)

typedef struct { float v;       int i; } float_int_t;
typedef struct { double v;      int i; } double_int_t;
typedef struct { long v;        int i; } long_int_t;
typedef struct { int v;         int i; } two_int_t;
typedef struct { short v;       int i; } short_int_t;
typedef struct { long double v; int i; } long_double_int_t;

static tn_dt_kind_t skind(size_t n)
{
    return n == 1 ? TN_DK_INT8 : n == 2 ? TN_DK_INT16 : n == 4 ? TN_DK_INT32 : TN_DK_INT64;
}

static tn_dt_kind_t ukind(size_t n)
{
    return n == 1 ? TN_DK_UINT8 : n == 2 ? TN_DK_UINT16 : n == 4 ? TN_DK_UINT32 : TN_DK_UINT64;
}

typedef struct {
    MPI_Datatype h;
    const char  *name;
    size_t       size;
    ptrdiff_t    extent, true_extent;
    tn_dt_kind_t kind;
    unsigned     category;
} expect_t;

/* name is spelled here, before h expands to its handle value */
#define E(h, name, size, extent, true_extent, kind, cat) \
    { h, name, size, extent, true_extent, kind, cat }
/* a type without holes */
#define EC(h, size, kind, cat) \
    E(h, #h, size, (ptrdiff_t)(size), (ptrdiff_t)(size), kind, cat)
#define EPAIR(h, P, kind)                                                      \
    E(h, #h, sizeof(((P *)0)->v) + sizeof(int), sizeof(P),                     \
      offsetof(P, i) + sizeof(int), kind, TN_DC_PAIR)

static expect_t expected[100];
static int nexpected;

static void build_expected(void)
{
    const expect_t list[] = {
        /* C integer */
        EC(MPI_SHORT, sizeof(short), skind(sizeof(short)), TN_DC_C_INT),
        EC(MPI_INT, sizeof(int), skind(sizeof(int)), TN_DC_C_INT),
        EC(MPI_LONG, sizeof(long), skind(sizeof(long)), TN_DC_C_INT),
        EC(MPI_LONG_LONG, sizeof(long long), skind(sizeof(long long)), TN_DC_C_INT),
        EC(MPI_UNSIGNED_SHORT, sizeof(unsigned short), ukind(sizeof(short)), TN_DC_C_INT),
        EC(MPI_UNSIGNED, sizeof(unsigned), ukind(sizeof(unsigned)), TN_DC_C_INT),
        EC(MPI_UNSIGNED_LONG, sizeof(unsigned long), ukind(sizeof(long)), TN_DC_C_INT),
        EC(MPI_UNSIGNED_LONG_LONG, sizeof(unsigned long long), ukind(sizeof(long long)),
           TN_DC_C_INT),
        EC(MPI_SIGNED_CHAR, 1, TN_DK_INT8, TN_DC_C_INT),
        EC(MPI_UNSIGNED_CHAR, 1, TN_DK_UINT8, TN_DC_C_INT),
        EC(MPI_INT8_T, 1, TN_DK_INT8, TN_DC_C_INT),
        EC(MPI_UINT8_T, 1, TN_DK_UINT8, TN_DC_C_INT),
        EC(MPI_INT16_T, 2, TN_DK_INT16, TN_DC_C_INT),
        EC(MPI_UINT16_T, 2, TN_DK_UINT16, TN_DC_C_INT),
        EC(MPI_INT32_T, 4, TN_DK_INT32, TN_DC_C_INT),
        EC(MPI_UINT32_T, 4, TN_DK_UINT32, TN_DC_C_INT),
        EC(MPI_INT64_T, 8, TN_DK_INT64, TN_DC_C_INT),
        EC(MPI_UINT64_T, 8, TN_DK_UINT64, TN_DC_C_INT),
        /* Fortran integer */
        EC(MPI_INTEGER, 4, TN_DK_INT32, TN_DC_F_INT),
        EC(MPI_INTEGER1, 1, TN_DK_INT8, TN_DC_F_INT),
        EC(MPI_INTEGER2, 2, TN_DK_INT16, TN_DC_F_INT),
        EC(MPI_INTEGER4, 4, TN_DK_INT32, TN_DC_F_INT),
        EC(MPI_INTEGER8, 8, TN_DK_INT64, TN_DC_F_INT),
        EC(MPI_INTEGER16, 16, TN_DK_NONE, TN_DC_F_INT),
        /* floating point */
        EC(MPI_FLOAT, sizeof(float), TN_DK_FLOAT, TN_DC_FLOAT),
        EC(MPI_DOUBLE, sizeof(double), TN_DK_DOUBLE, TN_DC_FLOAT),
        EC(MPI_LONG_DOUBLE, sizeof(long double), TN_DK_LONG_DOUBLE, TN_DC_FLOAT),
        EC(MPI_REAL, 4, TN_DK_FLOAT, TN_DC_FLOAT),
        EC(MPI_DOUBLE_PRECISION, 8, TN_DK_DOUBLE, TN_DC_FLOAT),
        EC(MPI_REAL2, 2, TN_DK_NONE, TN_DC_FLOAT),
        EC(MPI_REAL4, 4, TN_DK_FLOAT, TN_DC_FLOAT),
        EC(MPI_REAL8, 8, TN_DK_DOUBLE, TN_DC_FLOAT),
        EC(MPI_REAL16, 16, TN_DK_NONE, TN_DC_FLOAT),
        /* logical */
        EC(MPI_LOGICAL, 4, TN_DK_FLOGICAL4, TN_DC_LOGICAL),
        EC(MPI_LOGICAL1, 1, TN_DK_FLOGICAL1, TN_DC_LOGICAL),
        EC(MPI_LOGICAL2, 2, TN_DK_FLOGICAL2, TN_DC_LOGICAL),
        EC(MPI_LOGICAL4, 4, TN_DK_FLOGICAL4, TN_DC_LOGICAL),
        EC(MPI_LOGICAL8, 8, TN_DK_FLOGICAL8, TN_DC_LOGICAL),
        EC(MPI_LOGICAL16, 16, TN_DK_NONE, TN_DC_LOGICAL),
        EC(MPI_C_BOOL, sizeof(_Bool), TN_DK_BOOL, TN_DC_LOGICAL),
        EC(MPI_CXX_BOOL, sizeof(_Bool), TN_DK_BOOL, TN_DC_LOGICAL),
        /* complex */
        EC(MPI_COMPLEX, 8, TN_DK_C_FLOAT_COMPLEX, TN_DC_COMPLEX),
        EC(MPI_DOUBLE_COMPLEX, 16, TN_DK_C_DOUBLE_COMPLEX, TN_DC_COMPLEX),
        EC(MPI_C_FLOAT_COMPLEX, sizeof(float _Complex), TN_DK_C_FLOAT_COMPLEX, TN_DC_COMPLEX),
        EC(MPI_C_DOUBLE_COMPLEX, sizeof(double _Complex), TN_DK_C_DOUBLE_COMPLEX,
           TN_DC_COMPLEX),
        EC(MPI_C_LONG_DOUBLE_COMPLEX, sizeof(long double _Complex),
           TN_DK_C_LONG_DOUBLE_COMPLEX, TN_DC_COMPLEX),
        EC(MPI_CXX_FLOAT_COMPLEX, sizeof(float _Complex), TN_DK_C_FLOAT_COMPLEX,
           TN_DC_COMPLEX),
        EC(MPI_CXX_DOUBLE_COMPLEX, sizeof(double _Complex), TN_DK_C_DOUBLE_COMPLEX,
           TN_DC_COMPLEX),
        EC(MPI_CXX_LONG_DOUBLE_COMPLEX, sizeof(long double _Complex),
           TN_DK_C_LONG_DOUBLE_COMPLEX, TN_DC_COMPLEX),
        EC(MPI_COMPLEX4, 4, TN_DK_NONE, TN_DC_COMPLEX),
        EC(MPI_COMPLEX8, 8, TN_DK_C_FLOAT_COMPLEX, TN_DC_COMPLEX),
        EC(MPI_COMPLEX16, 16, TN_DK_C_DOUBLE_COMPLEX, TN_DC_COMPLEX),
        EC(MPI_COMPLEX32, 32, TN_DK_NONE, TN_DC_COMPLEX),
        /* byte */
        EC(MPI_BYTE, 1, TN_DK_BYTE, TN_DC_BYTE),
        /* multi-language */
        EC(MPI_AINT, sizeof(MPI_Aint), skind(sizeof(MPI_Aint)), TN_DC_MULTI_LANG),
        EC(MPI_OFFSET, sizeof(MPI_Offset), TN_DK_INT64, TN_DC_MULTI_LANG),
        EC(MPI_COUNT, sizeof(MPI_Count), TN_DK_INT64, TN_DC_MULTI_LANG),
        /* not valid for any reduction */
        EC(MPI_CHAR, sizeof(char), TN_DK_CHAR, TN_DC_CHAR),   /* reducible: an extension */
        EC(MPI_WCHAR, sizeof(wchar_t), TN_DK_WCHAR, 0),
        EC(MPI_CHARACTER, 1, TN_DK_CHAR, 0),
        EC(MPI_PACKED, 1, TN_DK_BYTE, 0),
        /* pair types */
        EPAIR(MPI_FLOAT_INT, float_int_t, TN_DK_FLOAT_INT),
        EPAIR(MPI_DOUBLE_INT, double_int_t, TN_DK_DOUBLE_INT),
        EPAIR(MPI_LONG_INT, long_int_t, TN_DK_LONG_INT),
        EPAIR(MPI_2INT, two_int_t, TN_DK_2INT),
        EPAIR(MPI_SHORT_INT, short_int_t, TN_DK_SHORT_INT),
        EPAIR(MPI_LONG_DOUBLE_INT, long_double_int_t, TN_DK_LONG_DOUBLE_INT),
        EC(MPI_2REAL, 8, TN_DK_2FLOAT, TN_DC_PAIR),
        EC(MPI_2DOUBLE_PRECISION, 16, TN_DK_2DOUBLE, TN_DC_PAIR),
        EC(MPI_2INTEGER, 8, TN_DK_2INT32F, TN_DC_PAIR),
    };
    nexpected = (int)(sizeof(list) / sizeof(list[0]));
    memcpy(expected, list, sizeof(list));
}

static void test_table(void)
{
    for (int k = 0; k < nexpected; k++) {
        const expect_t *e = &expected[k];
        const tn_dt_t *dt = tn_dt_predefined((uintptr_t)e->h);

        CHECK(dt != NULL, "%s missing", e->name);
        if (dt == NULL) {
            continue;
        }
        CHECK(dt->magic == TN_DT_MAGIC, "%s magic", e->name);
        CHECK(dt->predefined == 1, "%s predefined", e->name);
        CHECK(dt->handle == (uintptr_t)e->h, "%s handle %#lx", e->name,
              (unsigned long)dt->handle);
        CHECK(strcmp(dt->name, e->name) == 0, "%s named %s", e->name, dt->name);
        CHECK(dt->size == e->size, "%s size %zu, want %zu", e->name, dt->size, e->size);
        CHECK(dt->lb == 0, "%s lb %td", e->name, dt->lb);
        CHECK(dt->extent == e->extent, "%s extent %td, want %td", e->name, dt->extent,
              e->extent);
        CHECK(dt->true_lb == 0, "%s true_lb %td", e->name, dt->true_lb);
        CHECK(dt->true_extent == e->true_extent, "%s true_extent %td, want %td", e->name,
              dt->true_extent, e->true_extent);
        CHECK(dt->is_contig == ((ptrdiff_t)e->size == e->extent), "%s is_contig %d",
              e->name, dt->is_contig);
        CHECK(dt->kind == e->kind, "%s kind %d, want %d", e->name, (int)dt->kind,
              (int)e->kind);
        CHECK(dt->category == e->category, "%s category %#x, want %#x", e->name,
              dt->category, e->category);
        CHECK(dt->combiner == MPI_COMBINER_NAMED, "%s combiner %d", e->name, dt->combiner);
        CHECK(dt->user_name[0] == '\0', "%s user_name set", e->name);
        /* its own committed, one-run signature and a loop-free layout whose
         * segments hold exactly its data bytes */
        CHECK(dt->committed && dt->basic == dt && dt->nruns == 1 && dt->run_rep == 1 &&
              dt->runs[0].type == dt && dt->runs[0].n == 1, "%s signature", e->name);
        CHECK(dt->nbasic == ((e->category & TN_DC_PAIR) ? 2u : 1u), "%s nbasic %llu", e->name,
              (unsigned long long)dt->nbasic);
        CHECK(dt->align >= 1 && (dt->align & (dt->align - 1)) == 0 &&
              (ptrdiff_t)dt->align <= e->extent, "%s align %zu", e->name, dt->align);
        {
            size_t sum = 0;
            for (size_t s_ = 0; s_ < dt->nsegs; s_++) {
                CHECK(dt->segs[s_].pos == sum, "%s segment %zu pos", e->name, s_);
                sum += dt->segs[s_].len;
            }
            CHECK(dt->ndims == 0 && dt->nsegs >= 1 && dt->nsegs <= 2 && sum == dt->size &&
                  dt->leaf_size == dt->size && dt->segs[0].off == 0, "%s layout", e->name);
            CHECK(dt->is_contig == (dt->nsegs == 1 && (ptrdiff_t)dt->segs[0].len == e->extent),
                  "%s is_contig agrees with the layout", e->name);
        }
        for (int j = 0; j < k; j++) {
            CHECK(expected[j].h != e->h, "%s and %s share a handle", e->name,
                  expected[j].name);
        }
    }

    /* the table holds exactly the listed types */
    CHECK(tn_dt_predefined_count() == nexpected, "count %d, want %d",
          tn_dt_predefined_count(), nexpected);
    for (int i = 0; i < tn_dt_predefined_count(); i++) {
        const tn_dt_t *dt = tn_dt_predefined_at(i);
        int found = 0;

        CHECK(dt != NULL, "predefined_at(%d)", i);
        if (dt == NULL) {
            continue;
        }
        for (int k = 0; k < nexpected; k++) {
            found += (uintptr_t)expected[k].h == dt->handle;
        }
        CHECK(found == 1, "table entry %s (%#lx) not in mpi.h's list", dt->name,
              (unsigned long)dt->handle);
        CHECK(tn_dt_predefined(dt->handle) == dt, "%s lookup", dt->name);
    }
    CHECK(tn_dt_predefined_at(tn_dt_predefined_count()) == NULL, "predefined_at(count)");
    CHECK(tn_dt_predefined_at(-1) == NULL, "predefined_at(-1)");

    /* not types */
    CHECK(tn_dt_predefined((uintptr_t)MPI_DATATYPE_NULL) == NULL, "MPI_DATATYPE_NULL");
    CHECK(tn_dt_predefined(0) == NULL, "0");
    CHECK(tn_dt_predefined(0x1ff) == NULL, "0x1ff");
    CHECK(tn_dt_predefined(0x204) == NULL, "hole 0x204");
    CHECK(tn_dt_predefined(0x2ff) == NULL, "0x2ff");
    CHECK(tn_dt_predefined(0x300) == NULL, "0x300");
    CHECK(tn_dt_predefined((uintptr_t)MPI_SUM) == NULL, "an op handle");
    CHECK(tn_dt_predefined(UINTPTR_MAX) == NULL, "UINTPTR_MAX");

    /* aliases */
    CHECK(tn_dt_predefined((uintptr_t)MPI_LONG_LONG_INT) ==
          tn_dt_predefined((uintptr_t)MPI_LONG_LONG), "MPI_LONG_LONG_INT alias");
    CHECK(tn_dt_predefined((uintptr_t)MPI_C_COMPLEX) ==
          tn_dt_predefined((uintptr_t)MPI_C_FLOAT_COMPLEX), "MPI_C_COMPLEX alias");

#if defined(__x86_64__)
    /* the numbers the p2p layer relies on, spelled out for x86-64 */
    {
        static const struct { MPI_Datatype h; size_t size; ptrdiff_t ext, text; } x[] = {
            { MPI_FLOAT_INT, 8, 8, 8 },         { MPI_DOUBLE_INT, 12, 16, 12 },
            { MPI_LONG_INT, 12, 16, 12 },       { MPI_2INT, 8, 8, 8 },
            { MPI_SHORT_INT, 6, 8, 8 },         { MPI_LONG_DOUBLE_INT, 20, 32, 20 },
            { MPI_LONG_DOUBLE, 16, 16, 16 },    { MPI_LONG, 8, 8, 8 },
            { MPI_WCHAR, 4, 4, 4 },             { MPI_C_LONG_DOUBLE_COMPLEX, 32, 32, 32 },
        };
        for (size_t i = 0; i < sizeof(x) / sizeof(x[0]); i++) {
            const tn_dt_t *dt = tn_dt_predefined((uintptr_t)x[i].h);
            CHECK(dt->size == x[i].size && dt->extent == x[i].ext &&
                  dt->true_extent == x[i].text, "x86-64 layout of %s", dt->name);
        }
        CHECK(tn_dt_predefined((uintptr_t)MPI_LONG)->kind == TN_DK_INT64, "MPI_LONG kind");
        CHECK(tn_dt_predefined((uintptr_t)MPI_SHORT_INT)->is_contig == 0, "SHORT_INT contig");
        CHECK(tn_dt_predefined((uintptr_t)MPI_FLOAT_INT)->is_contig == 1, "FLOAT_INT contig");
    }
#endif
}

/* pack/unpack of a pair type: data only, padding of buf never written */
#define TEST_PAIR_PACK(h, P)                                                      \
    do {                                                                          \
        const tn_dt_t *dt = tn_dt_predefined((uintptr_t)(h));                     \
        P src[5], back[5];                                                        \
        unsigned char packed[5 * sizeof(P) + 1];                                      \
        size_t vs = sizeof(src[0].v);                                             \
        memset(src, 0x5c, sizeof(src));                                           \
        for (int n_ = 0; n_ < 5; n_++) {                                          \
            src[n_].v = (__typeof__(src[n_].v))(n_ * 3 - 4);                      \
            src[n_].i = 100 - n_;                                                 \
        }                                                                         \
        memset(packed, 0xee, sizeof(packed));                                     \
        tn_dt_pack(dt, src, 5, packed);                                           \
        for (int n_ = 0; n_ < 5; n_++) {                                          \
            CHECK(memcmp(packed + n_ * dt->size, &src[n_].v, vs) == 0,            \
                  "%s pack value %d", #h, n_);                                    \
            CHECK(memcmp(packed + n_ * dt->size + vs, &src[n_].i, sizeof(int)) == 0, \
                  "%s pack index %d", #h, n_);                                    \
        }                                                                         \
        CHECK(packed[5 * dt->size] == 0xee, "%s pack wrote past count*size", #h); \
        memset(back, 0xa7, sizeof(back));                                         \
        tn_dt_unpack(dt, packed, 5, back);                                        \
        for (int n_ = 0; n_ < 5; n_++) {                                          \
            const unsigned char *b_ = (const unsigned char *)&back[n_];           \
            CHECK(memcmp(&back[n_].v, &src[n_].v, vs) == 0 &&                     \
                  back[n_].i == src[n_].i, "%s unpack %d", #h, n_);               \
            for (size_t o_ = vs; o_ < offsetof(P, i); o_++) {                     \
                CHECK(b_[o_] == 0xa7, "%s unpack wrote padding byte %zu", #h, o_); \
            }                                                                     \
            for (size_t o_ = offsetof(P, i) + sizeof(int); o_ < sizeof(P); o_++) { \
                CHECK(b_[o_] == 0xa7, "%s unpack wrote tail byte %zu", #h, o_);   \
            }                                                                     \
        }                                                                         \
    } while (0)

static void test_pack(void)
{
    TEST_PAIR_PACK(MPI_FLOAT_INT, float_int_t);
    TEST_PAIR_PACK(MPI_DOUBLE_INT, double_int_t);
    TEST_PAIR_PACK(MPI_LONG_INT, long_int_t);
    TEST_PAIR_PACK(MPI_2INT, two_int_t);
    TEST_PAIR_PACK(MPI_SHORT_INT, short_int_t);
    TEST_PAIR_PACK(MPI_LONG_DOUBLE_INT, long_double_int_t);

    /* contiguous types: a plain copy of count*size bytes, for every type */
    for (int k = 0; k < nexpected; k++) {
        const tn_dt_t *dt = tn_dt_predefined((uintptr_t)expected[k].h);
        unsigned char src[7 * 32 + 1], out[7 * 32 + 1], back[7 * 32 + 1];

        if (dt == NULL || !dt->is_contig) {
            continue;
        }
        for (size_t i = 0; i < sizeof(src); i++) {
            src[i] = (unsigned char)(i * 7 + 1);
        }
        memset(out, 0, sizeof(out));
        memset(back, 0, sizeof(back));
        tn_dt_pack(dt, src, 7, out);
        CHECK(memcmp(out, src, 7 * dt->size) == 0, "%s pack", dt->name);
        CHECK(out[7 * dt->size] == 0, "%s pack wrote past count*size", dt->name);
        tn_dt_unpack(dt, out, 7, back);
        CHECK(memcmp(back, src, 7 * dt->size) == 0, "%s unpack", dt->name);
        tn_dt_pack(dt, NULL, 0, NULL);     /* count 0 touches nothing */
        tn_dt_unpack(dt, NULL, 0, NULL);
    }
    CHECK(tn_dt_bytes(tn_dt_predefined((uintptr_t)MPI_SHORT_INT), 3) == 3 * 6 ||
          sizeof(short) != 2 || sizeof(int) != 4, "tn_dt_bytes");
}

int main(void)
{
    build_expected();
    test_table();
    test_pack();
    if (failures) {
        fprintf(stderr, "test_dt: %d check(s) failed\n", failures);
        return 1;
    }
    printf("test_dt: %d predefined types OK\n", nexpected);
    return 0;
}
