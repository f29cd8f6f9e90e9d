/* Time-bucketed event queue (sim_evq.h). */
#include "sim_evq.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int evq_grow(void **p, size_t elem, size_t n)
{
    void *q = realloc(*p, elem * n);
    if (q == NULL) {
        return -1;
    }
    *p = q;
    return 0;
}

/* ---- heap of buckets: 4-ary, by (time, sequence number opened with) */

static inline int evq_before(const tn_sim_evq_t *q, int32_t a, int32_t b)
{
    return q->b_t[a] < q->b_t[b] || (q->b_t[a] == q->b_t[b] && q->b_seq[a] < q->b_seq[b]);
}

static inline void evq_hset(tn_sim_evq_t *q, int32_t i, int32_t b)
{
    q->heap[i] = b;
    q->b_hpos[b] = i;
}

static void evq_hup(tn_sim_evq_t *q, int32_t i)
{
    int32_t b = q->heap[i];
    while (i > 0) {
        int32_t p = (i - 1) / 4;
        if (!evq_before(q, b, q->heap[p])) {
            break;
        }
        evq_hset(q, i, q->heap[p]);
        i = p;
    }
    evq_hset(q, i, b);
}

static void evq_hdown(tn_sim_evq_t *q, int32_t i)
{
    int32_t b = q->heap[i];
    for (;;) {
        int32_t c = 4 * i + 1;
        if (c >= q->nheap) {
            break;
        }
        int32_t best = c, end = c + 4 < q->nheap ? c + 4 : q->nheap;
        for (int32_t j = c + 1; j < end; j++) {
            if (evq_before(q, q->heap[j], q->heap[best])) {
                best = j;
            }
        }
        if (!evq_before(q, q->heap[best], b)) {
            break;
        }
        evq_hset(q, i, q->heap[best]);
        i = best;
    }
    evq_hset(q, i, b);
}

/* ---- buckets */

static inline unsigned evq_slot(double t)
{
    uint64_t b;
    memcpy(&b, &t, sizeof(b));
    b *= 0x9e3779b97f4a7c15ull;
    return (unsigned)(b >> 58);
}

/* The newest bucket of time t that the cache knows, or -1 (a dropped
 * bucket's time is NaN: it never matches). */
static inline int32_t evq_recent(const tn_sim_evq_t *q, double t)
{
    int32_t b = q->recent[evq_slot(t)];
    return b >= 0 && q->b_t[b] == t ? b : -1;
}

/* The bucket an event of time t joins: the newest of that time if the
 * cache knows it, else a new one. */
static int32_t evq_bucket(tn_sim_evq_t *q, double t)
{
    int32_t r = evq_recent(q, t);
    if (r >= 0) {
        return r;
    }
    if (q->bfree < 0) {
        int32_t cap = q->bcap * 2;
        if (q->bcap >= TN_SIM_EVQ_MAX || evq_grow((void **)&q->b_t, sizeof(double), (size_t)cap) ||
            evq_grow((void **)&q->b_seq, sizeof(uint64_t), (size_t)cap) ||
            evq_grow((void **)&q->b_head, sizeof(int32_t), (size_t)cap) ||
            evq_grow((void **)&q->b_tail, sizeof(int32_t), (size_t)cap) ||
            evq_grow((void **)&q->b_hpos, sizeof(int32_t), (size_t)cap) ||
            evq_grow((void **)&q->heap, sizeof(int32_t), (size_t)cap)) {
            return -1;
        }
        for (int32_t i = cap - 1; i >= q->bcap; i--) {
            q->b_head[i] = q->bfree;
            q->bfree = i;
        }
        q->bcap = cap;
    }
    int32_t b = q->bfree;
    q->bfree = q->b_head[b];
    q->b_t[b] = t;
    q->b_seq[b] = q->seq;  /* the sequence number its first event gets */
    q->b_head[b] = q->b_tail[b] = -1;
    evq_hset(q, q->nheap++, b);
    evq_hup(q, q->nheap - 1);
    q->recent[evq_slot(t)] = b;
    return b;
}

static void evq_bucket_drop(tn_sim_evq_t *q, int32_t b)
{
    int32_t i = q->b_hpos[b], last = q->heap[--q->nheap];
    if (i < q->nheap) {
        evq_hset(q, i, last);
        if (i > 0 && evq_before(q, last, q->heap[(i - 1) / 4])) {
            evq_hup(q, i);
        } else {
            evq_hdown(q, i);
        }
    }
    q->b_head[b] = q->bfree;
    q->bfree = b;
    q->b_t[b] = NAN;
}

static void evq_link(tn_sim_evq_t *q, int32_t e, int32_t b)
{
    q->e_bucket[e] = b;
    q->e_next[e] = -1;
    q->e_prev[e] = q->b_tail[b];
    if (q->b_tail[b] >= 0) {
        q->e_next[q->b_tail[b]] = e;
    } else {
        q->b_head[b] = e;
    }
    q->b_tail[b] = e;
    q->e_seq[e] = q->seq++;
}

/* Takes e out of its bucket; drops the bucket when it empties. */
static void evq_unlink(tn_sim_evq_t *q, int32_t e)
{
    int32_t b = q->e_bucket[e], p = q->e_prev[e], nx = q->e_next[e];
    if (p >= 0) {
        q->e_next[p] = nx;
    } else {
        q->b_head[b] = nx;
    }
    if (nx >= 0) {
        q->e_prev[nx] = p;
    } else {
        q->b_tail[b] = p;
    }
    if (q->b_head[b] < 0) {
        evq_bucket_drop(q, b);
    }
}

