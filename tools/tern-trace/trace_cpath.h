/* A critical path estimate of a loaded and matched job (docs/trace.md,
 * "The critical path").
 *
 * The path ends where the last rank entered MPI_Finalize (without one in
 * the traces: at the latest exit of any call) and is walked back in time
 * on the job's clock.  On a rank, the time between calls is compute; a
 * call is MPI time unless it depended on another rank and that rank's
 * part arrived after the call began.  Then the path leaves the call at
 * the modelled arrival: the part of the call after it is MPI time, the
 * arrival itself is transfer (its model below), and the walk goes on at
 * the other rank where its part started.  A call depends on
 *   - a message it completed (a blocking receive, the wait or test of a
 *     nonblocking one): the send's start; arrival = start + latency +
 *     bytes / bandwidth;
 *   - a message it sent and completed synchronously (mode sync, or more
 *     than `eager` bytes: a rendezvous): the receive's posting; arrival
 *     = posting + latency + bytes / bandwidth;
 *   - a collective it completed: the last member to enter it (bcast and
 *     scatter: the root, for the other members; reduce and gather: the
 *     last member, for the root only, the non-roots depend on no one;
 *     neighbourhood collectives as all-member ones, an overstatement);
 *     arrival = that entry + latency; MPI_Init as a collective of all
 *     ranks.
 * Of a call's dependencies, the one that arrives last counts.  The path
 * is contiguous, so compute + mpi + transfer = end - start exactly; by
 * rank, transfer counts for the rank the path arrived at. */
#ifndef TT_TRACE_CPATH_H
#define TT_TRACE_CPATH_H

#include <stddef.h>
#include <stdint.h>

#include "trace_load.h"
#include "trace_match.h"

#define TC_MAX_HOPS 4096                /* hops kept (the latest) */
#define TC_COLS     240                 /* columns of the job's time in tc_path_t.cols */

typedef struct {
    double   latency_ns;                /* start-up of one message (default 1000) */
    double   ns_per_byte;               /* 1 / bandwidth (default 0.1: 10 GB/s) */
    uint64_t eager;                     /* larger sends are rendezvous (default 16384) */
} tc_model_t;

typedef struct {
    uint32_t from, to;                  /* the path went from rank `from` at t0 */
    int64_t  t0, t1;                    /* to rank `to` at t1 */
} tc_hop_t;

typedef struct {
    int64_t   start, end;               /* job clock */
    uint32_t  start_rank, end_rank;
    int       finalize;                 /* ended at an MPI_Finalize */
    int       cut;                      /* the walk hit its step limit (a damaged trace) */
    int64_t   compute, mpi, transfer;   /* sum = end - start */
    int64_t  *rank_compute, *rank_mpi, *rank_transfer;     /* [size] */
    int64_t  *call_mpi;                 /* [job's calls]: MPI time on the path by call */
    uint64_t  hops_recv, hops_send, hops_coll;
    tc_hop_t *hops;                     /* the latest TC_MAX_HOPS, latest first */
    size_t    nhops;
    uint32_t  cols[TC_COLS];            /* the rank the path is on at the middle of each
                                         * of TC_COLS columns of [0, job's end], TL_NONE
                                         * outside the path */
} tc_path_t;

void tc_model_default(tc_model_t *mod);
/* Walk the path; 0, or -1 when memory ran out (p is then empty). */
int tc_path(const tl_job_t *j, const tm_match_t *m, const tc_model_t *mod, tc_path_t *p);
void tc_free(tc_path_t *p);

#endif
