/* The byte formats of tern-monitor's database (mon_store.h), with no
 * SQLite in sight: what the BLOBs of its tables hold, and the canonical
 * form of a series key.  Pure functions on memory, so that the fuzzer
 * (tests/fuzz/fuzz_store.c) drives every decoder.
 *
 * A database file is trusted no more than a datagram: it may be damaged,
 * or written by another program.  Every decoder checks lengths, counts,
 * ranges and that the bytes are exactly what the encoder would have
 * written for the values decoded (one encoding per value), and returns -1
 * for anything else before the caller uses a value.
 *
 * Varints: LEB128, 7 bits a byte, low first, at most 10 bytes, and the
 * shortest form only.  Signed numbers are zigzagged first (0, -1, 1, -2
 * -> 0, 1, 2, 3).
 *
 * 1. Record streams (the tables samples_raw, samples_1m, samples_1h).
 *    A row holds the records of one series in one slot of time (a raw row
 *    a minute of samples, a 1m row an hour of minute aggregates, a 1h row
 *    a day of hour aggregates), in time order.  A record is a time and
 *    1 to 4 fields (a sample: its value; an aggregate: count, sum, min,
 *    max).  Layout:
 *      byte 0       0x10 | nfields (format 1)
 *      per record   h: bits 0-1 the kind of field 0, bits 2-7 z, the
 *                      zigzagged change of the time step ("delta of
 *                      delta") when below 63; 63: the zigzagged change
 *                      follows as a varint (then at least 63)
 *                   [a varint, when z is 63]
 *                   [kinds of fields 1..3, 2 bits each from bit 0, when
 *                      nfields > 1; bits of absent fields 0]
 *                   the fields' payloads in order, by kind:
 *                      0 "same": the field's previous value, bit for bit
 *                        (0 bytes; the value before the first is +0.0)
 *                      1 "integer": an integral value within +-2^53 (not
 *                        -0.0): a zigzagged varint of its difference to
 *                        the field's previous integer (0 before the first)
 *                      2 "float": a value a float holds exactly: 4 bytes,
 *                        little-endian IEEE-754 single
 *                      3 "double": 8 bytes, little-endian IEEE-754 double
 *                   the first kind that applies is the one written.
 *    Times: the first record's time is base + step, step starting at 0;
 *    each record's step is the previous one's plus the record's change.
 *    Steps are never negative and every time lies in [base, base + span).
 *    A sample a second costs 1 byte of time; a value that repeats (most
 *    error counters and rates sit at 0) costs nothing more.
 *
 * 2. Matrices (table job_matrix, column cells): six n x n matrices of
 *    uint64 (mon_store.h's order), concatenated, each row-major.  Layout:
 *      byte 0       1 (format 1)
 *      varint       n
 *      varint       count of nonzero cells
 *      per nonzero cell, in index order: varint gap (index minus the
 *                   previous nonzero index minus 1; the first: its index),
 *                   varint value (never 0)
 *
 * 3. Label lists (job_matrix.labels): n strings, each ended by a NUL,
 *    concatenated; nothing else (n = 0: no bytes).
 *
 * 4. Series keys: metric{label="value",...}, Prometheus' text form.
 *    The canonical form has labels sorted by name (byte order), no
 *    duplicate names, no spaces, values escaped \\ \" \n and nothing
 *    else, no braces when there are no labels. */
#ifndef TN_MON_STORE_CODEC_H
#define TN_MON_STORE_CODEC_H

#include <stddef.h>
#include <stdint.h>

#define TN_MON_REC_FORMAT     0x10
#define TN_MON_REC_FIELDS_MAX 4
/* bytes one record can take: h, its varint, the kinds byte, 4 x 8 */
#define TN_MON_REC_BYTES_MAX  44

#define TN_MON_MAT_FORMAT     1
#define TN_MON_MAT_KINDS      6
#define TN_MON_MAT_N_MAX      4096   /* 6 x 4096^2 cells: 768 MiB decoded */

#define TN_MON_KEY_MAX        512    /* bytes of a series key, NUL not counted */
#define TN_MON_KEY_LABELS_MAX 32

typedef struct {
    int64_t t;                          /* ms */
    double  f[TN_MON_REC_FIELDS_MAX];
} tn_mon_rec_t;

/* Where an encoder or decoder of one stream stands: the previous record. */
typedef struct {
    int      nfields;
    int64_t  base, span;       /* the row's slot of time */
    int64_t  t, step;          /* the previous record's time and step */
    uint64_t bits[TN_MON_REC_FIELDS_MAX];   /* previous values, as bits */
    int64_t  ival[TN_MON_REC_FIELDS_MAX];   /* previous integers */
    size_t   n;                /* records so far */
} tn_mon_rec_state_t;

/* A stream of nfields (1..4) fields in the slot [base, base + span). */
void tn_mon_rec_start(tn_mon_rec_state_t *s, int nfields, int64_t base, int64_t span);
/* Encode rec after the records so far into out (the format byte first
 * when it is the first): at most TN_MON_REC_BYTES_MAX + 1 bytes.  Returns
 * the bytes written, or -1 (nothing written, state unchanged) when rec's
 * time is before the previous record's or outside the slot. */
int tn_mon_rec_put(tn_mon_rec_state_t *s, const tn_mon_rec_t *rec, uint8_t *out);
/* Decode a whole stream into out (cap records; a stream of len bytes has
 * at most len - 1).  0 and the count in *n_p, or -1: not a canonical
 * stream of nfields fields in [base, base + span), or more than cap
 * records. */
int tn_mon_rec_decode(const uint8_t *p, size_t len, int nfields, int64_t base, int64_t span,
                      tn_mon_rec_t *out, size_t cap, size_t *n_p);

/* Bytes the encoding of the six n x n matrices cells[0..5] takes; 0 when
 * n is 0 or past TN_MON_MAT_N_MAX. */
size_t tn_mon_mat_size(uint32_t n, const uint64_t *const cells[TN_MON_MAT_KINDS]);
/* Encode them into out (tn_mon_mat_size() bytes).  Returns the length. */
size_t tn_mon_mat_encode(uint32_t n, const uint64_t *const cells[TN_MON_MAT_KINDS], uint8_t *out);
/* Decode into cells, 6 * n * n values that the caller zeroed.  0, or -1
 * (not a canonical encoding of order n); on -1 cells may hold part of
 * the values. */
int tn_mon_mat_decode(const uint8_t *p, size_t len, uint32_t n, uint64_t *cells);

/* Check a label list of n strings and point labels[i] into p (which the
 * caller keeps).  0, or -1 when p is not exactly n NUL-ended strings. */
int tn_mon_labels_decode(const uint8_t *p, size_t len, uint32_t n, const char **labels);

/* The canonical form of the series key in[0..len) (any bytes) into out
 * (cap bytes, NUL-ended).  Returns its length, or -1: not a key (syntax,
 * a name's characters, a repeated label, more than TN_MON_KEY_LABELS_MAX
 * labels), or longer than TN_MON_KEY_MAX or cap - 1. */
int tn_mon_key_canon(const char *in, size_t len, char *out, size_t cap);
/* Build the canonical key of metric with n labels names[i]=values[i]
 * (values: any bytes up to their NUL, escaped here).  Same results. */
int tn_mon_key_make(char *out, size_t cap, const char *metric, const char *const *names,
                    const char *const *values, size_t n);

#endif
