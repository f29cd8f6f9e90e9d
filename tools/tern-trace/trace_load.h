/* One job's traces in memory: every rank's file read through the one
 * decode step (trace_read.c), checked to be one job, and kept as flat
 * arrays that tern-trace report, the exporters and tern-sim's replay walk.
 *
 * One job.  Every file must carry the same job name, world size and node
 * count, and every world rank must come exactly once; a missing or
 * duplicate rank is an error naming it.  A directory may hold other jobs'
 * files: with a job name given they are skipped, without one they are an
 * error that lists the names.  A file whose records stop at a damaged or
 * cut record keeps the records before it, and tl_rank_t.warning says why
 * it stopped (a process killed before MPI_Finalize leaves such a file).
 *
 * Records.  Per rank, the CALL records in file order (a call is written
 * when it returns; nested calls, depth > 0, come before the call they ran
 * in), each pointing at its items in the rank's item array.  COMM and
 * CLOCK records are consumed here: communicators become job
 * communicators, clock pairs map ticks to ns.
 *
 * Time.  Every time is int64 ns on the job's clock, whose 0 is the
 * earliest record's entry.  Ranks on one host (the same host name: also
 * nodes that are network namespaces of one machine) share CLOCK_MONOTONIC
 * and keep their exact relation.  Hosts' clocks are unrelated; they are
 * aligned so that the first rank of each host to leave MPI_Init leaves it
 * at the same moment (MPI_Init ends in a job-wide fence, so the error is
 * the fence's spread, a few microseconds).  Values are clamped to [0,
 * 2^62) ns before alignment so no arithmetic on them overflows.
 *
 * Job communicators.  The same context id and the same world ranks of
 * the members (in rank order) in two ranks' traces name one communicator;
 * the k-th definition of that pair in a rank's trace names the k-th
 * communicator made with them (a freed communicator's context id can come
 * back with the same members).  An intercommunicator's two sides name the
 * same context; its job communicator lists the group with the lowest
 * world rank first, and each item on it says which group its rank is in
 * (tl_item_t.side).  Items name job communicators only; tl_peer_world()
 * turns a rank in one into a world rank.
 *
 * Limits: names (calls, algorithms) are unified into one table per job of
 * at most 65535 each; a rank holds at most 2^32-1 records and items. */
#ifndef TT_TRACE_LOAD_H
#define TT_TRACE_LOAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace_read.h"

#define TL_NONE UINT32_MAX              /* no record, no communicator */

/* A decoded item, on the job's communicators.  Which fields mean
 * something depends on type (TERN_TRACE_I_*; COMMDEF never appears):
 *
 *   SEND    comm side peer(dest) world tag bytes mode(STD..) form
 *   RECV    comm side peer(source or ANY) world(-1 for ANY) tag(or ANY)
 *           bytes(capacity) form
 *   STATUS  peer(matched source) world(of the record's receive's
 *           communicator, -1 when none) tag bytes(received) error
 *           mode(cancelled)
 *   REQ, START, FREE   id(request)
 *   DONE    id(request) peer(matched source of a receive, else -1) tag
 *           bytes(received) error mode(cancelled)
 *   COLL    comm side kind algo(job algorithm index or
 *           TERN_TRACE_ALGO_UNKNOWN) peer(root or TERN_TRACE_NONE/ROOT/
 *           PROC_NULL) world(root's, or -1) op(TERN_TRACE_OP_* or
 *           TERN_TRACE_NONE) id(seq) bytes(sent) rbytes(received)
 *           form mode(TERN_TRACE_C_* flags)
 *   SCOUNTS, RCOUNTS   bytes(n) id(index of the first in the rank's counts)
 *   NBRS    comm bytes(indegree) rbytes(outdegree) mode(TERN_TRACE_NBRS_*)
 *           id(index of the first neighbour in the rank's counts, sources
 *           then destinations: tl_nbr)
 *   NEWCOMM comm (TL_NONE: MPI_COMM_NULL)
 *   RMA     comm side peer(target) world bytes mode(TERN_TRACE_PUT..)
 *   EVENT   mode(TERN_TRACE_EV_*) world(the peer) peer(packets; rail;
 *           reason) error(cause; state)
 */
typedef struct {
    uint8_t  type;
    uint8_t  form;
    uint8_t  mode;
    uint8_t  side;
    uint32_t comm;
    int32_t  peer;
    int32_t  world;
    union {
        int32_t tag;
        struct {
            uint16_t kind;
            uint16_t algo;
        } coll;
    } u;
    union {
        int32_t error;
        int32_t op;
    } v;
    uint64_t bytes;
    uint64_t id;
    uint64_t rbytes;
} tl_item_t;                            /* 48 bytes */

typedef struct {
    int64_t  t_enter, t_exit;           /* job clock, ns */
    uint32_t item;                      /* first item in the rank's items */
    uint32_t nitems;
    uint16_t call;                      /* in the job's call names */
    uint8_t  flags;                     /* TERN_TRACE_F_ERROR */
    uint8_t  depth;                     /* nesting depth, 0: called by the program */
} tl_rec_t;                             /* 32 bytes */

