/* The trace file: what a rank records of its MPI calls when TERN_TRACE is
 * set (docs/trace.md), read by tern-trace.  A format shared between the
 * library (the writer) and its readers; every value below is part of it.
 *
 * One file per rank: <TERN_TRACE>/<job>.<world rank>.ttr (<job> the job's
 * name from PMI with characters outside [A-Za-z0-9_.-] replaced by '_'),
 * mode 0600, created exclusively and never through a symbolic link, then
 * only appended to.  The rank buffers records in memory and writes them
 * in blocks; a process killed before MPI_Finalize loses what it had not
 * written yet, never what it had.
 *
 * All integers are little-endian, fields are packed without padding (the
 * sizes below are exact), and readers copy fields out with memcpy.
 *
 * Layout:
 *   header   TERN_TRACE_HDR_SIZE bytes (struct below);
 *   names    names_bytes bytes: ncalls NUL-terminated MPI function names
 *            (a record's call field indexes them), then nalgos
 *            NUL-terminated "kind:algorithm" names (a COLL item's algo
 *            field indexes them);
 *   records  until the end of the file, each a record header then items.
 *
 * Time.  Every record holds the time its call was entered and left in
 * ticks of the rank's clock: CLOCK_MONOTONIC ns (clock 0) or the CPU's
 * invariant time-stamp counter (clock 1, where the CPU has one: less than
 * half the cost of reading the system clock).  CLOCK records pair a tick
 * value with CLOCK_MONOTONIC ns; a reader maps ticks to ns by the line
 * through the header's pair (t0_ticks, t0_ns) and the last CLOCK record,
 * so the gaps between one rank's calls are exact.  Ranks' clocks are not
 * compared: nothing in a trace needs a global clock.
 *
 * Nested calls (an MPI call made by a callback inside another, such as a
 * user reduction op or a generalized request's query function) get their
 * own records, written before the enclosing call's, with their depth in
 * the flags. */
#ifndef TERN_TRACE_H
#define TERN_TRACE_H

#include <stdint.h>

#define TERN_TRACE_MAGIC      "TERNTRC"     /* 8 bytes with its NUL */
#define TERN_TRACE_VERSION    1
#define TERN_TRACE_HDR_SIZE   256
#define TERN_TRACE_SUFFIX     ".ttr"
#define TERN_TRACE_REC_HDR    24            /* bytes of a record header */
#define TERN_TRACE_ITEM_HDR   8             /* bytes of an item header */
#define TERN_TRACE_REC_MAX    (1u << 24)    /* largest record a reader takes */

/* header.clock */
enum { TERN_TRACE_CLOCK_NS = 0, TERN_TRACE_CLOCK_TSC = 1 };

/* The file header (TERN_TRACE_HDR_SIZE bytes). */
typedef struct __attribute__((packed)) {
    char     magic[8];          /* TERN_TRACE_MAGIC */
    uint32_t version;           /* TERN_TRACE_VERSION */
    uint32_t hdr_size;          /* TERN_TRACE_HDR_SIZE */
    uint32_t rank;              /* world rank */
    uint32_t size;              /* world size */
    uint32_t node;              /* this rank's node index, 0..nnodes-1 */
    uint32_t nnodes;
    uint32_t rails;             /* udp rails (0: no udp transport) */
    uint32_t pid;
    uint32_t clock;             /* TERN_TRACE_CLOCK_* */
    uint32_t ncalls;            /* MPI function names in the names block */
    uint32_t nalgos;            /* collective algorithm names after them */
    uint32_t names_bytes;
    uint64_t t0_ticks;          /* a clock reading at MPI_Init ... */
    uint64_t t0_ns;             /* ... and CLOCK_MONOTONIC ns at that moment */
    uint64_t t0_unix_ns;        /* CLOCK_REALTIME ns then (for people) */
    char     host[64];          /* NUL-terminated */
    char     job[64];           /* NUL-terminated */
    uint8_t  reserved[48];      /* zero */
} tern_trace_hdr_t;

