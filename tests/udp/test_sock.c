/* udp_sock over real loopback sockets: connected routes, the flat send of a
 * lone small datagram, GSO runs, and the receive side's splitting of
 * (possibly GRO-coalesced) buffers by the datagrams' own headers. */
#include "xport/udp/udp_sock.h"
#include "xport/udp/udp_proto.h"

#include <arpa/inet.h>
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
        int n = tn_udp_sock_recv(b, 0, rbuf, CAP, lens, segs, 32);
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
                                 .len2 = d[i].h.len, .rail = 0, .route = route, .to = *to };
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
    for (int i = 0; i < n; i++) {
        make(&d[i], tag0 + (uint32_t)i, i == n - 1 ? last_len : len);
    }
    send_run(a, d, n, route, &b->addr[0]);
    int got = receive(b, n, tags, dlens, &coalesced);
    CHECK(got == n, "%s: received %d datagrams, sent %d", what, got, n);
    for (int i = 0; i < got && i < n; i++) {
        size_t want = sizeof(tn_udp_hdr_t) + (i == n - 1 ? last_len : len);
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
    if (tn_udp_sock_open(&a, "127.0.0.1", 1, 4 << 20, 1, &nofault) != TN_OK ||
        tn_udp_sock_open(&b, "127.0.0.1", 1, 4 << 20, 1, &nofault) != TN_OK) {
        fprintf(stderr, "cannot open loopback sockets\n");
        return 1;
    }
    CHECK(tn_udp_sock_recv_cap(&b, 8192) == (b.gro[0] ? 65536u : 8192u), "recv cap");

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

    /* foreign input: a datagram larger than the buffer is flagged (length
     * 0), and one whose header claims more than arrived is taken whole */
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    static char big[65000];
    memset(big, 0x5a, sizeof(big));
    size_t lens[32], segs[32];
    if (sendto(fd, big, sizeof(big), 0, (struct sockaddr *)&b.addr[0], sizeof(b.addr[0])) ==
        (ssize_t)sizeof(big)) {
        int n = 0;
        for (int tries = 0; n == 0 && tries < 100; tries++) {
            tn_udp_sock_wait(&b, 10000000, -1);
            n = tn_udp_sock_recv(&b, 0, rbuf, 8192, lens, segs, 32);
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
            n = tn_udp_sock_recv(&b, 0, rbuf, CAP, lens, segs, 32);
        }
        CHECK(n == 1 && lens[0] == sizeof(liar.h) + 100 && segs[0] == lens[0],
              "a header claiming too much: n %d, len %zu, seg %zu", n, n > 0 ? lens[0] : 0,
              n > 0 ? segs[0] : 0);
    }
    close(fd);

    CHECK(a.stats.send_errors == 0, "send errors %llu", (unsigned long long)a.stats.send_errors);
    tn_udp_sock_close(&a);
    tn_udp_sock_close(&b);
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
