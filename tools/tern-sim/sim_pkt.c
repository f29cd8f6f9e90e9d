/* The packet-level engine (sim_pkt.h): set-up, the packet pool, links
 * and credits, switch outputs, the event dispatch (sim_pkt_int.h says
 * where the rest is). */
#include "sim_pkt.h"
#include "sim_pkt_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_flow.h"
#include "sim_mem.h"

_Static_assert(sizeof(tn_sim_pkt_ent_t) == 64, "a pool entry is one cache line");

/* The pool doubles; its entries start on a cache line (realloc does not
 * keep that alignment, so the old ones are copied). */
static tn_sim_status_t pkt_grow_pool(tn_sim_pkt_t *p)
{
    if (p->pcap > (1 << 27)) {
        return TN_SIM_ERR_LIMIT;
    }
    int32_t cap = p->pcap ? p->pcap * 2 : 4096;
    size_t c = (size_t)cap;
    if (tn_sim_grow_aligned((void **)&p->pk, sizeof(tn_sim_pkt_ent_t), (size_t)p->pcap, c) != 0 ||
        tn_sim_grow((void **)&p->pk_cc, sizeof(tn_sim_pkt_cc_t), c) != 0 ||
        tn_sim_grow((void **)&p->pk_grp, sizeof(int32_t), c) != 0) {
        return TN_SIM_ERR_NOMEM;
    }
    for (int32_t i = cap - 1; i >= p->pcap; i--) {
        p->pk[i].next = p->pfree;
        p->pfree = i;
        p->pk_grp[i] = -1;
    }
    p->pcap = cap;
    return TN_SIM_OK;
}

tn_sim_status_t tn_sim_pkt_grow_msgs(tn_sim_pkt_t *p, int32_t need)
{
    int32_t cap = p->mcap ? p->mcap : 1024;
    while (cap <= need) {
        cap *= 2;
    }
    size_t c = (size_t)cap;
    if (tn_sim_grow((void **)&p->m_rn, 4, c) || tn_sim_grow((void **)&p->m_rp, 4, c) ||
        tn_sim_grow((void **)&p->m_gen, 4, c) || tn_sim_grow((void **)&p->m_left, 8, c) ||
        tn_sim_grow((void **)&p->m_recv, 8, c) || tn_sim_grow((void **)&p->m_tnext, 8, c) ||
        tn_sim_grow((void **)&p->m_h, sizeof(tn_sim_rhdr_t), c) || tn_sim_grow((void **)&p->m_rc, 8, c) ||
        tn_sim_grow((void **)&p->m_rt, 8, c) || tn_sim_grow((void **)&p->m_alpha, 8, c) ||
        tn_sim_grow((void **)&p->m_tcut, 8, c) || tn_sim_grow((void **)&p->m_tcnp, 8, c) ||
        tn_sim_grow((void **)&p->m_stamp, 8, c) || tn_sim_grow((void **)&p->m_steps, 4, c) ||
        tn_sim_grow((void **)&p->m_tree, sizeof(int32_t *), c) || tn_sim_grow((void **)&p->m_ndst, 4, c)) {
        return TN_SIM_ERR_NOMEM;
    }
    memset(p->m_gen + p->mcap, 0, 4 * (c - (size_t)p->mcap));
    for (size_t i = (size_t)p->mcap; i < c; i++) {
        p->m_tree[i] = NULL;
    }
    p->mcap = cap;
    return TN_SIM_OK;
}

