/* The target of a decoded request (mon_http.h), percent-decoded: its path
 * for routing, and the parameters of its query string
 * ("?name=value&flag&x=%2F+y").
 *
 * The parser has already refused targets with a bad escape or %00, but the
 * helpers here check again on their own: they take any bytes (a POSTed
 * form, a value from elsewhere) and never trust that a check ran before.
 * Decoded text always lands in a caller's buffer, NUL-terminated, and
 * never holds a NUL byte. */
#ifndef TN_MON_QUERY_H
#define TN_MON_QUERY_H

#include "mon_http.h"

#include <stddef.h>

/* One parameter as sent (still encoded); not NUL-terminated. */
typedef struct {
    const char *name;
    size_t      name_len;
    const char *value;      /* "" (not NULL) for a parameter without '=' */
    size_t      value_len;
} tn_mon_query_param_t;

/* Percent-decode src[0..len) into dst (cap bytes, cap >= 1), '+' as a
 * space when plus is set (query strings, forms).  The result is
 * NUL-terminated, its length without the NUL in *len_p.  Returns 0, or -1
 * (dst holding an empty string, *len_p 0) for '%' without two hex digits
 * after it, for %00 or a NUL byte, and when the result and its NUL do not
 * fit in cap. */
int tn_mon_query_decode(const char *src, size_t len, int plus, char *dst,
                        size_t cap, size_t *len_p);

/* The request's path decoded ('+' stays '+'), as tn_mon_query_decode. */
int tn_mon_query_path(const tn_mon_http_req_t *req, char *dst, size_t cap,
                      size_t *len_p);

/* The parameters of the query one by one: *pos_p starts at 0.  Returns 1
 * with the next parameter in *param_p, or 0 when there are no more.  Empty
 * parameters ("a=1&&b=2") are skipped. */
int tn_mon_query_next(const tn_mon_http_req_t *req, size_t *pos_p,
                      tn_mon_query_param_t *param_p);

/* The value of the first parameter whose decoded name is name, decoded
 * into dst as tn_mon_query_decode does ('+' a space; "a=1&c" has c with an
 * empty value).  Returns 0 (found), 1 (absent) or -1 (its value does not
 * decode or fit); dst is empty unless 0.  Names that do not decode (or
 * decode to more than 255 bytes) match no name. */
int tn_mon_query_get(const tn_mon_http_req_t *req, const char *name, char *dst,
                     size_t cap, size_t *len_p);

#endif
