/* tern-monitor's web server loop; see mon_srv.h.  The connections
 * themselves are in mon_conn.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                 /* accept4, pipe2 */
#endif
#include "mon_srv.h"
#include "mon_conn.h"
#include "mon_listen.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SRV_ACCEPTS_MAX 16          /* accepted per round */
#define SRV_ACCEPT_PAUSE_MS 100     /* out of descriptors: stop accepting a while */

/* An owner's descriptor; cb NULL once deleted (compacted out next round). */
typedef struct {
    int                fd;
    short              events;
    tn_mon_srv_fd_fn_t cb;
    void              *arg;
} srv_fd_t;

/* Who a pollfd entry of this round is for: the wake pipe, the listening
 * socket, a connection (slot, and its id: the slot may be reused), or an
 * owner's fd (its index, and the fd: the entry may have been deleted). */
typedef struct {
    enum { SRV_WAKE, SRV_LISTEN, SRV_CONN, SRV_FD } kind;
    int      index;
    uint64_t id;
} srv_who_t;

struct tn_mon_srv {
    tn_mon_srv_cfg_t     cfg;
    int                  lfd;
    uint16_t             port;
    int                  wake[2];           /* tn_mon_srv_stop writes a byte */
    int                  stop;              /* __atomic */
    tn_mon_conn_t      **conns;             /* cfg.max_conns slots, NULL: free */
    int                  nconns;
    uint64_t             last_id;
    srv_fd_t            *fds;
    int                  nfds, fds_cap;
    struct pollfd       *pfd;
    srv_who_t           *who;
    size_t               pfd_cap;
    int                  tick_ms;
    tn_mon_srv_tick_fn_t tick;
    void                *tick_arg;
    int64_t              tick_at;
    int64_t              accept_at;         /* accepting resumes */
    tn_mon_http_resp_t   resp;              /* the answer being built */
    tn_mon_buf_t         busy;              /* the 503 of a connection too many */
};

static int64_t srv_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void srv_log(tn_mon_srv_t *srv, const char *what)
{
    char msg[160];

    if (srv->cfg.log != NULL) {
        snprintf(msg, sizeof(msg), "http: %s", what);
        srv->cfg.log(srv->cfg.ctx, msg);
    }
}

int tn_mon_srv_open(const tn_mon_srv_cfg_t *cfg, tn_mon_srv_t **srv_p)
{
    tn_mon_srv_t *srv;
    int           rc;

    if (cfg->handler == NULL) {
        return -EINVAL;
    }
    srv = calloc(1, sizeof(*srv));
    if (srv == NULL) {
        return -ENOMEM;
    }
    srv->cfg = *cfg;
    srv->cfg.max_conns  = cfg->max_conns > 0 ? cfg->max_conns : 64;
    srv->cfg.max_body   = cfg->max_body > 0 ? cfg->max_body : 1 << 20;
    srv->cfg.out_max    = cfg->out_max > 0 ? cfg->out_max : 16 << 20;
    srv->cfg.idle_ms    = cfg->idle_ms > 0 ? cfg->idle_ms : 60000;
    srv->cfg.request_ms = cfg->request_ms > 0 ? cfg->request_ms : 10000;
    srv->lfd     = -1;
    srv->wake[0] = srv->wake[1] = -1;
    tn_mon_http_resp_init(&srv->resp, srv->cfg.out_max);
    tn_mon_http_resp_text(&srv->resp, 503, NULL);
    tn_mon_http_resp_header(&srv->resp, "Retry-After", "1");
    tn_mon_buf_init(&srv->busy, 0);
    srv->conns = calloc((size_t)srv->cfg.max_conns, sizeof(*srv->conns));
    if (srv->conns == NULL || tn_mon_http_resp_write(&srv->resp, 0, 0, &srv->busy) != 0) {
        rc = -ENOMEM;
        goto err;
    }
    if (pipe2(srv->wake, O_NONBLOCK | O_CLOEXEC) != 0) {
        rc = -errno;
        goto err;
    }
    rc = tn_mon_listen_open(cfg->addr, cfg->port, &srv->lfd, &srv->port);
    if (rc != 0) {
        goto err;
    }
    *srv_p = srv;
    return 0;
err:
    tn_mon_srv_close(srv);
    return rc;
}

void tn_mon_srv_close(tn_mon_srv_t *srv)
{
    if (srv == NULL) {
        return;
    }
    for (int i = 0; srv->conns != NULL && i < srv->cfg.max_conns; i++) {
        if (srv->conns[i] != NULL) {
            tn_mon_conn_free(srv->conns[i]);
        }
    }
    for (int i = 0; i < 2; i++) {
        if (srv->wake[i] >= 0) {
            close(srv->wake[i]);
        }
    }
    if (srv->lfd >= 0) {
        close(srv->lfd);
    }
    tn_mon_http_resp_free(&srv->resp);
    tn_mon_buf_free(&srv->busy);
    free(srv->conns);
    free(srv->fds);
    free(srv->pfd);
    free(srv->who);
    free(srv);
}

