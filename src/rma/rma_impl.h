/* Inside src/rma: what the window, operation, synchronisation and server
 * files share (see rma.h for the design). */
#ifndef TN_RMA_RMA_IMPL_H
#define TN_RMA_RMA_IMPL_H

#include "rma/rma.h"

#define TN_WIN_MAGIC 0x4e49574eu   /* "NWIN" */

/* A request of mine whose memory or result is still in flight (message
 * path): a data send, a result receive.  flush_local waits for them. */
typedef struct tn_rma_pending {
    tn_req_t              *req;
    int                    target;
    void                  *tmp;       /* freed at completion */
    tn_req_t              *user;      /* R* request to finish, or NULL */
    struct tn_rma_pending *next;
} tn_rma_pending_t;

/* A lock request a target could not grant yet. */
typedef struct tn_rma_waiter {
    int                    origin;
    int                    exclusive;
    uint64_t               cookie;
    struct tn_rma_waiter  *next;
} tn_rma_waiter_t;

/* rma_seg.c: map the node segment and point the node's peers at it. */
tn_status_t tn_rma_seg_map(tn_win_t *win, const uint64_t *all_sizes, int noncontig);
void tn_rma_seg_unmap(tn_win_t *win);

/* Lock words (rma_sync.c): try once; 1 when taken. */
int tn_rma_lock_try(tn_rma_lock_t *l, int exclusive);
/* Release l (a lock word of win's target) and wake the node's ranks that
 * sleep waiting for it. */
void tn_rma_lock_release(tn_win_t *win, tn_rma_lock_t *l);
void tn_rma_acc_lock(tn_rma_lock_t *l);
void tn_rma_acc_unlock(tn_rma_lock_t *l);

/* rma_am.c: the server and the origin side of the message path. */
tn_status_t tn_rma_am_start(tn_win_t *win);
void tn_rma_am_stop(tn_win_t *win);
/* Send target's batch of requests now, if it holds any. */
tn_status_t tn_rma_am_send(tn_win_t *win, int target);
/* Send a request without data to target (FLUSH, LOCK, UNLOCK, COMPLETE),
 * behind the batch. */
tn_status_t tn_rma_am_ctl(tn_win_t *win, int target, unsigned type, unsigned flags);
/* Wait until target has answered every FLUSH, LOCK and UNLOCK sent to it. */
void tn_rma_am_wait_ctl(tn_win_t *win, int target);
/* A data request on the message path: puts and accumulates with their
 * data inline wait in the target's batch, the others leave at once. */
tn_status_t tn_rma_am_op(tn_win_t *win, const tn_rma_op_t *op, tn_req_t *user);
/* Send the batches and wait for (and drop) target's pending requests (-1:
 * every target). */
tn_status_t tn_rma_am_drain(tn_win_t *win, int target);

#endif
