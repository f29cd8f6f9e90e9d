/* Socket I/O and the fault injector (see udp_sock.h). */
#include "xport/udp/udp_sock.h"
#include "base/log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define TN_UDP_SEND_BATCH 64

/* xorshift64*: small, seeded, good enough to decide faults */
static uint64_t tn_udp_rand(tn_udp_sock_t *s)
{
    uint64_t x = s->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    s->rng = x;
    return x * 0x2545F4914F6CDD1Dull;
}

static int tn_udp_chance(tn_udp_sock_t *s, double percent)
{
    if (percent <= 0) {
        return 0;
    }
    return (double)(tn_udp_rand(s) % 1000000) < percent * 10000.0;
}

/* Interface name and MTU of a local address (name "" if unknown). */
static int tn_udp_if_mtu(const char *ifname)
{
    struct ifreq ifr;
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) {
        return 0;
    }
    memset(&ifr, 0, sizeof(ifr));
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    int mtu = ioctl(fd, SIOCGIFMTU, &ifr) == 0 ? ifr.ifr_mtu : 0;
    close(fd);
    return mtu;
}

/* Resolve one rail token (address or interface name) to an address and the
 * MTU of its interface. */
static tn_status_t tn_udp_resolve(const char *tok, struct in_addr *addr_p, int *mtu_p)
{
    struct ifaddrs *ifs, *ifa;
    struct in_addr want;
    int by_addr = inet_pton(AF_INET, tok, &want) == 1;
    if (getifaddrs(&ifs) != 0) {
        tn_log_error("udp", "getifaddrs failed: %m");
        return TN_ERR_IO;
    }
    for (ifa = ifs; ifa != NULL; ifa = ifa->ifa_next) {
        if (ifa->ifa_addr == NULL || ifa->ifa_addr->sa_family != AF_INET) {
            continue;
        }
        struct in_addr a = ((struct sockaddr_in *)ifa->ifa_addr)->sin_addr;
        if ((by_addr && a.s_addr == want.s_addr) || (!by_addr && strcmp(ifa->ifa_name, tok) == 0)) {
            *addr_p = a;
            *mtu_p = tn_udp_if_mtu(ifa->ifa_name);
            freeifaddrs(ifs);
            return TN_OK;
        }
    }
    freeifaddrs(ifs);
    tn_log_error("udp", "rail '%s' is not a local IPv4 address or interface", tok);
    return TN_ERR_INVAL;
}

/* auto: every IPv4 interface that is up and not loopback, else loopback. */
static int tn_udp_auto_rails(struct in_addr *addrs, int *mtus, int max, int loopback_only)
{
    int n = 0;
    struct ifaddrs *ifs, *ifa;
    if (!loopback_only && getifaddrs(&ifs) == 0) {
        for (ifa = ifs; ifa != NULL && n < max; ifa = ifa->ifa_next) {
            if (ifa->ifa_addr == NULL || ifa->ifa_addr->sa_family != AF_INET ||
                !(ifa->ifa_flags & IFF_UP) || (ifa->ifa_flags & IFF_LOOPBACK)) {
                continue;
            }
            addrs[n] = ((struct sockaddr_in *)ifa->ifa_addr)->sin_addr;
            mtus[n] = tn_udp_if_mtu(ifa->ifa_name);
            n++;
        }
        freeifaddrs(ifs);
    }
    if (n == 0) {
        inet_pton(AF_INET, "127.0.0.1", &addrs[0]);
        mtus[0] = tn_udp_if_mtu("lo");
        n = 1;
    }
    return n;
}

