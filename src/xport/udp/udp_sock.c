/* Socket I/O and the fault injector (see udp_sock.h). */
#include "xport/udp/udp_sock.h"
#include "base/log.h"
#include "base/monitor.h"

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
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103             /* linux/udp.h, Linux >= 4.18 */
#endif
#ifndef UDP_GRO
#define UDP_GRO 104                 /* linux/udp.h, Linux >= 5.0 */
#endif
#ifndef SOL_UDP
#define SOL_UDP 17
#endif

#define TN_UDP_SEND_BATCH 128
/* datagrams one chunk of TN_UDP_SEND_BATCH may become: each can be
 * duplicated by the fault injector, plus one held back earlier */
#define TN_UDP_DGRAMS (2 * TN_UDP_SEND_BATCH + 1)
#define TN_UDP_MSGS TN_UDP_DGRAMS
#define TN_UDP_GSO_MAX_BYTES 65507  /* IPv4: 65535 - 20 (IP) - 8 (UDP) */
#define TN_UDP_GSO_MAX_SEGS 64      /* UDP_MAX_SEGMENTS of older kernels */
#define TN_UDP_SCRATCH 64           /* corrupted copies one send chunk may make */
/* zero-copy sends: header slots (a header with all SACK ranges and the
 * active-message header fits), how many (a slot is rewritten after this
 * many spliced datagrams), the most pages splice hands a socket in one
 * datagram (splice_to_socket's bio_vec array), the pipe's size asked for */
#define TN_UDP_SPLICE_HDR 256
#define TN_UDP_SPLICE_SLOTS 2048
#define TN_UDP_SPLICE_MAX_PAGES 16
#define TN_UDP_SPLICE_PIPE (1u << 20)

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

/* MTU of an interface (0 if unknown). */
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

/* host-order mask of a prefix length */
static uint32_t tn_udp_hmask(unsigned len)
{
    return len == 0 ? 0 : 0xFFFFFFFFu << (32 - len);
}

int tn_udp_sock_routes(const char *path, const char *ifname, uint32_t net, unsigned len,
                       tn_udp_prefix_t *out, int max)
{
    FILE *f = fopen(path, "re");
    char line[512];
    int n = 0;
    if (f == NULL) {
        return 0;
    }
    /* Iface Destination Gateway Flags RefCnt Use Metric Mask ...: addresses
     * and masks in hex as the kernel holds them (network byte order) */
    while (fgets(line, sizeof(line), f) != NULL) {
        char dev[64];
        unsigned dest, gw, flags, mask;
        if (sscanf(line, "%63s %x %x %x %*d %*d %*d %x", dev, &dest, &gw, &flags, &mask) != 5 ||
            strcmp(dev, ifname) != 0 || !(flags & 1u /* RTF_UP */) || mask == 0) {
            continue;
        }
        unsigned rl = (unsigned)__builtin_popcount(mask);
        if (ntohl(mask) != tn_udp_hmask(rl) || (dest & ~mask) != 0 ||
            (rl == len && dest == (net & htonl(tn_udp_hmask(len))))) {
            continue;           /* not a prefix, or the interface's own subnet */
        }
        /* the widest first: insert by length */
        int at = n;
        while (at > 0 && out[at - 1].len > rl) {
            at--;
        }
        if (at == max) {
            continue;
        }
        if (n < max) {
            n++;
        }
        memmove(&out[at + 1], &out[at], (size_t)(n - 1 - at) * sizeof(*out));
        out[at] = (tn_udp_prefix_t){ dest, (uint8_t)rl };
    }
    fclose(f);
    return n;
}

/* A candidate rail: its address, subnet, routes, MTU and interface. */
typedef struct {
    struct in_addr addr;
    int            mtu;
    tn_udp_cand_t  cand;          /* port still 0 */
    char           ifname[16];
} tn_udp_if_t;

static void tn_udp_if_fill(const struct ifaddrs *ifa, tn_udp_if_t *out)
{
    memset(out, 0, sizeof(*out));
    out->addr = ((const struct sockaddr_in *)ifa->ifa_addr)->sin_addr;
    snprintf(out->ifname, sizeof(out->ifname), "%s", ifa->ifa_name);
    out->mtu = tn_udp_if_mtu(ifa->ifa_name);
    uint32_t mask = 0;
    if (ifa->ifa_netmask != NULL && ifa->ifa_netmask->sa_family == AF_INET) {
        mask = ((const struct sockaddr_in *)ifa->ifa_netmask)->sin_addr.s_addr;
    }
    unsigned len = (unsigned)__builtin_popcount(mask);
    if (ntohl(mask) != tn_udp_hmask(len)) {
        len = 32;               /* not a prefix: the address alone */
    }
    out->cand.addr = out->addr.s_addr;
    out->cand.len = (uint8_t)len;
    out->cand.nroutes = (uint8_t)tn_udp_sock_routes("/proc/net/route", out->ifname,
                                                    out->addr.s_addr, len, out->cand.route,
                                                    TN_UDP_CAND_ROUTES);
}

/* Resolve one pinned rail (address or interface name). */
static tn_status_t tn_udp_resolve(const char *tok, tn_udp_if_t *out)
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
            tn_udp_if_fill(ifa, out);
            freeifaddrs(ifs);
            return TN_OK;
        }
    }
    freeifaddrs(ifs);
    tn_log_error("udp", "TERN_UDP_RAILS: '%s' is not a local IPv4 address or interface", tok);
    return TN_ERR_INVAL;
}