_Static_assert(sizeof(tern_trace_hdr_t) == TERN_TRACE_HDR_SIZE, "trace header size");

/* Record kinds. */
enum {
    TERN_TRACE_REC_CALL  = 1,   /* one MPI call; its items say what it did */
    TERN_TRACE_REC_COMM  = 2,   /* a communicator's definition (one COMMDEF item) */
    TERN_TRACE_REC_CLOCK = 3,   /* t_enter = ticks, t_exit = CLOCK_MONOTONIC ns */
};

/* Record flags. */
#define TERN_TRACE_F_ERROR  0x01    /* the call returned an error */
#define TERN_TRACE_F_DEPTH  0x06    /* nesting depth (0..3), << 1 */

/* The record header (TERN_TRACE_REC_HDR bytes); len counts it and the
 * items, is a multiple of 4 and at most TERN_TRACE_REC_MAX. */
typedef struct __attribute__((packed)) {
    uint32_t len;
    uint16_t call;              /* MPI function (index in the names), CALL only */
    uint8_t  kind;              /* TERN_TRACE_REC_* */
    uint8_t  flags;
    uint64_t t_enter;
    uint64_t t_exit;
} tern_trace_rec_t;

/* Item header (TERN_TRACE_ITEM_HDR bytes): len counts it and the payload,
 * is a multiple of 4; a reader skips the types it does not know. */
typedef struct __attribute__((packed)) {
    uint16_t type;
    uint16_t reserved;          /* zero */
    uint32_t len;
} tern_trace_item_t;

/* Item types.  Ranks are communicator ranks unless named world; peer
 * values: >= 0 a rank, TERN_TRACE_ANY (MPI_ANY_SOURCE / MPI_ANY_TAG),
 * TERN_TRACE_PROC_NULL. */
#define TERN_TRACE_ANY        (-1)
#define TERN_TRACE_PROC_NULL  (-2)
#define TERN_TRACE_NONE       (-3)  /* no root, no op */
#define TERN_TRACE_ROOT       (-4)  /* the root's side of an intercommunicator
                                     * collective (MPI_ROOT) */

enum {
    TERN_TRACE_I_SEND    = 1,   /* tern_trace_send_t */
    TERN_TRACE_I_RECV    = 2,   /* tern_trace_recv_t */
    TERN_TRACE_I_STATUS  = 3,   /* tern_trace_status_t: what a blocking receive matched */
    TERN_TRACE_I_REQ     = 4,   /* tern_trace_req_t: the request the call made */
    TERN_TRACE_I_DONE    = 5,   /* tern_trace_done_t: a request the call completed */
    TERN_TRACE_I_START   = 6,   /* tern_trace_req_t: a persistent request started */
    TERN_TRACE_I_COLL    = 7,   /* tern_trace_coll_t */
    TERN_TRACE_I_SCOUNTS = 8,   /* uint64_t bytes[] sent to each rank (vector forms; per
                                 * destination of a neighbourhood collective) */
    TERN_TRACE_I_RCOUNTS = 9,   /* uint64_t bytes[] received from each rank (per source) */
    TERN_TRACE_I_NEWCOMM = 10,  /* tern_trace_newcomm_t: a communicator the call made */
    TERN_TRACE_I_COMMDEF = 11,  /* tern_trace_commdef_t, then int32 world ranks */
    TERN_TRACE_I_RMA     = 12,  /* tern_trace_rma_t */
    TERN_TRACE_I_FREE    = 13,  /* tern_trace_req_t: a request freed (MPI_Request_free) */
    TERN_TRACE_I_EVENT   = 14,  /* tern_trace_event_t: a transport event during the call */
    TERN_TRACE_I_NBRS    = 15,  /* tern_trace_nbrs_t: a neighbourhood collective's neighbours */
};

