/* Collectives leave the holes of a derived receive type alone (any number
 * of processes): an allreduce, reduce and bcast on every other double must
 * not write the doubles in between.
 *
 * Needs the collectives to copy user buffers with tn_dt_copy (not memcpy of
 * count * extent); registered DISABLED until they do. */
#include "dttest.h"

#define N 6

int main(int argc, char **argv)
{
    MPI_Datatype vec;
    double v[2 * N], w[2 * N];

    dt_init(&argc, &argv);
    CALL(MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &vec));
    CALL(MPI_Type_commit(&vec));
    for (int i = 0; i < 2 * N; i++) {
        v[i] = i % 2 == 0 ? dt_rank + i : -1000;
        w[i] = -7;
    }
    CALL(MPI_Allreduce(v, w, 1, vec, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 1; i < 2 * N - 1; i += 2) {
        CHECK(w[i] == -7, "allreduce wrote hole %d: %g", i, w[i]);
    }
    for (int i = 0; i < 2 * N; i++) {
        w[i] = -7;
    }
    CALL(MPI_Reduce(v, w, 1, vec, MPI_SUM, 0, MPI_COMM_WORLD));
    for (int i = 1; i < 2 * N - 1; i += 2) {
        CHECK(w[i] == -7, "reduce wrote hole %d: %g", i, w[i]);
    }
    for (int i = 0; i < 2 * N; i++) {
        v[i] = dt_rank == 0 ? i : -5;
    }
    CALL(MPI_Bcast(v, 1, vec, 0, MPI_COMM_WORLD));
    for (int i = 1; i < 2 * N - 1; i += 2) {
        CHECK(v[i] == (dt_rank == 0 ? i : -5), "bcast wrote hole %d: %g", i, v[i]);
    }
    CALL(MPI_Type_free(&vec));
    return dt_finish();
}
