/* Rail choice (udp_rails.h): cards, duplicated addresses across nodes,
 * reach by subnet and by route (longest prefix), the pairs of two ranks
 * (mirrored on both sides), pinned lists, the plan's messages; then the
 * socket side (udp_sock.h): routes read from a route table, sockets bound
 * inside a port range, a full range refused, unused rails closed. */
#include "xport/udp/udp_rails.h"
#include "xport/udp/udp_sock.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

#define MAXN 16

static tn_udp_card_t cards[MAXN];
static int node_of[MAXN];
static uint32_t dups[MAXN];

static void card(int r, int node, const char *str)
{
    node_of[r] = node;
    if (tn_udp_card_parse(str, &cards[r]) != TN_OK) {
        fprintf(stderr, "FAIL: test card '%s' does not parse\n", str);
        exit(1);
    }
}

static uint32_t ip(const char *s)
{
    struct in_addr a;
    inet_pton(AF_INET, s, &a);
    return a.s_addr;
}

/* The pairs of me and peer as "m-p,m-p" (mine-peer candidate indices). */
static const char *pairs(int me, int peer)
{
    static char buf[64];
    tn_udp_pair_t p[TN_UDP_MAX_RAILS];
    int n = tn_udp_rails_between(cards, dups, me, peer, p);
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%u-%u", i ? "," : "",
                                (unsigned)p[i].mine, (unsigned)p[i].peer);
    }
    return buf;
}

static void test_card_format(void)
{
    static const char *good[] = {
        "a", "p,127.0.0.1/8:5000",
        "a,10.1.2.3/24:40000+10.9.0.0/16+10.0.0.0/8+192.168.1.7/32,172.17.0.1/16:1",
        "a,255.255.255.255/32:65535,0.0.0.0/0:1",
    };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        tn_udp_card_t c;
        char out[TN_UDP_CARD_LEN];
        CHECK(tn_udp_card_parse(good[i], &c) == TN_OK, "'%s' parses", good[i]);
        CHECK(tn_udp_card_format(&c, out, sizeof(out)) != 0 && strcmp(out, good[i]) == 0,
              "'%s' formats back, got '%s'", good[i], out);
    }
    static const char *bad[] = {
        "", "x;", "a;", "a,", "ap", "a:", "a,10.0.0.1:5000", "a,10.0.0.1/24", "a,10.0.0.1/33:5",
        "a,10.0.0.1/24:0", "a,10.0.0.1/24:65536", "a,10.0.0.1/24:123456", "a,10.0.0.1/-1:5",
        "a,10.0.0.1/24:5,", "a,,10.0.0.1/24:5", "a,10.0.0.1/24:5;", "a,10.0.0.256/24:5",
        "a,10.0.0/24:5", "a,10.0.0.1/24:5+", "a,10.0.0.1/24:5+10.9.0.0/0",
        "a,10.0.0.1/24:5+10.9.0.1/16",
        "a,10.0.0.1/24:5+10.9.0.0/16+10.8.0.0/16+10.7.0.0/16+10.6.0.0/16",
        "a,010.0.0.1/24:5", "a,10.0.0.1/24:+5", "a,10.0.0.1/24:5 ",
        ("a,1.0.0.1/8:1,1.0.0.2/8:1,1.0.0.3/8:1,1.0.0.4/8:1,1.0.0.5/8:1,1.0.0.6/8:1,"
         "1.0.0.7/8:1,1.0.0.8/8:1,1.0.0.9/8:1"),
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        tn_udp_card_t c;
        CHECK(tn_udp_card_parse(bad[i], &c) != TN_OK, "'%s' refused", bad[i]);
    }
    /* the longest card fits the buffer and a PMI value */
    tn_udp_card_t big = { .pinned = 1, .n = TN_UDP_MAX_CANDS };
    for (int i = 0; i < TN_UDP_MAX_CANDS; i++) {
        big.c[i] = (tn_udp_cand_t){ .addr = 0xFFFFFFFF, .port = 65535, .len = 32,
                                    .nroutes = TN_UDP_CAND_ROUTES };
        for (int k = 0; k < TN_UDP_CAND_ROUTES; k++) {
            big.c[i].route[k] = (tn_udp_prefix_t){ 0xFFFFFFFF, 32 };
        }
    }
    char out[TN_UDP_CARD_LEN];
    size_t len = tn_udp_card_format(&big, out, sizeof(out));
    CHECK(len != 0 && len < 1024, "longest card %zu bytes", len);
    CHECK(tn_udp_card_format(&big, out, len) == 0, "a buffer one short is refused");
}

