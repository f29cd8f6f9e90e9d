/* tern-trace export --vef (docs/trace.md, "VEF"): a loaded, matched job
 * (trace_load.h, trace_match.h) written as a VEF trace (trace_vef.h).
 *
 * Each rank's calls become a chain.  A rank's messages (at the call that
 * posted the send) and collective lines (at the call that entered it)
 * depend on the rank's last completed event: the receive, collective or
 * send that the latest call before them completed, with delay = that
 * call's exit to this call's entry (everything the rank did in between,
 * MPI calls that are no VEF event included, counts as compute).  VEF
 * allows one dependency; of what one call completed (a Waitall on many
 * requests, a Sendrecv) the one whose other side started last is kept:
 * a receive by its send's entry, a collective by its last member's
 * entry, a synchronous send by its receive's posting; a standard send's
 * own completion only when the call completed nothing else.  A rank's
 * first event is independent, its delay counted from its exit from
 * MPI_Init (which ends in a fence of all ranks).
 *
 * Lines are written in dependency order (a topological order of the
 * chains; a collective's lines together once every member reached it).
 * Where the chains form a cycle (collectives on different communicators
 * entered in different orders with nonblocking calls), the cycle is broken
 * by writing the members that reached a collective (the rest follow
 * later under the same G id) or, failing that, by making one rank's
 * waiting event independent; vx_stats_t counts both.
 *
 * Not exported (counted): sends and receives that matched nothing,
 * collectives whose members are not all in the traces or disagree on the
 * kind, intercommunicator and neighbourhood collectives, reduces whose
 * root is not among the members. */
#ifndef TT_TRACE_VEF_EXPORT_H
#define TT_TRACE_VEF_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "trace_match.h"

typedef struct {
    uint64_t msgs;                      /* message lines */
    uint64_t colls, coll_lines;         /* collectives (G ids) and their lines */
    uint32_t comms;                     /* communicator lines */
    uint64_t lone_sends, lone_recvs;    /* unmatched, not exported */
    uint64_t colls_skipped;             /* collectives not exported */
    uint64_t approx_kinds;              /* reduce_scatter, scan, exscan written as allreduce */
    uint64_t multi;                     /* calls that completed several events: one kept */
    uint64_t split, dropped;            /* cycles broken (see above) */
} vx_stats_t;

/* Write j (matched as m) to o as VEF.  0, or -1 when memory ran out or
 * writing failed. */
int vx_export(FILE *o, const tl_job_t *j, const tm_match_t *m, vx_stats_t *st);

#endif
