/* The sock transport: socket I/O (the protocol is in sock.h, the handshake
 * in sock_hs.c). */
#include "xport/sock/sock.h"
#include "xport/sock/sock_hs.h"
#include "base/log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TN_SOCK_MAX_PAYLOAD ((size_t)256 * 1024)
#define TN_SOCK_FRAME_MAX   (4 + sizeof(tn_am_hdr_t) + TN_SOCK_MAX_PAYLOAD)
#define TN_SOCK_MSG_MAX     ((size_t)16 << 20)
#define TN_SOCK_HS_MS       30000      /* a handshake's patience */

enum { IN_HELLO, IN_CONFIRM, IN_STREAM, IN_PORT, IN_DONE };

typedef struct {
    int      fd;
    int      state;
    int      gpi;                    /* IN_STREAM: the sender */
    uint64_t port_id;                /* IN_PORT */
    uint8_t  hello[TN_SOCK_HELLO_MAX];
    size_t   hello_len;
    uint8_t  nonce_a[TN_SOCK_NONCE];
    uint8_t *in;
    size_t   in_len, in_cap;
} tn_sock_in_t;

typedef struct {
    char    *key;                    /* NULL: no such peer */
    char    *addrs;
    int      fd;                     /* outgoing stream, -1 until the first send */
    uint8_t *out;
    size_t   out_off, out_len, out_cap;
} tn_sock_peer_t;

static struct {
    int             ready;
    int             active;          /* a listener or a stream exists */
    uint8_t         secret[TN_SOCK_SECRET_BYTES];
    char            key[TN_SOCK_KEY_MAX + 1];
    tn_xport_am_handler_fn_t *handler;
    void          (*fatal)(const char *msg);
    int             lfd;
    char            addrs[TN_SOCK_ADDRS_MAX];
    tn_sock_peer_t *peers;
    int             npeers;
    tn_sock_in_t   *ins;
    int             nins, cap_ins;
    int             delivering;
} tn_sock = { .lfd = -1 };

/* Ports open here (MPI_Open_port): a port connection names one of them or
 * is dropped at the handshake. */
#define TN_SOCK_PORTS 64
static uint64_t tn_sock_ports[TN_SOCK_PORTS];

tn_status_t tn_xport_sock_port_open(uint64_t port_id)
{
    for (int i = 0; i < TN_SOCK_PORTS; i++) {
        if (tn_sock_ports[i] == 0) {
            tn_sock_ports[i] = port_id;
            return TN_OK;
        }
    }
    return TN_ERR_AGAIN;
}

int tn_xport_sock_port_is_open(uint64_t port_id)
{
    for (int i = 0; i < TN_SOCK_PORTS && port_id != 0; i++) {
        if (tn_sock_ports[i] == port_id) {
            return 1;
        }
    }
    return 0;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void set_nonblock(int fd, int on)
{
    int fl = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

static void set_nodelay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

tn_status_t tn_xport_sock_init(const uint8_t secret[TN_SOCK_SECRET_BYTES], const char *my_key,
                               tn_xport_am_handler_fn_t *handler,
                               void (*fatal)(const char *msg))
{
    if (tn_sock.ready) {
        return TN_OK;
    }
    if (strlen(my_key) > TN_SOCK_KEY_MAX) {
        return TN_ERR_INVAL;
    }
    memcpy(tn_sock.secret, secret, TN_SOCK_SECRET_BYTES);
    snprintf(tn_sock.key, sizeof(tn_sock.key), "%s", my_key);
    tn_sock.handler = handler;
    tn_sock.fatal = fatal;
    tn_sock.ready = 1;
    return TN_OK;
}

/* Our IPv4 addresses that are up: other interfaces first, loopback last. */
static void sock_my_addrs(uint16_t port)
{
    struct ifaddrs *ifa = NULL, *i;
    size_t used = 0;
    tn_sock.addrs[0] = '\0';
    if (getifaddrs(&ifa) == 0) {
        for (int loop = 0; loop < 2; loop++) {
            for (i = ifa; i != NULL; i = i->ifa_next) {
                if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET ||
                    !(i->ifa_flags & IFF_UP) || !!(i->ifa_flags & IFF_LOOPBACK) != loop) {
                    continue;
                }
                char ip[INET_ADDRSTRLEN];
                const struct sockaddr_in *sin = (const struct sockaddr_in *)i->ifa_addr;
                inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip));
                int n = snprintf(tn_sock.addrs + used, sizeof(tn_sock.addrs) - used, "%s%s:%u",
                                 used ? "," : "", ip, port);
                if (n < 0 || (size_t)n >= sizeof(tn_sock.addrs) - used) {
                    tn_sock.addrs[used] = '\0';
                    break;
                }
                used += (size_t)n;
            }
        }
        freeifaddrs(ifa);
    }
    if (used == 0) {
        snprintf(tn_sock.addrs, sizeof(tn_sock.addrs), "127.0.0.1:%u", port);
    }
}

