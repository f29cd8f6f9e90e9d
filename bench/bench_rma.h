/*
 * bench_rma.h - window flavours and synchronisation modes shared by the
 * one-sided benchmarks (tern_rma_lat.c, tern_rma_bw.c).  Plain MPI-3, like
 * bench_common.h, so the programs build against any MPI library.
 *
 * Options added to the common ones (bench_common.h), taken out of argv by
 * rma_parse() before bench_init() sees it:
 *   -s SYNC     fence | lock | flush | flush_local | lock_all | pscw
 *   -w FLAVOUR  create | allocate | dynamic  (window flavour; default allocate)
 *   -W N        ops per synchronisation (bandwidth programs only; default 64)
 *
 * A "round" is what one timed step synchronises: one op (latency) or a
 * window of ops (bandwidth).  Per mode, at the origin (O) and target (T):
 *
 *   mode         per size (rma_epoch_open/close)      per round (rma_round_begin/end)
 *   fence        all: MPI_Win_fence                  ops, then all: MPI_Win_fence
 *   pscw         -                                    T: post .. wait, O: start, ops, complete
 *   lock         -                                    O: lock(exclusive), ops, unlock
 *   lock_all     -                                    O: lock_all, ops, unlock_all
 *   flush        O: lock(shared) .. unlock            O: ops, then MPI_Win_flush
 *   flush_local  O: lock(shared) .. unlock            O: ops, then MPI_Win_flush_local
 *
 * The passive modes put an MPI_Barrier in rma_epoch_open and _close so the
 * target's own stores (rma_local_begin/end: a lock on itself) are ordered
 * with the origin's epochs.  Ranks other than 0 and 1 take part in the
 * collective calls (window creation, fences, barriers) only.
 */
#ifndef TERN_BENCH_RMA_H
#define TERN_BENCH_RMA_H

#include "bench_common.h"

enum { RMA_FENCE, RMA_LOCK, RMA_FLUSH, RMA_FLUSH_LOCAL, RMA_LOCK_ALL, RMA_PSCW, RMA_NSYNC };
enum { RMA_CREATE, RMA_ALLOCATE, RMA_DYNAMIC, RMA_NFLAVOUR };

static const char *const rma_sync_names[RMA_NSYNC] = {
    "fence", "lock", "flush", "flush_local", "lock_all", "pscw"};
static const char *const rma_flavour_names[RMA_NFLAVOUR] = {"create", "allocate", "dynamic"};

typedef struct {
    int sync;         /* -s, RMA_* */
    int flavour;      /* -w, RMA_CREATE .. */
    int window;       /* -W */
    int help;         /* -h was given: print rma_usage after bench_init's */
} rma_opts;

typedef struct {
    int sync, flavour;
    int origin, target; /* this rank issues ops to / exposes memory for `peer` */
    int peer;           /* the other rank of the pair, -1 on ranks above 1 */
    MPI_Win win;
    unsigned char *base; /* this rank's window memory, `size` bytes */
    MPI_Aint size;
    MPI_Aint peer_base;  /* displacement of the peer's byte 0 (its address for dynamic) */
    MPI_Group peer_group; /* for post/start: the peer alone */
} rma_win;

static inline int rma_lookup(const char *v, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(v, names[i]) == 0)
            return i;
    return -1;
}

/* Takes -s, -w and -W (when window_ok) out of argv; `o` holds the defaults
 * on entry.  Returns 0, or -1 after rank 0 printed what was wrong. */
static inline int rma_parse(int *argc, char **argv, rma_opts *o, int window_ok)
{
    int rank, out = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i], *v = i + 1 < *argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(a, "-s") && v) {
            int x = rma_lookup(v, rma_sync_names, RMA_NSYNC);
            bad = x < 0;
            o->sync = bad ? o->sync : x;
        } else if (!strcmp(a, "-w") && v) {
            int x = rma_lookup(v, rma_flavour_names, RMA_NFLAVOUR);
            bad = x < 0;
            o->flavour = bad ? o->flavour : x;
        } else if (!strcmp(a, "-W") && v && window_ok) {
            long w;
            bad = bench_parse_long(v, &w) || w < 1 || w > 65536;
            if (!bad)
                o->window = (int)w;
        } else {
            if (!strcmp(a, "-h") || !strcmp(a, "--help"))
                o->help = 1;
            argv[out++] = argv[i]; /* bench_init's option */
            continue;
        }
        if (bad) {
            if (rank == 0)
                fprintf(stderr, "%s: bad option or value: %s %s\n", argv[0], a, v);
            return -1;
        }
        i++;
    }
    *argc = out;
    argv[out] = NULL;
    return 0;
}

static inline void rma_usage(const rma_opts *o, int window_ok)
{
    fprintf(stderr,
            "  -s SYNC     fence, lock, flush, flush_local, lock_all or pscw (default %s)\n"
            "  -w FLAVOUR  window: create, allocate or dynamic (default allocate)\n",
            rma_sync_names[o->sync]);
    if (window_ok)
        fprintf(stderr, "  -W N        operations per synchronisation (default %d)\n", o->window);
}

/* Collective over MPI_COMM_WORLD: a window of `size` bytes on every rank
 * (disp_unit 1).  The same size everywhere, even where a rank only issues
 * operations: MPICH 4.0.2 (ch4:ucx) loses puts into an MPI_Win_allocate
 * window larger than the origin's own.  A library without one-sided
 * support fails here: the error is printed and the job aborted. */
