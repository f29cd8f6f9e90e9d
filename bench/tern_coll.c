/*
 * tern_coll.c - latency of one collective over MPI_COMM_WORLD for message
 * sizes 4 B .. 1 MiB.  The collective is chosen by the program's name
 * (the same source is built as each of these):
 *
 *   tern_bcast           MPI_Bcast from rank 0, size bytes
 *   tern_allgather       MPI_Allgather, size bytes from every rank
 *   tern_alltoall        MPI_Alltoall, size bytes to every rank
 *   tern_reduce_scatter  MPI_Reduce_scatter_block, MPI_FLOAT, MPI_SUM,
 *                        size bytes in total (size / nranks per rank)
 *   tern_reduce          MPI_Reduce to rank 0, MPI_FLOAT, MPI_SUM, size bytes
 *   tern_gather          MPI_Gather to rank 0, size bytes from every rank
 *
 * As in the OSU collective benchmarks, size is the per-rank block for
 * allgather, alltoall and gather.  Every rank times a loop of calls; the per-rank
 * average time per call is reduced to the average, minimum and maximum
 * over the ranks (us).  The result of the last timed call is checked once
 * per size.
 */
#include "bench_common.h"

enum { C_BCAST, C_ALLGATHER, C_ALLTOALL, C_REDUCE_SCATTER, C_REDUCE, C_GATHER };

typedef struct {
    int kind, nranks, rank;
    long size;                  /* bytes per call, as described above */
    unsigned char *sbuf, *rbuf;
} coll_ctx;

