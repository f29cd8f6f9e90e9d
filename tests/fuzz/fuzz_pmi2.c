/* Fuzz harness of the PMI-2 client's decoders (src/runtime/pmi2_wire.c,
 * pmi_map.c): what a PMI-2 server (Slurm's slurmstepd, Hydra) sends is
 * hostile.
 *
 * Input: a byte b (the job size for the process mapping: b % 64 + 1),
 * then a stream of PMI-2 messages as a server writes them: a 6-byte
 * length header, then the body.  Each header goes through
 * tn_pmi2_hdr_parse; a body that the stream holds whole goes through
 * tn_pmi2_msg_parse; the stream stops at the first bad header or short
 * body.  Every "value" of a decoded message, and the whole input after b
 * as one string, go through tn_pmi_map_parse; every "errcodes" (a
 * spawn-response's) through tn_pmi2_errcodes_parse for b % 8 processes.
 *
 * Checked: a decoded message starts with cmd, its keys are 1..64 bytes
 * without '=' or ';'; encoding its pairs again (tn_pmi2_msg_build) and
 * decoding that gives the same pairs (values over the protocol's 1024
 * bytes may be refused); tn_pmi2_msg_int returns only values in range; a
 * decoded mapping gives every rank a node below nnodes <= size, numbered
 * in order of first appearance; an accepted errcodes list is its numbers
 * in order, at most one per process, nothing written past them.
 * Buffers are allocated at their exact size, so ASan catches a byte read
 * or written past them. */
#include "runtime/pmi_wire.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fz_fail(const char *what)
{
    fprintf(stderr, "fuzz_pmi2: %s\n", what);
    abort();
}

static void *fz_alloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL) {
        fz_fail("out of memory");
    }
    return p;
}

static void fz_map(const char *s, int size)
{
    int *node_of = fz_alloc(sizeof(int) * (size_t)size);
    int nnodes = -1;
    if (tn_pmi_map_parse(s, size, node_of, &nnodes) == TN_OK) {
        int next = 0;
        if (nnodes < 1 || nnodes > size) {
            fz_fail("mapping: node count out of range");
        }
        for (int r = 0; r < size; r++) {
            if (node_of[r] < 0 || node_of[r] >= nnodes || node_of[r] > next) {
                fz_fail("mapping: a node number out of range or out of order");
            }
            next += node_of[r] == next;
        }
        if (next != nnodes) {
            fz_fail("mapping: nodes counted wrong");
        }
    }
    free(node_of);
}

/* Encode m's pairs again and decode them: the same pairs must come back. */
static void fz_roundtrip(const tn_pmi2_msg_t *m)
{
    int n = m->npairs - 1;
    const char **keys = fz_alloc(sizeof(char *) * (size_t)(n > 0 ? n : 1));
    const char **vals = fz_alloc(sizeof(char *) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++) {
        keys[i] = m->pair[i + 1].key;
        vals[i] = m->pair[i + 1].val;
    }
    size_t cap = 2 * TN_PMI2_BODY_MAX + 64, len = 0;
    char *buf = fz_alloc(cap);
    tn_status_t st = tn_pmi2_msg_build(buf, cap, m->pair[0].val, keys, vals, n, &len);
    if (st == TN_OK) {
        size_t blen;
        tn_pmi2_msg_t *again = fz_alloc(sizeof(*again));
        if (len < TN_PMI2_HDR || tn_pmi2_hdr_parse(buf, &blen) != TN_OK ||
            blen != len - TN_PMI2_HDR) {
            if (len - TN_PMI2_HDR <= TN_PMI2_BODY_MAX) {
                fz_fail("roundtrip: the header does not give the body's length");
            }
        } else if (tn_pmi2_msg_parse(buf + TN_PMI2_HDR, blen, again) != TN_OK) {
            fz_fail("roundtrip: an encoded message does not decode");
        } else {
            if (again->npairs != m->npairs) {
                fz_fail("roundtrip: pair count differs");
            }
            for (int i = 0; i < m->npairs; i++) {
                if (strcmp(again->pair[i].key, m->pair[i].key) != 0 ||
                    strcmp(again->pair[i].val, m->pair[i].val) != 0) {
                    fz_fail("roundtrip: a pair differs");
                }
            }
        }
        free(again);
    } else if (st != TN_ERR_INVAL) {
        fz_fail("roundtrip: build failed with room to spare");
    }
    free(buf);
    free(keys);
    free(vals);
}

