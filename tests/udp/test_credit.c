/* udp_credit (the receive window): in-order delivery exactly once, the
 * reorder buffer, duplicates / stale / beyond-window verdicts, the credit
 * arithmetic (window - arrived-not-delivered), SACK ranges, the lent
 * message staying valid until the next deliver, and random arrival orders
 * within the window over many wraps of the ring. */
#include "xport/udp/udp_credit.h"

#include <stdio.h>
#include <string.h>

static int failures;
#define CHECK(cond)                                                                \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                            \
        }                                                                          \
    } while (0)

static uint64_t rng = 4242;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static tn_udp_rx_t put(tn_udp_credit_t *w, uint64_t psn)
{
    return tn_udp_credit_insert(w, psn, &psn, sizeof(psn));
}

static void test_basic(void)
{
    tn_udp_credit_t w;
    CHECK(tn_udp_credit_init(&w, 8, 64, 1) == TN_OK);
    size_t len;
    CHECK(tn_udp_credit_deliver(&w, &len) == NULL);
    CHECK(tn_udp_credit_credits(&w) == 8 && tn_udp_credit_limit(&w) == 9);
    CHECK(put(&w, 1) == TN_UDP_RX_INORDER && w.ack == 2);
    CHECK(put(&w, 1) == TN_UDP_RX_STALE);
    CHECK(put(&w, 3) == TN_UDP_RX_OOO && w.ack == 2);
    CHECK(put(&w, 3) == TN_UDP_RX_DUP);
    CHECK(put(&w, 5) == TN_UDP_RX_OOO);
    CHECK(put(&w, 9) == TN_UDP_RX_BEYOND);            /* limit is del + window = 9 */
    CHECK(tn_udp_credit_buffered(&w) == 3);
    CHECK(tn_udp_credit_credits(&w) == 7);            /* 1 arrived, not delivered */
    tn_udp_range_t r[4];
    CHECK(tn_udp_ranges_highest(&w.sacks, r, 4) == 2);
    CHECK(r[0].start == 5 && r[0].end == 6 && r[1].start == 3 && r[1].end == 4);
    CHECK(put(&w, 2) == TN_UDP_RX_INORDER && w.ack == 4);   /* jumps over 3 */
    CHECK(tn_udp_ranges_highest(&w.sacks, r, 4) == 1 && r[0].start == 5);
    CHECK(tn_udp_credit_credits(&w) == 5);
    const void *m = tn_udp_credit_deliver(&w, &len);
    uint64_t v;
    CHECK(m != NULL && len == 8);
    memcpy(&v, m, 8);
    CHECK(v == 1);
    /* still lent: credits unchanged until the next deliver releases it */
    CHECK(tn_udp_credit_credits(&w) == 5);
    m = tn_udp_credit_deliver(&w, &len);
    memcpy(&v, m, 8);
    CHECK(v == 2 && tn_udp_credit_credits(&w) == 6);
    m = tn_udp_credit_deliver(&w, &len);
    memcpy(&v, m, 8);
    CHECK(v == 3);
    CHECK(tn_udp_credit_deliver(&w, &len) == NULL);   /* 4 missing */
    CHECK(tn_udp_credit_credits(&w) == 8 && tn_udp_credit_limit(&w) == 12);
    CHECK(put(&w, 11) == TN_UDP_RX_OOO);              /* now within the window */
    tn_udp_credit_release(&w);
    tn_udp_credit_fini(&w);
}

/* A window whose receiver never delivers: credits drop to zero, the ring
 * never takes more than window packets. */
static void test_full(void)
{
    tn_udp_credit_t w;
    CHECK(tn_udp_credit_init(&w, 16, 8, 1) == TN_OK);
    for (uint64_t p = 16; p >= 1; p--) {
        CHECK(put(&w, p) == (p == 1 ? TN_UDP_RX_INORDER : TN_UDP_RX_OOO));
    }
    CHECK(w.ack == 17 && tn_udp_credit_credits(&w) == 0);
    CHECK(put(&w, 17) == TN_UDP_RX_BEYOND);
    CHECK(w.slots.nalloc == 16);
    size_t len;
    for (int i = 0; i < 16; i++) {
        CHECK(tn_udp_credit_deliver(&w, &len) != NULL);
    }
    CHECK(tn_udp_credit_deliver(&w, &len) == NULL);
    CHECK(tn_udp_credit_credits(&w) == 16);
    CHECK(put(&w, 32) == TN_UDP_RX_OOO);
    tn_udp_credit_fini(&w);
}

/* Random arrival (with duplicates) of psns within the credits, delivery at
 * random moments: every psn comes out once, in order. */
