/* tern-monitor's web server over loopback, with plain blocking sockets as
 * clients: the server runs tn_mon_srv_run() in a thread.  GET, keep-alive,
 * HEAD pipelined with a GET, a POST whose body comes late, a handler's
 * failure, refusals (431, 400, 405) and the close after them, a slow-loris
 * client stalled while another is served (then answered 408), a large
 * answer and one beyond out_max, a client pipelining 4 MB of answers
 * without reading while another is served, the connection limit (503),
 * the idle timeout, HTTP/1.0's close; an owner's descriptor in the same
 * loop (deleting itself from its callback) and the tick. */
#include "mon_query.h"
#include "mon_srv.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../check.h"

static uint16_t      srv_port;
static tn_mon_srv_t *the_srv;
static int           ticks, fd_calls;      /* __atomic: the server thread counts */

static int handler(void *ctx, const tn_mon_http_req_t *req, tn_mon_http_resp_t *resp)
{
    static char chunk[26 * 64];
    char        path[64], v[32];
    size_t      n;

    if (tn_mon_query_path(req, path, sizeof(path), &n) != 0) {
        tn_mon_http_resp_text(resp, 404, NULL);
    } else if (strcmp(path, "/hello") == 0) {
        if (tn_mon_query_get(req, "name", v, sizeof(v), &n) != 0) {
            strcpy(v, "world");
        }
        tn_mon_http_resp_printf(resp, "hello %s\n", v);
    } else if (strcmp(path, "/echo") == 0 && req->method == TN_MON_HTTP_POST) {
        resp->content_type = "application/octet-stream";
        tn_mon_http_resp_append(resp, req->body, req->body_len);
    } else if (strcmp(path, "/big") == 0 && tn_mon_query_get(req, "n", v, sizeof(v), &n) == 0) {
        size_t len = strtoul(v, NULL, 10);
        for (size_t i = 0; i < sizeof(chunk); i++) {
            chunk[i] = (char)('a' + i % 26);
        }
        for (size_t done = 0; done < len; done += sizeof(chunk)) {
            size_t k = len - done < sizeof(chunk) ? len - done : sizeof(chunk);
            tn_mon_http_resp_append(resp, chunk, k);
        }
    } else if (strcmp(path, "/conns") == 0) {
        tn_mon_http_resp_printf(resp, "%d", tn_mon_srv_nconns(the_srv));
    } else if (strcmp(path, "/fail") == 0) {
        return -1;
    } else {
        tn_mon_http_resp_text(resp, 404, NULL);
    }
    return 0;
}

static void on_log(void *ctx, const char *msg) { fprintf(stderr, "  (server: %s)\n", msg); }
static void on_tick(void *arg, int64_t now_ms) { __atomic_add_fetch(&ticks, 1, __ATOMIC_SEQ_CST); }

/* An owner's pipe: counts its wake-ups, stops watching itself at 'x'. */
static void on_pipe(void *arg, int fd, short revents)
{
    char c = 0;

    if (read(fd, &c, 1) == 1 && c == 'x') {
        CHECK(tn_mon_srv_del_fd(arg, fd) == 0);
    }
    __atomic_add_fetch(&fd_calls, 1, __ATOMIC_SEQ_CST);
}

static void *srv_thread(void *arg) { return (void *)(intptr_t)tn_mon_srv_run(arg); }

static void sleep_ms(int ms) { usleep((useconds_t)ms * 1000); }

/* A client: a blocking socket (5 s receive timeout) and what it read. */
typedef struct {
    int    fd;
    char  *buf;
    size_t len;
} cl_t;

typedef struct {
    int    status;
    char   head[2048];
    char  *body;
    size_t blen;
} cl_resp_t;

static void cl_open(cl_t *c)
{
    struct sockaddr_in sin  = {.sin_family = AF_INET, .sin_port = htons(srv_port)};
    struct timeval     tv   = {5, 0};

    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    c->fd               = socket(AF_INET, SOCK_STREAM, 0);
    c->buf              = malloc(8 << 20);
    c->len              = 0;
    setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    CHECK(connect(c->fd, (struct sockaddr *)&sin, sizeof(sin)) == 0);
}

static void cl_close(cl_t *c) { close(c->fd); free(c->buf); }