uint16_t tn_mon_srv_port(const tn_mon_srv_t *srv) { return srv->port; }
int tn_mon_srv_nconns(const tn_mon_srv_t *srv) { return srv->nconns; }

static srv_fd_t *srv_fd_find(tn_mon_srv_t *srv, int fd)
{
    for (int i = 0; i < srv->nfds; i++) {
        if (srv->fds[i].cb != NULL && srv->fds[i].fd == fd) {
            return &srv->fds[i];
        }
    }
    return NULL;
}

int tn_mon_srv_add_fd(tn_mon_srv_t *srv, int fd, short events,
                      tn_mon_srv_fd_fn_t cb, void *arg)
{
    if (fd < 0 || cb == NULL) {
        return -EINVAL;
    }
    if (srv_fd_find(srv, fd) != NULL || fd == srv->lfd || fd == srv->wake[0]) {
        return -EEXIST;
    }
    if (srv->nfds == srv->fds_cap) {
        int       cap = srv->fds_cap ? 2 * srv->fds_cap : 8;
        srv_fd_t *fds = realloc(srv->fds, (size_t)cap * sizeof(*fds));
        if (fds == NULL) {
            return -ENOMEM;
        }
        srv->fds     = fds;
        srv->fds_cap = cap;
    }
    srv->fds[srv->nfds++] = (srv_fd_t){.fd = fd, .events = events, .cb = cb, .arg = arg};
    return 0;
}

int tn_mon_srv_mod_fd(tn_mon_srv_t *srv, int fd, short events)
{
    srv_fd_t *f = srv_fd_find(srv, fd);

    if (f == NULL) {
        return -ENOENT;
    }
    f->events = events;
    return 0;
}

int tn_mon_srv_del_fd(tn_mon_srv_t *srv, int fd)
{
    srv_fd_t *f = srv_fd_find(srv, fd);

    if (f == NULL) {
        return -ENOENT;
    }
    /* only marked: a round being dispatched may still hold its index */
    f->cb = NULL;
    f->fd = -1;
    return 0;
}

void tn_mon_srv_set_tick(tn_mon_srv_t *srv, int period_ms, tn_mon_srv_tick_fn_t cb,
                         void *arg)
{
    srv->tick_ms  = cb != NULL && period_ms > 0 ? period_ms : 0;
    srv->tick     = cb;
    srv->tick_arg = arg;
    srv->tick_at  = srv_now() + srv->tick_ms;
}

static void srv_drop(tn_mon_srv_t *srv, int slot)
{
    tn_mon_conn_free(srv->conns[slot]);
    srv->conns[slot] = NULL;
    srv->nconns--;
}

static void srv_accept(tn_mon_srv_t *srv, int64_t now)
{
    for (int k = 0; k < SRV_ACCEPTS_MAX; k++) {
        int fd = accept4(srv->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        int one = 1, slot = 0;
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) {
                continue;
            }
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                /* EMFILE and the like: the socket stays readable, so
                 * retrying at once would spin */
                srv_log(srv, "accept failed; pausing");
                srv->accept_at = now + SRV_ACCEPT_PAUSE_MS;
            }
            return;
        }
        while (slot < srv->cfg.max_conns && srv->conns[slot] != NULL) {
            slot++;
        }
        if (slot < srv->cfg.max_conns) {
            srv->conns[slot] = tn_mon_conn_new(fd, ++srv->last_id, &srv->cfg, now);
        }
        if (slot == srv->cfg.max_conns || srv->conns[slot] == NULL) {
            /* best effort: a client whose request is not read yet may see
             * a reset instead */
            srv_log(srv, "connection refused: max_conns open");
            (void)!send(fd, srv->busy.data, srv->busy.len, MSG_NOSIGNAL | MSG_DONTWAIT);
            shutdown(fd, SHUT_WR);
            close(fd);
            continue;
        }
        /* answers go out in whole buffers: no reason to wait for an ACK */
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        srv->nconns++;
    }
}

/* The connections' timers and the tick; *next_p lowered to the next one. */
static void srv_timers(tn_mon_srv_t *srv, int64_t now, int64_t *next_p)
{
    for (int i = 0; i < srv->cfg.max_conns; i++) {
        if (srv->conns[i] != NULL &&
            tn_mon_conn_expire(srv->conns[i], &srv->cfg, &srv->resp, now, next_p) != 0) {
            srv_drop(srv, i);
        }
    }
    if (srv->tick_ms > 0 && now >= srv->tick_at) {
        srv->tick_at = srv->tick_at + srv->tick_ms > now ? srv->tick_at + srv->tick_ms
                                                         : now + srv->tick_ms;
        srv->tick(srv->tick_arg, now);
    }
    if (srv->tick_ms > 0 && srv->tick_at < *next_p) {
        *next_p = srv->tick_at;
    }
}

