/* HTTP/1.1 requests of tern-monitor's web server, decoded without any I/O.
 *
 * Design note.  Everything a browser or a script sends is hostile until
 * tn_mon_http_parse() has checked it; handlers then read a decoded request
 * whose fields point into the caller's buffer (nothing is allocated or
 * copied, so the request lives as long as those bytes).  The caller keeps
 * what it has read of a connection in one buffer and calls the parser on
 * all of it after each read: the parser holds no state between calls.
 *
 * What is accepted, and what is answered instead (the negative return is
 * the status to send, after which the connection is closed: its framing
 * can no longer be trusted):
 *   - GET, HEAD, POST.  Other methods of RFC 9110 get 405 (the answer must
 *     say Allow: GET, HEAD, POST), any other token 501.
 *   - Versions HTTP/1.0 and HTTP/1.1; another HTTP/d.d is 505.
 *   - Lines end in CRLF; a bare LF or CR, a folded header line, white space
 *     before a header's colon, control bytes: 400.  Empty lines before the
 *     request line are skipped (RFC 9112 2.2; they count in the head).
 *   - The request line is at most TN_MON_HTTP_LINE_MAX bytes (414 beyond),
 *     the head at most TN_MON_HTTP_HEAD_MAX with at most TN_MON_HTTP_HDRS_MAX
 *     header lines (431 beyond).
 *   - The target is origin-form: a path starting with '/', then an
 *     optional '?' and query.  Bytes outside 0x21..0x7e, '#', '\', and a
 *     '%' not followed by two hex digits or encoding NUL are 400, as are a
 *     path with a ".." segment (also when spelled with %2e, or with %2f as
 *     a separator) and a path holding %5c (a '\' once decoded).
 *   - HTTP/1.1 needs exactly one Host (400 otherwise); HTTP/1.0 at most one.
 *   - A body only by Content-Length: digits only, repeated only with the
 *     same value (400), at most max_body (413).  Transfer-Encoding is 501:
 *     nothing here needs chunked uploads, and refusing it closes the door
 *     to request smuggling between a proxy and us.
 *   - Connection: close / keep-alive (a list, any case); HTTP/1.1 keeps
 *     the connection by default, HTTP/1.0 closes it.
 *
 * The checks run line by line in the order the bytes come, so a prefix of
 * the input never gives an answer its extension would not: a request cut
 * anywhere is "need more", an error found in a prefix is the error of the
 * whole.  tests/fuzz/fuzz_http.c holds the parser to that.
 *
 * mon_query.h decodes the path and the query's parameters; mon_resp.h
 * builds the answer. */
#ifndef TN_MON_HTTP_H
#define TN_MON_HTTP_H

#include <stddef.h>
#include <stdint.h>

#define TN_MON_HTTP_HEAD_MAX  16384     /* request line, headers, blank line */
#define TN_MON_HTTP_LINE_MAX  8192      /* the request line with its CRLF */
#define TN_MON_HTTP_HDRS_MAX  64

/* tn_mon_http_parse's "need more bytes" (positive: in progress). */
#define TN_MON_HTTP_MORE 1

typedef enum {
    TN_MON_HTTP_GET,
    TN_MON_HTTP_HEAD,
    TN_MON_HTTP_POST,
} tn_mon_http_method_t;

/* A header line as sent: the name without the colon, the value without
 * surrounding spaces or tabs.  Neither is NUL-terminated. */
typedef struct {
    const char *name;
    size_t      name_len;
    const char *value;
    size_t      value_len;
} tn_mon_http_hdr_t;

/* A decoded request; every pointer is into the parsed buffer. */
typedef struct {
    tn_mon_http_method_t method;
    int                  minor;         /* HTTP/1.<minor>: 0 or 1 */
    int                  keep_alive;    /* the client may send another request */
    const char          *target;        /* path and query, still encoded */
    size_t               target_len;
    const char          *path;          /* starts with '/', still encoded */
    size_t               path_len;
    const char          *query;         /* after '?', still encoded; NULL: no '?' */
    size_t               query_len;
    const char          *body;          /* Content-Length bytes after the head */
    size_t               body_len;
    size_t               head_len;      /* bytes of the head, blank line included */
    size_t               nhdrs;
    tn_mon_http_hdr_t    hdrs[TN_MON_HTTP_HDRS_MAX];
} tn_mon_http_req_t;

/* Decode the request at the start of buf[0..len) (a body longer than
 * max_body is refused).  Returns
 *   0: a whole request, head and body: *req_p is set and *used_p is its
 *      length (what follows may be the next, pipelined request);
 *   TN_MON_HTTP_MORE: the bytes end inside a request; *used_p is set to
 *      the length buf must at least reach before another call can tell
 *      more (len + 1, or the end of the body once the head is known), and
 *      req_p->head_len to 0 while the head is incomplete, or to its length
 *      (the body is missing); the rest of *req_p is unspecified;
 *   -status: the request is refused; status (400, 405, 413, 414, 431, 501,
 *      505) is the answer to send before closing the connection; *req_p
 *      and *used_p are unspecified. */
int tn_mon_http_parse(const char *buf, size_t len, size_t max_body,
                      tn_mon_http_req_t *req_p, size_t *used_p);

/* The first header named name (any case), or NULL. */
const tn_mon_http_hdr_t *tn_mon_http_header(const tn_mon_http_req_t *req,
                                            const char *name);

/* "GET", "HEAD", "POST". */
const char *tn_mon_http_method_name(tn_mon_http_method_t method);

#endif
