/* One-sided communication: windows, their operations and synchronisation.
 *
 * A window owns a duplicate of the communicator it was made on; every
 * message of the window travels on that duplicate's contexts, so nothing
 * the application sends can match it.
 *
 * Two paths to a target, fixed per target when the window is made:
 *   - direct: the target's memory is mapped here (my own memory, or a
 *     window of flavour allocate or allocate_shared whose target is on my
 *     node: one shared segment per node, rma_seg.c).  Put and get are
 *     copies, accumulates are applied here under the target's accumulate
 *     lock in the segment, and passive-target locks are a reader/writer
 *     word in the segment: the target does not take part at all.
 *   - active messages (rma_am.c): requests on the window's point-to-point
 *     context, decoded once (rma_proto.c) and served by the target's
 *     progress engine, in arrival order per origin; large data goes as a
 *     second message, which the point-to-point layer sends in the
 *     rendezvous style.  Puts and accumulates whose data fits a request
 *     wait in a per-target batch (TN_RMA_REQ_MAX bytes) that leaves when
 *     it is full, with the next request that needs an answer or data
 *     apart, or at the next synchronisation (the FLUSH, UNLOCK or
 *     COMPLETE request rides in it): many small operations cost one
 *     message, and a put plus a flush one message each way.  A passive
 *     target makes progress whenever it is inside MPI (any call that
 *     waits or polls), and with TERN_ASYNC_PROGRESS=1 in its progress
 *     thread (runtime/rt.h) while it computes.
 * Accumulates to one target are atomic with respect to each other however
 * they arrive: the direct path and the target's server take the same lock.
 *
 * Completion: an operation on the direct path is complete when the call
 * returns.  On the message path, flush sends FLUSH and waits for its
 * answer, which the target gives after every earlier request of mine;
 * gets and fetching operations complete when their result has arrived
 * (the target applied them before answering), so they need no FLUSH.
 * Batched operations are complete at the origin when the call returns
 * (their data is copied into the batch).
 *
 * The memory model is MPI_WIN_UNIFIED: the public and private copies are
 * the same memory.
 *
 * Every function runs with the runtime lock held (tn_mpi_enter).  Errors
 * are tn_status_t; the MPI layer checks arguments and epochs before. */
#ifndef TN_RMA_RMA_H
#define TN_RMA_RMA_H

#include <stddef.h>
#include <stdint.h>
#include "base/status.h"
#include "comm/comm.h"
#include "dt/dt.h"
#include "dt/op.h"
#include "p2p/p2p.h"
#include "rma/rma_proto.h"

enum { TN_WIN_CREATE = 1, TN_WIN_ALLOCATE = 2, TN_WIN_DYNAMIC = 3, TN_WIN_SHARED = 4 };

/* Passive-target lock word: 0 free, > 0 shared holders, -1 exclusive. */
typedef struct tn_rma_lock {
    int32_t rw;
    int32_t acc;       /* accumulate spin lock: 0 free, 1 held */
    int32_t waiting;   /* ranks of the node waiting for rw (asleep, or the
                        * target's server holding requests): a release
                        * wakes the node's sleepers */
} tn_rma_lock_t;

struct tn_rma_pending;

/* What I know of one target. */
typedef struct {
    uint64_t        base;        /* its base address (dynamic: 0) */
    uint64_t        size;
    int64_t         disp_unit;
    char           *local;       /* direct: its memory mapped here, else NULL */
    tn_rma_lock_t  *lock;        /* direct: its lock words, else NULL */
    int             direct;
    int             lidx;        /* its index in the node segment, or -1 */
    /* message path, origin side */
    char           *batch;       /* requests not sent yet (TN_RMA_REQ_MAX) */
    size_t          batch_len;
    int             dirty;       /* puts/accumulates since the last flush */
    int             locked;      /* 0, TN_RMA_LOCK_SHARED or _EXCLUSIVE */
    int             in_start;    /* in the group of the open MPI_Win_start */
    uint32_t        ctl_sent;    /* requests sent to it that it answers */
    uint32_t        ctl_seen;    /* control answers received from it */
} tn_rma_peer_t;

enum { TN_RMA_LOCK_SHARED = 1, TN_RMA_LOCK_EXCLUSIVE = 2 };