tn_sim_status_t tn_sim_pkt_init(tn_sim_pkt_t *p, const tn_sim_topo_t *topo,
                                const tn_sim_router_t *rt, const tn_sim_pkt_conf_t *c,
                                uint64_t seed)
{
    memset(p, 0, sizeof(*p));
    p->c = *c;
    p->topo = topo;
    p->rt = rt;
    p->nvc = rt->n_vc;
    p->pfree = -1;
    p->gfree = -1;
    tn_sim_rng_seed(&p->rng, seed ^ 0x9ac4e7u);
    size_t np = (size_t)topo->n_port, nep = (size_t)topo->n_ep;
    p->o_free = calloc(np, 8);
    p->o_txev = calloc(np, 1);
    p->o_rr = calloc(np, 4);
    p->o_npk = calloc(np, 4);
    p->o_credit = malloc(np * (size_t)p->nvc * 8);
    p->o_qbytes = calloc(np, 8);
    p->o_share = malloc(np * 8);
    p->o_sum = calloc(np, 8);
    p->o_cnt = calloc(np, 8);
    p->o_nc = calloc(np, 8);
    p->o_max = calloc(np, 8);
    p->o_t0 = calloc(np, 8);
    p->voq_off = malloc(np * 8);
    p->in_occ = calloc(np * (size_t)p->nvc, 8);
    p->in_psent = calloc(np * (size_t)p->nvc, 1);
    p->o_paused = calloc(np * (size_t)p->nvc, 1);
    p->nic_cur = malloc(nep * 4);
    p->nic_wake = malloc(nep * 8);
    if (!p->o_free || !p->o_txev || !p->o_rr || !p->o_npk || !p->o_credit || !p->o_qbytes || !p->o_share ||
        !p->o_sum || !p->o_cnt || !p->o_nc || !p->o_max || !p->o_t0 || !p->voq_off ||
        !p->in_occ || !p->in_psent || !p->o_paused || !p->nic_cur || !p->nic_wake) {
        tn_sim_pkt_fini(p);
        return TN_SIM_ERR_NOMEM;
    }
    int64_t nq = 0;
    for (int32_t o = 0; o < topo->n_port; o++) {
        p->voq_off[o] = -1;
        for (int v = 0; v < p->nvc; v++) {
            /* pfc: credit flow control off (credits never run out) */
            p->o_credit[(size_t)o * (size_t)p->nvc + (size_t)v] = c->pfc ? INFINITY : c->buf;
        }
        p->o_share[o] = topo->bw[o];
    }
    for (int32_t s = 0; s < topo->n_sw; s++) {
        int32_t deg = tn_sim_sw_deg(topo, s);
        for (int32_t i = 0; i < deg; i++) {
            p->voq_off[tn_sim_sw_port(topo, s, i)] = nq;
            nq += (int64_t)deg * p->nvc;
        }
    }
    if (nq > (1LL << 31)) {
        tn_sim_pkt_fini(p);
        return TN_SIM_ERR_LIMIT;
    }
    p->voq_head = malloc((size_t)nq * 4 + 4);
    p->voq_tail = malloc((size_t)nq * 4 + 4);
    if (p->voq_head == NULL || p->voq_tail == NULL) {
        tn_sim_pkt_fini(p);
        return TN_SIM_ERR_NOMEM;
    }
    memset(p->voq_head, 0xff, (size_t)nq * 4);
    for (int32_t e = 0; e < topo->n_ep; e++) {
        p->nic_cur[e] = -1;
        p->nic_wake[e] = -1;
    }
    if (pkt_grow_pool(p) != TN_SIM_OK || tn_sim_pkt_grow_msgs(p, 0) != TN_SIM_OK) {
        tn_sim_pkt_fini(p);
        return TN_SIM_ERR_NOMEM;
    }
    return TN_SIM_OK;
}

void tn_sim_pkt_fini(tn_sim_pkt_t *p)
{
    for (int32_t i = 0; p->m_tree != NULL && i < p->mcap; i++) {
        free(p->m_tree[i]);
    }
    void *a[] = {p->m_tree, p->m_ndst, p->pk_grp, p->grp_left, p->grp_out, p->pk, p->pk_cc, p->o_free, p->o_txev, p->o_rr,
                 p->o_npk, p->o_credit, p->o_qbytes, p->o_share, p->o_sum, p->o_cnt, p->o_nc,
                 p->o_max, p->o_t0, p->voq_off, p->in_occ, p->in_psent, p->o_paused, p->voq_head,
                 p->voq_tail, p->nic_cur, p->nic_wake, p->m_rn, p->m_rp,
                 p->m_gen, p->m_left, p->m_recv, p->m_tnext, p->m_h, p->m_rc, p->m_rt,
                 p->m_alpha, p->m_tcut, p->m_tcnp, p->m_stamp, p->m_steps};
    for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++) {
        free(a[i]);
    }
    memset(p, 0, sizeof(*p));
}

int32_t tn_sim_pkt_alloc(tn_sim_eng_t *e)
{
    tn_sim_pkt_t *p = e->pkt;
    if (p->pfree < 0 && pkt_grow_pool(p) != TN_SIM_OK) {
        return -1;
    }
    int32_t k = p->pfree;
    p->pfree = p->pk[k].next;
    return k;
}