static tn_status_t tn_udp_open_rail(tn_udp_sock_t *s, int r, struct in_addr a, size_t sockbuf)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        tn_log_error("udp", "socket failed: %m");
        return TN_ERR_IO;
    }
    int v = (int)sockbuf;
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
    /* as root we may exceed the system limit, which loss tests rely on */
    setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v));
    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v));
    struct sockaddr_in sin;
    memset(&sin, 0, sizeof(sin));
    sin.sin_family = AF_INET;
    sin.sin_addr = a;
    sin.sin_port = 0;
    socklen_t slen = sizeof(sin);
    if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
        getsockname(fd, (struct sockaddr *)&sin, &slen) != 0) {
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &a, ip, sizeof(ip));
        tn_log_error("udp", "cannot bind a UDP socket to %s: %m", ip);
        close(fd);
        return TN_ERR_IO;
    }
    s->fd[r] = fd;
    s->addr[r] = sin;
    return TN_OK;
}

tn_status_t tn_udp_sock_open(tn_udp_sock_t *s, const char *rails, int loopback_only,
                             size_t sockbuf, const tn_udp_fault_cfg_t *fault)
{
    struct in_addr addrs[TN_UDP_MAX_RAILS];
    int mtus[TN_UDP_MAX_RAILS];
    int n = 0;
    memset(s, 0, sizeof(*s));
    for (int r = 0; r < TN_UDP_MAX_RAILS; r++) {
        s->fd[r] = -1;
    }
    if (rails == NULL || strcmp(rails, "auto") == 0 || rails[0] == '\0') {
        n = tn_udp_auto_rails(addrs, mtus, TN_UDP_MAX_RAILS, loopback_only);
    } else {
        char copy[512], *save = NULL;
        snprintf(copy, sizeof(copy), "%s", rails);
        for (char *tok = strtok_r(copy, ",", &save); tok != NULL && n < TN_UDP_MAX_RAILS;
             tok = strtok_r(NULL, ",", &save)) {
            tn_status_t st = tn_udp_resolve(tok, &addrs[n], &mtus[n]);
            if (st != TN_OK) {
                return st;
            }
            n++;
        }
    }
    for (int r = 0; r < n; r++) {
        tn_status_t st = tn_udp_open_rail(s, r, addrs[r], sockbuf);
        if (st != TN_OK) {
            tn_udp_sock_close(s);
            return st;
        }
        s->mtu[r] = mtus[r];
        s->nrails = r + 1;
    }
    s->fault = *fault;
    s->rng = fault->seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    if (s->rng == 0) {
        s->rng = 1;
    }
    return TN_OK;
}

void tn_udp_sock_close(tn_udp_sock_t *s)
{
    for (int r = 0; r < TN_UDP_MAX_RAILS; r++) {
        if (s->fd[r] >= 0) {
            close(s->fd[r]);
            s->fd[r] = -1;
        }
    }
    free(s->held);
    s->held = NULL;
    s->nrails = 0;
}

void tn_udp_sock_format(const tn_udp_sock_t *s, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int r = 0; r < s->nrails && off < len; r++) {
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &s->addr[r].sin_addr, ip, sizeof(ip));
        off += (size_t)snprintf(buf + off, len - off, "%s%s:%u", r ? "," : "", ip,
                                (unsigned)ntohs(s->addr[r].sin_port));
    }
}

int tn_udp_sock_parse(const char *str, struct sockaddr_in *addrs, int max)
{
    char copy[512], *save = NULL;
    int n = 0;
    snprintf(copy, sizeof(copy), "%s", str);
    for (char *tok = strtok_r(copy, ",", &save); tok != NULL && n < max;
         tok = strtok_r(NULL, ",", &save)) {
        char *colon = strrchr(tok, ':');
        if (colon == NULL) {
            return -1;
        }
        *colon = '\0';
        memset(&addrs[n], 0, sizeof(addrs[n]));
        addrs[n].sin_family = AF_INET;
        addrs[n].sin_port = htons((uint16_t)atoi(colon + 1));
        if (inet_pton(AF_INET, tok, &addrs[n].sin_addr) != 1) {
            return -1;
        }
        n++;
    }
    return n;
}

