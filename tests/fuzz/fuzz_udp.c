/* Fuzz harness of the udp transport's datagram decoder and connection state
 * machine (src/xport/udp/udp_conn.c): two connections, rank 0 <-> rank 1,
 * joined by a loss-free network, with fuzzed datagrams injected into it.
 * Everything a peer or a stranger on the network can send must be rejected
 * by the checks or leave both connections consistent (ASan/UBSan and the
 * checks below).
 *
 * Input: a header byte, then records until the input ends.
 *   header bits 0 and 2: authentication mode, bit 0 + 2 * bit 2 (0 off,
 *                 1 auth, 2 aead, 3 encrypt: keys of the all-zero secret,
 *                 so fix-up can seal datagrams; keys rotate every 16)
 *   header bit 1: two rails instead of one
 *   record: [op] [len lo] [len hi] [len bytes, cut at the end of input]
 *     op & 1     which connection receives / acts (0: rank 0, 1: rank 1)
 *     op >> 1 & 3  0: inject the bytes as a datagram, as they are
 *                  1: inject them "fixed up": connection id set to the
 *                     receiver's (tn_udp_conn_rx_id), then the CRC and the
 *                     tag recomputed (mode encrypt: the payload encrypted;
 *                     mode off: the tag zeroed), so that the fuzzer gets past the id, the
 *                     CRC and the tag to the fields behind them
 *                  2: the connection sends the bytes as a message
 *                  3: the clock advances by len microseconds, then the
 *                     network runs (each side's output fed to the other)
 *     op & 8     fix-up also sets version and dst right; with 3 and two
 *                rails, the connection takes rail 1 down first
 *     op & 128   with 0 and 1 and two rails: the datagram arrives on rail 1
 *     op & 16    inject through the split path (tn_udp_packet_check_split,
 *                tn_udp_conn_input_split): the datagram is cut at
 *                op >> 5 * 32 + 72 bytes
 * An accepted datagram goes through tn_udp_conn_input (or the split or lent
 * variant), then tn_udp_conn_deliver drains, then the network runs.
 *
 * Checked: whatever is delivered fits a message; every datagram a
 * connection writes passes its peer's checks. */
#include "xport/udp/udp_auth.h"
#include "xport/udp/udp_conn.h"
#include "../udp/conn_cfg.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_PKT 1200
#define FZ_EPOCH_BITS 4             /* keys rotate every 16 datagrams */
#define US     1000ull
#define MS     1000000ull

static void fz_fail(const char *what)
{
    fprintf(stderr, "fuzz_udp: %s\n", what);
    abort();
}

static tn_udp_conn_cfg_t fz_cfg(int mode, int nrails)
{
    tn_udp_conn_cfg_t cfg = tn_test_conn_cfg(FZ_PKT, NULL, mode);
    cfg.probes = 2;
    cfg.pace_burst = 16;
    cfg.nrails = nrails;
    cfg.epoch_bits = FZ_EPOCH_BITS;
    return cfg;
}

typedef struct {
    tn_udp_conn_t *c[2];
    tn_udp_key_t   key[2];       /* key of datagrams to rank i (from 1 - i) */
    int            mode;
    int            nrails;
    uint64_t       now;
    /* a fixed-up datagram to rank i, sealed with the key, took its
     * receiver to a key epoch ahead of the genuine sender's: the sender's
     * own datagrams may fail from then on (only a holder of the key can) */
    int            ahead[2];
} fz_pair_t;

static void fz_drain(fz_pair_t *p, int me)
{
    size_t len;
    const void *tail;
    size_t tail_len;
    size_t max = tn_udp_conn_max_message(p->c[me]);
    while (tn_udp_conn_deliver_split(p->c[me], &len, &tail, &tail_len) != NULL) {
        if (len + tail_len > max) {
            fz_fail("delivered a message larger than the largest one");
        }
    }
}

/* Feed a datagram to rank me the way the transport does: 1 if accepted. */
static int fz_feed(fz_pair_t *p, int me, uint8_t *pkt, size_t len, size_t cut, int split,
                   int rail)
{
    tn_udp_conn_t *c = p->c[me];
    const char *why;
    if (tn_udp_conn_authentic(c, pkt, len) != TN_UDP_AUTH_GOOD) {
        return 0;
    }
    if (split && cut < len) {
        if (tn_udp_packet_check_split(pkt, cut, pkt + cut, len - cut, tn_udp_conn_rx_id(c),
                                      (uint32_t)me, &why) != TN_OK) {
            return 0;
        }
        tn_udp_conn_input_split(c, pkt, cut, pkt + cut, len - cut, 0, rail, p->now);
    } else {
        if (tn_udp_packet_check(pkt, len, tn_udp_conn_rx_id(c), (uint32_t)me, &why) != TN_OK) {
            return 0;
        }
        if (len & 1) {
            tn_udp_conn_input_lent(c, pkt, len, rail, p->now);
        } else {
            tn_udp_conn_input(c, pkt, len, rail, p->now);
        }
    }
    fz_drain(p, me);
    return 1;
}

/* Run the network: what each side has to send goes to the other, until
 * both are quiet (bounded). */