/* A replication group for n copies, -1 out of memory. */
static int32_t pkt_grp_alloc(tn_sim_pkt_t *p, int32_t n)
{
    if (p->gfree < 0) {
        int32_t cap = p->gcap ? p->gcap * 2 : 256;
        if (p->gcap > (1 << 27) || tn_sim_grow((void **)&p->grp_left, sizeof(int32_t), (size_t)cap) != 0 ||
            tn_sim_grow((void **)&p->grp_out, sizeof(double), (size_t)cap) != 0) {
            return -1;
        }
        for (int32_t i = cap - 1; i >= p->gcap; i--) {
            p->grp_left[i] = p->gfree;
            p->gfree = i;
        }
        p->gcap = cap;
    }
    int32_t g = p->gfree;
    p->gfree = p->grp_left[g];
    p->grp_left[g] = n;
    p->grp_out[g] = -INFINITY;
    return g;
}

void tn_sim_pkt_free(tn_sim_pkt_t *p, int32_t k)
{
    p->pk[k].next = p->pfree;
    p->pfree = k;
}

int tn_sim_pkt_push(tn_sim_eng_t *e, double t, unsigned kind, int32_t id)
{
    return tn_sim_evq_push(&e->q, t, TN_SIM_PKT_EV0 + kind, id) < 0 ? -1 : 0;
}

/* Adaptive routers' view of a port: the bytes waiting for it. */
static double pkt_load(void *ctx, int32_t port)
{
    const tn_sim_pkt_t *p = ctx;
    return p->o_qbytes[port];
}

/* Port o sends packet k (its next VC in its h.vc) now: credits taken, the
 * link busy for its serialization, its head at the far end a latency
 * plus a header's time later. */
tn_sim_status_t tn_sim_pkt_send(tn_sim_eng_t *e, int32_t o, int32_t k)
{
    tn_sim_pkt_t *p = e->pkt;
    const tn_sim_topo_t *t = e->topo;
    double now = e->now, bw = t->bw[o], bytes = p->pk[k].bytes;
    p->o_credit[(size_t)o * (size_t)p->nvc + p->pk[k].h.vc] -= bytes;
    double done = now + bytes / bw;
    if (done < p->pk[k].tail) {
        done = p->pk[k].tail;  /* cut-through: the tail is not here yet */
    }
    p->o_free[o] = done;
    if (e->heat.on) {
        tn_sim_heat_carry(&e->heat, o, now, done, bytes);
    }
    if (p->c.cc == TN_SIM_CC_ACC) {
        tn_sim_cc_acc_stamp(p, o, now, p->pk_cc[k].rate, bytes, p->pk[k].ecn, &p->pk_cc[k].stamp);
    }
    double lat = t->lat[o];
    p->pk[k].link = o;
    p->pk[k].vc = p->pk[k].h.vc;
    p->pk[k].tail = done + lat;
    double head = now + lat + (t->peer[o] < t->n_ep ? bytes : (double)p->c.hdr) / bw;
    if (head > p->pk[k].tail) {
        head = p->pk[k].tail;
    }
    if (tn_sim_pkt_push(e, head, PE_ARR, k)) {
        return TN_SIM_ERR_NOMEM;
    }
    return TN_SIM_OK;
}

/* The buffer of link `in`, VC vc, frees bytes at time t: the credit is
 * back at the sender a latency later.  It travels in the event itself
 * (id: the link, arg: bytes << 4 | vc), not as a pool entry. */
tn_sim_status_t tn_sim_pkt_credit(tn_sim_eng_t *e, int32_t in, int vc, double bytes, double t)
{
    uint32_t arg = (uint32_t)bytes << 4 | (uint32_t)vc;
    return tn_sim_evq_push_arg(&e->q, t + e->topo->lat[in], TN_SIM_PKT_EV0 + PE_CREDIT, in, arg) < 0
               ? TN_SIM_ERR_NOMEM
               : TN_SIM_OK;
}

