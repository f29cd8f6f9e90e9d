/* tern-coll-plan: the messages Tern's collective algorithms send, found by
 * running the library's own algorithm code (src/coll, compiled into this
 * program) once per rank against a recorder in place of the point-to-point
 * layer (plan_rec.c).  docs/sim.md, "Collectives from Tern's own code".
 *
 * The recorder keeps, per rank, the operations in program order:
 *   PL_SEND / PL_RECV  a send or receive posted (tn_p2p_isend/irecv, and
 *                      the blocking forms as a post and a wait);
 *   PL_WAIT            the completion of earlier posts (tn_req_waitall_free
 *                      and the blocking forms), naming them by op index;
 *   PL_CALC            a reduction (tn_op_apply) of bytes;
 *   PL_COPY            a local copy of bytes (tn_dt_copy, pack, unpack and
 *                      a schedule's copy step; consecutive ones merged);
 *   PL_SYNC            a shared-memory collective among the members of one
 *                      communicator on one node (the shm algorithms move no
 *                      messages: every member joins, all leave together).
 * plan_main.c pairs sends with receives (per context, tag, source and
 * destination, in posting order: MPI's non-overtaking rule) and prints
 * the plan. */
#ifndef TN_PLAN_H
#define TN_PLAN_H

#include <stddef.h>
#include <stdint.h>

enum { PL_SEND, PL_RECV, PL_WAIT, PL_CALC, PL_SYNC, PL_COPY };

/* A local copy of bytes by the current member (merged into the previous
 * op when that is one too); 0, or -1 when out of room. */
int pl_rec_copy(uint64_t bytes);

typedef struct {
    uint8_t  type;
    int32_t  peer;       /* SEND/RECV: the other member */
    uint32_t ctx;        /* SEND/RECV/SYNC: context (communicator ctx, +1 for collectives) */
    int32_t  tag;        /* SEND/RECV; SYNC: the first member of its communicator */
    uint64_t bytes;      /* SEND/RECV/CALC/SYNC/COPY */
    int64_t  id;         /* SEND/RECV: message id (matching); SYNC: group id */
    uint64_t seq;        /* SEND/RECV/SYNC: ordinal among this rank's ops with the same key */
    uint32_t wfirst, wn; /* WAIT: op indices in pl_waits[wfirst, wfirst + wn) */
} pl_op_t;

typedef struct {
    pl_op_t  *ops;
    size_t    nops, cap;
    uint32_t *waits;
    size_t    nwaits, wcap;
} pl_rank_t;

/* The run: members 0..n-1 (the collective's communicator), their nodes. */
typedef struct {
    int        n;
    int        me;            /* the member being run */
    int       *node_of;       /* [n] */
    int        nnodes;
    int        shm;           /* shared-memory algorithms allowed on one node */
    uint64_t   slot;          /* a slot buffer's bytes (TERN_SHM_COLL_BYTES) */
    size_t     max_ops;       /* all ranks together; past it the run fails */
    size_t     total_ops;
    int        failed;        /* out of memory or past max_ops */
    int        picked;        /* index in tn_coll_algos of the member's
                               * first choice, -1 before it */
    pl_rank_t *ranks;         /* [n] */
} pl_run_t;

extern pl_run_t pl_run;

/* Append an op to the running member's list (NULL: out of memory or past
 * max_ops, pl_run.failed set). */
pl_op_t *pl_rec_push(uint8_t type);
/* A PL_WAIT of the member's ops ops[0..n); 0 or -1. */
int pl_rec_wait(const uint32_t *ops, int n);

/* Set up the recorder for member me (fresh contexts, fresh world). */
void pl_rec_begin(int me);
/* The world communicator of the run as member me sees it. */
struct tn_comm *pl_rec_world(void);
/* Drop what the member's run made (node map, sub-communicators). */
void pl_rec_end(void);

#endif
