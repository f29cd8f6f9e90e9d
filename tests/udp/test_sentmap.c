/* udp_sentmap: psn assignment and capacity, transmission order lists,
 * cumulative and selective acks (Karn: no RTT sample from a retransmitted
 * packet), loss marking and retransmission, slot reuse; messages held by
 * reference (a short head kept per entry without a slot, a long one in a
 * slot, release called once); and a random run checked against a simple
 * model of every entry's state. */
#include "xport/udp/udp_sentmap.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"

static uint64_t rng = 777;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void test_basic(void)
{
    tn_udp_sentmap_t sm;
    CHECK(tn_udp_sentmap_init(&sm, 6, 100, 1) == TN_OK);
    CHECK(tn_udp_sentmap_capacity(&sm) == 8);
    uint64_t psn;
    for (int i = 0; i < 8; i++) {
        char *d = tn_udp_sentmap_push(&sm, 10, &psn);
        CHECK(d != NULL && psn == (uint64_t)i + 1);
        if (d) {
            memset(d, 'a' + i, 10);
        }
    }
    CHECK(tn_udp_sentmap_push(&sm, 10, &psn) == NULL);     /* full */
    CHECK(tn_udp_sentmap_queued(&sm) == 8 && tn_udp_sentmap_inflight(&sm) == 0);
    for (uint64_t p = 1; p <= 5; p++) {
        tn_udp_sentmap_on_send(&sm, p, (int)(p % 2), 100 * p);
    }
    CHECK(sm.nxt == 6 && tn_udp_sentmap_inflight(&sm) == 5 && tn_udp_sentmap_queued(&sm) == 3);
    CHECK(tn_udp_sentmap_oldest(&sm)->psn == 1);
    CHECK(((char *)tn_udp_sentmap_get(&sm, 3)->data)[0] == 'c');

    /* sack 3..4: both leave the inflight list, their bytes are released */
    tn_udp_acked_t acc = { 0 };
    tn_udp_sentmap_sack(&sm, 3, 5, &acc);
    CHECK(acc.newly == 2 && acc.newly_inflight == 2 && acc.has_rtt && acc.rtt_sent_ns == 400);
    CHECK(acc.largest_txseq == 4);
    CHECK(tn_udp_sentmap_inflight(&sm) == 3 && tn_udp_sentmap_get(&sm, 3)->data == NULL);
    /* sacking beyond nxt is clipped; repeating is a no-op */
    memset(&acc, 0, sizeof(acc));
    tn_udp_sentmap_sack(&sm, 3, 100, &acc);
    CHECK(acc.newly == 1 && tn_udp_sentmap_inflight(&sm) == 2);   /* only psn 5 */

    /* psn 1 lost, retransmitted: its ack gives no RTT sample (Karn) */
    tn_udp_sentmap_mark_lost(&sm, tn_udp_sentmap_get(&sm, 1));
    CHECK(tn_udp_sentmap_nlost(&sm) == 1 && tn_udp_sentmap_inflight(&sm) == 1);
    CHECK(tn_udp_sentmap_next_lost(&sm)->psn == 1);
    tn_udp_sentmap_on_send(&sm, 1, 1, 1000);
    CHECK(tn_udp_sentmap_nlost(&sm) == 0 && tn_udp_sentmap_inflight(&sm) == 2);
    CHECK(tn_udp_sentmap_get(&sm, 1)->tx_count == 2);
    /* transmission order: 2 (txseq 2) then 1 (txseq 6) */
    tn_udp_sent_t *o = tn_udp_sentmap_oldest(&sm);
    CHECK(o->psn == 2 && tn_udp_sentmap_next(&sm, o)->psn == 1);
    memset(&acc, 0, sizeof(acc));
    tn_udp_sentmap_ack(&sm, 2, &acc);
    CHECK(acc.newly == 1 && !acc.has_rtt && acc.largest_txseq == 0);
    CHECK(sm.una == 2);
    /* an ack beyond nxt is clipped to nxt */
    memset(&acc, 0, sizeof(acc));
    tn_udp_sentmap_ack(&sm, 50, &acc);
    CHECK(sm.una == 6 && acc.newly == 1 && acc.has_rtt && acc.rtt_sent_ns == 200);
    CHECK(tn_udp_sentmap_inflight(&sm) == 0 && tn_udp_sentmap_outstanding(&sm) == 3);
    /* the ring wraps: five more fit */
    for (int i = 0; i < 5; i++) {
        CHECK(tn_udp_sentmap_push(&sm, 100, &psn) != NULL);
    }
    CHECK(tn_udp_sentmap_push(&sm, 100, &psn) == NULL);
    CHECK(tn_udp_sentmap_push(&sm, 101, &psn) == NULL);    /* larger than a slot */
    CHECK(sm.slots.nalloc <= 8);
    tn_udp_sentmap_fini(&sm);
}

