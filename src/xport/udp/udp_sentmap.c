/* The sent map and its slot pool; see udp_sentmap.h. */
#include "xport/udp/udp_sentmap.h"

#include <stdlib.h>
#include <string.h>

#define TN_UDP_SLOTS_CHUNK 16u

tn_status_t tn_udp_slots_init(tn_udp_slots_t *s, size_t slot, uint32_t max)
{
    memset(s, 0, sizeof(*s));
    s->slot = slot == 0 ? 1 : (slot + 63) & ~(size_t)63;   /* keep slots cache-aligned */
    s->max = max;
    s->free = malloc((size_t)max * sizeof(void *));
    s->chunks = calloc(max / TN_UDP_SLOTS_CHUNK + 1, sizeof(void *));
    if (s->free == NULL || s->chunks == NULL) {
        tn_udp_slots_fini(s);
        return TN_ERR_NOMEM;
    }
    return TN_OK;
}

void tn_udp_slots_fini(tn_udp_slots_t *s)
{
    for (uint32_t i = 0; i < s->nchunks; i++) {
        free(s->chunks[i]);
    }
    free(s->chunks);
    free(s->free);
    memset(s, 0, sizeof(*s));
}

void *tn_udp_slots_get(tn_udp_slots_t *s)
{
    if (s->nfree == 0) {
        uint32_t n = s->max - s->nalloc;
        if (n == 0) {
            return NULL;
        }
        if (n > TN_UDP_SLOTS_CHUNK) {
            n = TN_UDP_SLOTS_CHUNK;
        }
        char *chunk = aligned_alloc(64, n * s->slot);
        if (chunk == NULL) {
            return NULL;
        }
        s->chunks[s->nchunks++] = chunk;
        s->nalloc += n;
        for (uint32_t i = n; i > 0; i--) {
            s->free[s->nfree++] = chunk + (size_t)(i - 1) * s->slot;
        }
    }
    return s->free[--s->nfree];
}

void tn_udp_slots_put(tn_udp_slots_t *s, void *p)
{
    s->free[s->nfree++] = p;
}

/* ---- lists threaded through the ring ----------------------------------- */

static void tn_sm_list_init(tn_udp_sm_list_t *l)
{
    l->head = l->tail = TN_UDP_SM_NIL;
    l->n = 0;
}

static void tn_sm_list_append(tn_udp_sentmap_t *sm, tn_udp_sm_list_t *l, tn_udp_sent_t *e)
{
    uint32_t idx = (uint32_t)(e->psn & sm->mask);
    e->next = TN_UDP_SM_NIL;
    e->prev = l->tail;
    if (l->tail == TN_UDP_SM_NIL) {
        l->head = idx;
    } else {
        sm->ent[l->tail].next = idx;
    }
    l->tail = idx;
    l->n++;
}

static void tn_sm_list_unlink(tn_udp_sentmap_t *sm, tn_udp_sm_list_t *l, tn_udp_sent_t *e)
{
    if (e->prev == TN_UDP_SM_NIL) {
        l->head = e->next;
    } else {
        sm->ent[e->prev].next = e->next;
    }
    if (e->next == TN_UDP_SM_NIL) {
        l->tail = e->prev;
    } else {
        sm->ent[e->next].prev = e->prev;
    }
    e->prev = e->next = TN_UDP_SM_NIL;
    l->n--;
}

/* ---- the map ------------------------------------------------------------ */

/* The head line of psn's ring entry. */
static unsigned char *tn_sm_head(const tn_udp_sentmap_t *sm, uint64_t psn)
{
    return sm->heads + (size_t)(psn & sm->mask) * TN_UDP_SM_HEAD;
}

/* The next psn becomes a queued entry holding data. */
static void tn_sm_take(tn_udp_sentmap_t *sm, void *data, uint32_t len, uint64_t *psn_p)
{
    *tn_udp_sentmap_get(sm, sm->end) = (tn_udp_sent_t){
        .psn = sm->end, .data = data, .len = len,
        .prev = TN_UDP_SM_NIL, .next = TN_UDP_SM_NIL, .state = TN_UDP_SM_QUEUED,
    };
    *psn_p = sm->end++;
}

tn_status_t tn_udp_sentmap_init(tn_udp_sentmap_t *sm, uint32_t capacity, size_t slot,
                                uint64_t first_psn)
{
    memset(sm, 0, sizeof(*sm));
    uint32_t cap = 1;
    while (cap < capacity) {
        cap <<= 1;
    }
    sm->ent = calloc(cap, sizeof(tn_udp_sent_t));
    if (sm->ent == NULL) {
        return TN_ERR_NOMEM;
    }
    sm->heads = aligned_alloc(TN_UDP_SM_HEAD, (size_t)cap * TN_UDP_SM_HEAD);
    if (sm->heads == NULL || tn_udp_slots_init(&sm->slots, slot, cap) != TN_OK) {
        free(sm->heads);
        free(sm->ent);
        sm->heads = NULL;
        sm->ent = NULL;
        return TN_ERR_NOMEM;
    }
    sm->mask = cap - 1;
    sm->una = sm->nxt = sm->end = first_psn;
    tn_sm_list_init(&sm->inflight);
    tn_sm_list_init(&sm->lost);
    return TN_OK;
}

void tn_udp_sentmap_fini(tn_udp_sentmap_t *sm)
{
    tn_udp_slots_fini(&sm->slots);
    free(sm->heads);
    free(sm->ent);
    memset(sm, 0, sizeof(*sm));
}

