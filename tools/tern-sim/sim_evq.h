/* tern-sim's event queue: events ordered by (time, sequence number), with
 * stable handles, so that an event can be moved (a flow whose rate
 * changed finishes at another time) or cancelled without leaving stale
 * entries behind.
 *
 * Events at the very same time are common (a batch of equal flows ends
 * together, a phase starts together) and come in runs, so the queue keeps
 * buckets: FIFOs of events of one time, in a 4-ary heap by (time, the
 * sequence number the bucket was opened with).  A small cache maps a
 * time to the newest bucket of that time; an event pushed or moved to a
 * time the cache knows joins that bucket in O(1), otherwise it opens a
 * bucket (the newest of its time from then on).  Only the newest bucket
 * of a time takes events, so the events of two buckets of one time never
 * interleave: the heap's order is exactly the (time, sequence) order.  An
 * event alone in its bucket moves with it (one heap adjustment).
 *
 * Most events are pushed a fixed delay after the current time (a packet
 * reaches the next switch a link latency and a header's time after it
 * left, its credit comes back a serialization and a latency after that,
 * a flow's delivery a path latency after its start): such events come in
 * time order, so they need no heap.  The queue keeps a few lanes, FIFOs
 * each tied to one delay d = t - (time of the last pop): a pushed event
 * whose delay is a lane's, or that finds a lane empty and its delay seen
 * lately, is appended to that lane if its time is not before the lane's
 * last; anything else, and moved events, go to the buckets.  Lanes are
 * for the packet engine (tn_sim_evq_set_lanes).  A lane is a ring of the
 * events themselves (a cancelled one is skipped when it comes up).  A pop takes the least
 * (time, sequence) of the lanes' heads and the heap's top bucket's head.
 * Lanes only decide where an event waits, never the order.
 *
 * Determinism: events at the same time come out in the order they were
 * pushed or moved there (their sequence numbers), so the same pushes in
 * the same order give the same pops on every machine.  Memory grows by
 * doubling (amortized; no allocation per event once the queue has reached
 * its working size). */
#ifndef TN_SIM_EVQ_H
#define TN_SIM_EVQ_H

#include <math.h>
#include <stdint.h>

#include "sim_status.h"

#define TN_SIM_EVQ_MAX (1 << 27)
#define TN_SIM_EVQ_LANES 8
#define TN_SIM_EVQ_AHEAD 8

typedef struct {
    double t;
    uint64_t seq;
    int32_t id;
    uint32_t arg;        /* what the pusher gave besides id (0 from tn_sim_evq_push) */
    uint32_t slot_kind;  /* handle << 4 | kind */
    /* a lane's event: the one TN_SIM_EVQ_AHEAD places behind it in its
     * lane (it comes out later), for the caller to prefetch what that
     * one will touch; with lanes off, a bucket's event: the next one in
     * its bucket (the next pop, unless something is pushed before it);
     * kind 16: none */
    int32_t ahead_id;
    uint32_t ahead_kind;
} tn_sim_ev_t;

/* One event: its bucket and its neighbours there, what it carries; in
 * lane l: bucket -1 - l, prev its running position in the lane's ring. */
typedef struct {
    int32_t next, prev, bucket, id;
    uint64_t seq;
    uint32_t arg;
    uint8_t kind;
} tn_sim_evq_ent_t;

/* One bucket: its time, its FIFO of events (head: the free list's link
 * while the bucket is free). */
typedef struct {
    double t;
    int32_t head, tail;
} tn_sim_evq_bkt_t;

/* A heap entry holds its bucket's key, so that sifting compares within
 * the heap array instead of chasing four buckets per level. */
typedef struct {
    double t;
    uint64_t seq;         /* the bucket's: the sequence number it was opened with */
    int32_t b;
} tn_sim_evq_key_t;

/* A lane's entry: the event itself, so that popping a lane reads its
 * ring in order; e: the handle, -1 once cancelled (skipped). */