static void cl_send(cl_t *c, const char *s, size_t len)
{
    while (len > 0) {
        ssize_t n = send(c->fd, s, len, MSG_NOSIGNAL);
        if (n <= 0) {
            CHECK(!"send failed");
            return;
        }
        s += n;
        len -= (size_t)n;
    }
}

static void cl_say(cl_t *c, const char *s) { cl_send(c, s, strlen(s)); }

static ssize_t cl_fill(cl_t *c)
{
    ssize_t n = recv(c->fd, c->buf + c->len, (8 << 20) - c->len, 0);

    c->len += n > 0 ? (size_t)n : 0;
    return n;
}

/* One answer (its body left out for HEAD): its status, or -1. */
static int cl_resp(cl_t *c, int head_only, cl_resp_t *r)
{
    const char *end, *cl;
    size_t      hlen, clen = 0;

    while ((end = memmem(c->buf, c->len, "\r\n\r\n", 4)) == NULL) {
        if (cl_fill(c) <= 0) {
            return -1;
        }
    }
    hlen = (size_t)(end + 4 - c->buf);
    memcpy(r->head, c->buf, hlen < sizeof(r->head) ? hlen : sizeof(r->head) - 1);
    r->head[hlen < sizeof(r->head) ? hlen : sizeof(r->head) - 1] = '\0';
    r->status = strncmp(r->head, "HTTP/1.1 ", 9) == 0 ? atoi(r->head + 9) : -1;
    if ((cl = strstr(r->head, "\r\nContent-Length: ")) != NULL) {
        clen = strtoul(cl + 18, NULL, 10);
    }
    r->blen = head_only ? 0 : clen;
    while (c->len < hlen + r->blen) {
        if (cl_fill(c) <= 0) {
            return -1;
        }
    }
    r->body = malloc(r->blen + 1);
    memcpy(r->body, c->buf + hlen, r->blen);
    r->body[r->blen] = '\0';
    c->len -= hlen + r->blen;
    memmove(c->buf, c->buf + hlen + r->blen, c->len);
    return r->status;
}

/* A request on c and its answer (r->body to be freed). */
static int cl_get(cl_t *c, const char *req, int head_only, cl_resp_t *r)
{
    cl_say(c, req);
    return cl_resp(c, head_only, r);
}

static int cl_body_is(cl_resp_t *r, const char *want)
{
    int ok = strcmp(r->body, want) == 0;

    free(r->body);
    return ok;
}

/* The server closed c: end of stream (or a reset) with nothing unread. */
static int cl_eof(cl_t *c)
{
    ssize_t n = c->len == 0 ? cl_fill(c) : 1;

    return n == 0 || (n < 0 && errno == ECONNRESET);
}

#define HOST " HTTP/1.1\r\nHost: t\r\n\r\n"

static void test_basic(void)
{
    cl_t      c;
    cl_resp_t r;

    cl_open(&c);
    CHECK(cl_get(&c, "GET /hello?name=tern" HOST, 0, &r) == 200 && cl_body_is(&r, "hello tern\n"));
    CHECK(strstr(r.head, "\r\nContent-Length: 11\r\n") && strstr(r.head, "\r\nCache-Control: no-store\r\n") &&
          strstr(r.head, "\r\nX-Content-Type-Options: nosniff\r\n") &&
          strstr(r.head, "\r\nConnection: keep-alive\r\n") &&
          strstr(r.head, "\r\nContent-Type: text/plain; charset=utf-8\r\n"));
    CHECK(cl_get(&c, "GET /hello" HOST, 0, &r) == 200 && cl_body_is(&r, "hello world\n"));
    /* HEAD pipelined with a GET: no body bytes may come between the two */
    cl_say(&c, "HEAD /hello?name=x" HOST "GET /hello?name=yy" HOST);
    CHECK(cl_resp(&c, 1, &r) == 200 && strstr(r.head, "\r\nContent-Length: 8\r\n") && cl_body_is(&r, ""));
    CHECK(cl_resp(&c, 0, &r) == 200 && cl_body_is(&r, "hello yy\n"));
    /* a POST whose body comes later than its head */
    cl_say(&c, "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\n0123");
    sleep_ms(50);
    CHECK(cl_get(&c, "456789", 0, &r) == 200 && cl_body_is(&r, "0123456789"));
    CHECK(strstr(r.head, "application/octet-stream") != NULL);
    CHECK(cl_get(&c, "GET /nowhere" HOST, 0, &r) == 404 && cl_body_is(&r, "404 Not Found\n"));
    CHECK(cl_get(&c, "GET /fail" HOST, 0, &r) == 500 && cl_body_is(&r, "500 Internal Server Error\n"));
    CHECK(strstr(r.head, "\r\nConnection: close\r\n") != NULL && cl_eof(&c));
    cl_close(&c);

    cl_open(&c);
    CHECK(cl_get(&c, "GET /hello HTTP/1.0\r\n\r\n", 0, &r) == 200 && cl_body_is(&r, "hello world\n"));
    CHECK(cl_eof(&c));
    cl_close(&c);
}