static void test_random(void)
{
    tn_udp_credit_t w;
    CHECK(tn_udp_credit_init(&w, 64, 8, 1) == TN_OK);
    uint64_t next_out = 1, sent_hi = 1;
    size_t len;
    int bad = 0;
    for (int step = 0; step < 300000 && next_out < 50000; step++) {
        uint64_t r = next_rand() % 100;
        if (r < 60) {
            /* a sender keeps psns below ack + credits */
            uint64_t limit = w.ack + tn_udp_credit_credits(&w);
            uint64_t hi = sent_hi + 4 < limit ? sent_hi + 4 : limit;
            if (hi <= w.ack) {
                continue;
            }
            uint64_t p = w.ack + next_rand() % (hi - w.ack);
            tn_udp_rx_t v = put(&w, p);
            bad += v == TN_UDP_RX_BEYOND || v == TN_UDP_RX_NOMEM;
            if (p >= sent_hi) {
                sent_hi = p + 1;
            }
        } else if (r < 62) {
            bad += put(&w, w.ack + tn_udp_credit_credits(&w)) != TN_UDP_RX_BEYOND;
        } else {
            const void *m;
            while ((m = tn_udp_credit_deliver(&w, &len)) != NULL && next_rand() % 8) {
                uint64_t v;
                memcpy(&v, m, 8);
                bad += v != next_out++ || len != 8;
            }
            if (m != NULL) {
                uint64_t v;
                memcpy(&v, m, 8);
                bad += v != next_out++;
            }
        }
        bad += tn_udp_credit_buffered(&w) > 64;
        bad += w.slots.nalloc - w.slots.nfree != tn_udp_credit_buffered(&w);   /* the lent one counts */
    }
    CHECK(bad == 0);
    CHECK(next_out >= 50000);
    tn_udp_credit_fini(&w);
}

/* Lent inserts: an in-order payload is handed out from the caller's buffer
 * (no copy); an out-of-order one is copied; a lent payload still
 * undelivered when the next packet comes in is copied first, so the caller
 * may then reuse its buffer. */
static void test_lent(void)
{
    tn_udp_credit_t w;
    CHECK(tn_udp_credit_init(&w, 8, 64, 1) == TN_OK);
    char buf[3][16];
    size_t len;
    memcpy(buf[0], "first", 6);
    CHECK(tn_udp_credit_insert_lent(&w, 1, buf[0], 6) == TN_UDP_RX_INORDER);
    const void *m = tn_udp_credit_deliver(&w, &len);
    CHECK(m == buf[0] && len == 6);             /* straight from the caller's buffer */
    CHECK(tn_udp_credit_deliver(&w, &len) == NULL);

    memcpy(buf[1], "third", 6);                 /* psn 3 before 2: copied */
    CHECK(tn_udp_credit_insert_lent(&w, 3, buf[1], 6) == TN_UDP_RX_OOO);
    memcpy(buf[2], "second", 7);
    CHECK(tn_udp_credit_insert_lent(&w, 2, buf[2], 7) == TN_UDP_RX_INORDER);
    memset(buf[1], 'x', sizeof(buf[1]));        /* the caller reuses its buffers */
    m = tn_udp_credit_deliver(&w, &len);
    CHECK(m == buf[2] && len == 7 && strcmp(m, "second") == 0);
    m = tn_udp_credit_deliver(&w, &len);
    CHECK(m != buf[1] && len == 6 && strcmp(m, "third") == 0);
    CHECK(tn_udp_credit_deliver(&w, &len) == NULL);

    /* not drained before the next input: the lent payload is copied then */
    memcpy(buf[0], "fourth", 7);
    CHECK(tn_udp_credit_insert_lent(&w, 4, buf[0], 7) == TN_UDP_RX_INORDER);
    memcpy(buf[1], "fifth", 6);
    CHECK(tn_udp_credit_insert_lent(&w, 5, buf[1], 6) == TN_UDP_RX_INORDER);
    memset(buf[0], 'y', sizeof(buf[0]));
    m = tn_udp_credit_deliver(&w, &len);
    CHECK(m != buf[0] && len == 7 && strcmp(m, "fourth") == 0);
    m = tn_udp_credit_deliver(&w, &len);
    CHECK(m == buf[1] && strcmp(m, "fifth") == 0);
    CHECK(tn_udp_credit_deliver(&w, &len) == NULL);
    CHECK(w.nlent == 0);
    tn_udp_credit_fini(&w);
}

int main(void)
{
    test_basic();
    test_lent();
    test_full();
    test_random();
    if (failures) {
        fprintf(stderr, "test_credit: %d failures\n", failures);
        return 1;
    }
    printf("test_credit: ok\n");
    return 0;
}