typedef struct {
    double t;
    uint64_t seq;
    int32_t e, id;
    uint32_t arg;
    uint8_t kind;
} tn_sim_evq_lent_t;

typedef struct {
    /* events by handle */
    int32_t ecap, efree, n;
    tn_sim_evq_ent_t *ev;
    int32_t *e_free;              /* the free handles' list, apart: dense */
    /* buckets, and where each is in the heap */
    int32_t bcap, bfree;
    tn_sim_evq_bkt_t *bk;
    int32_t *b_hpos;
    int32_t recent[64];           /* by a hash of the time: the newest bucket of it, or -1 */
    /* heap of buckets by (time, sequence number opened with) */
    tn_sim_evq_key_t *heap;
    int32_t nheap;
    uint64_t seq;
    /* lanes: the delay each is tied to, its FIFO, its head's key
     * (INFINITY: empty); ltop: the lane of the least head, -1 none */
    int lanes_on;
    double now;                   /* time of the last pop */
    double l_d[TN_SIM_EVQ_LANES], l_t[TN_SIM_EVQ_LANES];
    double l_tt[TN_SIM_EVQ_LANES];  /* the lane's last event's time */
    double seen[64];              /* by a hash: delays pushed with lately (NaN: none) */
    uint64_t l_seq[TN_SIM_EVQ_LANES];
    tn_sim_evq_lent_t *l_ring[TN_SIM_EVQ_LANES];
    uint32_t l_cap[TN_SIM_EVQ_LANES];  /* a power of two */
    uint32_t l_hd[TN_SIM_EVQ_LANES], l_tl[TN_SIM_EVQ_LANES];  /* running counts */
    int32_t ltop;
} tn_sim_evq_t;

tn_sim_status_t tn_sim_evq_init(tn_sim_evq_t *q, int32_t cap);
void tn_sim_evq_fini(tn_sim_evq_t *q);

/* Lanes on (worth it where most events are pushed at a few fixed delays:
 * the packet engine) or off (the default: the flow engine's events are
 * mostly moved flow ends).  Before the first push. */
static inline void tn_sim_evq_set_lanes(tn_sim_evq_t *q, int on)
{
    q->lanes_on = on;
}

/* Adds an event (kind < 16) carrying id and arg; returns its handle, or
 * -1 out of memory. */
int32_t tn_sim_evq_push_arg(tn_sim_evq_t *q, double t, unsigned kind, int32_t id, uint32_t arg);

static inline int32_t tn_sim_evq_push(tn_sim_evq_t *q, double t, unsigned kind, int32_t id)
{
    return tn_sim_evq_push_arg(q, t, kind, id, 0);
}
/* Moves a pending event to time t (behind what is there already);
 * -1 out of memory (the event stays where it was). */
int tn_sim_evq_move(tn_sim_evq_t *q, int32_t handle, double t);
/* A hint: event handle (or -1: none) is about to be moved or dropped. */
static inline void tn_sim_evq_prefetch(const tn_sim_evq_t *q, int32_t handle)
{
    if (handle >= 0) {
        __builtin_prefetch(&q->ev[handle]);
    }
}
/* Drops a pending event; its handle is free again. */
void tn_sim_evq_cancel(tn_sim_evq_t *q, int32_t handle);
/* Takes the earliest event into *ev (its handle is free again); 0 when
 * the queue is empty. */
int tn_sim_evq_pop(tn_sim_evq_t *q, tn_sim_ev_t *ev);

static inline int tn_sim_evq_empty(const tn_sim_evq_t *q)
{
    return q->n == 0;
}

/* Time of the earliest event (the queue not empty). */
static inline double tn_sim_evq_top(const tn_sim_evq_t *q)
{
    double h = q->nheap > 0 ? q->heap[0].t : (double)INFINITY;
    double l = q->ltop >= 0 ? q->l_t[q->ltop] : (double)INFINITY;
    return h < l ? h : l;
}

static inline unsigned tn_sim_ev_kind(const tn_sim_ev_t *ev)
{
    return ev->slot_kind & 15u;
}

#endif
