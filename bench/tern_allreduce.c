/*
 * tern_allreduce.c - MPI_Allreduce latency (MPI_FLOAT, MPI_SUM) over
 * MPI_COMM_WORLD for message sizes 4 B .. 1 MiB.
 *
 * Every rank times a loop of allreduce calls; the per-rank average time per
 * call is reduced to the average, minimum and maximum over all ranks (us).
 * The result of the last timed call is checked once per size.
 */
#include "bench_common.h"

typedef struct {
    int count;
    float *sbuf, *rbuf;
} ar_ctx;

static void ar_kernel(void *p, long n)
{
    ar_ctx *c = p;
    for (long i = 0; i < n; i++)
        MPI_Allreduce(c->sbuf, c->rbuf, c->count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

/* Small integers keep every partial sum exact in float, whatever the
 * reduction order. */
static float ar_value(int rank, long i)
{
    return (float)((rank + 1) * (int)(i % 7 + 1));
}

int main(int argc, char **argv)
{
    bench_opts o;
    MPI_Init(&argc, &argv);
    int rc = bench_init(argc, argv, &o, 4, BENCH_MIB, 0, NULL);
    if (rc != 0) {
        MPI_Finalize();
        return rc < 0 ? 1 : 0;
    }

    long maxcount = o.max_size / (long)sizeof(float);
    ar_ctx c;
    c.sbuf = bench_alloc((size_t)maxcount * sizeof(float), 0);
    c.rbuf = bench_alloc((size_t)maxcount * sizeof(float), 0);
    for (long i = 0; i < maxcount; i++)
        c.sbuf[i] = ar_value(o.rank, i);
    const float ranksum = (float)o.nranks * (float)(o.nranks + 1) / 2.0f;

    bench_header(&o, "Allreduce Latency Test");
    if (o.rank == 0) {
        printf("# Datatype: MPI_FLOAT, op: MPI_SUM\n");
        printf("# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations\n");
        fflush(stdout);
    }

    int errors = 0;
    long first = bench_first_size(o.min_size);
    if (first < (long)sizeof(float))
        first = (long)sizeof(float);
    for (long size = first; size <= o.max_size; size = bench_next_size(size)) {
        c.count = (int)(size / (long)sizeof(float));
        long iters = bench_scaled(&o, size > BENCH_LARGE_THRESHOLD ? 1000 : 10000);
        long warm = bench_scaled(&o, size > BENCH_LARGE_THRESHOLD ? 10 : 100);
        long n = bench_plan(&o, ar_kernel, &c, iters, warm);

        memset(c.rbuf, 0, (size_t)c.count * sizeof(float));
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        ar_kernel(&c, n);
        double t = (MPI_Wtime() - t0) * 1e6 / (double)n;

        int err = 0;
        for (long i = 0; i < c.count; i++)
            if (c.rbuf[i] != ranksum * (float)(i % 7 + 1)) {
                err = 1;
                break;
            }
        errors |= bench_report_errors(&o, err, size);

        bench_row(&o, size, t, n);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    free(c.sbuf);
    free(c.rbuf);
    MPI_Finalize();
    return errors ? 1 : 0;
}
