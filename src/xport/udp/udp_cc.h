/* Congestion control: Reno-style AIMD in packets.
 *
 * Slow start (cwnd < ssthresh): +1 per acked packet.  Congestion
 * avoidance: +1 per cwnd acked packets.  A loss halves cwnd (ssthresh =
 * cwnd = cwnd / 2) once per loss episode: the episode starts at the loss
 * and covers every transmission sent before it (txseq < the marker taken
 * then); cwnd does not grow until a transmission sent after the marker is
 * acked.  A timeout sets ssthresh = cwnd / 2 (not again for repeated timeouts
 * of one episode, nor before any RTT sample) and cwnd = cwnd_min.  cwnd stays
 * in [cwnd_min, cwnd_max].
 *
 * A premature timeout (a descheduled peer, a delay spike) is undone: the
 * first ack after a timeout tells whether packets the timeout declared lost
 * had arrived after all (F-RTO's idea); if so, cwnd and ssthresh return to
 * their values before the timeout.
 *
 * Sans I/O: the caller feeds acks, losses and timeouts with transmission
 * sequence numbers (txseq, see udp_sentmap.h). */
#ifndef TN_XPORT_UDP_UDP_CC_H
#define TN_XPORT_UDP_UDP_CC_H

#include <stdint.h>

typedef struct {
    uint32_t cwnd, ssthresh;
    uint32_t cwnd_min, cwnd_max;
    uint32_t acked;                 /* packets acked towards the next +1 */
    uint64_t recovery_end;          /* episode marker (txseq); 0: none yet */
    int      in_recovery;
    int      after_timeout;         /* the episode began with a timeout */
    int      verdict_pending;       /* no ack since the last timeout */
    uint32_t prior_cwnd, prior_ssthresh;   /* before the timeout */
    uint64_t episodes, timeouts, undone;
} tn_udp_cc_t;

void tn_udp_cc_init(tn_udp_cc_t *cc, uint32_t cwnd_init, uint32_t cwnd_min, uint32_t cwnd_max);

/* n packets newly acked; largest_acked_txseq: the largest txseq ever acked. */
void tn_udp_cc_on_ack(tn_udp_cc_t *cc, uint32_t n, uint64_t largest_acked_txseq);

/* A transmission with txseq lost_txseq was declared lost; next_txseq is the
 * txseq the next transmission will get.  Returns 1 if this began an episode. */
int tn_udp_cc_on_loss(tn_udp_cc_t *cc, uint64_t lost_txseq, uint64_t next_txseq);

/* The retransmission timer expired.  path_known: an RTT has been measured;
 * before that (the peer may not even be up yet) the window still falls to
 * cwnd_min, to bound what is resent, but ssthresh stays, so slow start
 * climbs straight back. */
void tn_udp_cc_on_timeout(tn_udp_cc_t *cc, uint64_t next_txseq, int path_known);

/* An ack acknowledged something new; spurious: it acknowledged packets a
 * timeout declared lost and that were never resent.  The first such call
 * after a timeout decides whether the timeout is undone (returns 1 then). */
int tn_udp_cc_timeout_verdict(tn_udp_cc_t *cc, int spurious);

static inline int tn_udp_cc_in_slow_start(const tn_udp_cc_t *cc)
{
    return cc->cwnd < cc->ssthresh;
}

#endif