void *tn_udp_sentmap_push(tn_udp_sentmap_t *sm, uint32_t len, uint64_t *psn_p)
{
    if (sm->end - sm->una > sm->mask || len > sm->slots.slot) {
        return NULL;
    }
    void *data = tn_udp_slots_get(&sm->slots);
    if (data == NULL) {
        return NULL;
    }
    tn_sm_take(sm, data, len, psn_p);
    return data;
}

void *tn_udp_sentmap_push_ref(tn_udp_sentmap_t *sm, uint32_t len, const void *ext,
                              uint32_t ext_len, void *cookie, uint64_t *psn_p)
{
    if (ext_len > len) {
        return NULL;
    }
    void *data;
    if (len - ext_len <= TN_UDP_SM_HEAD) {
        if (sm->end - sm->una > sm->mask) {
            return NULL;
        }
        data = tn_sm_head(sm, sm->end);
        tn_sm_take(sm, data, 0, psn_p);
    } else {
        data = tn_udp_sentmap_push(sm, len - ext_len, psn_p);
        if (data == NULL) {
            return NULL;
        }
    }
    tn_udp_sent_t *e = tn_udp_sentmap_get(sm, *psn_p);
    e->len = len;
    e->ext = ext;
    e->ext_len = ext_len;
    e->cookie = cookie;
    return data;
}

void tn_udp_sentmap_on_send(tn_udp_sentmap_t *sm, uint64_t psn, int rail, uint64_t now)
{
    tn_udp_sent_t *e = tn_udp_sentmap_get(sm, psn);
    switch (e->state) {
    case TN_UDP_SM_QUEUED:
        if (psn == sm->nxt) {
            sm->nxt++;
        }
        break;
    case TN_UDP_SM_INFLIGHT:
        tn_sm_list_unlink(sm, &sm->inflight, e);
        break;
    case TN_UDP_SM_LOST:
        tn_sm_list_unlink(sm, &sm->lost, e);
        break;
    default:
        return;                             /* sacked: nothing to send */
    }
    e->state = TN_UDP_SM_INFLIGHT;
    e->sent_ns = now;
    e->txseq = ++sm->txseq;
    e->rail = (uint8_t)rail;
    e->flags = 0;
    if (e->tx_count != UINT8_MAX) {
        e->tx_count++;
    }
    tn_sm_list_append(sm, &sm->inflight, e);
}

/* e was acknowledged (cumulatively or selectively): take it off its list
 * and account for it. */
static void tn_sm_acked(tn_udp_sentmap_t *sm, tn_udp_sent_t *e, tn_udp_acked_t *acc)
{
    if (e->state == TN_UDP_SM_INFLIGHT) {
        tn_sm_list_unlink(sm, &sm->inflight, e);
        acc->newly_inflight++;
    } else if (e->state == TN_UDP_SM_LOST) {
        tn_sm_list_unlink(sm, &sm->lost, e);
        if (e->flags & TN_UDP_SM_F_PROBE) {
            /* acked before the probe left: it was late, which says nothing
             * about reordering */
        } else if (e->tx_count == 1 && (e->flags & TN_UDP_SM_F_RTO)) {
            acc->spurious_rto++;
        } else if (e->tx_count == 1) {
            /* the only copy arrived: it was reordered, not lost */
            if (acc->spurious++ == 0 || e->txseq < acc->spurious_txseq) {
                acc->spurious_txseq = e->txseq;
            }
        }
    } else {
        return;                             /* queued (cannot be) or already sacked */
    }
    acc->newly++;
    if (e->tx_count == 1 && e->rail < TN_UDP_SM_RAILS) {
        acc->rail_acked[e->rail]++;     /* the only copy: that rail delivered it */
    }
    if (e->tx_count == 1 && e->txseq > acc->largest_txseq) {
        acc->largest_txseq = e->txseq;
    }
    if (e->txseq > acc->newest_txseq) {
        acc->newest_txseq = e->txseq;
        acc->rtt_sent_ns = e->sent_ns;
        acc->has_rtt = e->tx_count == 1;
    }
    e->state = TN_UDP_SM_SACKED;
    if (e->data != NULL) {
        if (e->data != tn_sm_head(sm, e->psn)) {
            tn_udp_slots_put(&sm->slots, e->data);
        }
        e->data = NULL;
    }
    if (e->ext != NULL) {
        e->ext = NULL;
        if (sm->release != NULL) {
            sm->release(e->cookie);
        }
    }
}

void tn_udp_sentmap_ack(tn_udp_sentmap_t *sm, uint64_t ack, tn_udp_acked_t *acc)
{
    if (ack > sm->nxt) {
        ack = sm->nxt;
    }
    for (uint64_t psn = sm->una; psn < ack; psn++) {
        tn_sm_acked(sm, tn_udp_sentmap_get(sm, psn), acc);
    }
    if (ack > sm->una) {
        sm->una = ack;
    }
}

void tn_udp_sentmap_sack(tn_udp_sentmap_t *sm, uint64_t start, uint64_t end,
                         tn_udp_acked_t *acc)
{
    if (start < sm->una) {
        start = sm->una;
    }
    if (end > sm->nxt) {
        end = sm->nxt;
    }
    for (uint64_t psn = start; psn < end; psn++) {
        tn_sm_acked(sm, tn_udp_sentmap_get(sm, psn), acc);
    }
}

void tn_udp_sentmap_mark_lost(tn_udp_sentmap_t *sm, tn_udp_sent_t *e)
{
    if (e->state != TN_UDP_SM_INFLIGHT) {
        return;
    }
    tn_sm_list_unlink(sm, &sm->inflight, e);
    e->state = TN_UDP_SM_LOST;
    tn_sm_list_append(sm, &sm->lost, e);
}
