/* Inside the packet engine (sim_pkt.h): what its modules share.
 *  - sim_pkt.c      set-up, the packet pool, links and credits, switch
 *                   outputs, the event dispatch;
 *  - sim_pkt_nic.c  endpoints: NIC round-robin and pacing, sinking;
 *  - sim_pkt_pfc.c  PFC pause and resume;
 *  - sim_pkt_cc.c   congestion control (its calls are in sim_pkt.h).
 * Not for the rest of tern-sim. */
#ifndef TN_SIM_PKT_INT_H
#define TN_SIM_PKT_INT_H

#include "sim_pkt.h"

/* The packet engine's event kinds, from TN_SIM_PKT_EV0 on the queue; the
 * id is a packet or token (ARR, CNP, FB, PAUSE, RESUME), a port (TXDONE;
 * CREDIT, with bytes << 4 | vc in the event's arg) or an endpoint (NIC). */
enum { PE_ARR, PE_TXDONE, PE_CREDIT, PE_NIC, PE_CNP, PE_FB, PE_PAUSE, PE_RESUME };

/* Per-message arrays big enough for flow id need. */
tn_sim_status_t tn_sim_pkt_grow_msgs(tn_sim_pkt_t *p, int32_t need);
/* A pool entry (a packet or a token), -1 out of memory; back to the pool. */
int32_t tn_sim_pkt_alloc(tn_sim_eng_t *e);
void tn_sim_pkt_free(tn_sim_pkt_t *p, int32_t k);
/* An event of the packet engine's kind at t; -1 out of memory. */
int tn_sim_pkt_push(tn_sim_eng_t *e, double t, unsigned kind, int32_t id);
/* Port o sends packet k now (credits taken, head and tail times set). */
tn_sim_status_t tn_sim_pkt_send(tn_sim_eng_t *e, int32_t o, int32_t k);
/* bytes of the buffer at the far end of (link in, vc) free at t: back to
 * the sender a latency later. */
tn_sim_status_t tn_sim_pkt_credit(tn_sim_eng_t *e, int32_t in, int vc, double bytes, double t);
/* 1 if link o is still serializing (a TXDONE event is then pending). */
int tn_sim_pkt_busy(tn_sim_eng_t *e, int32_t o, tn_sim_status_t *st);
/* Switch output o / endpoint ep: send what can be sent now. */
tn_sim_status_t tn_sim_pkt_out_kick(tn_sim_eng_t *e, int32_t o);
tn_sim_status_t tn_sim_pkt_nic_kick(tn_sim_eng_t *e, int32_t ep);
/* Packet k reached its destination endpoint. */
tn_sim_status_t tn_sim_pkt_sink(tn_sim_eng_t *e, int32_t k);
/* PFC: a packet joined / left the ingress queue of (link, vc). */
tn_sim_status_t tn_sim_pfc_fill(tn_sim_eng_t *e, int32_t link, int vc, double bytes);
tn_sim_status_t tn_sim_pfc_drain(tn_sim_eng_t *e, int32_t link, int vc, double bytes);

#endif
