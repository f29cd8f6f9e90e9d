/* The answer to one HTTP request, built by a handler and written out by
 * the server (mon_srv.h); no I/O here.
 *
 * A handler sets the status (200 unless set), the content type (a string
 * that outlives the response, normally a literal; NULL is
 * "text/plain; charset=utf-8"), adds header lines and appends the body.
 * The body grows as needed up to the bound the server gave
 * (tn_mon_http_resp_init); an append beyond it, or memory running out,
 * fails, and the server answers 500 instead of a cut body.
 *
 * The server owns Content-Length and Connection; every answer also carries
 * "X-Content-Type-Options: nosniff" (a browser must not guess that a
 * JSON body is HTML) and "Cache-Control: no-store" unless the handler
 * set a Cache-Control of its own.  A header whose name is not a token or
 * whose value holds CR, LF or another control byte is refused, so nothing
 * a handler copies from a request can split the answer. */
#ifndef TN_MON_RESP_H
#define TN_MON_RESP_H

#include "mon_buf.h"

#include <stddef.h>

typedef struct {
    int          status;            /* 200 unless set */
    const char  *content_type;      /* NULL: text/plain; charset=utf-8 */
    int          close;             /* close the connection after this answer */
    int          cache_control;     /* a Cache-Control line is in headers */
    tn_mon_buf_t headers;           /* "Name: value\r\n" lines */
    tn_mon_buf_t body;
} tn_mon_http_resp_t;

/* An empty 200 answer whose body may hold body_max bytes (0: no bound). */
void tn_mon_http_resp_init(tn_mon_http_resp_t *resp, size_t body_max);
/* Empty again (status 200, no headers, no body), memory kept. */
void tn_mon_http_resp_reset(tn_mon_http_resp_t *resp);
void tn_mon_http_resp_free(tn_mon_http_resp_t *resp);

/* Add "name: value".  0, or -1 for a name that is not a token or is one
 * the server writes itself (Content-Length, Connection, Content-Type:
 * set content_type), for a value with control bytes, or out of room. */
int tn_mon_http_resp_header(tn_mon_http_resp_t *resp, const char *name,
                            const char *value);
/* Append to the body: 0, or -1 once the body is out of room (sticky). */
int tn_mon_http_resp_append(tn_mon_http_resp_t *resp, const void *data, size_t len);
int tn_mon_http_resp_printf(tn_mon_http_resp_t *resp, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A short plain-text answer: status, and "<status> <reason>\n" (or msg
 * and a newline when msg is not NULL) as the whole body. */
void tn_mon_http_resp_text(tn_mon_http_resp_t *resp, int status, const char *msg);

/* Write the answer to out: status line, headers, and the body unless
 * head_only (a HEAD request: the same Content-Length, no body bytes).
 * Connection says close unless keep_alive is set and resp->close is not.
 * Returns 0, or -1 (out as it was, unless out ran out of room) when the
 * body or headers failed, the content type holds control bytes, or out
 * has no room. */
int tn_mon_http_resp_write(const tn_mon_http_resp_t *resp, int head_only,
                           int keep_alive, tn_mon_buf_t *out);

/* The reason phrase of a status ("Not Found"); "Unknown" for others. */
const char *tn_mon_http_reason(int status);

#endif