static inline void rma_win_open(rma_win *w, const rma_opts *o, int origin, int target,
                                MPI_Aint size)
{
    int rank, rc, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    memset(w, 0, sizeof *w);
    w->sync = o->sync;
    w->flavour = o->flavour;
    w->peer = rank <= 1 ? 1 - rank : -1;
    w->origin = w->peer >= 0 && origin;
    w->target = w->peer >= 0 && target;
    w->size = size < 8 ? 8 : size;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (o->flavour == RMA_ALLOCATE) {
        rc = MPI_Win_allocate(w->size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->base, &w->win);
    } else if (o->flavour == RMA_CREATE) {
        w->base = bench_alloc((size_t)w->size, 0);
        rc = MPI_Win_create(w->base, w->size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
    } else {
        w->base = bench_alloc((size_t)w->size, 0);
        rc = MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
        if (rc == MPI_SUCCESS)
            rc = MPI_Win_attach(w->win, w->base, w->size);
    }
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, msg, &len);
        fprintf(stderr, "rank %d: cannot make a window (%s): %s\n", rank,
                rma_flavour_names[o->flavour], msg);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    if (o->flavour == RMA_DYNAMIC) {
        /* displacements into a dynamic window are addresses */
        MPI_Aint *addr = malloc(sizeof(MPI_Aint) * (size_t)nranks), mine;
        MPI_Get_address(w->base, &mine);
        MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);
        if (w->peer >= 0)
            w->peer_base = addr[w->peer];
        free(addr);
    }
    if (w->peer >= 0) {
        MPI_Group world;
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_incl(world, 1, &w->peer, &w->peer_group);
        MPI_Group_free(&world);
    }
    if (w->sync == RMA_FENCE)
        MPI_Win_fence(MPI_MODE_NOPRECEDE, w->win);
}

static inline void rma_win_close(rma_win *w)
{
    if (w->sync == RMA_FENCE)
        MPI_Win_fence(MPI_MODE_NOSUCCEED, w->win);
    if (w->peer >= 0)
        MPI_Group_free(&w->peer_group);
    if (w->flavour == RMA_DYNAMIC)
        MPI_Win_detach(w->win, w->base);
    MPI_Win_free(&w->win);
    if (w->flavour != RMA_ALLOCATE)
        free(w->base);
}

/* Around this rank's own loads and stores to its window memory outside the
 * timed rounds (set-up before rma_epoch_open, checks after rma_epoch_close). */
static inline void rma_local_begin(rma_win *w)
{
    if (w->sync != RMA_FENCE && w->sync != RMA_PSCW && w->peer >= 0)
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1 - w->peer, 0, w->win);
}

static inline void rma_local_end(rma_win *w)
{
    if (w->sync != RMA_FENCE && w->sync != RMA_PSCW && w->peer >= 0)
        MPI_Win_unlock(1 - w->peer, w->win);
}

/* Collective: before a series of rounds. */
static inline void rma_epoch_open(rma_win *w)
{
    if (w->sync == RMA_FENCE) {
        MPI_Win_fence(0, w->win); /* the targets' stores are visible after it */
        return;
    }
    if (w->sync == RMA_PSCW)
        return; /* post comes after the target's stores */
    MPI_Barrier(MPI_COMM_WORLD);
    if (w->origin && (w->sync == RMA_FLUSH || w->sync == RMA_FLUSH_LOCAL))
        MPI_Win_lock(MPI_LOCK_SHARED, w->peer, 0, w->win);
}

/* Collective: after a series of rounds; every op is complete at the target. */
static inline void rma_epoch_close(rma_win *w)
{
    if (w->sync == RMA_FENCE || w->sync == RMA_PSCW)
        return; /* the last round's fence / wait completed everything */
    if (w->origin && (w->sync == RMA_FLUSH || w->sync == RMA_FLUSH_LOCAL))
        MPI_Win_unlock(w->peer, w->win);
    MPI_Barrier(MPI_COMM_WORLD);
}

static inline void rma_round_begin(rma_win *w)
{
    switch (w->sync) {
    case RMA_PSCW:
        if (w->target)
            MPI_Win_post(w->peer_group, 0, w->win); /* before start: it does not block */
        if (w->origin)
            MPI_Win_start(w->peer_group, 0, w->win);
        break;
    case RMA_LOCK:
        if (w->origin)
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, w->peer, 0, w->win);
        break;
    case RMA_LOCK_ALL:
        if (w->origin)
            MPI_Win_lock_all(0, w->win);
        break;
    default:
        break;
    }
}

static inline void rma_round_end(rma_win *w)
{
    switch (w->sync) {
    case RMA_FENCE:
        MPI_Win_fence(0, w->win);
        break;
    case RMA_PSCW:
        if (w->origin)
            MPI_Win_complete(w->win);
        if (w->target)
            MPI_Win_wait(w->win);
        break;
    case RMA_LOCK:
        if (w->origin)
            MPI_Win_unlock(w->peer, w->win);
        break;
    case RMA_LOCK_ALL:
        if (w->origin)
            MPI_Win_unlock_all(w->win);
        break;
    case RMA_FLUSH:
        if (w->origin)
            MPI_Win_flush(w->peer, w->win);
        break;
    default:
        if (w->origin)
            MPI_Win_flush_local(w->peer, w->win);
        break;
    }
}

/* Rank 0 prints the mode lines under bench_header's. */
static inline void rma_header(const bench_opts *b, const rma_win *w)
{
    if (b->rank == 0)
        printf("# Window creation: %s\n# Synchronization: %s\n",
               rma_flavour_names[w->flavour], rma_sync_names[w->sync]);
}

#endif /* TERN_BENCH_RMA_H */
