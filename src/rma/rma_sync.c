/* Synchronisation: fence, passive-target locks and flushes, PSCW.
 *
 * Lock words live in the node segment for direct targets (every rank of
 * the node takes them with atomics) and in the target process otherwise
 * (its server takes them for remote origins).  An exclusive holder stores
 * -1 in rw; shared holders count up; the accumulate lock serialises every
 * accumulate-type update of one target (rma.h). */
#include <sched.h>
#include "coll/coll.h"
#include "runtime/rt.h"
#include "xport/xport.h"
#include "rma/rma_impl.h"

int tn_rma_lock_try(tn_rma_lock_t *l, int exclusive)
{
    int32_t v = __atomic_load_n(&l->rw, __ATOMIC_RELAXED);
    if (exclusive) {
        int32_t zero = 0;
        return __atomic_compare_exchange_n(&l->rw, &zero, -1, 0, __ATOMIC_ACQUIRE,
                                           __ATOMIC_RELAXED);
    }
    while (v >= 0) {
        if (__atomic_compare_exchange_n(&l->rw, &v, v + 1, 1, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED)) {
            return 1;
        }
    }
    return 0;
}

/* Whether r is another rank of win's node segment that the shm transport
 * serves: one whose sleep my stores can end with a doorbell (not with
 * TERN_XPORT=udp). */
static int shm_peer(const tn_win_t *win, int r)
{
    return r != win->comm->rank && win->peers[r].lidx >= 0 &&
           tn_rt.xport_of[tn_comm_world_rank(win->comm, r)] == &tn_xport_shm_ops;
}

/* Whether the ranks of win's node sleep on doorbells the others can ring.
 * Alone on the node, a lock waits only for requests of other nodes, whose
 * arrival wakes the wait anyway. */
static int node_doorbells(const tn_win_t *win)
{
    for (int r = 0; r < win->comm->size; r++) {
        if (r != win->comm->rank && win->peers[r].lidx >= 0) {
            return shm_peer(win, r);
        }
    }
    return 1;
}

void tn_rma_lock_release(tn_win_t *win, tn_rma_lock_t *l)
{
    /* read-modify-writes (seq_cst): the release is seen before the look
     * at waiting, which a waiter raises before its last try */
    int32_t v = __atomic_load_n(&l->rw, __ATOMIC_RELAXED);
    if (v < 0) {
        __atomic_exchange_n(&l->rw, 0, __ATOMIC_SEQ_CST);
    } else if (v > 0) {
        __atomic_fetch_sub(&l->rw, 1, __ATOMIC_SEQ_CST);
    }
    if (win->seg == NULL || __atomic_load_n(&l->waiting, __ATOMIC_SEQ_CST) == 0) {
        return;
    }
    for (int r = 0; r < win->comm->size; r++) {
        if (shm_peer(win, r)) {
            tn_xport_shm_wake_sleeper(tn_comm_world_rank(win->comm, r));
        }
    }
}

void tn_rma_acc_lock(tn_rma_lock_t *l)
{
    int32_t zero = 0;
    while (!__atomic_compare_exchange_n(&l->acc, &zero, 1, 0, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED)) {
        /* the holder is inside one accumulate: let it run if it shares
         * our core */
        zero = 0;
        sched_yield();
    }
}

void tn_rma_acc_unlock(tn_rma_lock_t *l)
{
    __atomic_store_n(&l->acc, 0, __ATOMIC_RELEASE);
}

/* Complete at the target every operation of mine to t (t < 0: all). */
static tn_status_t flush_targets(tn_win_t *win, int t)
{
    int lo = t < 0 ? 0 : t, hi = t < 0 ? win->comm->size : t + 1;
    for (int r = lo; r < hi; r++) {
        if (win->peers[r].dirty && !win->peers[r].direct) {
            tn_status_t st = tn_rma_am_ctl(win, r, TN_RMA_FLUSH, 0);
            if (st != TN_OK) {
                return st;
            }
        }
    }
    for (int r = lo; r < hi; r++) {
        if (win->peers[r].dirty) {
            tn_rma_am_wait_ctl(win, r);
            win->peers[r].dirty = 0;
        }
    }
    return tn_rma_am_drain(win, t);
}

tn_status_t tn_rma_flush(tn_win_t *win, int target, int local_only)
{
    if (win->opend == NULL && (target < 0 ? !win->am : win->peers[target].direct)) {
        return TN_OK;          /* direct operations are complete when made */
    }
    if (local_only) {
        return tn_rma_am_drain(win, target);
    }
    return flush_targets(win, target);
}

tn_status_t tn_rma_fence(tn_win_t *win)
{
    tn_status_t st = flush_targets(win, -1);
    tn_status_t st2 = tn_coll_barrier(win->comm);
    return st != TN_OK ? st : st2;
}

typedef struct {
    tn_rma_lock_t *l;
    int            exclusive;
    int            got;
} tn_rma_lock_wait_t;

