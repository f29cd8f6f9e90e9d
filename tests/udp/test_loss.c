/* udp_loss: the RTT estimator (RFC 6298 arithmetic), RTO clamps and
 * backoff (kept until a valid sample: Karn), packet-threshold and
 * time-threshold loss detection with its timer, RTO expiry marking only
 * what has been out for an RTO, and tail-loss probes before the timeout. */
#include "xport/udp/udp_loss.h"

#include <stdio.h>
#include <string.h>

#include "../check.h"

#define US 1000ull
#define MS 1000000ull

static void test_rtt(void)
{
    tn_udp_loss_t l;
    tn_udp_loss_init(&l, 2 * MS, 200 * US, 100 * MS, 3);
    CHECK(tn_udp_loss_rto(&l) == 2 * MS);
    tn_udp_loss_on_rtt(&l, 100 * US);
    CHECK(l.srtt_ns == 100 * US && l.rttvar_ns == 50 * US && l.min_rtt_ns == 100 * US);
    CHECK(tn_udp_loss_rto(&l) == 300 * US);          /* 100 + 4 * 50 */
    tn_udp_loss_on_rtt(&l, 200 * US);
    CHECK(l.rttvar_ns == (3 * 50 * US + 100 * US) / 4);   /* 62.5 us */
    CHECK(l.srtt_ns == (7 * 100 * US + 200 * US) / 8);    /* 112.5 us */
    CHECK(l.min_rtt_ns == 100 * US && l.latest_rtt_ns == 200 * US);
    /* a stable RTT: rttvar decays, the RTO settles on rto_min */
    for (int i = 0; i < 100; i++) {
        tn_udp_loss_on_rtt(&l, 20 * US);
    }
    CHECK(l.srtt_ns >= 20 * US && l.srtt_ns < 21 * US);
    CHECK(tn_udp_loss_rto(&l) == 200 * US);
    /* backoff doubles up to rto_max */
    l.backoff = 3;
    CHECK(tn_udp_loss_rto(&l) == 1600 * US);
    l.backoff = 16;
    CHECK(tn_udp_loss_rto(&l) == 100 * MS);
    /* a huge RTT is clamped to rto_max */
    tn_udp_loss_t m;
    tn_udp_loss_init(&m, 2 * MS, 200 * US, 10 * MS, 3);
    tn_udp_loss_on_rtt(&m, 50 * MS);
    CHECK(tn_udp_loss_rto(&m) == 10 * MS);
}

/* n packets sent 10 us apart from t = 0 on alternating rails. */
static void send_n(tn_udp_sentmap_t *sm, int n)
{
    uint64_t psn;
    for (int i = 0; i < n; i++) {
        CHECK(tn_udp_sentmap_push(sm, 8, &psn) != NULL);
        tn_udp_sentmap_on_send(sm, psn, i % 2, (uint64_t)i * 10 * US);
    }
}

static void test_thresholds(void)
{
    tn_udp_loss_t l;
    tn_udp_sentmap_t sm;
    tn_udp_loss_init(&l, 2 * MS, 200 * US, 100 * MS, 3);
    CHECK(tn_udp_sentmap_init(&sm, 32, 8, 1) == TN_OK);
    send_n(&sm, 10);                         /* psn 1..10 = txseq 1..10, sent 0..90 us */
    /* psn 7 is sacked at 460 us: rtt sample 400 us; 1..4 overtaken by 3+ */
    tn_udp_acked_t acc = { 0 };
    uint64_t now = 460 * US;
    tn_udp_sentmap_sack(&sm, 7, 8, &acc);
    tn_udp_loss_on_ack(&l, &acc, now);
    CHECK(l.srtt_ns == 400 * US && l.largest_acked_txseq == 7);
    tn_udp_loss_result_t res = { 0 };
    CHECK(tn_udp_loss_detect(&l, &sm, now, &res) == 4);    /* 1..4: 4 + 3 <= 7 */
    CHECK(res.lost == 4 && res.largest_lost_txseq == 4 && res.rail_lost[0] == 2 &&
          res.rail_lost[1] == 2);
    CHECK(tn_udp_sentmap_next_lost(&sm)->psn == 1 && tn_udp_sentmap_nlost(&sm) == 4);
    /* 5 and 6 wait for the time threshold: sent at 40/50 us + 9/8 * 400 us */
    uint64_t t5 = 40 * US + 450 * US;
    CHECK(l.loss_time == t5);
    CHECK(tn_udp_loss_deadline(&l, &sm) == t5);
    memset(&res, 0, sizeof(res));
    CHECK(tn_udp_loss_on_timer(&l, &sm, t5 - 1, &res) == TN_UDP_LOSS_TIMER_NONE);
    CHECK(tn_udp_loss_on_timer(&l, &sm, t5, &res) == TN_UDP_LOSS_TIMER_EARLY);
    CHECK(res.lost == 1 && tn_udp_sentmap_next_lost(&sm)->psn == 1);
    CHECK(l.loss_time == t5 + 10 * US);      /* now psn 6 */
    CHECK(tn_udp_loss_on_timer(&l, &sm, t5 + 10 * US, &res) == TN_UDP_LOSS_TIMER_EARLY);
    CHECK(res.lost == 2 && tn_udp_sentmap_nlost(&sm) == 6);
    /* 8..10 were sent after 7: nothing acked after them, only the RTO */
    CHECK(l.loss_time == UINT64_MAX);
    uint64_t rto = tn_udp_loss_rto(&l);
    CHECK(rto == 400 * US + 4 * 200 * US);
    /* the RTO runs from the last ack that acknowledged something (460 us),
     * not from when psn 8 left (70 us) */
    CHECK(tn_udp_loss_deadline(&l, &sm) == 460 * US + rto);
    tn_udp_sentmap_fini(&sm);
}

