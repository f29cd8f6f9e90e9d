/* JSON writer; see mon_json.h. */
#include "mon_json.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tn_mon_json_init(tn_mon_json_t *j, tn_mon_buf_t *out)
{
    memset(j, 0, sizeof(*j));
    j->out = out;
}

int tn_mon_json_done(const tn_mon_json_t *j)
{
    return !j->failed && j->top_done && j->depth == 0 && !j->out->failed ? 0 : -1;
}

/* Before a value: the comma, or refusal where no value may go. */
static int json_value(tn_mon_json_t *j)
{
    int d = j->depth - 1;

    if (j->failed || (d < 0 && j->top_done)) {
        j->failed = 1;
        return -1;
    }
    if (d >= 0) {
        if (j->obj[d] && j->state[d] != 2) {
            j->failed = 1;
            return -1;
        }
        if (!j->obj[d] && j->state[d] == 1) {
            tn_mon_buf_append(j->out, ",", 1);
        }
    }
    return 0;
}

/* After a value: its level has one more, or the top value is done. */
static void json_after(tn_mon_json_t *j)
{
    if (j->depth <= 0 || j->depth > TN_MON_JSON_DEPTH_MAX) {
        j->top_done = 1;
    } else {
        j->state[j->depth - 1] = 1;
    }
}

static void json_open(tn_mon_json_t *j, int obj)
{
    if (json_value(j) != 0) {
        return;
    }
    if (j->depth == TN_MON_JSON_DEPTH_MAX) {
        j->failed = 1;
        return;
    }
    j->obj[j->depth]   = (unsigned char)obj;
    j->state[j->depth] = 0;
    j->depth++;
    tn_mon_buf_append(j->out, obj ? "{" : "[", 1);
}

static void json_close(tn_mon_json_t *j, int obj)
{
    int d = j->depth - 1;

    if (j->failed || d < 0 || j->obj[d] != obj || j->state[d] == 2) {
        j->failed = 1;
        return;
    }
    j->depth--;
    tn_mon_buf_append(j->out, obj ? "}" : "]", 1);
    json_after(j);
}

void tn_mon_json_obj(tn_mon_json_t *j) { json_open(j, 1); }
void tn_mon_json_obj_end(tn_mon_json_t *j) { json_close(j, 1); }
void tn_mon_json_arr(tn_mon_json_t *j) { json_open(j, 0); }
void tn_mon_json_arr_end(tn_mon_json_t *j) { json_close(j, 0); }

/* The length of the valid UTF-8 sequence at s (Unicode 15, table 3-7),
 * or 0. */
static size_t json_utf8(const unsigned char *s, size_t len)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xbf;
    size_t        n;

    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        n  = 3;
        lo = c == 0xe0 ? 0xa0 : 0x80;       /* no overlong forms */
        hi = c == 0xed ? 0x9f : 0xbf;       /* no surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n  = 4;
        lo = c == 0xf0 ? 0x90 : 0x80;
        hi = c == 0xf4 ? 0x8f : 0xbf;       /* nothing past U+10FFFF */
    } else {
        return 0;
    }
    if (len < n || s[1] < lo || s[1] > hi) {
        return 0;
    }
    for (size_t i = 2; i < n; i++) {
        if (s[i] < 0x80 || s[i] > 0xbf) {
            return 0;
        }
    }
    return n;
}

static void json_string(tn_mon_buf_t *out, const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t               run = 0;   /* start of the bytes copied as they are */
    char                 esc[8];

    tn_mon_buf_append(out, "\"", 1);
    for (size_t i = 0; i < len;) {
        unsigned char c = s[i];
        const char   *rep = NULL;
        size_t        n   = 1;
        if (c >= 0x80) {
            n = json_utf8(s + i, len - i);
            if (n == 0) {
                rep = "\xef\xbf\xbd";       /* U+FFFD for one bad byte */
                n   = 1;
            } else if (n == 3 && c == 0xe2 && s[i + 1] == 0x80 && (s[i + 2] | 1) == 0xa9) {
                rep = s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029";
            }
        } else if (c == '"' || c == '\\') {
            rep = c == '"' ? "\\\"" : "\\\\";
        } else if (c == '\n' || c == '\t' || c == '\r') {
            rep = c == '\n' ? "\\n" : c == '\t' ? "\\t" : "\\r";
        } else if (c < 0x20 || c == 0x7f || c == '<' || c == '>' || c == '&') {
            snprintf(esc, sizeof(esc), "\\u%04x", c);
            rep = esc;
        }
        if (rep != NULL) {
            tn_mon_buf_append(out, s + run, i - run);
            tn_mon_buf_str(out, rep);
            run = i + n;
        }
        i += n;
    }
    tn_mon_buf_append(out, s + run, len - run);
    tn_mon_buf_append(out, "\"", 1);
}

