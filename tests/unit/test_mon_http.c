/* tern-monitor's HTTP decoding and answers, without sockets: the request
 * parser (whole requests, every split point, each refusal and its status,
 * pipelined requests, connection persistence), the path and query
 * decoders, the answer writer, and the listening address parser.  The
 * JSON writer is test_mon_json.c, the server loop over loopback
 * test_mon_srv.c. */
#include "mon_http.h"
#include "mon_listen.h"
#include "mon_query.h"
#include "mon_resp.h"

#include <stdlib.h>
#include <string.h>

#include "../check.h"

#define MAX_BODY 100

/* Parse s from an allocation of its exact size (ASan sees over-reads). */
static int parse(const char *s, size_t len, tn_mon_http_req_t *req, size_t *used)
{
    char *copy = malloc(len ? len : 1);
    int   rc;

    memcpy(copy, s, len);
    rc = tn_mon_http_parse(copy, len, MAX_BODY, req, used);
    if (rc == 0) {
        /* point the fields back into s, which outlives copy */
        ptrdiff_t d = s - copy;
        req->target += d;
        req->path += d;
        req->query = req->query ? req->query + d : NULL;
        req->body += d;
        for (size_t i = 0; i < req->nhdrs; i++) {
            req->hdrs[i].name += d;
            req->hdrs[i].value += d;
        }
    }
    free(copy);
    return rc;
}

static int parse_str(const char *s, tn_mon_http_req_t *req)
{
    size_t used;
    int    rc = parse(s, strlen(s), req, &used);

    return rc == 0 && used != strlen(s) ? -1 : rc;
}

static int status_of(const char *s)
{
    tn_mon_http_req_t req;

    return parse_str(s, &req);
}

/* Every proper prefix of a whole request needs more; the whole parses. */
static void check_splits(const char *s, size_t len)
{
    tn_mon_http_req_t req;
    size_t            used;

    for (size_t k = 0; k < len; k++) {
        int rc = parse(s, k, &req, &used);
        if (rc != TN_MON_HTTP_MORE || used <= k) {
            fprintf(stderr, "split at %zu of %zu: rc %d\n", k, len, rc);
        }
        CHECK(rc == TN_MON_HTTP_MORE && used > k);
    }
    CHECK(parse(s, len, &req, &used) == 0 && used == len);
}

/* Every prefix of a refused request needs more or is refused the same. */
static void check_refused(const char *s, int status)
{
    tn_mon_http_req_t req;
    size_t            used, len = strlen(s);
    int               rc = parse(s, len, &req, &used);

    if (rc != -status) {
        fprintf(stderr, "expected %d, got %d: %.60s\n", status, rc, s);
    }
    CHECK(rc == -status);
    for (size_t k = 0; k < len; k++) {
        rc = parse(s, k, &req, &used);
        CHECK(rc == TN_MON_HTTP_MORE || rc == -status);
    }
}

static int hdr_is(const tn_mon_http_req_t *req, const char *name, const char *value)
{
    const tn_mon_http_hdr_t *h = tn_mon_http_header(req, name);

    return h != NULL && h->value_len == strlen(value) && memcmp(h->value, value, h->value_len) == 0;
}

