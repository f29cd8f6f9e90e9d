/* udp_clock: scaled readings from scripted counter and clock values (no
 * scale before the calibration time, scale from the first reading, no
 * anchor from a reading the thread was descheduled in, re-anchor past the
 * span or when the counter goes backwards, never backwards in value), and
 * the real clock against CLOCK_MONOTONIC. */
#include "xport/udp/udp_clock.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../check.h"

/* A counter at 3 ticks per ns (3 GHz) that started at 1000 ticks. */
#define TICK(ns) (1000 + 3 * (uint64_t)(ns))

static void test_scaled(void)
{
    tn_udp_clock_t c;
    memset(&c, 0, sizeof(c));
    c.use_tsc = 1;
    uint64_t t0 = 5000000000ull;                    /* first real reading */
    CHECK(tn_udp_clock_anchor(&c, TICK(0), t0, TICK(0)) == t0);
    CHECK(tn_udp_clock_scaled(&c, TICK(100)) == 0);  /* no scale yet */
    /* a real reading before the calibration time gives no scale either */
    tn_udp_clock_anchor(&c, TICK(TN_UDP_CLOCK_CAL_NS / 2), t0 + TN_UDP_CLOCK_CAL_NS / 2,
                        TICK(TN_UDP_CLOCK_CAL_NS / 2));
    CHECK(c.ns_per_tick == 0 && tn_udp_clock_scaled(&c, TICK(TN_UDP_CLOCK_CAL_NS / 2 + 10)) == 0);
    /* a pair with the thread descheduled in between anchors nothing */
    uint64_t at = TN_UDP_CLOCK_CAL_NS;
    tn_udp_clock_anchor(&c, TICK(at - 2000000), t0 + at, TICK(at));
    CHECK(c.ns_per_tick == 0 && c.ns0 == t0 + TN_UDP_CLOCK_CAL_NS / 2);
    /* one taken in 20 ns anchors at the midpoint */
    tn_udp_clock_anchor(&c, TICK(at - 10), t0 + at, TICK(at + 10));
    CHECK(c.tsc0 == TICK(at) && c.ns0 == t0 + at);
    CHECK(c.ns_per_tick > 0.3333 && c.ns_per_tick < 0.3334);
    /* within the span: scaled, to the nanosecond here */
    for (uint64_t d = 0; d < TN_UDP_CLOCK_SPAN_NS; d += 997) {
        uint64_t v = tn_udp_clock_scaled(&c, TICK(at + d));
        CHECK(v + 1 >= t0 + at + d && v <= t0 + at + d + 1);
    }
    /* past the span, or backwards: a real reading is needed */
    CHECK(tn_udp_clock_scaled(&c, TICK(at + TN_UDP_CLOCK_SPAN_NS + 10)) == 0);
    CHECK(tn_udp_clock_scaled(&c, TICK(at) - 1) == 0);
    /* a real reading behind what was returned: values do not go back */
    uint64_t hi = tn_udp_clock_scaled(&c, TICK(at + 50000));
    CHECK(tn_udp_clock_anchor(&c, TICK(at + 50001), t0 + at + 40000, TICK(at + 50001)) == hi);
    CHECK(tn_udp_clock_scaled(&c, TICK(at + 50002)) == hi);
    /* and the scale keeps following the real clock: a counter 1 % faster
     * than assumed is corrected at the next anchor (whole time since the
     * first reading) */
    uint64_t far = 20 * TN_UDP_CLOCK_CAL_NS;
    uint64_t fast = TICK(far) + TICK(far) / 100;
    tn_udp_clock_anchor(&c, fast, t0 + far, fast);
    CHECK(c.ns_per_tick > 0.32 && c.ns_per_tick < 0.3333);
}

static uint64_t real_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The clock itself (counter or not, as this machine allows): monotonic and
 * within a few microseconds of CLOCK_MONOTONIC over 50 ms of readings. */
static void test_real(void)
{
    tn_udp_clock_t c;
    tn_udp_clock_init(&c);
    uint64_t start = real_ns(), prev = 0, worst = 0;
    long n = 0;
    while (real_ns() - start < 50000000ull) {
        uint64_t before = real_ns();
        uint64_t v = tn_udp_clock_now(&c);
        uint64_t after = real_ns();
        CHECK(v >= prev);
        prev = v;
        /* the scale's error over at most one span (100 us): far below 5 us */
        uint64_t lo = before > 5000 ? before - 5000 : 0;
        if (v < lo || v > after + 5000) {
            uint64_t off = v < before ? before - v : v - after;
            worst = off > worst ? off : worst;
        }
        n++;
    }
    if (worst != 0) {
        fprintf(stderr, "clock off by up to %llu ns\n", (unsigned long long)worst);
    }
    CHECK(worst == 0);
    printf("clock: %s, %ld readings\n", c.use_tsc ? "cycle counter" : "CLOCK_MONOTONIC", n);
}

int main(void)
{
    test_scaled();
    test_real();
    return tn_check_report("test_clock");
}
