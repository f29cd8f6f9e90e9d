/* RTT estimation, RTO and loss detection; see udp_loss.h. */
#include "xport/udp/udp_loss.h"

#include <string.h>

void tn_udp_loss_init(tn_udp_loss_t *l, uint64_t rto_init_ns, uint64_t rto_min_ns,
                      uint64_t rto_max_ns, uint32_t dupthresh)
{
    memset(l, 0, sizeof(*l));
    if (rto_min_ns == 0) {
        rto_min_ns = 1;
    }
    if (rto_max_ns < rto_min_ns) {
        rto_max_ns = rto_min_ns;
    }
    l->rto_init_ns = rto_init_ns;
    l->rto_min_ns = rto_min_ns;
    l->rto_max_ns = rto_max_ns;
    l->dupthresh = dupthresh == 0 ? 1 : dupthresh;
    l->reorder = l->dupthresh;
    l->time_shift = 3;
    l->min_rtt_ns = UINT64_MAX;
    l->loss_time = UINT64_MAX;
}

void tn_udp_loss_on_rtt(tn_udp_loss_t *l, uint64_t r)
{
    if (r == 0) {
        r = 1;
    }
    l->latest_rtt_ns = r;
    if (r < l->min_rtt_ns) {
        l->min_rtt_ns = r;
    }
    if (l->srtt_ns == 0) {
        l->srtt_ns = r;
        l->rttvar_ns = r / 2;
        return;
    }
    uint64_t dev = l->srtt_ns > r ? l->srtt_ns - r : r - l->srtt_ns;
    l->rttvar_ns = (3 * l->rttvar_ns + dev) / 4;
    l->srtt_ns = (7 * l->srtt_ns + r) / 8;
    if (l->srtt_ns == 0) {
        l->srtt_ns = 1;
    }
}

void tn_udp_loss_on_ack(tn_udp_loss_t *l, const tn_udp_acked_t *acc, uint64_t now)
{
    if (acc->newly == 0) {
        return;
    }
    l->progress_ns = now;
    l->probes = 0;
    /* Karn: the backed-off RTO stays until a sample says what the RTT is
     * (when every ack is for a retransmission, resetting the backoff would
     * retransmit everything forever on an RTT above rto_init) */
    if (acc->has_rtt && now >= acc->rtt_sent_ns) {
        tn_udp_loss_on_rtt(l, now - acc->rtt_sent_ns);
        l->backoff = 0;
    }
    if (acc->largest_txseq > l->largest_acked_txseq) {
        l->largest_acked_txseq = acc->largest_txseq;
    }
    if (acc->spurious != 0) {
        l->spurious += acc->spurious;
        uint64_t dist = l->largest_acked_txseq - acc->spurious_txseq + 1;
        if (dist > TN_UDP_LOSS_MAX_REORDER) {
            dist = TN_UDP_LOSS_MAX_REORDER;
        }
        if (dist > l->reorder) {
            l->reorder = (uint32_t)dist;
        }
        /* 9/8 -> 5/4 of an RTT; more would let the RTO (which may be as
         * short as rto_min) fire first */
        if (l->time_shift > 2) {
            l->time_shift--;
        }
    }
}

uint64_t tn_udp_loss_rto(const tn_udp_loss_t *l)
{
    uint64_t var = 4 * l->rttvar_ns > 1000 ? 4 * l->rttvar_ns : 1000;
    uint64_t rto = l->srtt_ns == 0 ? l->rto_init_ns : l->srtt_ns + var + l->peer_ack_delay_ns;
    if (rto < l->rto_min_ns) {
        rto = l->rto_min_ns;
    }
    if (rto > l->rto_max_ns) {
        rto = l->rto_max_ns;
    }
    for (uint32_t i = 0; i < l->backoff && rto < l->rto_max_ns; i++) {
        rto *= 2;
    }
    return rto > l->rto_max_ns ? l->rto_max_ns : rto;
}