/* tn_rt_wait may ask again after the lock was taken: the first success
 * counts */
static int lock_taken(void *arg)
{
    tn_rma_lock_wait_t *w = arg;
    if (!w->got) {
        w->got = tn_rma_lock_try(w->l, w->exclusive);
    }
    return w->got;
}

tn_status_t tn_rma_lock(tn_win_t *win, int target, int exclusive)
{
    tn_rma_peer_t *p = &win->peers[target];
    if (p->direct) {
        tn_rma_lock_wait_t w = { p->lock, exclusive, 0 };
        if (lock_taken(&w)) {
            /* taken at once */
        } else if (node_doorbells(win)) {
            /* sleep when waiting long: the release wakes the node */
            __atomic_fetch_add(&p->lock->waiting, 1, __ATOMIC_SEQ_CST);
            tn_rt_wait(lock_taken, &w);
            __atomic_fetch_sub(&p->lock->waiting, 1, __ATOMIC_SEQ_CST);
        } else {
            while (!lock_taken(&w)) {
                tn_progress();
                sched_yield();
            }
        }
    } else {
        tn_status_t st = tn_rma_am_ctl(win, target, TN_RMA_LOCK,
                                       exclusive ? TN_RMA_F_EXCLUSIVE : 0);
        if (st != TN_OK) {
            return st;
        }
        tn_rma_am_wait_ctl(win, target);
    }
    p->locked = exclusive ? TN_RMA_LOCK_EXCLUSIVE : TN_RMA_LOCK_SHARED;
    return TN_OK;
}

tn_status_t tn_rma_lock_all(tn_win_t *win)
{
    int n = win->comm->size;
    /* every request out first: the grants come back together */
    for (int r = 0; r < n; r++) {
        if (!win->peers[r].direct) {
            tn_status_t st = tn_rma_am_ctl(win, r, TN_RMA_LOCK, 0);
            if (st != TN_OK) {
                return st;
            }
        }
    }
    for (int r = 0; r < n; r++) {
        if (win->peers[r].direct) {
            tn_status_t st = tn_rma_lock(win, r, 0);
            if (st != TN_OK) {
                return st;
            }
        } else {
            tn_rma_am_wait_ctl(win, r);
            win->peers[r].locked = TN_RMA_LOCK_SHARED;
        }
    }
    return TN_OK;
}

tn_status_t tn_rma_unlock_all(tn_win_t *win)
{
    int n = win->comm->size;
    tn_status_t st = TN_OK;
    for (int r = 0; r < n; r++) {
        if (!win->peers[r].direct) {
            tn_status_t s = tn_rma_am_ctl(win, r, TN_RMA_UNLOCK, 0);
            st = st == TN_OK ? s : st;
        }
    }
    for (int r = 0; r < n; r++) {
        tn_rma_peer_t *p = &win->peers[r];
        if (p->direct) {
            tn_rma_lock_release(win, p->lock);
        } else {
            tn_rma_am_wait_ctl(win, r);
            p->dirty = 0;
        }
        p->locked = 0;
    }
    tn_status_t s = tn_rma_am_drain(win, -1);
    return st == TN_OK ? s : st;
}

tn_status_t tn_rma_unlock(tn_win_t *win, int target)
{
    tn_rma_peer_t *p = &win->peers[target];
    tn_status_t st;
    if (p->direct) {
        st = tn_rma_am_drain(win, target);
        tn_rma_lock_release(win, p->lock);
    } else {
        /* the unlock follows my requests: its answer means they are done */
        st = tn_rma_am_ctl(win, target, TN_RMA_UNLOCK, 0);
        if (st == TN_OK) {
            tn_rma_am_wait_ctl(win, target);
            st = tn_rma_am_drain(win, target);
        }
        p->dirty = 0;
    }
    p->locked = 0;
    return st;
}

/* ---- PSCW ---------------------------------------------------------------
 * Between ranks of one node segment, post and complete are counters in the
 * segment (a store, then a wake-up of the peer if it sleeps); with the
 * others, post is a message and complete a request behind the origin's
 * operations. */

/* The counters need the peer to be woken through the shm transport when
 * it sleeps: only for peers it serves (not with TERN_XPORT=udp), and me. */
static int pscw_direct(const tn_win_t *win, int r)
{
    if (win->pscw_post == NULL || win->peers[r].lidx < 0) {
        return 0;
    }
    return r == win->comm->rank || shm_peer(win, r);
}

/* Count one at *c (seq_cst: the store is seen before the look at whether
 * the peer sleeps) and wake world rank w. */
static void pscw_bump(uint32_t *c, int w)
{
    __atomic_fetch_add(c, 1, __ATOMIC_SEQ_CST);
    if (w != tn_rt.world_rank) {
        tn_xport_shm_wake_sleeper(w);
    }
}