/* send mode (SEND.mode) */
enum { TERN_TRACE_STD = 0, TERN_TRACE_SYNC = 1, TERN_TRACE_READY = 2, TERN_TRACE_BUFFERED = 3 };
/* form (SEND/RECV/COLL.form) */
enum { TERN_TRACE_BLOCKING = 0, TERN_TRACE_NONBLOCKING = 1, TERN_TRACE_PERSISTENT = 2 };

typedef struct __attribute__((packed)) {
    uint32_t comm;              /* trace id of the communicator (COMMDEF) */
    int32_t  peer;              /* destination */
    int32_t  world;             /* its world rank (-1: none) */
    int32_t  tag;
    uint64_t bytes;
    uint8_t  mode;
    uint8_t  form;
    uint16_t pad;
} tern_trace_send_t;            /* 28 bytes */

typedef struct __attribute__((packed)) {
    uint32_t comm;
    int32_t  peer;              /* source, or TERN_TRACE_ANY */
    int32_t  tag;               /* or TERN_TRACE_ANY */
    uint64_t bytes;             /* capacity of the receive buffer */
    uint8_t  form;
    uint8_t  pad[3];
} tern_trace_recv_t;            /* 24 bytes */

typedef struct __attribute__((packed)) {
    int32_t  source;            /* matched source (comm rank) */
    int32_t  tag;
    uint64_t bytes;             /* bytes received */
    int32_t  error;             /* 0 or an MPI error class */
    uint32_t cancelled;
} tern_trace_status_t;          /* 24 bytes */

typedef struct __attribute__((packed)) {
    uint64_t req;               /* request id: unique among live requests */
} tern_trace_req_t;

typedef struct __attribute__((packed)) {
    uint64_t req;
    int32_t  source;            /* matched source of a receive, else -1 */
    int32_t  tag;
    uint64_t bytes;             /* bytes received (receives), 0 otherwise */
    int32_t  error;
    uint32_t cancelled;
} tern_trace_done_t;            /* 32 bytes */

/* EVENT: what the transport raised during the call (the MPI_T events of
 * docs/mpi_t.md, in their order); elems as that table describes them. */
enum {
    TERN_TRACE_EV_PEER_FAILURE = 0,     /* peer (world), reason */
    TERN_TRACE_EV_RETRANSMIT   = 1,     /* peer (world), packets, cause (0 fast, 1 timeout, 2 probe) */
    TERN_TRACE_EV_RAIL_STATE   = 2,     /* peer (world), rail, state (0 down, 1 up) */
    TERN_TRACE_NEVENTS
};

typedef struct __attribute__((packed)) {
    uint16_t event;             /* TERN_TRACE_EV_* */
    uint16_t nelems;            /* <= 4 */
    int32_t  elems[4];
    uint64_t t;                 /* the record's clock */
} tern_trace_event_t;           /* 28 bytes */

/* COLL.flags */
#define TERN_TRACE_C_INPLACE  0x01
#define TERN_TRACE_C_VECTOR   0x02
#define TERN_TRACE_C_NEIGHBOR 0x04

typedef struct __attribute__((packed)) {
    uint32_t comm;
    uint16_t kind;              /* tern_trace_coll_kind below */
    uint16_t algo;              /* index in the algorithm names; 0xffff unknown */
    int32_t  root;              /* a rank, TERN_TRACE_NONE, or on an
                                 * intercommunicator TERN_TRACE_ROOT /
                                 * TERN_TRACE_PROC_NULL */
    int32_t  op;                /* a predefined op (tern_trace_op below),
                                 * TERN_TRACE_OP_USER, or TERN_TRACE_NONE */
    uint64_t seq;               /* the rank's collective count on comm, from 0 */
    uint64_t sbytes;            /* bytes this rank contributes */
    uint64_t rbytes;            /* bytes this rank receives */
    uint8_t  form;
    uint8_t  flags;
    uint16_t pad;
} tern_trace_coll_t;            /* 44 bytes */