/* Random run against a model. */
#define CAP 64
static void test_random(void)
{
    tn_udp_sentmap_t sm;
    CHECK(tn_udp_sentmap_init(&sm, CAP, 32, 1) == TN_OK);
    static uint8_t state[100000];          /* model state per psn */
    uint64_t now = 0, psn;
    for (int step = 0; step < 200000; step++) {
        now += 10;
        uint64_t r = next_rand() % 100;
        if (r < 30) {
            char *d = tn_udp_sentmap_push(&sm, 8, &psn);
            if (sm.end - 1 - sm.una >= CAP) {
                CHECK(d == NULL);
            }
            if (d != NULL) {
                memcpy(d, &psn, 8);
                state[psn] = TN_UDP_SM_QUEUED;
            }
        } else if (r < 55) {
            tn_udp_sent_t *l = tn_udp_sentmap_next_lost(&sm);
            if (l != NULL && next_rand() % 2) {
                CHECK(state[l->psn] == TN_UDP_SM_LOST);
                tn_udp_sentmap_on_send(&sm, l->psn, 0, now);
                state[l->psn] = TN_UDP_SM_INFLIGHT;
            } else if (sm.nxt < sm.end) {
                uint64_t p = sm.nxt;
                tn_udp_sentmap_on_send(&sm, p, 0, now);
                state[p] = TN_UDP_SM_INFLIGHT;
            }
        } else if (r < 65) {
            tn_udp_sent_t *o = tn_udp_sentmap_oldest(&sm);
            if (o != NULL) {
                tn_udp_sentmap_mark_lost(&sm, o);
                state[o->psn] = TN_UDP_SM_LOST;
            }
        } else if (r < 85 && sm.nxt > sm.una) {
            uint64_t s = sm.una + next_rand() % (sm.nxt - sm.una);
            uint64_t e = s + 1 + next_rand() % 4;
            tn_udp_acked_t acc = { 0 };
            uint32_t expect = 0;
            for (uint64_t p = s; p < e && p < sm.nxt; p++) {
                if (state[p] == TN_UDP_SM_INFLIGHT || state[p] == TN_UDP_SM_LOST) {
                    expect++;
                    state[p] = TN_UDP_SM_SACKED;
                }
            }
            tn_udp_sentmap_sack(&sm, s, e, &acc);
            CHECK(acc.newly == expect);
        } else if (sm.nxt > sm.una) {
            uint64_t a = sm.una + next_rand() % (sm.nxt - sm.una + 1);
            tn_udp_acked_t acc = { 0 };
            uint32_t expect = 0;
            for (uint64_t p = sm.una; p < a; p++) {
                expect += state[p] == TN_UDP_SM_INFLIGHT || state[p] == TN_UDP_SM_LOST;
            }
            tn_udp_sentmap_ack(&sm, a, &acc);
            CHECK(acc.newly == expect && sm.una == a);
        }
        if (sm.end >= sizeof(state) - 10) {
            break;
        }
        /* invariants: list lengths, order and data of every outstanding entry */
        if (step % 97 == 0) {
            uint32_t nin = 0, nlost = 0;
            for (uint64_t p = sm.una; p < sm.end; p++) {
                tn_udp_sent_t *e = tn_udp_sentmap_get(&sm, p);
                CHECK(e->psn == p && e->state == state[p]);
                nin += e->state == TN_UDP_SM_INFLIGHT;
                nlost += e->state == TN_UDP_SM_LOST;
                if (e->state != TN_UDP_SM_SACKED) {
                    CHECK(e->data != NULL && memcmp(e->data, &p, 8) == 0);
                }
            }
            CHECK(nin == tn_udp_sentmap_inflight(&sm) && nlost == tn_udp_sentmap_nlost(&sm));
            uint64_t last = 0;
            uint32_t walked = 0;
            for (tn_udp_sent_t *e = tn_udp_sentmap_oldest(&sm); e; e = tn_udp_sentmap_next(&sm, e)) {
                CHECK(e->txseq > last && e->state == TN_UDP_SM_INFLIGHT);
                last = e->txseq;
                walked++;
            }
            CHECK(walked == nin);
            uint32_t nsacked = 0;
            for (uint64_t p = sm.una; p < sm.end; p++) {
                nsacked += state[p] == TN_UDP_SM_SACKED;
            }
            /* slots in use: one per outstanding entry not yet sacked */
            CHECK(sm.slots.nalloc - sm.slots.nfree == (uint32_t)(sm.end - sm.una) - nsacked);
            if (failures > 10) {
                return;
            }
        }
    }
    CHECK(sm.end > 10000);
    tn_udp_sentmap_fini(&sm);
}

