/* The udp transport's clock: monotonic nanoseconds, read several times on
 * every message's path (RTT samples, timers, pacing).
 *
 * CLOCK_MONOTONIC through the vDSO costs 20-30 ns on the machines we
 * measure on, the cycle counter 10 ns.  Where the counter is invariant (a
 * constant rate through power states) and the kernel itself keeps time
 * with it (clocksource "tsc": it found the CPUs' counters in step), a
 * reading is the last real one plus the ticks since, scaled.  A real
 * reading is taken again when the counter has run for TN_UDP_CLOCK_SPAN_NS
 * since the last one or went backwards, so a scale error never adds up
 * past that span (a real reading is bracketed by two counter readings and
 * only anchors when they are close); until the scale is known (TN_UDP_CLOCK_CAL_NS after the
 * first reading) every reading is a real one.  Values never go backwards.
 *
 * The scaling is pure (tn_udp_clock_anchor, tn_udp_clock_scaled), tested
 * with scripted counter and clock values; tn_udp_clock_now reads the
 * hardware. */
#ifndef TN_XPORT_UDP_UDP_CLOCK_H
#define TN_XPORT_UDP_UDP_CLOCK_H

#include <stdint.h>

#define TN_UDP_CLOCK_SPAN_NS 100000ull      /* scaled readings at most this far */
#define TN_UDP_CLOCK_CAL_NS  10000000ull    /* first scale after this long */
#define TN_UDP_CLOCK_PAIR_TICKS 10000ull    /* a real reading takes far fewer ticks */

typedef struct {
    int      use_tsc;       /* 0: every reading is CLOCK_MONOTONIC */
    double   ns_per_tick;   /* 0: scale not known yet */
    uint64_t span;          /* ticks a scaled reading may be from the anchor */
    uint64_t tsc0, ns0;     /* anchor: the last real reading, the counter then */
    uint64_t cal_tsc, cal_ns; /* the first real reading (0: none yet) */
    uint64_t last;          /* the largest value returned */
} tn_udp_clock_t;

/* Decide whether the counter may be used (CPU and kernel, as above). */
void tn_udp_clock_init(tn_udp_clock_t *c);

/* A real reading ns taken between counter values tsc1 and tsc2: the new
 * anchor (at their midpoint), which refines the scale, unless more than
 * TN_UDP_CLOCK_PAIR_TICKS passed between them (the thread was
 * descheduled: the pair would put the anchor off by that much).  Returns
 * the value to use (ns, or the last one returned if that was later). */
uint64_t tn_udp_clock_anchor(tn_udp_clock_t *c, uint64_t tsc1, uint64_t ns, uint64_t tsc2);

/* The time at counter value tsc, scaled from the anchor; 0 when a real
 * reading is needed (no scale yet, the counter went backwards, or it ran
 * past the span). */
uint64_t tn_udp_clock_scaled(tn_udp_clock_t *c, uint64_t tsc);

/* The clock.  Not thread-safe: callers hold the runtime lock. */
uint64_t tn_udp_clock_now(tn_udp_clock_t *c);

/* CLOCK_MONOTONIC itself, for callers that do not hold the lock (a
 * reading may trail tn_udp_clock_now's by the scale's error, about a
 * microsecond at most). */
uint64_t tn_udp_clock_real(void);

#endif