tn_status_t tn_xport_sock_listen(char *addrs, size_t len)
{
    if (!tn_sock.ready) {
        return TN_ERR_INVAL;
    }
    if (tn_sock.lfd < 0) {
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
        socklen_t sl = sizeof(sa);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
            listen(fd, 128) != 0 || getsockname(fd, (struct sockaddr *)&sa, &sl) != 0) {
            tn_log_error("sock", "cannot open the listening socket for dynamic processes: %m");
            if (fd >= 0) {
                close(fd);
            }
            return TN_ERR_IO;
        }
        tn_sock.lfd = fd;
        tn_sock.active = 1;
        sock_my_addrs(ntohs(sa.sin_port));
    }
    snprintf(addrs, len, "%s", tn_sock.addrs);
    return TN_OK;
}

tn_status_t tn_xport_sock_add_peer(int gpi, const char *key, const char *addrs)
{
    if (gpi < 0) {
        return TN_ERR_INVAL;
    }
    if (gpi >= tn_sock.npeers) {
        int n = gpi + 16;
        tn_sock_peer_t *p = realloc(tn_sock.peers, sizeof(*p) * (size_t)n);
        if (p == NULL) {
            return TN_ERR_NOMEM;
        }
        for (int i = tn_sock.npeers; i < n; i++) {
            memset(&p[i], 0, sizeof(p[i]));
            p[i].fd = -1;
        }
        tn_sock.peers = p;
        tn_sock.npeers = n;
    }
    tn_sock_peer_t *p = &tn_sock.peers[gpi];
    if (p->key != NULL) {
        return strcmp(p->key, key) == 0 ? TN_OK : TN_ERR_INVAL;
    }
    p->key = strdup(key);
    p->addrs = strdup(addrs);
    if (p->key == NULL || p->addrs == NULL) {
        free(p->key);
        free(p->addrs);
        p->key = p->addrs = NULL;
        return TN_ERR_NOMEM;
    }
    return TN_OK;
}

static int sock_find_key(const char *key)
{
    for (int i = 0; i < tn_sock.npeers; i++) {
        if (tn_sock.peers[i].key != NULL && strcmp(tn_sock.peers[i].key, key) == 0) {
            return i;
        }
    }
    return -1;
}

/* ---------------------------------------------------------- incoming side */

static void in_close(tn_sock_in_t *c)
{
    if (c->fd >= 0) {
        close(c->fd);
    }
    free(c->in);
    c->in = NULL;
    c->in_len = c->in_cap = 0;
    c->fd = -1;
    c->state = IN_DONE;
}

