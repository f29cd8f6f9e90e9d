/* Token-bucket pacing; see udp_pace.h. */
#include "xport/udp/udp_pace.h"

#define TN_PACE_SHIFT 8

void tn_udp_pace_init(tn_udp_pace_t *p, uint32_t burst)
{
    p->interval = 0;
    p->t_next = 0;
    p->t_frac = 0;
    p->burst = burst == 0 ? 1 : burst;
}

void tn_udp_pace_set_rate(tn_udp_pace_t *p, uint32_t cwnd, uint64_t srtt_ns, uint32_t gain_x4)
{
    if (srtt_ns == 0 || cwnd == 0 || gain_x4 == 0) {
        p->interval = 0;
        return;
    }
    /* interval = srtt / (cwnd * gain) */
    p->interval = (srtt_ns << TN_PACE_SHIFT) * 4 / ((uint64_t)cwnd * gain_x4);
}

uint64_t tn_udp_pace_next(const tn_udp_pace_t *p, uint64_t now)
{
    if (p->interval == 0 || p->t_next <= now) {
        return now;
    }
    return p->t_next;
}

void tn_udp_pace_on_send(tn_udp_pace_t *p, uint64_t now)
{
    if (p->interval == 0) {
        return;
    }
    /* an idle sender may send burst packets back to back, no more */
    uint64_t allowance = (p->interval * (p->burst - 1)) >> TN_PACE_SHIFT;
    if (p->t_next + allowance < now) {
        p->t_next = now - allowance;
        p->t_frac = 0;
    }
    uint64_t f = p->t_frac + p->interval;
    p->t_next += f >> TN_PACE_SHIFT;
    p->t_frac = (uint32_t)(f & ((1u << TN_PACE_SHIFT) - 1));
}