/* auto: every IPv4 address of an interface that is up and not loopback
 * (each address once), or 127.0.0.1 alone when loopback_only. */
static int tn_udp_auto_rails(tn_udp_if_t *ifs_out, int max, int loopback_only)
{
    int n = 0;
    struct ifaddrs *ifs, *ifa;
    if (loopback_only) {
        memset(&ifs_out[0], 0, sizeof(ifs_out[0]));
        inet_pton(AF_INET, "127.0.0.1", &ifs_out[0].addr);
        snprintf(ifs_out[0].ifname, sizeof(ifs_out[0].ifname), "lo");
        ifs_out[0].mtu = tn_udp_if_mtu("lo");
        ifs_out[0].cand.addr = ifs_out[0].addr.s_addr;
        ifs_out[0].cand.len = 8;
        return 1;
    }
    if (getifaddrs(&ifs) != 0) {
        tn_log_error("udp", "getifaddrs failed: %m");
        return 0;
    }
    for (ifa = ifs; ifa != NULL; ifa = ifa->ifa_next) {
        if (ifa->ifa_addr == NULL || ifa->ifa_addr->sa_family != AF_INET ||
            !(ifa->ifa_flags & IFF_UP) || (ifa->ifa_flags & IFF_LOOPBACK)) {
            continue;
        }
        uint32_t a = ((struct sockaddr_in *)ifa->ifa_addr)->sin_addr.s_addr;
        int seen = 0;
        for (int i = 0; i < n && !seen; i++) {
            seen = ifs_out[i].addr.s_addr == a;
        }
        if (seen) {
            continue;
        }
        if (n == max) {
            tn_log_info("udp", "more than %d IPv4 interfaces: %s and later ones are not "
                        "candidate rails (pin TERN_UDP_RAILS to choose)", max, ifa->ifa_name);
            break;
        }
        tn_udp_if_fill(ifa, &ifs_out[n++]);
    }
    freeifaddrs(ifs);
    return n;
}

/* A non-blocking UDP socket with both buffers set to sockbuf. */
static int tn_udp_socket(size_t sockbuf)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        tn_log_error("udp", "socket failed: %m");
        return -1;
    }
    int v = (int)sockbuf;
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
    /* as root we may exceed the system limit, which loss tests rely on */
    setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v));
    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v));
    return fd;
}

/* Bind fd to sin's address and a port: ephemeral when lo is 0, else the
 * first free one of lo..hi from lo + start (wrapping).  0 or -1 (errno). */
static int tn_udp_bind(int fd, struct sockaddr_in *sin, unsigned lo, unsigned hi,
                       unsigned start)
{
    if (lo == 0) {
        sin->sin_port = 0;
        return bind(fd, (struct sockaddr *)sin, sizeof(*sin));
    }
    unsigned span = hi - lo + 1;
    for (unsigned k = 0; k < span; k++) {
        sin->sin_port = htons((uint16_t)(lo + (start + k) % span));
        if (bind(fd, (struct sockaddr *)sin, sizeof(*sin)) == 0) {
            return 0;
        }
        if (errno != EADDRINUSE) {
            return -1;
        }
    }
    return -1;
}

static tn_status_t tn_udp_open_rail(tn_udp_sock_t *s, int r, const tn_udp_if_t *rail,
                                    size_t sockbuf, int gso, unsigned lo, unsigned hi,
                                    unsigned start)
{
    int fd = tn_udp_socket(sockbuf);
    if (fd < 0) {
        return TN_ERR_IO;
    }
    struct sockaddr_in sin;
    memset(&sin, 0, sizeof(sin));
    sin.sin_family = AF_INET;
    sin.sin_addr = rail->addr;
    socklen_t slen = sizeof(sin);
    if (tn_udp_bind(fd, &sin, lo, hi, start) != 0 ||
        getsockname(fd, (struct sockaddr *)&sin, &slen) != 0) {
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &rail->addr, ip, sizeof(ip));
        if (lo != 0 && errno == EADDRINUSE) {
            tn_log_error("udp", "no free UDP port on %s (%s) in TERN_UDP_PORT_MIN.."
                         "TERN_UDP_PORT_MAX = %u..%u: all %u are in use", ip, rail->ifname,
                         lo, hi, hi - lo + 1);
        } else {
            tn_log_error("udp", "cannot bind a UDP socket to %s (%s): %m", ip, rail->ifname);
        }
        close(fd);
        return TN_ERR_IO;
    }
    s->fd[r] = fd;
    s->addr[r] = sin;
    s->mtu[r] = rail->mtu;
    s->card.c[r] = rail->cand;
    s->card.c[r].port = ntohs(sin.sin_port);
    snprintf(s->ifname[r], sizeof(s->ifname[r]), "%s", rail->ifname);
    if (gso) {
        /* GSO needs no socket option (a control message per send); GRO
         * does, and older kernels refuse it */
        int on = 1;
        s->gso[r] = 1;
        s->gro[r] = setsockopt(fd, SOL_UDP, UDP_GRO, &on, sizeof(on)) == 0;
    }
    return TN_OK;
}

