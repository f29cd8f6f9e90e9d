/* udp_direct (receiving rendezvous data in place): the stream registry and
 * cursors, the receive layout a plan makes, and the walk over what a
 * receive brought.  The kernel is modelled by scattering a buffer (one
 * datagram, or several of one size as GRO coalesces them) over the plan's
 * iovecs, as recvmsg does.
 *
 * Checked: in-order data lands in place (hits); whatever else comes (acks,
 * reordered or duplicated pieces, pieces with SACK ranges, another stream's
 * or another peer's) is handed out byte for byte as sent; and, over random
 * runs with reordering, duplicates and interleaved traffic, every stream's
 * buffer ends up holding exactly its data although the kernel writes
 * mispredicted datagrams into it: nothing placed is ever overwritten. */
#include "xport/udp/udp_direct.h"

#include <stdio.h>
#include <stdlib.h>
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

#define CHUNK 1000
#define CAP (2 * (TN_UDP_DIRECT_HEAD + CHUNK) + 64)   /* GRO holds two full datagrams */
#define HEAD TN_UDP_DIRECT_HEAD

static char heads[TN_UDP_DIRECT_MAX][TN_UDP_DIRECT_HEAD];
static char spill[4096], scratch[2 * 4096];

typedef struct {
    char   bytes[2048];
    size_t len;
} dgram_t;

/* A data datagram from src carrying an active message of type am_type for
 * rreq at off with plen payload bytes from data, nsack SACK ranges. */
static void make(dgram_t *d, uint32_t src, uint8_t am_type, uint64_t rreq, size_t off,
                 const char *data, size_t plen, int nsack)
{
    tn_udp_hdr_t h;
    memset(&h, 0, sizeof(h));
    h.version = TN_UDP_VERSION;
    h.type = TN_UDP_PKT_DATA;
    h.src = src;
    h.psn = 1;
    h.nsack = (uint16_t)nsack;
    h.len = (uint16_t)(sizeof(tn_am_hdr_t) + plen);
    tn_am_hdr_t am;
    memset(&am, 0, sizeof(am));
    am.type = am_type;
    am.rreq = rreq;
    am.addr = off;
    am.size = plen;
    char *p = d->bytes;
    memcpy(p, &h, sizeof(h));
    p += sizeof(h);
    for (int i = 0; i < nsack; i++) {
        memset(p, 0x5a, sizeof(tn_udp_sack_t));
        p += sizeof(tn_udp_sack_t);
    }
    memcpy(p, &am, sizeof(am));
    p += sizeof(am);
    memcpy(p, data + off, plen);
    d->len = (size_t)(p - d->bytes) + plen;
}

/* An ack: a bare header. */
static void make_ack(dgram_t *d, uint32_t src)
{
    tn_udp_hdr_t h;
    memset(&h, 0, sizeof(h));
    h.version = TN_UDP_VERSION;
    h.type = TN_UDP_PKT_ACK;
    h.src = src;
    memcpy(d->bytes, &h, sizeof(h));
    d->len = sizeof(h);
}

/* recvmsg: the buffer made of n datagrams scattered over the plan's
 * iovecs.  Returns its length. */
static size_t deliver(tn_udp_dplan_t *pl, dgram_t *const *dg, int n)
{
    size_t total = 0, piece = 0, in = 0;
    for (int k = 0; k < n; k++) {
        for (size_t b = 0; b < dg[k]->len; b++) {
            while (in == pl->iov[piece].iov_len) {
                piece++;
                in = 0;
            }
            ((char *)pl->iov[piece].iov_base)[in++] = dg[k]->bytes[b];
            total++;
        }
    }
    return total;
}

/* The walk gives back each datagram as it was sent, in order; returns how
 * many were hits. */
