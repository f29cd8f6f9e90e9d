/*
 * tern_mr.c - multi-pair message rate.
 *
 * With n ranks, rank i < n/2 sends to rank i + n/2 (an odd last rank idles).
 * Per iteration every sender posts a window of non-blocking sends, every
 * receiver a matching window of non-blocking receives (each into its own
 * buffer slot); after MPI_Waitall the receiver returns a small
 * acknowledgement.  Reported: aggregate bandwidth over all pairs in MB/s
 * (1e6 bytes/s) and aggregate message rate in messages/s (sum over pairs).
 */
#include "bench_common.h"

typedef struct {
    int role; /* 0 idle, 1 sender, 2 receiver */
    int peer, window;
    long size;
    unsigned char *sbuf, *rbuf; /* rbuf: window slots of c.slot bytes */
    long slot;
    MPI_Request *req;
} mr_ctx;

static void mr_kernel(void *p, long n)
{
    mr_ctx *c = p;
    int sz = (int)c->size, ack = 0;
    if (c->role == 1) {
        for (long i = 0; i < n; i++) {
            for (int w = 0; w < c->window; w++)
                MPI_Isend(c->sbuf, sz, MPI_BYTE, c->peer, 100, MPI_COMM_WORLD, &c->req[w]);
            MPI_Waitall(c->window, c->req, MPI_STATUSES_IGNORE);
            MPI_Recv(&ack, 1, MPI_INT, c->peer, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else if (c->role == 2) {
        for (long i = 0; i < n; i++) {
            for (int w = 0; w < c->window; w++)
                MPI_Irecv(c->rbuf + (size_t)w * (size_t)c->slot, sz, MPI_BYTE, c->peer, 100,
                          MPI_COMM_WORLD, &c->req[w]);
            MPI_Waitall(c->window, c->req, MPI_STATUSES_IGNORE);
            MPI_Send(&ack, 1, MPI_INT, c->peer, 101, MPI_COMM_WORLD);
        }
    }
}

int main(int argc, char **argv)
{
    bench_opts o;
    MPI_Init(&argc, &argv);
    int rc = bench_init(argc, argv, &o, 1, 64 * 1024, 64,
                        "messages in flight per pair per iteration (default 64)");
    if (rc != 0) {
        MPI_Finalize();
        return rc < 0 ? 1 : 0;
    }
    if (o.nranks < 2) {
        if (o.rank == 0)
            fprintf(stderr, "tern_mr: needs at least 2 ranks\n");
        MPI_Finalize();
        return 1;
    }

    int pairs = o.nranks / 2;
    mr_ctx c = {.window = o.window};
    if (o.rank < pairs) {
        c.role = 1;
        c.peer = o.rank + pairs;
    } else if (o.rank < 2 * pairs) {
        c.role = 2;
        c.peer = o.rank - pairs;
    }
    c.req = malloc(sizeof(MPI_Request) * (size_t)o.window);
    c.sbuf = bench_alloc(c.role == 1 ? (size_t)o.max_size : 1, 0);
    c.rbuf = bench_alloc(c.role == 2 ? (size_t)bench_slot(o.max_size) * (size_t)o.window : 1, 0);
    if (c.role == 1)
        bench_fill(c.sbuf, o.max_size);

    bench_header(&o, "Multiple Bandwidth / Message Rate Test");
    if (o.rank == 0) {
        printf("# [ pairs: %d ] [ window size: %d ]\n", pairs, o.window);
        printf("# Size                  MB/s        Messages/s\n");
        fflush(stdout);
    }

    int errors = 0;
    for (long size = bench_first_size(o.min_size); size <= o.max_size;
         size = bench_next_size(size)) {
        c.size = size;
        c.slot = bench_slot(size);
        long iters = bench_scaled(&o, size > BENCH_LARGE_THRESHOLD ? 100 : 1000);
        long warm = bench_scaled(&o, size > BENCH_LARGE_THRESHOLD ? 10 : 100);
        long n = bench_plan(&o, mr_kernel, &c, iters, warm);

        if (c.role == 2)
            for (int w = 0; w < c.window; w++)
                memset(c.rbuf + (size_t)w * (size_t)c.slot, 0, (size_t)size);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        mr_kernel(&c, n);
        double t = MPI_Wtime() - t0;

        int err = 0;
        if (c.role == 2)
            for (int w = 0; w < c.window && !err; w++)
                err = bench_check(c.rbuf + (size_t)w * (size_t)c.slot, size);
        errors |= bench_report_errors(&o, err, size);

        double rate = c.role == 1 ? (double)n * (double)c.window / t : 0.0, total = 0.0;
        MPI_Reduce(&rate, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (o.rank == 0) {
            printf("%-10ld%22.2f%18.2f\n", size, total * (double)size / 1e6, total);
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
