/*
 * tern_bibw.c - bi-directional bandwidth between ranks 0 and 1.
 *
 * Per iteration both ranks post a window of non-blocking receives (each into
 * its own buffer slot) and a window of non-blocking sends to the other rank,
 * then wait for all of them.  Bandwidth = bytes moved in both directions /
 * time, in MB/s (1e6 bytes/s).
 */
#include "bench_common.h"

typedef struct {
    int rank, peer, window;
    long size;
    unsigned char *sbuf, *rbuf; /* rbuf: window slots of c.slot bytes */
    long slot;
    MPI_Request *req;           /* 2 * window */
} bibw_ctx;

static void bibw_kernel(void *p, long n)
{
    bibw_ctx *c = p;
    int sz = (int)c->size;
    if (c->rank > 1)
        return;
    for (long i = 0; i < n; i++) {
        for (int w = 0; w < c->window; w++)
            MPI_Irecv(c->rbuf + (size_t)w * (size_t)c->slot, sz, MPI_BYTE, c->peer, 100,
                      MPI_COMM_WORLD, &c->req[w]);
        for (int w = 0; w < c->window; w++)
            MPI_Isend(c->sbuf, sz, MPI_BYTE, c->peer, 100, MPI_COMM_WORLD,
                      &c->req[c->window + w]);
        MPI_Waitall(2 * c->window, c->req, MPI_STATUSES_IGNORE);
    }
}

int main(int argc, char **argv)
{
    bench_opts o;
    MPI_Init(&argc, &argv);
    int rc = bench_init(argc, argv, &o, 1, 4 * BENCH_MIB, 64,
                        "messages in flight per direction per iteration (default 64)");
    if (rc != 0) {
        MPI_Finalize();
        return rc < 0 ? 1 : 0;
    }
    if (o.nranks < 2) {
        if (o.rank == 0)
            fprintf(stderr, "tern_bibw: needs at least 2 ranks\n");
        MPI_Finalize();
        return 1;
    }

    bibw_ctx c = {.rank = o.rank, .peer = 1 - o.rank, .window = o.window};
    int active = o.rank <= 1;
    c.req = malloc(sizeof(MPI_Request) * 2 * (size_t)o.window);
    c.sbuf = bench_alloc(active ? (size_t)o.max_size : 1, 0);
    c.rbuf = bench_alloc(active ? (size_t)bench_slot(o.max_size) * (size_t)o.window : 1, 0);
    if (active)
        bench_fill(c.sbuf, o.max_size);

    bench_header(&o, "Bi-Directional Bandwidth Test");
    if (o.rank == 0) {
        printf("# Window size: %d\n", o.window);
        printf("# Size      Bandwidth (MB/s)\n");
        fflush(stdout);
    }

    int errors = 0;
    for (long size = bench_first_size(o.min_size); size <= o.max_size;
         size = bench_next_size(size)) {
        c.size = size;
        c.slot = bench_slot(size);
        long iters = bench_scaled(&o, size > BENCH_LARGE_THRESHOLD ? 50 : 200);
        long warm = bench_scaled(&o, size > BENCH_LARGE_THRESHOLD ? 5 : 20);
        long n = bench_plan(&o, bibw_kernel, &c, iters, warm);

        if (active)
            for (int w = 0; w < c.window; w++)
                memset(c.rbuf + (size_t)w * (size_t)c.slot, 0, (size_t)size);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        bibw_kernel(&c, n);
        double t = MPI_Wtime() - t0;

        int err = 0;
        if (active)
            for (int w = 0; w < c.window && !err; w++)
                err = bench_check(c.rbuf + (size_t)w * (size_t)c.slot, size);
        errors |= bench_report_errors(&o, err, size);
        if (o.rank == 0) {
            double bytes = 2.0 * (double)size * (double)c.window * (double)n;
            printf("%-10ld%18.2f\n", size, bytes / t / 1e6);
            fflush(stdout);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }

    free(c.req);
    free(c.sbuf);
    free(c.rbuf);
    MPI_Finalize();
    return errors ? 1 : 0;
}
