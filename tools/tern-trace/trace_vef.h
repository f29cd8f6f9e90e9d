/* VEF traces (docs/trace.md, "VEF"): the text format of the VEF traces
 * framework (VEF-Prospector records, vef_mixer merges, TraceLib replays
 * in network simulators), written by `tern-trace export --vef` and read
 * here into a job description tern-sim's replay can walk.
 *
 * The format as this code takes it (no specification was at hand: what
 * follows is what a public reader of it does, and every value that is a
 * guess is marked as one):
 *
 *   VEF <nranks> <num_msgs> <num_comms> <num_global_colls> <num_local_colls> TRUE
 *   C<i> <world rank> ...                      num_comms lines, i = 0, 1, ...;
 *                                              C0 is the world: every rank once
 *   <ID> <src> <dst> <size> <deptype> <delay_ns> <IDdep>
 *   G<id> <comm> <op> <task> <send_size> <recv_size> <deptype> <delay_ns> <IDdep>
 *
 * Event lines come in dependency order: an event names only an event on
 * an earlier line.  Messages are numbered 0, 1, ... in line order;
 * collectives G0, G1, ... in the order of their first line, one line per
 * member task.  deptype is VF_DEP_* below; IDdep is a message ID for
 * SEND/RECEIVE, `G<n>` for COLLECTIVE, and -1 (0 is taken too) for
 * INDEPENDENT.  A collective's global/local count: on C0 or on another
 * communicator (an assumption: the reader only names the two counts).
 *
 * What this reader checks (one decode step, vf_parse; every later user
 * works on the checked vf_job_t): the header's counts, communicator lines
 * in order with distinct ranks below nranks and C0 the world, every
 * message ID the next one, every rank, size, delay and op in range, a
 * dependency that names an earlier event of its own task (SEND: a message
 * the task sent; RECEIVE: one it received; COLLECTIVE: a collective it
 * has a line in, other than the one it depends from), a collective's
 * lines on one communicator with one op and each member task once, and
 * at the end every count of the header met, every collective with a line
 * for every member of its communicator, a reduce with one root (the task
 * with recv_size != 0). */
#ifndef TT_TRACE_VEF_H
#define TT_TRACE_VEF_H

#include <stddef.h>
#include <stdint.h>

#define VF_NONE      UINT32_MAX
#define VF_MAX_RANKS (1u << 24)
#define VF_MAX_SIZE  (UINT64_C(1) << 56)    /* bytes of one message or collective line */
#define VF_MAX_DELAY (UINT64_C(1) << 62)    /* ns */

/* Dependency types: the order the public reader enumerates them in. */
enum {
    VF_DEP_INDEPENDENT = 0,             /* none: may start at time delay */
    VF_DEP_COLLECTIVE  = 1,             /* after collective G<IDdep> completed */
    VF_DEP_SEND        = 2,             /* after message IDdep was sent */
    VF_DEP_RECEIVE     = 3,             /* after message IDdep was received */
    VF_NDEPS
};

/* Collective op types.  THE ONE TABLE OF THEIR NUMBERS, AN ASSUMPTION:
 * the reader handles these eight but its source gave no values; they are
 * numbered here in the order it lists them.  Check them against
 * VEF-Prospector's sources and correct them here only (writer and reader
 * use these names; vf_op_name() prints them). */
enum {
    VF_OP_BROADCAST = 0,
    VF_OP_REDUCE    = 1,                /* root: the task with recv_size != 0 */
    VF_OP_ALLREDUCE = 2,
    VF_OP_GATHER    = 3,
    VF_OP_SCATTER   = 4,
    VF_OP_ALLGATHER = 5,
    VF_OP_BARRIER   = 6,
    VF_OP_ALLTOALL  = 7,                /* recv_size 1: send_size is the task's total */
    VF_NOPS
};

const char *vf_op_name(unsigned op);
const char *vf_dep_name(unsigned dep);

/* A communicator: members[first .. first+size) of vf_job_t, world ranks in order. */
typedef struct {
    uint32_t first, size;
} vf_comm_t;

/* One event line, checked. */
typedef struct {
    uint32_t coll;                      /* VF_NONE: a message; else its G id */
    uint32_t id;                        /* message ID (messages) */
    uint32_t task;                      /* sender, or the collective line's task */
    uint32_t dst;                       /* receiver (messages), VF_NONE */
    uint32_t comm;                      /* collectives: the communicator, else VF_NONE */
    uint8_t  op;                        /* collectives: VF_OP_* */
    uint8_t  deptype;                   /* VF_DEP_* */
    uint16_t pad;
    uint32_t dep;                       /* message ID or G id; VF_NONE when independent */
    uint64_t size;                      /* bytes sent */
    uint64_t rsize;                     /* collectives: recv_size as written */
    uint64_t delay_ns;
} vf_event_t;

typedef struct {
    uint32_t comm;
    uint8_t  op;
    uint32_t nlines;                    /* = the communicator's size once checked */
    uint32_t first;                     /* its first line, in events */
} vf_coll_t;

typedef struct {
    uint32_t    nranks;
    vf_comm_t  *comms;
    uint32_t    ncomms;
    uint32_t   *members;                /* all communicators' members */
    size_t      nmembers;
    vf_event_t *events;                 /* in file order (a valid replay order) */
    size_t      nevents;
    uint32_t   *msg_event;              /* message ID -> its event */
    uint32_t    nmsgs;
    vf_coll_t  *colls;                  /* by G id */
    uint32_t    ncolls;
    uint32_t    nglobal, nlocal;        /* from the header, checked */
    char        err[256];               /* why vf_parse refused, with the line number */
} vf_job_t;

/* Decode and check a whole VEF text (buf need not be NUL-terminated).
 * 0 and a job to release with vf_free, or -1 with j->err and nothing to
 * release. */
int vf_parse(const char *buf, size_t len, vf_job_t *j);
/* The same from a file (at most 1 GiB).  0 or -1 with j->err. */
int vf_load(const char *path, vf_job_t *j);
void vf_free(vf_job_t *j);

#endif
