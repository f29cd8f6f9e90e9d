/* udp_cc: slow start, congestion avoidance, one halving per loss episode,
 * no growth during recovery, timeouts (ssthresh halved once per episode),
 * and the clamps. */
#include "xport/udp/udp_cc.h"

#include <stdio.h>

#include "../check.h"

int main(void)
{
    tn_udp_cc_t cc;
    tn_udp_cc_init(&cc, 10, 2, 100);
    CHECK(cc.cwnd == 10 && cc.ssthresh == 100 && tn_udp_cc_in_slow_start(&cc));
    uint64_t txseq = 0;
    /* slow start: +1 per acked packet */
    tn_udp_cc_on_ack(&cc, 10, txseq += 10);
    CHECK(cc.cwnd == 20);
    tn_udp_cc_on_ack(&cc, 20, txseq += 20);
    CHECK(cc.cwnd == 40);
    /* a loss: halved once */
    CHECK(tn_udp_cc_on_loss(&cc, txseq - 5, txseq + 1) == 1);
    CHECK(cc.cwnd == 20 && cc.ssthresh == 20 && cc.episodes == 1);
    uint64_t marker = txseq + 1;
    /* more losses of packets sent before the marker: same episode */
    CHECK(tn_udp_cc_on_loss(&cc, txseq - 2, txseq + 1) == 0);
    CHECK(tn_udp_cc_on_loss(&cc, txseq, txseq + 1) == 0);
    CHECK(cc.cwnd == 20);
    /* acks of packets from before the marker: no growth */
    tn_udp_cc_on_ack(&cc, 15, marker - 1);
    CHECK(cc.cwnd == 20);
    /* an ack from after the marker ends recovery: congestion avoidance,
     * +1 per cwnd acked packets */
    txseq = marker + 5;
    tn_udp_cc_on_ack(&cc, 19, txseq);
    CHECK(cc.cwnd == 20 && !tn_udp_cc_in_slow_start(&cc));
    tn_udp_cc_on_ack(&cc, 1, txseq);
    CHECK(cc.cwnd == 21);
    tn_udp_cc_on_ack(&cc, 21 + 22, txseq);
    CHECK(cc.cwnd == 23);
    /* a loss sent after the marker: a new episode */
    CHECK(tn_udp_cc_on_loss(&cc, marker + 1, txseq + 1) == 1);
    CHECK(cc.cwnd == 11 && cc.episodes == 2);
    /* timeout: cwnd to the minimum, ssthresh halved */
    tn_udp_cc_on_timeout(&cc, txseq + 10, 1);
    CHECK(cc.cwnd == 2 && cc.ssthresh == 5 && cc.timeouts == 1);
    /* a second timeout of the same episode keeps ssthresh */
    tn_udp_cc_on_timeout(&cc, txseq + 12, 1);
    CHECK(cc.cwnd == 2 && cc.ssthresh == 5);
    /* recovery ends with an ack from after the marker: slow start to ssthresh,
     * then the surplus counts towards avoidance */
    tn_udp_cc_on_ack(&cc, 2, txseq + 11);
    CHECK(cc.cwnd == 2);
    tn_udp_cc_on_ack(&cc, 2, txseq + 13);
    CHECK(cc.cwnd == 4);
    tn_udp_cc_on_ack(&cc, 5, txseq + 14);
    CHECK(cc.cwnd == 5);                     /* 4 -> 5 (ssthresh); 4 acked towards avoidance */
    tn_udp_cc_on_ack(&cc, 1, txseq + 14);
    CHECK(cc.cwnd == 6);                     /* the fifth: +1 */
    /* clamps */
    for (int i = 0; i < 1000; i++) {
        tn_udp_cc_on_ack(&cc, 100, txseq + 20);
    }
    CHECK(cc.cwnd == 100);
    for (uint64_t i = 0; i < 20; i++) {
        tn_udp_cc_on_loss(&cc, txseq + 100 + 10 * i, txseq + 105 + 10 * i);
    }
    CHECK(cc.cwnd == 2 && cc.ssthresh == 2);
    tn_udp_cc_t z;
    tn_udp_cc_init(&z, 0, 0, 0);
    CHECK(z.cwnd == 1 && z.cwnd_min == 1 && z.cwnd_max == 1);
    tn_udp_cc_init(&z, 500, 4, 64);
    CHECK(z.cwnd == 64);
    /* a timeout before any RTT sample: the window falls, ssthresh stays,
     * and slow start climbs straight back */
    tn_udp_cc_init(&z, 16, 2, 64);
    tn_udp_cc_on_timeout(&z, 20, 0);
    CHECK(z.cwnd == 2 && z.ssthresh == 64 && z.timeouts == 1);
    tn_udp_cc_on_ack(&z, 2, 21);
    tn_udp_cc_on_ack(&z, 4, 25);
    tn_udp_cc_on_ack(&z, 8, 33);
    CHECK(z.cwnd == 16 && tn_udp_cc_in_slow_start(&z));
    return tn_check_report("test_cc");
}
