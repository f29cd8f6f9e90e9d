/* A small writer of synthetic trace files (include/tern/trace.h) for the
 * tests of tern-trace's loader, matcher and report: records built item by
 * item in memory, then read back through fmemopen.  Not a second reader:
 * the bytes go through trace_read.c like any file. */
#ifndef TERN_TEST_TRACE_SYNTH_H
#define TERN_TEST_TRACE_SYNTH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tern/trace.h"

/* The calls every synthetic trace names, in this order (see sy_init). */
enum {
    SY_INIT, SY_FINALIZE, SY_SEND, SY_RECV, SY_ISEND, SY_IRECV, SY_WAIT, SY_WAITALL,
    SY_BARRIER, SY_ALLREDUCE, SY_IBARRIER, SY_SSEND, SY_SEND_INIT, SY_START, SY_BCAST,
    SY_NBR_ALLTOALL, SY_NCALLS
};
/* algorithms: 0 allreduce:ring, 1 barrier:shm, 2 bcast:binomial */

typedef struct {
    unsigned char *b;
    size_t         n, cap;
    size_t         rec;                 /* offset of the open record */
    uint64_t       base;                /* ns added to every time given */
    int            reverse;             /* the file names the calls backwards */
} sy_t;

/* A header of rank `rank` of `size` on node `node` of `nnodes`, job
 * `job`, clock in ns starting at base; reverse: name the calls in the
 * opposite order (another file's numbering). */
/* Non-zero: every rank's host name is "vm", whatever its node (nodes that
 * are network namespaces of one machine, sharing its clock). */
extern int sy_one_host;

void sy_init(sy_t *w, uint32_t rank, uint32_t size, uint32_t node, uint32_t nnodes,
             const char *job, uint64_t base, int reverse);
void sy_free(sy_t *w);

/* A communicator definition: id, ctx, this rank's rank in it, the world
 * ranks of its group (n) and of a remote group (rn, 0: intra). */
void sy_comm(sy_t *w, uint32_t id, uint32_t ctx, uint32_t rank, const int32_t *world, uint32_t n,
             const int32_t *remote, uint32_t rn);

/* A CALL record of call (SY_*) from t0 to t1 ns after base; its items
 * follow until sy_end. */
void sy_call(sy_t *w, unsigned call, uint64_t t0, uint64_t t1);
void sy_send(sy_t *w, uint32_t comm, int32_t peer, int32_t tag, uint64_t bytes, unsigned mode,
             unsigned form);
void sy_recv(sy_t *w, uint32_t comm, int32_t peer, int32_t tag, uint64_t cap, unsigned form);
void sy_status(sy_t *w, int32_t source, int32_t tag, uint64_t bytes);
void sy_req(sy_t *w, unsigned type, uint64_t id);             /* REQ, START, FREE */
void sy_done(sy_t *w, uint64_t id, int32_t source, int32_t tag, uint64_t bytes, int cancelled);
void sy_coll(sy_t *w, uint32_t comm, unsigned kind, unsigned algo, int32_t root, uint64_t seq,
             uint64_t sbytes, uint64_t rbytes, unsigned form);
/* A neighbourhood collective's NBRS item: in sources, then out
 * destinations, in ranks[]. */
void sy_nbrs(sy_t *w, uint32_t comm, uint32_t in, uint32_t out, const int32_t *ranks);
void sy_end(sy_t *w);

/* A stream over a copy of the first n bytes (all: n = SIZE_MAX); the
 * copy is freed when the stream is closed. */
FILE *sy_stream(const sy_t *w, size_t n);
/* Write the bytes to path; 0 or -1. */
int sy_write(const sy_t *w, const char *path);

#endif
