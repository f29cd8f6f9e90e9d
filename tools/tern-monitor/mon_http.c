/* HTTP/1.1 request decoding; the rules are in mon_http.h. */
#include "mon_http.h"

#include <string.h>

/* A token's bytes (RFC 9110 5.6.2): method and header names. */
static int http_tchar(unsigned char c)
{
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') ||
           (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static int http_hex(unsigned char c)
{
    return c >= '0' && c <= '9'                    ? c - '0'
           : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10
                                                    : -1;
}

/* ASCII only: names compare the same whatever the locale. */
static unsigned char http_lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c | 0x20) : (unsigned char)c;
}

/* s[0..n) equals the lower-case lit in any case. */
static int http_ieq(const char *s, size_t n, const char *lit)
{
    size_t i;

    for (i = 0; i < n && lit[i] != '\0'; i++) {
        if (http_lower(s[i]) != (unsigned char)lit[i]) {
            return 0;
        }
    }
    return i == n && lit[i] == '\0';
}

/* The target: origin-form only (mon_http.h says what is refused).  The
 * path is checked as a handler will see it decoded: no ".." segment,
 * whether its dots or the slashes around it were escaped or not. */
static int http_target(const char *t, size_t n, tn_mon_http_req_t *req)
{
    size_t q = n, seg = 0, dots = 0;

    if (n == 0 || t[0] != '/') {
        return -400;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)t[i];
        if (c < 0x21 || c > 0x7e || c == '#' || c == '\\') {
            return -400;
        }
        if (c == '%') {
            if (n - i < 3 || http_hex(t[i + 1]) < 0 || http_hex(t[i + 2]) < 0) {
                return -400;
            }
            c = (unsigned char)(http_hex(t[i + 1]) << 4 | http_hex(t[i + 2]));
            i += 2;
            if (c == '\0') {
                return -400;
            }
        } else if (c == '?' && q == n) {
            q = i;
            if (seg == 2 && dots == 2) {
                return -400;
            }
            continue;
        }
        if (q < n) {
            continue;               /* a query byte: only its escape mattered */
        }
        if (c == '\\') {
            return -400;
        }
        if (c == '/') {
            if (seg == 2 && dots == 2) {
                return -400;
            }
            seg = dots = 0;
            continue;
        }
        seg++;
        dots += c == '.';
    }
    if (q == n && seg == 2 && dots == 2) {
        return -400;
    }
    req->target     = t;
    req->target_len = n;
    req->path       = t;
    req->path_len   = q;
    req->query      = q < n ? t + q + 1 : NULL;
    req->query_len  = q < n ? n - q - 1 : 0;
    return 0;
}

/* "METHOD SP target SP HTTP/d.d", without its CRLF. */
static int http_request_line(const char *l, size_t n, tn_mon_http_req_t *req)
{
    static const char *const other[] = {"PUT", "DELETE", "PATCH", "OPTIONS",
                                        "TRACE", "CONNECT"};
    const char *sp1 = memchr(l, ' ', n);
    const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(l + n - sp1 - 1)) : NULL;
    const char *v;
    size_t      mlen;
    int         rc;

    if (sp2 == NULL) {
        return -400;
    }
    v = sp2 + 1;
    if (l + n - v != 8 || memcmp(v, "HTTP/", 5) != 0 || v[5] < '0' || v[5] > '9' ||
        v[6] != '.' || v[7] < '0' || v[7] > '9') {
        return -400;
    }
    if (v[5] != '1' || v[7] > '1') {
        return -505;
    }
    req->minor = v[7] - '0';
    mlen       = (size_t)(sp1 - l);
    if (mlen == 0) {
        return -400;
    }
    for (size_t i = 0; i < mlen; i++) {
        if (!http_tchar((unsigned char)l[i])) {
            return -400;
        }
    }
    rc = http_target(sp1 + 1, (size_t)(sp2 - sp1 - 1), req);
    if (rc != 0) {
        return rc;
    }
    if (mlen == 3 && memcmp(l, "GET", 3) == 0) {
        req->method = TN_MON_HTTP_GET;
    } else if (mlen == 4 && memcmp(l, "HEAD", 4) == 0) {
        req->method = TN_MON_HTTP_HEAD;
    } else if (mlen == 4 && memcmp(l, "POST", 4) == 0) {
        req->method = TN_MON_HTTP_POST;
    } else {
        for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
            if (strlen(other[i]) == mlen && memcmp(l, other[i], mlen) == 0) {
                return -405;
            }
        }
        return -501;
    }
    return 0;
}

