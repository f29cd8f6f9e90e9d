/* udp_auth and the connection's use of it: key derivation, the tag over
 * every header, and what a receiver without the key, or with another
 * job's, makes of datagrams.
 *
 *   - derivation: deterministic, different per direction and per secret,
 *     first packet numbers in [1, 2^40] (1 without a secret);
 *   - a connection pair on a random secret, in mode auth: messages cross,
 *     starting at the derived packet numbers, delivered once and in order;
 *     every datagram's seq is new (retransmissions included);
 *   - every flipped bit of a datagram is rejected (tag, id or CRC);
 *   - a forged payload with a recomputed CRC (what an attacker who knows
 *     the connection id can make) fails the tag in mode auth, and passes
 *     in mode off (the documented limit of that mode);
 *   - another secret's datagrams carry another connection id;
 *   - a replayed datagram is not delivered twice;
 *   - modes aead and encrypt: the tag covers the payload (sent from the
 *     packet buffer, gathered from the sent map, or by reference), and
 *     encrypt leaves no plaintext on the wire;
 *   - keys rotate every 2^bits datagrams: a receiver takes the epochs
 *     around the newest it authenticated, in any order, and no other;
 *   - TERN_UDP_AUTH parsing. */
#include "xport/udp/udp_auth.h"
#include "xport/udp/udp_conn.h"
#include "conn_cfg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"

#define PKT 2048
#define MS 1000000ull

static tn_udp_conn_cfg_t cfg_of(const uint8_t *secret, int mode)
{
    return tn_test_conn_cfg(PKT, secret, mode);
}

static void test_derive(void)
{
    uint8_t s1[TN_UDP_SECRET_BYTES], s2[TN_UDP_SECRET_BYTES];
    CHECK(tn_udp_auth_random(s1, sizeof(s1)) == TN_OK);
    CHECK(tn_udp_auth_random(s2, sizeof(s2)) == TN_OK);
    CHECK(memcmp(s1, s2, sizeof(s1)) != 0);
    tn_udp_dir_t a, b, c, d, z;
    tn_udp_key_t ka, kb, kc;
    CHECK(tn_udp_auth_derive(s1, 0, 1, TN_UDP_AUTH_TAG, 0, &a, &ka) == TN_OK);
    CHECK(tn_udp_auth_derive(s1, 0, 1, TN_UDP_AUTH_TAG, 0, &b, &kb) == TN_OK);
    CHECK(tn_udp_auth_derive(s1, 1, 0, TN_UDP_AUTH_TAG, 0, &c, &kc) == TN_OK);
    tn_udp_auth_derive(s2, 0, 1, TN_UDP_AUTH_TAG, 0, &d, NULL);
    tn_udp_auth_derive(NULL, 0, 1, TN_UDP_AUTH_TAG, 0, &z, NULL);
    CHECK(a.conn == b.conn && a.psn0 == b.psn0 && memcmp(ka.base, kb.base, 32) == 0);
    CHECK(a.conn != c.conn && memcmp(ka.base, kc.base, 32) != 0);
    tn_udp_auth_wipe(&ka);
    tn_udp_auth_wipe(&kb);
    tn_udp_auth_wipe(&kc);
    CHECK(a.conn != d.conn);
    CHECK(a.psn0 >= 1 && a.psn0 <= (1ull << 40) && c.psn0 >= 1 && d.psn0 <= (1ull << 40));
    CHECK(z.psn0 == 1);
    /* 64 secrets: the first packet numbers spread (not all small) */
    int big = 0;
    for (int i = 0; i < 64; i++) {
        tn_udp_auth_random(s2, sizeof(s2));
        tn_udp_auth_derive(s2, 3, 4, TN_UDP_AUTH_OFF, 0, &d, NULL);
        big += d.psn0 > (1ull << 30);
    }
    CHECK(big > 32);
}

