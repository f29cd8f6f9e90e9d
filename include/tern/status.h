/* The status segment: where each rank publishes the MPI call it is in, for
 * hang reports (tern-run --timeout, SIGUSR1, tern-run --status) and later
 * the monitor.  A format shared between the library (the writer) and the
 * launcher or a host's proxy (the reader); every value below is part of it.
 *
 * The launcher makes one anonymous memfd per host before it starts the
 * ranks: a header, then one slot per local rank.  A rank inherits the
 * descriptor (TERN_STATUS_FD) and its slot index (TERN_STATUS_SLOT), maps
 * the segment at MPI_Init and writes only its own slot:
 *
 *   line 0  who it is: written once when it attaches, magic last
 *   line 1  the current call (tern_status_call_t): rewritten by every
 *           published MPI call on entry and marked left on exit, a few
 *           stores each, no clock read, no syscall
 *   line 2  written by the launcher only: `ask`, bumped to ask for an answer
 *   line 3+ the answer (tern_status_answer_t): written by the rank when it
 *           sees `ask` change while it waits inside MPI (its progress or
 *           sleep loop), then `answered` = `ask`
 *
 * Time.  A clock read per call costs more than the rest of the publication
 * (CLOCK_MONOTONIC_COARSE 7 ns, rdtsc 13 ns on a virtual machine, against
 * an 8-byte one-way latency of 0.3 us), so ranks read none: the launcher
 * writes CLOCK_MONOTONIC in milliseconds into the header every tick_ms and
 * ranks copy that word.  Durations are good to a tick.
 *
 * Consistency.  The call line is a sequence lock with one writer: seq is odd
 * while the rank rewrites the line, seq % 4 == 2 while the rank is inside
 * the call, seq % 4 == 0 once it has left (leave_ms then holds when).  A
 * reader copies the line between two loads of seq and retries when they
 * differ or the first is odd.
 *
 * Trust.  Ranks write what they like into their slots (a wild pointer, a
 * hostile program): readers bounds-check every field of a copy they took,
 * never follow anything in it, and print only what they decoded. */
#ifndef TERN_STATUS_H
#define TERN_STATUS_H

#include <stdint.h>

#define TERN_STATUS_MAGIC      0x5453544eu  /* "NTST": the segment header */
#define TERN_STATUS_SLOT_MAGIC 0x4c53544eu  /* "NTSL": a rank attached its slot */
#define TERN_STATUS_VERSION    1
#define TERN_STATUS_LINE       64           /* bytes per line of a slot */
#define TERN_STATUS_HDR_SIZE   4096         /* slot 0 starts here */
#define TERN_STATUS_SLOT_SIZE  4096         /* bytes per slot */

/* Values of the MPI standard ABI, as published peers and tags carry them. */
#define TERN_STATUS_ANY_SOURCE (-1)
#define TERN_STATUS_ANY_TAG    (-2)
#define TERN_STATUS_PROC_NULL  (-3)
#define TERN_STATUS_ROOT       (-4)

/* At offset 0; written by the launcher before any rank starts. */
typedef struct {
    uint32_t magic;         /* TERN_STATUS_MAGIC */
    uint16_t version;       /* TERN_STATUS_VERSION */
    uint16_t line;          /* TERN_STATUS_LINE */
    uint32_t hdr_size;      /* TERN_STATUS_HDR_SIZE */
    uint32_t slot_size;     /* TERN_STATUS_SLOT_SIZE */
    uint32_t nslots;        /* slots after the header */
    uint32_t tick_ms;       /* now_ms advances about this often */
    uint8_t  pad0[40];
    /* line 1: the launcher's clock (ms of CLOCK_MONOTONIC), 0 while stopped */
    uint64_t now_ms;
    uint8_t  pad1[56];
} tern_status_hdr_t;

/* Line 0 of a slot: written once by the rank (magic last, release). */
typedef struct {
    uint32_t magic;         /* TERN_STATUS_SLOT_MAGIC */
    uint16_t version;       /* TERN_STATUS_VERSION */
    uint16_t flags;         /* TERN_STATUS_F_* */
    int32_t  pid;
    int32_t  world_rank;
    int32_t  world_size;
    uint32_t ncalls;        /* ids 1..ncalls name calls of its call table */
    uint64_t calls_hash;    /* which table (TN_STATUS_CALLS_HASH) */
    uint64_t attach_ms;     /* now_ms when it attached */
    uint8_t  pad[24];
} tern_status_who_t;