/* Where a rank starts looking in a port range: random, so that the ranks
 * of a node do not all try the same ports first. */
static unsigned tn_udp_port_start(void)
{
    unsigned v;
    if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != (ssize_t)sizeof(v)) {
        v = (unsigned)getpid() * 2654435761u;
    }
    return v;
}

tn_status_t tn_udp_sock_open(tn_udp_sock_t *s, const char *rails, int loopback_only,
                             size_t sockbuf, int gso, const tn_udp_fault_cfg_t *fault,
                             unsigned port_lo, unsigned port_hi)
{
    tn_udp_if_t ifs[TN_UDP_MAX_SOCKS];
    int n = 0, pinned = 0;
    memset(s, 0, sizeof(*s));
    s->stats = tn_mon_home(TN_CTR_SET_UDP_SOCK, &s->stats_own);
    for (int r = 0; r < TN_UDP_MAX_SOCKS; r++) {
        s->fd[r] = -1;
    }
    s->pipe[0] = s->pipe[1] = s->null_fd = -1;
    s->sockbuf = sockbuf;
    if (rails == NULL || strcmp(rails, "auto") == 0 || rails[0] == '\0') {
        n = tn_udp_auto_rails(ifs, TN_UDP_MAX_SOCKS, loopback_only);
    } else {
        char copy[512], *save = NULL;
        pinned = 1;
        snprintf(copy, sizeof(copy), "%s", rails);
        for (char *tok = strtok_r(copy, ",", &save); tok != NULL;
             tok = strtok_r(NULL, ",", &save)) {
            if (n == TN_UDP_MAX_SOCKS) {
                tn_log_error("udp", "TERN_UDP_RAILS names more than %d rails", TN_UDP_MAX_SOCKS);
                return TN_ERR_INVAL;
            }
            tn_status_t st = tn_udp_resolve(tok, &ifs[n]);
            if (st != TN_OK) {
                return st;
            }
            n++;
        }
    }
    if (port_lo == 0 || port_hi < port_lo || port_hi > 65535) {
        port_lo = port_hi = 0;
    }
    unsigned start = port_lo != 0 ? tn_udp_port_start() % (port_hi - port_lo + 1) : 0;
    s->card.pinned = pinned;
    for (int r = 0; r < n; r++) {
        tn_status_t st = tn_udp_open_rail(s, r, &ifs[r], sockbuf, gso, port_lo, port_hi, start);
        if (st != TN_OK) {
            tn_udp_sock_close(s);
            return st;
        }
        s->nrails = s->card.n = r + 1;
    }
    s->fault = *fault;
    s->rng = fault->seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    if (s->rng == 0) {
        s->rng = 1;
    }
    return TN_OK;
}

void tn_udp_sock_keep(tn_udp_sock_t *s, unsigned mask)
{
    int k = 0;
    for (int r = 0; r < s->nrails; r++) {
        if (!(mask >> r & 1)) {
            close(s->fd[r]);
            s->fd[r] = -1;
            continue;
        }
        if (k != r) {
            s->fd[k] = s->fd[r];
            s->fd[r] = -1;
            s->addr[k] = s->addr[r];
            s->mtu[k] = s->mtu[r];
            s->gso[k] = s->gso[r];
            s->gro[k] = s->gro[r];
            s->hits[k] = s->hits[r];
            s->more[k] = s->more[r];
            s->card.c[k] = s->card.c[r];
            memcpy(s->ifname[k], s->ifname[r], sizeof(s->ifname[k]));
        }
        k++;
    }
    s->nrails = s->card.n = k;
}

void tn_udp_sock_set_routes(tn_udp_sock_t *s, int per_rail)
{
    int max = per_rail > 0 ? per_rail * s->nrails : 0;
    if (max <= s->max_routes) {
        return;
    }
    int *fds = realloc(s->route_fd, (size_t)max * sizeof(int));
    if (fds == NULL) {
        return;
    }
    s->route_fd = fds;
    s->max_routes = max;
}

int tn_udp_sock_set_splice(tn_udp_sock_t *s, size_t min)
{
    if (min == 0) {
        for (int i = 0; i < 2; i++) {
            if (s->pipe[i] >= 0) {
                close(s->pipe[i]);
            }
            s->pipe[i] = -1;
        }
        if (s->null_fd >= 0) {
            close(s->null_fd);
        }
        s->null_fd = -1;
        free(s->hring);
        s->hring = NULL;
        s->splice_min = 0;
        s->piped = 0;
        return 0;
    }
    if (s->pipe[0] < 0) {
        long page = sysconf(_SC_PAGESIZE);
        if (page <= 0 || pipe2(s->pipe, O_NONBLOCK | O_CLOEXEC) != 0) {
            tn_log_debug("udp", "no pipe for zero-copy sends: %m");
            s->pipe[0] = s->pipe[1] = -1;
            return 0;
        }
        /* as large as allowed (a user's pipes share a limit): the larger,
         * the more datagrams one vmsplice takes */
        int size = -1;
        for (unsigned want = TN_UDP_SPLICE_PIPE; size < 0 && want >= 65536; want /= 4) {
            size = fcntl(s->pipe[1], F_SETPIPE_SZ, (int)want);
        }
        if (size < 0) {
            size = fcntl(s->pipe[1], F_GETPIPE_SZ);
        }
        s->page = (size_t)page;
        s->pipe_pages = size > 0 ? (int)(size / page) : 0;
        s->null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        s->hring = aligned_alloc((size_t)page, (size_t)TN_UDP_SPLICE_SLOTS * TN_UDP_SPLICE_HDR);
        if (s->pipe_pages < 2 || s->null_fd < 0 || s->hring == NULL) {
            tn_log_debug("udp", "zero-copy sends off (pipe of %d pages)", s->pipe_pages);
            tn_udp_sock_set_splice(s, 0);
            return 0;
        }
    }
    s->splice_min = min;
    return 1;
}