static int walk_same(tn_udp_dplan_t *pl, size_t nbytes, dgram_t *const *dg, int n)
{
    tn_udp_dgram_t d;
    int k = 0, hits = 0;
    tn_udp_direct_begin(pl, nbytes, n > 1 ? dg[0]->len : nbytes, scratch);
    while (tn_udp_direct_next(pl, nbytes, scratch, &d)) {
        CHECK(k < n);
        if (k >= n) {
            break;
        }
        CHECK(d.len + d.tail_len == dg[k]->len);
        CHECK(memcmp(d.pkt, dg[k]->bytes, d.len) == 0);
        if (d.tail != NULL) {
            CHECK(memcmp(d.tail, dg[k]->bytes + d.len, d.tail_len) == 0);
        }
        hits += d.hit;
        k++;
    }
    CHECK(k == n);
    return hits;
}

static void test_registry(void)
{
    tn_udp_dpeer_t p = { 0 };
    char a[3000], b[2000];
    CHECK(tn_udp_direct_next_stream(&p) == NULL);
    CHECK(tn_udp_direct_add(&p, 11, a, sizeof(a)) == TN_OK);
    CHECK(tn_udp_direct_add(&p, 22, b, sizeof(b)) == TN_OK);
    CHECK(p.n == 2 && tn_udp_direct_next_stream(&p)->rreq == 11);
    tn_am_hdr_t am = { .type = TN_AM_DATA, .rreq = 11, .addr = 2000, .size = 1000 };
    tn_udp_direct_seen(&p, &am, 1000);
    CHECK(p.head->cursor == 3000);                 /* stream 11 has all arrived */
    CHECK(tn_udp_direct_next_stream(&p)->rreq == 22);
    am.addr = 0;
    tn_udp_direct_seen(&p, &am, 1000);             /* an earlier piece: no step back */
    CHECK(p.head->cursor == 3000);
    am.type = TN_AM_EAGER;
    am.rreq = 22;
    tn_udp_direct_seen(&p, &am, 1000);             /* not rendezvous data */
    CHECK(p.tail->cursor == 0);
    am.type = TN_AM_DATA;
    am.addr = 1500;
    tn_udp_direct_seen(&p, &am, 9000);             /* clipped to the stream */
    CHECK(p.tail->cursor == 2000);
    am.addr = 5000;
    tn_udp_direct_seen(&p, &am, 10);               /* past the end: ignored */
    CHECK(p.tail->cursor == 2000);
    tn_udp_direct_end(&p, 11);
    CHECK(p.n == 1 && p.head->rreq == 22 && p.tail == p.head);
    tn_udp_direct_end(&p, 99);                     /* unknown: nothing */
    CHECK(p.n == 1);
    tn_udp_direct_end(&p, 22);
    CHECK(p.n == 0 && p.head == NULL && p.tail == NULL);
    tn_udp_direct_clear(&p);
}

/* In order, two datagrams per receive (the last one short): all hits, the
 * payload in place; a plan never reaches past the stream. */
static void test_in_order(void)
{
    static char data[5500], buf[5500];
    for (size_t i = 0; i < sizeof(data); i++) {
        data[i] = (char)next_rand();
    }
    memset(buf, 0, sizeof(buf));
    tn_udp_dpeer_t p = { 0 };
    CHECK(tn_udp_direct_add(&p, 7, buf, sizeof(buf)) == TN_OK);
    tn_udp_dplan_t pl;
    dgram_t d0, d1;
    size_t off = 0;
    int hits = 0, rounds = 0;
    while (off < sizeof(data)) {
        tn_udp_direct_plan(&pl, &p, 3, CHUNK, CAP, heads, spill);
        CHECK(pl.n >= 1 && pl.off[0] == off);
        size_t n0 = sizeof(data) - off < CHUNK ? sizeof(data) - off : CHUNK;
        make(&d0, 3, TN_AM_DATA, 7, off, data, n0, 0);
        dgram_t *dg[2] = { &d0, &d1 };
        int n = 1;
        if (n0 == CHUNK && off + CHUNK < sizeof(data)) {
            size_t n1 = sizeof(data) - off - CHUNK < CHUNK ? sizeof(data) - off - CHUNK : CHUNK;
            if (n1 == CHUNK) {                      /* GRO: equal sizes only */
                make(&d1, 3, TN_AM_DATA, 7, off + CHUNK, data, n1, 0);
                n = 2;
            }
        }
        size_t nb = deliver(&pl, dg, n);
        hits += walk_same(&pl, nb, dg, n);
        for (int k = 0; k < n; k++) {
            tn_am_hdr_t am;
            memcpy(&am, dg[k]->bytes + sizeof(tn_udp_hdr_t), sizeof(am));
            tn_udp_direct_seen(&p, &am, am.size);
            off += am.size;
        }
        rounds++;
    }
    CHECK(hits == 6 && rounds == 4);                /* 1000 x 5 + 500 */
    CHECK(memcmp(buf, data, sizeof(buf)) == 0);     /* every byte placed by the "kernel" */
    tn_udp_direct_plan(&pl, &p, 3, CHUNK, CAP, heads, spill);
    CHECK(pl.n == 0 && pl.niov == 1);               /* nothing left to predict */
    tn_udp_direct_clear(&p);
}

