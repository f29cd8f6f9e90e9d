/*
 * tern_latency.c - point-to-point ping-pong latency between ranks 0 and 1.
 *
 * Rank 0 sends a message to rank 1, which sends it back; the reported
 * latency is half the average round-trip time, in microseconds (three
 * decimals: a nanosecond is 0.4% of the 8-byte latency over shared memory).
 * Ranks other than 0 and 1 (if any) only take part in the control
 * collectives.
 */
#include "bench_common.h"

typedef struct {
    int rank;
    long size;
    unsigned char *sbuf, *rbuf;
} lat_ctx;

static void lat_kernel(void *p, long n)
{
    lat_ctx *c = p;
    int sz = (int)c->size;
    if (c->rank == 0) {
        for (long i = 0; i < n; i++) {
            MPI_Send(c->sbuf, sz, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(c->rbuf, sz, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else if (c->rank == 1) {
        for (long i = 0; i < n; i++) {
            MPI_Recv(c->rbuf, sz, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(c->sbuf, sz, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
    }
}

int main(int argc, char **argv)
{
    bench_opts o;
    MPI_Init(&argc, &argv);
    int rc = bench_init(argc, argv, &o, 0, 4 * BENCH_MIB, 0, NULL);
    if (rc != 0) {
        MPI_Finalize();
        return rc < 0 ? 1 : 0;
    }
    if (o.nranks < 2) {
        if (o.rank == 0)
            fprintf(stderr, "tern_latency: needs at least 2 ranks\n");
        MPI_Finalize();
        return 1;
    }

    lat_ctx c = {.rank = o.rank};
    c.sbuf = bench_alloc((size_t)o.max_size, 0);
    c.rbuf = bench_alloc((size_t)o.max_size, 0);
    bench_fill(c.sbuf, o.max_size);

    bench_header(&o, "Latency Test");
    if (o.rank == 0) {
        printf("# Size          Latency (us)\n");
        fflush(stdout);
    }

    int errors = 0;
    for (long size = bench_first_size(o.min_size); size <= o.max_size;
         size = bench_next_size(size)) {
        c.size = size;
        long iters = bench_scaled(&o, size > BENCH_LARGE_THRESHOLD ? 1000 : 10000);
        long warm = bench_scaled(&o, size > BENCH_LARGE_THRESHOLD ? 10 : 100);
        long n = bench_plan(&o, lat_kernel, &c, iters, warm);

        memset(c.rbuf, 0, (size_t)size);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        lat_kernel(&c, n);
        double t = MPI_Wtime() - t0;

        int err = (o.rank <= 1) ? bench_check(c.rbuf, size) : 0;
        errors |= bench_report_errors(&o, err, size);
        if (o.rank == 0) {
            printf("%-10ld%18.3f\n", size, t * 1e6 / (2.0 * (double)n));
            fflush(stdout);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }

    free(c.sbuf);
    free(c.rbuf);
    MPI_Finalize();
    return errors ? 1 : 0;
}
