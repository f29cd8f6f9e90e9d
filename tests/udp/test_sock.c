/* udp_sock over real loopback sockets: connected routes, the flat send of a
 * lone small datagram, GSO runs, zero-copy (spliced) sends, and the receive
 * side's splitting of (possibly GRO-coalesced) buffers by the datagrams'
 * own headers. */
#include "xport/udp/udp_sock.h"
#include "xport/udp/udp_proto.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int failures;

#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fprintf(stderr, "\n");                                          \
            failures++;                                                     \
        }                                                                   \
    } while (0)

#define CAP 65536
#define MAXD 80

static char rbuf[32 * CAP];
/* send_run marks payloads zcopy (they stay put until received here) */
static int zcopy;
/* check_run: odd datagrams get len / odd_div bytes (1: all the same) */
static int odd_div = 1;

/* A datagram of ours: header (nsack 0) and payload, payload bytes derived
 * from (tag, i) so every byte is checked on arrival. */
typedef struct {
    tn_udp_hdr_t h;
    char         payload[9000];
} dgram_t;

static void make(dgram_t *d, uint32_t tag, uint16_t len)
{
    memset(&d->h, 0, sizeof(d->h));
    d->h.version = TN_UDP_VERSION;
    d->h.type = TN_UDP_PKT_DATA;
    d->h.psn = tag;
    d->h.len = len;
    for (uint16_t i = 0; i < len; i++) {
        d->payload[i] = (char)(tag * 31u + i * 7u);
    }
}

static int verify(const char *p, size_t len)
{
    tn_udp_hdr_t h;
    if (len < sizeof(h)) {
        return -1;
    }
    memcpy(&h, p, sizeof(h));
    if (sizeof(h) + h.len != len) {
        return -1;
    }
    for (uint16_t i = 0; i < h.len; i++) {
        if (p[sizeof(h) + i] != (char)(h.psn * 31u + i * 7u)) {
            return -1;
        }
    }
    return (int)h.psn;
}

/* Receive on b until want datagrams arrived (split as udp.c splits them) or
 * a second passed; records each datagram's tag and length in order. */
static int receive(tn_udp_sock_t *b, int want, int *tags, size_t *dlens, int *coalesced)
{
    int got = 0;
    *coalesced = 0;
    for (int tries = 0; got < want && tries < 100; tries++) {
        size_t lens[32], segs[32];
        struct sockaddr_in from[32];
        int n = tn_udp_sock_recv(b, 0, rbuf, CAP, lens, segs, from, 32);
        if (n == 0) {
            tn_udp_sock_wait(b, 10000000, -1);
            continue;
        }
        for (int i = 0; i < n; i++) {
            const char *buf = rbuf + (size_t)i * CAP;
            size_t seg = segs[i] != 0 ? segs[i] : lens[i], off = 0;
            if (seg < lens[i]) {
                (*coalesced)++;
            }
            do {
                size_t len = lens[i] - off < seg ? lens[i] - off : seg;
                if (got < MAXD) {
                    tags[got] = verify(buf + off, len);
                    dlens[got] = len;
                }
                got++;
                off += len;
            } while (off < lens[i]);
        }
    }
    return got;
}

static void send_run(tn_udp_sock_t *a, dgram_t *d, int n, int route, const struct sockaddr_in *to)
{
    tn_udp_out_t out[MAXD];
    for (int i = 0; i < n; i++) {
        /* header and payload as two pieces, as udp.c hands them over */
        out[i] = (tn_udp_out_t){ .buf = &d[i].h, .len = sizeof(d[i].h), .buf2 = d[i].payload,
                                 .len2 = d[i].h.len, .zcopy = zcopy, .rail = 0,
                                 .route = route, .to = *to };
    }
    int failed = -1;
    int handled = tn_udp_sock_send(a, out, n, &failed);
    CHECK(handled == n && failed == -1, "handled %d of %d, failed rail %d", handled, n, failed);
}