/* What is not predicted still comes out whole: an ack, a later piece, a
 * piece with SACK ranges (gathered), another peer's piece, datagrams
 * beyond the plan (in the spill area). */
static void test_misses(void)
{
    static char data[8000], buf[8000];
    for (size_t i = 0; i < sizeof(data); i++) {
        data[i] = (char)next_rand();
    }
    tn_udp_dpeer_t p = { 0 };
    CHECK(tn_udp_direct_add(&p, 5, buf, sizeof(buf)) == TN_OK);
    tn_udp_dplan_t pl;
    dgram_t a, b, c;

    tn_udp_direct_plan(&pl, &p, 2, CHUNK, CAP, heads, spill);
    CHECK(pl.n == 2 && pl.niov == 5);
    make_ack(&a, 2);
    dgram_t *one[1] = { &a };
    CHECK(walk_same(&pl, deliver(&pl, one, 1), one, 1) == 0);

    /* pieces 1 and 2 where 0 and 1 were planned: aligned, not hits */
    tn_udp_direct_plan(&pl, &p, 2, CHUNK, CAP, heads, spill);
    make(&a, 2, TN_AM_DATA, 5, 1000, data, CHUNK, 0);
    make(&b, 2, TN_AM_DATA, 5, 2000, data, CHUNK, 0);
    dgram_t *two[2] = { &a, &b };
    CHECK(walk_same(&pl, deliver(&pl, two, 2), two, 2) == 0);

    /* the planned piece from another peer, then the planned one with SACK
     * ranges (its layout shifts: gathered) */
    tn_udp_direct_plan(&pl, &p, 2, CHUNK, CAP, heads, spill);
    make(&a, 9, TN_AM_DATA, 5, 0, data, CHUNK, 0);
    CHECK(walk_same(&pl, deliver(&pl, one, 1), one, 1) == 0);
    make(&a, 2, TN_AM_DATA, 5, 0, data, CHUNK, 2);
    make(&b, 2, TN_AM_DATA, 5, 1000, data, CHUNK, 2);
    tn_udp_direct_plan(&pl, &p, 2, CHUNK, CAP, heads, spill);
    CHECK(walk_same(&pl, deliver(&pl, two, 2), two, 2) == 0);

    /* no plan at all (no stream): contiguous in the spill area */
    tn_udp_direct_plan(&pl, NULL, 2, CHUNK, CAP, heads, spill);
    CHECK(pl.n == 0);
    make(&a, 2, TN_AM_DATA, 5, 0, data, CHUNK, 0);
    make(&b, 2, TN_AM_DATA, 5, 1000, data, CHUNK, 0);
    CHECK(walk_same(&pl, deliver(&pl, two, 2), two, 2) == 0);

    /* small datagrams of one size, more than planned: the rest spills */
    tn_udp_direct_plan(&pl, &p, 2, CHUNK, CAP, heads, spill);
    make(&a, 2, TN_AM_EAGER, 0, 0, data, 10, 0);
    make(&b, 2, TN_AM_EAGER, 0, 10, data, 10, 0);
    make(&c, 2, TN_AM_EAGER, 0, 20, data, 10, 0);
    dgram_t *three[3] = { &a, &b, &c };
    CHECK(walk_same(&pl, deliver(&pl, three, 3), three, 3) == 0);

    /* a hit: the piece at the cursor, with the right size */
    make(&a, 2, TN_AM_DATA, 5, 0, data, CHUNK, 0);
    tn_udp_direct_plan(&pl, &p, 2, CHUNK, CAP, heads, spill);
    CHECK(walk_same(&pl, deliver(&pl, one, 1), one, 1) == 1);
    CHECK(memcmp(buf, data, CHUNK) == 0);
    tn_udp_direct_clear(&p);
}

