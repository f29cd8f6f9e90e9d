/* Fuzz harness of the byte formats of tern-monitor's history database
 * (tools/tern-monitor/mon_store_codec.c): the BLOBs of a database file,
 * which may be damaged or written by another program, and series keys,
 * which come from the node agents and the web page's queries.
 *
 * Input: a byte b, a byte a, then the bytes to decode.  b & 3 picks:
 *   0  a record stream (tn_mon_rec_decode): a & 3 + 1 fields, a slot of
 *      (a >> 2) & 3: 1 s, a minute, an hour, a day, based at a day
 *   1  a matrix (tn_mon_mat_decode) of order a % 16 + 1
 *   2  a label list (tn_mon_labels_decode) of a strings
 *   3  a series key (tn_mon_key_canon), a ignored
 * The bytes are copied to an allocation of their exact size, so that ASan
 * sees a read past their end.  Seeds: corpus/store/, written by
 * `test_mon_store_codec --corpus DIR` (encoder output of each kind).
 *
 * Checked: what decodes encodes again to the very same bytes (one
 * encoding per value); decoded times lie in the slot, in order, at most
 * one record a byte; labels lie inside the input, n of them, and
 * together are the input; a canonical key is no longer than
 * TN_MON_KEY_MAX and is its own canonical form. */
#include "mon_store_codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_BASE 1699920000000LL

static void fz_fail(const char *what)
{
    fprintf(stderr, "fuzz_store: %s\n", what);
    abort();
}

static void fz_records(uint8_t a, const uint8_t *p, size_t len)
{
    static const int64_t spans[4] = { 1000, 60000, 3600000, 86400000 };
    int                  nf   = (a & 3) + 1;
    int64_t              span = spans[(a >> 2) & 3];
    tn_mon_rec_t        *recs = malloc((len + 1) * sizeof(*recs));
    uint8_t             *again = malloc(len + TN_MON_REC_BYTES_MAX + 1);
    tn_mon_rec_state_t   s;
    size_t               n = 0, at = 0;

    if (recs == NULL || again == NULL) {
        fz_fail("out of memory");
    }
    if (tn_mon_rec_decode(p, len, nf, FZ_BASE, span, recs, len, &n) == 0) {
        if (len == 0 || n > len - 1) {
            fz_fail("more records than bytes");
        }
        tn_mon_rec_start(&s, nf, FZ_BASE, span);
        for (size_t i = 0; i < n; i++) {
            if (recs[i].t < FZ_BASE || recs[i].t >= FZ_BASE + span || (i > 0 && recs[i].t < recs[i - 1].t)) {
                fz_fail("a time outside the slot or out of order");
            }
            int m = tn_mon_rec_put(&s, &recs[i], again + at);
            if (m < 0 || at + (size_t)m > len) {
                fz_fail("decoded records do not encode again");
            }
            at += (size_t)m;
        }
        /* an empty stream is its format byte alone */
        if (n == 0 ? len != 1 : at != len || memcmp(again, p, len) != 0) {
            fz_fail("decoded records encode to other bytes");
        }
    }
    free(again);
    free(recs);
}

static void fz_matrix(uint8_t a, const uint8_t *p, size_t len)
{
    uint32_t        n  = (uint32_t)(a % 16) + 1;
    size_t          nn = (size_t)n * n;
    uint64_t       *cells = calloc(TN_MON_MAT_KINDS * nn, sizeof(uint64_t));
    const uint64_t *k[TN_MON_MAT_KINDS];

    if (cells == NULL) {
        fz_fail("out of memory");
    }
    if (tn_mon_mat_decode(p, len, n, cells) == 0) {
        for (int i = 0; i < TN_MON_MAT_KINDS; i++) {
            k[i] = cells + (size_t)i * nn;
        }
        size_t   m     = tn_mon_mat_size(n, k);
        uint8_t *again = malloc(m ? m : 1);
        if (again == NULL || m != len || tn_mon_mat_encode(n, k, again) != len ||
            memcmp(again, p, len) != 0) {
            fz_fail("a decoded matrix encodes to other bytes");
        }
        free(again);
    }
    free(cells);
}

static void fz_labels(uint8_t a, const uint8_t *p, size_t len)
{
    const char *labels[256];
    size_t      at = 0;

    if (tn_mon_labels_decode(p, len, a, labels) != 0) {
        return;
    }
    for (unsigned i = 0; i < a; i++) {
        size_t l = strlen(labels[i]) + 1;
        if ((const uint8_t *)labels[i] != p + at || at + l > len) {
            fz_fail("labels are not the input, in order");
        }
        at += l;
    }
    if (at != len) {
        fz_fail("bytes left after the labels");
    }
}

static void fz_key(const uint8_t *p, size_t len)
{
    char out[TN_MON_KEY_MAX + 1], again[TN_MON_KEY_MAX + 1];
    int  n = tn_mon_key_canon((const char *)p, len, out, sizeof(out));

    if (n < 0) {
        return;
    }
    if ((size_t)n > TN_MON_KEY_MAX || strlen(out) != (size_t)n) {
        fz_fail("a key too long, or with a NUL inside");
    }
    if (tn_mon_key_canon(out, (size_t)n, again, sizeof(again)) != n || strcmp(out, again) != 0) {
        fz_fail("a canonical key is not its own canonical form");
    }
    /* a smaller buffer fails or gives the same */
    if (n > 0 && tn_mon_key_canon((const char *)p, len, again, (size_t)n) != -1) {
        fz_fail("a key written into a buffer without room for it");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *p;
    size_t   len;

    if (size < 2) {
        return 0;
    }
    len = size - 2;
    p   = malloc(len ? len : 1);
    if (p == NULL) {
        return 0;
    }
    memcpy(p, data + 2, len);
    switch (data[0] & 3) {
    case 0: fz_records(data[1], p, len); break;
    case 1: fz_matrix(data[1], p, len); break;
    case 2: fz_labels(data[1], p, len); break;
    default: fz_key(p, len); break;
    }
    free(p);
    return 0;
}
