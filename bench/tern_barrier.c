/*
 * tern_barrier.c - MPI_Barrier latency over MPI_COMM_WORLD.
 *
 * Every rank times a loop of barriers; the per-rank average time per call
 * is reduced to the average, minimum and maximum over all ranks (us).
 */
#include "bench_common.h"

static void barrier_kernel(void *p, long n)
{
    (void)p;
    for (long i = 0; i < n; i++)
        MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    bench_opts o;
    MPI_Init(&argc, &argv);
    int rc = bench_init(argc, argv, &o, 0, 0, 0, NULL);
    if (rc != 0) {
        MPI_Finalize();
        return rc < 0 ? 1 : 0;
    }

    bench_header(&o, "Barrier Latency Test");
    if (o.rank == 0) {
        printf("# Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations\n");
        fflush(stdout);
    }

    long iters = bench_scaled(&o, 10000);
    long warm = bench_scaled(&o, 100);
    long n = bench_plan(&o, barrier_kernel, NULL, iters, warm);

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    barrier_kernel(NULL, n);
    double t = (MPI_Wtime() - t0) * 1e6 / (double)n;

    double avg, min, max;
    bench_stats(t, &avg, &min, &max);
    if (o.rank == 0) {
        printf("%17.2f%18.2f%18.2f%12ld\n", avg, min, max, n);
        fflush(stdout);
    }

    MPI_Finalize();
    return 0;
}
