/* Pacing: a token bucket that spreads a congestion window's packets over a
 * round trip instead of sending them back to back.
 *
 * The rate is gain * cwnd / srtt packets per second (gain 2 in slow start,
 * 1.25 after, so pacing never holds the window back by itself); up to burst
 * packets may leave at once after an idle period.  Kept as a virtual clock:
 * t_next is when the next packet may leave; sending advances it by one
 * packet interval, and it is never allowed to fall more than burst
 * intervals behind now.  Intervals are kept in 1/256 ns so fast rates (tens
 * of packets per microsecond) stay exact enough. */
#ifndef TN_XPORT_UDP_UDP_PACE_H
#define TN_XPORT_UDP_UDP_PACE_H

#include <stdint.h>

typedef struct {
    uint64_t interval;      /* 1/256 ns per packet; 0: not pacing */
    uint64_t t_next;        /* ns */
    uint32_t t_frac;        /* 1/256 ns beyond t_next */
    uint32_t burst;
} tn_udp_pace_t;

void tn_udp_pace_init(tn_udp_pace_t *p, uint32_t burst);

/* Set the rate from the window and the smoothed RTT (srtt_ns 0: no pacing).
 * gain_x4: gain in quarters (8 = 2.0, 5 = 1.25). */
void tn_udp_pace_set_rate(tn_udp_pace_t *p, uint32_t cwnd, uint64_t srtt_ns, uint32_t gain_x4);

/* Earliest time the next packet may leave (<= now: it may leave now). */
uint64_t tn_udp_pace_next(const tn_udp_pace_t *p, uint64_t now);

/* A packet left at now. */
void tn_udp_pace_on_send(tn_udp_pace_t *p, uint64_t now);

#endif
