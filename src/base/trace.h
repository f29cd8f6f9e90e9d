/* The rank's trace (TERN_TRACE, include/tern/trace.h, docs/trace.md): the
 * recorder the entry points and the layers below them write into.
 *
 * Each MPI entry point opens a record (tn_trace_enter) and closes it
 * (tn_trace_leave); between the two, the layers that know what the call
 * did add items to the calling thread's innermost open record (sends,
 * receives, requests, the collective and the algorithm that ran).  A
 * closed record goes into the process's buffer, written to the file in
 * blocks.  With tracing off, tn_trace_enter is one load and a branch that
 * is not taken, and every item function returns at its first test.
 *
 * Threads: records are per thread until closed; the buffer is guarded by
 * a spin lock once tn_trace_threads(1) was called (MPI_THREAD_MULTIPLE).
 * Without it, the outermost call's record is built in place at the end of
 * the buffer and closing it only stamps it; anything else that goes into
 * the buffer first moves it out.  Records of a thread are written in the
 * order they close. */
#ifndef TN_BASE_TRACE_H
#define TN_BASE_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include "tern/trace.h"

#define TN_TRACE_HIDDEN __attribute__((visibility("hidden")))

extern int tn_trace_on TN_TRACE_HIDDEN;

/* A thread's open records (the innermost at depth - 1); private to the
 * recorder, here for the inline item path below. */
#define TN_TRACE_DEPTH 4              /* records kept open at once per thread */

typedef struct {
    char  *buf;                       /* where the record is built: own, or (the
                                       * outermost record of a process without
                                       * MPI_THREAD_MULTIPLE) the tail of the
                                       * process's buffer, so that closing it
                                       * copies nothing */
    size_t len, cap;                  /* bytes built, room at buf */
    size_t coll_off;                  /* offset of the last COLL payload, 0 none */
    char  *own;                       /* the record's own memory */
    size_t own_cap;
} tn_trace_open_t;

typedef struct {
    tn_trace_open_t open[TN_TRACE_DEPTH];
    int             depth;            /* may exceed TN_TRACE_DEPTH (not kept) */
} tn_trace_thread_t;

extern __thread tn_trace_thread_t *tn_trace_me
    __attribute__((tls_model("initial-exec"), visibility("hidden")));

/* Who the rank is, for the file's name and header. */
typedef struct {
    const char *dir;            /* TERN_TRACE */
    const char *job;            /* PMI job name */
    const char *host;
    int         rank, size, node, nnodes, rails;
    const char *const *calls;   /* MPI function names by call id */
    unsigned    ncalls;
    const char *const *algos;   /* "kind:algo" names by algorithm id */
    unsigned    nalgos;
    size_t      buffer;         /* bytes buffered before a write */
    int         tsc;            /* use the time-stamp counter when invariant */
    unsigned    init_call;      /* call id of MPI_Init (its record's) */
    int         events;         /* record the transport's events */
} tn_trace_ident_t;

/* MPI_Init (or the first MPI_Session_init) begins: the time of the first
 * record, taken whether tracing will be on or not (two clock reads). */
void tn_trace_init_begins(void);
/* Start tracing: make the file and write its header.  Failures are warned
 * about and leave tracing off; returns 0 on success. */
int tn_trace_open(const tn_trace_ident_t *id);
/* Close every open record, write what is buffered and close the file;
 * tracing is off afterwards.  Safe when tracing never started. */
void tn_trace_close(void);
/* The file's name ("" when not tracing). */
const char *tn_trace_path(void);
void tn_trace_threads(int multiple);

/* The clock records are stamped with (ticks, see tern/trace.h). */
uint64_t tn_trace_clock(void);

uint64_t tn_trace_enter_(unsigned call) TN_TRACE_HIDDEN;
void tn_trace_leave_(int ret) TN_TRACE_HIDDEN;

/* Open a record for MPI function call; returns a non-zero token when a
 * record was opened, which tn_trace_leave takes. */
static inline uint64_t tn_trace_enter(unsigned call)
{
    return __builtin_expect(tn_trace_on, 0) ? tn_trace_enter_(call) : 0;
}

/* Close the record tn_trace_enter opened; ret is the call's return code. */
static inline void tn_trace_leave(uint64_t token, int ret)
{
    if (__builtin_expect(token != 0, 0)) {
        tn_trace_leave_(ret);
    }
}

/* Add an item (payload of len bytes, then extra of xlen bytes) to this
 * thread's innermost open record; nothing when no record is open. */
void tn_trace_item(unsigned type, const void *payload, size_t len, const void *extra,
                   size_t xlen) TN_TRACE_HIDDEN;
/* tn_trace_item for a payload of a size known where it is called (a
 * multiple of 4, no extra): copied inline into the open record when it
 * has room, which it has after the first few records. */
static inline void tn_trace_item_fixed(unsigned type, const void *payload, size_t len)
{
    tn_trace_thread_t *t = tn_trace_me;
    if (t == NULL || t->depth <= 0 || t->depth > TN_TRACE_DEPTH || !tn_trace_on) {
        return;
    }
    tn_trace_open_t *r = &t->open[t->depth - 1];
    size_t total = TERN_TRACE_ITEM_HDR + len;
    if (len % 4 != 0 || r->len + total > r->cap || type == TERN_TRACE_I_COLL) {
        tn_trace_item(type, payload, len, NULL, 0);
        return;
    }
    tern_trace_item_t h = { (uint16_t)type, 0, (uint32_t)total };
    __builtin_memcpy(r->buf + r->len, &h, sizeof(h));
    __builtin_memcpy(r->buf + r->len + sizeof(h), payload, len);
    r->len += total;
}

/* A transport event (base/events.h) as an EVENT item of this thread's
 * innermost open record; nothing when none is open (an event raised by
 * the asynchronous progress thread). */
void tn_trace_event(unsigned event, const int *elems, int n) TN_TRACE_HIDDEN;

/* Whether this thread has a record open (items would be kept). */
int tn_trace_active(void) TN_TRACE_HIDDEN;
/* The algorithm of the last COLL item of the innermost open record. */
void tn_trace_algo_(unsigned algo) TN_TRACE_HIDDEN;

static inline void tn_trace_algo(unsigned algo)
{
    if (__builtin_expect(tn_trace_on, 0)) {
        tn_trace_algo_(algo);
    }
}

/* Write a whole record of kind with one item, stamped now (communicator
 * definitions). */
void tn_trace_record(unsigned kind, unsigned type, const void *payload, size_t len,
                     const void *extra, size_t xlen) TN_TRACE_HIDDEN;

#endif