static void tn_udp_loss_mark(tn_udp_sentmap_t *sm, tn_udp_sent_t *e, tn_udp_loss_result_t *res)
{
    res->lost++;
    if (e->txseq > res->largest_lost_txseq) {
        res->largest_lost_txseq = e->txseq;
    }
    if (e->rail < TN_UDP_LOSS_RAILS) {
        res->rail_lost[e->rail]++;
        if (e->tx_count == 1) {
            res->rail_lost_first[e->rail]++;
        }
    }
    tn_udp_sentmap_mark_lost(sm, e);
}

uint32_t tn_udp_loss_detect(tn_udp_loss_t *l, tn_udp_sentmap_t *sm, uint64_t now,
                            tn_udp_loss_result_t *res)
{
    uint32_t n = 0;
    uint64_t largest = l->largest_acked_txseq;
    uint64_t rtt = l->srtt_ns > l->latest_rtt_ns ? l->srtt_ns : l->latest_rtt_ns;
    uint64_t delay = rtt + (rtt >> l->time_shift);
    l->loss_time = UINT64_MAX;
    tn_udp_sent_t *e;
    while ((e = tn_udp_sentmap_oldest(sm)) != NULL && e->txseq < largest) {
        if (e->txseq + l->reorder > largest && (delay == 0 || e->sent_ns + delay > now)) {
            if (delay != 0) {
                l->loss_time = e->sent_ns + delay;
            }
            break;
        }
        tn_udp_loss_mark(sm, e, res);
        n++;
    }
    return n;
}

uint64_t tn_udp_loss_deadline(const tn_udp_loss_t *l, const tn_udp_sentmap_t *sm)
{
    const tn_udp_sent_t *e = tn_udp_sentmap_oldest(sm);
    if (e == NULL) {
        return UINT64_MAX;
    }
    uint64_t from = e->sent_ns > l->progress_ns ? e->sent_ns : l->progress_ns;
    uint64_t rto = from + tn_udp_loss_rto(l);
    return l->loss_time < rto ? l->loss_time : rto;
}

int tn_udp_loss_on_timer(tn_udp_loss_t *l, tn_udp_sentmap_t *sm, uint64_t now,
                         tn_udp_loss_result_t *res)
{
    tn_udp_sent_t *e = tn_udp_sentmap_oldest(sm);
    if (e == NULL) {
        l->loss_time = UINT64_MAX;
        return TN_UDP_LOSS_TIMER_NONE;
    }
    if (l->loss_time <= now) {
        if (tn_udp_loss_detect(l, sm, now, res) != 0) {
            return TN_UDP_LOSS_TIMER_EARLY;
        }
        e = tn_udp_sentmap_oldest(sm);
        if (e == NULL) {
            return TN_UDP_LOSS_TIMER_NONE;
        }
    }
    uint64_t rto = tn_udp_loss_rto(l);
    uint64_t from = e->sent_ns > l->progress_ns ? e->sent_ns : l->progress_ns;
    if (from + rto > now) {
        return TN_UDP_LOSS_TIMER_NONE;
    }
    if (l->probes < l->max_probes) {
        /* a probe: resend the oldest, keep the rest in flight, and let the
         * ack it draws tell what was lost */
        for (uint32_t k = 0; k < TN_UDP_LOSS_PROBE_PKTS; k++) {
            e = tn_udp_sentmap_oldest(sm);
            if (e == NULL) {
                break;
            }
            e->flags |= TN_UDP_SM_F_PROBE;
            tn_udp_loss_mark(sm, e, res);
        }
        l->probes++;
        if (l->backoff < TN_UDP_LOSS_MAX_BACKOFF) {
            l->backoff++;
        }
        return TN_UDP_LOSS_TIMER_PROBE;
    }
    /* the ack clock is gone: everything in flight is presumed lost (and
     * the window drops to its minimum, so only the oldest go out first) */
    while ((e = tn_udp_sentmap_oldest(sm)) != NULL) {
        e->flags |= TN_UDP_SM_F_RTO;
        tn_udp_loss_mark(sm, e, res);
    }
    if (l->backoff < TN_UDP_LOSS_MAX_BACKOFF) {
        l->backoff++;
    }
    return TN_UDP_LOSS_TIMER_RTO;
}
