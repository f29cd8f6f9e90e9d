/* Fuzz harness of tern-monitor's HTTP request parser
 * (tools/tern-monitor/mon_http.c: tn_mon_http_parse, tn_mon_http_header),
 * the decoders of a request's path and query (mon_query.c) and the
 * listening address parser (mon_listen.c), what a browser or any other
 * client sends being hostile.
 *
 * Input: a byte b, then the bytes a client sent.  b & 7 picks the body
 * bound (0, 1, 10, 100, 1000, 65536, SIZE_MAX / 2, SIZE_MAX); b >> 3 a cut
 * point (b >> 3) / 32 of the way into the bytes.  The bytes are parsed as
 * a connection's buffer: the first request, then each request after it
 * (pipelined) as long as they parse whole.  They are also percent-decoded
 * into a buffer of (b & 63) + 1 bytes, '+' as space when b & 64, and split
 * as a listening address up to their first NUL.  Every input is copied to
 * an allocation of its exact size, so that ASan sees a read past its end.
 *
 * Checked: the result is 0, "need more" or one of the statuses the parser
 * may answer; a whole request lies inside the bytes, its head within
 * TN_MON_HTTP_HEAD_MAX with at most TN_MON_HTTP_HDRS_MAX headers of token
 * names and values without CR or LF, its body within the bound, its path
 * starting with '/' and decoding (its query's parameters too: the parser
 * has checked every escape) to text without a ".." segment or '\';
 * "need more" asks for more than there is; the answer for a prefix is
 * "need more" or the answer for the whole (a whole request's own bytes
 * parse the same); decoded text fits its buffer, ends in NUL and holds no
 * NUL; a listening address is non-empty and fits its buffer. */
#include "mon_http.h"
#include "mon_listen.h"
#include "mon_query.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fz_fail(const char *what)
{
    fprintf(stderr, "fuzz_http: %s\n", what);
    abort();
}

static int fz_inside(const char *p, size_t n, const char *lo, size_t len)
{
    return p >= lo && n <= len && (size_t)(p - lo) <= len - n;
}