/* The errcodes of a spawn-response for n processes: codes[] has exactly n
 * entries (ASan sees a write past them).  An accepted list is read again
 * here with strtol: its numbers must be codes[0..k-1], in order, and the
 * entries after them untouched. */
static void fz_errcodes(const char *s, int n)
{
    int *codes = fz_alloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) {
        codes[i] = -12345;
    }
    if (tn_pmi2_errcodes_parse(s, codes, n) == TN_OK) {
        int k = 0;
        for (const char *p = s; *p != '\0'; k++) {
            char *end;
            long v = strtol(p, &end, 10);
            if (k >= n || end == p || codes[k] != v || (*end != ',' && *end != '\0') ||
                (*end == ',' && end[1] == '\0')) {
                fz_fail("errcodes: an accepted list is not its numbers, one per process");
            }
            p = *end == ',' ? end + 1 : end;
        }
        for (int i = k; i < n; i++) {
            if (codes[i] != -12345) {
                fz_fail("errcodes: a code written past the list");
            }
        }
    }
    free(codes);
}

static void fz_msg(const char *body, size_t len, int size)
{
    tn_pmi2_msg_t *m = fz_alloc(sizeof(*m));
    char *copy = fz_alloc(len);              /* exact size: no NUL after it */
    memcpy(copy, body, len);
    if (tn_pmi2_msg_parse(copy, len, m) == TN_OK) {
        if (m->npairs < 1 || m->npairs > TN_PMI2_PAIRS_MAX || strcmp(m->pair[0].key, "cmd") != 0) {
            fz_fail("a decoded message without cmd first");
        }
        for (int i = 0; i < m->npairs; i++) {
            size_t kl = strlen(m->pair[i].key);
            if (kl == 0 || kl > TN_PMI2_KEY_MAX || strpbrk(m->pair[i].key, "=;") != NULL) {
                fz_fail("a decoded key that the protocol does not allow");
            }
        }
        long v = 12345;
        if (tn_pmi2_msg_int(m, "rc", -5, 5, &v) && (v < -5 || v > 5)) {
            fz_fail("msg_int out of range");
        }
        if (tn_pmi2_msg_int(m, "size", 1, 1000, &v) && (v < 1 || v > 1000)) {
            fz_fail("msg_int out of range");
        }
        const char *val = tn_pmi2_msg_get(m, "value");
        if (val != NULL) {
            fz_map(val, size);
        }
        const char *codes = tn_pmi2_msg_get(m, "errcodes");
        if (codes != NULL) {
            fz_errcodes(codes, size % 8 + 1);
        }
        fz_roundtrip(m);
    }
    free(copy);
    free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) {
        return 0;
    }
    int job = data[0] % 64 + 1;
    const char *p = (const char *)data + 1;
    size_t left = size - 1;

    char *whole = fz_alloc(left + 1);
    memcpy(whole, p, left);
    whole[left] = '\0';
    fz_map(whole, job);
    free(whole);

    while (left >= TN_PMI2_HDR) {
        char *hdr = fz_alloc(TN_PMI2_HDR);
        size_t blen = 0;
        memcpy(hdr, p, TN_PMI2_HDR);
        tn_status_t st = tn_pmi2_hdr_parse(hdr, &blen);
        free(hdr);
        if (st != TN_OK) {
            break;
        }
        if (blen < 1 || blen > TN_PMI2_BODY_MAX) {
            fz_fail("header length out of range");
        }
        p += TN_PMI2_HDR;
        left -= TN_PMI2_HDR;
        if (blen > left) {
            break;
        }
        fz_msg(p, blen, job);
        p += blen;
        left -= blen;
    }
    return 0;
}
