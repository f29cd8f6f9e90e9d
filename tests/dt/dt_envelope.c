/* MPI_Type_get_envelope(_c) / MPI_Type_get_contents(_c) for every combiner
 * (1 process): each constructor's arguments come back in the standard's
 * order, derived input types come back as handles the caller frees,
 * large-count constructors answer only the _c forms; names of derived
 * types; dup keeps the commit state; match_size and get_value_index. */
#include "dttest.h"

typedef struct {
    int          combiner;
    int          ni, na, nd;
    int          ints[32];
    MPI_Aint     addrs[16];
    MPI_Datatype types[8];
} env_t;

static env_t get(MPI_Datatype t)
{
    env_t e;

    memset(&e, 0, sizeof(e));
    CALL(MPI_Type_get_envelope(t, &e.ni, &e.na, &e.nd, &e.combiner));
    if (e.combiner != MPI_COMBINER_NAMED) {
        CHECK(e.ni <= 32 && e.na <= 16 && e.nd <= 8, "envelope too big");
        CALL(MPI_Type_get_contents(t, e.ni, e.na, e.nd, e.ints, e.addrs, e.types));
    }
    return e;
}

static void release(env_t *e)
{
    for (int i = 0; i < e->nd; i++) {
        int ni, na, nd, comb;
        MPI_Type_get_envelope(e->types[i], &ni, &na, &nd, &comb);
        if (comb != MPI_COMBINER_NAMED) {
            CALL(MPI_Type_free(&e->types[i]));
        }
    }
}

static int same_ints(const env_t *e, const int *want, int n)
{
    return e->ni == n && memcmp(e->ints, want, (size_t)n * sizeof(int)) == 0;
}

