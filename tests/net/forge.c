/* An attacker for the adversarial udp test (tests/net/attack.sh): sends
 * forged traffic at a running job's udp ports for a while.  Not an MPI
 * program; it knows the wire format (udp_proto.h) but not the job's secret.
 *
 *   forge [--spoof] [--flood] SECONDS NRANKS IP:PORT...
 *   forge --replay CAPTURE_IFACE INJECT_IFACE SECONDS
 *
 * Each IP:PORT is a rank's rail (world rank = its position).  Rounds of:
 *   - junk of random length (0..1500 bytes), empty and 1-byte datagrams;
 *   - well-formed version-3 headers with a valid CRC, every plausible
 *     (src, dst) pair, guessed connection ids and packet numbers sprayed
 *     over the first thousand and at random, random tags: DATA packets
 *     whose active-message header declares a huge size, fragments with
 *     offsets far out, acks and SACK ranges acknowledging everything;
 *   - the same with the right source address: with --spoof, datagrams
 *     leave through a raw socket with the claimed peer's IP and port as
 *     their source (as a host on the path, or a spoofing one, would).
 * With --replay (run where the job's frames pass, e.g. on the bridge of
 * the switch namespace) it sees instead of guessing, as a host on the path
 * would: it captures the job's datagrams for a moment, then sends them
 * again as they were (replays) and altered with a recomputed CRC (acks
 * that acknowledge much more, SACK ranges to infinity, payload bytes
 * changed), by re-injecting the captured frames.
 * Rounds are 200 us apart, or back to back with --flood (bench/udp_flood.sh).
 * Prints how many datagrams it sent. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "xport/udp/udp_conn.h"
#include "xport/udp/udp_proto.h"

#define MAXR 16

static struct sockaddr_in tgt[MAXR];
static int ntgt, raw_fd = -1, udp_fd = -1;
static unsigned long long sent;
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Send len bytes to rank dst, from rank src's address when spoofing. */
static void emit(const void *buf, size_t len, int dst, int src)
{
    if (raw_fd >= 0 && src >= 0) {
        unsigned char pkt[2048];
        struct iphdr ip = { 0 };
        struct udphdr uh = { 0 };
        if (len > sizeof(pkt) - sizeof(ip) - sizeof(uh)) {
            return;
        }
        ip.ihl = 5;
        ip.version = 4;
        ip.ttl = 64;
        ip.protocol = IPPROTO_UDP;
        ip.saddr = tgt[src].sin_addr.s_addr;
        ip.daddr = tgt[dst].sin_addr.s_addr;
        ip.tot_len = htons((uint16_t)(sizeof(ip) + sizeof(uh) + len));
        uh.source = tgt[src].sin_port;
        uh.dest = tgt[dst].sin_port;
        uh.len = htons((uint16_t)(sizeof(uh) + len));
        uh.check = 0;                       /* none: allowed over IPv4 */
        memcpy(pkt, &ip, sizeof(ip));
        memcpy(pkt + sizeof(ip), &uh, sizeof(uh));
        memcpy(pkt + sizeof(ip) + sizeof(uh), buf, len);
        if (sendto(raw_fd, pkt, sizeof(ip) + sizeof(uh) + len, 0,
                   (struct sockaddr *)&tgt[dst], sizeof(tgt[dst])) > 0) {
            sent++;
        }
        return;
    }
    if (sendto(udp_fd, buf, len, MSG_DONTWAIT, (struct sockaddr *)&tgt[dst],
               sizeof(tgt[dst])) >= 0) {
        sent++;
    }
}