/* Is link o serializing?  Then whoever waits for it hears when it ends. */
int tn_sim_pkt_busy(tn_sim_eng_t *e, int32_t o, tn_sim_status_t *st)
{
    tn_sim_pkt_t *p = e->pkt;
    if (!(e->now < p->o_free[o])) {
        return 0;
    }
    if (!p->o_txev[o]) {
        p->o_txev[o] = 1;
        if (tn_sim_pkt_push(e, p->o_free[o], PE_TXDONE, o)) {
            *st = TN_SIM_ERR_NOMEM;
        }
    }
    return 1;
}

/* Switch output o, free, sends packet k, out of its queue qi of nq (the
 * round-robin goes on after it); the buffer k leaves frees when its tail
 * has left. */
static tn_sim_status_t pkt_out_send(tn_sim_eng_t *e, int32_t o, int32_t k, int32_t qi, int32_t nq)
{
    tn_sim_pkt_t *p = e->pkt;
    p->o_rr[o] = qi + 1 < nq ? qi + 1 : 0;
    int32_t in = p->pk[k].link;
    int vin = p->pk[k].vc;
    tn_sim_status_t st = tn_sim_pkt_send(e, o, k);
    if (st == TN_SIM_OK && p->o_npk[o] > 0) {
        tn_sim_pkt_busy(e, o, &st);  /* the next one goes when this one is out */
    }
    double out = p->pk[k].tail - e->topo->lat[o];   /* its tail has left */
    int32_t g = p->pk[k].ecn & TN_SIM_PKT_MCAST ? p->pk_grp[k] : -1;
    if (g >= 0) {
        /* a multicast copy: the buffer it shares frees when the last
         * one's tail has left */
        p->pk_grp[k] = -1;
        p->grp_out[g] = out > p->grp_out[g] ? out : p->grp_out[g];
        if (--p->grp_left[g] > 0) {
            return st;
        }
        out = p->grp_out[g];
        p->grp_left[g] = p->gfree;
        p->gfree = g;
    }
    if (st == TN_SIM_OK) {
        st = p->c.pfc ? tn_sim_pfc_drain(e, in, vin, p->pk[k].bytes)
                      : tn_sim_pkt_credit(e, in, vin, p->pk[k].bytes, out);
    }
    return st;
}

/* Switch output o is free: round-robin over its (input, VC) queues for
 * a head packet the next buffer has room for. */
tn_sim_status_t tn_sim_pkt_out_kick(tn_sim_eng_t *e, int32_t o)
{
    tn_sim_pkt_t *p = e->pkt;
    tn_sim_status_t st = TN_SIM_OK;
    if (p->o_npk[o] == 0 || tn_sim_pkt_busy(e, o, &st)) {
        return st;
    }
    const tn_sim_topo_t *t = e->topo;
    int32_t sw = t->peer[t->peer_port[o]] - t->n_ep;
    int32_t nq = tn_sim_sw_deg(t, sw) * p->nvc;
    int64_t base = p->voq_off[o];
    int32_t start = p->o_rr[o];
    for (int32_t j = 0; j < nq; j++) {
        int32_t qi = start + j < nq ? start + j : start + j - nq;
        int32_t k = p->voq_head[base + qi];
        if (k < 0) {
            continue;
        }
        size_t ov = (size_t)o * (size_t)p->nvc + p->pk[k].h.vc;
        if (p->o_credit[ov] < p->pk[k].bytes || p->o_paused[ov]) {
            continue;
        }
        p->voq_head[base + qi] = p->pk[k].next;
        p->o_npk[o]--;
        p->o_qbytes[o] -= p->pk[k].bytes;
        if (e->heat.queues) {
            tn_sim_heat_queue(&e->heat, sw, e->now, -p->pk[k].bytes);
        }
        return pkt_out_send(e, o, k, qi, nq);
    }
    return TN_SIM_OK;
}

/* Packet k, arrived at switch node v on link (its input i_in), goes to
 * output o: at once when o is idle with nothing queued and room
 * downstream, else into its VOQ.  fill: it joins the ingress queue
 * (PFC's count; a multicast's copies after the first do not). */