int tn_udp_sock_route(tn_udp_sock_t *s, int rail, const struct sockaddr_in *to)
{
    if (s->nroutes >= s->max_routes || rail < 0 || rail >= s->nrails) {
        return -1;
    }
    int fd = tn_udp_socket(s->sockbuf);
    if (fd < 0) {
        return -1;
    }
    /* the rail's address, so the datagrams take that rail's interface */
    struct sockaddr_in sin = s->addr[rail];
    sin.sin_port = 0;
    if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
        connect(fd, (const struct sockaddr *)to, sizeof(*to)) != 0) {
        tn_log_debug("udp", "no connected socket on rail %d: %m", rail);
        close(fd);
        return -1;
    }
    s->route_fd[s->nroutes] = fd;
    return s->nroutes++;
}

void tn_udp_sock_close(tn_udp_sock_t *s)
{
    for (int i = 0; i < s->nroutes; i++) {
        close(s->route_fd[i]);
    }
    free(s->route_fd);
    s->route_fd = NULL;
    s->nroutes = s->max_routes = 0;
    for (int r = 0; r < TN_UDP_MAX_SOCKS; r++) {
        if (s->fd[r] >= 0) {
            close(s->fd[r]);
            s->fd[r] = -1;
        }
    }
    free(s->held);
    s->held = NULL;
    s->nrails = 0;
    tn_udp_sock_set_splice(s, 0);
}

/* Datagrams gathered for one sendmmsg call. */
typedef struct {
    struct mmsghdr msgs[TN_UDP_MSGS];
    int            ndgram[TN_UDP_MSGS];          /* datagrams in each message */
    struct iovec   iov[2 * TN_UDP_DGRAMS];
    union {
        char           buf[CMSG_SPACE(sizeof(uint16_t))];
        struct cmsghdr align;
    } ctl[TN_UDP_MSGS];
    int            nmsg, niov, rail, route;
} tn_udp_batch_t;

/* A lone datagram up to this size is gathered into one buffer and sent
 * with send()/sendto(): the kernel then imports no message header and no
 * iovec, which is most of what a small send costs beyond the stack itself. */
#define TN_UDP_FLAT_MAX 2048

/* Send messages b->msgs[done..nmsg) through fd: the count the kernel took,
 * or -1 with errno set. */
static int tn_udp_send_msgs(int fd, tn_udp_batch_t *b, int done)
{
    struct msghdr *h = &b->msgs[done].msg_hdr;
    if (b->nmsg - done > 1 || b->ndgram[done] > 1) {
        return sendmmsg(fd, b->msgs + done, (unsigned)(b->nmsg - done), MSG_DONTWAIT);
    }
    size_t total = 0;
    for (size_t i = 0; i < h->msg_iovlen; i++) {
        total += h->msg_iov[i].iov_len;
    }
    ssize_t r;
    if (total <= TN_UDP_FLAT_MAX) {
        char flat[TN_UDP_FLAT_MAX];
        size_t off = 0;
        for (size_t i = 0; i < h->msg_iovlen; i++) {
            memcpy(flat + off, h->msg_iov[i].iov_base, h->msg_iov[i].iov_len);
            off += h->msg_iov[i].iov_len;
        }
        r = h->msg_name == NULL ? send(fd, flat, total, MSG_DONTWAIT)
                                : sendto(fd, flat, total, MSG_DONTWAIT,
                                         (const struct sockaddr *)h->msg_name, h->msg_namelen);
    } else {
        r = sendmsg(fd, h, MSG_DONTWAIT);
    }
    return r < 0 ? -1 : 1;
}

/* Hand the gathered messages of one rail to the kernel. */
static void tn_udp_flush_run(tn_udp_sock_t *s, tn_udp_batch_t *b, int *failed_rail_p)
{
    int done = 0, rail = b->rail;
    int fd = b->route >= 0 ? s->route_fd[b->route] : s->fd[rail];
    while (done < b->nmsg) {
        int k = tn_udp_send_msgs(fd, b, done);
        if (k < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno == EAGAIN || errno == ENOBUFS || errno == ECONNREFUSED ||
                errno == EPERM) {
                /* no room, a stale ICMP error, or a local firewall rule
                 * that dropped the packet (EPERM: an nftables/iptables drop
                 * in the output path, e.g. random loss injected with
                 * numgen): the datagrams are lost; the reliability layer
                 * will send them again.  The rest of the batch still goes. */
                s->stats->send_errors++;
                done++;
                continue;
            }
            if (b->ndgram[done] > 1 && (errno == EIO || errno == EINVAL || errno == EMSGSIZE)) {
                /* the kernel or the device cannot segment: lost too, and
                 * from now on one datagram a time */
                tn_log_debug("udp", "UDP GSO refused on rail %d (%m); sending datagrams singly",
                             rail);
                s->gso[rail] = 0;
                s->stats->send_errors++;
                done++;
                continue;
            }
            tn_log_debug("udp", "sendmmsg on rail %d failed: %m", rail);
            s->stats->send_errors++;
            *failed_rail_p = rail;
            break;
        }
        for (int i = done; i < done + k; i++) {
            s->stats->sent += (uint64_t)b->ndgram[i];
            if (b->ndgram[i] > 1) {
                s->stats->gso_sends++;
                s->stats->gso_datagrams += (uint64_t)b->ndgram[i];
            }
        }
        done += k;
    }
    b->nmsg = 0;
    b->niov = 0;
}