/* A well-formed header with a valid CRC; payload: len bytes of p. */
static size_t forge_pkt(unsigned char *out, int type, int src, int dst, uint64_t psn,
                        uint64_t ack, int nsack, const void *p, size_t len)
{
    tn_udp_hdr_t h = {
        .version = TN_UDP_VERSION, .type = (uint8_t)type, .conn = (uint32_t)rnd(),
        .src = (uint32_t)src, .dst = (uint32_t)dst, .psn = psn, .ack = ack,
        .credits = (uint32_t)rnd(), .nsack = (uint16_t)nsack, .len = (uint16_t)len,
        .seq = rnd(),
    };
    for (int i = 0; i < 16; i++) {
        h.tag[i] = (uint8_t)rnd();
    }
    memcpy(out, &h, sizeof(h));
    size_t off = sizeof(h);
    for (int i = 0; i < nsack; i++) {
        tn_udp_sack_t s = { ack + 1 + (uint64_t)i * 10, UINT64_MAX / 2 };
        memcpy(out + off, &s, sizeof(s));
        off += sizeof(s);
    }
    memcpy(out + off, p, len);
    off += len;
    memset(out + offsetof(tn_udp_hdr_t, crc), 0, 4);
    uint32_t crc = tn_udp_packet_crc(out, off);
    memcpy(out + offsetof(tn_udp_hdr_t, crc), &crc, 4);
    return off;
}

/* An AF_PACKET socket bound to iface. */
static int packet_socket(const char *iface)
{
    /* every frame (ETH_P_ALL): a bridge port's frames never reach the
     * per-protocol handlers, only the taps */
    int fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
    struct sockaddr_ll ll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL),
                              .sll_ifindex = (int)if_nametoindex(iface) };
    if (fd < 0 || ll.sll_ifindex == 0 || bind(fd, (struct sockaddr *)&ll, sizeof(ll)) != 0) {
        fprintf(stderr, "forge: no packet socket on %s: %m\n", iface);
        return -1;
    }
    return fd;
}

/* --replay: capture frames of version-3 datagrams on iface (a bridge
 * port), then re-send them whole and altered into inject (the bridge,
 * which forwards them to their destination) until secs have passed. */