/* Two nodes with two rails each, plus docker0's 172.17.0.1 on both. */
static void test_docker(void)
{
    card(0, 0, "a,10.1.0.1/24:1000,172.17.0.1/16:1001,10.2.0.1/24:1002");
    card(1, 0, "a,10.1.0.1/24:1100,172.17.0.1/16:1101,10.2.0.1/24:1102");
    card(2, 1, "a,172.17.0.1/16:2000,10.1.0.2/24:2001,10.2.0.2/24:2002");
    card(3, 1, "a,172.17.0.1/16:2100,10.1.0.2/24:2101,10.2.0.2/24:2102");
    CHECK(tn_udp_rails_dups(cards, node_of, 4, dups) == TN_OK, "dups");
    CHECK(dups[0] == 2 && dups[1] == 2 && dups[2] == 1 && dups[3] == 1, "dups %x %x %x %x",
          dups[0], dups[1], dups[2], dups[3]);
    CHECK(tn_udp_rails_dup_rank(cards, node_of, 4, 0, 1) == 2, "rank 2 has it too");
    CHECK(tn_udp_rails_dup_rank(cards, node_of, 4, 3, 0) == 0, "rank 0 has it too");
    CHECK(tn_udp_rails_dup_rank(cards, node_of, 4, 0, 0) == -1, "10.1.0.1 is unique");
    CHECK(strcmp(pairs(0, 2), "0-1,2-2") == 0, "0-2: %s", pairs(0, 2));
    CHECK(strcmp(pairs(2, 0), "1-0,2-2") == 0, "2-0: %s", pairs(2, 0));
    CHECK(strcmp(pairs(3, 1), "1-0,2-2") == 0, "3-1: %s", pairs(3, 1));
    /* ranks of one node share addresses; the duplicated one is not used
     * between them either */
    CHECK(strcmp(pairs(0, 1), "0-0,2-2") == 0, "0-1: %s", pairs(0, 1));

    /* docker0 on one node only: unique, but it reaches nobody elsewhere */
    card(2, 1, "a,10.1.0.2/24:2001,10.2.0.2/24:2002");
    card(3, 1, "a,10.1.0.2/24:2101,10.2.0.2/24:2102");
    tn_udp_rails_dups(cards, node_of, 4, dups);
    CHECK(dups[0] == 0 && dups[2] == 0, "no dups");
    CHECK(strcmp(pairs(0, 2), "0-0,2-1") == 0, "0-2: %s", pairs(0, 2));
    CHECK(strcmp(pairs(0, 1), "0-0,1-1,2-2") == 0, "0-1: %s", pairs(0, 1));

    /* the plan: the used sockets, and the log line */
    unsigned char use[4] = { 0, 1, 1, 1 };
    tn_udp_rails_t rails[4];
    unsigned used = 0;
    char msg[512];
    CHECK(tn_udp_rails_plan(cards, node_of, 4, 0, use, dups, rails, &used, msg, sizeof(msg)) ==
          TN_OK, "plan: %s", msg);
    CHECK(used == 7 && rails[2].n == 2 && rails[1].n == 3, "used %x", used);
    use[1] = 0;                     /* rank 1 over shared memory */
    CHECK(tn_udp_rails_plan(cards, node_of, 4, 0, use, dups, rails, &used, msg, sizeof(msg)) ==
          TN_OK && used == 5, "used %x", used);
    const char ifn[3][16] = { "eth0", "docker0", "eth1" };
    tn_udp_rails_summary(cards, node_of, 4, 0, dups, rails, use, ifn, msg, sizeof(msg));
    CHECK(strcmp(msg, "kept 10.1.0.1:1000 (eth0) for 2 peers; dropped 172.17.0.1 (docker0): "
                      "reaches no peer's rail; kept 10.2.0.1:1002 (eth1) for 2 peers") == 0,
          "summary '%s'", msg);
    card(2, 1, "a,172.17.0.1/16:2000,10.1.0.2/24:2001,10.2.0.2/24:2002");
    tn_udp_rails_plan(cards, node_of, 4, 0, use, dups, rails, &used, msg, sizeof(msg));
    tn_udp_rails_summary(cards, node_of, 4, 0, dups, rails, use, NULL, msg, sizeof(msg));
    CHECK(strstr(msg, "dropped 172.17.0.1: rank 2 on another node has it too") != NULL,
          "summary '%s'", msg);
}