/* One datagram out of c at time now into buf; returns its length.  Data
 * leaves as the transport sends it: the payload gathered from where it is
 * (the sent map, or the sender's buffer for a message by reference), which
 * goes after the header here. */
static size_t out1(tn_udp_conn_t *c, unsigned char *buf, uint64_t now)
{
    int rail, ref;
    const void *payload;
    size_t plen;
    size_t n = tn_udp_conn_output_gather(c, buf, PKT, &payload, &plen, &ref, &rail, now, 1);
    if (n != 0 && payload != NULL) {
        memcpy(buf + n, payload, plen);
        n += plen;
    }
    return n;
}

/* How the transport takes a datagram in: 1 when accepted. */
static int accept(tn_udp_conn_t *rx, uint32_t me, unsigned char *pkt, size_t len)
{
    const char *why;
    return tn_udp_conn_authentic(rx, pkt, len) == TN_UDP_AUTH_GOOD &&
           tn_udp_packet_check(pkt, len, tn_udp_conn_rx_id(rx), me, &why) == TN_OK;
}

static void test_pair(int mode)
{
    uint8_t secret[TN_UDP_SECRET_BYTES];
    tn_udp_auth_random(secret, sizeof(secret));
    tn_udp_conn_cfg_t cfg = cfg_of(secret, mode);
    tn_udp_conn_t *a, *b;
    CHECK(tn_udp_conn_new(&cfg, 0, 1, &a) == TN_OK);
    CHECK(tn_udp_conn_new(&cfg, 1, 0, &b) == TN_OK);
    tn_udp_dir_t dir;
    tn_udp_auth_derive(secret, 0, 1, mode, 0, &dir, NULL);

    unsigned char pkt[PKT], copy[PKT];
    char msg[64];
    uint64_t now = 0, last_seq = 0;
    static char ext[4][64];     /* messages 1 and 3: a head and the rest by reference */
    for (int i = 0; i < 5; i++) {
        snprintf(msg, sizeof(msg), "message %d", i);
        struct iovec iov = { msg, strlen(msg) + 1 };
        if (i % 2 == 1) {
            snprintf(ext[i], sizeof(ext[i]), "%s", msg + 3);
            CHECK(tn_udp_conn_send_ref(a, msg, 3, ext[i], strlen(ext[i]) + 1, NULL, now) ==
                  TN_OK);
        } else {
            CHECK(tn_udp_conn_send(a, &iov, 1, now) == TN_OK);
        }
    }
    /* five data packets at the derived packet numbers, each seq new */
    size_t lens[5];
    unsigned char pkts[5][PKT];
    for (int i = 0; i < 5; i++) {
        lens[i] = out1(a, pkts[i], now);
        CHECK(lens[i] > sizeof(tn_udp_hdr_t));
        tn_udp_hdr_t h;
        memcpy(&h, pkts[i], sizeof(h));
        CHECK(h.type == TN_UDP_PKT_DATA && h.psn == dir.psn0 + (uint64_t)i);
        CHECK(h.seq > last_seq);
        last_seq = h.seq;
        static const unsigned char zero[TN_UDP_TAG_BYTES];
        CHECK((memcmp(h.tag, zero, sizeof(zero)) != 0) == (mode != TN_UDP_AUTH_OFF));
        /* the text on the wire: in clear but in mode encrypt */
        snprintf(msg, sizeof(msg), "sage %d", i);
        CHECK((memmem(pkts[i], lens[i], msg, strlen(msg)) != NULL) ==
              (mode != TN_UDP_AUTH_ENCRYPT));
    }
    unsigned char replay[PKT];          /* the third as it was on the wire */
    memcpy(replay, pkts[2], lens[2]);
    /* every flipped bit is rejected */
    for (size_t i = 0; i < lens[0]; i++) {
        for (int bit = 0; bit < 8; bit += 3) {
            memcpy(copy, pkts[0], lens[0]);
            copy[i] ^= (unsigned char)(1u << bit);
            CHECK(!accept(b, 1, copy, lens[0]));
        }
    }
    /* a forged payload with a correct CRC: caught by the tag only */
    memcpy(copy, pkts[1], lens[1]);
    copy[lens[1] - 2] ^= 0x11;
    memset(copy + offsetof(tn_udp_hdr_t, crc), 0, 4);
    uint32_t crc = tn_udp_packet_crc(copy, lens[1]);
    memcpy(copy + offsetof(tn_udp_hdr_t, crc), &crc, 4);
    CHECK(accept(b, 1, copy, lens[1]) == (mode == TN_UDP_AUTH_OFF));
    /* the genuine ones, the third twice (a replay), in order */
    for (int i = 0; i < 5; i++) {
        CHECK(accept(b, 1, pkts[i], lens[i]));
        tn_udp_conn_input(b, pkts[i], lens[i], 0, now);
        if (i == 2) {
            CHECK(accept(b, 1, replay, lens[i]));       /* authentic, and a duplicate */
            tn_udp_conn_input(b, replay, lens[i], 0, now);
        }
    }
    for (int i = 0; i < 5; i++) {
        size_t len = 0;
        const char *got = tn_udp_conn_deliver(b, &len);
        snprintf(msg, sizeof(msg), "message %d", i);
        CHECK(got != NULL && len == strlen(msg) + 1 && strcmp(got, msg) == 0);
    }
    size_t len = 0;
    CHECK(tn_udp_conn_deliver(b, &len) == NULL);
    CHECK(tn_udp_conn_stats(b)->duplicates == 1);
    /* b's ack is authentic for a, and a forged copy of it is not */
    now += 1 * MS;
    size_t alen = out1(b, pkt, now);
    CHECK(alen > 0);
    CHECK(accept(a, 0, pkt, alen));
    memcpy(copy, pkt, alen);
    tn_udp_hdr_t h;
    memcpy(&h, copy, sizeof(h));
    h.ack += 100;                           /* claim more than arrived */
    memcpy(copy, &h, sizeof(h));
    memset(copy + offsetof(tn_udp_hdr_t, crc), 0, 4);
    crc = tn_udp_packet_crc(copy, alen);
    memcpy(copy + offsetof(tn_udp_hdr_t, crc), &crc, 4);
    CHECK(accept(a, 0, copy, alen) == (mode == TN_UDP_AUTH_OFF));
    tn_udp_conn_input(a, pkt, alen, 0, now);
    CHECK(tn_udp_conn_idle(a));

    /* a connection of another job (another secret) */
    uint8_t other[TN_UDP_SECRET_BYTES];
    tn_udp_auth_random(other, sizeof(other));
    tn_udp_conn_cfg_t ocfg = cfg_of(other, mode);
    tn_udp_conn_t *o;
    CHECK(tn_udp_conn_new(&ocfg, 1, 0, &o) == TN_OK);
    CHECK(tn_udp_conn_authentic(o, pkts[0], lens[0]) == TN_UDP_AUTH_BAD_CONN);
    /* with the id copied (sniffed), still no key */
    tn_udp_hdr_t oh;
    memcpy(copy, pkts[0], lens[0]);
    memcpy(&oh, copy, sizeof(oh));
    oh.conn = tn_udp_conn_rx_id(o);
    memcpy(copy, &oh, sizeof(oh));
    CHECK(tn_udp_conn_authentic(o, copy, lens[0]) ==
          (mode != TN_UDP_AUTH_OFF ? TN_UDP_AUTH_BAD_TAG : TN_UDP_AUTH_GOOD));
    tn_udp_conn_free(o);
    tn_udp_conn_free(a);
    tn_udp_conn_free(b);
}

