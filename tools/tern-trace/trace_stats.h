/* The numbers of tern-trace report (docs/trace.md), computed from a loaded
 * and matched job (trace_load.h, trace_match.h) for the text and HTML
 * writers: time per rank and per call, message sizes, the communication
 * matrix, collectives by kind and algorithm, and a per-rank timeline of
 * time inside MPI.
 *
 * Conventions.  Call time counts records of depth 0 only (a nested call's
 * time is inside its enclosing call's).  Byte sums saturate at 2^64-1.
 * Sizes: bin 0 holds 0 bytes, bin i (1..64) holds [2^(i-1), 2^i). */
#ifndef TT_TRACE_STATS_H
#define TT_TRACE_STATS_H

#include <stdint.h>

#include "trace_load.h"
#include "trace_match.h"

#define TS_HBINS    65
#define TS_TOPCALLS 6                   /* calls shown by name in per-rank charts */
#define TS_TL_BINS  240                 /* timeline columns */
#define TS_TL_ROWS  64                  /* timeline rows (ranks grouped above this) */

typedef struct {
    int64_t  begin, end;                /* first entry, last exit (job clock) */
    int64_t  mpi;                       /* inside MPI calls */
    int64_t  top[TS_TOPCALLS];          /* inside each of ts_stats_t.top's calls */
    uint64_t calls, nested, errors;     /* depth-0 records, nested ones, error flags */
    uint64_t p2p_sent, p2p_recvd;       /* bytes of matched messages */
    uint64_t msgs_sent, msgs_recvd;
    uint64_t coll_sent, coll_recvd;     /* bytes its collective calls contribute, receive */
    uint64_t coll_calls;
} ts_rank_t;

typedef struct {
    uint16_t call;
    uint64_t count;
    int64_t  total, max;
} ts_call_t;

typedef struct {
    uint32_t src, dst;
    uint64_t bytes, msgs;
} ts_pair_t;

typedef struct {
    uint16_t kind, algo;                /* algo: job index or TERN_TRACE_ALGO_UNKNOWN */
    uint64_t instances, calls;          /* collectives, member calls */
    int64_t  time;                      /* members' time inside the calls */
    int64_t  span;                      /* sum over instances: first entry to last exit */
    int64_t  skew;                      /* sum over instances: first entry to last entry */
    uint64_t bytes;                     /* members' contributed bytes */
} ts_coll_t;

typedef struct {
    uint32_t   size;
    int64_t    t_end;
    ts_rank_t *ranks;                   /* [size] */
    ts_call_t *calls;                   /* the calls that occur, by total time, longest first */
    uint32_t   ncalls;
    uint16_t   top[TS_TOPCALLS];        /* the first ntop of calls */
    uint32_t   ntop;
    uint64_t   p2p_hist[TS_HBINS];      /* messages (matched and lone sends) by size */
    uint64_t   coll_hist[TS_HBINS];     /* collective calls by the larger of sent/received */
    ts_pair_t *pairs;                   /* matched messages and neighbourhood
                                         * collectives' edges by (src, dst) */
    size_t     npairs;
    ts_coll_t *colls;                   /* by kind, then algorithm */
    uint32_t   ncolls;
    uint64_t   coll_instances, coll_partial;   /* collectives, those missing members */
    /* transport events (TERN_TRACE_I_EVENT) */
    uint64_t   retx_bursts, retx_packets[3];   /* resent packets by cause: fast, timeout, probe */
    uint64_t   rails_down, rails_up, peers_failed;
    ts_pair_t *retx;                    /* by (rank, peer): bursts in msgs, packets in bytes */
    size_t     nretx;
    /* timeline: rows of ranks [row * size / rows, (row+1) * size / rows) */
    uint32_t   tl_rows;
    double    *tl;                      /* [tl_rows][TS_TL_BINS] fraction of time in MPI */
} ts_stats_t;

/* Compute; 0, or -1 when memory ran out (s is then empty). */
int ts_compute(const tl_job_t *j, const tm_match_t *m, ts_stats_t *s);
void ts_free(ts_stats_t *s);

/* The histogram bin of a size, and the smallest size of a bin. */
unsigned ts_bin(uint64_t bytes);
uint64_t ts_bin_low(unsigned bin);

#endif
