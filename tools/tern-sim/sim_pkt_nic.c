/* The packet engine's endpoints (sim_pkt.h): NICs serving their messages
 * round-robin, paced by congestion control; destinations sinking packets
 * and returning CNPs and rate stamps. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_flow.h"
#include "sim_pkt.h"
#include "sim_pkt_int.h"

/* The receiver sends at most one CNP per message per this much time
 * (DCQCN's NP rule). */
#define PKT_CNP_GAP 50000.0

static void nic_ring_add(tn_sim_pkt_t *p, int32_t ep, int32_t f)
{
    int32_t c = p->nic_cur[ep];
    if (c < 0) {
        p->m_rn[f] = p->m_rp[f] = f;
        p->nic_cur[ep] = f;
        return;
    }
    /* behind the current one: served last in this round */
    int32_t prev = p->m_rp[c];
    p->m_rn[prev] = f;
    p->m_rp[f] = prev;
    p->m_rn[f] = c;
    p->m_rp[c] = f;
}

static void nic_ring_del(tn_sim_pkt_t *p, int32_t ep, int32_t f)
{
    if (p->m_rn[f] == f) {
        p->nic_cur[ep] = -1;
        return;
    }
    p->m_rn[p->m_rp[f]] = p->m_rn[f];
    p->m_rp[p->m_rn[f]] = p->m_rp[f];
    if (p->nic_cur[ep] == f) {
        p->nic_cur[ep] = p->m_rn[f];
    }
}

/* Endpoint ep's link is free: its next message's next packet, if its
 * pacing and the first switch's buffer allow. */
tn_sim_status_t tn_sim_pkt_nic_kick(tn_sim_eng_t *e, int32_t ep)
{
    tn_sim_pkt_t *p = e->pkt;
    tn_sim_status_t st = TN_SIM_OK;
    if (p->nic_cur[ep] < 0 || tn_sim_pkt_busy(e, ep, &st)) {
        return st;
    }
    double now = e->now, line = e->topo->bw[ep], wake = INFINITY;
    int32_t f = p->nic_cur[ep];
    do {
        double rate = tn_sim_cc_rate(p, f, now, line);
        int32_t pay = p->m_left[f] < p->c.mtu ? (int32_t)p->m_left[f] : p->c.mtu;
        int32_t bytes = pay + p->c.hdr;
        double tn = p->m_tnext[f];
        if (tn <= now) {
            size_t ov = (size_t)ep * (size_t)p->nvc + p->m_h[f].vc;
            if (p->o_credit[ov] < bytes || p->o_paused[ov]) {
                return TN_SIM_OK;  /* a credit will kick again */
            }
            int32_t k = tn_sim_pkt_alloc(e);
            if (k < 0) {
                return TN_SIM_ERR_NOMEM;
            }
            p->pk[k].msg = f;
            p->pk[k].pay = pay;
            p->pk[k].bytes = bytes;
            p->pk[k].h = p->m_h[f];
            p->pk[k].ecn = (uint8_t)((p->m_left[f] == e->fl[f].bytes ? TN_SIM_PKT_FIRST : 0) |
                                     (p->m_left[f] <= pay ? TN_SIM_PKT_LAST : 0) |
                                     (p->m_tree[f] != NULL ? TN_SIM_PKT_MCAST : 0));
            p->pk[k].tail = now;
            if (p->c.cc == TN_SIM_CC_ACC) {
                p->pk_cc[k].rate = rate < line ? rate : line;
                p->pk_cc[k].stamp = INFINITY;
            }
            p->pkts++;
            p->m_left[f] -= pay;
            /* pace from the slot it was due (a packet late because the link
             * was busy with another message's is not lost to the rate),
             * but bank at most one packet's worth of lateness */
            double gap = bytes / rate, base = tn > now - gap ? tn : now - gap;
            p->m_tnext[f] = isfinite(rate) ? base + gap : now;
            p->nic_cur[ep] = p->m_rn[f];
            if (p->m_left[f] <= 0) {
                nic_ring_del(p, ep, f);
            }
            st = tn_sim_pkt_send(e, ep, k);
            if (st == TN_SIM_OK && p->nic_cur[ep] >= 0) {
                tn_sim_pkt_busy(e, ep, &st);
            }
            return st;
        }
        wake = tn < wake ? tn : wake;
        f = p->m_rn[f];
    } while (f != p->nic_cur[ep]);
    if (p->nic_wake[ep] < now || wake < p->nic_wake[ep]) {
        p->nic_wake[ep] = wake;
        return tn_sim_pkt_push(e, wake, PE_NIC, ep) ? TN_SIM_ERR_NOMEM : TN_SIM_OK;
    }
    return TN_SIM_OK;
}