/* Keys rotate every 2^2 datagrams: a receiver opens what a sender sealed,
 * in any order within the epochs before and after the newest it has
 * authenticated; a genuine datagram two epochs ahead fails until the
 * receiver has moved on.  Mode encrypt decrypts in place. */
static void test_epochs_raw(int mode)
{
    if (mode == TN_UDP_AUTH_OFF) {
        return;
    }
    uint8_t secret[TN_UDP_SECRET_BYTES];
    tn_udp_auth_random(secret, sizeof(secret));
    tn_udp_key_t tx, rx;
    CHECK(tn_udp_auth_derive(secret, 0, 1, mode, 2, NULL, &tx) == TN_OK);
    CHECK(tn_udp_auth_derive(secret, 0, 1, mode, 2, NULL, &rx) == TN_OK);
    enum { N = 40, HL = 72 };
    unsigned char head[N][HL], body[N][32], copy[HL], bcopy[32];
    for (int s = 1; s < N; s++) {
        memset(head[s], s, HL);
        snprintf((char *)body[s], sizeof(body[s]), "payload of datagram %d", s);
        struct iovec pay = { body[s], sizeof(body[s]) };
        CHECK(tn_udp_auth_seal(&tx, (uint64_t)s, head[s], HL, 40, &pay, 1) == TN_OK);
    }
    CHECK(tn_udp_auth_epoch(&tx) == (N - 1) >> 2);
    /* open datagram s: 1 when it authenticates (a copy: the original stays) */
#define OPEN(s) (memcpy(copy, head[s], HL), memcpy(bcopy, body[s], 32),                     \
                 tn_udp_auth_open(&rx, (uint64_t)(s), copy, HL, 40,                         \
                                  &(struct iovec){ bcopy, 32 }, 1))
    CHECK(OPEN(3) && OPEN(1) && OPEN(5));           /* epochs 0, 0, 1 */
    CHECK(tn_udp_auth_epoch(&rx) == 1);
    char text[32];
    snprintf(text, sizeof(text), "payload of datagram %d", 5);
    CHECK(strcmp((char *)bcopy, text) == 0);        /* decrypted (or never encrypted) */
    CHECK(!OPEN(13));                               /* epoch 3: not at hand */
    CHECK(OPEN(9) && tn_udp_auth_epoch(&rx) == 2);  /* epoch 2 moves on */
    CHECK(OPEN(6));                                 /* epoch 1: the one before */
    CHECK(!OPEN(2));                                /* epoch 0: too old */
    CHECK(OPEN(13) && tn_udp_auth_epoch(&rx) == 3);
    CHECK(!OPEN(7));                                /* epoch 1 with 3 the newest */
    CHECK(OPEN(15) && OPEN(17) && OPEN(21) && OPEN(25) && OPEN(29) && OPEN(33) && OPEN(37));
    CHECK(tn_udp_auth_epoch(&rx) == 9);
    /* a flipped bit in the payload fails in every mode that covers it */
    memcpy(copy, head[38], HL);
    memcpy(bcopy, body[38], 32);
    bcopy[7] ^= 1;
    CHECK(tn_udp_auth_open(&rx, 38, copy, HL, 40, &(struct iovec){ bcopy, 32 }, 1) ==
          (mode == TN_UDP_AUTH_TAG));