typedef struct {
    uint32_t   rank;                    /* world rank */
    uint32_t   node, pid, clock;        /* from the header */
    char       host[64];                /* printable ASCII (may hold <, &: escape it) */
    char      *path;                    /* the file's name as given */
    char      *warning;                 /* why the records stopped early, or NULL */
    tl_rec_t  *recs;
    uint32_t   nrecs;
    tl_item_t *items;
    uint32_t   nitems;
    uint64_t  *counts;                  /* SCOUNTS/RCOUNTS values, NBRS ranks */
    size_t     ncounts;
    int64_t    init_exit;               /* when it left MPI_Init (job clock) */
} tl_rank_t;

typedef struct {
    uint32_t ctx;
    uint32_t flags;                     /* TERN_TRACE_COMM_INTER */
    uint32_t size;                      /* the (first) group */
    uint32_t remote_size;               /* the second group of an intercommunicator */
    int32_t *world;                     /* size + remote_size world ranks */
    uint32_t incarnation;               /* k-th with this context and members */
    uint32_t nseen;                     /* rank traces that define it */
} tl_comm_t;

typedef struct tl_intern tl_intern_t;   /* trace_load.c */
typedef struct tl_base tl_base_t;

typedef struct {
    char        job[64];                /* printable ASCII (escape it) */
    uint32_t    size, nnodes;           /* world size, nodes (0 until a file is added) */
    tl_rank_t  *ranks;                  /* by world rank once tl_job_finish succeeded */
    uint32_t    nranks;
    tl_comm_t  *comms;                  /* job communicators */
    uint32_t    ncomms;
    char      **calls;                  /* job's MPI function names */
    uint32_t    ncalls;
    char      **algos;                  /* job's "kind:algorithm" names */
    uint32_t    nalgos;
    uint64_t    nrecs, nitems;          /* over all ranks */
    int64_t     t_end;                  /* latest exit (job clock) */
    uint32_t    skipped;                /* other jobs' files skipped */
    char        err[1024];
    /* private */
    uint32_t    rank_cap, comm_cap;
    tl_intern_t *call_names, *algo_names;
    tl_base_t  *bases;
    uint32_t    nbases, base_cap;
    uint32_t   *base_index;             /* hash of bases */
    uint32_t    base_index_cap;
    char        want[64];               /* job name to keep ("": the first file's) */
    int         want_given;             /* other jobs' files are skipped, not an error */
    int         finished;
} tl_job_t;

/* An empty job; want: keep only this job's files (NULL: the first file's
 * job, and another job's file is an error). */
void tl_job_init(tl_job_t *j, const char *want);
/* Read one rank's file (or an open stream, which is closed).  0, 1 when
 * the file belongs to another job and was skipped (want given), -1 with
 * j->err. */
int tl_job_add(tl_job_t *j, const char *path);
int tl_job_add_stream(tl_job_t *j, FILE *f, const char *name);
/* Every *.ttr in a directory, in name order.  0 or -1 with j->err. */
int tl_job_add_dir(tl_job_t *j, const char *dir);
/* Paths of files or directories, as tern-trace's command line gives them. */
int tl_job_add_paths(tl_job_t *j, char *const *paths, int n);
/* After the files: check every rank came once, align the clocks, order
 * ranks by world rank.  0 or -1 with j->err. */
int tl_job_finish(tl_job_t *j);
void tl_job_free(tl_job_t *j);

/* The world rank of peer (a rank of the group a rank on side `side` talks
 * to) in job communicator comm, or -1 when it names none. */
int32_t tl_peer_world(const tl_job_t *j, uint32_t comm, unsigned side, int32_t peer);

static inline const char *tl_call_name(const tl_job_t *j, unsigned call)
{
    return call < j->ncalls ? j->calls[call] : "?";
}

/* The first item of the given type (TERN_TRACE_I_*) in record rec of rank
 * r, or NULL. */
static inline const tl_item_t *tl_rec_item(const tl_rank_t *r, uint32_t rec, unsigned type)
{
    const tl_rec_t *c = &r->recs[rec];
    for (uint32_t k = c->item; k < c->item + c->nitems && k < r->nitems; k++) {
        if (r->items[k].type == type) {
            return &r->items[k];
        }
    }
    return NULL;
}

/* Neighbour k of an NBRS item of rank r (sources, then destinations): a
 * communicator rank or TERN_TRACE_PROC_NULL. */
static inline int32_t tl_nbr(const tl_rank_t *r, const tl_item_t *it, uint32_t k)
{
    return (int32_t)(int64_t)r->counts[it->id + k];
}

static inline const char *tl_algo_name(const tl_job_t *j, unsigned algo)
{
    return algo < j->nalgos ? j->algos[algo] : "?";
}

#endif