void tn_mon_json_key_n(tn_mon_json_t *j, const char *key, size_t len)
{
    int d = j->depth - 1;

    if (j->failed || d < 0 || !j->obj[d] || j->state[d] == 2) {
        j->failed = 1;
        return;
    }
    if (j->state[d] == 1) {
        tn_mon_buf_append(j->out, ",", 1);
    }
    json_string(j->out, key, len);
    tn_mon_buf_append(j->out, ":", 1);
    j->state[d] = 2;
}

void tn_mon_json_key(tn_mon_json_t *j, const char *key)
{
    tn_mon_json_key_n(j, key, strlen(key));
}

void tn_mon_json_str_n(tn_mon_json_t *j, const char *s, size_t len)
{
    if (json_value(j) == 0) {
        json_string(j->out, s, len);
        json_after(j);
    }
}

void tn_mon_json_str(tn_mon_json_t *j, const char *s)
{
    if (s == NULL) {
        tn_mon_json_null(j);
    } else {
        tn_mon_json_str_n(j, s, strlen(s));
    }
}

/* A number or literal written as it is. */
static void json_raw(tn_mon_json_t *j, const char *text)
{
    if (json_value(j) == 0) {
        tn_mon_buf_str(j->out, text);
        json_after(j);
    }
}

void tn_mon_json_int(tn_mon_json_t *j, int64_t v)
{
    char num[24];

    snprintf(num, sizeof(num), "%" PRId64, v);
    json_raw(j, num);
}

void tn_mon_json_uint(tn_mon_json_t *j, uint64_t v)
{
    char num[24];

    snprintf(num, sizeof(num), "%" PRIu64, v);
    json_raw(j, num);
}

void tn_mon_json_double(tn_mon_json_t *j, double v)
{
    char   num[40], *w = num;
    int    last_point = 0;

    if (!isfinite(v)) {
        json_raw(j, "null");
        return;
    }
    /* snprintf and strtod follow the same LC_NUMERIC, so the round trip
     * holds in any locale; then its decimal point (maybe several bytes,
     * the only bytes %g writes besides digits, sign and exponent) is
     * replaced by '.' */
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(num, sizeof(num), "%.*g", prec, v);
        if (strtod(num, NULL) == v) {
            break;
        }
    }
    for (const char *r = num; *r != '\0'; r++) {
        int point = strchr("0123456789+-eE", *r) == NULL;
        if (!point) {
            *w++ = *r;
        } else if (!last_point) {
            *w++ = '.';
        }
        last_point = point;
    }
    *w = '\0';
    json_raw(j, num);
}

void tn_mon_json_bool(tn_mon_json_t *j, int v) { json_raw(j, v ? "true" : "false"); }
void tn_mon_json_null(tn_mon_json_t *j) { json_raw(j, "null"); }

void tn_mon_json_kstr(tn_mon_json_t *j, const char *key, const char *s)
{
    tn_mon_json_key(j, key);
    tn_mon_json_str(j, s);
}

void tn_mon_json_kint(tn_mon_json_t *j, const char *key, int64_t v)
{
    tn_mon_json_key(j, key);
    tn_mon_json_int(j, v);
}

void tn_mon_json_kuint(tn_mon_json_t *j, const char *key, uint64_t v)
{
    tn_mon_json_key(j, key);
    tn_mon_json_uint(j, v);
}

void tn_mon_json_kdouble(tn_mon_json_t *j, const char *key, double v)
{
    tn_mon_json_key(j, key);
    tn_mon_json_double(j, v);
}

void tn_mon_json_kbool(tn_mon_json_t *j, const char *key, int v)
{
    tn_mon_json_key(j, key);
    tn_mon_json_bool(j, v);
}
