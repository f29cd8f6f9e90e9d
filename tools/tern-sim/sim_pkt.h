/* The packet-level engine: the flow engine's messages (sim_flow.h) cut
 * into MTU packets that cross the fabric hop by hop, on the same
 * topology, routers, workload sources, event queue and statistics.
 *
 * Model (docs/sim.md, "The packet-level model"):
 *  - a message of B bytes becomes ceil(B / mtu) packets, each carrying
 *    up to mtu payload bytes plus hdr header bytes on the wire;
 *  - an endpoint NIC serves its messages round-robin, one packet at a
 *    time, each message paced at its congestion-control rate (none: the
 *    line rate); the packet's route is chosen per packet from the
 *    message's begun header (ECMP hashes and Valiant groups are per
 *    message, adaptive choices per packet at every switch);
 *  - switches are input-queued with virtual output queues: the input
 *    buffer of each port and VC holds buf bytes, its packets wait in one
 *    FIFO per (output, input, VC), so one blocked output does not block
 *    the others (no head-of-line blocking across outputs);
 *  - an output port sends one packet at a time at its bandwidth; when it
 *    is free it picks, round-robin over its (input, VC) queues, the first
 *    head packet for which the next node's buffer has room (credits);
 *  - credits per (link, VC) count the free bytes of the buffer at the far
 *    end; a packet takes its wire bytes on departure and gives them back
 *    a link latency after its tail has left that buffer; endpoints sink
 *    packets at once;
 *  - virtual cut-through: a packet's head reaches the next switch one
 *    link latency plus hdr / bw after it started, and may leave again at
 *    once; its tail cannot leave before it has arrived;
 *  - VCs are the router's (h->vc); the fat-tree needs 1, tori 2
 *    (datelines), dragonflies 2-3.
 *  - a multicast (hardware replication) follows the tree the flow engine
 *    builds for it (each destination's route from the source, grafted
 *    where it meets the tree): a packet arriving at a switch of the tree
 *    is copied onto each of the switch's tree links, each copy queued,
 *    credited and sent as a packet of its own; the input buffer it
 *    arrived in frees when the last copy's tail has left.  The message
 *    is delivered when every destination has all its bytes.  No
 *    congestion control with it (the run refuses cc other than none).
 *  - PFC (pfc = 1) replaces credits: an ingress queue (link, VC) that
 *    reaches xoff bytes sends a pause to the link's sender (it stops
 *    that VC a latency later), one that falls to xon a resume; nothing is
 *    dropped: a queue above buf counts as an overflow (too little
 *    headroom for the link's round trip).
 * Congestion control, per message (sim_pkt_cc.c): none, dcqcn, acc.
 *
 * Counting: a "hop event" is one packet reaching a node (a switch or its
 * destination endpoint): the figure of merit is hop events per second.
 *
 * Determinism: one seeded generator (ECN marks), events tie on sequence
 * numbers, round-robin pointers; same configuration, same output.
 * Memory: flat arrays grown by doubling; packets come from a pool with a
 * free list (no allocation per packet once the pool has its size);
 * credits travel in their events. */
#ifndef TN_SIM_PKT_H
#define TN_SIM_PKT_H

#include <stdint.h>

#include "sim_route.h"
#include "sim_rng.h"
#include "sim_status.h"

typedef struct tn_sim_eng tn_sim_eng_t;

/* Packet flags. */
#define TN_SIM_PKT_ECN   1u  /* congestion experienced */
#define TN_SIM_PKT_FIRST 2u  /* the message's first packet */
#define TN_SIM_PKT_LAST  4u  /* its last */
#define TN_SIM_PKT_MCAST 8u  /* a multicast's (copies follow its tree; pk_grp holds their group) */

typedef enum { TN_SIM_CC_NONE, TN_SIM_CC_DCQCN, TN_SIM_CC_ACC } tn_sim_cc_t;

typedef struct {
    int32_t mtu;          /* payload bytes per packet */
    int32_t hdr;          /* header bytes per packet */
    int32_t buf;          /* input buffer bytes per port and VC */
    int cc;               /* tn_sim_cc_t */
    double kmin, kmax;    /* dcqcn: ECN ramp over the bytes queued for an output */
    double pmax;          /* dcqcn: marking probability at kmax */
    int pfc;              /* PFC instead of credits (credit flow control off) */
    double xoff, xon;     /* pfc: pause above, resume below this many bytes in an ingress queue */
} tn_sim_pkt_conf_t;

/* A pool entry: a packet, or a CNP, rate-stamp or PFC token.
 * Everything a hop reads sits in these 64 bytes (one cache line). */
typedef struct {
    tn_sim_rhdr_t h;      /* its route; h.vc: the VC on the next link */
    double tail;          /* when its tail has arrived where it is */
    int32_t next;         /* next in its VOQ or in the free list */
    int32_t msg;          /* engine flow id */
    int32_t bytes, pay;   /* on the wire; payload (CNP, FB: the message's generation) */
    int32_t link;         /* the port it was last sent on (tokens: the link they are about) */
    uint8_t vc;           /* its VC on that link */
    uint8_t ecn;          /* TN_SIM_PKT_* flags */
} tn_sim_pkt_ent_t;

/* ACC only: the sender's rate and the stamp it collects. */
typedef struct {
    double rate, stamp;
} tn_sim_pkt_cc_t;

