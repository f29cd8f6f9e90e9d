/* One HTTP connection of the server; see mon_conn.h and mon_srv.h. */
#include "mon_conn.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CONN_READ_MAX  16384    /* bytes read per round: no client hogs one */
#define CONN_OUT_SOFT  65536    /* queued answers that stop reading requests */
#define CONN_LINGER_MS 2000

static void conn_log(const tn_mon_srv_cfg_t *cfg, const tn_mon_conn_t *c, const char *what)
{
    char msg[160];

    if (cfg->log != NULL) {
        snprintf(msg, sizeof(msg), "http connection %llu: %s", (unsigned long long)c->id,
                 what);
        cfg->log(cfg->ctx, msg);
    }
}

tn_mon_conn_t *tn_mon_conn_new(int fd, uint64_t id, const tn_mon_srv_cfg_t *cfg,
                               int64_t now_ms)
{
    tn_mon_conn_t *c = calloc(1, sizeof(*c));

    if (c == NULL) {
        return NULL;
    }
    c->fd = fd;
    c->id = id;
    /* a whole request always fits: the parser refuses a longer head or body */
    tn_mon_buf_init(&c->in, TN_MON_HTTP_HEAD_MAX + cfg->max_body);
    tn_mon_buf_init(&c->out, cfg->out_max);
    c->active_ms  = now_ms;
    c->started_ms = -1;
    return c;
}

void tn_mon_conn_free(tn_mon_conn_t *c)
{
    close(c->fd);
    tn_mon_buf_free(&c->in);
    tn_mon_buf_free(&c->out);
    free(c);
}

static size_t conn_pending(const tn_mon_conn_t *c)
{
    return c->out.len - c->out_off;
}

short tn_mon_conn_events(const tn_mon_conn_t *c)
{
    short ev = conn_pending(c) > 0 ? POLLOUT : 0;

    if (c->lingering ||
        (!c->closing && !c->eof && c->in.len < c->in.max && conn_pending(c) < CONN_OUT_SOFT)) {
        ev |= POLLIN;
    }
    return ev;
}

static int conn_read(tn_mon_conn_t *c, int64_t now_ms)
{
    char    junk[4096];
    size_t  room = c->in.max - c->in.len;
    ssize_t n;

    if (c->lingering) {
        n = recv(c->fd, junk, sizeof(junk), 0);
        return n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) ? -1 : 0;
    }
    room = room < CONN_READ_MAX ? room : CONN_READ_MAX;
    if (room == 0 || c->closing || c->eof) {
        return 0;
    }
    if (tn_mon_buf_reserve(&c->in, room) != 0) {
        return -1;
    }
    n = recv(c->fd, c->in.data + c->in.len, room, 0);
    if (n > 0) {
        if (c->in.len == 0) {
            c->started_ms = now_ms;
        }
        c->in.len += (size_t)n;
        c->active_ms = now_ms;
    } else if (n == 0) {
        c->eof = 1;
    } else if (errno != EAGAIN && errno != EINTR) {
        return -1;
    }
    return 0;
}

/* Queue resp; a handler's answer that cannot be written becomes 500.  -1
 * when not even that fits in out (the connection is dropped). */
static int conn_queue(tn_mon_conn_t *c, const tn_mon_srv_cfg_t *cfg,
                      tn_mon_http_resp_t *resp, int head_only)
{
    if (c->out_off > 0) {
        tn_mon_buf_consume(&c->out, c->out_off);
        c->out_off = 0;
    }
    if (tn_mon_http_resp_write(resp, head_only, !c->closing, &c->out) == 0) {
        return 0;
    }
    if (!c->out.failed) {
        conn_log(cfg, c, "answer could not be built (body too large?): 500");
        tn_mon_http_resp_reset(resp);
        tn_mon_http_resp_text(resp, 500, NULL);
        c->closing = 1;
        if (tn_mon_http_resp_write(resp, head_only, 0, &c->out) == 0) {
            return 0;
        }
    }
    conn_log(cfg, c, "dropped: answers waiting passed out_max");
    return -1;
}

/* Answer status to a request refused by the parser (or too slow) and close. */
static int conn_refuse(tn_mon_conn_t *c, const tn_mon_srv_cfg_t *cfg,
                       tn_mon_http_resp_t *resp, int status)
{
    tn_mon_http_resp_reset(resp);
    tn_mon_http_resp_text(resp, status, NULL);
    if (status == 405) {
        tn_mon_http_resp_header(resp, "Allow", "GET, HEAD, POST");
    }
    c->closing = 1;
    c->in.len  = 0;
    return conn_queue(c, cfg, resp, 0);
}

/* Answer the whole requests in in, in order.  -1: drop the connection;
 * 1: waiting for more input; 0: stopped by the answers waiting, or
 * closing. */