static tn_sim_status_t pkt_forward(tn_sim_eng_t *e, int32_t k, int32_t v, int32_t link, int32_t i_in, int32_t o,
                                   int fill)
{
    tn_sim_pkt_t *p = e->pkt;
    const tn_sim_topo_t *t = e->topo;
    int32_t sw = v - t->n_ep;
    int32_t rel = i_in * p->nvc + p->pk[k].vc;  /* its queue among o's */
    size_t ov = (size_t)o * (size_t)p->nvc + p->pk[k].h.vc;
    if (p->c.pfc && fill) {
        tn_sim_status_t st = tn_sim_pfc_fill(e, link, p->pk[k].vc, p->pk[k].bytes);
        if (st != TN_SIM_OK) {
            return st;
        }
    }
    if (p->o_npk[o] == 0 && !(e->now < p->o_free[o]) &&
        !(p->o_credit[ov] < p->pk[k].bytes) && !p->o_paused[ov]) {
        /* o idle with nothing queued and room downstream: the queue
         * and the round-robin would pick k at once; it leaves without
         * touching the VOQs (their counts are integers: no rounding
         * skipped).  The heatmap hears the same as if it had queued. */
        if (e->heat.queues) {
            tn_sim_heat_queue(&e->heat, sw, e->now, p->pk[k].bytes);
            tn_sim_heat_queue(&e->heat, sw, e->now, -p->pk[k].bytes);
        }
        return pkt_out_send(e, o, k, rel, (t->port_off[v + 1] - t->port_off[v]) * p->nvc);
    }
    int64_t qi = p->voq_off[o] + rel;
    p->pk[k].next = -1;
    if (p->voq_head[qi] < 0) {
        p->voq_head[qi] = k;
    } else {
        p->pk[p->voq_tail[qi]].next = k;
    }
    p->voq_tail[qi] = k;
    p->o_npk[o]++;
    p->o_qbytes[o] += p->pk[k].bytes;
    if (e->heat.queues) {
        tn_sim_heat_queue(&e->heat, sw, e->now, p->pk[k].bytes);
    }
    return tn_sim_pkt_out_kick(e, o);
}

/* Multicast packet k arrived at switch node v on link: a copy onto each
 * of v's links in its message's tree (k itself the first), sharing the
 * buffer it arrived in (pkt_out_send frees it with the last). */
static tn_sim_status_t pkt_replicate(tn_sim_eng_t *e, int32_t k, int32_t v, int32_t link, int32_t i_in)
{
    tn_sim_pkt_t *p = e->pkt;
    const tn_sim_topo_t *t = e->topo;
    const int32_t *tr = p->m_tree[p->pk[k].msg];
    int32_t n = tr[0];
    const int32_t *tl = tr + 1, *tv = tr + 1 + n;
    /* v's tree links: the run of tl (sorted) inside v's ports */
    int32_t lo = 0, hi = n;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (tl[mid] < t->port_off[v]) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    int32_t end = lo;
    while (end < n && tl[end] < t->port_off[v + 1]) {
        end++;
    }
    int32_t nc = end - lo;
    if (nc == 0) {
        return TN_SIM_ERR_INTERNAL;   /* a switch of the tree with no way on */
    }
    if (p->c.pfc) {
        tn_sim_status_t st = tn_sim_pfc_fill(e, link, p->pk[k].vc, p->pk[k].bytes);
        if (st != TN_SIM_OK) {
            return st;
        }
    }
    if (nc == 1) {
        p->pk_grp[k] = -1;
        p->pk[k].h.vc = (uint8_t)tv[lo];
        return pkt_forward(e, k, v, link, i_in, tl[lo], 0);
    }
    int32_t g = pkt_grp_alloc(p, nc);
    if (g < 0) {
        return TN_SIM_ERR_NOMEM;
    }
    /* every copy made before any leaves (a send moves k's fields on) */
    int32_t copies[64], *cp = nc <= 64 ? copies : malloc(sizeof(int32_t) * (size_t)nc);
    if (cp == NULL) {
        return TN_SIM_ERR_NOMEM;
    }
    cp[0] = k;
    for (int32_t j = 1; j < nc; j++) {
        int32_t c = tn_sim_pkt_alloc(e);
        if (c < 0) {
            if (cp != copies) {
                free(cp);
            }
            return TN_SIM_ERR_NOMEM;
        }
        p->pk[c] = p->pk[k];
        p->pkts++;
        cp[j] = c;
    }
    tn_sim_status_t st = TN_SIM_OK;
    for (int32_t j = 0; j < nc; j++) {
        p->pk_grp[cp[j]] = g;
        p->pk[cp[j]].h.vc = (uint8_t)tv[lo + j];
    }
    for (int32_t j = 0; j < nc && st == TN_SIM_OK; j++) {
        st = pkt_forward(e, cp[j], v, link, i_in, tl[lo + j], 0);
    }
    if (cp != copies) {
        free(cp);
    }
    return st;
}