/* Hand a run of datagrams of one rail to the kernel. */
static int tn_udp_flush_run(tn_udp_sock_t *s, int rail, struct mmsghdr *msgs, int n,
                            int *failed_rail_p)
{
    int done = 0;
    while (done < n) {
        int k = sendmmsg(s->fd[rail], msgs + done, (unsigned)(n - done), MSG_DONTWAIT);
        if (k < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno == EAGAIN || errno == ENOBUFS || errno == ECONNREFUSED) {
                /* no room (or a stale ICMP error): the datagram is lost; the
                 * reliability layer will send it again */
                s->stats.send_errors++;
                done++;
                continue;
            }
            tn_log_debug("udp", "sendmmsg on rail %d failed: %m", rail);
            s->stats.send_errors++;
            *failed_rail_p = rail;
            return n;
        }
        done += k;
        s->stats.sent += (uint64_t)k;
    }
    return n;
}

int tn_udp_sock_send(tn_udp_sock_t *s, const tn_udp_out_t *out, int n, int *failed_rail_p)
{
    struct mmsghdr msgs[TN_UDP_SEND_BATCH];
    struct iovec iovs[TN_UDP_SEND_BATCH][2];
    static char scratch[TN_UDP_SEND_BATCH][65536];     /* corrupted copies */
    int nmsg = 0, rail = -1, handled = 0;
    void *release_held = NULL;
    *failed_rail_p = -1;

#define TN_UDP_QUEUE(b, l, b2, l2, rl, dst)                                      \
    do {                                                                         \
        if (nmsg == TN_UDP_SEND_BATCH || (nmsg > 0 && (rl) != rail)) {           \
            tn_udp_flush_run(s, rail, msgs, nmsg, failed_rail_p);                \
            nmsg = 0;                                                            \
        }                                                                        \
        rail = (rl);                                                             \
        iovs[nmsg][0].iov_base = (void *)(b);                                    \
        iovs[nmsg][0].iov_len = (l);                                             \
        iovs[nmsg][1].iov_base = (void *)(b2);                                   \
        iovs[nmsg][1].iov_len = (l2);                                            \
        memset(&msgs[nmsg], 0, sizeof(msgs[nmsg]));                              \
        msgs[nmsg].msg_hdr.msg_iov = iovs[nmsg];                                 \
        msgs[nmsg].msg_hdr.msg_iovlen = (l2) != 0 ? 2 : 1;                       \
        msgs[nmsg].msg_hdr.msg_name = (void *)(dst);                             \
        msgs[nmsg].msg_hdr.msg_namelen = sizeof(struct sockaddr_in);             \
        nmsg++;                                                                  \
    } while (0)

    for (int i = 0; i < n; i++) {
        const tn_udp_out_t *o = &out[i];
        size_t total = o->len + o->len2;
        handled++;
        if (tn_udp_chance(s, s->fault.drop)) {
            s->stats.fault_dropped++;
            continue;
        }
        const void *buf = o->buf, *buf2 = o->buf2;
        size_t len = o->len, len2 = o->len2;
        if (tn_udp_chance(s, s->fault.corrupt) && total > 0 && total <= sizeof(scratch[0]) &&
            nmsg < TN_UDP_SEND_BATCH) {
            memcpy(scratch[nmsg], o->buf, o->len);
            if (o->len2 != 0) {
                memcpy(scratch[nmsg] + o->len, o->buf2, o->len2);
            }
            scratch[nmsg][tn_udp_rand(s) % total] ^= (char)(1 + tn_udp_rand(s) % 255);
            buf = scratch[nmsg];
            len = total;
            buf2 = NULL;
            len2 = 0;
            s->stats.fault_corrupted++;
        }
        if (s->held == NULL && tn_udp_chance(s, s->fault.reorder)) {
            s->held = malloc(total);
            if (s->held != NULL) {
                memcpy(s->held, buf, len);
                if (len2 != 0) {
                    memcpy((char *)s->held + len, buf2, len2);
                }
                s->held_len = total;
                s->held_rail = o->rail;
                s->held_to = o->to;
                s->stats.fault_reordered++;
                continue;       /* goes out after the next datagram */
            }
        }
        TN_UDP_QUEUE(buf, len, buf2, len2, o->rail, &o->to);
        if (tn_udp_chance(s, s->fault.dup)) {
            TN_UDP_QUEUE(buf, len, buf2, len2, o->rail, &o->to);
            s->stats.fault_duplicated++;
        }
        if (s->held != NULL && release_held == NULL) {
            TN_UDP_QUEUE(s->held, s->held_len, NULL, 0, s->held_rail, &s->held_to);
            release_held = s->held;
            s->held = NULL;
        }
    }
    if (nmsg > 0) {
        tn_udp_flush_run(s, rail, msgs, nmsg, failed_rail_p);
    }
    free(release_held);
#undef TN_UDP_QUEUE
    return handled;
}

