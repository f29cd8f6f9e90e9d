/*
 * bench_common.h - shared helpers for the Tern micro-benchmarks.
 *
 * Header-only and plain MPI: only standard MPI calls are used, so every
 * benchmark builds against any MPI implementation (Tern, Open MPI, MPICH).
 *
 * Common command line options (all ranks parse the same argv):
 *   -i F        iteration scale factor (default 1.0; 0.1 = ten times fewer)
 *   -m MIN:MAX  message size range in bytes ("MAX", "MIN:" and ":MAX" work too)
 *   -t SEC      time budget per message size (default 0.2 s; 0 = no budget,
 *               always run the full iteration count)
 *   -w W        window size (bandwidth / message-rate benchmarks only)
 *   -h          help
 *
 * Iteration control ("time boxing"): for every size the benchmark first runs
 * warm-up iterations in doubling chunks; rank 0 times each chunk and decides
 * (and broadcasts, so every rank agrees) whether to continue warming up and,
 * at the end, how many timed iterations fit in the time budget.  The timed
 * loop then runs that exact number of iterations on all ranks, uninterrupted.
 */
#ifndef TERN_BENCH_COMMON_H
#define TERN_BENCH_COMMON_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#endif

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

/* Some mpi.h headers (MPICH) define MPI_STATUSES_IGNORE as a cast constant
 * pointer, which GCC's -Wstringop-overflow misreads as a zero-sized array. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

#define BENCH_VERSION "1.0"
#define BENCH_MIB (1024L * 1024L)
#define BENCH_LARGE_THRESHOLD 8192L /* sizes above use the "large" counts */

typedef struct {
    double iter_scale;   /* -i */
    long min_size;       /* -m */
    long max_size;
    double budget;       /* -t, seconds per size; 0 = unlimited */
    int window;          /* -w */
    int rank, nranks;
} bench_opts;

/* Runs n iterations of the benchmark kernel (all ranks call it). */
typedef void (*bench_kernel)(void *ctx, long n);

static inline void bench_usage(const char *prog, const char *extra)
{
    fprintf(stderr,
            "usage: %s [-i SCALE] [-m MIN:MAX] [-t SEC]%s [-h]\n"
            "  -i SCALE    iteration scale factor (default 1.0)\n"
            "  -m MIN:MAX  message size range in bytes\n"
            "  -t SEC      time budget per size in seconds (default 0.2, 0 = none)\n",
            prog, extra ? " [-w WINDOW]" : "");
    if (extra)
        fprintf(stderr, "  -w WINDOW   %s\n", extra);
}

static inline int bench_parse_long(const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || v < 0)
        return -1;
    /* allow K/M suffixes (binary) */
    if (*end == 'k' || *end == 'K') { v *= 1024; end++; }
    else if (*end == 'm' || *end == 'M') { v *= BENCH_MIB; end++; }
    if (*end != '\0')
        return -1;
    *out = v;
    return 0;
}

/* Parses the common options.  Returns 0 to go on, 1 after -h, -1 on error
 * (rank 0 printed the message).  The caller finalizes and exits. */
static inline int bench_init(int argc, char **argv, bench_opts *o,
                             long def_min, long def_max, int def_window,
                             const char *window_help)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &o->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &o->nranks);
    o->iter_scale = 1.0;
    o->min_size = def_min;
    o->max_size = def_max;
    o->budget = 0.2;
    o->window = def_window;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (o->rank == 0)
                bench_usage(argv[0], window_help);
            return 1;
        } else if (!strcmp(a, "-i") && v) {
            char *end;
            o->iter_scale = strtod(v, &end);
            bad = (*end != '\0' || !(o->iter_scale > 0.0));
            i++;
        } else if (!strcmp(a, "-t") && v) {
            char *end;
            o->budget = strtod(v, &end);
            bad = (*end != '\0' || o->budget < 0.0);
            i++;
        } else if (!strcmp(a, "-w") && v && window_help) {
            long w;
            bad = bench_parse_long(v, &w) || w < 1 || w > 65536;
            if (!bad)
                o->window = (int)w;
            i++;
        } else if (!strcmp(a, "-m") && v) {
            const char *colon = strchr(v, ':');
            if (!colon) {
                bad = bench_parse_long(v, &o->max_size);
            } else {
                char lo[64];
                size_t n = (size_t)(colon - v);
                if (n >= sizeof lo) {
                    bad = 1;
                } else {
                    memcpy(lo, v, n);
                    lo[n] = '\0';
                    if (n > 0)
                        bad |= bench_parse_long(lo, &o->min_size);
                    if (colon[1] != '\0')
                        bad |= bench_parse_long(colon + 1, &o->max_size);
                }
            }
            bad |= o->min_size > o->max_size;
            i++;
        } else {
            bad = 1;
        }
        if (bad) {
            if (o->rank == 0) {
                fprintf(stderr, "%s: bad option or value: %s %s\n", argv[0], a, v ? v : "");
                bench_usage(argv[0], window_help);
            }
            return -1;
        }
    }
    return 0;
}