static int conn_process(tn_mon_conn_t *c, const tn_mon_srv_cfg_t *cfg,
                        tn_mon_http_resp_t *resp, int64_t now_ms)
{
    tn_mon_http_req_t req;
    size_t            used;
    int               rc;

    while (!c->closing && conn_pending(c) < CONN_OUT_SOFT) {
        if (c->in.len == 0 || c->in.len < c->need) {
            return 1;
        }
        /* an incomplete head is parsed again only once a line ended (or
         * it passed its bound): a client sending a byte at a time must not
         * make us scan its head once per byte */
        if (c->scanned > 0 && c->in.len <= TN_MON_HTTP_HEAD_MAX &&
            memchr(c->in.data + c->scanned, '\n', c->in.len - c->scanned) == NULL) {
            c->scanned = c->in.len;
            return 1;
        }
        rc = tn_mon_http_parse(c->in.data, c->in.len, cfg->max_body, &req, &used);
        if (rc == TN_MON_HTTP_MORE) {
            c->need    = used;
            c->scanned = req.head_len == 0 ? c->in.len : 0;
            return 1;
        }
        if (rc < 0) {
            return conn_refuse(c, cfg, resp, -rc);
        }
        tn_mon_http_resp_reset(resp);
        if (cfg->handler(cfg->ctx, &req, resp) != 0) {
            tn_mon_http_resp_reset(resp);
            tn_mon_http_resp_text(resp, 500, NULL);
            resp->close = 1;
        }
        c->closing = resp->close || !req.keep_alive;
        if (conn_queue(c, cfg, resp, req.method == TN_MON_HTTP_HEAD) != 0) {
            return -1;
        }
        tn_mon_buf_consume(&c->in, used);
        c->need       = 0;
        c->scanned    = 0;
        c->started_ms = c->in.len > 0 ? now_ms : -1;
    }
    if (c->closing) {
        c->in.len = 0;
    }
    return 0;
}

static int conn_write(tn_mon_conn_t *c, int64_t now_ms)
{
    while (conn_pending(c) > 0) {
        ssize_t n = send(c->fd, c->out.data + c->out_off, conn_pending(c), MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                break;
            }
            return -1;
        }
        c->out_off += (size_t)n;
        c->active_ms = now_ms;
    }
    if (conn_pending(c) == 0) {
        c->out.len = 0;
        c->out_off = 0;
        if (c->closing && !c->lingering) {
            if (c->eof) {
                return -1;          /* both sides are done */
            }
            shutdown(c->fd, SHUT_WR);
            c->lingering = 1;
            c->linger_ms = now_ms + CONN_LINGER_MS;
        }
    }
    return 0;
}

int tn_mon_conn_serve(tn_mon_conn_t *c, short revents, const tn_mon_srv_cfg_t *cfg,
                      tn_mon_http_resp_t *resp, int64_t now_ms)
{
    int rc;

    if (revents & (POLLERR | POLLNVAL)) {
        return -1;
    }
    if ((revents & (POLLIN | POLLHUP)) && conn_read(c, now_ms) != 0) {
        return -1;
    }
    /* answering may wait for writing, and writing frees room to answer
     * requests already read: no event would come for those */
    do {
        rc = conn_process(c, cfg, resp, now_ms);
        if (rc < 0) {
            return -1;
        }
        if (rc == 1 && c->eof && !c->closing) {
            c->closing = 1;         /* a request cut by EOF is never answered */
            c->in.len  = 0;
        }
        if (conn_write(c, now_ms) != 0) {
            return -1;
        }
    } while (rc == 0 && !c->closing && conn_pending(c) < CONN_OUT_SOFT);
    return 0;
}

static void conn_deadline(int64_t at, int64_t *next_ms)
{
    if (at < *next_ms) {
        *next_ms = at;
    }
}

int tn_mon_conn_expire(tn_mon_conn_t *c, const tn_mon_srv_cfg_t *cfg,
                       tn_mon_http_resp_t *resp, int64_t now_ms, int64_t *next_ms)
{
    int64_t idle_at = c->active_ms + cfg->idle_ms;
    int64_t req_at  = c->started_ms + cfg->request_ms;

    if (c->lingering) {
        conn_deadline(c->linger_ms, next_ms);
        return now_ms >= c->linger_ms ? -1 : 0;
    }
    if (now_ms >= idle_at) {
        conn_log(cfg, c, "closed: idle");
        return -1;
    }
    conn_deadline(idle_at, next_ms);
    /* only a request still arriving is timed, not one waiting for the
     * client to read earlier answers */
    if (c->closing || c->started_ms < 0 || c->in.len == 0 || conn_pending(c) >= CONN_OUT_SOFT) {
        return 0;
    }
    if (now_ms < req_at) {
        conn_deadline(req_at, next_ms);
        return 0;
    }
    conn_log(cfg, c, "request too slow: 408");
    if (conn_refuse(c, cfg, resp, 408) != 0 || conn_write(c, now_ms) != 0) {
        return -1;
    }
    if (c->lingering) {
        conn_deadline(c->linger_ms, next_ms);
    }
    return 0;
}
