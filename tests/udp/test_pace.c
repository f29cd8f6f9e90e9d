/* udp_pace: no pacing without a rate; a burst after idle, then one packet
 * per interval; long-run rate equals gain * cwnd / srtt, also for intervals
 * below a nanosecond. */
#include "xport/udp/udp_pace.h"

#include <stdio.h>

#include "../check.h"

/* Send greedily from start for span ns, calling at every ns the pacer
 * allows; returns the packets sent. */
static uint64_t greedy(tn_udp_pace_t *p, uint64_t start, uint64_t span)
{
    uint64_t now = start, n = 0;
    while (now < start + span) {
        uint64_t t = tn_udp_pace_next(p, now);
        if (t > now) {
            now = t;
            continue;
        }
        tn_udp_pace_on_send(p, now);
        n++;
    }
    return n;
}

int main(void)
{
    tn_udp_pace_t p;
    tn_udp_pace_init(&p, 4);
    CHECK(tn_udp_pace_next(&p, 1000) == 1000);     /* no rate: never holds back */
    tn_udp_pace_on_send(&p, 1000);
    CHECK(tn_udp_pace_next(&p, 1000) == 1000);

    /* 100 packets per 100 us at gain 1: one per microsecond */
    tn_udp_pace_set_rate(&p, 100, 100000, 4);
    uint64_t now = 5000000;
    for (int i = 0; i < 4; i++) {                   /* the burst */
        CHECK(tn_udp_pace_next(&p, now) == now);
        tn_udp_pace_on_send(&p, now);
    }
    CHECK(tn_udp_pace_next(&p, now) == now + 1000);
    tn_udp_pace_on_send(&p, now + 1000);
    CHECK(tn_udp_pace_next(&p, now + 1000) == now + 2000);
    /* long run: 1 ms gives 1000 packets (plus the burst) */
    uint64_t n = greedy(&p, 10000000, 1000000);
    CHECK(n >= 1000 && n <= 1004);
    /* gain 2 (slow start) doubles it */
    tn_udp_pace_set_rate(&p, 100, 100000, 8);
    n = greedy(&p, 20000000, 1000000);
    CHECK(n >= 2000 && n <= 2004);
    /* 1024 packets per 20 us at gain 1.25: 64 packets per microsecond, an
     * interval of 0.39 ns */
    tn_udp_pace_set_rate(&p, 1024, 20000, 5);
    n = greedy(&p, 30000000, 100000);
    CHECK(n >= 6400 - 10 && n <= 6400 + 10);
    tn_udp_pace_set_rate(&p, 10, 0, 4);             /* no srtt: off */
    CHECK(tn_udp_pace_next(&p, 7) == 7);
    return tn_check_report("test_pace");
}