/* A stream ending on a full chunk runs into the next one (one GSO run may
 * hold both); one ending short ends the plan. */
static void test_streams(void)
{
    static char s1[2000], s2[1500], s3[500];
    tn_udp_dpeer_t p = { 0 };
    CHECK(tn_udp_direct_add(&p, 1, s1, sizeof(s1)) == TN_OK);
    CHECK(tn_udp_direct_add(&p, 2, s2, sizeof(s2)) == TN_OK);
    CHECK(tn_udp_direct_add(&p, 3, s3, sizeof(s3)) == TN_OK);
    tn_udp_dplan_t pl;
    p.head->cursor = 1000;
    tn_udp_direct_plan(&pl, &p, 1, CHUNK, CAP, heads, spill);
    CHECK(pl.n == 2 && pl.rreq[0] == 1 && pl.off[0] == 1000 && pl.rreq[1] == 2 &&
          pl.off[1] == 0 && pl.iov[3].iov_base == s2);
    p.head->cursor = 2000;
    p.head->next->cursor = 1000;
    tn_udp_direct_plan(&pl, &p, 1, CHUNK, CAP, heads, spill);
    CHECK(pl.n == 1 && pl.rreq[0] == 2 && pl.plen[0] == 500);   /* short: the run ends */
    /* too small a receive for one datagram: no plan */
    tn_udp_direct_plan(&pl, &p, 1, CHUNK, HEAD + 100, heads, spill);
    CHECK(pl.n == 0);
    tn_udp_direct_clear(&p);
}

/* Random traffic from two peers with two streams each, reordered and
 * duplicated, mixed with acks and small messages, coalesced at random: the
 * "core" copies every piece whose payload is not in place when it first
 * arrives (later copies are duplicates and dropped, as the connection
 * would).  At the end every stream holds its data exactly. */
