/* Derived datatypes in collectives (any number of processes): allreduce
 * and reduce with MPI_SUM on a contiguous-of-double type and on a strided
 * vector (its data; dt_coll_holes checks the holes), MPI_MAXLOC on a contiguous of MPI_DOUBLE_INT,
 * a user op on a struct, bcast / gather / allgather / alltoall with derived
 * types on one side and basic types on the other. */
#include "dttest.h"

#define N 6

static void sum_pairs(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    /* struct {int; double} elements, extent 16 */
    char *a = in, *b = inout;
    (void)dt;
    for (int i = 0; i < *len; i++, a += 16, b += 16) {
        int ia, ib;
        double da, db;
        memcpy(&ia, a, 4);
        memcpy(&ib, b, 4);
        memcpy(&da, a + 8, 8);
        memcpy(&db, b + 8, 8);
        ib += ia;
        db += da;
        memcpy(b, &ib, 4);
        memcpy(b + 8, &db, 8);
    }
}

int main(int argc, char **argv)
{
    MPI_Datatype c3, vec;
    double x[N], y[2 * N];
    int p, r;

    dt_init(&argc, &argv);
    p = dt_size;
    r = dt_rank;

    /* allreduce on a contiguous of 3 doubles, count 2 */
    CALL(MPI_Type_contiguous(3, MPI_DOUBLE, &c3));
    CALL(MPI_Type_commit(&c3));
    for (int i = 0; i < N; i++) {
        x[i] = r * 10 + i;
    }
    CALL(MPI_Allreduce(x, y, 2, c3, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++) {
        double want = 10.0 * p * (p - 1) / 2 + (double)p * i;
        CHECK(y[i] == want, "allreduce contig[%d] = %g, want %g", i, y[i], want);
    }
    /* in place */
    CALL(MPI_Allreduce(MPI_IN_PLACE, x, 2, c3, MPI_MAX, MPI_COMM_WORLD));
    CHECK(x[0] == (p - 1) * 10 && x[5] == (p - 1) * 10 + 5, "allreduce in place max");

    /* allreduce on every other double: holes keep their values */
    CALL(MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &vec));
    CALL(MPI_Type_commit(&vec));
    double v[2 * N], w[2 * N];
    for (int i = 0; i < 2 * N; i++) {
        v[i] = i % 2 == 0 ? r + i : -1000;
        w[i] = -7;
    }
    CALL(MPI_Allreduce(v, w, 1, vec, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < 2 * N - 1; i += 2) {
        double want = (double)p * (p - 1) / 2 + (double)p * i;
        CHECK(w[i] == want, "allreduce vector[%d] = %g, want %g", i, w[i], want);
    }
    /* reduce to the last rank */
    for (int i = 0; i < 2 * N; i++) {
        w[i] = -7;
    }
    CALL(MPI_Reduce(v, w, 1, vec, MPI_SUM, p - 1, MPI_COMM_WORLD));
    if (r == p - 1) {
        CHECK(w[2] == (double)p * (p - 1) / 2 + 2.0 * p, "reduce vector");
    }

    /* MAXLOC on a contiguous of DOUBLE_INT */
    {
        struct { double v; int i; } a[2], b[2];
        MPI_Datatype c2;
        CALL(MPI_Type_contiguous(2, MPI_DOUBLE_INT, &c2));
        CALL(MPI_Type_commit(&c2));
        a[0].v = r;          /* max at the last rank */
        a[0].i = r;
        a[1].v = -r;         /* max at rank 0 */
        a[1].i = r;
        CALL(MPI_Allreduce(a, b, 1, c2, MPI_MAXLOC, MPI_COMM_WORLD));
        CHECK(b[0].v == p - 1 && b[0].i == p - 1 && b[1].v == 0 && b[1].i == 0,
              "maxloc: (%g,%d) (%g,%d)", b[0].v, b[0].i, b[1].v, b[1].i);
        CALL(MPI_Type_free(&c2));
    }

    /* a user op on a struct type */
    {
        MPI_Datatype st;
        MPI_Op op;
        int bl[2] = { 1, 1 };
        MPI_Aint d[2] = { 0, 8 };
        MPI_Datatype ty[2] = { MPI_INT, MPI_DOUBLE };
        struct { int i; int pad; double d; } s[2], o[2];
        CALL(MPI_Type_create_struct(2, bl, d, ty, &st));
        CALL(MPI_Type_commit(&st));
        CALL(MPI_Op_create(sum_pairs, 1, &op));
        for (int k = 0; k < 2; k++) {
            s[k].i = r + k;
            s[k].d = 0.5 * r;
        }
        CALL(MPI_Allreduce(s, o, 2, st, op, MPI_COMM_WORLD));
        CHECK(o[1].i == p * (p - 1) / 2 + p && o[0].d == 0.25 * p * (p - 1),
              "user op on struct");
        CALL(MPI_Op_free(&op));
        CALL(MPI_Type_free(&st));
    }

    /* bcast of the vector from rank 0 */
    for (int i = 0; i < 2 * N; i++) {
        v[i] = r == 0 ? 100 + i : -5;
    }
    CALL(MPI_Bcast(v, 1, vec, 0, MPI_COMM_WORLD));
    {
        int bad = 0;
        for (int i = 0; i < 2 * N - 1; i++) {
            bad += i % 2 == 0 && v[i] != 100 + i;
        }
        CHECK(bad == 0, "bcast vector: %d wrong", bad);
    }

    /* gather: every rank sends the vector, the root receives doubles */
    {
        double *all = malloc(sizeof(double) * N * (size_t)p);
        for (int i = 0; i < 2 * N; i++) {
            v[i] = i % 2 == 0 ? 1000 * r + i : -1;
        }
        CALL(MPI_Gather(v, 1, vec, all, N, MPI_DOUBLE, 0, MPI_COMM_WORLD));
        if (r == 0) {
            int bad = 0;
            for (int q = 0; q < p; q++) {
                for (int i = 0; i < N; i++) {
                    bad += all[q * N + i] != 1000 * q + 2 * i;
                }
            }
            CHECK(bad == 0, "gather: %d wrong", bad);
        }
        /* allgather into a vector layout on the receive side */
        double *wide = malloc(sizeof(double) * 2 * N * (size_t)p);
        MPI_Datatype vr;
        CALL(MPI_Type_create_resized(vec, 0, 2 * N * sizeof(double), &vr));
        CALL(MPI_Type_commit(&vr));
        for (int i = 0; i < N; i++) {
            x[i] = 100 * r + i;
        }
        for (int i = 0; i < 2 * N * p; i++) {
            wide[i] = -3;
        }
        CALL(MPI_Allgather(x, N, MPI_DOUBLE, wide, 1, vr, MPI_COMM_WORLD));
        int bad = 0;
        for (int q = 0; q < p; q++) {
            for (int i = 0; i < 2 * N; i++) {
                bad += wide[q * 2 * N + i] != (i % 2 == 0 ? 100 * q + i / 2 : -3);
            }
        }
        CHECK(bad == 0, "allgather into vectors: %d wrong", bad);
        /* alltoall: block q of my vectors goes to rank q */
        double *sendv = malloc(sizeof(double) * 2 * N * (size_t)p);
        double *recvd = malloc(sizeof(double) * N * (size_t)p);
        for (int q = 0; q < p; q++) {
            for (int i = 0; i < 2 * N; i++) {
                sendv[q * 2 * N + i] = i % 2 == 0 ? 10000 * r + 100 * q + i / 2 : -9;
            }
        }
        CALL(MPI_Alltoall(sendv, 1, vr, recvd, N, MPI_DOUBLE, MPI_COMM_WORLD));
        bad = 0;
        for (int q = 0; q < p; q++) {
            for (int i = 0; i < N; i++) {
                bad += recvd[q * N + i] != 10000 * q + 100 * r + i;
            }
        }
        CHECK(bad == 0, "alltoall of vectors: %d wrong", bad);
        CALL(MPI_Type_free(&vr));
        free(all);
        free(wide);
        free(sendv);
        free(recvd);
    }

    CALL(MPI_Type_free(&vec));
    CALL(MPI_Type_free(&c3));
    return dt_finish();
}