static void check_run(tn_udp_sock_t *a, tn_udp_sock_t *b, int route, int n, uint16_t len,
                      uint16_t last_len, uint32_t tag0, const char *what)
{
    static dgram_t d[MAXD];
    int tags[MAXD];
    size_t dlens[MAXD];
    int coalesced;
    uint16_t lens[MAXD];
    for (int i = 0; i < n; i++) {
        lens[i] = i == n - 1 ? last_len : i % 2 ? (uint16_t)(len / odd_div) : len;
        make(&d[i], tag0 + (uint32_t)i, lens[i]);
    }
    send_run(a, d, n, route, &b->addr[0]);
    int got = receive(b, n, tags, dlens, &coalesced);
    CHECK(got == n, "%s: received %d datagrams, sent %d", what, got, n);
    for (int i = 0; i < got && i < n; i++) {
        size_t want = sizeof(tn_udp_hdr_t) + lens[i];
        CHECK(tags[i] == (int)(tag0 + (uint32_t)i) && dlens[i] == want,
              "%s: datagram %d has tag %d, %zu bytes; wanted %u, %zu", what, i, tags[i],
              dlens[i], tag0 + (unsigned)i, want);
    }
    printf("%s: %d datagrams, %d coalesced receive buffers\n", what, got, coalesced);
}

