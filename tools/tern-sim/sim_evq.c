/* Time-bucketed event queue (sim_evq.h). */
#include "sim_evq.h"
#include "sim_mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- heap of buckets: 4-ary, by (time, sequence number opened with),
 * the keys in the heap itself */

static inline int evq_before(const tn_sim_evq_key_t *a, const tn_sim_evq_key_t *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static inline void evq_hset(tn_sim_evq_t *q, int32_t i, const tn_sim_evq_key_t *k)
{
    q->heap[i] = *k;
    q->b_hpos[k->b] = i;
}

static void evq_hup(tn_sim_evq_t *q, int32_t i)
{
    tn_sim_evq_key_t k = q->heap[i];
    while (i > 0) {
        int32_t p = (i - 1) / 4;
        if (!evq_before(&k, &q->heap[p])) {
            break;
        }
        evq_hset(q, i, &q->heap[p]);
        i = p;
    }
    evq_hset(q, i, &k);
}

static void evq_hdown(tn_sim_evq_t *q, int32_t i)
{
    tn_sim_evq_key_t k = q->heap[i];
    for (;;) {
        int32_t c = 4 * i + 1;
        if (c >= q->nheap) {
            break;
        }
        int32_t best = c, end = c + 4 < q->nheap ? c + 4 : q->nheap;
        for (int32_t j = c + 1; j < end; j++) {
            if (evq_before(&q->heap[j], &q->heap[best])) {
                best = j;
            }
        }
        if (!evq_before(&q->heap[best], &k)) {
            break;
        }
        evq_hset(q, i, &q->heap[best]);
        i = best;
    }
    evq_hset(q, i, &k);
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
    return b >= 0 && q->bk[b].t == t ? b : -1;
}

/* A free bucket there to take; -1 out of memory. */
static int evq_bucket_reserve(tn_sim_evq_t *q)
{
    if (q->bfree < 0) {
        int32_t cap = q->bcap * 2;
        if (q->bcap >= TN_SIM_EVQ_MAX ||
            tn_sim_grow((void **)&q->bk, sizeof(tn_sim_evq_bkt_t), (size_t)cap) ||
            tn_sim_grow((void **)&q->b_hpos, sizeof(int32_t), (size_t)cap) ||
            tn_sim_grow((void **)&q->heap, sizeof(tn_sim_evq_key_t), (size_t)cap)) {
            return -1;
        }
        for (int32_t i = cap - 1; i >= q->bcap; i--) {
            q->bk[i].head = q->bfree;
            q->bfree = i;
        }
        q->bcap = cap;
    }
    return 0;
}

/* The bucket an event of time t joins: the newest of that time if the
 * cache knows it, else a new one. */
static int32_t evq_bucket(tn_sim_evq_t *q, double t)
{
    int32_t r = evq_recent(q, t);
    if (r >= 0) {
        return r;
    }
    if (evq_bucket_reserve(q) != 0) {
        return -1;
    }
    int32_t b = q->bfree;
    tn_sim_evq_bkt_t *bk = &q->bk[b];
    q->bfree = bk->head;
    bk->t = t;
    bk->head = bk->tail = -1;
    /* the sequence number its first event gets */
    tn_sim_evq_key_t k = {.t = t, .seq = q->seq, .b = b};
    evq_hset(q, q->nheap++, &k);
    evq_hup(q, q->nheap - 1);
    q->recent[evq_slot(t)] = b;
    return b;
}

static void evq_bucket_drop(tn_sim_evq_t *q, int32_t b)
{
    int32_t i = q->b_hpos[b];
    tn_sim_evq_key_t last = q->heap[--q->nheap];
    if (i < q->nheap) {
        evq_hset(q, i, &last);
        if (i > 0 && evq_before(&last, &q->heap[(i - 1) / 4])) {
            evq_hup(q, i);
        } else {
            evq_hdown(q, i);
        }
    }
    q->bk[b].head = q->bfree;
    q->bfree = b;
    q->bk[b].t = NAN;
}

/* ---- lanes */

static inline int evq_lane_before(const tn_sim_evq_t *q, int a, int b)
{
    return q->l_t[a] < q->l_t[b] || (q->l_t[a] == q->l_t[b] && q->l_seq[a] < q->l_seq[b]);
}

static inline int evq_lane_empty(const tn_sim_evq_t *q, int l)
{
    return q->l_hd[l] == q->l_tl[l];
}

/* The lane an event of time t may join, or -1: the buckets.  A delay
 * takes an empty lane the second time the small cache of delays seen
 * meets it, so that delays that do not repeat (flow ends) stay out. */
static inline int evq_lane(tn_sim_evq_t *q, double t)
{
    if (!q->lanes_on) {
        return -1;
    }
    double d = t - q->now;
    int free_l = -1;
    for (int l = 0; l < TN_SIM_EVQ_LANES; l++) {
        if (q->l_d[l] == d) {
            return evq_lane_empty(q, l) || t >= q->l_tt[l] ? l : -1;
        }
        if (free_l < 0 && evq_lane_empty(q, l)) {
            free_l = l;
        }
    }
    unsigned h = evq_slot(d);
    if (q->seen[h] == d && free_l >= 0) {
        q->l_d[free_l] = d;
        return free_l;
    }
    q->seen[h] = d;
    return -1;
}

/* Appends event e (its id, arg and kind set) at time t to lane l; -1
 * out of memory (then nothing changed). */
static int evq_lane_link(tn_sim_evq_t *q, int32_t e, int l, double t)
{
    uint32_t cap = q->l_cap[l];
    if (q->l_tl[l] - q->l_hd[l] == cap) {
        /* the running positions stay: each entry moves to its position
         * modulo the new size */
        uint32_t ncap = cap ? cap * 2 : 256;
        tn_sim_evq_lent_t *r = ncap <= (uint32_t)TN_SIM_EVQ_MAX ? malloc(sizeof(*r) * ncap) : NULL;
        if (r == NULL) {
            return -1;
        }
        for (uint32_t i = q->l_hd[l]; i != q->l_tl[l]; i++) {
            r[i & (ncap - 1)] = q->l_ring[l][i & (cap - 1)];
        }
        free(q->l_ring[l]);
        q->l_ring[l] = r;
        q->l_cap[l] = cap = ncap;
    }
    tn_sim_evq_ent_t *ev = &q->ev[e];
    uint32_t pos = q->l_tl[l]++;
    ev->bucket = -1 - l;
    ev->prev = (int32_t)pos;
    ev->seq = q->seq++;
    tn_sim_evq_lent_t *x = &q->l_ring[l][pos & (cap - 1)];
    x->t = t;
    x->seq = ev->seq;
    x->e = e;
    x->id = ev->id;
    x->arg = ev->arg;
    x->kind = ev->kind;
    q->l_tt[l] = t;
    if (pos == q->l_hd[l]) {
        q->l_t[l] = t;
        q->l_seq[l] = ev->seq;
        if (q->ltop < 0 || evq_lane_before(q, l, q->ltop)) {
            q->ltop = l;
        }
    }
    return 0;
}

/* Takes the event at running position pos out of lane l: marked, and
 * the head moved past what is marked. */
static void evq_lane_unlink(tn_sim_evq_t *q, int l, uint32_t pos)
{
    uint32_t mask = q->l_cap[l] - 1;
    const tn_sim_evq_lent_t *r = q->l_ring[l];
    q->l_ring[l][pos & mask].e = -1;
    if (pos != q->l_hd[l]) {
        return;
    }
    uint32_t h = pos + 1;
    while (h != q->l_tl[l] && r[h & mask].e < 0) {
        h++;
    }
    q->l_hd[l] = h;
    if (h != q->l_tl[l]) {
        q->l_t[l] = r[h & mask].t;
        q->l_seq[l] = r[h & mask].seq;
    } else {
        q->l_t[l] = INFINITY;
        q->l_tt[l] = -INFINITY;
    }
    int top = -1;
    for (int i = 0; i < TN_SIM_EVQ_LANES; i++) {
        if (!evq_lane_empty(q, i) && (top < 0 || evq_lane_before(q, i, top))) {
            top = i;
        }
    }
    q->ltop = top;
}

static void evq_link(tn_sim_evq_t *q, int32_t e, int32_t b)
{
    tn_sim_evq_ent_t *ev = &q->ev[e];
    tn_sim_evq_bkt_t *bk = &q->bk[b];
    ev->bucket = b;
    ev->next = -1;
    ev->prev = bk->tail;
    if (bk->tail >= 0) {
        q->ev[bk->tail].next = e;
    } else {
        bk->head = e;
    }
    bk->tail = e;
    ev->seq = q->seq++;
}

/* Takes e out of its bucket; drops the bucket when it empties. */
static void evq_unlink(tn_sim_evq_t *q, int32_t e)
{
    const tn_sim_evq_ent_t *ev = &q->ev[e];
    int32_t b = ev->bucket, p = ev->prev, nx = ev->next;
    if (b < 0) {
        evq_lane_unlink(q, -1 - b, (uint32_t)p);
        return;
    }
    tn_sim_evq_bkt_t *bk = &q->bk[b];
    if (p >= 0) {
        q->ev[p].next = nx;
    } else {
        bk->head = nx;
    }
    if (nx >= 0) {
        q->ev[nx].prev = p;
    } else {
        bk->tail = p;
    }
    if (bk->head < 0) {
        evq_bucket_drop(q, b);
    }
}

tn_sim_status_t tn_sim_evq_init(tn_sim_evq_t *q, int32_t cap)
{
    memset(q, 0, sizeof(*q));
    q->efree = q->bfree = -1;
    memset(q->recent, 0xff, sizeof(q->recent));
    q->ltop = -1;
    for (int l = 0; l < TN_SIM_EVQ_LANES; l++) {
        q->l_d[l] = NAN;
        q->l_t[l] = INFINITY;
        q->l_tt[l] = -INFINITY;
    }
    for (int i = 0; i < 64; i++) {
        q->seen[i] = NAN;
    }
    cap = cap < 16 ? 16 : cap;
    q->ecap = q->bcap = cap;
    size_t c = (size_t)cap;
    q->ev = malloc(sizeof(tn_sim_evq_ent_t) * c);
    q->e_free = malloc(sizeof(int32_t) * c);
    q->bk = malloc(sizeof(tn_sim_evq_bkt_t) * c);
    q->b_hpos = malloc(sizeof(int32_t) * c);
    q->heap = malloc(sizeof(tn_sim_evq_key_t) * c);
    if (q->ev == NULL || q->e_free == NULL || q->bk == NULL || q->b_hpos == NULL || q->heap == NULL) {
        tn_sim_evq_fini(q);
        return TN_SIM_ERR_NOMEM;
    }
    for (int32_t i = cap - 1; i >= 0; i--) {
        q->e_free[i] = q->efree;
        q->efree = i;
        q->bk[i].head = q->bfree;
        q->bfree = i;
    }
    return TN_SIM_OK;
}

void tn_sim_evq_fini(tn_sim_evq_t *q)
{
    free(q->ev);
    free(q->e_free);
    free(q->bk);
    free(q->b_hpos);
    free(q->heap);
    for (int l = 0; l < TN_SIM_EVQ_LANES; l++) {
        free(q->l_ring[l]);
    }
    memset(q, 0, sizeof(*q));
}

int32_t tn_sim_evq_push_arg(tn_sim_evq_t *q, double t, unsigned kind, int32_t id, uint32_t arg)
{
    if (q->efree < 0) {
        int32_t cap = q->ecap * 2;
        if (q->ecap >= TN_SIM_EVQ_MAX ||
            tn_sim_grow((void **)&q->ev, sizeof(tn_sim_evq_ent_t), (size_t)cap) ||
            tn_sim_grow((void **)&q->e_free, sizeof(int32_t), (size_t)cap)) {
            return -1;
        }
        for (int32_t i = cap - 1; i >= q->ecap; i--) {
            q->e_free[i] = q->efree;
            q->efree = i;
        }
        q->ecap = cap;
    }
    int32_t e = q->efree;
    tn_sim_evq_ent_t *ev = &q->ev[e];
    ev->id = id;
    ev->arg = arg;
    ev->kind = (uint8_t)(kind & 15u);
    int l = evq_lane(q, t);
    if (l < 0 || evq_lane_link(q, e, l, t) != 0) {
        int32_t b = evq_bucket(q, t);
        if (b < 0) {
            return -1;
        }
        evq_link(q, e, b);
    }
    q->efree = q->e_free[e];
    q->n++;
    return e;
}

int tn_sim_evq_move(tn_sim_evq_t *q, int32_t handle, double t)
{
    int32_t old = q->ev[handle].bucket;
    if (old >= 0) {
        int32_t r = evq_recent(q, t);
        tn_sim_evq_bkt_t *bk = &q->bk[old];
        if (r == old && bk->tail == handle) {
            q->ev[handle].seq = q->seq++;  /* already last of the newest bucket of t */
            return 0;
        }
        if (bk->head == handle && bk->tail == handle && (r < 0 || r == old)) {
            /* alone in its bucket: the bucket moves, as if opened now */
            int32_t i = q->b_hpos[old];
            tn_sim_evq_key_t was = q->heap[i];
            tn_sim_evq_key_t k = {.t = t, .seq = q->seq, .b = old};
            bk->t = t;
            q->ev[handle].seq = q->seq++;
            q->recent[evq_slot(t)] = old;
            q->heap[i] = k;
            if (evq_before(&k, &was)) {
                evq_hup(q, i);
            } else {
                evq_hdown(q, i);
            }
            return 0;
        }
    }
    /* out of where it is, into a bucket (moved events are flow ends,
     * whose delays do not repeat; one is there to take, so the event is
     * never lost half-way) */
    if (evq_bucket_reserve(q) != 0) {
        return -1;
    }
    int32_t b = evq_bucket(q, t);
    evq_unlink(q, handle);
    evq_link(q, handle, b);
    return 0;
}

void tn_sim_evq_cancel(tn_sim_evq_t *q, int32_t handle)
{
    evq_unlink(q, handle);
    q->e_free[handle] = q->efree;
    q->efree = handle;
    q->n--;
}

int tn_sim_evq_pop(tn_sim_evq_t *q, tn_sim_ev_t *ev)
{
    if (q->n == 0) {
        return 0;
    }
    int32_t e = q->nheap > 0 ? q->bk[q->heap[0].b].head : -1;
    int l = q->ltop;
    if (l >= 0 && (e < 0 || q->l_t[l] < q->heap[0].t ||
                   (q->l_t[l] == q->heap[0].t && q->l_seq[l] < q->ev[e].seq))) {
        /* the lane's head, read from its ring */
        const tn_sim_evq_lent_t *r = &q->l_ring[l][q->l_hd[l] & (q->l_cap[l] - 1)];
        e = r->e;
        ev->t = r->t;
        ev->seq = r->seq;
        ev->id = r->id;
        ev->arg = r->arg;
        ev->slot_kind = (uint32_t)e << 4 | r->kind;
        ev->ahead_kind = 16;
        if (q->l_tl[l] - q->l_hd[l] > TN_SIM_EVQ_AHEAD) {
            r = &q->l_ring[l][(q->l_hd[l] + TN_SIM_EVQ_AHEAD) & (q->l_cap[l] - 1)];
            ev->ahead_id = r->id;
            ev->ahead_kind = r->kind;  /* maybe cancelled: only a hint */
        }
        q->now = ev->t;
        evq_lane_unlink(q, l, q->l_hd[l]);
        q->e_free[e] = q->efree;  /* the handle is free again */
        q->efree = e;
        q->n--;
        return 1;
    }
    const tn_sim_evq_ent_t *x = &q->ev[e];
    ev->t = q->heap[0].t;
    ev->seq = x->seq;
    ev->id = x->id;
    ev->arg = x->arg;
    ev->slot_kind = (uint32_t)e << 4 | x->kind;
    ev->ahead_kind = 16;
    if (!q->lanes_on && x->next >= 0) {
        /* the next pop, most often: named, and the one after it fetched
         * (a batch's flow ends are a bucket's chain of scattered entries) */
        const tn_sim_evq_ent_t *y = &q->ev[x->next];
        ev->ahead_id = y->id;
        ev->ahead_kind = y->kind;
        if (y->next >= 0) {
            __builtin_prefetch(&q->ev[y->next]);
        }
    }
    q->now = ev->t;
    tn_sim_evq_cancel(q, e);
    return 1;
}