/* Message f's state at its start, a unicast's; on its NIC's ring. */
static tn_sim_status_t pkt_begin(tn_sim_eng_t *e, int32_t f, const tn_sim_rhdr_t *h)
{
    tn_sim_pkt_t *p = e->pkt;
    if (f >= p->mcap && tn_sim_pkt_grow_msgs(p, f) != TN_SIM_OK) {
        return TN_SIM_ERR_NOMEM;
    }
    int32_t ep = e->f_src[f];
    p->m_gen[f]++;
    p->m_h[f] = *h;
    free(p->m_tree[f]);   /* an earlier multicast's under this flow id */
    p->m_tree[f] = NULL;
    p->m_ndst[f] = 1;
    p->m_left[f] = e->fl[f].bytes;
    p->m_recv[f] = 0;
    p->m_tnext[f] = e->now;
    tn_sim_cc_begin(p, f, e->topo->bw[ep]);
    nic_ring_add(p, ep, f);
    return TN_SIM_OK;
}

tn_sim_status_t tn_sim_pkt_start(tn_sim_eng_t *e, int32_t f, const tn_sim_rhdr_t *h)
{
    tn_sim_status_t st = pkt_begin(e, f, h);
    return st != TN_SIM_OK ? st : tn_sim_pkt_nic_kick(e, e->f_src[f]);
}

static int pkt_cmp_link(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

tn_sim_status_t tn_sim_pkt_start_mcast(tn_sim_eng_t *e, int32_t f, const int32_t *links, const uint8_t *vcs,
                                       int32_t n, int32_t ndst)
{
    tn_sim_pkt_t *p = e->pkt;
    if (f >= p->mcap && tn_sim_pkt_grow_msgs(p, f) != TN_SIM_OK) {
        return TN_SIM_ERR_NOMEM;
    }
    int32_t ep = e->f_src[f];
    /* sorted by port: pairs (link, vc) side by side, then split */
    int32_t *pair = malloc(sizeof(int32_t) * 2 * (size_t)n);
    int32_t *tr = malloc(sizeof(int32_t) * (1 + 2 * (size_t)n));
    if (pair == NULL || tr == NULL) {
        free(pair);
        free(tr);
        return TN_SIM_ERR_NOMEM;
    }
    int src_vc = -1;
    for (int32_t i = 0; i < n; i++) {
        pair[2 * i] = links[i];
        pair[2 * i + 1] = vcs[i];
        src_vc = links[i] == ep ? vcs[i] : src_vc;
    }
    qsort(pair, (size_t)n, 2 * sizeof(int32_t), pkt_cmp_link);
    tr[0] = n;
    for (int32_t i = 0; i < n; i++) {
        tr[1 + i] = pair[2 * i];
        tr[1 + n + i] = pair[2 * i + 1];
    }
    free(pair);
    if (src_vc < 0) {
        free(tr);
        return TN_SIM_ERR_INTERNAL;   /* the tree does not leave the source */
    }
    tn_sim_rhdr_t h;
    memset(&h, 0, sizeof(h));
    h.src = ep;
    h.dst = -1;
    h.inter = -1;
    h.vc = (uint8_t)src_vc;
    tn_sim_status_t st = pkt_begin(e, f, &h);
    if (st != TN_SIM_OK) {
        free(tr);
        return st;
    }
    p->m_tree[f] = tr;
    p->m_ndst[f] = ndst;
    return tn_sim_pkt_nic_kick(e, ep);
}

/* Packet k reached its destination endpoint: the NIC sinks it at line
 * rate (its buffer is free when the tail is in), the message counts its
 * bytes; a CNP or a rate stamp goes back to the sender a path latency
 * later (feedback does not cross the fabric as packets).  k becomes that
 * token or goes back to the pool. */
tn_sim_status_t tn_sim_pkt_sink(tn_sim_eng_t *e, int32_t k)
{
    tn_sim_pkt_t *p = e->pkt;
    int32_t f = p->pk[k].msg, link = p->pk[k].link;
    double now = e->now, pay = p->pk[k].pay;
    tn_sim_status_t st = p->c.pfc ? TN_SIM_OK : tn_sim_pkt_credit(e, link, p->pk[k].vc, p->pk[k].bytes, now);
    if (st != TN_SIM_OK) {
        return st;
    }
    p->m_recv[f] += pay;
    /* a multicast's bytes count once, as the flow engine counts them */
    tn_sim_stats_add(&e->stats, e->fl[f].job, now, pay / (double)p->m_ndst[f]);
    int kind = -1;
    if ((p->pk[k].ecn & TN_SIM_PKT_ECN) && now - p->m_tcnp[f] >= PKT_CNP_GAP) {
        p->m_tcnp[f] = now;
        p->cnps++;
        kind = PE_CNP;
    } else if (p->c.cc == TN_SIM_CC_ACC && p->pk_cc[k].stamp != p->m_stamp[f]) {
        kind = PE_FB;  /* only a stamp that changes the sender's rate */
    }
    if (kind >= 0) {
        p->pk[k].pay = (int32_t)p->m_gen[f];
        if (tn_sim_pkt_push(e, now + e->fl[f].lat, (unsigned)kind, k)) {
            return TN_SIM_ERR_NOMEM;
        }
    } else {
        tn_sim_pkt_free(p, k);
    }
    if (p->m_recv[f] >= e->fl[f].bytes * (double)p->m_ndst[f]) {
        free(p->m_tree[f]);
        p->m_tree[f] = NULL;
        return tn_sim_eng_pkt_done(e, f, now);
    }
    return TN_SIM_OK;
}