/* "name: value", without its CRLF.  A line starting with white space (an
 * obsolete folded continuation) has no name and is refused with the rest. */
static int http_header_line(const char *l, size_t n, tn_mon_http_hdr_t *h)
{
    size_t i = 0, e = n;

    while (i < n && http_tchar((unsigned char)l[i])) {
        i++;
    }
    if (i == 0 || i == n || l[i] != ':') {
        return -400;
    }
    h->name     = l;
    h->name_len = i++;
    while (i < n && (l[i] == ' ' || l[i] == '\t')) {
        i++;
    }
    while (e > i && (l[e - 1] == ' ' || l[e - 1] == '\t')) {
        e--;
    }
    for (size_t k = i; k < e; k++) {
        unsigned char c = (unsigned char)l[k];
        if ((c < 0x20 && c != '\t') || c == 0x7f) {
            return -400;
        }
    }
    h->value     = l + i;
    h->value_len = e - i;
    return 0;
}

/* Content-Length's value; SIZE_MAX stands for anything above max. */
static int http_length(const tn_mon_http_hdr_t *h, size_t max, size_t *len_p)
{
    size_t v = 0;

    if (h->value_len == 0) {
        return -400;
    }
    for (size_t i = 0; i < h->value_len; i++) {
        unsigned char c = (unsigned char)h->value[i];
        if (c < '0' || c > '9') {
            return -400;
        }
        size_t d = (size_t)(c - '0');
        if (v != SIZE_MAX) {
            v = d > max || v > (max - d) / 10 ? SIZE_MAX : v * 10 + d;
        }
    }
    *len_p = v;
    return 0;
}

/* What the headers say together, once the head is complete. */
static int http_semantics(tn_mon_http_req_t *req, size_t max_body, size_t *body_p)
{
    size_t cl = 0, v = 0;
    int    have_cl = 0, hosts = 0, te = 0, bad = 0, close = 0, keep = 0;

    for (size_t i = 0; i < req->nhdrs; i++) {
        const tn_mon_http_hdr_t *h = &req->hdrs[i];
        if (http_ieq(h->name, h->name_len, "transfer-encoding")) {
            te = 1;
        } else if (http_ieq(h->name, h->name_len, "content-length")) {
            if (http_length(h, max_body, &v) != 0 || (have_cl && v != cl)) {
                bad = 1;
            } else {
                cl      = v;
                have_cl = 1;
            }
        } else if (http_ieq(h->name, h->name_len, "host")) {
            hosts++;
        } else if (http_ieq(h->name, h->name_len, "connection")) {
            const char *p = h->value, *end = h->value + h->value_len;
            while (p < end) {
                const char *c = memchr(p, ',', (size_t)(end - p));
                const char *e = c ? c : end;
                while (p < e && (*p == ' ' || *p == '\t')) {
                    p++;
                }
                while (e > p && (e[-1] == ' ' || e[-1] == '\t')) {
                    e--;
                }
                close |= http_ieq(p, (size_t)(e - p), "close");
                keep |= http_ieq(p, (size_t)(e - p), "keep-alive");
                p = c ? c + 1 : end;
            }
        }
    }
    if (te) {
        return -501;
    }
    if (bad || hosts > 1 || (req->minor == 1 && hosts == 0)) {
        return -400;
    }
    if (cl == SIZE_MAX) {
        return -413;
    }
    req->keep_alive = !close && (req->minor == 1 || keep);
    *body_p         = cl;
    return 0;
}