typedef struct tn_win {
    uint32_t        magic;
    tn_comm_t      *comm;        /* private duplicate */
    int             flavor;      /* TN_WIN_* */
    void           *base;
    size_t          size;
    int64_t         disp_unit;
    tn_rma_peer_t  *peers;       /* comm rank -> target */
    /* node segment (allocate, allocate_shared) */
    void           *seg;
    size_t          seg_bytes;
    tn_rma_lock_t   my_lock;     /* my lock words when they are not in a segment */
    tn_rma_lock_t  *lockp;       /* where my lock words are */
    /* PSCW between ranks of the segment: post[o * nlocal + t] counts the
     * posts target t made to origin o, done[t * nlocal + o] the completes
     * of origin o to target t; I remember what I consumed of mine */
    uint32_t       *pscw_post, *pscw_done;
    uint32_t       *post_seen, *done_seen;
    int             nlocal, my_lidx;
    /* dynamic windows */
    tn_rma_region_t *regions;
    int             nregions, cap_regions;
    /* message path, target side */
    tn_req_t       *rx;          /* posted receive of the next request */
    void           *rxbuf;
    tn_req_t       *ctl_rx;      /* posted receive of the next control answer */
    uint64_t        ctl_buf[2];
    struct tn_rma_waiter *waiters;   /* lock requests not granted yet */
    struct tn_rma_pending *opend;    /* my requests in flight (origin side) */
    struct tn_rma_pending *spend;    /* the server's answers in flight */
    int             completes;   /* PSCW: COMPLETE requests received */
    int             am;          /* some target is on the message path */
    struct tn_win  *next;        /* every window with a server */
    /* epochs (the MPI layer keeps them) */
    int             fence_open;  /* a fence started an access epoch */
    int             lock_all;
    int             nlocked;     /* targets locked with MPI_Win_lock */
    int            *start_ranks; /* PSCW access epoch: its targets, or NULL */
    int             nstart;
    int            *post_ranks;  /* PSCW exposure epoch: its origins, or NULL */
    int             npost;
    /* the MPI layer's */
    int64_t         attr_size;   /* values MPI_Win_get_attr points to */
    int             attr_disp_unit, attr_flavor, attr_model;
    void           *attrs;
    void           *info;
    void           *errh;
    char            name[128];
    int             no_locks;
    int             noncontig;
} tn_win_t;

/* Make a window over comm (collective).  base/size/disp_unit: mine (size 0
 * allowed; TN_WIN_ALLOCATE and _SHARED allocate it and return the base in
 * *base_p).  noncontig: allocate_shared without the contiguous layout. */
tn_status_t tn_rma_win_create(tn_comm_t *comm, int flavor, void *base, size_t size,
                              int64_t disp_unit, int noncontig, tn_win_t **win_p);
/* Free (collective: waits until every rank has finished with the window). */
tn_status_t tn_rma_win_free(tn_win_t *win);

/* Dynamic windows: regions that targets may address (absolute addresses). */
tn_status_t tn_rma_attach(tn_win_t *win, void *base, size_t size);
tn_status_t tn_rma_detach(tn_win_t *win, const void *base);

/* The memory of rank r in a shared window (allocate_shared, or allocate on
 * one node): its base in my address space, size and displacement unit. */
void tn_rma_shared_query(tn_win_t *win, int r, void **base_p, size_t *size_p,
                         int64_t *disp_unit_p);

/* Whether [disp*unit, +extent of (count, dt)) lies inside target's window
 * (dynamic: inside one attached region, checked by the target). */
int tn_rma_in_range(const tn_win_t *win, int target, int64_t disp, const tn_dt_t *dt,
                    size_t count);

/* ---- operations (rma_ops.c) ---------------------------------------------
 * Origin (oaddr, ocount, odt) and target (disp, tcount, tdt) as in MPI.
 * req_p: NULL for the plain calls; else a request that completes when the
 * operation is complete at the origin (R* forms). */
typedef enum { TN_RMA_OP_PUT, TN_RMA_OP_GET, TN_RMA_OP_ACC, TN_RMA_OP_GACC,
               TN_RMA_OP_CAS } tn_rma_kind_t;

typedef struct {
    tn_rma_kind_t  kind;
    const void    *oaddr;       /* put/acc/gacc/cas: data; */
    size_t         ocount;
    const tn_dt_t *odt;
    void          *raddr;       /* get: into oaddr's memory; gacc/cas: result */
    size_t         rcount;
    const tn_dt_t *rdt;
    const void    *caddr;       /* cas: compare value */
    int            target;
    int64_t        disp;
    size_t         tcount;
    const tn_dt_t *tdt;
    const tn_op_t *op;          /* acc/gacc (MPI_REPLACE, MPI_NO_OP included) */
} tn_rma_op_t;

tn_status_t tn_rma_op(tn_win_t *win, const tn_rma_op_t *op, tn_req_t **req_p);
/* The same to a direct target (peers[op->target].direct), complete when it
 * returns: for callers that checked everything tn_rma_op's caller does. */
tn_status_t tn_rma_direct_op(tn_win_t *win, const tn_rma_op_t *op);

/* ---- synchronisation (rma_sync.c) ----------------------------------------- */
tn_status_t tn_rma_fence(tn_win_t *win);
tn_status_t tn_rma_lock(tn_win_t *win, int target, int exclusive);
tn_status_t tn_rma_unlock(tn_win_t *win, int target);
/* Shared locks on every target, all requests out at once; and their end. */
tn_status_t tn_rma_lock_all(tn_win_t *win);
tn_status_t tn_rma_unlock_all(tn_win_t *win);
/* Wait until my operations to target (all: -1) are complete at the target
 * (local_only: at the origin only). */
tn_status_t tn_rma_flush(tn_win_t *win, int target, int local_only);
/* PSCW: group holds comm ranks. */
tn_status_t tn_rma_post(tn_win_t *win, int n, const int *ranks);
tn_status_t tn_rma_start(tn_win_t *win, int n, const int *ranks);
tn_status_t tn_rma_complete(tn_win_t *win, int n, const int *ranks);
/* Wait (test: only look) for the completes of the n origins ranks[]. */
tn_status_t tn_rma_wait(tn_win_t *win, int n, const int *ranks, int test, int *done_p);
/* MPI_Win_sync: a full memory barrier, then one pass of the progress
 * engine (a program polling the window with it keeps its peers going). */
void tn_rma_sync(tn_win_t *win);

/* The servers of every window: called from the progress engine. */
int tn_rma_progress(void);

#endif
