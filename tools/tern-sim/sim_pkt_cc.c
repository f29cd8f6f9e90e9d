/* Congestion control of the packet engine, per message (sim_pkt.h;
 * docs/sim.md, "Congestion control").
 *
 * DCQCN-like (timer-driven, no byte counter): switches mark packets
 * entering a queue of q bytes for their output with probability 0 below
 * kmin, rising linearly to pmax at kmax, 1 above; the receiver returns
 * at most one CNP per message per 50 us; on a CNP the sender sets its
 * target rate Rt to its current rate Rc, cuts Rc by alpha / 2 and raises
 * alpha by g (alpha = (1-g) alpha + g).  Every T without a CNP alpha
 * decays by (1-g) and Rc recovers: the first F periods halfway to Rt
 * (fast recovery), then Rt grows by Rai and Rc goes halfway to it
 * (additive increase).  The periods are applied when the rate is read
 * (at every send), not by timer events: the same arithmetic, fewer
 * events.
 *
 * ACC-style max-min: every link computes its fair share each period P
 * from what it sees: C the link's bandwidth, N the messages crossing it
 * (first packet gone through, last not yet), and, among them, those that
 * send below 0.95 x the link's share (held down elsewhere): their rate
 * sum A, their number Nc and their largest rate M, measured over the
 * period from their bytes and rates.  share = (C - A) / max(1, N - Nc),
 * or C - A + M when N - Nc < 1/2 (every flow is held elsewhere: the
 * largest may take what is left, Charny's rule; without it the share
 * collapsed to the leftover and oscillated), within [C/1000, C].  A
 * packet leaving on the link lowers its stamp to the link's share; the
 * receiver returns the stamp (the minimum share along the path) to the
 * sender, a path latency later, when it differs from the sender's rate;
 * the sender sends at the stamped rate.  This is Charny-style explicit
 * rate computation: a fixed point of it is the max-min allocation.  An
 * RCP-like queue-drain term (- Q / tau) was tried and left out: it
 * changed no validation figure and slowed a contended all-to-all by 28 %
 * (docs/sim.md). */
#include <math.h>

#include "sim_pkt.h"

#define DCQCN_G     (1.0 / 256)
#define DCQCN_T     55000.0   /* ns: recovery and alpha period */
#define DCQCN_F     5         /* fast-recovery periods */
#define DCQCN_RAI   0.001     /* additive increase, fraction of the line rate (40 Mb/s at 40 Gb/s) */
#define CC_MIN_RATE 0.001     /* no rate below this fraction of the line */
#define ACC_P       20000.0   /* ns: a link's share period */

void tn_sim_cc_begin(tn_sim_pkt_t *p, int32_t f, double line)
{
    p->m_rc[f] = line;
    p->m_rt[f] = line;
    p->m_alpha[f] = 1;
    p->m_tcut[f] = -INFINITY;
    p->m_tcnp[f] = -INFINITY;
    p->m_steps[f] = 0;
    p->m_stamp[f] = line;
}

/* The DCQCN periods elapsed since the last cut, applied. */
static void dcqcn_catch_up(tn_sim_pkt_t *p, int32_t f, double now, double line)
{
    if (p->m_rc[f] >= line) {
        return;
    }
    double n = floor((now - p->m_tcut[f]) / DCQCN_T);
    if (n - p->m_steps[f] > 1000) {
        p->m_rc[f] = p->m_rt[f] = line;  /* long quiet: fully recovered */
        return;
    }
    while (p->m_steps[f] < n) {
        p->m_steps[f]++;
        p->m_alpha[f] *= 1 - DCQCN_G;
        if (p->m_steps[f] > DCQCN_F) {
            p->m_rt[f] = fmin(p->m_rt[f] + DCQCN_RAI * line, line);
        }
        p->m_rc[f] = (p->m_rt[f] + p->m_rc[f]) / 2;
    }
}

double tn_sim_cc_rate(tn_sim_pkt_t *p, int32_t f, double now, double line)
{
    switch (p->c.cc) {
    case TN_SIM_CC_DCQCN:
        dcqcn_catch_up(p, f, now, line);
        return p->m_rc[f];
    case TN_SIM_CC_ACC:
        return p->m_stamp[f];
    default:
        return INFINITY;
    }
}

void tn_sim_cc_cnp(tn_sim_pkt_t *p, int32_t f, double now, double line)
{
    dcqcn_catch_up(p, f, now, line);
    p->m_rt[f] = p->m_rc[f];
    p->m_rc[f] = fmax(p->m_rc[f] * (1 - p->m_alpha[f] / 2), CC_MIN_RATE * line);
    p->m_alpha[f] = (1 - DCQCN_G) * p->m_alpha[f] + DCQCN_G;
    p->m_tcut[f] = now;
    p->m_steps[f] = 0;
}

int tn_sim_cc_mark(tn_sim_pkt_t *p, double q)
{
    if (q <= p->c.kmin) {
        return 0;
    }
    double pr = q >= p->c.kmax ? 1 : p->c.pmax * (q - p->c.kmin) / (p->c.kmax - p->c.kmin);
    return tn_sim_rng_unit(&p->rng) < pr;
}

void tn_sim_cc_acc_stamp(tn_sim_pkt_t *p, int32_t o, double now, double rate, double bytes,
                         unsigned flags, double *stamp)
{
    double c = p->topo->bw[o], el = now - p->o_t0[o];
    if (el >= ACC_P) {
        double a = p->o_sum[o] / el, nc = p->o_nc[o] / el;
        double nb = p->o_cnt[o] - nc, left = c - a;
        /* every flow held below the share elsewhere: the largest of them
         * may take what is left (Charny's rule), else the share would
         * collapse to the leftover alone */
        double s = nb >= 0.5 ? left / (nb > 1 ? nb : 1) : left + p->o_max[o];
        p->o_share[o] = fmin(fmax(s, CC_MIN_RATE * c), c);
        p->o_sum[o] = p->o_nc[o] = p->o_max[o] = 0;
        p->o_t0[o] = now;
    }
    if (flags & TN_SIM_PKT_FIRST) {
        p->o_cnt[o] += 1;
    }
    if (rate < 0.95 * p->o_share[o]) {
        p->o_sum[o] += bytes;
        p->o_nc[o] += bytes / rate;
        p->o_max[o] = fmax(p->o_max[o], rate);
    }
    if (flags & TN_SIM_PKT_LAST) {
        p->o_cnt[o] -= 1;
    }
    *stamp = fmin(*stamp, p->o_share[o]);
}

void tn_sim_cc_acc_feedback(tn_sim_pkt_t *p, int32_t f, double stamp)
{
    p->m_stamp[f] = stamp;
}
