/* Growable bounded byte buffers; see mon_buf.h. */
#include "mon_buf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tn_mon_buf_init(tn_mon_buf_t *buf, size_t max)
{
    memset(buf, 0, sizeof(*buf));
    buf->max = max;
}

/* Room for extra bytes of content and slack bytes beyond them that are
 * not content (vsnprintf's NUL), so that the bound applies to len only. */
static int buf_grow(tn_mon_buf_t *buf, size_t extra, size_t slack)
{
    size_t bound = buf->max ? buf->max : SIZE_MAX / 4;
    size_t need, cap;
    char  *data;

    if (buf->failed || extra > bound || buf->len > bound - extra) {
        buf->failed = 1;
        return -1;
    }
    need = buf->len + extra + slack;
    if (need <= buf->cap) {
        return 0;
    }
    /* doubling, but never far past the bound: a bounded buffer allocates
     * at most its bound and the slack */
    cap = buf->cap ? buf->cap : 256;
    while (cap < need) {
        cap = cap > bound / 2 ? bound + slack : cap * 2;
    }
    data = realloc(buf->data, cap);
    if (data == NULL) {
        buf->failed = 1;
        return -1;
    }
    buf->data = data;
    buf->cap  = cap;
    return 0;
}

int tn_mon_buf_reserve(tn_mon_buf_t *buf, size_t extra)
{
    return buf_grow(buf, extra, 0);
}

int tn_mon_buf_append(tn_mon_buf_t *buf, const void *data, size_t len)
{
    if (tn_mon_buf_reserve(buf, len) != 0) {
        return -1;
    }
    if (len > 0) {
        memcpy(buf->data + buf->len, data, len);
        buf->len += len;
    }
    return 0;
}

int tn_mon_buf_str(tn_mon_buf_t *buf, const char *str)
{
    return tn_mon_buf_append(buf, str, strlen(str));
}

int tn_mon_buf_vprintf(tn_mon_buf_t *buf, const char *fmt, va_list ap)
{
    va_list ap2;
    int     n;

    va_copy(ap2, ap);
    n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    /* room for vsnprintf's NUL, which is not counted in len */
    if (n < 0 || buf_grow(buf, (size_t)n, 1) != 0) {
        buf->failed = 1;
        return -1;
    }
    vsnprintf(buf->data + buf->len, (size_t)n + 1, fmt, ap);
    buf->len += (size_t)n;
    return 0;
}

int tn_mon_buf_printf(tn_mon_buf_t *buf, const char *fmt, ...)
{
    va_list ap;
    int     rc;

    va_start(ap, fmt);
    rc = tn_mon_buf_vprintf(buf, fmt, ap);
    va_end(ap);
    return rc;
}

void tn_mon_buf_consume(tn_mon_buf_t *buf, size_t len)
{
    if (len >= buf->len) {
        buf->len = 0;
        return;
    }
    memmove(buf->data, buf->data + len, buf->len - len);
    buf->len -= len;
}

void tn_mon_buf_reset(tn_mon_buf_t *buf)
{
    buf->len    = 0;
    buf->failed = 0;
}

void tn_mon_buf_free(tn_mon_buf_t *buf)
{
    free(buf->data);
    buf->data   = NULL;
    buf->len    = 0;
    buf->cap    = 0;
    buf->failed = 0;
}