#define TERN_STATUS_F_MAIN_ONLY 1u  /* MPI_THREAD_MULTIPLE: only the main
                                     * thread's calls are published */

/* Line 1 of a slot: the current (or last) call. */
typedef struct {
    uint32_t seq;           /* see "Consistency" above */
    uint32_t call;          /* id in the call table; 0: none yet */
    int32_t  peer;          /* the call's first rank argument (dest, source,
                             * root...), its second, its tags: which ones a
                             * call has is in the call table */
    int32_t  tag;
    int32_t  peer2;
    int32_t  tag2;
    int64_t  count;
    uint64_t obj;           /* the communicator/window/session handle the
                             * application passed, as its bits */
    uint64_t dtype;         /* the datatype handle, as its bits */
    uint64_t enter_ms;      /* now_ms at entry */
    uint64_t leave_ms;      /* now_ms at the last exit (seq % 4 == 0) */
} tern_status_call_t;

/* What a communicator named in an answer is. */
enum {
    TERN_STATUS_COMM_NONE = 0,  /* no communicator (or not resolved) */
    TERN_STATUS_COMM_WORLD,
    TERN_STATUS_COMM_SELF,
    TERN_STATUS_COMM_OTHER,     /* ctx and size say which */
    TERN_STATUS_COMM_BAD,       /* the handle named no live communicator */
};

/* The communicator of the current call, resolved by the rank. */
typedef struct {
    uint8_t  kind;          /* TERN_STATUS_COMM_* */
    uint8_t  pad[3];
    uint32_t ctx;           /* context id (unique in the job) */
    int32_t  size;          /* ranks */
    int32_t  rank;          /* this rank in it */
    char     name[48];      /* MPI_Comm_set_name, NUL-padded (may lack the NUL) */
} tern_status_comm_t;

/* Kinds of pending requests. */
enum {
    TERN_STATUS_REQ_SEND = 1,
    TERN_STATUS_REQ_RECV,
    TERN_STATUS_REQ_OTHER,      /* collective schedule, generalized, ... */
};
#define TERN_STATUS_RQ_COLL       1u  /* part of a collective (internal) */
#define TERN_STATUS_RQ_PERSISTENT 2u
#define TERN_STATUS_RQ_SYNC       4u  /* synchronous send (MPI_Ssend) */

/* One pending (started, not complete) request. */
typedef struct {
    uint8_t  kind;          /* TERN_STATUS_REQ_* */
    uint8_t  flags;         /* TERN_STATUS_RQ_* */
    uint8_t  comm_kind;     /* TERN_STATUS_COMM_* */
    uint8_t  pad;
    uint32_t ctx;           /* its communicator's context id */
    int32_t  peer;          /* rank in that communicator, or ANY_SOURCE */
    int32_t  peer_world;    /* world rank of peer, or -1 */
    int32_t  tag;           /* or ANY_TAG */
    int32_t  pad2;
    uint64_t count;         /* elements */
    uint64_t bytes;         /* send: message size; receive: room */
    uint64_t done;          /* bytes moved so far */
} tern_status_req_t;

/* Line 3 onwards: the answer to the last ask. */
typedef struct {
    uint32_t answered;      /* = ask once the rest is written (release) */
    uint32_t call_seq;      /* seq of the call line it describes */
    uint32_t nreqs;         /* entries in reqs[] */
    uint32_t nreqs_total;   /* pending requests in all (may exceed nreqs) */
    int64_t  dtype_size;    /* bytes per element of the call's datatype, -1 */
    uint8_t  pad[40];
    tern_status_comm_t comm;
    tern_status_req_t  reqs[];
} tern_status_answer_t;

#define TERN_STATUS_OFF_WHO    0
#define TERN_STATUS_OFF_CALL   64
#define TERN_STATUS_OFF_ASK    128
#define TERN_STATUS_OFF_ANSWER 192
#define TERN_STATUS_MAX_REQS                                                \
    ((TERN_STATUS_SLOT_SIZE - TERN_STATUS_OFF_ANSWER -                      \
      sizeof(tern_status_answer_t)) / sizeof(tern_status_req_t))

_Static_assert(sizeof(tern_status_hdr_t) == 128, "status header");
_Static_assert(sizeof(tern_status_who_t) == 64, "status who line");
_Static_assert(sizeof(tern_status_call_t) == 64, "status call line");
_Static_assert(sizeof(tern_status_comm_t) == 64, "status comm");
_Static_assert(sizeof(tern_status_req_t) == 48, "status request");
_Static_assert(sizeof(tern_status_answer_t) == 128, "status answer");

#endif
