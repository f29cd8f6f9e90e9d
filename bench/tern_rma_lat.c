/*
 * tern_rma_lat.c - latency of one one-sided operation from rank 0 to rank 1,
 * each followed by its synchronisation (bench_rma.h: -s, -w).  The
 * operation is chosen by the program's name (the same source is built as
 * each of these):
 *
 *   tern_put_latency   MPI_Put of size bytes           0 B .. 4 MiB
 *   tern_get_latency   MPI_Get of size bytes           0 B .. 4 MiB
 *   tern_acc_latency   MPI_Accumulate, MPI_INT, MPI_SUM  4 B .. 4 MiB
 *   tern_fop_latency   MPI_Fetch_and_op, MPI_LONG_LONG, MPI_SUM      8 B
 *   tern_cas_latency   MPI_Compare_and_swap, MPI_LONG_LONG           8 B
 *
 * (the atomics ignore -m: they have the one size).
 *
 * Latency = rank 0's time per (operation + synchronisation), us; the default
 * synchronisation is flush (lock once per size, MPI_Win_flush after each op).
 * Checks, once per size on the timed rounds: the put bytes (at the target)
 * and the got bytes (at the origin) carry the pattern; after n accumulates
 * every int at the target is n times the origin's; every fetch-and-op and
 * compare-and-swap returns the value the target held before it (v, v + 1,
 * .. from the value v read with MPI_NO_OP first), and the target ends at
 * v + n.
 */
#include "bench_rma.h"

enum { OP_PUT, OP_GET, OP_ACC, OP_FOP, OP_CAS };

typedef struct {
    int op;
    long size;             /* bytes per op */
    rma_win w;
    unsigned char *buf;    /* origin buffer (put/acc source, get destination) */
    long long start;       /* fop/cas: the target's value before the series */
    long long next;        /* fop/cas: the value the target holds now */
    long long result;
    int err;               /* a fop/cas returned something else */
} lat_ctx;

/* v + n without signed overflow (the first value is whatever the window held) */
static long long lat_plus(long long v, long n)
{
    return (long long)((unsigned long long)v + (unsigned long long)n);
}

static int acc_value(long i)
{
    return (int)(i % 7) + 1;
}

static void lat_kernel(void *p, long n)
{
    lat_ctx *c = p;
    rma_win *w = &c->w;
    int sz = (int)c->size;
    const long long one = 1;
    for (long i = 0; i < n; i++) {
        rma_round_begin(w);
        if (w->origin) {
            switch (c->op) {
            case OP_PUT:
                MPI_Put(c->buf, sz, MPI_BYTE, w->peer, w->peer_base, sz, MPI_BYTE, w->win);
                break;
            case OP_GET:
                MPI_Get(c->buf, sz, MPI_BYTE, w->peer, w->peer_base, sz, MPI_BYTE, w->win);
                break;
            case OP_ACC:
                MPI_Accumulate(c->buf, sz / (int)sizeof(int), MPI_INT, w->peer, w->peer_base,
                               sz / (int)sizeof(int), MPI_INT, MPI_SUM, w->win);
                break;
            case OP_FOP:
                MPI_Fetch_and_op(&one, &c->result, MPI_LONG_LONG, w->peer, w->peer_base,
                                 MPI_SUM, w->win);
                break;
            default: {
                long long swap = lat_plus(c->next, 1);
                MPI_Compare_and_swap(&swap, &c->next, &c->result, MPI_LONG_LONG, w->peer,
                                     w->peer_base, w->win);
                break;
            }
            }
        }
        rma_round_end(w);
        if (w->origin && c->op >= OP_FOP) {
            c->err |= c->result != c->next;
            c->next = lat_plus(c->next, 1);
        }
    }
}

/* The target's window before a series of rounds (inside rma_local_*). */
static void lat_target_init(lat_ctx *c)
{
    if (c->op == OP_GET)
        bench_fill(c->w.base, c->size);
    else
        memset(c->w.base, 0, c->size < 8 ? 8 : (size_t)c->size);
}

/* Rank 1's part of the check after n timed rounds (inside rma_local_*). */
static int lat_target_check(const lat_ctx *c, long n)
{
    if (c->op == OP_PUT)
        return bench_check(c->w.base, c->size);
    if (c->op == OP_ACC) {
        const int *v = (const int *)(const void *)c->w.base;
        for (long i = 0; i < c->size / (long)sizeof(int); i++)
            if (v[i] != (int)n * acc_value(i))
                return 1;
        return 0;
    }
    return 0;
}

/* The target's value for fop/cas, read by the origin with
 * MPI_Fetch_and_op(MPI_NO_OP) in a round of its own (collective).  The
 * atomics' checks are relative to it and use no load or store at the
 * target: in MPICH 4.0.2 (ch4:ucx) windows from MPI_Win_allocate, said to
 * be unified, the target's loads and stores do not see or change the value
 * its fetch-and-op and compare-and-swap work on (its MPI_Get does see it). */
static long long lat_atomic_read(lat_ctx *c)
{
    rma_win *w = &c->w;
    long long v = -1;
    rma_epoch_open(w);
    rma_round_begin(w);
    if (w->origin)
        MPI_Fetch_and_op(NULL, &v, MPI_LONG_LONG, w->peer, w->peer_base, MPI_NO_OP, w->win);
    rma_round_end(w);
    rma_epoch_close(w);
    return v;
}

