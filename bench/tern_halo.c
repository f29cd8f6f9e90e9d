/*
 * tern_halo.c - a one-dimensional halo exchange on a periodic ring of
 * MPI_COMM_WORLD, the neighbour traffic of a stencil code.
 *
 * Per iteration every rank posts MPI_Irecv from its left and right
 * neighbours (rank - 1 and rank + 1, mod n), then MPI_Isend of size bytes
 * to each, then MPI_Waitall on the four.  Every rank's mean time per
 * exchange is reduced to the average, minimum and maximum over all ranks
 * (us); both halos of the last timed exchange are checked once per size.
 * With 2 ranks both neighbours are the same rank (two messages each way).
 */
#include "bench_common.h"

typedef struct {
    int left, right;
    long size;
    unsigned char *sbuf, *rbuf; /* rbuf: the left halo, then the right */
    MPI_Request req[4];
} halo_ctx;

static void halo_kernel(void *p, long n)
{
    halo_ctx *c = p;
    int sz = (int)c->size;
    for (long i = 0; i < n; i++) {
        /* tag = direction of travel, so that with two ranks (left ==
         * right) each halo still lands in its own buffer */
        MPI_Irecv(c->rbuf, sz, MPI_BYTE, c->left, 0, MPI_COMM_WORLD, &c->req[0]);
        MPI_Irecv(c->rbuf + c->size, sz, MPI_BYTE, c->right, 1, MPI_COMM_WORLD, &c->req[1]);
        MPI_Isend(c->sbuf, sz, MPI_BYTE, c->right, 0, MPI_COMM_WORLD, &c->req[2]);
        MPI_Isend(c->sbuf, sz, MPI_BYTE, c->left, 1, MPI_COMM_WORLD, &c->req[3]);
        MPI_Waitall(4, c->req, MPI_STATUSES_IGNORE);
    }
}

int main(int argc, char **argv)
{
    bench_opts o;
    MPI_Init(&argc, &argv);
    int rc = bench_init(argc, argv, &o, 1, BENCH_MIB, 0, NULL);
    if (rc != 0) {
        MPI_Finalize();
        return rc < 0 ? 1 : 0;
    }
    if (o.nranks < 2) {
        if (o.rank == 0)
            fprintf(stderr, "tern_halo: needs at least 2 ranks\n");
        MPI_Finalize();
        return 1;
    }

    halo_ctx c = {.left = (o.rank + o.nranks - 1) % o.nranks, .right = (o.rank + 1) % o.nranks};
    c.sbuf = bench_alloc((size_t)o.max_size, 0);
    c.rbuf = bench_alloc(2 * (size_t)o.max_size, 0);
    bench_fill(c.sbuf, o.max_size);

    bench_header(&o, "Halo Exchange Test");
    if (o.rank == 0) {
        printf("# A ring: every rank sends size bytes to each neighbour\n");
        printf("# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations\n");
        fflush(stdout);
    }

    int errors = 0;
    for (long size = bench_first_size(o.min_size); size <= o.max_size;
         size = bench_next_size(size)) {
        c.size = size;
        long iters = bench_scaled(&o, size > BENCH_LARGE_THRESHOLD ? 1000 : 10000);
        long warm = bench_scaled(&o, size > BENCH_LARGE_THRESHOLD ? 10 : 100);
        long n = bench_plan(&o, halo_kernel, &c, iters, warm);

        memset(c.rbuf, 0, 2 * (size_t)size);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        halo_kernel(&c, n);
        double t = (MPI_Wtime() - t0) * 1e6 / (double)n;

        int err = bench_check(c.rbuf, size) || bench_check(c.rbuf + size, size);
        errors |= bench_report_errors(&o, err, size);
        bench_row(&o, size, t, n);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    free(c.sbuf);
    free(c.rbuf);
    MPI_Finalize();
    return errors ? 1 : 0;
}