static void test_classic(void)
{
    MPI_Datatype t, u;
    env_t e;

    /* named */
    e = get(MPI_INT);
    CHECK(e.combiner == MPI_COMBINER_NAMED && e.ni == 0 && e.na == 0 && e.nd == 0, "named");

    CALL(MPI_Type_contiguous(4, MPI_INT, &t));
    e = get(t);
    {
        static const int w[] = { 4 };
        CHECK(e.combiner == MPI_COMBINER_CONTIGUOUS && same_ints(&e, w, 1) && e.na == 0 &&
              e.nd == 1 && e.types[0] == MPI_INT, "contiguous");
    }
    release(&e);

    /* vector of the contiguous: the derived input comes back and must be freed */
    CALL(MPI_Type_vector(3, 2, -5, t, &u));
    e = get(u);
    {
        static const int w[] = { 3, 2, -5 };
        CHECK(e.combiner == MPI_COMBINER_VECTOR && same_ints(&e, w, 3) && e.nd == 1, "vector");
        env_t inner = get(e.types[0]);
        CHECK(inner.combiner == MPI_COMBINER_CONTIGUOUS && inner.ints[0] == 4,
              "vector's input type");
        release(&inner);
    }
    /* the input type outlives its user handle through the contents */
    CALL(MPI_Type_free(&t));
    CHECK(t == MPI_DATATYPE_NULL, "Type_free sets MPI_DATATYPE_NULL");
    {
        env_t inner = get(e.types[0]);
        CHECK(inner.combiner == MPI_COMBINER_CONTIGUOUS, "freed input still described");
        release(&inner);
    }
    release(&e);
    CALL(MPI_Type_free(&u));

    CALL(MPI_Type_create_hvector(2, 3, 100, MPI_DOUBLE, &t));
    e = get(t);
    {
        static const int w[] = { 2, 3 };
        CHECK(e.combiner == MPI_COMBINER_HVECTOR && same_ints(&e, w, 2) && e.na == 1 &&
              e.addrs[0] == 100 && e.types[0] == MPI_DOUBLE, "hvector");
    }
    CALL(MPI_Type_free(&t));

    {
        int bl[3] = { 1, 2, 3 }, d[3] = { 9, 0, 4 };
        MPI_Aint ad[3] = { 72, 0, 32 };
        static const int wi[] = { 3, 1, 2, 3, 9, 0, 4 };
        static const int wh[] = { 3, 1, 2, 3 };
        static const int wib[] = { 3, 2, 9, 0, 4 };
        static const int whb[] = { 3, 2 };

        CALL(MPI_Type_indexed(3, bl, d, MPI_INT, &t));
        e = get(t);
        CHECK(e.combiner == MPI_COMBINER_INDEXED && same_ints(&e, wi, 7) && e.na == 0, "indexed");
        CALL(MPI_Type_free(&t));

        CALL(MPI_Type_create_hindexed(3, bl, ad, MPI_INT, &t));
        e = get(t);
        CHECK(e.combiner == MPI_COMBINER_HINDEXED && same_ints(&e, wh, 4) && e.na == 3 &&
              e.addrs[0] == 72 && e.addrs[2] == 32, "hindexed");
        CALL(MPI_Type_free(&t));

        CALL(MPI_Type_create_indexed_block(3, 2, d, MPI_INT, &t));
        e = get(t);
        CHECK(e.combiner == MPI_COMBINER_INDEXED_BLOCK && same_ints(&e, wib, 5), "indexed_block");
        CALL(MPI_Type_free(&t));

        CALL(MPI_Type_create_hindexed_block(3, 2, ad, MPI_INT, &t));
        e = get(t);
        CHECK(e.combiner == MPI_COMBINER_HINDEXED_BLOCK && same_ints(&e, whb, 2) && e.na == 3 &&
              e.addrs[1] == 0, "hindexed_block");
        CALL(MPI_Type_free(&t));
    }

    {
        int bl[2] = { 1, 2 };
        MPI_Aint d[2] = { 0, 8 };
        MPI_Datatype ty[2] = { MPI_INT, MPI_DOUBLE };
        static const int w[] = { 2, 1, 2 };
        CALL(MPI_Type_create_struct(2, bl, d, ty, &t));
        e = get(t);
        CHECK(e.combiner == MPI_COMBINER_STRUCT && same_ints(&e, w, 3) && e.na == 2 &&
              e.addrs[1] == 8 && e.nd == 2 && e.types[0] == MPI_INT && e.types[1] == MPI_DOUBLE,
              "struct");
        CALL(MPI_Type_create_resized(t, -8, 32, &u));
        env_t r = get(u);
        CHECK(r.combiner == MPI_COMBINER_RESIZED && r.ni == 0 && r.na == 2 && r.addrs[0] == -8 &&
              r.addrs[1] == 32 && r.nd == 1, "resized");
        release(&r);
        CALL(MPI_Type_free(&u));
        CALL(MPI_Type_free(&t));
    }

    {
        int sz[2] = { 10, 20 }, sub[2] = { 5, 6 }, st[2] = { 1, 2 };
        static const int w[] = { 2, 10, 20, 5, 6, 1, 2, MPI_ORDER_FORTRAN };
        CALL(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_FORTRAN, MPI_FLOAT, &t));
        e = get(t);
        CHECK(e.combiner == MPI_COMBINER_SUBARRAY && same_ints(&e, w, 8) && e.nd == 1 &&
              e.types[0] == MPI_FLOAT, "subarray");
        CALL(MPI_Type_free(&t));
    }
    {
        int g[2] = { 8, 9 }, di[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC };
        int da[2] = { MPI_DISTRIBUTE_DFLT_DARG, 2 }, ps[2] = { 2, 3 };
        static const int w[] = { 6, 4, 2, 8, 9, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC,
                                 MPI_DISTRIBUTE_DFLT_DARG, 2, 2, 3, MPI_ORDER_C };
        CALL(MPI_Type_create_darray(6, 4, 2, g, di, da, ps, MPI_ORDER_C, MPI_INT, &t));
        e = get(t);
        CHECK(e.combiner == MPI_COMBINER_DARRAY && same_ints(&e, w, 12), "darray");
        CALL(MPI_Type_free(&t));
    }

    /* dup: committed state copied, combiner DUP, name not copied */
    CALL(MPI_Type_contiguous(2, MPI_INT, &t));
    CALL(MPI_Type_commit(&t));
    CALL(MPI_Type_set_name(t, "pair of ints"));
    CALL(MPI_Type_dup(t, &u));
    e = get(u);
    CHECK(e.combiner == MPI_COMBINER_DUP && e.ni == 0 && e.na == 0 && e.nd == 1, "dup");
    release(&e);
    {
        char name[MPI_MAX_OBJECT_NAME];
        int len;
        CALL(MPI_Type_get_name(t, name, &len));
        CHECK(strcmp(name, "pair of ints") == 0 && len == 12, "name '%s'", name);
        CALL(MPI_Type_get_name(u, name, &len));
        CHECK(name[0] == '\0' && len == 0, "derived default name '%s'", name);
    }
    /* the dup is committed: it can be sent to myself */
    {
        int a[2] = { 5, 6 }, b[2] = { 0, 0 };
        CALL(MPI_Sendrecv(a, 1, u, 0, 1, b, 1, u, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE));
        CHECK(b[0] == 5 && b[1] == 6, "dup'd type in use");
    }
    CALL(MPI_Type_free(&u));
    CALL(MPI_Type_free(&t));
}

