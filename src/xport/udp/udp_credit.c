/* Receive window: reorder buffer, delivery, credits; see udp_credit.h. */
#include "xport/udp/udp_credit.h"

#include <stdlib.h>
#include <string.h>

tn_status_t tn_udp_credit_init(tn_udp_credit_t *w, uint32_t window, size_t slot,
                               uint64_t first_psn)
{
    memset(w, 0, sizeof(*w));
    if (window == 0) {
        window = 1;
    }
    uint32_t cap = 1;
    while (cap < window) {
        cap <<= 1;
    }
    w->ring = calloc(cap, sizeof(tn_udp_rslot_t));
    if (w->ring == NULL) {
        return TN_ERR_NOMEM;
    }
    if (tn_udp_slots_init(&w->slots, slot, window) != TN_OK) {
        free(w->ring);
        w->ring = NULL;
        return TN_ERR_NOMEM;
    }
    w->mask = cap - 1;
    w->window = window;
    w->ack = w->del = first_psn;
    tn_udp_ranges_init(&w->sacks);
    return TN_OK;
}

void tn_udp_credit_fini(tn_udp_credit_t *w)
{
    tn_udp_slots_fini(&w->slots);
    free(w->ring);
    memset(w, 0, sizeof(*w));
}

/* A pool slot with s's message in it, the lent tail (if any) after the
 * head; NULL when out of memory. */
static void *tn_credit_copy(tn_udp_credit_t *w, tn_udp_rslot_t *s, const void *data)
{
    void *slot = tn_udp_slots_get(&w->slots);
    if (slot == NULL) {
        return NULL;
    }
    memcpy(slot, data, s->len);
    if (s->tail != NULL && !s->tail_kept) {
        memcpy((char *)slot + s->len, s->tail, s->tail_len);
        s->len += s->tail_len;
        s->tail = NULL;
        s->tail_len = 0;
    }
    return slot;
}

/* Copy the messages that still live in a caller's buffer into pool slots. */
static tn_udp_rx_t tn_credit_unlend(tn_udp_credit_t *w)
{
    for (uint64_t p = w->del; w->nlent != 0 && p < w->ack; p++) {
        tn_udp_rslot_t *s = &w->ring[p & w->mask];
        if (!s->lent) {
            continue;
        }
        void *slot = tn_credit_copy(w, s, s->data);
        if (slot == NULL) {
            return TN_UDP_RX_NOMEM;
        }
        s->data = slot;
        s->lent = 0;
        w->nlent--;
    }
    return TN_UDP_RX_INORDER;
}

static tn_udp_rx_t tn_credit_insert(tn_udp_credit_t *w, uint64_t psn, const void *data,
                                    uint32_t len, int lend, const void *tail,
                                    uint32_t tail_len, int keep)
{
    if (w->nlent != 0 && tn_credit_unlend(w) == TN_UDP_RX_NOMEM) {
        return TN_UDP_RX_NOMEM;
    }
    if (psn < w->ack) {
        return TN_UDP_RX_STALE;
    }
    if (psn >= w->del + w->window) {
        return TN_UDP_RX_BEYOND;
    }
    tn_udp_rslot_t *s = &w->ring[psn & w->mask];
    if (s->data != NULL) {
        return TN_UDP_RX_DUP;
    }
    if ((size_t)len + (keep ? 0 : tail_len) > w->slots.slot) {
        return TN_UDP_RX_NOMEM;
    }
    s->len = len;
    s->tail = tail_len != 0 ? tail : NULL;
    s->tail_len = tail_len != 0 ? tail_len : 0;
    s->tail_kept = (uint8_t)(keep != 0);
    if (lend && psn == w->ack) {
        s->data = (void *)data;
        s->lent = 1;
        w->nlent++;
    } else if ((s->data = tn_credit_copy(w, s, data)) == NULL) {
        s->tail = NULL;
        s->tail_len = 0;
        return TN_UDP_RX_NOMEM;
    }
    if (psn != w->ack) {
        w->ooo++;
        tn_udp_ranges_add(&w->sacks, psn, psn + 1);
        return TN_UDP_RX_OOO;
    }
    /* advance over the packets that were waiting behind this one */
    uint64_t a = psn + 1;
    while (w->ooo != 0 && a < w->del + w->window && w->ring[a & w->mask].data != NULL) {
        a++;
        w->ooo--;
    }
    w->ack = a;
    tn_udp_ranges_remove_below(&w->sacks, a);
    return TN_UDP_RX_INORDER;
}

tn_udp_rx_t tn_udp_credit_insert(tn_udp_credit_t *w, uint64_t psn, const void *data,
                                 uint32_t len)
{
    return tn_credit_insert(w, psn, data, len, 0, NULL, 0, 0);
}

tn_udp_rx_t tn_udp_credit_insert_lent(tn_udp_credit_t *w, uint64_t psn, const void *data,
                                      uint32_t len)
{
    return tn_credit_insert(w, psn, data, len, 1, NULL, 0, 0);
}

tn_udp_rx_t tn_udp_credit_insert_split(tn_udp_credit_t *w, uint64_t psn, const void *head,
                                       uint32_t head_len, const void *tail, uint32_t tail_len,
                                       int keep)
{
    return tn_credit_insert(w, psn, head, head_len, 1, tail, tail_len, keep);
}

void tn_udp_credit_release(tn_udp_credit_t *w)
{
    if (!w->held) {
        return;
    }
    tn_udp_rslot_t *s = &w->ring[w->del & w->mask];
    if (s->lent) {
        s->lent = 0;
        w->nlent--;
    } else {
        tn_udp_slots_put(&w->slots, s->data);
    }
    s->data = NULL;
    s->tail = NULL;
    s->tail_len = 0;
    w->del++;
    w->held = 0;
}

const void *tn_udp_credit_deliver_split(tn_udp_credit_t *w, size_t *len_p,
                                        const void **tail_p, size_t *tail_len_p)
{
    tn_udp_credit_release(w);
    if (w->del == w->ack) {
        return NULL;
    }
    tn_udp_rslot_t *s = &w->ring[w->del & w->mask];
    w->held = 1;
    *len_p = s->len;
    if (tail_p != NULL) {
        *tail_p = s->tail;
        *tail_len_p = s->tail_len;
    }
    return s->data;
}

const void *tn_udp_credit_deliver(tn_udp_credit_t *w, size_t *len_p)
{
    return tn_udp_credit_deliver_split(w, len_p, NULL, NULL);
}