int main(void)
{
    tn_udp_fault_cfg_t nofault = { 0 };
    tn_udp_sock_t a, b;
    if (tn_udp_sock_open(&a, "127.0.0.1", 1, 4 << 20, 1, &nofault, 0, 0) != TN_OK ||
        tn_udp_sock_open(&b, "127.0.0.1", 1, 4 << 20, 1, &nofault, 0, 0) != TN_OK) {
        fprintf(stderr, "cannot open loopback sockets\n");
        return 1;
    }
    CHECK(tn_udp_sock_recv_cap(&b, 8192) == (b.gro[0] ? 65536u : 8192u), "recv cap");
    /* datagrams per GSO send: 64 KiB's worth, at most 64, 1 without GSO */
    CHECK(tn_udp_sock_gso_segs(&a, 1472) == (a.gso[0] ? 44 : 1), "gso segs 1472");
    CHECK(tn_udp_sock_gso_segs(&a, 1024) == (a.gso[0] ? 63 : 1), "gso segs 1024");
    CHECK(tn_udp_sock_gso_segs(&a, 32768) == 1, "gso segs 32768");

    /* routes: a limit of one per rail */
    tn_udp_sock_set_routes(&a, 1);
    int route = tn_udp_sock_route(&a, 0, &b.addr[0]);
    CHECK(route == 0, "first route %d", route);
    CHECK(tn_udp_sock_route(&a, 0, &b.addr[0]) == -1, "a second route beyond the limit");
    CHECK(tn_udp_sock_route(&a, 3, &b.addr[0]) == -1, "a route on a rail that does not exist");

    /* a lone small datagram: the flat send(), connected and not */
    check_run(&a, &b, route, 1, 8, 8, 100, "lone 8 B, connected");
    check_run(&a, &b, -1, 1, 8, 8, 110, "lone 8 B, unconnected");
    check_run(&a, &b, route, 1, 0, 0, 120, "lone empty payload, connected");
    /* a lone datagram above the flat limit goes out with sendmsg */
    check_run(&a, &b, route, 1, 3000, 3000, 130, "lone 3000 B, connected");
    check_run(&a, &b, -1, 1, 8000, 8000, 140, "lone 8000 B, unconnected");

    /* GSO runs, the last shorter; GRO may hand them over coalesced */
    check_run(&a, &b, route, 40, 8000, 1234, 1000, "run of 40 x 8000 B, connected");
    check_run(&a, &b, -1, 40, 8000, 8000, 2000, "run of 40 x 8000 B, unconnected");
    check_run(&a, &b, route, 64, 1000, 1000, 3000, "run of 64 x 1000 B, connected");
    check_run(&a, &b, route, 7, 1400, 3, 4000, "run of 7 x 1400 B, last 3 B");

    /* zero-copy sends: payloads of at least 4 KiB through a connected
     * route are spliced, in order with what goes by copy */
    CHECK(tn_udp_sock_set_splice(&a, 4096) == 1, "zero-copy sends could not be turned on");
    zcopy = 1;
    uint64_t spliced = a.stats->splice_sends;
    check_run(&a, &b, route, 20, 8000, 8000, 5000, "zero-copy 20 x 8000 B, connected");
    CHECK(a.stats->splice_sends - spliced == 20, "spliced %llu of 20",
          (unsigned long long)(a.stats->splice_sends - spliced));
    spliced = a.stats->splice_sends;
    check_run(&a, &b, -1, 20, 8000, 8000, 5100, "zero-copy asked, unconnected");
    CHECK(a.stats->splice_sends == spliced, "spliced without a connected route");
    odd_div = 8;
    check_run(&a, &b, route, 31, 8000, 3, 5200, "zero-copy 8000 B and copied 1000 B alternating");
    CHECK(a.stats->splice_sends - spliced == 15, "spliced %llu of the 15 large ones",
          (unsigned long long)(a.stats->splice_sends - spliced));
    odd_div = 1;
    /* a pipe of 8 pages: runs of two datagrams (a header page and three
     * payload pages each) */
    int pages = a.pipe_pages;
    a.pipe_pages = 8;
    spliced = a.stats->splice_sends;
    check_run(&a, &b, route, 25, 8000, 8000, 5300, "zero-copy through an 8-page pipe");
    CHECK(a.stats->splice_sends - spliced == 25 && a.stats->splice_fallbacks == 0,
          "spliced %llu of 25, %llu runs by copy",
          (unsigned long long)(a.stats->splice_sends - spliced),
          (unsigned long long)a.stats->splice_fallbacks);
    a.pipe_pages = pages;
    CHECK(a.piped == 0, "%zu bytes left in the pipe", a.piped);

    /* a route to a socket that is gone: the refused datagrams are lost
     * (counted), the pipe is left empty, and zero-copy goes on */
    {
        tn_udp_sock_t c;
        CHECK(tn_udp_sock_open(&c, "127.0.0.1", 1, 1 << 20, 0, &nofault, 0, 0) == TN_OK,
              "open c");
        CHECK(tn_udp_sock_gso_segs(&c, 1472) == 1, "no gso: one datagram per send");
        tn_udp_sock_set_routes(&a, 2);
        int dead = tn_udp_sock_route(&a, 0, &c.addr[0]);
        CHECK(dead == 1, "second route %d", dead);
        tn_udp_sock_close(&c);
        static dgram_t dd[4];
        for (int i = 0; i < 4; i++) {
            make(&dd[i], 6000 + (uint32_t)i, 8000);
        }
        uint64_t errs = a.stats->send_errors;
        for (int i = 0; i < 4; i++) {
            send_run(&a, &dd[i], 1, dead, &c.addr[0]);  /* the first draws the ICMP error */
        }
        CHECK(a.stats->send_errors > errs, "no send refused towards a closed port");
        CHECK(a.piped == 0, "%zu bytes left in the pipe after refused splices", a.piped);
        CHECK(a.splice_min == 4096, "zero-copy turned off by a refused datagram");
        a.stats->send_errors = errs;
        spliced = a.stats->splice_sends;
        check_run(&a, &b, route, 10, 8000, 8000, 6100, "zero-copy after refused datagrams");
        CHECK(a.stats->splice_sends - spliced == 10, "spliced %llu of 10 after refusals",
              (unsigned long long)(a.stats->splice_sends - spliced));
    }

    /* duplicated by the fault injector: each spliced twice, in order */
    {
        tn_udp_fault_cfg_t dup = { .dup = 100, .seed = 7 };
        tn_udp_sock_t f;
        CHECK(tn_udp_sock_open(&f, "127.0.0.1", 1, 4 << 20, 1, &dup, 0, 0) == TN_OK, "open f");
        tn_udp_sock_set_routes(&f, 1);
        int fr = tn_udp_sock_route(&f, 0, &b.addr[0]);
        CHECK(fr == 0 && tn_udp_sock_set_splice(&f, 4096) == 1, "route / splice on f");
        static dgram_t fd8[8];
        for (int i = 0; i < 8; i++) {
            make(&fd8[i], 7000 + (uint32_t)i, 8000);
        }
        send_run(&f, fd8, 8, fr, &b.addr[0]);
        int tags[MAXD], coalesced;
        size_t dl[MAXD];
        int got = receive(&b, 16, tags, dl, &coalesced);
        CHECK(got == 16, "duplicated: received %d of 16", got);
        for (int i = 0; i < got && i < 16; i++) {
            CHECK(tags[i] == 7000 + i / 2, "duplicated: datagram %d has tag %d", i, tags[i]);
        }
        CHECK(f.stats->splice_sends == 16 && f.piped == 0, "duplicated: spliced %llu, piped %zu",
              (unsigned long long)f.stats->splice_sends, f.piped);
        tn_udp_sock_close(&f);
    }

    /* off again: zcopy payloads go by copy */
    CHECK(tn_udp_sock_set_splice(&a, 0) == 0 && a.pipe[0] == -1, "zero-copy off");
    spliced = a.stats->splice_sends;
    check_run(&a, &b, route, 10, 8000, 8000, 6200, "zcopy with zero-copy sends off");
    CHECK(a.stats->splice_sends == spliced, "spliced with zero-copy sends off");
    zcopy = 0;

    /* foreign input: a datagram larger than the buffer is flagged (length
     * 0), and one whose header claims more than arrived is taken whole */
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    static char big[65000];
    memset(big, 0x5a, sizeof(big));
    size_t lens[32], segs[32];
    struct sockaddr_in from[32];
    if (sendto(fd, big, sizeof(big), 0, (struct sockaddr *)&b.addr[0], sizeof(b.addr[0])) ==
        (ssize_t)sizeof(big)) {
        int n = 0;
        for (int tries = 0; n == 0 && tries < 100; tries++) {
            tn_udp_sock_wait(&b, 10000000, -1);
            n = tn_udp_sock_recv(&b, 0, rbuf, 8192, lens, segs, from, 32);
        }
        CHECK(n == 1 && lens[0] == 0, "an oversized datagram: n %d, len %zu", n,
              n > 0 ? lens[0] : 0);
    }
    dgram_t liar;
    make(&liar, 9, 100);
    liar.h.len = 5000;                  /* claims more than the 148 B sent */
    if (sendto(fd, &liar, sizeof(liar.h) + 100, 0, (struct sockaddr *)&b.addr[0],
               sizeof(b.addr[0])) > 0) {
        int n = 0;
        for (int tries = 0; n == 0 && tries < 100; tries++) {
            tn_udp_sock_wait(&b, 10000000, -1);
            n = tn_udp_sock_recv(&b, 0, rbuf, CAP, lens, segs, from, 32);
        }
        CHECK(n == 1 && lens[0] == sizeof(liar.h) + 100 && segs[0] == lens[0],
              "a header claiming too much: n %d, len %zu, seg %zu", n, n > 0 ? lens[0] : 0,
              n > 0 ? segs[0] : 0);
    }
    /* coalesced datagrams are cut where the kernel says, never where the
     * first one's header says: four segments of 500 bytes sent as one GSO
     * send, the first claiming to be 148 bytes long */
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
    int seg = 500;
    static char gso[2000];
    memset(gso, 0x33, sizeof(gso));
    liar.h.len = 76;                    /* the header and 76 bytes: 148 */
    memcpy(gso, &liar, sizeof(liar.h));
    if (b.gro[0] && setsockopt(fd, SOL_UDP, UDP_SEGMENT, &seg, sizeof(seg)) == 0 &&
        sendto(fd, gso, sizeof(gso), 0, (struct sockaddr *)&b.addr[0], sizeof(b.addr[0])) ==
            (ssize_t)sizeof(gso)) {
        size_t got = 0;
        int bufs = 0;
        for (int tries = 0; got < sizeof(gso) && tries < 100; tries++) {
            tn_udp_sock_wait(&b, 10000000, -1);
            int n = tn_udp_sock_recv(&b, 0, rbuf, CAP, lens, segs, from, 32);
            for (int i = 0; i < n; i++) {
                CHECK(segs[i] == 500, "a coalesced buffer of %zu bytes cut at %zu, not 500",
                      lens[i], segs[i]);
                got += lens[i];
                bufs++;
            }
        }
        CHECK(got == sizeof(gso), "GSO send: %zu of %zu bytes arrived", got, sizeof(gso));
        printf("gso send of 4 x 500 B arrived in %d buffer(s)\n", bufs);
    }
    close(fd);

    CHECK(a.stats->send_errors == 0, "send errors %llu", (unsigned long long)a.stats->send_errors);
    tn_udp_sock_close(&a);
    tn_udp_sock_close(&b);
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