static void test_parse(void)
{
    static const char get[] = "GET /api/x?a=1&b=%41+c HTTP/1.1\r\nHost: h\r\n"
                              "X-Pad:  spaced \t\r\nAccept: */*\r\n\r\n";
    static const char post[] = "\r\n\r\nPOST /in HTTP/1.0\r\nhost: h\r\ncontent-length: 5\r\n"
                               "Content-Length: 5\r\nConnection: Keep-Alive\r\n\r\nhello";
    tn_mon_http_req_t req;
    size_t            used;
    char              two[512];

    CHECK(parse(get, sizeof(get) - 1, &req, &used) == 0 && used == sizeof(get) - 1);
    CHECK(req.method == TN_MON_HTTP_GET && req.minor == 1 && req.keep_alive);
    CHECK(req.path_len == 6 && memcmp(req.path, "/api/x", 6) == 0);
    CHECK(req.query_len == 11 && memcmp(req.query, "a=1&b=%41+c", 11) == 0);
    CHECK(req.nhdrs == 3 && req.body_len == 0);
    CHECK(hdr_is(&req, "x-pad", "spaced") && hdr_is(&req, "HOST", "h"));
    CHECK(tn_mon_http_header(&req, "Host2") == NULL);
    check_splits(get, sizeof(get) - 1);

    CHECK(parse(post, sizeof(post) - 1, &req, &used) == 0 && used == sizeof(post) - 1);
    CHECK(req.method == TN_MON_HTTP_POST && req.minor == 0 && req.keep_alive);
    CHECK(req.body_len == 5 && memcmp(req.body, "hello", 5) == 0 && req.query == NULL);
    check_splits(post, sizeof(post) - 1);
    /* the head is known, the body missing: what it needs, and head_len */
    CHECK(parse(post, sizeof(post) - 3, &req, &used) == TN_MON_HTTP_MORE &&
          used == sizeof(post) - 1 && req.head_len == sizeof(post) - 6);

    /* persistence */
    CHECK(parse_str("HEAD / HTTP/1.0\r\n\r\n", &req) == 0 && !req.keep_alive &&
          req.method == TN_MON_HTTP_HEAD);
    CHECK(status_of("GET / HTTP/1.1\r\nHost: h\r\nConnection: foo, CLOSE\r\n\r\n") == 0);
    CHECK(parse_str("GET / HTTP/1.1\r\nHost: h\r\nConnection: keep-alive ,close\r\n\r\n",
                    &req) == 0 && !req.keep_alive);
    CHECK(parse_str("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", &req) == 0 &&
          req.keep_alive);
    CHECK(parse_str("GET /? HTTP/1.1\r\nHost:\r\n\r\n", &req) == 0 && req.query != NULL &&
          req.query_len == 0 && req.hdrs[0].value_len == 0);

    /* two pipelined requests: one after the other */
    snprintf(two, sizeof(two), "%s%s", post + 4, get);
    CHECK(tn_mon_http_parse(two, strlen(two), MAX_BODY, &req, &used) == 0 &&
          req.method == TN_MON_HTTP_POST && used == sizeof(post) - 5);
    CHECK(tn_mon_http_parse(two + used, strlen(two) - used, MAX_BODY, &req, &used) == 0 &&
          req.method == TN_MON_HTTP_GET && used == sizeof(get) - 1);
}