/* Before a series of rounds (collective): the target's window (under
 * rma_local_*), the origin's buffer and the atomics' starting value. */
static void lat_prepare(lat_ctx *c)
{
    rma_win *w = &c->w;
    if (w->target) {
        rma_local_begin(w);
        lat_target_init(c);
        rma_local_end(w);
    }
    if (w->origin && c->op == OP_GET)
        memset(c->buf, 0, (size_t)c->size);
    if (c->op >= OP_FOP) {
        c->start = c->next = lat_atomic_read(c);
        c->err = 0;
    }
}

/* After n rounds and rma_epoch_close (collective): this rank's error flag. */
static int lat_check(lat_ctx *c, long n)
{
    rma_win *w = &c->w;
    int err = 0;
    if (c->op >= OP_FOP) {
        long long v = lat_atomic_read(c);
        return w->origin && (c->err || v != lat_plus(c->start, n));
    }
    if (w->target) {
        rma_local_begin(w);
        err = lat_target_check(c, n);
        rma_local_end(w);
    }
    if (w->origin)
        err |= c->op == OP_GET && bench_check(c->buf, c->size);
    return err;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name, *title;
        int op;
        long min, max;
    } kinds[] = {
        { "tern_put_latency", "One Sided MPI_Put Latency Test", OP_PUT, 0, 4 * BENCH_MIB },
        { "tern_get_latency", "One Sided MPI_Get Latency Test", OP_GET, 0, 4 * BENCH_MIB },
        { "tern_acc_latency", "One Sided MPI_Accumulate Latency Test", OP_ACC, 4,
          4 * BENCH_MIB },
        { "tern_fop_latency", "One Sided MPI_Fetch_and_op Latency Test", OP_FOP, 8, 8 },
        { "tern_cas_latency", "One Sided MPI_Compare_and_swap Latency Test", OP_CAS, 8, 8 },
    };
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    int k = -1;
    for (int i = 0; i < (int)(sizeof kinds / sizeof kinds[0]); i++)
        if (strcmp(base, kinds[i].name) == 0)
            k = i;

    bench_opts o;
    rma_opts ro = {.sync = RMA_FLUSH, .flavour = RMA_ALLOCATE};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &o.rank); /* for the messages before bench_init */
    if (k < 0) {
        fprintf(stderr, "%s: run me as tern_put_latency, tern_get_latency, tern_acc_latency, "
                "tern_fop_latency or tern_cas_latency\n", argv[0]);
        MPI_Finalize();
        return 1;
    }
    int rc = rma_parse(&argc, argv, &ro, 0);
    if (rc == 0)
        rc = bench_init(argc, argv, &o, kinds[k].min, kinds[k].max, 0, NULL);
    if (rc == 0 && o.nranks < 2) {
        if (o.rank == 0)
            fprintf(stderr, "%s: needs at least 2 ranks\n", base);
        rc = -1;
    }
    if (rc != 0) {
        if (o.rank == 0 && (ro.help || rc < 0))
            rma_usage(&ro, 0);
        MPI_Finalize();
        return rc < 0 ? 1 : 0;
    }

    lat_ctx c = {.op = kinds[k].op};
    long max = kinds[k].op >= OP_FOP ? 8 : o.max_size;
    rma_win_open(&c.w, &ro, o.rank == 0, o.rank == 1, max);
    c.buf = bench_alloc((size_t)max, 0);
    if (c.op == OP_PUT)
        bench_fill(c.buf, max);
    else if (c.op == OP_ACC)
        for (long i = 0; i < max / (long)sizeof(int); i++)
            ((int *)(void *)c.buf)[i] = acc_value(i);

    bench_header(&o, kinds[k].title);
    rma_header(&o, &c.w);
    if (o.rank == 0) {
        printf("# Size          Latency (us)\n");
        fflush(stdout);
    }

    int errors = 0;
    long unit = c.op == OP_ACC ? (long)sizeof(int) : 0;
    long first = c.op >= OP_FOP ? 8 : bench_first_size(o.min_size); /* -m: not for atomics */
    for (long size = first; size <= max; size = bench_next_size(size)) {
        if (size < unit)
            continue;
        c.size = size;
        long iters = bench_scaled(&o, size > BENCH_LARGE_THRESHOLD ? 1000 : 10000);
        long warm = bench_scaled(&o, size > BENCH_LARGE_THRESHOLD ? 10 : 100);

        /* warm-up and the iteration count, in an epoch of their own */
        lat_prepare(&c);
        rma_epoch_open(&c.w);
        long n = bench_plan(&o, lat_kernel, &c, iters, warm);
        rma_epoch_close(&c.w);

        lat_prepare(&c);
        rma_epoch_open(&c.w);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        lat_kernel(&c, n);
        double t = MPI_Wtime() - t0;
        rma_epoch_close(&c.w);

        int err = lat_check(&c, n);
        errors |= bench_report_errors(&o, err, size);
        if (o.rank == 0) {
            printf("%-10ld%18.3f\n", size, t * 1e6 / (double)n);
            fflush(stdout);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }

    rma_win_close(&c.w);
    free(c.buf);
    MPI_Finalize();
    return errors ? 1 : 0;
}