/* The pollfd entries of this round; deleted owners' fds compacted out. */
static int srv_build(tn_mon_srv_t *srv, int64_t now, int64_t *next_p, size_t *n_p)
{
    size_t need = 2 + (size_t)srv->cfg.max_conns, n = 0;
    int    k    = 0;

    for (int i = 0; i < srv->nfds; i++) {
        if (srv->fds[i].cb != NULL) {
            srv->fds[k++] = srv->fds[i];
        }
    }
    srv->nfds = k;
    need += (size_t)k;
    if (need > srv->pfd_cap) {
        struct pollfd *pfd = realloc(srv->pfd, need * sizeof(*pfd));
        srv_who_t     *who = pfd ? realloc(srv->who, need * sizeof(*who)) : NULL;
        if (pfd != NULL) {
            srv->pfd = pfd;
        }
        if (who == NULL) {
            return -ENOMEM;
        }
        srv->who     = who;
        srv->pfd_cap = need;
    }
    srv->pfd[n]   = (struct pollfd){.fd = srv->wake[0], .events = POLLIN};
    srv->who[n++] = (srv_who_t){.kind = SRV_WAKE};
    if (now >= srv->accept_at) {
        srv->pfd[n]   = (struct pollfd){.fd = srv->lfd, .events = POLLIN};
        srv->who[n++] = (srv_who_t){.kind = SRV_LISTEN};
    } else if (srv->accept_at < *next_p) {
        *next_p = srv->accept_at;
    }
    for (int i = 0; i < srv->cfg.max_conns; i++) {
        tn_mon_conn_t *c = srv->conns[i];
        if (c != NULL) {
            srv->pfd[n]   = (struct pollfd){.fd = c->fd, .events = tn_mon_conn_events(c)};
            srv->who[n++] = (srv_who_t){.kind = SRV_CONN, .index = i, .id = c->id};
        }
    }
    for (int i = 0; i < srv->nfds; i++) {
        srv->pfd[n]   = (struct pollfd){.fd = srv->fds[i].fd, .events = srv->fds[i].events};
        srv->who[n++] = (srv_who_t){.kind = SRV_FD, .index = i, .id = (uint64_t)srv->fds[i].fd};
    }
    *n_p = n;
    return 0;
}

int tn_mon_srv_step(tn_mon_srv_t *srv, int max_wait_ms)
{
    int64_t now  = srv_now();
    int64_t next = max_wait_ms < 0 ? INT64_MAX : now + max_wait_ms;
    size_t  n;
    int     rc, wait;
    char    junk[64];

    srv_timers(srv, now, &next);
    rc = srv_build(srv, now, &next, &n);
    if (rc != 0) {
        return rc;
    }
    wait = next == INT64_MAX ? -1 : next - now > 0x7fffffff ? 0x7fffffff
                                  : next > now ? (int)(next - now) : 0;
    rc = poll(srv->pfd, n, wait);
    if (rc < 0) {
        return errno == EINTR ? 0 : -errno;
    }
    now = srv_now();
    for (size_t i = 0; i < n; i++) {
        short            ev = srv->pfd[i].revents;
        const srv_who_t *w  = &srv->who[i];
        if (ev == 0) {
            continue;
        }
        if (w->kind == SRV_WAKE) {
            while (read(srv->wake[0], junk, sizeof(junk)) > 0) {
            }
        } else if (w->kind == SRV_LISTEN) {
            srv_accept(srv, now);
        } else if (w->kind == SRV_CONN) {
            tn_mon_conn_t *c = srv->conns[w->index];
            if (c != NULL && c->id == w->id &&
                tn_mon_conn_serve(c, ev, &srv->cfg, &srv->resp, now) != 0) {
                srv_drop(srv, w->index);
            }
        } else if (w->index < srv->nfds && srv->fds[w->index].cb != NULL &&
                   srv->fds[w->index].fd == (int)w->id) {
            srv_fd_t f = srv->fds[w->index];  /* cb may add fds: fds may move */
            f.cb(f.arg, f.fd, ev);
        }
    }
    next = INT64_MAX;
    srv_timers(srv, srv_now(), &next);
    return 0;
}

int tn_mon_srv_run(tn_mon_srv_t *srv)
{
    int rc = 0;

    while (rc == 0 && !__atomic_load_n(&srv->stop, __ATOMIC_ACQUIRE)) {
        rc = tn_mon_srv_step(srv, -1);
    }
    __atomic_store_n(&srv->stop, 0, __ATOMIC_RELEASE);
    return rc;
}

void tn_mon_srv_stop(tn_mon_srv_t *srv)
{
    char one = 1;

    __atomic_store_n(&srv->stop, 1, __ATOMIC_RELEASE);
    (void)!write(srv->wake[1], &one, 1);
}