/* large-count constructors: arguments as large counts, only the _c forms */
static void test_large(void)
{
    MPI_Datatype t;
    MPI_Count ni, na, nl, nd;
    int comb, ints[8];
    MPI_Aint addrs[8];
    MPI_Count larges[16];
    MPI_Datatype types[4];
    int i_ni, i_na, i_nd;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    CALL(MPI_Type_create_hvector_c(3, 2, 48, MPI_DOUBLE, &t));
    CALL(MPI_Type_get_envelope_c(t, &ni, &na, &nl, &nd, &comb));
    CHECK(comb == MPI_COMBINER_HVECTOR && ni == 0 && na == 0 && nl == 3 && nd == 1,
          "hvector_c envelope %lld %lld %lld %lld", (long long)ni, (long long)na, (long long)nl,
          (long long)nd);
    CALL(MPI_Type_get_contents_c(t, 8, 8, 16, 4, ints, addrs, larges, types));
    CHECK(larges[0] == 3 && larges[1] == 2 && larges[2] == 48 && types[0] == MPI_DOUBLE,
          "hvector_c contents");
    CHECK(dt_class(MPI_Type_get_envelope(t, &i_ni, &i_na, &i_nd, &comb)) == MPI_ERR_TYPE,
          "int envelope of a large-count type");
    CALL(MPI_Type_free(&t));

    {
        MPI_Count sz[2] = { 10, 20 }, sub[2] = { 5, 6 }, st[2] = { 1, 2 };
        CALL(MPI_Type_create_subarray_c(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &t));
        CALL(MPI_Type_get_envelope_c(t, &ni, &na, &nl, &nd, &comb));
        CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 2 && nl == 6 && nd == 1, "subarray_c env");
        CALL(MPI_Type_get_contents_c(t, 8, 8, 16, 4, ints, addrs, larges, types));
        CHECK(ints[0] == 2 && ints[1] == MPI_ORDER_C && larges[0] == 10 && larges[3] == 6 &&
              larges[5] == 2, "subarray_c contents");
        CALL(MPI_Type_free(&t));
    }
    /* the _c envelope of a classic type: no large counts */
    CALL(MPI_Type_vector(2, 1, 3, MPI_INT, &t));
    CALL(MPI_Type_get_envelope_c(t, &ni, &na, &nl, &nd, &comb));
    CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && nl == 0, "classic via _c");
    /* too small output arrays */
    CHECK(dt_class(MPI_Type_get_contents(t, 2, 0, 1, ints, addrs, types)) == MPI_ERR_ARG,
          "get_contents with max_integers too small");
    CHECK(dt_class(MPI_Type_get_contents(MPI_INT, 0, 0, 0, ints, addrs, types)) ==
              MPI_ERR_TYPE, "get_contents of a named type");
    CALL(MPI_Type_free(&t));

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_misc(void)
{
    MPI_Datatype t;
    int sz;

    CALL(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t));
    CALL(MPI_Type_size(t, &sz));
    CHECK(sz == 8, "match_size real 8 -> size %d", sz);
    CALL(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &t));
    CHECK(t == MPI_INTEGER4, "match_size integer 4");
    CALL(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &t));
    CHECK(t == MPI_COMPLEX16, "match_size complex 16");

    CALL(MPI_Type_get_value_index(MPI_FLOAT, MPI_INT, &t));
    CHECK(t == MPI_FLOAT_INT, "value_index float,int");
    CALL(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &t));
    CHECK(t == MPI_DOUBLE_INT, "value_index double,int");
    CALL(MPI_Type_get_value_index(MPI_INTEGER, MPI_INTEGER, &t));
    CHECK(t == MPI_2INTEGER, "value_index integer,integer");
    CALL(MPI_Type_get_value_index(MPI_DOUBLE, MPI_LONG, &t));
    CHECK(t == MPI_DATATYPE_NULL, "value_index double,long has no pair type");
}

int main(int argc, char **argv)
{
    dt_init(&argc, &argv);
    test_classic();
    test_large();
    test_misc();
    return dt_finish();
}