/* Reach by subnet, by route, longest prefix, never by a default route. */
static void test_reach(void)
{
    /* different subnets, no routes: nothing */
    card(0, 0, "a,10.1.1.5/24:1000");
    card(1, 1, "a,10.1.2.7/24:1000");
    tn_udp_rails_dups(cards, node_of, 2, dups);
    CHECK(strcmp(pairs(0, 1), "") == 0, "no shared subnet: %s", pairs(0, 1));
    /* a route one way only: nothing (acks come back the same way) */
    card(0, 0, "a,10.1.1.5/24:1000+10.1.0.0/16");
    CHECK(strcmp(pairs(0, 1), "") == 0, "one-way route: %s", pairs(0, 1));
    /* routes both ways (a routed fabric) */
    card(1, 1, "a,10.1.2.7/24:1000+10.1.0.0/16");
    CHECK(strcmp(pairs(0, 1), "0-0") == 0, "routed: %s", pairs(0, 1));
    /* prefix lengths differ: each must hold the other in its subnet */
    card(0, 0, "a,10.0.0.1/16:1000");
    card(1, 1, "a,10.0.1.5/24:1000");
    CHECK(strcmp(pairs(0, 1), "") == 0, "/16 vs /24: %s", pairs(0, 1));
    card(1, 1, "a,10.0.0.5/24:1000");
    CHECK(strcmp(pairs(0, 1), "0-0") == 0, "/16 and /24 that hold each other: %s", pairs(0, 1));
    /* a subnet of /0 or a /32 reach nothing else */
    card(0, 0, "a,10.0.0.1/0:1000");
    card(1, 1, "a,10.0.0.2/0:1000");
    CHECK(strcmp(pairs(0, 1), "") == 0, "/0: %s", pairs(0, 1));
    card(0, 0, "a,10.0.0.1/32:1000");
    card(1, 1, "a,10.0.0.2/32:1000");
    CHECK(strcmp(pairs(0, 1), "") == 0, "/32: %s", pairs(0, 1));
    /* longest prefix: a wide route on eth0 loses to eth1's own subnet */
    card(0, 0, "a,10.1.1.5/24:1000+10.0.0.0/8,10.2.1.5/24:1001");
    CHECK(tn_udp_rails_reach(&cards[0], 0, ip("10.2.1.7")) == 0, "eth1's subnet wins");
    CHECK(tn_udp_rails_reach(&cards[0], 1, ip("10.2.1.7")) == 1, "eth1 reaches it");
    CHECK(tn_udp_rails_reach(&cards[0], 0, ip("10.3.0.1")) == 1, "eth0's route");
    CHECK(tn_udp_rails_reach(&cards[0], 1, ip("10.3.0.1")) == 0, "not eth1");
    CHECK(tn_udp_rails_reach(&cards[0], 0, ip("192.168.0.1")) == 0, "no default route");
    card(1, 1, "a,10.2.1.7/24:2000+10.0.0.0/8,10.1.1.7/24:2001");
    tn_udp_rails_dups(cards, node_of, 2, dups);
    CHECK(strcmp(pairs(0, 1), "0-1,1-0") == 0, "crossed order: %s", pairs(0, 1));
    CHECK(strcmp(pairs(1, 0), "1-0,0-1") == 0, "crossed order, mirrored: %s", pairs(1, 0));
    /* more rails than a connection takes */
    card(0, 0, "a,10.1.0.1/24:1,10.2.0.1/24:1,10.3.0.1/24:1,10.4.0.1/24:1,10.5.0.1/24:1");
    card(1, 1, "a,10.5.0.2/24:1,10.4.0.2/24:1,10.3.0.2/24:1,10.2.0.2/24:1,10.1.0.2/24:1");
    tn_udp_rails_dups(cards, node_of, 2, dups);
    CHECK(strcmp(pairs(0, 1), "0-4,1-3,2-2,3-1") == 0, "at most 4: %s", pairs(0, 1));
}