typedef struct tn_sim_pkt {
    tn_sim_pkt_conf_t c;
    const tn_sim_topo_t *topo;
    const tn_sim_router_t *rt;
    int nvc;
    tn_sim_rng_t rng;
    /* packet pool (also CNP, rate-stamp and PFC tokens): one cache line per
     * packet; what only ACC reads apart */
    int32_t pcap, pfree;
    tn_sim_pkt_ent_t *pk;
    tn_sim_pkt_cc_t *pk_cc;
    /* per output port */
    /* a link is busy until o_free; its serialization end is an event only
     * when something waits for it (o_txev: one is pending) */
    double *o_free;
    uint8_t *o_txev;
    int32_t *o_rr, *o_npk;
    double *o_credit;     /* [port * nvc + vc] */
    double *o_qbytes;     /* bytes waiting in the VOQs for this output */
    double *o_share;      /* acc: this link's fair share, bytes/ns */
    /* acc: flows whose first packet crossed and last did not yet; this
     * period's bytes and bytes / rate of flows held below the share
     * elsewhere; the period's start */
    double *o_cnt, *o_sum, *o_nc, *o_max, *o_t0;
    /* VOQs of a switch output: deg * nvc FIFOs at voq_off[port] */
    int64_t *voq_off;     /* [n_port]; -1 for endpoint ports */
    int32_t *voq_head, *voq_tail;
    /* pfc, per (link, VC): the ingress queue at its far end, whether that
     * end has sent a pause, whether the link is paused */
    double *in_occ;
    uint8_t *in_psent, *o_paused;
    /* NICs */
    int32_t *nic_cur;     /* a message of the ring, -1 */
    double *nic_wake;     /* pending wake-up time, -1 none */
    /* messages (engine flow ids) */
    int32_t mcap;
    int32_t *m_rn, *m_rp; /* NIC ring */
    uint32_t *m_gen;
    double *m_left, *m_recv, *m_tnext;
    /* multicast: the tree (NULL for a unicast): n, then its n links in
     * port order, then their n VCs; the destinations it reaches (1 for a
     * unicast) */
    int32_t **m_tree;
    int32_t *m_ndst;
    /* copies of one arriving packet: their replication group ([pcap],
     * -1 none; read only for TN_SIM_PKT_MCAST packets), and per group the
     * copies yet to leave the switch (a free group holds the next free one) */
    int32_t *pk_grp;
    int32_t *grp_left;
    double *grp_out;      /* when the latest copy's tail has left */
    int32_t gcap, gfree;
    tn_sim_rhdr_t *m_h;
    /* congestion control state per message */
    double *m_rc, *m_rt, *m_alpha, *m_tcut, *m_tcnp, *m_stamp;
    int32_t *m_steps;
    /* counters */
    uint64_t hops, pkts, marks, cnps, pauses, overflows;
    double occ_max;       /* pfc: the fullest ingress queue seen, bytes */
} tn_sim_pkt_t;

tn_sim_status_t tn_sim_pkt_init(tn_sim_pkt_t *p, const tn_sim_topo_t *topo,
                                const tn_sim_router_t *rt, const tn_sim_pkt_conf_t *c,
                                uint64_t seed);
void tn_sim_pkt_fini(tn_sim_pkt_t *p);

/* The engine hands over message f (route begun in h, bytes > 0, src !=
 * dst) at e->now. */
tn_sim_status_t tn_sim_pkt_start(tn_sim_eng_t *e, int32_t f, const tn_sim_rhdr_t *h);
/* The engine hands over multicast f at e->now: its tree's n links
 * (distinct; the first one the source's) and their VCs, in any order,
 * reaching ndst destinations. */
tn_sim_status_t tn_sim_pkt_start_mcast(tn_sim_eng_t *e, int32_t f, const int32_t *links, const uint8_t *vcs,
                                       int32_t n, int32_t ndst);
/* The engine's event kinds from TN_SIM_PKT_EV0 on go here, with the
 * event's id and arg. */
#define TN_SIM_PKT_EV0 8
tn_sim_status_t tn_sim_pkt_event(tn_sim_eng_t *e, unsigned kind, int32_t id, uint32_t arg);
/* An event of this kind and id comes soon: fetch what it will read into
 * the cache (a hint; no effect on results). */
void tn_sim_pkt_prefetch(tn_sim_eng_t *e, unsigned kind, int32_t id);

/* Congestion control (sim_pkt_cc.c).  A message's sending rate now
 * (bytes/ns; INFINITY: unpaced). */
double tn_sim_cc_rate(tn_sim_pkt_t *p, int32_t f, double now, double line);
/* A fresh message on a line of bandwidth line. */
void tn_sim_cc_begin(tn_sim_pkt_t *p, int32_t f, double line);
/* DCQCN: a CNP reached the sender of f. */
void tn_sim_cc_cnp(tn_sim_pkt_t *p, int32_t f, double now, double line);
/* DCQCN: does a packet entering a queue of q bytes get marked? */
int tn_sim_cc_mark(tn_sim_pkt_t *p, double q);
/* ACC: a packet of bytes from a message sending at rate leaves on port
 * o at now; the link's fair share lowers *stamp. */
void tn_sim_cc_acc_stamp(tn_sim_pkt_t *p, int32_t o, double now, double rate, double bytes,
                         unsigned flags, double *stamp);
/* ACC: a rate stamp came back to the sender of f. */
void tn_sim_cc_acc_feedback(tn_sim_pkt_t *p, int32_t f, double stamp);

#endif