/* Scaled iteration count, never below 1. */
static inline long bench_scaled(const bench_opts *o, long base)
{
    double v = (double)base * o->iter_scale + 0.5;
    return v < 1.0 ? 1 : (long)v;
}

/* Next size of the 0,1,2,4,8,... sequence. */
static inline long bench_next_size(long s)
{
    return s == 0 ? 1 : s * 2;
}

/* First size >= min of the 0,1,2,4,... sequence. */
static inline long bench_first_size(long min)
{
    if (min <= 0)
        return 0;
    long s = 1;
    while (s < min)
        s *= 2;
    return s;
}

/* Page-aligned, touched allocation.  Aborts on failure. */
static inline void *bench_alloc(size_t bytes, int fill)
{
    void *p = NULL;
    if (bytes == 0)
        bytes = 1;
    if (posix_memalign(&p, 4096, bytes) != 0 || !p) {
        fprintf(stderr, "bench: cannot allocate %zu bytes\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(p, fill, bytes); /* fault the pages in before any timing */
    return p;
}

/* Stride between the receive slots of a window: the message size rounded up
 * to a cache line, so the slots of small messages are packed densely. */
static inline long bench_slot(long size)
{
    return (size + 63) & ~63L;
}

/* Deterministic byte pattern used by the point-to-point benchmarks. */
static inline unsigned char bench_pattern(long i)
{
    return (unsigned char)((i * 131 + 7) & 0xff);
}

static inline void bench_fill(unsigned char *buf, long n)
{
    for (long i = 0; i < n; i++)
        buf[i] = bench_pattern(i);
}

static inline int bench_check(const unsigned char *buf, long n)
{
    for (long i = 0; i < n; i++)
        if (buf[i] != bench_pattern(i))
            return 1;
    return 0;
}

/*
 * Warm up and choose the number of timed iterations; collective over
 * MPI_COMM_WORLD, all ranks return the same value.
 *   iters: iteration count without budget (already scaled)
 *   warm:  maximum warm-up iterations (already scaled)
 */
static inline long bench_plan(const bench_opts *o, bench_kernel fn, void *ctx,
                              long iters, long warm)
{
    /* ctl[0]: continue warming up, ctl[1]: next chunk, ctl[2]: timed iters */
    long ctl[3] = {1, 1, iters};
    long done = 0;
    double warm_spent = 0.0, per_iter = 0.0;
    const double warm_budget = o->budget > 0.0 ? o->budget / 4.0 : 0.0;
    const long min_iters = iters < 3 ? iters : 3;

    if (warm < 1)
        warm = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    while (ctl[0]) {
        double t0 = MPI_Wtime();
        fn(ctx, ctl[1]);
        double dt = MPI_Wtime() - t0;
        if (o->rank == 0) {
            done += ctl[1];
            warm_spent += dt;
            per_iter = dt / (double)ctl[1];
            long next = ctl[1] * 2;
            if (next > warm - done)
                next = warm - done;
            ctl[0] = next > 0 && (warm_budget <= 0.0 || warm_spent < warm_budget);
            ctl[1] = next;
            if (!ctl[0] && o->budget > 0.0 && per_iter > 0.0) {
                double fit = o->budget / per_iter;
                long n = fit >= (double)iters ? iters : (long)fit;
                ctl[2] = n < min_iters ? min_iters : n;
            }
        }
        MPI_Bcast(ctl, 3, MPI_LONG, 0, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return ctl[2];
}

/* Rank 0 prints the common header lines. */
static inline void bench_header(const bench_opts *o, const char *title)
{
    if (o->rank != 0)
        return;
    printf("# Tern MPI %s v%s\n", title, BENCH_VERSION);
    printf("# Ranks: %d, iteration scale: %g, time budget per size: ", o->nranks, o->iter_scale);
    if (o->budget > 0.0)
        printf("%g s\n", o->budget);
    else
        printf("none\n");
}

/* Collective: OR of a per-rank error flag; rank 0 reports it. */
static inline int bench_report_errors(const bench_opts *o, int err, long size)
{
    int any = 0;
    MPI_Reduce(&err, &any, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    if (o->rank == 0 && any) {
        fprintf(stderr, "# ERROR: data validation failed at size %ld\n", size);
        printf("# ERROR: data validation failed at size %ld\n", size);
    }
    return any;
}

/* Collective: average, minimum and maximum of a per-rank value, at rank 0. */
static inline void bench_stats(double v, double *avg, double *min, double *max)
{
    double sum = 0.0;
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Reduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&v, min, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&v, max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    *avg = sum / (double)n;
}

/* Collective: one result row, "size avg min max iterations", of a
 * per-rank time t (us), printed by rank 0. */
static inline void bench_row(const bench_opts *o, long size, double t, long n)
{
    double avg, min, max;
    bench_stats(t, &avg, &min, &max);
    if (o->rank == 0) {
        printf("%-10ld%18.2f%18.2f%18.2f%12ld\n", size, avg, min, max, n);
        fflush(stdout);
    }
}

#endif /* TERN_BENCH_COMMON_H */
