/*
 * tern_rma_bw.c - one-sided bandwidth between ranks 0 and 1: per round a
 * window of -W operations (default 64), each to its own slot, then one
 * synchronisation (bench_rma.h: -s, -w).  Chosen by the program's name:
 *
 *   tern_put_bw     rank 0 puts into rank 1's window     (default -s flush)
 *   tern_get_bw     rank 0 gets from rank 1's window     (default -s flush)
 *   tern_put_bibw   ranks 0 and 1 put into each other's windows at once
 *                   (-s pscw, the default, or fence)
 *
 * Bandwidth = bytes moved (both directions for bibw) / rank 0's time, in
 * MB/s (1e6 bytes/s).  Slots are the size rounded up to 64 bytes, as in
 * tern_bw.  Checks, once per size on the timed rounds: every slot put
 * carries the pattern at its target, every slot got at its origin.
 */
#include "bench_rma.h"

enum { BW_PUT, BW_GET, BW_BIBW };

typedef struct {
    int kind, window;
    long size, slot;
    rma_win w;
    unsigned char *buf; /* put: the source (one size); get: window slots */
} bw_ctx;

static void bw_kernel(void *p, long n)
{
    bw_ctx *c = p;
    rma_win *w = &c->w;
    int sz = (int)c->size;
    for (long i = 0; i < n; i++) {
        rma_round_begin(w);
        if (w->origin) {
            for (int k = 0; k < c->window; k++) {
                MPI_Aint disp = w->peer_base + (MPI_Aint)k * c->slot;
                if (c->kind == BW_GET)
                    MPI_Get(c->buf + (size_t)k * (size_t)c->slot, sz, MPI_BYTE, w->peer, disp,
                            sz, MPI_BYTE, w->win);
                else
                    MPI_Put(c->buf, sz, MPI_BYTE, w->peer, disp, sz, MPI_BYTE, w->win);
            }
        }
        rma_round_end(w);
    }
}

/* Before a series of rounds (collective): the targets' slots (the pattern
 * for get, zero for put) and the getter's slots (zero). */
static void bw_prepare(bw_ctx *c)
{
    rma_win *w = &c->w;
    if (w->target) {
        rma_local_begin(w);
        for (int k = 0; k < c->window; k++) {
            unsigned char *s = w->base + (size_t)k * (size_t)c->slot;
            if (c->kind == BW_GET)
                bench_fill(s, c->size);
            else
                memset(s, 0, (size_t)c->size);
        }
        rma_local_end(w);
    }
    if (w->origin && c->kind == BW_GET)
        memset(c->buf, 0, (size_t)c->slot * (size_t)c->window);
}

/* After a series and rma_epoch_close: this rank's error flag. */
static int bw_check(bw_ctx *c)
{
    rma_win *w = &c->w;
    int err = 0;
    if (w->origin && c->kind == BW_GET)
        for (int k = 0; k < c->window && !err; k++)
            err = bench_check(c->buf + (size_t)k * (size_t)c->slot, c->size);
    if (w->target && c->kind != BW_GET) {
        rma_local_begin(w);
        for (int k = 0; k < c->window && !err; k++)
            err = bench_check(w->base + (size_t)k * (size_t)c->slot, c->size);
        rma_local_end(w);
    }
    return err;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name, *title;
        int kind;
    } kinds[] = {
        { "tern_put_bw", "One Sided MPI_Put Bandwidth Test", BW_PUT },
        { "tern_get_bw", "One Sided MPI_Get Bandwidth Test", BW_GET },
        { "tern_put_bibw", "One Sided MPI_Put Bi-directional Bandwidth Test", BW_BIBW },
    };
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    int k = -1;
    for (int i = 0; i < (int)(sizeof kinds / sizeof kinds[0]); i++)
        if (strcmp(base, kinds[i].name) == 0)
            k = i;

    bench_opts o;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &o.rank); /* for the messages before bench_init */
    if (k < 0) {
        fprintf(stderr, "%s: run me as tern_put_bw, tern_get_bw or tern_put_bibw\n", argv[0]);
        MPI_Finalize();
        return 1;
    }
    int kind = kinds[k].kind;
    rma_opts ro = {.sync = kind == BW_BIBW ? RMA_PSCW : RMA_FLUSH, .flavour = RMA_ALLOCATE,
                   .window = 64};
    int rc = rma_parse(&argc, argv, &ro, 1);
    if (rc == 0)
        rc = bench_init(argc, argv, &o, 1, 4 * BENCH_MIB, 0, NULL);
    if (rc == 0 && kind == BW_BIBW && ro.sync != RMA_PSCW && ro.sync != RMA_FENCE) {
        if (o.rank == 0)
            fprintf(stderr, "%s: both ranks are origins: -s pscw or fence\n", base);
        rc = -1;
    }
    if (rc == 0 && o.nranks < 2) {
        if (o.rank == 0)
            fprintf(stderr, "%s: needs at least 2 ranks\n", base);
        rc = -1;
    }
    if (rc != 0) {
        if (o.rank == 0 && (ro.help || rc < 0))
            rma_usage(&ro, 1);
        MPI_Finalize();
        return rc < 0 ? 1 : 0;
    }

    bw_ctx c = {.kind = kind, .window = ro.window};
    size_t region = (size_t)bench_slot(o.max_size) * (size_t)ro.window;
    int origin = kind == BW_BIBW ? o.rank <= 1 : o.rank == 0;
    int target = kind == BW_BIBW ? o.rank <= 1 : o.rank == 1;
    rma_win_open(&c.w, &ro, origin, target, (MPI_Aint)region);
    c.buf = bench_alloc(!origin ? 1 : kind == BW_GET ? region : (size_t)o.max_size, 0);
    if (origin && kind != BW_GET)
        bench_fill(c.buf, o.max_size);

    bench_header(&o, kinds[k].title);
    rma_header(&o, &c.w);
    if (o.rank == 0) {
        printf("# Window size: %d\n", c.window);
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

        /* warm-up and the iteration count, in an epoch of their own */
        bw_prepare(&c);
        rma_epoch_open(&c.w);
        long n = bench_plan(&o, bw_kernel, &c, iters, warm);
        rma_epoch_close(&c.w);

        bw_prepare(&c);
        rma_epoch_open(&c.w);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        bw_kernel(&c, n);
        double t = MPI_Wtime() - t0;
        rma_epoch_close(&c.w);

        errors |= bench_report_errors(&o, bw_check(&c), size);
        if (o.rank == 0) {
            double bytes = (double)size * (double)c.window * (double)n;
            printf("%-10ld%18.2f\n", size, (kind == BW_BIBW ? 2.0 : 1.0) * bytes / t / 1e6);
            fflush(stdout);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }

    rma_win_close(&c.w);
    free(c.buf);
    MPI_Finalize();
    return errors ? 1 : 0;
}
