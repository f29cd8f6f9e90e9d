/* One rank's status slot as tern-run reads it: decoding a copy of what
 * the rank wrote (hostile: every field is checked, names made printable,
 * counts bounded) and the report lines of that rank.  No I/O; fuzzed by
 * tests/fuzz/fuzz_status.c.  The format: include/tern/status.h. */
#ifndef TN_RUN_SLOT_H
#define TN_RUN_SLOT_H

#include "run_util.h"

#include <stddef.h>
#include <stdint.h>

#include "tern/status.h"

#define TN_RUN_STATUS_ANSWER_MS 500   /* longest wait for answers (run_status.c) */

/* A slot as decoded: every field checked, names printable. */
typedef struct {
    int                attached;     /* the rank mapped its slot */
    const char        *bad;          /* why the rest is unusable, or NULL */
    int32_t            pid;
    int32_t            world_rank;   /* -1: not told yet */
    int32_t            world_size;
    int                main_only;    /* MPI_THREAD_MULTIPLE */
    int                known_calls;  /* its call ids are those of our table */
    int                any_call;     /* it made a published call */
    int                in_call;      /* and is inside it now */
    tern_status_call_t call;         /* the record (call == 0: none) */
    int                asked;        /* we asked for an answer */
    int                answered;     /* the answer below is for our ask */
    int64_t            dtype_size;   /* -1: unknown */
    tern_status_comm_t comm;         /* name NUL-terminated, printable */
    uint32_t           nreqs;        /* <= TERN_STATUS_MAX_REQS */
    uint32_t           nreqs_total;  /* >= nreqs */
    tern_status_req_t  reqs[TERN_STATUS_MAX_REQS];
} tn_run_slot_t;

/* Decode len bytes copied from a slot (len < TERN_STATUS_SLOT_SIZE is
 * "truncated").  ask: the value we asked with (0: none).  Never fails: what
 * cannot be trusted is reported through ->bad or left out. */
void tn_run_slot_decode(const void *bytes, size_t len, uint32_t ask, tn_run_slot_t *slot_p);

/* Append the report lines of one rank, each starting with prefix.  now_ms
 * is the segment clock's time now (0: durations unknown). */
void tn_run_slot_format(const tn_run_slot_t *slot, int rank, int pid, const char *host,
                        uint64_t now_ms, const char *prefix, tn_run_buf_t *out);

#endif