static void sock_accept_all(void)
{
    for (;;) {
        int fd = accept4(tn_sock.lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            return;
        }
        set_nodelay(fd);
        int slot = -1;
        for (int i = 0; i < tn_sock.nins; i++) {
            if (tn_sock.ins[i].state == IN_DONE) {
                slot = i;
                break;
            }
        }
        if (slot < 0) {
            if (tn_sock.nins == tn_sock.cap_ins) {
                int cap = tn_sock.cap_ins ? 2 * tn_sock.cap_ins : 16;
                tn_sock_in_t *n = realloc(tn_sock.ins, sizeof(*n) * (size_t)cap);
                if (n == NULL) {
                    close(fd);
                    return;
                }
                tn_sock.ins = n;
                tn_sock.cap_ins = cap;
            }
            slot = tn_sock.nins++;
        }
        tn_sock_in_t *c = &tn_sock.ins[slot];
        memset(c, 0, sizeof(*c));
        c->fd = fd;
        c->state = IN_HELLO;
        c->gpi = -1;
    }
}

/* Read what is there into c->in; 0 at end of stream, -1 on error, else 1. */
static int in_read(tn_sock_in_t *c)
{
    for (;;) {
        if (c->in_cap - c->in_len < 65536) {
            size_t cap = c->in_cap ? c->in_cap * 2 : 131072;
            if (cap > 2 * TN_SOCK_FRAME_MAX + 65536) {
                if (c->in_cap - c->in_len == 0) {
                    return 1;             /* full: deliver first */
                }
                cap = c->in_cap;
            }
            if (cap != c->in_cap) {
                uint8_t *n = realloc(c->in, cap);
                if (n == NULL) {
                    return -1;
                }
                c->in = n;
                c->in_cap = cap;
            }
        }
        ssize_t r = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, MSG_DONTWAIT);
        if (r > 0) {
            c->in_len += (size_t)r;
            continue;
        }
        if (r == 0) {
            return 0;
        }
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 1 : -1;
    }
}

static void in_consume(tn_sock_in_t *c, size_t n)
{
    memmove(c->in, c->in + n, c->in_len - n);
    c->in_len -= n;
}

/* Advance the handshake of c with the bytes it has. */
static void in_handshake(tn_sock_in_t *c)
{
    if (c->state == IN_HELLO) {
        long want = tn_sock_hello_size(c->in, c->in_len);
        tn_sock_hello_t h;
        uint8_t reply[TN_SOCK_REPLY_BYTES];
        if (want < 0) {
            in_close(c);
            return;
        }
        if (want == 0 || c->in_len < (size_t)want) {
            return;
        }
        if (tn_sock_hello_decode(c->in, (size_t)want, &h) != TN_OK) {
            in_close(c);
            return;
        }
        if (h.kind == TN_SOCK_KIND_STREAM && (c->gpi = sock_find_key(h.key)) < 0) {
            tn_log_warn("sock", "a stream from %s, a process this one does not know: dropped",
                        h.key);
            in_close(c);
            return;
        }
        if (h.kind == TN_SOCK_KIND_PORT && !tn_xport_sock_port_is_open(h.port_id)) {
            in_close(c);                /* the connector reads the end: no such port */
            return;
        }
        memcpy(c->hello, c->in, (size_t)want);
        c->hello_len = (size_t)want;
        c->port_id = h.port_id;
        in_consume(c, (size_t)want);
        tn_sock_reply_make(tn_sock.secret, c->hello, c->hello_len, reply, c->nonce_a);
        if (send(c->fd, reply, sizeof(reply), MSG_NOSIGNAL) != (ssize_t)sizeof(reply)) {
            in_close(c);
            return;
        }
        c->state = IN_CONFIRM;
    }
    if (c->state == IN_CONFIRM && c->in_len >= TN_SOCK_MAC) {
        if (tn_sock_confirm_check(tn_sock.secret, c->hello, c->hello_len, c->nonce_a,
                                  c->in) != TN_OK) {
            tn_log_warn("sock", "a connection that does not hold this job's secret: dropped");
            in_close(c);
            return;
        }
        in_consume(c, TN_SOCK_MAC);
        c->state = c->hello[5] == TN_SOCK_KIND_STREAM ? IN_STREAM : IN_PORT;
        if (c->state == IN_PORT) {
            set_nonblock(c->fd, 0);
        }
    }
}