/* A receiver working through a long queue acks steadily, yet the oldest
 * unacked packet may have been out longer than an RTO: the timer restarts
 * on every ack of new data (RFC 6298 5.3), so that is no timeout. */
static void test_rto_restart(void)
{
    tn_udp_loss_t l;
    tn_udp_sentmap_t sm;
    tn_udp_loss_init(&l, 1 * MS, 200 * US, 100 * MS, 3);
    CHECK(tn_udp_sentmap_init(&sm, 32, 8, 1) == TN_OK);
    send_n(&sm, 4);                          /* sent at 0, 10, 20, 30 us */
    tn_udp_acked_t acc = { 0 };
    tn_udp_sentmap_ack(&sm, 2, &acc);        /* psn 1 at 900 us */
    tn_udp_loss_on_ack(&l, &acc, 900 * US);
    uint64_t rto = tn_udp_loss_rto(&l);
    CHECK(rto == 900 * US + 4 * 450 * US);
    CHECK(tn_udp_loss_deadline(&l, &sm) == 900 * US + rto);
    tn_udp_loss_result_t res = { 0 };
    /* psn 2 has been out 10 us + rto by now: not yet a timeout */
    CHECK(tn_udp_loss_on_timer(&l, &sm, 10 * US + rto, &res) == TN_UDP_LOSS_TIMER_NONE);
    CHECK(tn_udp_loss_on_timer(&l, &sm, 900 * US + rto - 1, &res) == TN_UDP_LOSS_TIMER_NONE);
    /* silence for an RTO after the last progress: now it is */
    CHECK(tn_udp_loss_on_timer(&l, &sm, 900 * US + rto, &res) == TN_UDP_LOSS_TIMER_RTO);
    CHECK(res.lost == 3);
    tn_udp_sentmap_fini(&sm);
}

