/* 4-ary heap with handles (sim_evq.h).  Four children per node: half the
 * depth of a binary heap and the children of a node share a cache line
 * or two, which is what a queue of a few 100 000 events spends its time
 * on. */
#include "sim_evq.h"

#include <stdlib.h>
#include <string.h>

static inline int ev_less(const tn_sim_ev_t *a, const tn_sim_ev_t *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static inline void ev_place(tn_sim_evq_t *q, int32_t i, const tn_sim_ev_t *e)
{
    q->heap[i] = *e;
    q->pos[e->slot_kind >> 4] = i;
}

static void ev_up(tn_sim_evq_t *q, int32_t i)
{
    tn_sim_ev_t e = q->heap[i];
    while (i > 0) {
        int32_t parent = (i - 1) / 4;
        if (!ev_less(&e, &q->heap[parent])) {
            break;
        }
        ev_place(q, i, &q->heap[parent]);
        i = parent;
    }
    ev_place(q, i, &e);
}

static void ev_down(tn_sim_evq_t *q, int32_t i)
{
    tn_sim_ev_t e = q->heap[i];
    for (;;) {
        int32_t c = 4 * i + 1;
        if (c >= q->n) {
            break;
        }
        int32_t best = c, end = c + 4 < q->n ? c + 4 : q->n;
        for (int32_t j = c + 1; j < end; j++) {
            if (ev_less(&q->heap[j], &q->heap[best])) {
                best = j;
            }
        }
        if (!ev_less(&q->heap[best], &e)) {
            break;
        }
        ev_place(q, i, &q->heap[best]);
        i = best;
    }
    ev_place(q, i, &e);
}

tn_sim_status_t tn_sim_evq_init(tn_sim_evq_t *q, int32_t cap)
{
    memset(q, 0, sizeof(*q));
    if (cap < 16) {
        cap = 16;
    }
    q->heap = malloc(sizeof(tn_sim_ev_t) * (size_t)cap);
    q->pos = malloc(sizeof(int32_t) * (size_t)cap);
    q->free_slot = malloc(sizeof(int32_t) * (size_t)cap);
    if (q->heap == NULL || q->pos == NULL || q->free_slot == NULL) {
        tn_sim_evq_fini(q);
        return TN_SIM_ERR_NOMEM;
    }
    q->cap = cap;
    q->nslot = 0;
    return TN_SIM_OK;
}

void tn_sim_evq_fini(tn_sim_evq_t *q)
{
    free(q->heap);
    free(q->pos);
    free(q->free_slot);
    memset(q, 0, sizeof(*q));
}

static int ev_grow(tn_sim_evq_t *q)
{
    if (q->cap >= TN_SIM_EVQ_MAX_SLOTS) {
        return -1;
    }
    int32_t cap = q->cap * 2;
    tn_sim_ev_t *heap = realloc(q->heap, sizeof(tn_sim_ev_t) * (size_t)cap);
    if (heap == NULL) {
        return -1;
    }
    q->heap = heap;
    int32_t *pos = realloc(q->pos, sizeof(int32_t) * (size_t)cap);
    if (pos == NULL) {
        return -1;
    }
    q->pos = pos;
    int32_t *fs = realloc(q->free_slot, sizeof(int32_t) * (size_t)cap);
    if (fs == NULL) {
        return -1;
    }
    q->free_slot = fs;
    q->cap = cap;
    return 0;
}

int32_t tn_sim_evq_push(tn_sim_evq_t *q, double t, unsigned kind, int32_t id)
{
    int32_t slot;
    if (q->nfree > 0) {
        slot = q->free_slot[--q->nfree];
    } else {
        if (q->nslot == q->cap && ev_grow(q) != 0) {
            return -1;
        }
        slot = q->nslot++;
    }
    tn_sim_ev_t e = {.t = t, .seq = q->seq++, .id = id, .slot_kind = (uint32_t)slot << 4 | (kind & 15u)};
    int32_t i = q->n++;
    ev_place(q, i, &e);
    ev_up(q, i);
    return slot;
}

void tn_sim_evq_move(tn_sim_evq_t *q, int32_t handle, double t)
{
    int32_t i = q->pos[handle];
    double old = q->heap[i].t;
    q->heap[i].t = t;
    q->heap[i].seq = q->seq++;
    if (t < old) {
        ev_up(q, i);
    } else {
        ev_down(q, i);
    }
}

static void ev_remove_at(tn_sim_evq_t *q, int32_t i)
{
    int32_t slot = (int32_t)(q->heap[i].slot_kind >> 4);
    q->pos[slot] = -1;
    q->free_slot[q->nfree++] = slot;
    q->n--;
    if (i == q->n) {
        return;
    }
    tn_sim_ev_t last = q->heap[q->n];
    ev_place(q, i, &last);
    if (i > 0 && ev_less(&last, &q->heap[(i - 1) / 4])) {
        ev_up(q, i);
    } else {
        ev_down(q, i);
    }
}

void tn_sim_evq_cancel(tn_sim_evq_t *q, int32_t handle)
{
    ev_remove_at(q, q->pos[handle]);
}

int tn_sim_evq_pop(tn_sim_evq_t *q, tn_sim_ev_t *ev)
{
    if (q->n == 0) {
        return 0;
    }
    *ev = q->heap[0];
    ev_remove_at(q, 0);
    return 1;
}