static int tn_udp_same_to(const struct sockaddr_in *a, const struct sockaddr_in *b)
{
    return a->sin_addr.s_addr == b->sin_addr.s_addr && a->sin_port == b->sin_port;
}

/* Pages of a splice of d (header slot and second part); 0 when d cannot
 * be spliced. */
static int tn_udp_splice_pages(const tn_udp_sock_t *s, const tn_udp_out_t *d)
{
    size_t page = s->page;
    if (s->splice_min == 0 || !d->zcopy || d->route < 0 || d->len2 < s->splice_min ||
        d->len > TN_UDP_SPLICE_HDR) {
        return 0;
    }
    size_t pages = 1 + ((uintptr_t)d->buf2 % page + d->len2 + page - 1) / page;
    return pages <= TN_UDP_SPLICE_MAX_PAGES && pages <= (size_t)s->pipe_pages ? (int)pages : 0;
}

/* Take the next bytes out of the pipe unsent (to /dev/null: no copy). */
static void tn_udp_pipe_skip(tn_udp_sock_t *s, size_t bytes)
{
    while (bytes > 0) {
        ssize_t r = splice(s->pipe[0], NULL, s->null_fd, NULL, bytes, SPLICE_F_NONBLOCK);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            char sink[4096];            /* /dev/null refused: read it out */
            r = read(s->pipe[0], sink, bytes < sizeof(sink) ? bytes : sizeof(sink));
        }
        if (r <= 0) {
            /* a pipe that will not empty would corrupt the next datagram */
            tn_log_warn("udp", "cannot empty the zero-copy pipe (%m); zero-copy sends off");
            tn_udp_sock_set_splice(s, 0);
            return;
        }
        bytes -= (size_t)r;
        s->piped -= (size_t)r;
    }
}

static void tn_udp_send_dgrams(tn_udp_sock_t *s, const tn_udp_out_t *d, int nd,
                               tn_udp_batch_t *b, int *failed_rail_p, int splice_ok);

/* Send d[0..n) (all spliceable, their pages fitting the pipe) by splice;
 * what cannot go that way goes through b. */
static void tn_udp_splice_run(tn_udp_sock_t *s, const tn_udp_out_t *d, int n,
                              tn_udp_batch_t *b, int *failed_rail_p)
{
    struct iovec iov[2 * TN_UDP_SPLICE_MAX_PAGES] = { { 0 } };   /* n >= 1: a compiler cannot tell */
    for (int k = 0; k < n; k++) {
        char *slot = s->hring + (size_t)(s->hnext++ % TN_UDP_SPLICE_SLOTS) * TN_UDP_SPLICE_HDR;
        memcpy(slot, d[k].buf, d[k].len);
        iov[2 * k] = (struct iovec){ .iov_base = slot, .iov_len = d[k].len };
        iov[2 * k + 1] = (struct iovec){ .iov_base = (void *)d[k].buf2, .iov_len = d[k].len2 };
    }
    ssize_t got = vmsplice(s->pipe[1], iov, (unsigned long)(2 * n), SPLICE_F_NONBLOCK);
    size_t in = got > 0 ? (size_t)got : 0, off = 0;
    s->piped += in;
    int k = 0;
    for (; k < n && s->splice_min != 0; k++) {
        size_t dl = d[k].len + d[k].len2;
        if (off + dl > in) {
            break;                      /* not (wholly) in the pipe */
        }
        off += dl;
        ssize_t r;
        do {
            r = splice(s->pipe[0], NULL, s->route_fd[d[k].route], NULL, dl, SPLICE_F_NONBLOCK);
        } while (r < 0 && errno == EINTR);
        if (r > 0) {
            s->piped -= (size_t)r;
        }
        if (r == (ssize_t)dl) {
            s->stats->sent++;
            s->stats->splice_sends++;
            continue;
        }
        int err = r < 0 ? errno : 0;
        s->stats->send_errors++;
        /* lost, like a datagram a full buffer refuses (tn_udp_flush_run);
         * what is left of it leaves the pipe, so the next starts clean
         * (a short datagram that went out fails its checks at the peer) */
        tn_udp_pipe_skip(s, dl - (r > 0 ? (size_t)r : 0));
        if (err == EINVAL || err == ENOSYS || err == EOPNOTSUPP) {
            /* this kernel cannot splice to a UDP socket: every datagram
             * goes by copy from now on */
            tn_log_debug("udp", "splice to a UDP socket refused (%s); zero-copy sends off",
                         strerror(err));
            tn_udp_sock_set_splice(s, 0);   /* closes the pipe, whatever is in it */
            k++;
            break;
        }
        if (err != 0 && err != EAGAIN && err != ENOBUFS && err != ECONNREFUSED && err != EPERM) {
            tn_log_debug("udp", "splice on rail %d failed: %s", d[k].rail, strerror(err));
            *failed_rail_p = d[k].rail;
            tn_udp_pipe_skip(s, s->piped);
            return;
        }
    }
    if (s->piped > 0) {
        tn_udp_pipe_skip(s, s->piped);  /* a datagram vmsplice took only in part */
    }
    if (k < n) {
        s->stats->splice_fallbacks++;
        tn_udp_send_dgrams(s, d + k, n - k, b, failed_rail_p, 0);
    }
}

