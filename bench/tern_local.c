/*
 * tern_local.c - what a collective does on its own: the speed of a local
 * reduction (MPI_Reduce_local, MPI_FLOAT, MPI_SUM, as tern_allreduce
 * reduces) and of a local copy (MPI_Alltoall on MPI_COMM_SELF: the rank's
 * own block, copied as the collectives copy it), in Gbit/s of the bytes
 * reduced or copied, for sizes 1 KiB .. 16 MiB.
 *
 * tern-sim's coll_op_bw and coll_copy_bw take these figures (docs/sim.md,
 * "Collectives from Tern's own code"; bench/sim_honesty.sh calibrates
 * with them).  Every rank measures on its own, at once; the rows give the
 * average over the ranks (and the slowest), so a run on as many ranks as
 * a node's cores measures the cores sharing memory bandwidth.
 */
#include "bench_common.h"

typedef struct {
    int count;
    float *a, *b;
    int copy;
} lc_ctx;

static void lc_kernel(void *p, long n)
{
    lc_ctx *c = p;
    for (long i = 0; i < n; i++) {
        if (c->copy)
            MPI_Alltoall(c->a, c->count, MPI_FLOAT, c->b, c->count, MPI_FLOAT, MPI_COMM_SELF);
        else
            MPI_Reduce_local(c->a, c->b, c->count, MPI_FLOAT, MPI_SUM);
    }
}

/* Gbit/s of one kernel over n calls of count floats, and whether the
 * result is right: a copy gives a, a reduction a small integer sum that
 * float holds exactly. */
static double lc_measure(const bench_opts *o, lc_ctx *c, int copy, long size, int *err)
{
    c->copy = copy;
    long iters = bench_scaled(o, size > BENCH_LARGE_THRESHOLD ? 200 : 20000);
    long warm = bench_scaled(o, size > BENCH_LARGE_THRESHOLD ? 4 : 100);
    long n = bench_plan(o, lc_kernel, c, iters, warm);
    for (long i = 0; i < c->count; i++)
        c->b[i] = 0.0f;
    double t0 = MPI_Wtime();
    lc_kernel(c, n);
    double t = MPI_Wtime() - t0;
    for (long i = 0; i < c->count; i++) {
        float want = copy ? c->a[i] : c->a[i] * (float)n;
        if (c->b[i] != want) {
            *err = 1;
            break;
        }
    }
    return t > 0.0 ? (double)size * (double)n * 8.0 / t / 1e9 : 0.0;
}

int main(int argc, char **argv)
{
    bench_opts o;
    MPI_Init(&argc, &argv);
    int rc = bench_init(argc, argv, &o, 1024, 16 * BENCH_MIB, 0, NULL);
    if (rc != 0) {
        MPI_Finalize();
        return rc < 0 ? 1 : 0;
    }
    long maxcount = o.max_size / (long)sizeof(float);
    lc_ctx c;
    c.a = bench_alloc((size_t)maxcount * sizeof(float), 0);
    c.b = bench_alloc((size_t)maxcount * sizeof(float), 0);
    for (long i = 0; i < maxcount; i++)
        c.a[i] = (float)(i % 5 + 1);

    bench_header(&o, "Local Reduction and Copy Test");
    if (o.rank == 0) {
        printf("# Datatype: MPI_FLOAT, op: MPI_SUM; copy: MPI_Alltoall on MPI_COMM_SELF\n");
        printf("# Size     Reduce(Gbit/s)  Min Reduce(Gbit/s)  Copy(Gbit/s)  Min Copy(Gbit/s)\n");
        fflush(stdout);
    }
    int errors = 0;
    long first = bench_first_size(o.min_size);
    if (first < (long)sizeof(float))
        first = (long)sizeof(float);
    for (long size = first; size <= o.max_size; size = bench_next_size(size)) {
        c.count = (int)(size / (long)sizeof(float));
        int err = 0;
        /* a reduction of n calls sums a n times: keep n * 5 exact in float */
        double red = lc_measure(&o, &c, 0, size, &err);
        double cp = lc_measure(&o, &c, 1, size, &err);
        errors |= bench_report_errors(&o, err, size);
        double v[2] = {red, cp}, sum[2], min[2];
        MPI_Reduce(v, sum, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(v, min, 2, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
        if (o.rank == 0) {
            printf("%-10ld%15.2f%20.2f%14.2f%18.2f\n", size, sum[0] / o.nranks, min[0],
                   sum[1] / o.nranks, min[1]);
            fflush(stdout);
        }
    }
    free(c.a);
    free(c.b);
    MPI_Finalize();
    return errors ? 1 : 0;
}