/* Pinned lists: used as given, by index; duplicates are fatal. */
static void test_pinned(void)
{
    char msg[512];
    unsigned used;
    tn_udp_rails_t rails[3];
    unsigned char use[3] = { 0, 1, 1 };
    card(0, 0, "p,10.1.0.1/24:1000,10.2.0.1/24:1001");
    card(1, 1, "p,10.9.0.2/24:1000");
    card(2, 2, "p,10.2.0.3/24:1000,10.1.0.3/24:1001");
    CHECK(tn_udp_rails_plan(cards, node_of, 3, 0, use, dups, rails, &used, msg, sizeof(msg)) ==
          TN_OK, "plan: %s", msg);
    CHECK(strcmp(pairs(0, 1), "0-0") == 0, "pinned, unreachable but as given: %s", pairs(0, 1));
    CHECK(strcmp(pairs(0, 2), "0-0,1-1") == 0, "pinned by index: %s", pairs(0, 2));
    CHECK(used == 3, "used %x", used);
    /* pinned meets auto: reach decides */
    card(2, 2, "a,10.2.0.3/24:1000,10.1.0.3/24:1001");
    CHECK(strcmp(pairs(0, 2), "0-1,1-0") == 0, "pinned and auto: %s", pairs(0, 2));
    /* a pinned address that another node has: every rank says so */
    card(2, 2, "a,10.1.0.9/24:1000,10.9.0.2/24:1001");
    for (int me = 0; me < 3; me++) {
        use[0] = use[1] = use[2] = 1;
        use[me] = 0;
        CHECK(tn_udp_rails_plan(cards, node_of, 3, me, use, dups, rails, &used, msg,
                                sizeof(msg)) == TN_ERR_INVAL, "rank %d: pinned duplicate", me);
        CHECK(strstr(msg, "TERN_UDP_RAILS: 10.9.0.2, a pinned rail of rank 1 (node 1), is also "
                          "an address of rank 2 (node 2)") != NULL, "message '%s'", msg);
    }
    /* the same on one node is fine */
    node_of[2] = 1;
    use[0] = 0;
    use[1] = use[2] = 1;
    CHECK(tn_udp_rails_plan(cards, node_of, 3, 0, use, dups, rails, &used, msg, sizeof(msg)) ==
          TN_OK, "plan: %s", msg);
}

/* No usable rail: a message naming both ranks and their addresses. */
static void test_no_rail(void)
{
    char msg[512];
    unsigned used;
    tn_udp_rails_t rails[3];
    unsigned char use[3] = { 0, 1, 1 };
    card(0, 0, "a,10.1.0.1/24:1000,172.17.0.1/16:1001");
    card(1, 1, "a,10.1.0.2/24:1000");
    card(2, 2, "a,10.3.0.3/24:1000,172.17.0.1/16:1001");
    CHECK(tn_udp_rails_plan(cards, node_of, 3, 0, use, dups, rails, &used, msg, sizeof(msg)) ==
          TN_ERR_INVAL, "no rail to rank 2");
    CHECK(strstr(msg, "no usable udp rail between rank 0 (10.1.0.1/24, 172.17.0.1/16 (on "
                      "another node too)) and rank 2 (10.3.0.3/24, 172.17.0.1/16 (on another "
                      "node too))") != NULL, "message '%s'", msg);
    use[2] = 0;
    CHECK(tn_udp_rails_plan(cards, node_of, 3, 0, use, dups, rails, &used, msg, sizeof(msg)) ==
          TN_OK && used == 1, "rank 2 not over udp: fine");
    card(1, 1, "a");
    use[1] = 1;
    CHECK(tn_udp_rails_plan(cards, node_of, 3, 0, use, dups, rails, &used, msg, sizeof(msg)) ==
          TN_ERR_INVAL && strstr(msg, "rank 1 (no IPv4 interface that is up and not loopback)"),
          "message '%s'", msg);
}

/* Random jobs: the pairs of every two ranks are mirrored, use distinct
 * candidates, never a duplicated address, reach both ways, and the dups
 * bits match their definition. */
