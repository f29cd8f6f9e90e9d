/* MPI_Type_create_f90_integer / _real / _complex and MPI_Type_match_size:
 * the returned type matches the smallest Fortran kind that fits (size,
 * extent, data moved as the sized type), envelope and contents report
 * MPI_COMBINER_F90_* with the (p, r) given, the same arguments give the
 * same handle, MPI_Type_free refuses the type, MPI_Type_dup of it works,
 * and no fitting kind is MPI_ERR_ARG.  Two ranks: a send of an f90 type
 * is received as the sized type. */
#include "dttest.h"

/* envelope and contents of an f90 type */
static void check_f90(MPI_Datatype t, int combiner, int ni, int p, int r, int size)
{
    int nis = -1, nas = -1, nds = -1, comb = -1, ints[2] = { -1, -1 }, sz = -1;
    MPI_Count nic = -1, nac = -1, nlc = -1, ndc = -1;
    MPI_Aint lb = -1, ext = -1;

    CALL(MPI_Type_get_envelope(t, &nis, &nas, &nds, &comb));
    CHECK(comb == combiner && nis == ni && nas == 0 && nds == 0,
          "envelope %d/%d/%d combiner %d, want %d ints combiner %d", nis, nas, nds, comb, ni,
          combiner);
    CALL(MPI_Type_get_envelope_c(t, &nic, &nac, &nlc, &ndc, &comb));
    CHECK(comb == combiner && nic == ni && nac == 0 && nlc == 0 && ndc == 0,
          "envelope_c %lld/%lld/%lld/%lld combiner %d", (long long)nic, (long long)nac,
          (long long)nlc, (long long)ndc, comb);
    CALL(MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL));
    if (ni == 1) {
        CHECK(ints[0] == r, "contents r %d, want %d", ints[0], r);
    } else {
        CHECK(ints[0] == p && ints[1] == r, "contents (%d, %d), want (%d, %d)", ints[0],
              ints[1], p, r);
    }
    CALL(MPI_Type_size(t, &sz));
    CHECK(sz == size, "size %d, want %d", sz, size);
    CALL(MPI_Type_get_extent(t, &lb, &ext));
    CHECK(lb == 0 && ext == size, "lb %ld extent %ld, want 0 %d", (long)lb, (long)ext, size);
}

