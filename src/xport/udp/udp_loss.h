/* Loss recovery state of one connection's send side: the RTT estimator,
 * the retransmission timeout, and loss detection over the sent map.
 *
 * RTT (RFC 6298): the first sample sets srtt = r, rttvar = r / 2; later ones
 * rttvar = 3/4 rttvar + 1/4 |srtt - r|, srtt = 7/8 srtt + 1/8 r.  A sample
 * comes from an ack whose most recent newly acked transmission was a first
 * transmission (Karn; and an ack prompted by a retransmission would make the
 * original's sample too long).  RTO = srtt + max(4 rttvar, 1 us) + the
 * peer's ack delay (a steady RTT drives rttvar to zero, yet a delayed ack
 * may come ack_delay later than the samples say) -- rto_init before any
 * sample -- clamped to [rto_min, rto_max], then doubled per consecutive
 * timeout (clamped again) until the next RTT sample.
 *
 * Loss (as QUIC does it, counted in txseq so that retransmissions, which
 * keep their psn, are ordered by when they left).  Once a transmission sent
 * after it has been acked, a transmission is lost
 *   - at once if dupthresh transmissions sent after it were acked (packet
 *     threshold), else
 *   - when it has been out for 9/8 max(srtt, latest rtt) (time threshold: a
 *     small window never sees dupthresh later acks); a timer covers the wait.
 * Both thresholds adapt to reordering: when a packet declared lost (and not
 * yet resent) is acked after all, the packet threshold grows to the
 * reordering distance seen (up to TN_UDP_LOSS_MAX_REORDER) and the time
 * threshold steps from 9/8 to 5/4 of a round trip.
 * When nothing later is acked, only the RTO finds it: when the oldest
 * transmission has been out for an RTO and no ack has acknowledged anything
 * new for an RTO either (the timer restarts on progress, as TCP's does,
 * RFC 6298 5.3: a receiver still working through a long queue is not
 * silent, however old the oldest packet is), everything in flight is declared
 * lost (the window collapses too, so the oldest go out first).
 *
 * Tail-loss probes (max_probes > 0): the first max_probes expiries in a row
 * (no ack acknowledging anything new in between) are probes instead: only
 * the TN_UDP_LOSS_PROBE_PKTS oldest transmissions are resent (flagged
 * TN_UDP_SM_F_PROBE), the rest stay in flight, and the window is not
 * touched; the backoff doubles as for a timeout.  The probe's ack then lets
 * the packet and time thresholds find any other losses, so a lost tail, or
 * a receiver that was late to ack, costs one round trip instead of a
 * collapsed window.  Only when the probes go unanswered too does the full
 * timeout above follow.  Detection walks the sent
 * map's inflight list from its oldest end and stops at the first survivor,
 * so its cost is the number of packets declared lost. */
#ifndef TN_XPORT_UDP_UDP_LOSS_H
#define TN_XPORT_UDP_UDP_LOSS_H

#include <stdint.h>
#include "xport/udp/udp_sentmap.h"

#define TN_UDP_LOSS_RAILS 8          /* rails counted in a loss result */
#define TN_UDP_LOSS_MAX_BACKOFF 16
#define TN_UDP_LOSS_MAX_REORDER 256  /* largest adaptive packet threshold */
#define TN_UDP_LOSS_PROBE_PKTS 2     /* transmissions one tail-loss probe resends */

typedef struct {
    uint64_t srtt_ns, rttvar_ns;     /* 0 until the first sample */
    uint64_t min_rtt_ns;             /* UINT64_MAX until the first sample */
    uint64_t latest_rtt_ns;
    uint64_t rto_init_ns, rto_min_ns, rto_max_ns;
    uint64_t peer_ack_delay_ns;      /* longest the peer delays an ack (default 0) */
    uint32_t dupthresh;              /* configured packet threshold */
    uint32_t reorder;                /* packet threshold in use (>= dupthresh) */
    uint32_t time_shift;             /* time threshold: rtt + rtt >> time_shift */
    uint64_t spurious;               /* losses declared that were reordering */
    uint32_t backoff;                /* consecutive timeouts and probes */
    uint32_t max_probes;             /* tail-loss probes before a timeout (0: none) */
    uint32_t probes;                 /* probes since the last ack of anything new */
    uint64_t largest_acked_txseq;    /* of first transmissions; 0: none */
    uint64_t loss_time;              /* time-threshold timer; UINT64_MAX: none */
    uint64_t progress_ns;            /* last ack that acknowledged anything new */
} tn_udp_loss_t;

/* What one detection pass declared lost. */
typedef struct {
    uint32_t lost;
    uint64_t largest_lost_txseq;
    uint32_t rail_lost[TN_UDP_LOSS_RAILS];
    uint32_t rail_lost_first[TN_UDP_LOSS_RAILS];   /* of which first transmissions */
} tn_udp_loss_result_t;

/* What tn_udp_loss_on_timer found. */
enum {
    TN_UDP_LOSS_TIMER_NONE = 0,      /* nothing was due */
    TN_UDP_LOSS_TIMER_EARLY,         /* time-threshold losses (not a timeout) */
    TN_UDP_LOSS_TIMER_RTO,           /* the retransmission timeout expired */
    TN_UDP_LOSS_TIMER_PROBE,         /* a tail-loss probe is due (not a timeout) */
};

void tn_udp_loss_init(tn_udp_loss_t *l, uint64_t rto_init_ns, uint64_t rto_min_ns,
                      uint64_t rto_max_ns, uint32_t dupthresh);

/* Feed one RTT sample. */
void tn_udp_loss_on_rtt(tn_udp_loss_t *l, uint64_t rtt_ns);

/* Account an ack (what tn_udp_sentmap_ack/sack accumulated) received at now:
 * RTT sample (which ends the backoff), largest acked txseq, reordering. */
void tn_udp_loss_on_ack(tn_udp_loss_t *l, const tn_udp_acked_t *acc, uint64_t now);

/* The current RTO, backoff included. */
uint64_t tn_udp_loss_rto(const tn_udp_loss_t *l);

/* Packet and time thresholds at now: mark lost what later acked
 * transmissions overtook, and arm the time-threshold timer for the next
 * candidate.  Adds to *res; returns how many it marked. */
uint32_t tn_udp_loss_detect(tn_udp_loss_t *l, tn_udp_sentmap_t *sm, uint64_t now,
                            tn_udp_loss_result_t *res);

/* When tn_udp_loss_on_timer has work: the time-threshold timer or the RTO
 * of the oldest transmission in flight; UINT64_MAX if neither. */
uint64_t tn_udp_loss_deadline(const tn_udp_loss_t *l, const tn_udp_sentmap_t *sm);

/* Run the timers at now.  EARLY: the time threshold declared losses.  RTO:
 * the oldest transmission has been out for an RTO; everything in flight was
 * declared lost (flagged TN_UDP_SM_F_RTO) and the backoff doubled.  PROBE:
 * the same expiry while probes remain: the oldest TN_UDP_LOSS_PROBE_PKTS
 * transmissions were queued for resending (flagged TN_UDP_SM_F_PROBE; they
 * are in *res->lost but are no evidence of loss) and the backoff doubled.
 * Adds to *res. */
int tn_udp_loss_on_timer(tn_udp_loss_t *l, tn_udp_sentmap_t *sm, uint64_t now,
                         tn_udp_loss_result_t *res);

#endif
