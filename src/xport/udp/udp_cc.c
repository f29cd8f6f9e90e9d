/* Reno AIMD in packets; see udp_cc.h. */
#include "xport/udp/udp_cc.h"

#include <string.h>

static uint32_t tn_udp_cc_clamp(const tn_udp_cc_t *cc, uint64_t w)
{
    if (w < cc->cwnd_min) {
        return cc->cwnd_min;
    }
    return w > cc->cwnd_max ? cc->cwnd_max : (uint32_t)w;
}

void tn_udp_cc_init(tn_udp_cc_t *cc, uint32_t cwnd_init, uint32_t cwnd_min, uint32_t cwnd_max)
{
    memset(cc, 0, sizeof(*cc));
    cc->cwnd_min = cwnd_min == 0 ? 1 : cwnd_min;
    cc->cwnd_max = cwnd_max < cc->cwnd_min ? cc->cwnd_min : cwnd_max;
    cc->cwnd = tn_udp_cc_clamp(cc, cwnd_init);
    cc->ssthresh = cc->cwnd_max;
}

void tn_udp_cc_on_ack(tn_udp_cc_t *cc, uint32_t n, uint64_t largest_acked_txseq)
{
    if (cc->in_recovery) {
        if (largest_acked_txseq < cc->recovery_end) {
            return;                         /* acks of the episode: no growth */
        }
        cc->in_recovery = 0;
        cc->after_timeout = 0;
    }
    if (cc->cwnd < cc->ssthresh) {
        uint64_t w = (uint64_t)cc->cwnd + n;
        if (w > cc->ssthresh) {
            cc->acked += (uint32_t)(w - cc->ssthresh);
            w = cc->ssthresh;
        }
        cc->cwnd = tn_udp_cc_clamp(cc, w);
    } else {
        cc->acked += n;
    }
    while (cc->cwnd >= cc->ssthresh && cc->acked >= cc->cwnd) {
        cc->acked -= cc->cwnd;
        if (cc->cwnd >= cc->cwnd_max) {
            cc->acked = 0;
            break;
        }
        cc->cwnd++;
    }
}

int tn_udp_cc_on_loss(tn_udp_cc_t *cc, uint64_t lost_txseq, uint64_t next_txseq)
{
    if (cc->in_recovery && lost_txseq < cc->recovery_end) {
        return 0;                           /* same episode */
    }
    cc->ssthresh = tn_udp_cc_clamp(cc, cc->cwnd / 2);
    cc->cwnd = cc->ssthresh;
    cc->acked = 0;
    cc->recovery_end = next_txseq;
    cc->in_recovery = 1;
    cc->episodes++;
    return 1;
}

void tn_udp_cc_on_timeout(tn_udp_cc_t *cc, uint64_t next_txseq, int path_known)
{
    if (!(cc->in_recovery && cc->after_timeout)) {
        cc->prior_cwnd = cc->cwnd;
        cc->prior_ssthresh = cc->ssthresh;
        if (path_known) {
            cc->ssthresh = tn_udp_cc_clamp(cc, cc->cwnd / 2);
        }
    }
    cc->verdict_pending = 1;
    cc->cwnd = cc->cwnd_min;
    cc->acked = 0;
    cc->recovery_end = next_txseq;
    cc->in_recovery = 1;
    cc->after_timeout = 1;
    cc->timeouts++;
}

int tn_udp_cc_timeout_verdict(tn_udp_cc_t *cc, int spurious)
{
    if (!cc->verdict_pending) {
        return 0;
    }
    cc->verdict_pending = 0;
    if (!spurious) {
        return 0;
    }
    cc->cwnd = tn_udp_cc_clamp(cc, cc->prior_cwnd);
    cc->ssthresh = cc->prior_ssthresh;
    cc->acked = 0;
    cc->in_recovery = 0;
    cc->after_timeout = 0;
    cc->undone++;
    return 1;
}