static int fz_tchar(unsigned char c)
{
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') ||
           (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

/* Decoded text: NUL-terminated within cap, no NUL before its end. */
static void fz_decoded(int rc, const char *dst, size_t cap, size_t n)
{
    if (rc == 0 && (n >= cap || dst[n] != '\0' || memchr(dst, '\0', n) != NULL)) {
        fz_fail("decoded text does not fit or holds a NUL");
    }
    if (rc != 0 && (rc != -1 || dst[0] != '\0' || n != 0)) {
        fz_fail("a failed decode left text");
    }
}

/* A whole request: everything the header promises. */
static void fz_request(const tn_mon_http_req_t *req, const char *buf, size_t used,
                       size_t max_body)
{
    static char          text[TN_MON_HTTP_HEAD_MAX + 1];
    tn_mon_query_param_t prm;
    size_t               n, pos = 0;

    if (used != req->head_len + req->body_len || req->head_len > TN_MON_HTTP_HEAD_MAX ||
        req->body != buf + req->head_len || req->body_len > max_body ||
        req->nhdrs > TN_MON_HTTP_HDRS_MAX || req->method > TN_MON_HTTP_POST || req->minor > 1 ||
        (req->minor == 0 && req->keep_alive && tn_mon_http_header(req, "connection") == NULL)) {
        fz_fail("a request out of its bounds");
    }
    if (!fz_inside(req->target, req->target_len, buf, req->head_len) ||
        req->path != req->target || req->path_len == 0 || req->path[0] != '/' ||
        (req->query == NULL ? req->path_len != req->target_len
                            : req->query != req->path + req->path_len + 1 ||
                                  req->query[-1] != '?' ||
                                  req->query_len != req->target_len - req->path_len - 1)) {
        fz_fail("a target out of place");
    }
    for (size_t i = 0; i < req->nhdrs; i++) {
        const tn_mon_http_hdr_t *h = &req->hdrs[i];
        if (!fz_inside(h->name, h->name_len, buf, req->head_len) ||
            !fz_inside(h->value, h->value_len, buf, req->head_len) || h->name_len == 0 ||
            memchr(h->value, '\r', h->value_len) || memchr(h->value, '\n', h->value_len)) {
            fz_fail("a header out of place or holding a line end");
        }
        for (size_t k = 0; k < h->name_len; k++) {
            if (!fz_tchar((unsigned char)h->name[k])) {
                fz_fail("a header name that is not a token");
            }
        }
    }
    if (tn_mon_http_header(req, "host") == NULL && req->minor == 1) {
        fz_fail("HTTP/1.1 without Host");
    }
    if (tn_mon_query_path(req, text, sizeof(text), &n) != 0) {
        fz_fail("an accepted path does not decode");
    }
    fz_decoded(0, text, sizeof(text), n);
    if (strchr(text, '\\') != NULL || strcmp(text + (n >= 3 ? n - 3 : 0), "/..") == 0 ||
        strstr(text, "/../") != NULL) {
        fz_fail("an accepted path with '..' or '\\'");
    }
    while (tn_mon_query_next(req, &pos, &prm)) {
        char v[64];
        if (!fz_inside(prm.name, prm.name_len, req->query, req->query_len) ||
            pos > req->query_len) {
            fz_fail("a query parameter out of place");
        }
        if (tn_mon_query_decode(prm.value, prm.value_len, 1, text, sizeof(text), &n) != 0 ||
            tn_mon_query_decode(prm.name, prm.name_len, 1, text, sizeof(text), &n) != 0) {
            fz_fail("an accepted query does not decode");
        }
        if (n < 256 && tn_mon_query_get(req, text, v, sizeof(v), &n) == 1) {
            fz_fail("a query parameter not found by its name");
        }
    }
}

/* One request at buf; returns its length when whole, else 0. */
static size_t fz_parse(const char *buf, size_t len, size_t max_body, size_t cut)
{
    tn_mon_http_req_t req, again;
    size_t            used = 0, used2;
    int               rc = tn_mon_http_parse(buf, len, max_body, &req, &used), rc2;

    if (rc == 0) {
        if (used > len) {
            fz_fail("a request longer than its bytes");
        }
        fz_request(&req, buf, used, max_body);
        if (tn_mon_http_parse(buf, used, max_body, &again, &used2) != 0 || used2 != used ||
            (used > 0 && tn_mon_http_parse(buf, used - 1, max_body, &again, &used2) !=
                             TN_MON_HTTP_MORE)) {
            fz_fail("a request's own bytes parse otherwise");
        }
    } else if (rc == TN_MON_HTTP_MORE) {
        if (used <= len || (req.head_len != 0 && (req.head_len > len ||
                                                  used - req.head_len > max_body))) {
            fz_fail("need more, but not more than there is");
        }
    } else if (rc != -400 && rc != -405 && rc != -413 && rc != -414 && rc != -431 &&
               rc != -501 && rc != -505) {
        fz_fail("an answer the parser may not give");
    }
    rc2 = tn_mon_http_parse(buf, cut < len ? cut : len, max_body, &again, &used2);
    if (rc2 != TN_MON_HTTP_MORE && rc2 != rc) {
        fz_fail("a prefix answered otherwise than the whole");
    }
    if (rc2 == 0 && used2 != used) {
        fz_fail("a prefix took another length");
    }
    return rc == 0 ? used : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t bounds[8] = {0, 1, 10, 100, 1000, 65536, SIZE_MAX / 2, SIZE_MAX};
    char               *buf, dst[64], host[32];
    size_t              len, n;
    uint16_t            port;
    uint8_t             b;
    int                 rc;

    if (size < 1) {
        return 0;
    }
    b    = data[0];
    len  = size - 1;
    buf  = malloc(len ? len : 1);
    if (buf == NULL) {
        fz_fail("out of memory");
    }
    memcpy(buf, data + 1, len);
    /* the requests of a connection one after the other (pipelined), each
     * cut at the same fraction of what is left */
    for (size_t off = 0, used = 1; used > 0 && off < len; off += used) {
        used = fz_parse(buf + off, len - off, bounds[b & 7], (size_t)(b >> 3) * (len - off) / 32);
    }

    rc = tn_mon_query_decode(buf, len, b & 64, dst, (size_t)(b & 63) + 1, &n);
    fz_decoded(rc, dst, (size_t)(b & 63) + 1, n);
    free(buf);

    n   = strnlen((const char *)data + 1, len);
    buf = malloc(n + 1);
    memcpy(buf, data + 1, n);
    buf[n] = '\0';
    if (tn_mon_listen_parse(buf, "localhost", 80, host, sizeof(host), &port) == 0 &&
        (host[0] == '\0' || strnlen(host, sizeof(host)) == sizeof(host))) {
        fz_fail("a listening address empty or past its buffer");
    }
    free(buf);
    return 0;
}