/* The LF in buf[pos..end), or end. */
static size_t http_lf(const char *buf, size_t pos, size_t end)
{
    const char *p = pos < end ? memchr(buf + pos, '\n', end - pos) : NULL;

    return p ? (size_t)(p - buf) : end;
}

int tn_mon_http_parse(const char *buf, size_t len, size_t max_body,
                      tn_mon_http_req_t *req_p, size_t *used_p)
{
    size_t pos = 0, lim, lf, body;
    int    rc;

    /* keeps head + body representable */
    if (max_body > SIZE_MAX / 2) {
        max_body = SIZE_MAX / 2;
    }
    while (pos + 2 <= len && pos + 2 <= TN_MON_HTTP_HEAD_MAX && buf[pos] == '\r' &&
           buf[pos + 1] == '\n') {
        pos += 2;
    }
    lim = pos + TN_MON_HTTP_LINE_MAX < TN_MON_HTTP_HEAD_MAX ? pos + TN_MON_HTTP_LINE_MAX
                                                            : TN_MON_HTTP_HEAD_MAX;
    lf  = http_lf(buf, pos, len < lim ? len : lim);
    if (lf >= lim) {
        return lim == pos + TN_MON_HTTP_LINE_MAX ? -414 : -431;
    }
    if (lf == len) {
        *used_p          = len + 1;
        req_p->head_len = 0;
        return TN_MON_HTTP_MORE;
    }
    if (lf == pos || buf[lf - 1] != '\r') {
        return -400;
    }
    rc = http_request_line(buf + pos, lf - 1 - pos, req_p);
    if (rc != 0) {
        return rc;
    }
    req_p->nhdrs = 0;
    for (pos = lf + 1;; pos = lf + 1) {
        lim = len < TN_MON_HTTP_HEAD_MAX ? len : TN_MON_HTTP_HEAD_MAX;
        lf  = http_lf(buf, pos, lim);
        if (lf == lim) {
            if (lim == TN_MON_HTTP_HEAD_MAX) {
                return -431;
            }
            *used_p          = len + 1;
            req_p->head_len = 0;
            return TN_MON_HTTP_MORE;
        }
        if (lf == pos || buf[lf - 1] != '\r') {
            return -400;
        }
        if (lf - 1 == pos) {
            break;                  /* the blank line ending the head */
        }
        if (req_p->nhdrs == TN_MON_HTTP_HDRS_MAX) {
            return -431;
        }
        rc = http_header_line(buf + pos, lf - 1 - pos, &req_p->hdrs[req_p->nhdrs]);
        if (rc != 0) {
            return rc;
        }
        req_p->nhdrs++;
    }
    pos = lf + 1;
    rc  = http_semantics(req_p, max_body, &body);
    if (rc != 0) {
        return rc;
    }
    *used_p         = pos + body;
    req_p->head_len = pos;
    if (len - pos < body) {
        return TN_MON_HTTP_MORE;
    }
    req_p->body     = buf + pos;
    req_p->body_len = body;
    return 0;
}

const tn_mon_http_hdr_t *tn_mon_http_header(const tn_mon_http_req_t *req,
                                            const char *name)
{
    size_t n = strlen(name);

    for (size_t i = 0; i < req->nhdrs; i++) {
        const tn_mon_http_hdr_t *h = &req->hdrs[i];
        size_t                   k = 0;
        while (k < n && k < h->name_len && http_lower(h->name[k]) == http_lower(name[k])) {
            k++;
        }
        if (k == n && k == h->name_len) {
            return h;
        }
    }
    return NULL;
}

const char *tn_mon_http_method_name(tn_mon_http_method_t method)
{
    static const char *const names[] = {"GET", "HEAD", "POST"};

    return (unsigned)method < 3 ? names[method] : "?";
}