#undef OPEN
    tn_udp_auth_wipe(&tx);
    tn_udp_auth_wipe(&rx);
}

/* A connection pair whose keys rotate every 8 datagrams: 300 messages,
 * every fifth datagram lost and every seventh delayed behind the next,
 * all delivered in order, both directions many epochs on. */
static void test_epochs_conn(int mode)
{
    uint8_t secret[TN_UDP_SECRET_BYTES];
    tn_udp_auth_random(secret, sizeof(secret));
    tn_udp_conn_cfg_t cfg = cfg_of(secret, mode);
    cfg.epoch_bits = 3;
    tn_udp_conn_t *c[2];
    CHECK(tn_udp_conn_new(&cfg, 0, 1, &c[0]) == TN_OK);
    CHECK(tn_udp_conn_new(&cfg, 1, 0, &c[1]) == TN_OK);
    enum { MSGS = 300 };
    static unsigned char pkt[PKT], held[PKT];
    size_t held_len = 0;
    int held_from = 0, sent = 0, got = 0, n = 0, bad = 0;
    uint64_t now = 0;
    char msg[64];
    for (int round = 0; round < 20000 && got < MSGS; round++) {
        while (sent < MSGS) {
            snprintf(msg, sizeof(msg), "rotating %d", sent);
            struct iovec iov = { msg, strlen(msg) + 1 };
            if (tn_udp_conn_send(c[0], &iov, 1, now) != TN_OK) {
                break;
            }
            sent++;
        }
        for (int from = 0; from < 2; from++) {
            size_t len;
            while ((len = out1(c[from], pkt, now)) != 0) {
                n++;
                if (n % 5 == 0) {
                    continue;                       /* lost */
                }
                if (n % 7 == 0 && held_len == 0) {
                    memcpy(held, pkt, len);         /* overtaken by the next */
                    held_len = len;
                    held_from = from;
                    continue;
                }
                tn_udp_conn_t *to = c[1 - from];
                if (accept(to, (uint32_t)(1 - from), pkt, len)) {
                    tn_udp_conn_input(to, pkt, len, 0, now);
                } else {
                    bad++;
                }
                if (held_len != 0 && from == held_from) {
                    if (accept(to, (uint32_t)(1 - from), held, held_len)) {
                        tn_udp_conn_input(to, held, held_len, 0, now);
                    } else {
                        bad++;
                    }
                    held_len = 0;
                }
            }
        }
        size_t len;
        const char *d;
        while ((d = tn_udp_conn_deliver(c[1], &len)) != NULL) {
            snprintf(msg, sizeof(msg), "rotating %d", got);
            CHECK(len == strlen(msg) + 1 && strcmp(d, msg) == 0);
            got++;
        }
        now += 100000;                              /* 100 us */
    }
    CHECK(got == MSGS);
    CHECK(bad == 0);
    if (mode != TN_UDP_AUTH_OFF) {
        CHECK(tn_udp_conn_key_epoch(c[0], 0) >= 40);
        CHECK(tn_udp_conn_key_epoch(c[1], 1) + 1 >= tn_udp_conn_key_epoch(c[0], 0));
        CHECK(tn_udp_conn_key_epoch(c[1], 0) >= 5);  /* the acks rotated too */
    }
    tn_udp_conn_free(c[0]);
    tn_udp_conn_free(c[1]);
}