/* Pack d[0..nd) into messages: a run to the same address whose sizes equal
 * the first's (the last may be smaller) becomes one UDP_SEGMENT message.
 * With splice_ok, runs of datagrams that can go zero-copy go by splice. */
static void tn_udp_send_dgrams(tn_udp_sock_t *s, const tn_udp_out_t *d, int nd,
                               tn_udp_batch_t *b, int *failed_rail_p, int splice_ok)
{
    int i = 0;
    while (i < nd) {
        int rail = d[i].rail, route = d[i].route;
        int pages = splice_ok ? tn_udp_splice_pages(s, &d[i]) : 0;
        if (pages > 0) {
            /* in order: what is gathered leaves first */
            if (b->nmsg > 0) {
                tn_udp_flush_run(s, b, failed_rail_p);
            }
            int j = i + 1, total = pages;
            while (j < nd && j - i < TN_UDP_SPLICE_MAX_PAGES &&
                   (pages = tn_udp_splice_pages(s, &d[j])) > 0 &&
                   total + pages <= s->pipe_pages) {
                total += pages;
                j++;
            }
            tn_udp_splice_run(s, d + i, j - i, b, failed_rail_p);
            i = j;
            continue;
        }
        if (b->nmsg == TN_UDP_MSGS || (b->nmsg > 0 && (rail != b->rail || route != b->route))) {
            tn_udp_flush_run(s, b, failed_rail_p);
        }
        b->rail = rail;
        b->route = route;
        size_t seg = d[i].len + d[i].len2, bytes = 0;
        int j = i, iov0 = b->niov;
        do {
            size_t sz = d[j].len + d[j].len2;
            b->iov[b->niov].iov_base = (void *)d[j].buf;
            b->iov[b->niov++].iov_len = d[j].len;
            if (d[j].len2 != 0) {
                b->iov[b->niov].iov_base = (void *)d[j].buf2;
                b->iov[b->niov++].iov_len = d[j].len2;
            }
            bytes += sz;
            j++;
            if (sz < seg) {
                break;                  /* a shorter datagram ends a run */
            }
        } while (s->gso[rail] && j < nd && d[j].rail == rail && d[j].route == route &&
                 (route >= 0 || tn_udp_same_to(&d[j].to, &d[i].to)) &&
                 d[j].len + d[j].len2 <= seg && j - i < TN_UDP_GSO_MAX_SEGS &&
                 bytes + d[j].len + d[j].len2 <= TN_UDP_GSO_MAX_BYTES);
        int m = b->nmsg++;
        int ndg = j - i;
        struct msghdr *h = &b->msgs[m].msg_hdr;
        memset(&b->msgs[m], 0, sizeof(b->msgs[m]));
        h->msg_iov = &b->iov[iov0];
        h->msg_iovlen = (size_t)(b->niov - iov0);
        if (route < 0) {
            h->msg_name = (void *)&d[i].to;
            h->msg_namelen = sizeof(struct sockaddr_in);
        }
        b->ndgram[m] = ndg;
        if (ndg > 1) {
            h->msg_control = b->ctl[m].buf;
            h->msg_controllen = sizeof(b->ctl[m].buf);
            struct cmsghdr *c = CMSG_FIRSTHDR(h);
            c->cmsg_level = SOL_UDP;
            c->cmsg_type = UDP_SEGMENT;
            c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
            uint16_t gso_size = (uint16_t)seg;
            memcpy(CMSG_DATA(c), &gso_size, sizeof(gso_size));
        }
        i = j;
    }
}