static int replay(const char *iface, const char *inject, double secs)
{
    int fd = packet_socket(iface), ofd = packet_socket(inject);
    if (fd < 0 || ofd < 0) {
        return 1;
    }
    enum { NCAP = 512 };
    static unsigned char cap[NCAP][1600];
    static size_t caplen[NCAP], udpoff[NCAP];
    int ncap = 0;
    double end = now() + secs, capture_end = now() + 0.5;
    struct timeval tv = { 0, 100000 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    while (ncap < NCAP && now() < capture_end) {
        ssize_t n = recv(fd, cap[ncap], sizeof(cap[0]), 0);
        if (n < (ssize_t)(14 + 20 + 8 + sizeof(tn_udp_hdr_t))) {
            continue;
        }
        if (cap[ncap][12] != 0x08 || cap[ncap][13] != 0x00) {
            continue;                               /* not IPv4 */
        }
        const unsigned char *ip = cap[ncap] + 14;
        size_t ihl = (size_t)(ip[0] & 15) * 4;
        if ((ip[0] >> 4) != 4 || ip[9] != IPPROTO_UDP || 14 + ihl + 8 + 1 > (size_t)n ||
            cap[ncap][14 + ihl + 8] != TN_UDP_VERSION) {
            continue;
        }
        caplen[ncap] = (size_t)n;
        udpoff[ncap] = 14 + ihl;
        ncap++;
    }
    if (ncap == 0) {
        fprintf(stderr, "forge: captured nothing on %s\n", iface);
        return 1;
    }
    unsigned char frame[1600];
    while (now() < end) {
        for (int i = 0; i < ncap && now() < end; i++) {
            /* as it was: a replay */
            if (send(ofd, cap[i], caplen[i], 0) > 0) {
                sent++;
            }
            /* altered, CRC recomputed, UDP checksum off */
            for (int how = 0; how < 3; how++) {
                memcpy(frame, cap[i], caplen[i]);
                unsigned char *u = frame + udpoff[i];
                unsigned char *d = u + 8;
                size_t dl = caplen[i] - udpoff[i] - 8;
                tn_udp_hdr_t h;
                memcpy(&h, d, sizeof(h));
                size_t head = sizeof(h) + (size_t)h.nsack * sizeof(tn_udp_sack_t);
                if (head > dl) {
                    continue;
                }
                if (how == 0) {
                    h.ack += 1000;                  /* acks what never arrived */
                } else if (how == 1 && h.nsack > 0) {
                    tn_udp_sack_t r = { h.ack, UINT64_MAX / 2 };
                    memcpy(d + sizeof(h), &r, sizeof(r));
                } else if (how == 2 && dl > head) {
                    d[dl - 1] ^= 0x5a;              /* the payload */
                }
                memcpy(d, &h, sizeof(h));
                memset(d + offsetof(tn_udp_hdr_t, crc), 0, 4);
                uint32_t crc = tn_udp_packet_crc(d, dl);
                memcpy(d + offsetof(tn_udp_hdr_t, crc), &crc, 4);
                u[6] = u[7] = 0;
                if (send(ofd, frame, caplen[i], 0) > 0) {
                    sent++;
                }
            }
        }
        usleep(500);
    }
    printf("forge: captured %d datagrams, sent %llu replayed or altered\n", ncap, sent);
    return 0;
}

int main(int argc, char **argv)
{
    int a = 1, spoof = 0, flood = 0;
    if (argc == 5 && strcmp(argv[1], "--replay") == 0) {
        return replay(argv[2], argv[3], atof(argv[4]));
    }
    if (argc > a && strcmp(argv[a], "--spoof") == 0) {
        spoof = 1;
        a++;
    }
    if (argc > a && strcmp(argv[a], "--flood") == 0) {
        flood = 1;
        a++;
    }
    if (argc - a < 3) {
        fprintf(stderr, "usage: forge [--spoof] [--flood] SECONDS NRANKS IP:PORT...\n");
        return 2;
    }
    double secs = atof(argv[a]);
    int nranks = atoi(argv[a + 1]);
    for (int i = a + 2; i < argc && ntgt < MAXR; i++) {
        char ip[64];
        unsigned port;
        if (sscanf(argv[i], "%63[^:]:%u", ip, &port) != 2 ||
            inet_pton(AF_INET, ip, &tgt[ntgt].sin_addr) != 1) {
            fprintf(stderr, "forge: bad target %s\n", argv[i]);
            return 2;
        }
        tgt[ntgt].sin_family = AF_INET;
        tgt[ntgt].sin_port = htons((uint16_t)port);
        ntgt++;
    }
    udp_fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (spoof) {
        raw_fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
        if (raw_fd < 0) {
            perror("forge: raw socket");
            return 1;
        }
    }
    rng ^= (uint64_t)getpid() * 0x2545f4914f6cdd1dull;
    unsigned char buf[2048], pay[1400];
    double end = now() + secs;
    while (now() < end) {
        for (int dst = 0; dst < ntgt; dst++) {
            int src = (dst + 1 + (int)(rnd() % (uint64_t)(nranks > 1 ? nranks - 1 : 1))) % nranks;
            if (src == dst) {
                src = (dst + 1) % nranks;
            }
            /* junk, empty, tiny */
            size_t jl = rnd() % 1500;
            for (size_t i = 0; i < jl; i++) {
                buf[i] = (uint8_t)rnd();
            }
            emit(buf, jl, dst, spoof ? src : -1);
            emit(buf, 0, dst, spoof ? src : -1);
            emit(buf, 1, dst, spoof ? src : -1);
            /* an active message declaring a huge size, and a fragment far out */
            for (size_t i = 0; i < sizeof(pay); i++) {
                pay[i] = (uint8_t)rnd();
            }
            memset(pay, 0xff, 48);
            for (uint64_t psn = 1; psn <= 64; psn++) {
                uint64_t p = rnd() % 4 == 0 ? rnd() : psn + rnd() % 1000;
                size_t n = forge_pkt(buf, TN_UDP_PKT_DATA, src, dst, p, 1, 0, pay,
                                     64 + rnd() % 1200);
                emit(buf, n, dst, spoof ? src : -1);
            }
            /* acks of everything, SACK ranges to infinity */
            for (int k = 0; k < 16; k++) {
                size_t n = forge_pkt(buf, TN_UDP_PKT_ACK, src, dst, 0,
                                     1 + rnd() % 100000, (int)(rnd() % 9), pay, 0);
                emit(buf, n, dst, spoof ? src : -1);
            }
            size_t n = forge_pkt(buf, TN_UDP_PKT_PING, src, dst, 0, 1, 0, pay, 0);
            emit(buf, n, dst, spoof ? src : -1);
        }
        if (!flood) {
            usleep(200);
        }
    }
    printf("forge: sent %llu datagrams\n", sent);
    return 0;
}