static void sock_peer_died(int gpi)
{
    char msg[TN_SOCK_KEY_MAX + 128];
    snprintf(msg, sizeof(msg), "process %s (connected through dynamic process management) "
             "ended without MPI_Finalize", tn_sock.peers[gpi].key);
    tn_sock.fatal(msg);
}

/* Hand the whole frames of stream idx to the handler; count them.  A
 * handler may send, and a send may accept connections (tn_sock.ins moves):
 * the entry is looked up again after every call. */
static int in_deliver(int idx)
{
    size_t off = 0;
    int n = 0, bye = 0;
    tn_sock_in_t *c = &tn_sock.ins[idx];
    while (c->in_len - off >= 4) {
        const uint8_t *f = c->in + off;
        uint32_t len = (uint32_t)f[0] | (uint32_t)f[1] << 8 | (uint32_t)f[2] << 16 |
                       (uint32_t)f[3] << 24;
        if (len == 0) {                              /* bye */
            off += 4;
            bye = 1;
            break;
        }
        if (len < sizeof(tn_am_hdr_t) || len > TN_SOCK_FRAME_MAX - 4) {
            tn_log_error("sock", "a frame of %u bytes from %s: dropping the stream", len,
                         tn_sock.peers[c->gpi].key);
            in_close(c);
            return n;
        }
        if (c->in_len - off < 4 + (size_t)len) {
            break;
        }
        tn_am_hdr_t hdr;
        memcpy(&hdr, f + 4, sizeof(hdr));
        tn_sock.handler(c->gpi, &hdr, f + 4 + sizeof(hdr), len - sizeof(hdr));
        c = &tn_sock.ins[idx];
        off += 4 + (size_t)len;
        n++;
    }
    in_consume(c, off);
    if (bye) {
        in_close(c);
    }
    return n;
}

/* One look at the listener and every incoming connection; frames are
 * delivered only when deliver != 0 (not while we wait inside a send). */
static int sock_poll_in(int deliver)
{
    int events = 0;
    if (tn_sock.lfd >= 0) {
        sock_accept_all();
    }
    for (int i = 0; i < tn_sock.nins; i++) {
        tn_sock_in_t *c = &tn_sock.ins[i];
        if (c->state == IN_DONE || c->state == IN_PORT || (c->state == IN_STREAM && !deliver)) {
            continue;
        }
        int r = in_read(c);
        if (c->state == IN_HELLO || c->state == IN_CONFIRM) {
            in_handshake(c);
        }
        if (c->state == IN_STREAM && deliver && !tn_sock.delivering) {
            tn_sock.delivering = 1;
            events += in_deliver(i);
            tn_sock.delivering = 0;
            c = &tn_sock.ins[i];
        }
        if (r <= 0 && c->state != IN_DONE && c->state != IN_PORT) {
            if (c->state == IN_STREAM) {
                sock_peer_died(c->gpi);
            }
            in_close(c);
        }
    }
    return events;
}

/* ---------------------------------------------------------- outgoing side */

/* Wait for fd to be ready for ev, servicing incoming handshakes meanwhile
 * (two processes that connect to each other at once). */
static int wait_fd(int fd, short ev, int64_t deadline)
{
    for (;;) {
        struct pollfd pfd = { .fd = fd, .events = ev };
        int64_t left = deadline < 0 ? 10 : deadline - now_ms();
        if (left < 0) {
            return 0;
        }
        int r = poll(&pfd, 1, left > 10 ? 10 : (int)left);
        if (r > 0) {
            return 1;
        }
        if (r < 0 && errno != EINTR) {
            return -1;
        }
        sock_poll_in(0);
    }
}