static void fz_network(fz_pair_t *p)
{
    uint8_t buf[FZ_PKT];
    for (int round = 0; round < 64; round++) {
        int moved = 0;
        for (int me = 0; me < 2; me++) {
            int rail;
            size_t n = tn_udp_conn_output(p->c[me], buf, sizeof(buf), &rail, p->now);
            if (n == 0) {
                continue;
            }
            if (n > FZ_PKT || rail < 0 || rail >= p->nrails) {
                fz_fail("output larger than a packet, or on a rail that does not exist");
            }
            if (!fz_feed(p, 1 - me, buf, n, n, 0, rail) && !p->ahead[1 - me]) {
                fz_fail("a connection's own datagram was rejected by its peer");
            }
            moved = 1;
        }
        if (!moved) {
            break;
        }
        p->now += 5 * US;
    }
    (void)tn_udp_conn_dead(p->c[0], p->now);
    (void)tn_udp_conn_dead(p->c[1], p->now);
    (void)tn_udp_conn_deadline(p->c[0]);
    (void)tn_udp_conn_deadline(p->c[1]);
}

/* Make a datagram to rank me pass the id, CRC and tag (see the header). */
static void fz_fixup(fz_pair_t *p, int me, uint8_t *pkt, size_t len, int fields)
{
    tn_udp_hdr_t h;
    if (len < sizeof(h)) {
        return;
    }
    memcpy(&h, pkt, sizeof(h));
    h.conn = tn_udp_conn_rx_id(p->c[me]);
    if (fields) {
        h.version = TN_UDP_VERSION;
        h.dst = (uint32_t)me;
        h.src = (uint32_t)(1 - me);
    }
    h.crc = 0;
    memset(h.tag, 0, sizeof(h.tag));
    memcpy(pkt, &h, sizeof(h));
    h.crc = tn_udp_packet_crc(pkt, len);
    memcpy(pkt + offsetof(tn_udp_hdr_t, crc), &h.crc, sizeof(h.crc));
    size_t head = sizeof(h) + (size_t)h.nsack * sizeof(tn_udp_sack_t);
    if (p->mode != TN_UDP_AUTH_OFF && h.nsack <= TN_UDP_MAX_SACK && head <= len) {
        struct iovec pay = { pkt + head, len - head };
        if (tn_udp_auth_seal(&p->key[me], h.seq, pkt, head, TN_UDP_TAG_OFF, &pay, 1) !=
            TN_OK) {
            fz_fail("tn_udp_auth_seal");
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int inited;
    if (!inited) {
        if (tn_udp_auth_init() != TN_OK) {
            fz_fail("tn_udp_auth_init");
        }
        inited = 1;
    }
    if (size < 1) {
        return 0;
    }
    fz_pair_t p = { .mode = (data[0] & 1) | (data[0] >> 1 & 2),
                    .nrails = data[0] & 2 ? 2 : 1, .now = 1 * MS };
    tn_udp_conn_cfg_t cfg = fz_cfg(p.mode, p.nrails);
    if (tn_udp_conn_new(&cfg, 0, 1, &p.c[0]) != TN_OK ||
        tn_udp_conn_new(&cfg, 1, 0, &p.c[1]) != TN_OK) {
        fz_fail("tn_udp_conn_new");
    }
    for (int me = 0; me < 2; me++) {
        tn_udp_dir_t dir;
        if (tn_udp_auth_derive(NULL, (uint32_t)(1 - me), (uint32_t)me, p.mode, FZ_EPOCH_BITS,
                               &dir, &p.key[me]) != TN_OK) {
            fz_fail("tn_udp_auth_derive");
        }
    }
    static uint8_t pkt[65536 + 3];
    size_t off = 1;
    while (off + 3 <= size) {
        uint8_t op = data[off];
        size_t len = (size_t)data[off + 1] | (size_t)data[off + 2] << 8;
        off += 3;
        if (len > size - off) {
            len = size - off;
        }
        const uint8_t *body = data + off;
        off += len;
        int me = op & 1;
        switch (op >> 1 & 3) {
        case 0:
        case 1:
            memcpy(pkt, body, len);
            if ((op >> 1 & 3) == 1) {
                fz_fixup(&p, me, pkt, len, op & 8);
            }
            if (fz_feed(&p, me, pkt, len, (size_t)(op >> 5) * 32 + sizeof(tn_udp_hdr_t),
                        op & 16, p.nrails > 1 && (op & 128) ? 1 : 0) &&
                (op >> 1 & 3) == 1 && len >= sizeof(tn_udp_hdr_t)) {
                tn_udp_hdr_t h;
                memcpy(&h, pkt, sizeof(h));
                if (h.seq >> FZ_EPOCH_BITS > tn_udp_conn_key_epoch(p.c[1 - me], 0)) {
                    p.ahead[me] = 1;
                }
            }
            fz_network(&p);
            break;
        case 2: {
            struct iovec iov = { (void *)body, len };
            (void)tn_udp_conn_send(p.c[me], &iov, 1, p.now);
            break;
        }
        case 3:
            if (p.nrails > 1 && (op & 8)) {
                tn_udp_conn_rail_down(p.c[me], 1);
            }
            p.now += (uint64_t)len * US;
            fz_network(&p);
            break;
        }
    }
    p.now += 1 * MS;
    fz_network(&p);
    (void)tn_udp_conn_idle(p.c[0]);
    (void)tn_udp_conn_stats(p.c[1]);
    for (int me = 0; me < 2; me++) {
        tn_udp_auth_wipe(&p.key[me]);
        tn_udp_conn_free(p.c[me]);
    }
    return 0;
}
