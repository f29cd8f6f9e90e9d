/*
 * tern_vbw.c - uni-directional bandwidth of a strided datatype between
 * ranks 0 and 1: every other double (MPI_Type_vector(n, 1, 2, MPI_DOUBLE))
 * on both sides, so the library must gather and scatter the data.
 *
 * Per iteration rank 0 posts a window of MPI_Isend of the vector, rank 1 a
 * matching window of MPI_Irecv (each into its own buffer slot); after
 * MPI_Waitall rank 1 returns a small acknowledgement.  Size is the data
 * moved per message (n * 8 bytes; the buffers span twice that).  Bandwidth
 * = data bytes / time, in MB/s (1e6 bytes/s).
 */
#include "bench_common.h"

typedef struct {
    int rank, window;
    long size;                  /* data bytes per message */
    double *sbuf, *rbuf;        /* rbuf: window slots of 2 * size bytes */
    MPI_Datatype vec;
    MPI_Request *req;
} vbw_ctx;

static void vbw_kernel(void *p, long n)
{
    vbw_ctx *c = p;
    long slot = 2 * c->size / (long)sizeof(double);
    int ack = 0;
    if (c->rank == 0) {
        for (long i = 0; i < n; i++) {
            for (int w = 0; w < c->window; w++)
                MPI_Isend(c->sbuf, 1, c->vec, 1, 100, MPI_COMM_WORLD, &c->req[w]);
            MPI_Waitall(c->window, c->req, MPI_STATUSES_IGNORE);
            MPI_Recv(&ack, 1, MPI_INT, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else if (c->rank == 1) {
        for (long i = 0; i < n; i++) {
            for (int w = 0; w < c->window; w++)
                MPI_Irecv(c->rbuf + (long)w * slot, 1, c->vec, 0, 100, MPI_COMM_WORLD,
                          &c->req[w]);
            MPI_Waitall(c->window, c->req, MPI_STATUSES_IGNORE);
            MPI_Send(&ack, 1, MPI_INT, 0, 101, MPI_COMM_WORLD);
        }
    }
}

int main(int argc, char **argv)
{
    bench_opts o;
    MPI_Init(&argc, &argv);
    int rc = bench_init(argc, argv, &o, 8, 4 * BENCH_MIB, 16,
                        "messages in flight per iteration (default 16)");
    if (rc != 0) {
        MPI_Finalize();
        return rc < 0 ? 1 : 0;
    }
    if (o.nranks < 2) {
        if (o.rank == 0)
            fprintf(stderr, "tern_vbw: needs at least 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    vbw_ctx c = {.rank = o.rank, .window = o.window};
    long maxd = o.max_size / (long)sizeof(double);
    c.req = malloc(sizeof(MPI_Request) * (size_t)o.window);
    c.sbuf = bench_alloc((size_t)(2 * maxd) * sizeof(double), 0);
    c.rbuf = bench_alloc(o.rank == 1 ? (size_t)(2 * maxd) * sizeof(double) * (size_t)o.window
                                     : sizeof(double), 0);
    for (long i = 0; i < 2 * maxd; i++)
        c.sbuf[i] = (double)(i % 1000) + 0.5;

    bench_header(&o, "Strided Vector Bandwidth Test");
    if (o.rank == 0) {
        printf("# Datatype: MPI_Type_vector(n, 1, 2, MPI_DOUBLE) on both sides\n");
        printf("# Window size: %d\n", o.window);
        printf("# Size      Bandwidth (MB/s)\n");
        fflush(stdout);
    }

    int errors = 0;
    long first = bench_first_size(o.min_size);
    if (first < (long)sizeof(double))
        first = (long)sizeof(double);
    for (long size = first; size <= o.max_size; size = bench_next_size(size)) {
        long nd = size / (long)sizeof(double);
        c.size = nd * (long)sizeof(double);
        MPI_Type_vector((int)nd, 1, 2, MPI_DOUBLE, &c.vec);
        MPI_Type_commit(&c.vec);
        long iters = bench_scaled(&o, size > BENCH_LARGE_THRESHOLD ? 50 : 200);
        long warm = bench_scaled(&o, size > BENCH_LARGE_THRESHOLD ? 5 : 20);
        long n = bench_plan(&o, vbw_kernel, &c, iters, warm);

        if (o.rank == 1)
            memset(c.rbuf, 0, (size_t)(2 * nd) * sizeof(double) * (size_t)c.window);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        vbw_kernel(&c, n);
        double t = MPI_Wtime() - t0;

        int err = 0;
        if (o.rank == 1)
            for (int w = 0; w < c.window && !err; w++)
                for (long i = 0; i < 2 * nd && !err; i++) {
                    double want = (i % 2) ? 0.0 : (double)(i % 1000) + 0.5;
                    err = c.rbuf[(long)w * 2 * nd + i] != want;
                }
        errors |= bench_report_errors(&o, err, size);
        if (o.rank == 0) {
            double bytes = (double)c.size * (double)c.window * (double)n;
            printf("%-10ld%18.2f\n", size, bytes / t / 1e6);
            fflush(stdout);
        }
        MPI_Type_free(&c.vec);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    free(c.req);
    free(c.sbuf);
    free(c.rbuf);
    MPI_Finalize();
    return errors ? 1 : 0;
}
