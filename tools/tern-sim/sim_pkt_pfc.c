/* The packet engine's PFC (sim_pkt.h): pause and resume per ingress queue
 * and VC, credit flow control off. */
#include "sim_flow.h"
#include "sim_pkt.h"
#include "sim_pkt_int.h"

/* PFC: a pause or resume for (link, VC) from the link's far end, there a
 * latency later. */
static tn_sim_status_t pfc_signal(tn_sim_eng_t *e, int32_t link, int vc, unsigned kind)
{
    int32_t c = tn_sim_pkt_alloc(e);
    if (c < 0) {
        return TN_SIM_ERR_NOMEM;
    }
    e->pkt->pk[c].link = link;
    e->pkt->pk[c].vc = (uint8_t)vc;
    return tn_sim_pkt_push(e, e->now + e->topo->lat[link], kind, c) ? TN_SIM_ERR_NOMEM : TN_SIM_OK;
}

/* PFC: a packet joined the ingress queue of (link, VC). */
tn_sim_status_t tn_sim_pfc_fill(tn_sim_eng_t *e, int32_t link, int vc, double bytes)
{
    tn_sim_pkt_t *p = e->pkt;
    size_t i = (size_t)link * (size_t)p->nvc + (size_t)vc;
    p->in_occ[i] += bytes;
    if (p->in_occ[i] > p->occ_max) {
        p->occ_max = p->in_occ[i];
    }
    if (p->in_occ[i] > p->c.buf) {
        p->overflows++;
    }
    if (!p->in_psent[i] && p->in_occ[i] >= p->c.xoff) {
        p->in_psent[i] = 1;
        p->pauses++;
        return pfc_signal(e, link, vc, PE_PAUSE);
    }
    return TN_SIM_OK;
}

/* PFC: a packet left the ingress queue of (link, VC). */
tn_sim_status_t tn_sim_pfc_drain(tn_sim_eng_t *e, int32_t link, int vc, double bytes)
{
    tn_sim_pkt_t *p = e->pkt;
    size_t i = (size_t)link * (size_t)p->nvc + (size_t)vc;
    p->in_occ[i] -= bytes;
    if (p->in_psent[i] && p->in_occ[i] <= p->c.xon) {
        p->in_psent[i] = 0;
        return pfc_signal(e, link, vc, PE_RESUME);
    }
    return TN_SIM_OK;
}
