/* tern-sim's event queue: a 4-ary min-heap of (time, sequence number)
 * with stable handles, so that an event can be moved (a flow whose rate
 * changed finishes at another time) or cancelled in O(log n) without
 * leaving stale entries behind.
 *
 * Determinism: events at the same time come out in the order of their
 * sequence numbers, which increase with every push and every move; so
 * the same pushes in the same order give the same pops on every machine.
 * Memory grows by doubling (amortized; no allocation per event once the
 * queue has reached its working size). */
#ifndef TN_SIM_EVQ_H
#define TN_SIM_EVQ_H

#include <stdint.h>

#include "sim_status.h"

#define TN_SIM_EVQ_MAX_SLOTS (1 << 27)

typedef struct {
    double t;
    uint64_t seq;
    int32_t id;
    uint32_t slot_kind;  /* handle << 4 | kind */
} tn_sim_ev_t;

typedef struct {
    tn_sim_ev_t *heap;
    int32_t n, cap;
    int32_t *pos;       /* [slot] heap index, -1 when free */
    int32_t *free_slot; /* stack of free handles */
    int32_t nfree, nslot;
    uint64_t seq;
} tn_sim_evq_t;

tn_sim_status_t tn_sim_evq_init(tn_sim_evq_t *q, int32_t cap);
void tn_sim_evq_fini(tn_sim_evq_t *q);

/* Adds an event (kind < 16); returns its handle, or -1 out of memory. */
int32_t tn_sim_evq_push(tn_sim_evq_t *q, double t, unsigned kind, int32_t id);
/* Moves a pending event to time t (it gets a fresh sequence number). */
void tn_sim_evq_move(tn_sim_evq_t *q, int32_t handle, double t);
/* Drops a pending event; its handle is free again. */
void tn_sim_evq_cancel(tn_sim_evq_t *q, int32_t handle);
/* Takes the earliest event into *ev (its handle is free again); 0 when
 * the queue is empty. */
int tn_sim_evq_pop(tn_sim_evq_t *q, tn_sim_ev_t *ev);

static inline int tn_sim_evq_empty(const tn_sim_evq_t *q)
{
    return q->n == 0;
}

static inline double tn_sim_evq_top(const tn_sim_evq_t *q)
{
    return q->heap[0].t;
}

static inline unsigned tn_sim_ev_kind(const tn_sim_ev_t *ev)
{
    return ev->slot_kind & 15u;
}

#endif