tn_sim_status_t tn_sim_evq_init(tn_sim_evq_t *q, int32_t cap)
{
    memset(q, 0, sizeof(*q));
    q->efree = q->bfree = -1;
    memset(q->recent, 0xff, sizeof(q->recent));
    cap = cap < 16 ? 16 : cap;
    q->ecap = q->bcap = cap;
    size_t c = (size_t)cap;
    q->e_next = malloc(sizeof(int32_t) * c);
    q->e_prev = malloc(sizeof(int32_t) * c);
    q->e_bucket = malloc(sizeof(int32_t) * c);
    q->e_id = malloc(sizeof(int32_t) * c);
    q->e_seq = malloc(sizeof(uint64_t) * c);
    q->e_kind = malloc(c);
    q->b_t = malloc(sizeof(double) * c);
    q->b_seq = malloc(sizeof(uint64_t) * c);
    q->b_head = malloc(sizeof(int32_t) * c);
    q->b_tail = malloc(sizeof(int32_t) * c);
    q->b_hpos = malloc(sizeof(int32_t) * c);
    q->heap = malloc(sizeof(int32_t) * c);
    if (q->e_next == NULL || q->e_prev == NULL || q->e_bucket == NULL || q->e_id == NULL ||
        q->e_seq == NULL || q->e_kind == NULL || q->b_t == NULL || q->b_head == NULL ||
        q->b_tail == NULL || q->b_hpos == NULL || q->heap == NULL || q->b_seq == NULL) {
        tn_sim_evq_fini(q);
        return TN_SIM_ERR_NOMEM;
    }
    for (int32_t i = cap - 1; i >= 0; i--) {
        q->e_next[i] = q->efree;
        q->efree = i;
        q->b_head[i] = q->bfree;
        q->bfree = i;
    }
    return TN_SIM_OK;
}

void tn_sim_evq_fini(tn_sim_evq_t *q)
{
    void *a[] = {q->e_next, q->e_prev, q->e_bucket, q->e_id, q->e_seq, q->e_kind, q->b_t,
                 q->b_seq, q->b_head, q->b_tail, q->b_hpos, q->heap};
    for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++) {
        free(a[i]);
    }
    memset(q, 0, sizeof(*q));
}

int32_t tn_sim_evq_push(tn_sim_evq_t *q, double t, unsigned kind, int32_t id)
{
    if (q->efree < 0) {
        int32_t cap = q->ecap * 2;
        size_t c = (size_t)cap;
        if (q->ecap >= TN_SIM_EVQ_MAX || evq_grow((void **)&q->e_next, sizeof(int32_t), c) ||
            evq_grow((void **)&q->e_prev, sizeof(int32_t), c) ||
            evq_grow((void **)&q->e_bucket, sizeof(int32_t), c) ||
            evq_grow((void **)&q->e_id, sizeof(int32_t), c) ||
            evq_grow((void **)&q->e_seq, sizeof(uint64_t), c) || evq_grow((void **)&q->e_kind, 1, c)) {
            return -1;
        }
        for (int32_t i = cap - 1; i >= q->ecap; i--) {
            q->e_next[i] = q->efree;
            q->efree = i;
        }
        q->ecap = cap;
    }
    int32_t b = evq_bucket(q, t);
    if (b < 0) {
        return -1;
    }
    int32_t e = q->efree;
    q->efree = q->e_next[e];
    q->e_id[e] = id;
    q->e_kind[e] = (uint8_t)(kind & 15u);
    evq_link(q, e, b);
    q->n++;
    return e;
}

int tn_sim_evq_move(tn_sim_evq_t *q, int32_t handle, double t)
{
    int32_t old = q->e_bucket[handle], r = evq_recent(q, t);
    if (r == old && q->b_tail[old] == handle) {
        q->e_seq[handle] = q->seq++;  /* already last of the newest bucket of t */
        return 0;
    }
    if (q->b_head[old] == handle && q->b_tail[old] == handle && (r < 0 || r == old)) {
        /* alone in its bucket: the bucket moves, as if opened now */
        double was_t = q->b_t[old];
        uint64_t was_seq = q->b_seq[old];
        q->b_t[old] = t;
        q->b_seq[old] = q->seq;
        q->e_seq[handle] = q->seq++;
        q->recent[evq_slot(t)] = old;
        if (t < was_t || (t == was_t && q->b_seq[old] < was_seq)) {
            evq_hup(q, q->b_hpos[old]);
        } else {
            evq_hdown(q, q->b_hpos[old]);
        }
        return 0;
    }
    int32_t b = evq_bucket(q, t);
    if (b < 0) {
        return -1;
    }
    evq_unlink(q, handle);
    evq_link(q, handle, b);
    return 0;
}

void tn_sim_evq_cancel(tn_sim_evq_t *q, int32_t handle)
{
    evq_unlink(q, handle);
    q->e_next[handle] = q->efree;
    q->efree = handle;
    q->n--;
}

int tn_sim_evq_pop(tn_sim_evq_t *q, tn_sim_ev_t *ev)
{
    if (q->n == 0) {
        return 0;
    }
    int32_t b = q->heap[0], e = q->b_head[b];
    ev->t = q->b_t[b];
    ev->seq = q->e_seq[e];
    ev->id = q->e_id[e];
    ev->slot_kind = (uint32_t)e << 4 | q->e_kind[e];
    tn_sim_evq_cancel(q, e);
    return 1;
}
