/* Percent-decoding of a request's path and query; see mon_query.h. */
#include "mon_query.h"

#include <string.h>

static int query_hex(unsigned char c)
{
    return c >= '0' && c <= '9'                    ? c - '0'
           : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10
                                                    : -1;
}

int tn_mon_query_decode(const char *src, size_t len, int plus, char *dst,
                        size_t cap, size_t *len_p)
{
    size_t n = 0;

    if (cap == 0) {
        *len_p = 0;
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        char c = src[i];
        if (c == '%') {
            int hi = len - i >= 3 ? query_hex((unsigned char)src[i + 1]) : -1;
            int lo = len - i >= 3 ? query_hex((unsigned char)src[i + 2]) : -1;
            if (hi < 0 || lo < 0 || (hi | lo) == 0) {
                goto err;
            }
            c = (char)(hi << 4 | lo);
            i += 2;
        } else if (c == '+' && plus) {
            c = ' ';
        } else if (c == '\0') {
            goto err;           /* a NUL would cut the result short */
        }
        if (cap - n < 2) {
            goto err;
        }
        dst[n++] = c;
    }
    dst[n] = '\0';
    *len_p = n;
    return 0;
err:
    dst[0] = '\0';
    *len_p = 0;
    return -1;
}

int tn_mon_query_path(const tn_mon_http_req_t *req, char *dst, size_t cap,
                      size_t *len_p)
{
    return tn_mon_query_decode(req->path, req->path_len, 0, dst, cap, len_p);
}

int tn_mon_query_next(const tn_mon_http_req_t *req, size_t *pos_p,
                      tn_mon_query_param_t *param_p)
{
    const char *q   = req->query;
    size_t      pos = *pos_p;

    while (q != NULL && pos < req->query_len) {
        const char *p   = q + pos;
        const char *end = q + req->query_len;
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *e   = amp ? amp : end;
        const char *eq  = memchr(p, '=', (size_t)(e - p));

        pos = (size_t)(e - q) + (amp != NULL);
        if (e == p) {
            continue;
        }
        param_p->name      = p;
        param_p->name_len  = (size_t)((eq ? eq : e) - p);
        param_p->value     = eq ? eq + 1 : "";
        param_p->value_len = eq ? (size_t)(e - eq - 1) : 0;
        *pos_p             = pos;
        return 1;
    }
    *pos_p = pos;
    return 0;
}

int tn_mon_query_get(const tn_mon_http_req_t *req, const char *name, char *dst,
                     size_t cap, size_t *len_p)
{
    tn_mon_query_param_t prm;
    size_t               pos = 0, klen;
    char                 key[256];

    if (cap > 0) {
        dst[0] = '\0';
    }
    *len_p = 0;
    while (tn_mon_query_next(req, &pos, &prm)) {
        if (tn_mon_query_decode(prm.name, prm.name_len, 1, key, sizeof(key), &klen) == 0 &&
            strcmp(key, name) == 0) {
            return tn_mon_query_decode(prm.value, prm.value_len, 1, dst, cap, len_p);
        }
    }
    return 1;
}