static void test_parse(void)
{
    const char *why = NULL;
    CHECK(tn_udp_auth_parse("auth", &why) == TN_UDP_AUTH_TAG);
    CHECK(tn_udp_auth_parse(NULL, &why) == TN_UDP_AUTH_TAG);
    CHECK(tn_udp_auth_parse("off", &why) == TN_UDP_AUTH_OFF);
    CHECK(tn_udp_auth_parse("aead", &why) == TN_UDP_AUTH_AEAD);
    CHECK(tn_udp_auth_parse("encrypt", &why) == TN_UDP_AUTH_ENCRYPT);
    CHECK(tn_udp_auth_parse("foo", &why) == -1 && strstr(why, "not a mode") != NULL);
    CHECK(tn_udp_auth_parse("Auth", &why) == -1);
    for (int m = TN_UDP_AUTH_OFF; m <= TN_UDP_AUTH_ENCRYPT; m++) {
        CHECK(tn_udp_auth_parse(tn_udp_auth_name(m), &why) == m);
    }
}

int main(void)
{
    CHECK(tn_udp_auth_init() == TN_OK);
    test_derive();
    for (int m = TN_UDP_AUTH_OFF; m <= TN_UDP_AUTH_ENCRYPT; m++) {
        test_pair(m);
        test_epochs_raw(m);
        test_epochs_conn(m);
    }
    test_parse();
    return tn_check_report("test_auth");
}