static void coll_kernel(void *p, long n)
{
    coll_ctx *c = p;
    int count = (int)c->size;
    for (long i = 0; i < n; i++) {
        switch (c->kind) {
        case C_BCAST:
            MPI_Bcast(c->rank == 0 ? c->sbuf : c->rbuf, count, MPI_BYTE, 0, MPI_COMM_WORLD);
            break;
        case C_ALLGATHER:
            MPI_Allgather(c->sbuf, count, MPI_BYTE, c->rbuf, count, MPI_BYTE, MPI_COMM_WORLD);
            break;
        case C_ALLTOALL:
            MPI_Alltoall(c->sbuf, count, MPI_BYTE, c->rbuf, count, MPI_BYTE, MPI_COMM_WORLD);
            break;
        case C_REDUCE:
            MPI_Reduce(c->sbuf, c->rbuf, count / (int)sizeof(float), MPI_FLOAT, MPI_SUM, 0,
                       MPI_COMM_WORLD);
            break;
        case C_GATHER:
            MPI_Gather(c->sbuf, count, MPI_BYTE, c->rbuf, count, MPI_BYTE, 0, MPI_COMM_WORLD);
            break;
        default:
            MPI_Reduce_scatter_block(c->sbuf, c->rbuf, count / (int)sizeof(float) / c->nranks,
                                     MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            break;
        }
    }
}

/* Byte j of the block that rank `from` sends to rank `to`. */
static unsigned char coll_byte(int from, int to, long j)
{
    return (unsigned char)((unsigned long)from * 31u + (unsigned long)to * 7u + (unsigned long)j);
}

/* Small integers keep every partial sum exact in float. */
static float rs_value(int rank, long i)
{
    return (float)((rank + 1) * (int)(i % 5 + 1));
}

static void coll_fill(coll_ctx *c)
{
    long n = c->size;
    switch (c->kind) {
    case C_BCAST:
    case C_ALLGATHER:
    case C_GATHER:
        for (long j = 0; j < n; j++)
            c->sbuf[j] = coll_byte(c->kind == C_BCAST ? 0 : c->rank, 0, j);
        break;
    case C_ALLTOALL:
        for (int to = 0; to < c->nranks; to++)
            for (long j = 0; j < n; j++)
                c->sbuf[(long)to * n + j] = coll_byte(c->rank, to, j);
        break;
    default: {
        float *f = (float *)(void *)c->sbuf;
        for (long i = 0; i < n / (long)sizeof(float); i++)
            f[i] = rs_value(c->rank, i);
        break;
    }
    }
}

static int coll_check(const coll_ctx *c)
{
    long n = c->size;
    switch (c->kind) {
    case C_BCAST:
        if (c->rank == 0)
            return 0;
        for (long j = 0; j < n; j++)
            if (c->rbuf[j] != coll_byte(0, 0, j))
                return 1;
        return 0;
    case C_GATHER:
        if (c->rank != 0)
            return 0;
        /* fall through */
    case C_ALLGATHER:
    case C_ALLTOALL:
        for (int from = 0; from < c->nranks; from++)
            for (long j = 0; j < n; j++)
                if (c->rbuf[(long)from * n + j] !=
                    coll_byte(from, c->kind == C_ALLTOALL ? c->rank : 0, j))
                    return 1;
        return 0;
    case C_REDUCE: {
        const float *f = (const float *)(const void *)c->rbuf;
        float ranksum = (float)c->nranks * (float)(c->nranks + 1) / 2.0f;
        if (c->rank != 0)
            return 0;
        for (long i = 0; i < n / (long)sizeof(float); i++)
            if (f[i] != ranksum * (float)(i % 5 + 1))
                return 1;
        return 0;
    }
    default: {
        long per = n / (long)sizeof(float) / c->nranks;
        const float *f = (const float *)(const void *)c->rbuf;
        float ranksum = (float)c->nranks * (float)(c->nranks + 1) / 2.0f;
        for (long i = 0; i < per; i++)
            if (f[i] != ranksum * (float)(((long)c->rank * per + i) % 5 + 1))
                return 1;
        return 0;
    }
    }
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name, *title;
        int kind;
    } kinds[] = {
        { "tern_bcast", "Bcast Latency Test", C_BCAST },
        { "tern_allgather", "Allgather Latency Test", C_ALLGATHER },
        { "tern_alltoall", "Alltoall Latency Test", C_ALLTOALL },
        { "tern_reduce_scatter", "Reduce_scatter_block Latency Test", C_REDUCE_SCATTER },
        { "tern_reduce", "Reduce Latency Test", C_REDUCE },
        { "tern_gather", "Gather Latency Test", C_GATHER },
    };
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    int k = -1;
    for (int i = 0; i < (int)(sizeof kinds / sizeof kinds[0]); i++)
        if (strcmp(base, kinds[i].name) == 0)
            k = i;

    bench_opts o;
    MPI_Init(&argc, &argv);
    if (k < 0) {
        fprintf(stderr, "%s: run me as tern_bcast, tern_allgather, tern_alltoall, "
                "tern_reduce_scatter, tern_reduce or tern_gather\n", argv[0]);
        MPI_Finalize();
        return 1;
    }
    int rc = bench_init(argc, argv, &o, 4, BENCH_MIB, 0, NULL);
    if (rc != 0) {
        MPI_Finalize();
        return rc < 0 ? 1 : 0;
    }

    coll_ctx c = { .kind = kinds[k].kind, .nranks = o.nranks, .rank = o.rank };
    long blocks = (c.kind == C_ALLGATHER || c.kind == C_ALLTOALL || c.kind == C_GATHER)
                      ? o.nranks : 1;
    c.sbuf = bench_alloc((size_t)(o.max_size * (c.kind == C_ALLTOALL ? blocks : 1)), 0);
    c.rbuf = bench_alloc((size_t)(o.max_size * blocks), 0);

    bench_header(&o, kinds[k].title);
    if (o.rank == 0) {
        printf("# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations\n");
        fflush(stdout);
    }

    int errors = 0;
    long first = bench_first_size(o.min_size);
    long unit = c.kind == C_REDUCE_SCATTER ? (long)sizeof(float) * o.nranks
                : c.kind == C_REDUCE           ? (long)sizeof(float)
                                               : 1;
    for (long size = first; size <= o.max_size; size = bench_next_size(size)) {
        if (size < unit)
            continue;
        c.size = size;
        coll_fill(&c);
        long iters = bench_scaled(&o, size > BENCH_LARGE_THRESHOLD ? 1000 : 10000);
        long warm = bench_scaled(&o, size > BENCH_LARGE_THRESHOLD ? 10 : 100);
        long n = bench_plan(&o, coll_kernel, &c, iters, warm);

        memset(c.rbuf, 0, (size_t)(size * blocks));
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        coll_kernel(&c, n);
        double t = (MPI_Wtime() - t0) * 1e6 / (double)n;
        errors |= bench_report_errors(&o, coll_check(&c), size);

        bench_row(&o, size, t, n);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    free(c.sbuf);
    free(c.rbuf);
    MPI_Finalize();
    return errors ? 1 : 0;
}
