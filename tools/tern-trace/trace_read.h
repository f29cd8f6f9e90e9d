/* The one decode step of trace files (include/tern/trace.h): everything
 * tern-trace and tern-sim know of a trace comes through here, checked.
 *
 * A file is whatever its writer (or anyone who could write the directory)
 * put there.  The reader copies the header, the names and each record
 * into memory it owns, checks every length against what holds it, every
 * enumerated value against its range, every communicator id against the
 * definitions read so far and every name index against the names, and
 * hands out decoded records only.  A record that fails ends the reading
 * with a message naming the file offset and the reason; what came before
 * it stays usable.
 *
 * Times: tt_ns() maps a record's ticks to CLOCK_MONOTONIC ns of the
 * writer with the header's clock pair and the latest CLOCK record (the
 * writer appends one to every block it writes). */
#ifndef TT_TRACE_READ_H
#define TT_TRACE_READ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "tern/trace.h"

#define TT_MAX_NAMES      8192          /* calls + algorithms */
#define TT_MAX_NAMES_SIZE (1u << 20)
#define TT_MAX_SIZE       (1 << 24)     /* world size */
#define TT_MAX_COMMS      (1u << 22)    /* communicator ids */

typedef struct {
    tern_trace_commdef_t def;
    int32_t             *world;         /* def.size + def.remote_size ranks */
} tt_comm_t;

typedef struct {
    unsigned type;                      /* TERN_TRACE_I_* */
    union {
        tern_trace_send_t    send;
        tern_trace_recv_t    recv;
        tern_trace_status_t  status;
        tern_trace_req_t     req;       /* REQ, START, FREE */
        tern_trace_done_t    done;
        tern_trace_coll_t    coll;
        tern_trace_newcomm_t newcomm;
        tern_trace_rma_t     rma;
        tern_trace_event_t   event;
        uint32_t             commdef;   /* the id defined (see tt_comm) */
        struct {
            uint32_t             n;
            const unsigned char *raw;   /* into the record's buffer: tt_count() */
        } counts;                       /* SCOUNTS, RCOUNTS */
        struct {
            tern_trace_nbrs_t    h;
            const unsigned char *raw;   /* the int32 ranks: tt_nbr() */
        } nbrs;                         /* NBRS */
    } u;
} tt_item_t;

typedef struct {
    unsigned  kind;                     /* TERN_TRACE_REC_* */
    unsigned  call;                     /* index in the names (CALL records) */
    unsigned  flags;
    unsigned  depth;
    uint64_t  t_enter, t_exit;          /* ticks */
    unsigned  nitems;
    tt_item_t *items;                   /* owned by the reader, valid until the next record */
    uint64_t  offset;                   /* in the file */
} tt_rec_t;

typedef struct {
    FILE            *f;
    char             name[512];         /* for messages */
    tern_trace_hdr_t hdr;
    char            *names;             /* names block, NUL-terminated strings */
    const char     **calls;             /* hdr.ncalls */
    const char     **algos;             /* hdr.nalgos */
    tt_comm_t       *comms;             /* by id; comms[id].world == NULL: undefined */
    uint32_t         ncomms;            /* slots allocated */
    /* tick -> ns */
    uint64_t         c0_ticks, c0_ns, c1_ticks, c1_ns;
    /* current record */
    uint64_t         off;
    unsigned char   *buf;
    size_t           cap;
    tt_item_t       *items;
    unsigned         icap;
    char             err[800];
} tt_file_t;

/* Element i of a counts item. */
static inline uint64_t tt_count(const tt_item_t *it, uint32_t i)
{
    uint64_t v;
    memcpy(&v, it->u.counts.raw + (size_t)i * sizeof(v), sizeof(v));
    return v;
}

/* Neighbour k of an NBRS item: sources first, then destinations. */
static inline int32_t tt_nbr(const tt_item_t *it, uint32_t k)
{
    int32_t v;
    memcpy(&v, it->u.nbrs.raw + (size_t)k * sizeof(v), sizeof(v));
    return v;
}

/* Open and check the header and names: 0, or -1 with t->err set (the
 * file is closed again).  tt_open_stream takes an open stream (the fuzz
 * harness's fmemopen). */
int tt_open(tt_file_t *t, const char *path);
int tt_open_stream(tt_file_t *t, FILE *f, const char *name);
/* The next record: 1, 0 at a clean end of file, -1 with t->err. */
int tt_next(tt_file_t *t, tt_rec_t *r);
void tt_close(tt_file_t *t);

/* Writer's CLOCK_MONOTONIC ns of a tick value (see above). */
uint64_t tt_ns(const tt_file_t *t, uint64_t ticks);
/* A defined communicator, or NULL. */
const tt_comm_t *tt_comm(const tt_file_t *t, uint32_t id);
const char *tt_call_name(const tt_file_t *t, unsigned call);
const char *tt_algo_name(const tt_file_t *t, unsigned algo);   /* "?" when unknown */
/* "retransmit", ...; "?" when unknown. */
const char *tt_event_name(unsigned event);
const char *tt_coll_kind_name(unsigned kind);
const char *tt_op_name(int op);

#endif
