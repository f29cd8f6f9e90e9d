/* A small JSON writer into a growable buffer (mon_buf.h), for the answers
 * of tern-monitor's web server.
 *
 * The writer keeps the nesting, so commas and colons come by themselves,
 * and refuses misuse instead of writing bad JSON: a value in an object
 * without a key before it, a key in an array, an end that closes the
 * wrong kind, more than TN_MON_JSON_DEPTH_MAX levels, a second top-level
 * value.  Misuse and a buffer out of room are sticky; tn_mon_json_done()
 * tells at the end whether the text is one complete, well-formed value.
 *
 * Strings may hold any bytes (names from a job's environment, hosts'
 * answers): quotes, backslashes and control bytes are escaped, as are
 * '<', '>', '&' (the text stays inert if a page ever embeds it) and
 * U+2028/U+2029 (JavaScript line ends); each byte that is not part of
 * valid UTF-8 (overlong forms, surrogates, beyond U+10FFFF, cut
 * sequences) becomes U+FFFD.  Numbers never depend on the locale: a double
 * is written with the fewest digits (15 to 17) that read back the same,
 * with '.' as its decimal point whatever LC_NUMERIC says; NaN and the
 * infinities, which JSON cannot spell, are written as null. */
#ifndef TN_MON_JSON_H
#define TN_MON_JSON_H

#include "mon_buf.h"

#include <stddef.h>
#include <stdint.h>

#define TN_MON_JSON_DEPTH_MAX 32

typedef struct tn_mon_json {
    tn_mon_buf_t *out;
    int           depth;
    int           failed;       /* misuse seen */
    int           top_done;     /* the top-level value is complete */
    unsigned char obj[TN_MON_JSON_DEPTH_MAX];   /* level is an object */
    unsigned char state[TN_MON_JSON_DEPTH_MAX]; /* 0 empty, 1 after a value, 2 after a key */
} tn_mon_json_t;

/* Start writing one JSON value at the end of out. */
void tn_mon_json_init(tn_mon_json_t *j, tn_mon_buf_t *out);
/* 0 when one complete value was written and out did not run out of room,
 * -1 otherwise. */
int tn_mon_json_done(const tn_mon_json_t *j);

void tn_mon_json_obj(tn_mon_json_t *j);
void tn_mon_json_obj_end(tn_mon_json_t *j);
void tn_mon_json_arr(tn_mon_json_t *j);
void tn_mon_json_arr_end(tn_mon_json_t *j);
/* The key of the next value in an object (NUL-terminated; _n: len bytes). */
void tn_mon_json_key(tn_mon_json_t *j, const char *key);
void tn_mon_json_key_n(tn_mon_json_t *j, const char *key, size_t len);

/* Values.  tn_mon_json_str(j, NULL) writes null. */
void tn_mon_json_str(tn_mon_json_t *j, const char *s);
void tn_mon_json_str_n(tn_mon_json_t *j, const char *s, size_t len);
void tn_mon_json_int(tn_mon_json_t *j, int64_t v);
void tn_mon_json_uint(tn_mon_json_t *j, uint64_t v);
void tn_mon_json_double(tn_mon_json_t *j, double v);
void tn_mon_json_bool(tn_mon_json_t *j, int v);
void tn_mon_json_null(tn_mon_json_t *j);

/* A key and its value in one call. */
void tn_mon_json_kstr(tn_mon_json_t *j, const char *key, const char *s);
void tn_mon_json_kint(tn_mon_json_t *j, const char *key, int64_t v);
void tn_mon_json_kuint(tn_mon_json_t *j, const char *key, uint64_t v);
void tn_mon_json_kdouble(tn_mon_json_t *j, const char *key, double v);
void tn_mon_json_kbool(tn_mon_json_t *j, const char *key, int v);

#endif