int tn_udp_sock_send(tn_udp_sock_t *s, const tn_udp_out_t *out, int n, int *failed_rail_p)
{
    static tn_udp_batch_t batch;
    static char scratch[TN_UDP_SCRATCH][65536];        /* corrupted copies */
    tn_udp_out_t d[TN_UDP_DGRAMS];
    int handled = 0;
    *failed_rail_p = -1;
    batch.nmsg = 0;
    batch.niov = 0;

    for (int base = 0; base < n; base += TN_UDP_SEND_BATCH) {
        int end = n - base > TN_UDP_SEND_BATCH ? base + TN_UDP_SEND_BATCH : n;
        int nd = 0, ncorrupt = 0;
        void *release_held = NULL;
        /* the fault injector decides per datagram, before any grouping */
        for (int i = base; i < end; i++) {
            const tn_udp_out_t *o = &out[i];
            size_t total = o->len + o->len2;
            handled++;
            if (tn_udp_chance(s, s->fault.drop)) {
                s->stats->fault_dropped++;
                continue;
            }
            tn_udp_out_t x = *o;
            if (tn_udp_chance(s, s->fault.corrupt) && total > 0 && total <= sizeof(scratch[0]) &&
                ncorrupt < TN_UDP_SCRATCH) {
                char *c = scratch[ncorrupt++];
                memcpy(c, o->buf, o->len);
                if (o->len2 != 0) {
                    memcpy(c + o->len, o->buf2, o->len2);
                }
                c[tn_udp_rand(s) % total] ^= (char)(1 + tn_udp_rand(s) % 255);
                x.buf = c;
                x.len = total;
                x.buf2 = NULL;
                x.len2 = 0;
                s->stats->fault_corrupted++;
            }
            if (s->held == NULL && tn_udp_chance(s, s->fault.reorder)) {
                s->held = malloc(total);
                if (s->held != NULL) {
                    memcpy(s->held, x.buf, x.len);
                    if (x.len2 != 0) {
                        memcpy((char *)s->held + x.len, x.buf2, x.len2);
                    }
                    s->held_len = total;
                    s->held_rail = o->rail;
                    s->held_route = o->route;
                    s->held_to = o->to;
                    s->stats->fault_reordered++;
                    continue;       /* goes out after the next datagram */
                }
            }
            d[nd++] = x;
            if (tn_udp_chance(s, s->fault.dup)) {
                d[nd++] = x;
                s->stats->fault_duplicated++;
            }
            if (s->held != NULL && release_held == NULL) {
                d[nd++] = (tn_udp_out_t){ .buf = s->held, .len = s->held_len,
                                          .rail = s->held_rail, .route = s->held_route,
                                          .to = s->held_to };
                release_held = s->held;
                s->held = NULL;
            }
        }
        tn_udp_send_dgrams(s, d, nd, &batch, failed_rail_p, 1);
        if (batch.nmsg > 0) {
            tn_udp_flush_run(s, &batch, failed_rail_p);
        }
        free(release_held);
    }
    return handled;
}

int tn_udp_sock_gso_segs(const tn_udp_sock_t *s, size_t dgram)
{
    for (int r = 0; r < s->nrails; r++) {
        if (s->gso[r] && dgram > 0) {
            size_t n = TN_UDP_GSO_MAX_BYTES / dgram;
            return n < 1 ? 1 : n > TN_UDP_GSO_MAX_SEGS ? TN_UDP_GSO_MAX_SEGS : (int)n;
        }
    }
    return 1;
}

size_t tn_udp_sock_recv_cap(const tn_udp_sock_t *s, size_t packet_size)
{
    for (int r = 0; r < s->nrails; r++) {
        if (s->gro[r]) {
            return 65536;
        }
    }
    return packet_size;
}

/* Room for the one control message a receive can carry: UDP_GRO's segment
 * size, which the kernel adds to a buffer that holds coalesced datagrams
 * (and to no other). */
#define TN_UDP_CMSG_ROOM CMSG_SPACE(sizeof(int))

/* Size of the datagrams in a received buffer of len bytes: the kernel's
 * segment size when it coalesced several (each that long, the last one the
 * rest), else len.  Never read from the datagrams themselves: one forged
 * datagram coalesced with genuine ones could otherwise say how the rest is
 * cut. */
static size_t tn_udp_seg_size(const struct msghdr *h, size_t len)
{
    for (const struct cmsghdr *c = CMSG_FIRSTHDR(h); c != NULL;
         c = CMSG_NXTHDR((struct msghdr *)h, (struct cmsghdr *)c)) {
        if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO &&
            c->cmsg_len >= CMSG_LEN(sizeof(int))) {
            int gso;
            memcpy(&gso, CMSG_DATA(c), sizeof(gso));
            return gso > 0 && (size_t)gso < len ? (size_t)gso : len;
        }
    }
    return len;
}