static void test_random(void)
{
    uint64_t x = 88172645463325252ull;
    for (int round = 0; round < 2000; round++) {
        int n = 2 + (int)(x % (MAXN - 1)), nodes = 1 + (int)((x >> 8) % 4);
        for (int r = 0; r < n; r++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            node_of[r] = (int)(x % (uint64_t)nodes);
            tn_udp_card_t *c = &cards[r];
            memset(c, 0, sizeof(*c));
            c->n = (int)((x >> 4) % (TN_UDP_MAX_CANDS + 1));
            for (int i = 0; i < c->n; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                /* few addresses, so that they collide: 10.<s>.0.<h> */
                unsigned s = (unsigned)(x % 3), h = (unsigned)((x >> 8) % 4) + 1;
                c->c[i].addr = htonl(10u << 24 | s << 16 | h);
                c->c[i].len = (uint8_t)((x >> 16) % 3 == 0 ? 8 : 24);
                c->c[i].port = 1000;
                if ((x >> 20) % 4 == 0) {
                    c->c[i].nroutes = 1;
                    c->c[i].route[0] = (tn_udp_prefix_t){ htonl(10u << 24 | (s ^ 1) << 16), 16 };
                }
            }
        }
        tn_udp_rails_dups(cards, node_of, n, dups);
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < cards[r].n; i++) {
                int d = 0;
                for (int q = 0; q < n; q++) {
                    for (int k = 0; k < cards[q].n; k++) {
                        d |= node_of[q] != node_of[r] && cards[q].c[k].addr == cards[r].c[i].addr;
                    }
                }
                CHECK((int)(dups[r] >> i & 1) == d, "round %d rank %d cand %d dups", round, r, i);
            }
        }
        for (int a = 0; a < n; a++) {
            for (int b = 0; b < n; b++) {
                tn_udp_pair_t p[TN_UDP_MAX_RAILS], q[TN_UDP_MAX_RAILS];
                if (a == b) {
                    continue;
                }
                int np = tn_udp_rails_between(cards, dups, a, b, p);
                int nq = tn_udp_rails_between(cards, dups, b, a, q);
                CHECK(np == nq && np <= TN_UDP_MAX_RAILS, "round %d %d-%d counts", round, a, b);
                unsigned ma = 0, mb = 0;
                for (int k = 0; k < np && k < nq; k++) {
                    CHECK(p[k].mine == q[k].peer && p[k].peer == q[k].mine, "mirrored");
                    CHECK(p[k].mine < cards[a].n && p[k].peer < cards[b].n, "in range");
                    CHECK(!(ma >> p[k].mine & 1) && !(mb >> p[k].peer & 1), "distinct");
                    ma |= 1u << p[k].mine;
                    mb |= 1u << p[k].peer;
                    CHECK(!(dups[a] >> p[k].mine & 1) && !(dups[b] >> p[k].peer & 1), "unique");
                    CHECK(tn_udp_rails_reach(&cards[a], p[k].mine, cards[b].c[p[k].peer].addr) &&
                          tn_udp_rails_reach(&cards[b], p[k].peer, cards[a].c[p[k].mine].addr),
                          "reach both ways");
                }
            }
        }
    }
}