static void test_create(void)
{
    static const struct {
        int r, size;
    } ints[] = { { 1, 1 }, { 2, 1 }, { 3, 2 }, { 4, 2 }, { 5, 4 }, { 9, 4 },
                 { 10, 8 }, { 18, 8 }, { 19, 16 }, { 38, 16 }, { MPI_UNDEFINED, 1 } };
    static const struct {
        int p, r, size;
    } reals[] = { { 6, 30, 4 }, { 6, 37, 4 }, { 7, MPI_UNDEFINED, 8 }, { 15, 300, 8 },
                  { MPI_UNDEFINED, 38, 8 }, { 15, 307, 8 }, { 16, 30, 16 }, { 33, 4931, 16 },
                  { 1, 1, 4 } };
    MPI_Datatype t, t2, d;
    int rc, comb, ni, na, nd;

    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
        CALL(MPI_Type_create_f90_integer(ints[i].r, &t));
        check_f90(t, MPI_COMBINER_F90_INTEGER, 1, 0, ints[i].r, ints[i].size);
        CALL(MPI_Type_create_f90_integer(ints[i].r, &t2));
        CHECK(t == t2, "r=%d: a second call gives another handle", ints[i].r);
    }
    for (size_t i = 0; i < sizeof(reals) / sizeof(reals[0]); i++) {
        CALL(MPI_Type_create_f90_real(reals[i].p, reals[i].r, &t));
        check_f90(t, MPI_COMBINER_F90_REAL, 2, reals[i].p, reals[i].r, reals[i].size);
        CALL(MPI_Type_create_f90_complex(reals[i].p, reals[i].r, &t2));
        check_f90(t2, MPI_COMBINER_F90_COMPLEX, 2, reals[i].p, reals[i].r, 2 * reals[i].size);
        CHECK(t != t2, "real and complex (%d, %d) share a handle", reals[i].p, reals[i].r);
    }

    /* no kind fits */
    rc = MPI_Type_create_f90_integer(39, &t);
    CHECK(dt_class(rc) == MPI_ERR_ARG, "integer r=39: class %d", dt_class(rc));
    rc = MPI_Type_create_f90_real(34, 10, &t);
    CHECK(dt_class(rc) == MPI_ERR_ARG, "real p=34: class %d", dt_class(rc));
    rc = MPI_Type_create_f90_complex(6, 5000, &t);
    CHECK(dt_class(rc) == MPI_ERR_ARG, "complex r=5000: class %d", dt_class(rc));
    rc = MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &t);
    CHECK(dt_class(rc) == MPI_ERR_ARG, "real (UNDEFINED, UNDEFINED): class %d", dt_class(rc));

    /* predefined: not freeable; a dup of it is an ordinary derived type */
    CALL(MPI_Type_create_f90_real(15, 300, &t));
    t2 = t;
    rc = MPI_Type_free(&t2);
    CHECK(dt_class(rc) == MPI_ERR_TYPE && t2 == t, "MPI_Type_free of an f90 type: class %d",
          dt_class(rc));
    CALL(MPI_Type_dup(t, &d));
    CALL(MPI_Type_get_envelope(d, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_DUP && nd == 1, "dup: combiner %d nd %d", comb, nd);
    CALL(MPI_Type_get_contents(d, 0, 0, 1, NULL, NULL, &t2));
    CHECK(t2 == t, "dup's contents is not the f90 type");
    CALL(MPI_Type_free(&d));
    /* the f90 type is still there and still an f90 type */
    check_f90(t, MPI_COMBINER_F90_REAL, 2, 15, 300, 8);
}

static void test_match_size(void)
{
    static const struct {
        int cls, size;
        MPI_Datatype want;
    } m[] = {
        { MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1 }, { MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4 },
        { MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8 }, { MPI_TYPECLASS_REAL, 4, MPI_REAL4 },
        { MPI_TYPECLASS_REAL, 8, MPI_REAL8 },       { MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8 },
        { MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16 },
    };
    MPI_Datatype t;
    int rc;

    for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
        t = MPI_DATATYPE_NULL;
        CALL(MPI_Type_match_size(m[i].cls, m[i].size, &t));
        CHECK(t == m[i].want, "match_size(%d, %d) gave another type", m[i].cls, m[i].size);
    }
    rc = MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t);
    CHECK(dt_class(rc) == MPI_ERR_ARG, "match_size(REAL, 3): class %d", dt_class(rc));
}

/* an f90 type moves data as its sized type, in sends and reductions */
static void test_comm(void)
{
    MPI_Datatype ti, tr;
    int64_t iv[3] = { 1, -2, 1LL << 40 }, isum[3];
    double dv[2] = { 1.5, -2.25 }, dr[2] = { 0, 0 };

    CALL(MPI_Type_create_f90_integer(15, &ti));
    CALL(MPI_Type_create_f90_real(15, 300, &tr));
    CALL(MPI_Allreduce(iv, isum, 3, ti, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < 3; i++) {
        CHECK(isum[i] == iv[i] * dt_size, "allreduce[%d] %lld", i, (long long)isum[i]);
    }
    if (dt_size >= 2 && dt_rank == 0) {
        CALL(MPI_Send(dv, 2, tr, 1, 7, MPI_COMM_WORLD));
    } else if (dt_size >= 2 && dt_rank == 1) {
        MPI_Status st;
        int n = -1;
        CALL(MPI_Recv(dr, 2, MPI_REAL8, 0, 7, MPI_COMM_WORLD, &st));
        CALL(MPI_Get_count(&st, tr, &n));
        CHECK(dr[0] == 1.5 && dr[1] == -2.25 && n == 2, "received %g %g count %d", dr[0],
              dr[1], n);
    }
}

int main(int argc, char **argv)
{
    dt_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    test_create();
    test_match_size();
    test_comm();
    return dt_finish();
}