int tn_udp_sock_recv(tn_udp_sock_t *s, int rail, char *base, size_t cap, size_t *lens,
                     size_t *segs, struct sockaddr_in *from, int max)
{
    /* The headers are built once for a set of buffers: this runs on every
     * poll of an idle socket, where only the syscall should cost. */
    static struct mmsghdr msgs[TN_UDP_SEND_BATCH];
    static struct iovec iovs[TN_UDP_SEND_BATCH];
    static union {
        struct cmsghdr align;
        char           buf[TN_UDP_CMSG_ROOM];
    } ctl[TN_UDP_SEND_BATCH];
    static char *built_base;
    static size_t built_cap;
    static struct sockaddr_in *built_from;
    if (max > TN_UDP_SEND_BATCH) {
        max = TN_UDP_SEND_BATCH;
    }
    if (max <= 0) {
        return 0;
    }
    if (built_base != base || built_cap != cap || built_from != from) {
        for (int i = 0; i < TN_UDP_SEND_BATCH; i++) {
            iovs[i].iov_base = base + (size_t)i * cap;
            iovs[i].iov_len = cap;
            memset(&msgs[i], 0, sizeof(msgs[i]));
            msgs[i].msg_hdr.msg_iov = &iovs[i];
            msgs[i].msg_hdr.msg_iovlen = 1;
            msgs[i].msg_hdr.msg_name = &from[i];
            msgs[i].msg_hdr.msg_control = ctl[i].buf;
        }
        built_base = base;
        built_cap = cap;
        built_from = from;
    }
    /* One receive first: an empty socket (the common case while waiting)
     * costs the least that way; the rest of a burst in one recvmmsg.  A
     * socket with GRO takes the control message that says how its buffer
     * is cut (tn_udp_seg_size); one without gets one datagram per buffer
     * and no control room.  MSG_TRUNC in msg_flags: a datagram larger
     * than any of ours. */
    size_t room = s->gro[rail] ? TN_UDP_CMSG_ROOM : 0;
    ssize_t r;
    do {
        msgs[0].msg_hdr.msg_namelen = sizeof(from[0]);
        msgs[0].msg_hdr.msg_controllen = room;
        r = recvmsg(s->fd[rail], &msgs[0].msg_hdr, MSG_DONTWAIT);
    } while (r < 0 && errno == EINTR);
    if (r < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNREFUSED) {
            s->stats->recv_errors++;
        }
        s->hits[rail] = 0;
        return 0;
    }
    msgs[0].msg_len = (unsigned)r;
    int k = 1;
    /* Look for more in the same call only while that pays: a lone message
     * (a ping-pong) would pay a second, empty system call on its critical
     * path.  After an empty look, look again once a datagram was found
     * waiting twice in a row (a burst) */
    if (s->hits[rail] < 2) {
        s->hits[rail]++;
    }
    if (max > 1 && (s->more[rail] || s->hits[rail] >= 2)) {
        int m;
        for (int i = 1; i < max; i++) {
            msgs[i].msg_hdr.msg_namelen = sizeof(from[i]);   /* the kernel shortens them */
            msgs[i].msg_hdr.msg_controllen = room;
        }
        do {
            m = recvmmsg(s->fd[rail], msgs + 1, (unsigned)(max - 1), MSG_DONTWAIT, NULL);
        } while (m < 0 && errno == EINTR);
        if (m > 0) {
            k += m;
        }
        s->more[rail] = m > 0;
    }
    for (int i = 0; i < k; i++) {
        lens[i] = msgs[i].msg_len;
        if (msgs[i].msg_hdr.msg_namelen != sizeof(from[i])) {
            from[i].sin_family = AF_UNSPEC;     /* not IPv4: no peer's */
        }
        if (msgs[i].msg_hdr.msg_flags & MSG_TRUNC) {
            lens[i] = segs[i] = 0;      /* larger than any of ours: foreign, drop */
            continue;
        }
        segs[i] = tn_udp_seg_size(&msgs[i].msg_hdr, lens[i]);
        size_t ndg = segs[i] != 0 ? (lens[i] + segs[i] - 1) / segs[i] : 1;
        if (ndg > 1) {
            s->stats->gro_recvs++;
            s->stats->gro_datagrams += ndg;
        }
        s->stats->recv += ndg;
    }
    return k;
}

ssize_t tn_udp_sock_recv_iov(tn_udp_sock_t *s, int rail, struct iovec *iov, int niov,
                             struct sockaddr_in *from, size_t *seg_p)
{
    union {
        struct cmsghdr align;
        char           buf[TN_UDP_CMSG_ROOM];
    } ctl;
    struct msghdr h;
    memset(&h, 0, sizeof(h));
    h.msg_iov = iov;
    h.msg_iovlen = (size_t)niov;
    h.msg_name = from;
    h.msg_namelen = sizeof(*from);
    h.msg_control = ctl.buf;
    h.msg_controllen = s->gro[rail] ? sizeof(ctl.buf) : 0;
    ssize_t r;
    do {
        r = recvmsg(s->fd[rail], &h, MSG_DONTWAIT);
    } while (r < 0 && errno == EINTR);
    if (r < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNREFUSED) {
            s->stats->recv_errors++;
        }
        return 0;
    }
    if (h.msg_flags & MSG_TRUNC) {
        return -1;                      /* larger than any of ours: foreign */
    }
    if (h.msg_namelen != sizeof(*from)) {
        from->sin_family = AF_UNSPEC;
    }
    *seg_p = tn_udp_seg_size(&h, (size_t)r);
    return r;
}

void tn_udp_sock_note_recv(tn_udp_sock_t *s, size_t ndg)
{
    if (ndg > 1) {
        s->stats->gro_recvs++;
        s->stats->gro_datagrams += ndg;
    }
    s->stats->recv += ndg;
}

void tn_udp_sock_wait(tn_udp_sock_t *s, uint64_t timeout_ns, int extra_fd)
{
    struct pollfd pfd[TN_UDP_MAX_SOCKS + 1];
    nfds_t n = 0;
    for (int r = 0; r < s->nrails; r++) {
        pfd[n].fd = s->fd[r];
        pfd[n].events = POLLIN;
        pfd[n++].revents = 0;
    }
    if (extra_fd >= 0) {
        pfd[n].fd = extra_fd;
        pfd[n].events = POLLIN;
        pfd[n++].revents = 0;
    }
    int ms = timeout_ns == UINT64_MAX ? -1 : (int)((timeout_ns + 999999) / 1000000);
    if (timeout_ns != UINT64_MAX && timeout_ns < 1000000) {
        /* sub-millisecond deadlines: ppoll takes a timespec */
        struct timespec ts = { 0, (long)timeout_ns };
        ppoll(pfd, n, &ts, NULL);
        return;
    }
    poll(pfd, n, ms);
}