static void test_rto(void)
{
    tn_udp_loss_t l;
    tn_udp_sentmap_t sm;
    tn_udp_loss_init(&l, 1 * MS, 200 * US, 100 * MS, 3);
    CHECK(tn_udp_sentmap_init(&sm, 32, 8, 1) == TN_OK);
    CHECK(tn_udp_loss_deadline(&l, &sm) == UINT64_MAX);
    send_n(&sm, 4);                          /* sent at 0, 10, 20, 30 us */
    tn_udp_loss_result_t res = { 0 };
    CHECK(tn_udp_loss_deadline(&l, &sm) == 1 * MS);
    CHECK(tn_udp_loss_on_timer(&l, &sm, 1 * MS - 1, &res) == TN_UDP_LOSS_TIMER_NONE);
    /* at 1 ms the first has been out for an RTO: all four are presumed lost */
    CHECK(tn_udp_loss_on_timer(&l, &sm, 1 * MS, &res) == TN_UDP_LOSS_TIMER_RTO);
    CHECK(res.lost == 4 && l.backoff == 1 && tn_udp_loss_rto(&l) == 2 * MS);
    CHECK(tn_udp_sentmap_inflight(&sm) == 0 && tn_udp_sentmap_nlost(&sm) == 4);
    CHECK(tn_udp_sentmap_next_lost(&sm)->psn == 1);
    CHECK(tn_udp_sentmap_get(&sm, 4)->flags & TN_UDP_SM_F_RTO);
    /* psn 3 and 4 are resent; 2 is still waiting */
    tn_udp_sentmap_on_send(&sm, 3, 0, 1050 * US);
    tn_udp_sentmap_on_send(&sm, 4, 0, 1050 * US);
    CHECK(tn_udp_loss_deadline(&l, &sm) == 1050 * US + 2 * MS);
    /* the retransmission of psn 1 is acked: no RTT sample (Karn), backoff stays */
    tn_udp_sentmap_on_send(&sm, 1, 1, 1100 * US);
    tn_udp_acked_t acc = { 0 };
    tn_udp_sentmap_ack(&sm, 2, &acc);
    tn_udp_loss_on_ack(&l, &acc, 1200 * US);
    CHECK(acc.newly == 1 && !acc.has_rtt && l.srtt_ns == 0 && l.backoff == 1);
    /* psn 2 (never resent, its first transmission) acked: the timeout was
     * premature for it, and its sample ends the backoff */
    memset(&acc, 0, sizeof(acc));
    tn_udp_sentmap_sack(&sm, 2, 3, &acc);
    tn_udp_loss_on_ack(&l, &acc, 1210 * US);
    CHECK(acc.has_rtt && acc.spurious_rto == 1 && acc.spurious == 0);
    CHECK(l.srtt_ns == 1200 * US && l.backoff == 0);
    /* an ack that covers a first transmission and, later sent, a
     * retransmission: the ack was prompted by the retransmission, no sample */
    tn_udp_loss_t k;
    tn_udp_loss_init(&k, 1 * MS, 200 * US, 100 * MS, 3);
    tn_udp_sentmap_t sm2;
    CHECK(tn_udp_sentmap_init(&sm2, 32, 8, 1) == TN_OK);
    send_n(&sm2, 2);
    tn_udp_sentmap_mark_lost(&sm2, tn_udp_sentmap_oldest(&sm2));
    tn_udp_sentmap_on_send(&sm2, 1, 0, 5 * MS);
    memset(&acc, 0, sizeof(acc));
    tn_udp_sentmap_ack(&sm2, 3, &acc);
    tn_udp_loss_on_ack(&k, &acc, 5 * MS + 100 * US);
    CHECK(acc.newly == 2 && !acc.has_rtt && k.srtt_ns == 0);
    tn_udp_sentmap_fini(&sm2);
    tn_udp_sentmap_fini(&sm);
}

/* Reordering: a packet declared lost by the packet threshold and acked
 * before it was resent raises the threshold to the distance seen; one
 * declared lost by a timeout does not. */
static void test_reorder(void)
{
    tn_udp_loss_t l;
    tn_udp_sentmap_t sm;
    tn_udp_loss_init(&l, 2 * MS, 200 * US, 100 * MS, 3);
    CHECK(tn_udp_sentmap_init(&sm, 64, 8, 1) == TN_OK);
    send_n(&sm, 20);
    tn_udp_acked_t acc = { 0 };
    tn_udp_sentmap_sack(&sm, 8, 9, &acc);          /* txseq 8 acked */
    tn_udp_loss_on_ack(&l, &acc, 100 * US);
    tn_udp_loss_result_t res = { 0 };
    CHECK(tn_udp_loss_detect(&l, &sm, 100 * US, &res) >= 5);   /* 1..5 at least */
    CHECK(l.reorder == 3 && l.time_shift == 3);
    /* psn 2 arrives after all (its only copy): it was 6 places late */
    memset(&acc, 0, sizeof(acc));
    tn_udp_sentmap_sack(&sm, 2, 3, &acc);
    CHECK(acc.spurious == 1 && acc.spurious_txseq == 2);
    tn_udp_loss_on_ack(&l, &acc, 110 * US);
    CHECK(l.reorder == 7 && l.time_shift == 2 && l.spurious == 1);
    tn_udp_sentmap_fini(&sm);

    /* a timeout's losses acked later say nothing about reordering */
    tn_udp_loss_init(&l, 2 * MS, 200 * US, 100 * MS, 3);
    CHECK(tn_udp_sentmap_init(&sm, 64, 8, 1) == TN_OK);
    send_n(&sm, 5);
    memset(&res, 0, sizeof(res));
    CHECK(tn_udp_loss_on_timer(&l, &sm, 50 * MS, &res) == TN_UDP_LOSS_TIMER_RTO);
    CHECK(res.lost == 5);
    memset(&acc, 0, sizeof(acc));
    tn_udp_sentmap_ack(&sm, 6, &acc);
    CHECK(acc.newly == 5 && acc.spurious == 0);
    tn_udp_loss_on_ack(&l, &acc, 51 * MS);
    CHECK(l.reorder == 3 && l.time_shift == 3);
    tn_udp_sentmap_fini(&sm);
}

/* Tail-loss probes: the first max_probes expiries resend only the two
 * oldest, back off, and leave the rest in flight; the next one is a full
 * timeout; an ack of anything new re-arms the probes; a probed packet acked
 * before its probe left is no sign of reordering. */