#define TERN_TRACE_ALGO_UNKNOWN 0xffffu

/* NBRS, after the COLL item of a neighbourhood collective: this rank's
 * neighbours in its topology's order, indegree sources then outdegree
 * destinations (int32 communicator ranks or TERN_TRACE_PROC_NULL).  The
 * collective's SCOUNTS then hold the bytes sent to each destination and
 * its RCOUNTS the bytes received from each source, in the same order.
 * On a Cartesian grid (TERN_TRACE_NBRS_CART) the message sent to
 * destination 2d (2d + 1) is received as source 2d + 1 (2d); on graphs
 * messages between two ranks match in the order of the lists. */
#define TERN_TRACE_NBRS_CART 0x01

typedef struct __attribute__((packed)) {
    uint32_t comm;
    uint32_t indegree;
    uint32_t outdegree;
    uint32_t flags;             /* TERN_TRACE_NBRS_* */
} tern_trace_nbrs_t;            /* 16 bytes, then int32 ranks[indegree + outdegree] */

enum {
    TERN_TRACE_BARRIER = 1, TERN_TRACE_BCAST, TERN_TRACE_REDUCE, TERN_TRACE_ALLREDUCE,
    TERN_TRACE_GATHER, TERN_TRACE_SCATTER, TERN_TRACE_ALLGATHER, TERN_TRACE_ALLTOALL,
    TERN_TRACE_REDUCE_SCATTER, TERN_TRACE_SCAN, TERN_TRACE_EXSCAN,
    TERN_TRACE_NBR_ALLGATHER, TERN_TRACE_NBR_ALLTOALL,
    TERN_TRACE_NKINDS
};

/* ops: TERN_TRACE_OP_SUM.. in MPI's order of predefined ops */
enum {
    TERN_TRACE_OP_USER = 0, TERN_TRACE_OP_MAX, TERN_TRACE_OP_MIN, TERN_TRACE_OP_SUM,
    TERN_TRACE_OP_PROD, TERN_TRACE_OP_LAND, TERN_TRACE_OP_BAND, TERN_TRACE_OP_LOR,
    TERN_TRACE_OP_BOR, TERN_TRACE_OP_LXOR, TERN_TRACE_OP_BXOR, TERN_TRACE_OP_MINLOC,
    TERN_TRACE_OP_MAXLOC, TERN_TRACE_OP_REPLACE, TERN_TRACE_OP_NO_OP,
    TERN_TRACE_NOPS
};

typedef struct __attribute__((packed)) {
    uint32_t comm;              /* 0: MPI_COMM_NULL (this rank is not in it) */
} tern_trace_newcomm_t;

/* COMMDEF.flags */
#define TERN_TRACE_COMM_INTER 0x01

/* A communicator's definition: the same (ctx, world ranks) on every member
 * names the same communicator; id is this rank's name for it, never
 * reused in the file.  Followed by size int32 world ranks of the local
 * group (rank order), then remote_size of the remote group. */
typedef struct __attribute__((packed)) {
    uint32_t id;
    uint32_t ctx;               /* context id */
    uint32_t size;
    uint32_t rank;              /* this rank in it */
    uint32_t remote_size;       /* intercommunicators, else 0 */
    uint32_t flags;
} tern_trace_commdef_t;         /* 24 bytes, then the ranks */

enum { TERN_TRACE_PUT = 1, TERN_TRACE_GET, TERN_TRACE_ACC, TERN_TRACE_GET_ACC,
       TERN_TRACE_FOP, TERN_TRACE_CAS };

typedef struct __attribute__((packed)) {
    uint32_t comm;              /* the window's communicator */
    uint8_t  op;                /* TERN_TRACE_PUT.. */
    uint8_t  pad[3];
    int32_t  target;
    uint64_t bytes;
} tern_trace_rma_t;             /* 20 bytes */

#endif