static tn_status_t write_all(int fd, const void *buf, size_t len, int64_t deadline)
{
    const uint8_t *p = buf;
    while (len > 0) {
        ssize_t r = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (r > 0) {
            p += r;
            len -= (size_t)r;
            continue;
        }
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            if (wait_fd(fd, POLLOUT, deadline) <= 0) {
                return TN_ERR_TIMEOUT;
            }
            continue;
        }
        return TN_ERR_IO;
    }
    return TN_OK;
}

static tn_status_t read_all(int fd, void *buf, size_t len, int64_t deadline)
{
    uint8_t *p = buf;
    while (len > 0) {
        ssize_t r = recv(fd, p, len, MSG_DONTWAIT);
        if (r > 0) {
            p += r;
            len -= (size_t)r;
            continue;
        }
        if (r == 0) {
            return TN_ERR_IO;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
            int w = wait_fd(fd, POLLIN, deadline);
            if (w <= 0) {
                return w == 0 ? TN_ERR_TIMEOUT : TN_ERR_IO;
            }
            continue;
        }
        return TN_ERR_IO;
    }
    return TN_OK;
}

/* Connect to the first address of addrs that answers and run the
 * connector's side of the handshake. */
static tn_status_t sock_connect(const char *addrs, int kind, uint64_t port_id, int timeout_ms,
                                int *fd_p)
{
    uint8_t hello[TN_SOCK_HELLO_MAX], reply[TN_SOCK_REPLY_BYTES], confirm[TN_SOCK_MAC];
    size_t hlen = tn_sock_hello_make(hello, kind, port_id, tn_sock.key);
    char list[TN_SOCK_ADDRS_MAX + 1], *save = NULL;
    int64_t deadline = now_ms() + timeout_ms;
    tn_status_t st = TN_ERR_IO;

    if (hlen == 0) {
        return TN_ERR_INTERNAL;
    }
    snprintf(list, sizeof(list), "%s", addrs);
    for (char *a = strtok_r(list, ",", &save); a != NULL; a = strtok_r(NULL, ",", &save)) {
        char *colon = strrchr(a, ':');
        struct sockaddr_in sa = { .sin_family = AF_INET };
        if (colon == NULL) {
            continue;
        }
        *colon = '\0';
        long port = strtol(colon + 1, NULL, 10);
        if (port <= 0 || port > 65535 || inet_pton(AF_INET, a, &sa.sin_addr) != 1) {
            continue;
        }
        sa.sin_port = htons((uint16_t)port);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0) {
            return TN_ERR_IO;
        }
        int r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
        int err = 0;
        socklen_t el = sizeof(err);
        if (r != 0 && errno == EINPROGRESS) {
            int64_t d = now_ms() + 2000;
            r = wait_fd(fd, POLLOUT, d < deadline ? d : deadline) > 0 &&
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err == 0 ? 0 : -1;
        }
        if (r != 0) {
            close(fd);
            continue;
        }
        set_nodelay(fd);
        st = write_all(fd, hello, hlen, deadline);
        if (st == TN_OK) {
            st = read_all(fd, reply, sizeof(reply), deadline);
        }
        if (st == TN_OK) {
            st = tn_sock_reply_check(tn_sock.secret, hello, hlen, reply, confirm);
            if (st != TN_OK) {
                tn_log_error("sock", "the process at %s:%ld does not hold this job's secret "
                             "(a separately started job?): refused", a, port);
            }
        }
        if (st == TN_OK) {
            st = write_all(fd, confirm, sizeof(confirm), deadline);
        }
        if (st != TN_OK) {
            close(fd);
            if (st == TN_ERR_PROTO) {
                return st;
            }
            continue;
        }
        *fd_p = fd;
        tn_sock.active = 1;
        return TN_OK;
    }
    return st == TN_ERR_PROTO ? st : TN_ERR_IO;
}

