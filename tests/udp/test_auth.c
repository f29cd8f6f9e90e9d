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
    tn_udp_auth_derive(s1, 0, 1, TN_UDP_AUTH_TAG, &a, &ka);
    tn_udp_auth_derive(s1, 0, 1, TN_UDP_AUTH_TAG, &b, &kb);
    tn_udp_auth_derive(s1, 1, 0, TN_UDP_AUTH_TAG, &c, &kc);
    tn_udp_auth_derive(s2, 0, 1, TN_UDP_AUTH_TAG, &d, NULL);
    tn_udp_auth_derive(NULL, 0, 1, TN_UDP_AUTH_TAG, &z, NULL);
    CHECK(a.conn == b.conn && a.psn0 == b.psn0 && memcmp(ka.key, kb.key, 32) == 0);
    CHECK(a.conn != c.conn && memcmp(ka.key, kc.key, 32) != 0);
    CHECK(a.conn != d.conn);
    CHECK(a.psn0 >= 1 && a.psn0 <= (1ull << 40) && c.psn0 >= 1 && d.psn0 <= (1ull << 40));
    CHECK(z.psn0 == 1);
    /* 64 secrets: the first packet numbers spread (not all small) */
    int big = 0;
    for (int i = 0; i < 64; i++) {
        tn_udp_auth_random(s2, sizeof(s2));
        tn_udp_auth_derive(s2, 3, 4, TN_UDP_AUTH_OFF, &d, NULL);
        big += d.psn0 > (1ull << 30);
    }
    CHECK(big > 32);
}

/* One datagram out of c at time now into buf; returns its length. */
static size_t out1(tn_udp_conn_t *c, unsigned char *buf, uint64_t now)
{
    int rail;
    return tn_udp_conn_output(c, buf, PKT, &rail, now);
}

/* How the transport takes a datagram in: 1 when accepted. */
static int accept(tn_udp_conn_t *rx, uint32_t me, const unsigned char *pkt, size_t len)
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
    tn_udp_auth_derive(secret, 0, 1, mode, &dir, NULL);

    unsigned char pkt[PKT], copy[PKT];
    char msg[64];
    uint64_t now = 0, last_seq = 0;
    for (int i = 0; i < 5; i++) {
        snprintf(msg, sizeof(msg), "message %d", i);
        struct iovec iov = { msg, strlen(msg) + 1 };
        CHECK(tn_udp_conn_send(a, &iov, 1, now) == TN_OK);
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
        CHECK((memcmp(h.tag, zero, sizeof(zero)) != 0) == (mode == TN_UDP_AUTH_TAG));
    }
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
            CHECK(accept(b, 1, pkts[i], lens[i]));      /* authentic, and a duplicate */
            tn_udp_conn_input(b, pkts[i], lens[i], 0, now);
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
          (mode == TN_UDP_AUTH_TAG ? TN_UDP_AUTH_BAD_TAG : TN_UDP_AUTH_GOOD));
    tn_udp_conn_free(o);
    tn_udp_conn_free(a);
    tn_udp_conn_free(b);
}

static void test_parse(void)
{
    const char *why = NULL;
    CHECK(tn_udp_auth_parse("auth", &why) == TN_UDP_AUTH_TAG);
    CHECK(tn_udp_auth_parse(NULL, &why) == TN_UDP_AUTH_TAG);
    CHECK(tn_udp_auth_parse("off", &why) == TN_UDP_AUTH_OFF);
    CHECK(tn_udp_auth_parse("aead", &why) == -1 && strstr(why, "not implemented") != NULL);
    CHECK(tn_udp_auth_parse("encrypt", &why) == -1 && strstr(why, "not implemented") != NULL);
    CHECK(tn_udp_auth_parse("foo", &why) == -1 && strstr(why, "not a mode") != NULL);
    CHECK(strcmp(tn_udp_auth_name(TN_UDP_AUTH_TAG), "auth") == 0);
}

int main(void)
{
    CHECK(tn_udp_auth_init() == TN_OK);
    test_derive();
    test_pair(TN_UDP_AUTH_TAG);
    test_pair(TN_UDP_AUTH_OFF);
    test_parse();
    return tn_check_report("test_auth");
}