static void test_probes(void)
{
    tn_udp_loss_t l;
    tn_udp_sentmap_t sm;
    tn_udp_loss_init(&l, 1 * MS, 200 * US, 100 * MS, 3);
    l.max_probes = 2;
    CHECK(tn_udp_sentmap_init(&sm, 32, 8, 1) == TN_OK);
    send_n(&sm, 6);                          /* psn 1..6 sent at 0..50 us */
    tn_udp_loss_result_t res = { 0 };
    CHECK(tn_udp_loss_on_timer(&l, &sm, 1 * MS - 1, &res) == TN_UDP_LOSS_TIMER_NONE);
    CHECK(tn_udp_loss_on_timer(&l, &sm, 1 * MS, &res) == TN_UDP_LOSS_TIMER_PROBE);
    CHECK(res.lost == 2 && l.backoff == 1 && l.probes == 1);
    CHECK(tn_udp_sentmap_inflight(&sm) == 4 && tn_udp_sentmap_nlost(&sm) == 2);
    CHECK(tn_udp_sentmap_next_lost(&sm)->psn == 1);
    CHECK(tn_udp_sentmap_get(&sm, 2)->flags == TN_UDP_SM_F_PROBE);
    CHECK(tn_udp_sentmap_get(&sm, 3)->state == TN_UDP_SM_INFLIGHT);
    /* the probes leave; the next expiry counts from psn 3 (20 us), backed off */
    tn_udp_sentmap_on_send(&sm, 1, 0, 1100 * US);
    tn_udp_sentmap_on_send(&sm, 2, 0, 1100 * US);
    CHECK(tn_udp_sentmap_get(&sm, 2)->flags == 0);
    CHECK(tn_udp_loss_deadline(&l, &sm) == 20 * US + 2 * MS);
    memset(&res, 0, sizeof(res));
    CHECK(tn_udp_loss_on_timer(&l, &sm, 20 * US + 2 * MS, &res) == TN_UDP_LOSS_TIMER_PROBE);
    CHECK(res.lost == 2 && l.backoff == 2 && l.probes == 2);
    CHECK(tn_udp_sentmap_inflight(&sm) == 4 && tn_udp_sentmap_nlost(&sm) == 2);
    /* still nothing: the third expiry (psn 5, sent at 40 us, RTO now 4 ms)
     * is a timeout, and everything in flight is lost */
    memset(&res, 0, sizeof(res));
    CHECK(tn_udp_loss_deadline(&l, &sm) == 40 * US + 4 * MS);
    CHECK(tn_udp_loss_on_timer(&l, &sm, 40 * US + 4 * MS, &res) == TN_UDP_LOSS_TIMER_RTO);
    CHECK(res.lost == 4 && l.backoff == 3);
    CHECK(tn_udp_sentmap_inflight(&sm) == 0 && tn_udp_sentmap_nlost(&sm) == 6);
    CHECK(tn_udp_sentmap_get(&sm, 5)->flags & TN_UDP_SM_F_RTO);
    tn_udp_sentmap_fini(&sm);

    /* an ack of anything new re-arms the probes */
    tn_udp_loss_init(&l, 1 * MS, 200 * US, 100 * MS, 3);
    l.max_probes = 1;
    CHECK(tn_udp_sentmap_init(&sm, 32, 8, 1) == TN_OK);
    send_n(&sm, 8);
    memset(&res, 0, sizeof(res));
    CHECK(tn_udp_loss_on_timer(&l, &sm, 1 * MS, &res) == TN_UDP_LOSS_TIMER_PROBE);
    CHECK(l.probes == 1);
    /* psn 1 and 2 are acked before their probes left: late, not reordered */
    tn_udp_acked_t acc = { 0 };
    tn_udp_sentmap_ack(&sm, 3, &acc);
    CHECK(acc.newly == 2 && acc.spurious == 0 && acc.spurious_rto == 0);
    tn_udp_loss_on_ack(&l, &acc, 1100 * US);
    CHECK(l.probes == 0 && l.reorder == 3 && l.time_shift == 3 && l.spurious == 0);
    CHECK(tn_udp_sentmap_nlost(&sm) == 0 && tn_udp_sentmap_inflight(&sm) == 6);
    /* the timer restarted at that ack, and probes again */
    memset(&res, 0, sizeof(res));
    uint64_t d = tn_udp_loss_deadline(&l, &sm);
    CHECK(d == 1100 * US + tn_udp_loss_rto(&l));
    CHECK(tn_udp_loss_on_timer(&l, &sm, d, &res) == TN_UDP_LOSS_TIMER_PROBE);
    CHECK(res.lost == 2 && tn_udp_sentmap_next_lost(&sm)->psn == 3);
    tn_udp_sentmap_fini(&sm);
}

int main(void)
{
    test_rtt();
    test_thresholds();
    test_rto();
    test_rto_restart();
    test_reorder();
    test_probes();
    return tn_check_report("test_loss");
}