static void test_refused(void)
{
    char *big = malloc(20000);
    if (big == NULL) {
        abort();                        /* and gcc -O2 then knows its size */
    }

    check_refused("GET / HTTP/1.1\nHost: h\r\n\r\n", 400);            /* bare LF */
    check_refused("GET / HTTP/1.1\r\nHost: h\n\r\n", 400);
    check_refused("GET  / HTTP/1.1\r\nHost: h\r\n\r\n", 400);         /* two spaces */
    check_refused("GET / HTTP/1.1 \r\nHost: h\r\n\r\n", 400);
    check_refused("GET / http/1.1\r\nHost: h\r\n\r\n", 400);
    check_refused("GET / HTTP/1.1\r\n\r\n", 400);                     /* no Host */
    check_refused("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400);
    check_refused("GET http://h/ HTTP/1.1\r\nHost: h\r\n\r\n", 400);  /* absolute-form */
    check_refused("GET * HTTP/1.1\r\nHost: h\r\n\r\n", 400);
    check_refused("GET /a/../b HTTP/1.1\r\nHost: h\r\n\r\n", 400);
    check_refused("GET /.. HTTP/1.1\r\nHost: h\r\n\r\n", 400);
    check_refused("GET /a/%2e%2E/b HTTP/1.1\r\nHost: h\r\n\r\n", 400);
    check_refused("GET /a%2f..%2fb HTTP/1.1\r\nHost: h\r\n\r\n", 400);
    check_refused("GET /..?x HTTP/1.1\r\nHost: h\r\n\r\n", 400);
    check_refused("GET /a%5cb HTTP/1.1\r\nHost: h\r\n\r\n", 400);
    check_refused("GET /a\\b HTTP/1.1\r\nHost: h\r\n\r\n", 400);
    check_refused("GET /a%00 HTTP/1.1\r\nHost: h\r\n\r\n", 400);
    check_refused("GET /?q=%00 HTTP/1.1\r\nHost: h\r\n\r\n", 400);
    check_refused("GET /a%4 HTTP/1.1\r\nHost: h\r\n\r\n", 400);
    check_refused("GET /a%zz HTTP/1.1\r\nHost: h\r\n\r\n", 400);
    check_refused("GET /a#f HTTP/1.1\r\nHost: h\r\n\r\n", 400);
    check_refused("GET /\xc3\xa9 HTTP/1.1\r\nHost: h\r\n\r\n", 400);
    check_refused("G(T / HTTP/1.1\r\nHost: h\r\n\r\n", 400);
    check_refused("GET / HTTP/1.1\r\nHost : h\r\n\r\n", 400);         /* space before ':' */
    check_refused("GET / HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n", 400);
    check_refused("GET / HTTP/1.1\r\nHost: h\r\nX: a\x01z\r\n\r\n", 400);
    check_refused("GET / HTTP/1.1\r\nHost: h\r\nX: a\rz\r\n\r\n", 400);
    check_refused("GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n", 400);
    check_refused("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +5\r\n\r\n", 400);
    check_refused("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 5\r\n\r\n", 400);
    check_refused("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: \r\n\r\n", 400);
    check_refused("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", 400);
    check_refused("PUT / HTTP/1.1\r\nHost: h\r\n\r\n", 405);
    check_refused("DELETE / HTTP/1.1\r\nHost: h\r\n\r\n", 405);
    check_refused("BREW / HTTP/1.1\r\nHost: h\r\n\r\n", 501);
    check_refused("get / HTTP/1.1\r\nHost: h\r\n\r\n", 501);          /* methods have case */
    check_refused("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n", 501);
    check_refused("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n"
                  "transfer-encoding: identity\r\n\r\nabc", 501);
    check_refused("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 101\r\n\r\n", 413);
    check_refused("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999999\r\n\r\n",
                  413);
    check_refused("GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505);
    check_refused("GET / HTTP/1.2\r\nHost: h\r\n\r\n", 505);
    CHECK(status_of("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0100\r\n\r\n") ==
          TN_MON_HTTP_MORE);
    CHECK(status_of("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 00\r\n\r\n") == 0);

    /* bounds: the request line, the head, the header count */
    memcpy(big, "GET /", 5);
    memset(big + 5, 'a', 9000);
    big[9005] = '\0';
    check_refused(big, 414);
    strcpy(big + 9005, " HTTP/1.1\r\nHost: h\r\n\r\n");
    CHECK(status_of(big) == -414);
    strcpy(big, "GET / HTTP/1.1\r\nHost: h\r\nX: ");
    memset(big + 28, 'b', 17000);
    strcpy(big + 17028, "\r\n\r\n");
    CHECK(status_of(big) == -431);
    big[16382] = '\0';                  /* not yet at the bound */
    CHECK(status_of(big) == TN_MON_HTTP_MORE);
    strcpy(big, "GET / HTTP/1.1\r\nHost: h\r\n");
    for (int i = 0; i < 64; i++) {
        strcat(big, "A: b\r\n");
    }
    CHECK(status_of(strcat(big, "\r\n")) == -431);   /* 65 headers */
    free(big);
}

static void test_query(void)
{
    tn_mon_http_req_t req;
    size_t            used, n;
    char              v[8];
    static const char get[] = "GET /a%20b+c?x=1&name=J%C3%B6+D&&flag&x=2&e=&bad=%zz&"
                              "%6eame2=v HTTP/1.1\r\nHost: h\r\n\r\n";

    CHECK(parse(get, sizeof(get) - 1, &req, &used) == -400);   /* %zz */
    CHECK(parse(get, 20, &req, &used) == TN_MON_HTTP_MORE);
    /* the parser refuses %zz; the decoders check on their own */
    req.query     = get + 13;
    req.query_len = (size_t)(strstr(get, " HTTP") - req.query);
    req.path      = get + 4;
    req.path_len  = 8;
    CHECK(tn_mon_query_path(&req, v, sizeof(v), &n) == 0 && n == 6 && strcmp(v, "/a b+c") == 0);
    CHECK(tn_mon_query_get(&req, "x", v, sizeof(v), &n) == 0 && strcmp(v, "1") == 0);
    CHECK(tn_mon_query_get(&req, "name", v, sizeof(v), &n) == 0 && n == 5 &&
          strcmp(v, "J\xc3\xb6 D") == 0);
    CHECK(tn_mon_query_get(&req, "flag", v, sizeof(v), &n) == 0 && n == 0 && v[0] == '\0');
    CHECK(tn_mon_query_get(&req, "e", v, sizeof(v), &n) == 0 && n == 0);
    CHECK(tn_mon_query_get(&req, "bad", v, sizeof(v), &n) == -1 && v[0] == '\0');
    CHECK(tn_mon_query_get(&req, "name2", v, sizeof(v), &n) == 0 && strcmp(v, "v") == 0);
    CHECK(tn_mon_query_get(&req, "none", v, sizeof(v), &n) == 1 && v[0] == '\0');
    CHECK(tn_mon_query_get(&req, "name", v, 5, &n) == -1 && n == 0);   /* does not fit */
    CHECK(tn_mon_query_decode("abc", 3, 0, v, 4, &n) == 0 && n == 3);
    CHECK(tn_mon_query_decode("abcd", 4, 0, v, 4, &n) == -1);
    CHECK(tn_mon_query_decode("%00", 3, 0, v, 4, &n) == -1);
    CHECK(tn_mon_query_decode("a\0b", 3, 0, v, 4, &n) == -1);
    CHECK(tn_mon_query_decode("%4", 2, 0, v, 4, &n) == -1);
    CHECK(tn_mon_query_decode("%4a+", 4, 1, v, 4, &n) == 0 && strcmp(v, "J ") == 0);
    req.query = NULL;
    CHECK(tn_mon_query_get(&req, "x", v, sizeof(v), &n) == 1);
}

static void test_resp(void)
{
    tn_mon_http_resp_t resp;
    tn_mon_buf_t       out;

    tn_mon_http_resp_init(&resp, 16);
    tn_mon_buf_init(&out, 0);
    CHECK(tn_mon_http_resp_header(&resp, "X-A", "b c") == 0);
    CHECK(tn_mon_http_resp_header(&resp, "X-B", "evil\r\nSet-Cookie: x") == -1);
    CHECK(tn_mon_http_resp_header(&resp, "X B", "v") == -1);
    CHECK(tn_mon_http_resp_header(&resp, "content-length", "1") == -1);
    tn_mon_http_resp_printf(&resp, "%s", "hi");
    CHECK(tn_mon_http_resp_write(&resp, 0, 1, &out) == 0);
    CHECK(out.len == strlen("HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\n"
                            "Content-Length: 2\r\nCache-Control: no-store\r\n"
                            "X-Content-Type-Options: nosniff\r\nConnection: keep-alive\r\n"
                            "X-A: b c\r\n\r\nhi"));
    tn_mon_buf_reset(&out);
    CHECK(tn_mon_http_resp_write(&resp, 1, 0, &out) == 0 && memcmp(out.data + out.len - 4, "\r\n\r\n", 4) == 0);
    tn_mon_buf_reset(&out);
    tn_mon_http_resp_reset(&resp);
    CHECK(tn_mon_http_resp_header(&resp, "Cache-Control", "max-age=5") == 0);
    resp.status = 204;
    CHECK(tn_mon_http_resp_write(&resp, 0, 1, &out) == 0 && tn_mon_buf_append(&out, "", 1) == 0);
    CHECK(strstr(out.data, "Content-Length") == NULL && strstr(out.data, "no-store") == NULL);
    tn_mon_http_resp_reset(&resp);
    CHECK(tn_mon_http_resp_printf(&resp, "%s", "0123456789abcdefg") == -1);   /* 17 > 16 */
    CHECK(tn_mon_http_resp_write(&resp, 0, 1, &out) == -1);
    tn_mon_http_resp_text(&resp, 404, NULL);
    CHECK(resp.body.len == 14 && memcmp(resp.body.data, "404 Not Found\n", 14) == 0);
    tn_mon_http_resp_reset(&resp);
    resp.content_type = "text/html\r\nX: y";
    CHECK(tn_mon_http_resp_write(&resp, 0, 1, &out) == -1);
    tn_mon_http_resp_free(&resp);
    tn_mon_buf_free(&out);
}

static void test_listen(void)
{
    char     h[16];
    uint16_t p;

    CHECK(tn_mon_listen_parse("127.0.0.1:8080", "x", 1, h, sizeof(h), &p) == 0 &&
          strcmp(h, "127.0.0.1") == 0 && p == 8080);
    CHECK(tn_mon_listen_parse("[::1]:0", "x", 1, h, sizeof(h), &p) == 0 && strcmp(h, "::1") == 0 &&
          p == 0);
    CHECK(tn_mon_listen_parse("[::1]", "x", 7, h, sizeof(h), &p) == 0 && p == 7);
    CHECK(tn_mon_listen_parse("::1", "x", 7, h, sizeof(h), &p) == 0 && strcmp(h, "::1") == 0);
    CHECK(tn_mon_listen_parse(":99", "localhost", 7, h, sizeof(h), &p) == 0 &&
          strcmp(h, "localhost") == 0 && p == 99);
    CHECK(tn_mon_listen_parse("65535", "d", 7, h, sizeof(h), &p) == 0 && strcmp(h, "d") == 0 &&
          p == 65535);
    CHECK(tn_mon_listen_parse("localhost", "d", 7, h, sizeof(h), &p) == 0 && p == 7);
    CHECK(tn_mon_listen_parse("h:65536", "d", 7, h, sizeof(h), &p) == -1);
    CHECK(tn_mon_listen_parse("h:", "d", 7, h, sizeof(h), &p) == -1);
    CHECK(tn_mon_listen_parse("h:-1", "d", 7, h, sizeof(h), &p) == -1);
    CHECK(tn_mon_listen_parse("[::1", "d", 7, h, sizeof(h), &p) == -1);
    CHECK(tn_mon_listen_parse("[]:80", "d", 7, h, sizeof(h), &p) == -1);
    CHECK(tn_mon_listen_parse("[::1]x", "d", 7, h, sizeof(h), &p) == -1);
    CHECK(tn_mon_listen_parse("a-very-long-host-name", "d", 7, h, sizeof(h), &p) == -1);
}

int main(void)
{
    test_parse();
    test_refused();
    test_query();
    test_resp();
    test_listen();
    return tn_check_report("test_mon_http");
}