static void test_refusals(void)
{
    static char big[20100];
    cl_t        c;
    cl_resp_t   r;

    cl_open(&c);
    strcpy(big, "GET /hello HTTP/1.1\r\nHost: t\r\nX-Big: ");
    memset(big + strlen(big), 'a', 20000);
    strcat(big, "\r\n\r\n");
    CHECK(cl_get(&c, big, 0, &r) == 431 && cl_body_is(&r, "431 Request Header Fields Too Large\n"));
    CHECK(cl_eof(&c));
    cl_close(&c);
    cl_open(&c);
    CHECK(cl_get(&c, "GET /a/../b" HOST "GET /hello" HOST, 0, &r) == 400 && cl_body_is(&r, "400 Bad Request\n"));
    CHECK(cl_eof(&c));              /* the request after it is not answered */
    cl_close(&c);
    cl_open(&c);
    CHECK(cl_get(&c, "PUT /x" HOST, 0, &r) == 405 && cl_body_is(&r, "405 Method Not Allowed\n"));
    CHECK(strstr(r.head, "\r\nAllow: GET, HEAD, POST\r\n") != NULL && cl_eof(&c));
    cl_close(&c);
}

/* A client that sends a byte and stalls holds up nobody, and is answered
 * 408 once request_ms passed. */
static void test_slowloris(void)
{
    cl_t      slow, c;
    cl_resp_t r;

    cl_open(&slow);
    cl_say(&slow, "G");
    sleep_ms(50);
    cl_open(&c);
    CHECK(cl_get(&c, "GET /hello" HOST, 0, &r) == 200 && cl_body_is(&r, "hello world\n"));
    CHECK(cl_resp(&slow, 0, &r) == 408 && cl_body_is(&r, "408 Request Timeout\n"));
    CHECK(cl_eof(&slow));
    cl_close(&slow);
    cl_close(&c);
}

static void test_large(void)
{
    char      req[128];
    cl_t      flood, c;
    cl_resp_t r;
    int       ok = 1;

    cl_open(&c);
    CHECK(cl_get(&c, "GET /big?n=300000" HOST, 0, &r) == 200 && r.blen == 300000);
    for (size_t i = 0; i < r.blen; i++) {
        ok &= r.body[i] == (char)('a' + i % (26 * 64) % 26);
    }
    CHECK(ok);
    free(r.body);
    /* beyond out_max (1 MiB): 500, and the connection closes */
    CHECK(cl_get(&c, "GET /big?n=2000000" HOST, 0, &r) == 500 && cl_body_is(&r, "500 Internal Server Error\n"));
    CHECK(cl_eof(&c));
    cl_close(&c);

    /* 40 answers of 100 kB asked at once and not read yet: served in turn
     * as the client reads, while another client is served */
    cl_open(&flood);
    for (int i = 0; i < 40; i++) {
        snprintf(req, sizeof(req), "GET /big?n=%d" HOST, 100000 + i);
        cl_say(&flood, req);
    }
    sleep_ms(100);
    cl_open(&c);
    CHECK(cl_get(&c, "GET /hello?name=too" HOST, 0, &r) == 200 && cl_body_is(&r, "hello too\n"));
    cl_close(&c);
    for (int i = 0; i < 40; i++) {
        CHECK(cl_resp(&flood, 0, &r) == 200 && r.blen == (size_t)(100000 + i));
        free(r.body);
    }
    cl_close(&flood);
}