void tn_sim_pkt_prefetch(tn_sim_eng_t *e, unsigned kind, int32_t id)
{
    tn_sim_pkt_t *p = e->pkt;
    switch (kind - TN_SIM_PKT_EV0) {
    case PE_ARR:
        if (id >= 0 && id < p->pcap) {
            __builtin_prefetch(&p->pk[id]);
        }
        break;
    case PE_CREDIT:
        if (id >= 0 && id < e->topo->n_port) {
            __builtin_prefetch(&p->o_credit[(size_t)id * (size_t)p->nvc]);
        }
        break;
    default:
        break;
    }
}

tn_sim_status_t tn_sim_pkt_event(tn_sim_eng_t *e, unsigned kind, int32_t id, uint32_t arg)
{
    tn_sim_pkt_t *p = e->pkt;
    const tn_sim_topo_t *t = e->topo;
    switch (kind - TN_SIM_PKT_EV0) {
    case PE_ARR: {
        int32_t k = id, link = p->pk[k].link, v = t->peer[link];
        p->hops++;
        if (v < t->n_ep) {
            return tn_sim_pkt_sink(e, k);
        }
        int32_t sw = v - t->n_ep;
        int32_t i_in = t->peer_port[link] - t->port_off[v];
        if (p->pk[k].ecn & TN_SIM_PKT_MCAST) {
            return pkt_replicate(e, k, v, link, i_in);
        }
        int32_t o = tn_sim_route_next(e->rt, sw, &p->pk[k].h, pkt_load, p);
        if (o < t->port_off[v] || o >= t->port_off[v + 1] || t->peer[o] < 0) {
            return TN_SIM_ERR_ROUTE;
        }
        if (p->c.cc == TN_SIM_CC_DCQCN && !(p->pk[k].ecn & TN_SIM_PKT_ECN) &&
            tn_sim_cc_mark(p, p->o_qbytes[o])) {
            p->pk[k].ecn |= TN_SIM_PKT_ECN;
            p->marks++;
        }
        return pkt_forward(e, k, v, link, i_in, o, 1);
    }
    case PE_TXDONE:
        p->o_txev[id] = 0;
        return id < t->n_ep ? tn_sim_pkt_nic_kick(e, id) : tn_sim_pkt_out_kick(e, id);
    case PE_CREDIT: {
        int32_t o = id;
        p->o_credit[(size_t)o * (size_t)p->nvc + (arg & 15u)] += (double)(arg >> 4);
        return o < t->n_ep ? tn_sim_pkt_nic_kick(e, o) : tn_sim_pkt_out_kick(e, o);
    }
    case PE_NIC:
        if (p->nic_wake[id] == e->now) {
            p->nic_wake[id] = -1;
        }
        return tn_sim_pkt_nic_kick(e, id);
    case PE_CNP:
    case PE_FB: {
        int32_t f = p->pk[id].msg;
        if (f < p->mcap && p->pk[id].pay == (int32_t)p->m_gen[f] && p->m_left[f] > 0) {
            double line = t->bw[e->f_src[f]];
            if (kind - TN_SIM_PKT_EV0 == PE_CNP) {
                tn_sim_cc_cnp(p, f, e->now, line);
            } else {
                tn_sim_cc_acc_feedback(p, f, p->pk_cc[id].stamp);
            }
        }
        tn_sim_pkt_free(p, id);
        return TN_SIM_OK;
    }
    case PE_PAUSE:
    case PE_RESUME: {
        int32_t o = p->pk[id].link;
        p->o_paused[(size_t)o * (size_t)p->nvc + p->pk[id].vc] = kind - TN_SIM_PKT_EV0 == PE_PAUSE;
        tn_sim_pkt_free(p, id);
        return o < t->n_ep ? tn_sim_pkt_nic_kick(e, o) : tn_sim_pkt_out_kick(e, o);
    }
    default:
        return TN_SIM_ERR_INTERNAL;
    }
}