/* The route table reader, on a file in /proc/net/route's format. */
static void test_routes(void)
{
    char path[] = "/tmp/tern_test_routesXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    FILE *f = fdopen(fd, "w");
    /* eth0 10.1.1.5/24: default via 10.1.1.1, its own subnet, 10.0.0.0/8
     * and 10.1.0.0/16 and 192.168.7.7/32 via it, a route that is down,
     * one on eth1, a bad mask, 172.16.0.0/12 */
    fputs("Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
          "eth0\t00000000\t0101010A\t0003\t0\t0\t0\t00000000\t0\t0\t0\n"
          "eth0\t0001010A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
          "eth0\t0000000A\t0101010A\t0003\t0\t0\t0\t000000FF\t0\t0\t0\n"
          "eth0\t0000010A\t0101010A\t0003\t0\t0\t0\t0000FFFF\t0\t0\t0\n"
          "eth0\t0707A8C0\t0101010A\t0007\t0\t0\t0\tFFFFFFFF\t0\t0\t0\n"
          "eth0\t0000020A\t0101010A\t0002\t0\t0\t0\t0000FFFF\t0\t0\t0\n"
          "eth1\t0000030A\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0\n"
          "eth0\t0000040A\t00000000\t0001\t0\t0\t0\t00FF00FF\t0\t0\t0\n"
          "eth0\t000010AC\t0101010A\t0003\t0\t0\t0\t0000F0FF\t0\t0\t0\n", f);
    fclose(f);
    tn_udp_prefix_t r[8];
    int n = tn_udp_sock_routes(path, "eth0", ip("10.1.1.5"), 24, r, TN_UDP_CAND_ROUTES);
    CHECK(n == 3, "%d routes", n);
    CHECK(n == 3 && r[0].net == ip("10.0.0.0") && r[0].len == 8 && r[1].net == ip("172.16.0.0") &&
          r[1].len == 12 && r[2].net == ip("10.1.0.0") && r[2].len == 16, "the widest three");
    n = tn_udp_sock_routes(path, "eth0", ip("10.1.1.5"), 24, r, 5);
    CHECK(n == 4 && r[3].net == ip("192.168.7.7") && r[3].len == 32, "and the host route");
    n = tn_udp_sock_routes(path, "eth1", ip("10.3.0.1"), 16, r, 3);
    CHECK(n == 0, "eth1's only route is its subnet: %d", n);
    n = tn_udp_sock_routes("/nonexistent/route", "eth0", ip("10.1.1.5"), 24, r, 3);
    CHECK(n == 0, "no table");
    unlink(path);
}

/* Sockets inside a port range, a full range, unused rails closed. */
static void test_ports(void)
{
    tn_udp_fault_cfg_t nofault = { 0 };
    tn_udp_sock_t a, b, c;
    /* a range above the kernel's ephemeral ports (32768-60999 by default) */
    unsigned lo = 61000 + (unsigned)(getpid() % 2000) * 2, hi = lo + 1;
    CHECK(tn_udp_sock_open(&a, "127.0.0.1,127.0.0.1", 1, 1 << 16, 0, &nofault, lo, hi) ==
          TN_OK, "open two in %u..%u", lo, hi);
    CHECK(a.nrails == 2 && a.card.pinned && a.card.n == 2, "two pinned rails");
    unsigned p0 = ntohs(a.addr[0].sin_port), p1 = ntohs(a.addr[1].sin_port);
    CHECK(p0 >= lo && p0 <= hi && p1 >= lo && p1 <= hi && p0 != p1, "ports %u %u", p0, p1);
    CHECK(a.card.c[0].port == p0 && a.card.c[1].port == p1 && a.card.c[0].len == 8,
          "the card has them");
    /* the range is full on that address */
    CHECK(tn_udp_sock_open(&b, "127.0.0.1", 1, 1 << 16, 0, &nofault, lo, hi) == TN_ERR_IO,
          "a full range is refused");
    /* keep the second rail only: it becomes rail 0, the first is closed */
    int fd1 = a.fd[1];
    tn_udp_sock_keep(&a, 2);
    CHECK(a.nrails == 1 && a.card.n == 1 && a.fd[0] == fd1 && a.fd[1] == -1 &&
          ntohs(a.addr[0].sin_port) == p1 && a.card.c[0].port == p1, "kept rail 1");
    CHECK(tn_udp_sock_open(&c, "127.0.0.1", 1, 1 << 16, 0, &nofault, lo, hi) == TN_OK &&
          ntohs(c.addr[0].sin_port) == p0, "the closed one's port is free again");
    tn_udp_sock_close(&c);
    tn_udp_sock_close(&a);
    /* no range: ephemeral; auto on loopback */
    CHECK(tn_udp_sock_open(&a, "auto", 1, 1 << 16, 0, &nofault, 0, 0) == TN_OK &&
          a.nrails == 1 && !a.card.pinned && a.card.c[0].addr == ip("127.0.0.1") &&
          a.card.c[0].port != 0, "auto, loopback");
    tn_udp_sock_close(&a);
    CHECK(tn_udp_sock_open(&a, "no-such-if0", 0, 1 << 16, 0, &nofault, 0, 0) == TN_ERR_INVAL,
          "an unknown interface is refused");
}

int main(void)
{
    test_card_format();
    test_docker();
    test_reach();
    test_pinned();
    test_no_rail();
    test_random();
    test_routes();
    test_ports();
    if (failures == 0) {
        printf("rails: all checks passed\n");
    }
    return failures != 0;
}
