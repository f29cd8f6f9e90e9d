/* udp_credit (the receive window): in-order delivery exactly once, the
 * reorder buffer, duplicates / stale / beyond-window verdicts, the credit
 * arithmetic (window - arrived-not-delivered), SACK ranges, the lent
 * message staying valid until the next deliver, split messages (a tail
 * kept in place or lent with its head), and random arrival orders within
 * the window over many wraps of the ring. */
#include "xport/udp/udp_credit.h"

#include <stdio.h>
#include <string.h>

#include "../check.h"

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

/* Split inserts: a kept tail is handed out where it is, in order or not
 * (only the head is copied); a lent tail is copied after its head into one
 * slot when its message has to wait. */
static void test_split(void)
{
    tn_udp_credit_t w;
    CHECK(tn_udp_credit_init(&w, 8, 64, 1) == TN_OK);
    char head[4][8], place[4][16], landed[16];
    size_t len, tlen;
    const void *tail;
    memcpy(head[0], "h1", 3);
    memcpy(place[0], "payload-1", 10);
    CHECK(tn_udp_credit_insert_split(&w, 1, head[0], 3, place[0], 10, 1) == TN_UDP_RX_INORDER);
    const void *m = tn_udp_credit_deliver_split(&w, &len, &tail, &tlen);
    CHECK(m == head[0] && len == 3 && tail == place[0] && tlen == 10);
    CHECK(tn_udp_credit_deliver_split(&w, &len, &tail, &tlen) == NULL);

    /* psn 3 (kept) and 4 (lent) before 2: heads copied, 3's tail stays,
     * 4's is copied with its head; the caller then reuses its buffers */
    memcpy(head[1], "h3", 3);
    memcpy(place[1], "payload-3", 10);
    CHECK(tn_udp_credit_insert_split(&w, 3, head[1], 3, place[1], 10, 1) == TN_UDP_RX_OOO);
    memcpy(head[2], "h4", 3);
    memcpy(landed, "payload-4", 10);
    CHECK(tn_udp_credit_insert_split(&w, 4, head[2], 3, landed, 10, 0) == TN_UDP_RX_OOO);
    memset(head, 'x', sizeof(head));
    memset(landed, 'x', sizeof(landed));
    memcpy(head[3], "h2", 3);
    memcpy(place[3], "payload-2", 10);
    CHECK(tn_udp_credit_insert_split(&w, 2, head[3], 3, place[3], 10, 0) == TN_UDP_RX_INORDER);
    m = tn_udp_credit_deliver_split(&w, &len, &tail, &tlen);
    CHECK(m == head[3] && len == 3 && tail == place[3] && tlen == 10);  /* lent, in order */
    m = tn_udp_credit_deliver_split(&w, &len, &tail, &tlen);
    CHECK(m != NULL && m != head[1] && len == 3 && strcmp(m, "h3") == 0);
    CHECK(tail == place[1] && tlen == 10);                                /* kept */
    m = tn_udp_credit_deliver_split(&w, &len, &tail, &tlen);
    CHECK(m != NULL && len == 13 && tail == NULL && tlen == 0);           /* merged */
    CHECK(m != NULL && memcmp(m, "h4\0payload-4", 13) == 0);
    CHECK(tn_udp_credit_deliver_split(&w, &len, &tail, &tlen) == NULL);

    /* a lent tail not delivered before the next input is copied then */
    memcpy(head[0], "h5", 3);
    memcpy(landed, "payload-5", 10);
    CHECK(tn_udp_credit_insert_split(&w, 5, head[0], 3, landed, 10, 0) == TN_UDP_RX_INORDER);
    CHECK(put(&w, 6) == TN_UDP_RX_INORDER);
    memset(landed, 'y', sizeof(landed));
    m = tn_udp_credit_deliver_split(&w, &len, &tail, &tlen);
    CHECK(m != NULL && len == 13 && tail == NULL && memcmp(m, "h5\0payload-5", 13) == 0);
    /* a message that would not fit a slot once merged is refused */
    char big[64] = { 0 };
    CHECK(tn_udp_credit_insert_split(&w, 8, head[0], 3, big, 62, 0) == TN_UDP_RX_NOMEM);
    CHECK(tn_udp_credit_insert_split(&w, 8, head[0], 3, big, 62, 1) == TN_UDP_RX_OOO);
    tn_udp_credit_fini(&w);
}

int main(void)
{
    test_basic();
    test_lent();
    test_split();
    test_full();
    test_random();
    return tn_check_report("test_credit");
}