static tn_status_t peer_flush(int gpi)
{
    tn_sock_peer_t *p = &tn_sock.peers[gpi];
    while (p->out_off < p->out_len) {
        ssize_t r = send(p->fd, p->out + p->out_off, p->out_len - p->out_off,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
        if (r > 0) {
            p->out_off += (size_t)r;
            continue;
        }
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            return TN_OK;
        }
        sock_peer_died(gpi);
        return TN_ERR_PEER_DEAD;
    }
    p->out_off = p->out_len = 0;
    return TN_OK;
}

static tn_status_t peer_append(tn_sock_peer_t *p, const void *buf, size_t len)
{
    if (p->out_cap - p->out_len < len) {
        if (p->out_off > 0) {
            memmove(p->out, p->out + p->out_off, p->out_len - p->out_off);
            p->out_len -= p->out_off;
            p->out_off = 0;
        }
        size_t cap = p->out_cap ? p->out_cap : 65536;
        while (cap - p->out_len < len) {
            cap *= 2;
        }
        if (cap != p->out_cap) {
            uint8_t *n = realloc(p->out, cap);
            if (n == NULL) {
                return TN_ERR_NOMEM;
            }
            p->out = n;
            p->out_cap = cap;
        }
    }
    memcpy(p->out + p->out_len, buf, len);
    p->out_len += len;
    return TN_OK;
}

static tn_status_t sock_am_send(int peer, const tn_am_hdr_t *hdr, const struct iovec *iov,
                                int iovcnt)
{
    tn_status_t st;
    if (peer < 0 || peer >= tn_sock.npeers || tn_sock.peers[peer].key == NULL) {
        return TN_ERR_INVAL;
    }
    tn_sock_peer_t *p = &tn_sock.peers[peer];
    if (p->fd < 0) {
        st = sock_connect(p->addrs, TN_SOCK_KIND_STREAM, 0, TN_SOCK_HS_MS, &p->fd);
        if (st != TN_OK) {
            char msg[TN_SOCK_KEY_MAX + 128];
            snprintf(msg, sizeof(msg), "cannot reach process %s at %s (%s)", p->key, p->addrs,
                     tn_status_str(st));
            tn_sock.fatal(msg);
            return st;
        }
    }
    size_t len = sizeof(*hdr);
    for (int i = 0; i < iovcnt; i++) {
        len += iov[i].iov_len;
    }
    uint8_t lb[4] = { (uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16),
                      (uint8_t)(len >> 24) };
    if ((st = peer_append(p, lb, 4)) != TN_OK || (st = peer_append(p, hdr, sizeof(*hdr))) != TN_OK) {
        return st;
    }
    for (int i = 0; i < iovcnt; i++) {
        if ((st = peer_append(p, iov[i].iov_base, iov[i].iov_len)) != TN_OK) {
            return st;
        }
    }
    return peer_flush(peer);
}

static int sock_progress(void)
{
    if (!tn_sock.active) {
        return 0;
    }
    for (int i = 0; i < tn_sock.npeers; i++) {
        if (tn_sock.peers[i].out_len > tn_sock.peers[i].out_off) {
            peer_flush(i);
        }
    }
    return sock_poll_in(1);
}

void tn_xport_sock_finalize(void)
{
    static const uint8_t bye[4] = { 0, 0, 0, 0 };
    for (int i = 0; i < tn_sock.npeers; i++) {
        tn_sock_peer_t *p = &tn_sock.peers[i];
        if (p->fd >= 0) {
            if (peer_append(p, bye, 4) == TN_OK) {
                set_nonblock(p->fd, 0);
                if (p->out_len > p->out_off) {
                    write_all(p->fd, p->out + p->out_off, p->out_len - p->out_off,
                              now_ms() + TN_SOCK_HS_MS);
                }
            }
            close(p->fd);
        }
        free(p->key);
        free(p->addrs);
        free(p->out);
    }
    for (int i = 0; i < tn_sock.nins; i++) {
        if (tn_sock.ins[i].state != IN_DONE) {
            in_close(&tn_sock.ins[i]);
        }
    }
    if (tn_sock.lfd >= 0) {
        close(tn_sock.lfd);
    }
    free(tn_sock.peers);
    free(tn_sock.ins);
    memset(&tn_sock, 0, sizeof(tn_sock));
    tn_sock.lfd = -1;
}