/* max_conns (4) open: the next is answered 503; an idle one is closed. */
static void test_limits(void)
{
    cl_t      c[5];
    cl_resp_t r;
    int       n = -1;

    /* the earlier clients' connections may not be reaped yet */
    for (int tries = 0; tries < 100 && n != 1; tries++) {
        cl_open(&c[0]);
        if (cl_get(&c[0], "GET /conns" HOST, 0, &r) == 200) {
            n = atoi(r.body);
            free(r.body);
        }
        cl_close(&c[0]);
        sleep_ms(20);
    }
    CHECK(n == 1);
    for (int i = 0; i < 4; i++) {
        cl_open(&c[i]);
        CHECK(cl_get(&c[i], "GET /hello" HOST, 0, &r) == 200 && cl_body_is(&r, "hello world\n"));
    }
    cl_open(&c[4]);
    CHECK(cl_resp(&c[4], 0, &r) == 503 && cl_body_is(&r, "503 Service Unavailable\n"));
    CHECK(strstr(r.head, "\r\nRetry-After: 1\r\n") != NULL && cl_eof(&c[4]));
    for (int i = 1; i < 5; i++) {
        cl_close(&c[i]);
    }
    /* c[0] stays idle: closed after idle_ms (1.5 s), before the 5 s timeout */
    CHECK(cl_eof(&c[0]));
    cl_close(&c[0]);
}

static void test_open(void)
{
    tn_mon_srv_cfg_t cfg = {.handler = handler};
    tn_mon_srv_t    *srv;
    int              rc;

    cfg.addr = "localhost";
    CHECK(tn_mon_srv_open(&cfg, &srv) == 0 && tn_mon_srv_port(srv) != 0);
    tn_mon_srv_close(srv);
    cfg.addr = "[::1]";             /* unless there is no IPv6 here */
    rc       = tn_mon_srv_open(&cfg, &srv);
    CHECK(rc == 0 || rc == -EADDRNOTAVAIL || rc == -EAFNOSUPPORT);
    tn_mon_srv_close(rc == 0 ? srv : NULL);
    cfg.addr = "example.com";
    CHECK(tn_mon_srv_open(&cfg, &srv) == -EINVAL);
    cfg.addr    = NULL;
    cfg.handler = NULL;
    CHECK(tn_mon_srv_open(&cfg, &srv) == -EINVAL);
}

int main(void)
{
    tn_mon_srv_cfg_t cfg = {.addr = "127.0.0.1", .max_conns = 4, .max_body = 1000,
                            .out_max = 1 << 20, .idle_ms = 1500, .request_ms = 400,
                            .handler = handler, .log = on_log};
    pthread_t        th;
    void            *ret;
    int              p[2];

    test_open();
    CHECK(tn_mon_srv_open(&cfg, &the_srv) == 0 && pipe(p) == 0);
    srv_port = tn_mon_srv_port(the_srv);
    CHECK(tn_mon_srv_add_fd(the_srv, p[0], 0, on_pipe, the_srv) == 0);
    CHECK(tn_mon_srv_add_fd(the_srv, p[0], POLLIN, on_pipe, the_srv) == -EEXIST);
    CHECK(tn_mon_srv_mod_fd(the_srv, p[0], POLLIN) == 0);
    CHECK(tn_mon_srv_del_fd(the_srv, p[1]) == -ENOENT);
    tn_mon_srv_set_tick(the_srv, 20, on_tick, NULL);
    CHECK(pthread_create(&th, NULL, srv_thread, the_srv) == 0);

    test_basic();
    test_refusals();
    test_slowloris();
    test_large();
    test_limits();

    /* the owner's pipe: called per byte, and not after deleting itself */
    CHECK(write(p[1], "a", 1) == 1);
    for (int i = 0; i < 200 && __atomic_load_n(&fd_calls, __ATOMIC_SEQ_CST) < 1; i++) {
        sleep_ms(10);
    }
    CHECK(write(p[1], "x", 1) == 1);
    for (int i = 0; i < 200 && __atomic_load_n(&fd_calls, __ATOMIC_SEQ_CST) < 2; i++) {
        sleep_ms(10);
    }
    CHECK(write(p[1], "b", 1) == 1);
    sleep_ms(200);
    CHECK(__atomic_load_n(&fd_calls, __ATOMIC_SEQ_CST) == 2);
    /* the tests took seconds: the 20 ms tick ran many times */
    CHECK(__atomic_load_n(&ticks, __ATOMIC_SEQ_CST) >= 20);

    tn_mon_srv_stop(the_srv);
    CHECK(pthread_join(th, &ret) == 0 && ret == NULL);
    tn_mon_srv_close(the_srv);
    close(p[0]);
    close(p[1]);
    return tn_check_report("test_mon_srv");
}
