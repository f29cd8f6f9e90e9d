/* PMI-2 messages (pmi_wire.h). */
#include "runtime/pmi_wire.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tn_status_t tn_pmi2_hdr_parse(const char hdr[TN_PMI2_HDR], size_t *len_p)
{
    size_t i = 0, len = 0;
    while (i < TN_PMI2_HDR && hdr[i] == ' ') {
        i++;
    }
    size_t digits = 0;
    for (; i < TN_PMI2_HDR && hdr[i] >= '0' && hdr[i] <= '9'; i++, digits++) {
        len = len * 10 + (size_t)(hdr[i] - '0');     /* at most 6 digits */
    }
    for (; i < TN_PMI2_HDR; i++) {
        if (hdr[i] != ' ') {
            return TN_ERR_PROTO;
        }
    }
    if (digits == 0 || len == 0 || len > TN_PMI2_BODY_MAX) {
        return TN_ERR_PROTO;
    }
    *len_p = len;
    return TN_OK;
}

tn_status_t tn_pmi2_msg_parse(const char *body, size_t len, tn_pmi2_msg_t *msg_p)
{
    if (len > TN_PMI2_BODY_MAX) {
        return TN_ERR_PROTO;
    }
    char *out = msg_p->buf;           /* unescaping only shrinks: fits buf */
    size_t i = 0;
    msg_p->npairs = 0;
    while (i < len) {
        if (msg_p->npairs == TN_PMI2_PAIRS_MAX) {
            return TN_ERR_PROTO;
        }
        const char *key = out;
        size_t klen = 0;
        while (i < len && body[i] != '=') {
            if (body[i] == ';' || body[i] == '\0') {
                return TN_ERR_PROTO;
            }
            *out++ = body[i++];
            klen++;
        }
        if (i == len || klen == 0 || klen > TN_PMI2_KEY_MAX) {
            return TN_ERR_PROTO;           /* no '=', or a bad key */
        }
        *out++ = '\0';
        i++;                               /* the '=' */
        const char *val = out;
        for (;;) {
            if (i == len) {
                break;                     /* last value without its ';' */
            }
            if (body[i] == ';') {
                if (i + 1 < len && body[i + 1] == ';') {
                    *out++ = ';';
                    i += 2;
                    continue;
                }
                i++;
                break;
            }
            if (body[i] == '\0') {
                return TN_ERR_PROTO;
            }
            *out++ = body[i++];
        }
        *out++ = '\0';
        if (msg_p->npairs == 0 && strcmp(key, "cmd") != 0) {
            return TN_ERR_PROTO;
        }
        msg_p->pair[msg_p->npairs].key = key;
        msg_p->pair[msg_p->npairs].val = val;
        msg_p->npairs++;
    }
    return msg_p->npairs > 0 ? TN_OK : TN_ERR_PROTO;
}

const char *tn_pmi2_msg_get(const tn_pmi2_msg_t *msg, const char *key)
{
    for (int i = 0; i < msg->npairs; i++) {
        if (strcmp(msg->pair[i].key, key) == 0) {
            return msg->pair[i].val;
        }
    }
    return NULL;
}

int tn_pmi2_msg_int(const tn_pmi2_msg_t *msg, const char *key, long lo, long hi, long *v_p)
{
    return tn_pmi_int(tn_pmi2_msg_get(msg, key), lo, hi, v_p);
}

int tn_pmi_int(const char *s, long lo, long hi, long *v_p)
{
    if (s == NULL || *s == '\0') {
        return 0;
    }
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi) {
        return 0;
    }
    *v_p = v;
    return 1;
}

/* Append s (n bytes) at *off, escaping ';' when esc. */
static int tn_pmi2_put(char *buf, size_t cap, size_t *off, const char *s, size_t n, int esc)
{
    for (size_t i = 0; i < n; i++) {
        size_t need = esc && s[i] == ';' ? 2 : 1;
        if (*off + need > cap) {
            return -1;
        }
        buf[(*off)++] = s[i];
        if (need == 2) {
            buf[(*off)++] = ';';
        }
    }
    return 0;
}

tn_status_t tn_pmi2_msg_build(char *buf, size_t cap, const char *cmd, const char *const *keys,
                              const char *const *vals, int n, size_t *len_p)
{
    size_t off = TN_PMI2_HDR;
    if (cap < TN_PMI2_HDR + 1) {
        return TN_ERR_TRUNCATE;
    }
    for (int i = -1; i < n; i++) {
        const char *k = i < 0 ? "cmd" : keys[i];
        const char *v = i < 0 ? cmd : vals[i];
        size_t klen = strlen(k), vlen = strlen(v);
        if (klen == 0 || klen > TN_PMI2_KEY_MAX || strpbrk(k, "=;") != NULL ||
            vlen > TN_PMI2_VAL_MAX) {
            return TN_ERR_INVAL;
        }
        if (tn_pmi2_put(buf, cap, &off, k, klen, 0) != 0 ||
            tn_pmi2_put(buf, cap, &off, "=", 1, 0) != 0 ||
            tn_pmi2_put(buf, cap, &off, v, vlen, 1) != 0 ||
            tn_pmi2_put(buf, cap, &off, ";", 1, 0) != 0) {
            return TN_ERR_TRUNCATE;
        }
    }
    size_t body = off - TN_PMI2_HDR;
    if (body > 999999) {
        return TN_ERR_INVAL;
    }
    char hdr[TN_PMI2_HDR + 1];
    snprintf(hdr, sizeof(hdr), "%-6zu", body);
    memcpy(buf, hdr, TN_PMI2_HDR);
    *len_p = off;
    return TN_OK;
}

tn_status_t tn_pmi2_errcodes_parse(const char *s, int *codes, int n)
{
    int i = 0;
    if (*s == '\0') {
        return TN_OK;
    }
    for (;;) {
        char num[16];
        size_t k = strcspn(s, ",");
        long v;
        if (i == n || k == 0 || k >= sizeof(num)) {
            return TN_ERR_PROTO;
        }
        memcpy(num, s, k);
        num[k] = '\0';
        if (!tn_pmi_int(num, INT_MIN, INT_MAX, &v)) {
            return TN_ERR_PROTO;
        }
        codes[i++] = (int)v;
        if (s[k] == '\0') {
            return TN_OK;
        }
        s += k + 1;
    }
}