/* By reference: heads up to TN_UDP_SM_HEAD bytes take no slot and keep
 * their bytes while the ring wraps; longer ones take a slot; release comes
 * once per message, at its ack or sack. */
static int released[64];
static void on_release(void *cookie)
{
    released[(intptr_t)cookie]++;
}

static void test_ref(void)
{
    tn_udp_sentmap_t sm;
    CHECK(tn_udp_sentmap_init(&sm, 4, 200, 1) == TN_OK);
    sm.release = on_release;
    static const char ext[1000];
    uint64_t psn;
    int n = 0;
    for (int round = 0; round < 8; round++) {
        for (int i = 0; i < 4; i++, n++) {
            /* every third message a head too long for the entry */
            size_t head = n % 3 == 2 ? TN_UDP_SM_HEAD + 16 : 48;
            unsigned char *d = tn_udp_sentmap_push_ref(&sm, (uint32_t)(head + 100), ext, 100,
                                                       (void *)(intptr_t)n, &psn);
            CHECK(d != NULL && psn == (uint64_t)n + 1);
            if (d != NULL) {
                memset(d, n, head);
            }
        }
        CHECK(tn_udp_sentmap_push_ref(&sm, 148, ext, 100, NULL, &psn) == NULL);  /* full */
        /* slots: only the long heads */
        uint32_t nlong = 0;
        for (uint64_t p = sm.una; p < sm.end; p++) {
            nlong += (p - 1) % 3 == 2;
        }
        CHECK(sm.slots.nalloc - sm.slots.nfree == nlong);
        for (uint64_t p = sm.una; p < sm.end; p++) {
            tn_udp_sent_t *e = tn_udp_sentmap_get(&sm, p);
            size_t head = (p - 1) % 3 == 2 ? TN_UDP_SM_HEAD + 16 : 48;
            CHECK(e->len == head + 100 && e->ext == ext && e->ext_len == 100);
            for (size_t k = 0; k < head; k++) {
                if (((unsigned char *)e->data)[k] != (unsigned char)(p - 1)) {
                    CHECK(!"head bytes kept");
                    break;
                }
            }
            tn_udp_sentmap_on_send(&sm, p, 0, 10 * p);
        }
        /* one sacked, then all acked: release once each */
        tn_udp_acked_t acc = { 0 };
        tn_udp_sentmap_sack(&sm, sm.una + 2, sm.una + 3, &acc);
        CHECK(released[n - 2] == 1);
        tn_udp_sentmap_ack(&sm, sm.end, &acc);
        CHECK(acc.newly == 4 && sm.slots.nalloc == sm.slots.nfree);
    }
    for (int i = 0; i < n; i++) {
        CHECK(released[i] == 1);
    }
    tn_udp_sentmap_fini(&sm);
}

int main(void)
{
    test_basic();
    test_ref();
    test_random();
    return tn_check_report("test_sentmap");
}