int tn_udp_sock_recv(tn_udp_sock_t *s, int rail, void **bufs, size_t cap, size_t *lens,
                     int max)
{
    /* The headers are built once for a set of buffers: this runs on every
     * poll of an idle socket, where only the syscall should cost. */
    static struct mmsghdr msgs[TN_UDP_SEND_BATCH];
    static struct iovec iovs[TN_UDP_SEND_BATCH];
    static void *built_for[TN_UDP_SEND_BATCH];
    static size_t built_cap;
    if (max > TN_UDP_SEND_BATCH) {
        max = TN_UDP_SEND_BATCH;
    }
    if (max <= 0) {
        return 0;
    }
    if (built_cap != cap || memcmp(built_for, bufs, (size_t)max * sizeof(void *)) != 0) {
        for (int i = 0; i < max; i++) {
            iovs[i].iov_base = bufs[i];
            iovs[i].iov_len = cap;
            memset(&msgs[i], 0, sizeof(msgs[i]));
            msgs[i].msg_hdr.msg_iov = &iovs[i];
            msgs[i].msg_hdr.msg_iovlen = 1;
            built_for[i] = bufs[i];
        }
        for (int i = max; i < TN_UDP_SEND_BATCH; i++) {
            built_for[i] = NULL;
        }
        built_cap = cap;
    }
    /* one plain recvmsg first: an empty socket (the common case while
     * waiting) costs the least that way; the rest of a burst in one call */
    ssize_t r;
    do {
        r = recvmsg(s->fd[rail], &msgs[0].msg_hdr, MSG_DONTWAIT);
    } while (r < 0 && errno == EINTR);
    if (r < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNREFUSED) {
            s->stats.recv_errors++;
        }
        return 0;
    }
    msgs[0].msg_len = (unsigned)r;
    int k = 1;
    if (max > 1) {
        int m;
        do {
            m = recvmmsg(s->fd[rail], msgs + 1, (unsigned)(max - 1), MSG_DONTWAIT, NULL);
        } while (m < 0 && errno == EINTR);
        if (m > 0) {
            k += m;
        }
    }
    for (int i = 0; i < k; i++) {
        lens[i] = msgs[i].msg_len;
        if (msgs[i].msg_hdr.msg_flags & MSG_TRUNC) {
            lens[i] = 0;        /* larger than any of ours: foreign, drop */
        }
    }
    s->stats.recv += (uint64_t)k;
    return k;
}

void tn_udp_sock_wait(tn_udp_sock_t *s, uint64_t timeout_ns)
{
    struct pollfd pfd[TN_UDP_MAX_RAILS];
    for (int r = 0; r < s->nrails; r++) {
        pfd[r].fd = s->fd[r];
        pfd[r].events = POLLIN;
        pfd[r].revents = 0;
    }
    int ms = timeout_ns == UINT64_MAX ? -1 : (int)((timeout_ns + 999999) / 1000000);
    if (timeout_ns != UINT64_MAX && timeout_ns < 1000000) {
        /* sub-millisecond deadlines: ppoll takes a timespec */
        struct timespec ts = { 0, (long)timeout_ns };
        ppoll(pfd, (nfds_t)s->nrails, &ts, NULL);
        return;
    }
    poll(pfd, (nfds_t)s->nrails, ms);
}