static void test_random(void)
{
    enum { NS = 4, LEN = 23456 };
    static char data[NS][LEN], buf[NS][LEN];
    static unsigned char got[NS][LEN / CHUNK + 1];
    for (int round = 0; round < 200; round++) {
        tn_udp_dpeer_t peer[2] = { { 0 }, { 0 } };
        memset(got, 0, sizeof(got));
        for (int s = 0; s < NS; s++) {
            for (int i = 0; i < LEN; i++) {
                data[s][i] = (char)next_rand();
            }
            memset(buf[s], 0, LEN);
            CHECK(tn_udp_direct_add(&peer[s / 2], 100 + (uint64_t)s, buf[s], LEN) == TN_OK);
        }
        /* the datagrams in sending order, then locally shuffled */
        static dgram_t dg[400];
        int nd = 0;
        for (int s = 0; s < NS; s++) {
            for (size_t off = 0; off < LEN; off += CHUNK) {
                size_t n = LEN - off < CHUNK ? LEN - off : CHUNK;
                make(&dg[nd++], (uint32_t)(s / 2), TN_AM_DATA, 100 + (uint64_t)s, off, data[s],
                     n, next_rand() % 10 == 0 ? (int)(next_rand() % 3) : 0);
                if (next_rand() % 8 == 0) {
                    dg[nd] = dg[nd - 1];            /* a duplicate */
                    nd++;
                }
                if (next_rand() % 10 == 0) {
                    make_ack(&dg[nd++], (uint32_t)(next_rand() % 2));
                }
            }
        }
        for (int i = 0; i < nd; i++) {
            if (next_rand() % 6 == 0) {
                int j = i + (int)(next_rand() % 5);
                if (j < nd) {
                    dgram_t t = dg[i];
                    dg[i] = dg[j];
                    dg[j] = t;
                }
            }
        }
        int i = 0, last = 0;
        while (i < nd) {
            /* coalesce like GRO: one source, equal sizes, the last may be shorter */
            dgram_t *grp[8];
            int n = 0;
            size_t bytes = 0;
            uint32_t src;
            memcpy(&src, dg[i].bytes + offsetof(tn_udp_hdr_t, src), sizeof(src));
            int want = 1 + (int)(next_rand() % 3);
            while (i < nd && n < want) {
                uint32_t s2;
                memcpy(&s2, dg[i].bytes + offsetof(tn_udp_hdr_t, src), sizeof(s2));
                if (n > 0 && (s2 != src || dg[i].len > grp[0]->len ||
                              bytes + dg[i].len > CAP || grp[n - 1]->len < grp[0]->len)) {
                    break;
                }
                grp[n++] = &dg[i++];
                bytes += grp[n - 1]->len;
            }
            /* plan as udp.c does: the peer whose data came last */
            int pk = tn_udp_direct_next_stream(&peer[last]) != NULL ? last : 1 - last;
            tn_udp_dplan_t pl;
            tn_udp_direct_plan(&pl, &peer[pk], (uint32_t)pk, CHUNK, CAP, heads, spill);
            size_t nb = deliver(&pl, grp, n);
            tn_udp_dgram_t d;
            int k = 0;
            tn_udp_direct_begin(&pl, nb, n > 1 ? grp[0]->len : nb, scratch);
            while (tn_udp_direct_next(&pl, nb, scratch, &d)) {
                char whole[2048];
                memcpy(whole, d.pkt, d.len);
                if (d.tail != NULL) {
                    memcpy(whole + d.len, d.tail, d.tail_len);
                }
                CHECK(k < n && d.len + d.tail_len == grp[k]->len &&
                      memcmp(whole, grp[k]->bytes, grp[k]->len) == 0);
                k++;
                tn_udp_hdr_t h;
                memcpy(&h, whole, sizeof(h));
                if (h.type != TN_UDP_PKT_DATA) {
                    continue;
                }
                size_t hl = sizeof(h) + (size_t)h.nsack * sizeof(tn_udp_sack_t);
                tn_am_hdr_t am;
                memcpy(&am, whole + hl, sizeof(am));
                int s = (int)(am.rreq - 100);
                const char *payload = d.tail != NULL ? d.tail : whole + hl + sizeof(am);
                if (d.hit) {
                    CHECK(payload == buf[s] + am.addr);
                }
                if (!got[s][am.addr / CHUNK]) {     /* first arrival: "delivered" */
                    got[s][am.addr / CHUNK] = 1;
                    if (payload != buf[s] + am.addr) {
                        memmove(buf[s] + am.addr, payload, am.size);
                    }
                }
                tn_udp_direct_seen(&peer[h.src], &am, am.size);
                last = (int)h.src;
            }
            CHECK(k == n);
        }
        for (int s = 0; s < NS; s++) {
            CHECK(memcmp(buf[s], data[s], LEN) == 0);
        }
        tn_udp_direct_clear(&peer[0]);
        tn_udp_direct_clear(&peer[1]);
        if (failures) {
            fprintf(stderr, "test_random: round %d failed\n", round);
            break;
        }
    }
}

int main(void)
{
    test_registry();
    test_in_order();
    test_misses();
    test_streams();
    test_random();
    return tn_check_report("test_direct");
}
