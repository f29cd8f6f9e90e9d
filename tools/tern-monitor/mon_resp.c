/* HTTP answers; see mon_resp.h. */
#include "mon_resp.h"

#include <stdarg.h>
#include <string.h>

void tn_mon_http_resp_init(tn_mon_http_resp_t *resp, size_t body_max)
{
    memset(resp, 0, sizeof(*resp));
    resp->status = 200;
    /* a handler's extra lines are few and short */
    tn_mon_buf_init(&resp->headers, 8192);
    tn_mon_buf_init(&resp->body, body_max);
}

void tn_mon_http_resp_reset(tn_mon_http_resp_t *resp)
{
    resp->status        = 200;
    resp->content_type  = NULL;
    resp->close         = 0;
    resp->cache_control = 0;
    tn_mon_buf_reset(&resp->headers);
    tn_mon_buf_reset(&resp->body);
}

void tn_mon_http_resp_free(tn_mon_http_resp_t *resp)
{
    tn_mon_buf_free(&resp->headers);
    tn_mon_buf_free(&resp->body);
}

/* ASCII, whatever the locale. */
static int resp_ieq(const char *a, const char *lower)
{
    for (; *a != '\0' && *lower != '\0'; a++, lower++) {
        char c = *a >= 'A' && *a <= 'Z' ? (char)(*a | 0x20) : *a;
        if (c != *lower) {
            return 0;
        }
    }
    return *a == *lower;
}

/* A header value or content type: no byte that could end a line. */
static int resp_value_ok(const char *v)
{
    for (; *v != '\0'; v++) {
        unsigned char c = (unsigned char)*v;
        if ((c < 0x20 && c != '\t') || c == 0x7f) {
            return 0;
        }
    }
    return 1;
}

int tn_mon_http_resp_header(tn_mon_http_resp_t *resp, const char *name,
                            const char *value)
{
    if (name[0] == '\0' || name[strspn(name, "abcdefghijklmnopqrstuvwxyz"
                                             "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                             "0123456789!#$%&'*+-.^_`|~")] != '\0' ||
        resp_ieq(name, "content-length") || resp_ieq(name, "connection") ||
        resp_ieq(name, "content-type") || resp_ieq(name, "transfer-encoding") ||
        !resp_value_ok(value)) {
        return -1;
    }
    if (tn_mon_buf_printf(&resp->headers, "%s: %s\r\n", name, value) != 0) {
        return -1;
    }
    resp->cache_control |= resp_ieq(name, "cache-control");
    return 0;
}

int tn_mon_http_resp_append(tn_mon_http_resp_t *resp, const void *data, size_t len)
{
    return tn_mon_buf_append(&resp->body, data, len);
}

int tn_mon_http_resp_printf(tn_mon_http_resp_t *resp, const char *fmt, ...)
{
    va_list ap;
    int     rc;

    va_start(ap, fmt);
    rc = tn_mon_buf_vprintf(&resp->body, fmt, ap);
    va_end(ap);
    return rc;
}

void tn_mon_http_resp_text(tn_mon_http_resp_t *resp, int status, const char *msg)
{
    tn_mon_buf_reset(&resp->body);
    resp->status       = status;
    resp->content_type = NULL;
    if (msg != NULL) {
        tn_mon_http_resp_printf(resp, "%s\n", msg);
    } else {
        tn_mon_http_resp_printf(resp, "%d %s\n", status, tn_mon_http_reason(status));
    }
}

int tn_mon_http_resp_write(const tn_mon_http_resp_t *resp, int head_only,
                           int keep_alive, tn_mon_buf_t *out)
{
    const char *type = resp->content_type ? resp->content_type
                                          : "text/plain; charset=utf-8";
    size_t      was  = out->len;
    /* RFC 9110 6.4.1: these never carry content, nor its length */
    int         bodiless = resp->status < 200 || resp->status == 204 ||
                           resp->status == 304;

    if (resp->body.failed || resp->headers.failed || !resp_value_ok(type) ||
        resp->status < 100 || resp->status > 999) {
        return -1;
    }
    tn_mon_buf_printf(out, "HTTP/1.1 %d %s\r\n", resp->status,
                      tn_mon_http_reason(resp->status));
    if (!bodiless) {
        tn_mon_buf_printf(out, "Content-Type: %s\r\nContent-Length: %zu\r\n", type,
                          resp->body.len);
    }
    tn_mon_buf_printf(out, "%sX-Content-Type-Options: nosniff\r\nConnection: %s\r\n",
                      resp->cache_control ? "" : "Cache-Control: no-store\r\n",
                      keep_alive && !resp->close ? "keep-alive" : "close");
    tn_mon_buf_append(out, resp->headers.data, resp->headers.len);
    tn_mon_buf_append(out, "\r\n", 2);
    if (!head_only && !bodiless) {
        tn_mon_buf_append(out, resp->body.data, resp->body.len);
    }
    if (out->failed) {
        out->len = was;     /* failed stays set: the connection has no room */
        return -1;
    }
    return 0;
}
const char *tn_mon_http_reason(int status)
{
    static const struct {
        int         status;
        const char *reason;
    } reasons[] = {
        {200, "OK"},                    {201, "Created"},
        {202, "Accepted"},              {204, "No Content"},
        {301, "Moved Permanently"},     {302, "Found"},
        {303, "See Other"},             {304, "Not Modified"},
        {307, "Temporary Redirect"},    {400, "Bad Request"},
        {401, "Unauthorized"},          {403, "Forbidden"},
        {404, "Not Found"},             {405, "Method Not Allowed"},
        {408, "Request Timeout"},       {409, "Conflict"},
        {413, "Content Too Large"},     {414, "URI Too Long"},
        {415, "Unsupported Media Type"}, {422, "Unprocessable Content"},
        {429, "Too Many Requests"},     {431, "Request Header Fields Too Large"},
        {500, "Internal Server Error"}, {501, "Not Implemented"},
        {503, "Service Unavailable"},   {505, "HTTP Version Not Supported"},
    };

    for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
        if (reasons[i].status == status) {
            return reasons[i].reason;
        }
    }
    return "Unknown";
}