int tn_xport_sock_active(void)
{
    return tn_sock.active;
}

/* ---------------------------------------------------------- port connections */

tn_status_t tn_xport_sock_port_connect(const char *addrs, uint64_t port_id, int timeout_ms,
                                       int *fd_p)
{
    tn_status_t st = sock_connect(addrs, TN_SOCK_KIND_PORT, port_id, timeout_ms, fd_p);
    if (st == TN_OK) {
        set_nonblock(*fd_p, 1);
    }
    return st;
}

int tn_xport_sock_port_take(uint64_t port_id, int *fd_p)
{
    sock_poll_in(0);
    for (int i = 0; i < tn_sock.nins; i++) {
        tn_sock_in_t *c = &tn_sock.ins[i];
        if (c->state == IN_PORT && c->port_id == port_id) {
            *fd_p = c->fd;
            set_nonblock(c->fd, 1);
            free(c->in);        /* a port connection sends nothing before it is taken */
            memset(c, 0, sizeof(*c));
            c->fd = -1;
            c->state = IN_DONE;
            return 1;
        }
    }
    return 0;
}

void tn_xport_sock_port_drop(uint64_t port_id)
{
    for (int i = 0; i < TN_SOCK_PORTS; i++) {
        if (tn_sock_ports[i] == port_id) {
            tn_sock_ports[i] = 0;
        }
    }
    for (int i = 0; i < tn_sock.nins; i++) {
        if (tn_sock.ins[i].state == IN_PORT && tn_sock.ins[i].port_id == port_id) {
            in_close(&tn_sock.ins[i]);
        }
    }
}

tn_status_t tn_xport_sock_msg_send(int fd, const void *buf, size_t len)
{
    uint8_t lb[4] = { (uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16),
                      (uint8_t)(len >> 24) };
    int64_t deadline = now_ms() + TN_SOCK_HS_MS;
    tn_status_t st = write_all(fd, lb, 4, deadline);
    return st == TN_OK ? write_all(fd, buf, len, deadline) : st;
}

tn_status_t tn_xport_sock_msg_recv(int fd, void **buf_p, size_t *len_p, size_t max,
                                   int timeout_ms)
{
    uint8_t lb[4];
    int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
    tn_status_t st = read_all(fd, lb, 4, deadline);
    if (st != TN_OK) {
        return st;
    }
    size_t len = (size_t)lb[0] | (size_t)lb[1] << 8 | (size_t)lb[2] << 16 | (size_t)lb[3] << 24;
    if (len > max || len > TN_SOCK_MSG_MAX) {
        return TN_ERR_PROTO;
    }
    uint8_t *b = malloc(len + 1);
    if (b == NULL) {
        return TN_ERR_NOMEM;
    }
    if ((st = read_all(fd, b, len, deadline)) != TN_OK) {
        free(b);
        return st;
    }
    b[len] = 0;
    *buf_p = b;
    *len_p = len;
    return TN_OK;
}

/* ---------------------------------------------------------- the ops table */

static size_t sock_max_payload(void)
{
    return TN_SOCK_MAX_PAYLOAD;
}

static size_t sock_eager_limit(void)
{
    return 64 * 1024;
}

static size_t sock_tiny_limit(void)
{
    return TN_AM_INLINE_MAX;
}

static unsigned sock_caps(int peer)
{
    return 0;
}

const tn_xport_ops_t tn_xport_sock_ops = {
    .name = "sock",
    .max_payload = sock_max_payload,
    .am_send = sock_am_send,
    .progress = sock_progress,
    .caps = sock_caps,
    .eager_limit = sock_eager_limit,
    .tiny_limit = sock_tiny_limit,
};
