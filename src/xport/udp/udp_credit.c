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

/* Copy the messages that still live in a caller's buffer into pool slots. */
static tn_udp_rx_t tn_credit_unlend(tn_udp_credit_t *w)
{
    for (uint64_t p = w->del; w->nlent != 0 && p < w->ack; p++) {
        tn_udp_rslot_t *s = &w->ring[p & w->mask];
        if (!s->lent) {
            continue;
        }
        void *slot = tn_udp_slots_get(&w->slots);
        if (slot == NULL) {
            return TN_UDP_RX_NOMEM;
        }
        memcpy(slot, s->data, s->len);
        s->data = slot;
        s->lent = 0;
        w->nlent--;
    }
    return TN_UDP_RX_INORDER;
}

static tn_udp_rx_t tn_credit_insert(tn_udp_credit_t *w, uint64_t psn, const void *data,
                                    uint32_t len, int lend)
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
    if (len > w->slots.slot) {
        return TN_UDP_RX_NOMEM;
    }
    if (lend && psn == w->ack) {
        s->data = (void *)data;
        s->lent = 1;
        w->nlent++;
    } else {
        if ((s->data = tn_udp_slots_get(&w->slots)) == NULL) {
            return TN_UDP_RX_NOMEM;
        }
        memcpy(s->data, data, len);
    }
    s->len = len;
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
    return tn_credit_insert(w, psn, data, len, 0);
}

tn_udp_rx_t tn_udp_credit_insert_lent(tn_udp_credit_t *w, uint64_t psn, const void *data,
                                      uint32_t len)
{
    return tn_credit_insert(w, psn, data, len, 1);
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
    w->del++;
    w->held = 0;
}

const void *tn_udp_credit_deliver(tn_udp_credit_t *w, size_t *len_p)
{
    tn_udp_credit_release(w);
    if (w->del == w->ack) {
        return NULL;
    }
    tn_udp_rslot_t *s = &w->ring[w->del & w->mask];
    w->held = 1;
    *len_p = s->len;
    return s->data;
}