tn_status_t tn_rma_post(tn_win_t *win, int n, const int *ranks)
{
    static const char token = 1;
    for (int i = 0; i < n; i++) {
        int o = ranks[i];
        if (pscw_direct(win, o)) {
            pscw_bump(&win->pscw_post[(size_t)win->peers[o].lidx * (size_t)win->nlocal +
                                      (size_t)win->my_lidx],
                      tn_comm_world_rank(win->comm, o));
            continue;
        }
        tn_status_t st = tn_p2p_send(&token, 1, tn_dt_byte(), o, TN_RMA_TAG_POST, win->comm, 0);
        if (st != TN_OK) {
            return st;
        }
    }
    return TN_OK;
}

typedef struct {
    const uint32_t *c;
    uint32_t        seen;
} tn_rma_count_wait_t;

static int counted(void *arg)
{
    const tn_rma_count_wait_t *w = arg;
    return __atomic_load_n(w->c, __ATOMIC_ACQUIRE) != w->seen;
}

/* Wait until the counter *c moves past seen. */
static void count_wait(const uint32_t *c, uint32_t seen)
{
    tn_rma_count_wait_t w = { c, seen };
    if (!counted(&w)) {
        tn_rt_wait(counted, &w);
    }
}

tn_status_t tn_rma_start(tn_win_t *win, int n, const int *ranks)
{
    for (int i = 0; i < n; i++) {
        int t = ranks[i];
        if (pscw_direct(win, t)) {
            int tl = win->peers[t].lidx;
            count_wait(&win->pscw_post[(size_t)win->my_lidx * (size_t)win->nlocal + (size_t)tl],
                       win->post_seen[tl]);
            win->post_seen[tl]++;
            continue;
        }
        char token;
        tn_status_t st = tn_p2p_recv(&token, 1, tn_dt_byte(), t, TN_RMA_TAG_POST, win->comm, 0,
                                     NULL);
        if (st != TN_OK) {
            return st;
        }
    }
    return TN_OK;
}

tn_status_t tn_rma_complete(tn_win_t *win, int n, const int *ranks)
{
    tn_status_t st = TN_OK;
    /* a COMPLETE request follows my requests to its target: when the
     * target counts it, they are applied there */
    for (int i = 0; i < n && st == TN_OK; i++) {
        int t = ranks[i];
        if (pscw_direct(win, t)) {
            pscw_bump(&win->pscw_done[(size_t)win->peers[t].lidx * (size_t)win->nlocal +
                                      (size_t)win->my_lidx],
                      tn_comm_world_rank(win->comm, t));
        } else {
            st = tn_rma_am_ctl(win, t, TN_RMA_COMPLETE, 0);
        }
        win->peers[t].dirty = 0;
    }
    tn_status_t st2 = tn_rma_am_drain(win, -1);
    return st != TN_OK ? st : st2;
}

typedef struct {
    tn_win_t  *win;
    int        n;
    const int *ranks;
    int        by_msg;     /* origins that complete by message */
} tn_rma_wait_t;

static int all_completed(void *arg)
{
    tn_rma_wait_t *w = arg;
    tn_win_t *win = w->win;
    if (win->completes < w->by_msg) {
        return 0;
    }
    for (int i = 0; i < w->n; i++) {
        int o = w->ranks[i];
        if (pscw_direct(win, o)) {
            int ol = win->peers[o].lidx;
            const uint32_t *c = &win->pscw_done[(size_t)win->my_lidx * (size_t)win->nlocal +
                                                (size_t)ol];
            if (__atomic_load_n(c, __ATOMIC_ACQUIRE) == win->done_seen[ol]) {
                return 0;
            }
        }
    }
    return 1;
}

tn_status_t tn_rma_wait(tn_win_t *win, int n, const int *ranks, int test, int *done_p)
{
    tn_rma_wait_t w = { win, n, ranks, 0 };
    for (int i = 0; i < n; i++) {
        w.by_msg += !pscw_direct(win, ranks[i]);
    }
    if (test) {
        tn_progress();
    } else if (!all_completed(&w)) {
        tn_rt_wait(all_completed, &w);
    }
    *done_p = all_completed(&w);
    if (*done_p) {
        win->completes -= w.by_msg;
        for (int i = 0; i < n; i++) {
            if (pscw_direct(win, ranks[i])) {
                win->done_seen[win->peers[ranks[i]].lidx]++;
            }
        }
    }
    return TN_OK;
}

void tn_rma_sync(tn_win_t *win)
{
    /* a full barrier for the memory the node's ranks share (no fence
     * instruction: the thread sanitizer does not model them) */
    static int32_t word;
    (void)win;
    __atomic_fetch_add(&word, 0, __ATOMIC_SEQ_CST);
    /* programs poll shared memory with MPI_Win_sync while a peer waits
     * for something of theirs to move (a udp retransmission of the
     * barrier message the peer is missing, a request to serve): move it */
    tn_progress();
}
