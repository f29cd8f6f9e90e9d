/* The BLOB formats of tern-monitor's database; see mon_store_codec.h. */
#include "mon_store_codec.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define REC_INT_MAX 9007199254740992.0   /* 2^53: integers a double holds exactly */

enum { KIND_SAME = 0, KIND_INT = 1, KIND_FLOAT = 2, KIND_DOUBLE = 3 };

static uint64_t zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzigzag(uint64_t u)
{
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

static size_t varint_put(uint8_t *out, uint64_t v)
{
    size_t n = 0;

    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

/* The shortest form only: a last byte of 0 after others is refused, as is
 * a tenth byte above 1 (past 64 bits). */
static int varint_get(const uint8_t *p, size_t len, size_t *pos, uint64_t *v_p)
{
    uint64_t v = 0;
    size_t   i = *pos;

    for (unsigned shift = 0; i < len; shift += 7) {
        uint8_t b = p[i++];
        if (shift == 63 && b > 1) {
            return -1;
        }
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            if (b == 0 && shift > 0) {
                return -1;
            }
            *pos  = i;
            *v_p  = v;
            return 0;
        }
    }
    return -1;
}

static uint64_t dbits(double v)
{
    uint64_t b;

    memcpy(&b, &v, sizeof(b));
    return b;
}

static double bitsd(uint64_t b)
{
    double v;

    memcpy(&v, &b, sizeof(v));
    return v;
}

void tn_mon_rec_start(tn_mon_rec_state_t *s, int nfields, int64_t base, int64_t span)
{
    memset(s, 0, sizeof(*s));
    s->nfields = nfields;
    s->base    = base;
    s->span    = span;
    s->t       = base;
}

/* The kind the encoder writes for v after the field's previous value. */
static int rec_kind(const tn_mon_rec_state_t *s, int f, double v)
{
    if (dbits(v) == s->bits[f]) {
        return KIND_SAME;
    }
    if (isfinite(v) && fabs(v) <= REC_INT_MAX && v == trunc(v) && !(v == 0 && signbit(v))) {
        return KIND_INT;
    }
    /* the range check keeps the conversion defined; NaN and the
     * infinities convert exactly or not, and the bits tell */
    if (!(fabs(v) > FLT_MAX) || isinf(v)) {
        float x = (float)v;
        if (dbits((double)x) == dbits(v)) {
            return KIND_FLOAT;
        }
    }
    return KIND_DOUBLE;
}

static size_t rec_field_put(tn_mon_rec_state_t *s, int f, int kind, double v, uint8_t *out)
{
    size_t n = 0;

    switch (kind) {
    case KIND_INT: {
        int64_t i = (int64_t)v;
        n = varint_put(out, zigzag(i - s->ival[f]));
        s->ival[f] = i;
        break;
    }
    case KIND_FLOAT: {
        float    x = (float)v;
        uint32_t b;
        memcpy(&b, &x, sizeof(b));
        for (n = 0; n < 4; n++) {
            out[n] = (uint8_t)(b >> (8 * n));
        }
        break;
    }
    case KIND_DOUBLE: {
        uint64_t b = dbits(v);
        for (n = 0; n < 8; n++) {
            out[n] = (uint8_t)(b >> (8 * n));
        }
        break;
    }
    default:
        break;
    }
    s->bits[f] = dbits(v);
    return n;
}

int tn_mon_rec_put(tn_mon_rec_state_t *s, const tn_mon_rec_t *rec, uint8_t *out)
{
    int     kinds[TN_MON_REC_FIELDS_MAX];
    size_t  n = 0;
    int64_t step, dod;
    uint64_t z;

    /* rec->t >= s->t >= base: the difference fits in 64 unsigned bits */
    if (rec->t < s->t || (uint64_t)rec->t - (uint64_t)s->base >= (uint64_t)s->span) {
        return -1;
    }
    step = rec->t - s->t;
    dod  = step - s->step;
    if (s->n == 0) {
        out[n++] = (uint8_t)(TN_MON_REC_FORMAT | s->nfields);
    }
    for (int f = 0; f < s->nfields; f++) {
        kinds[f] = rec_kind(s, f, rec->f[f]);
    }
    z = zigzag(dod);
    out[n++] = (uint8_t)(((z < 63 ? z : 63) << 2) | (uint64_t)kinds[0]);
    if (z >= 63) {
        n += varint_put(out + n, z);
    }
    if (s->nfields > 1) {
        uint8_t k = 0;
        for (int f = 1; f < s->nfields; f++) {
            k |= (uint8_t)(kinds[f] << (2 * (f - 1)));
        }
        out[n++] = k;
    }
    for (int f = 0; f < s->nfields; f++) {
        n += rec_field_put(s, f, kinds[f], rec->f[f], out + n);
    }
    s->t    = rec->t;
    s->step = step;
    s->n++;
    return (int)n;
}

/* Read one record leniently (memory- and overflow-safe, not yet checked
 * for being canonical): its time and values, and where it ends. */
static int rec_read(const tn_mon_rec_state_t *s, const uint8_t *p, size_t len, size_t *pos,
                    tn_mon_rec_t *rec)
{
    int      kinds[TN_MON_REC_FIELDS_MAX];
    uint8_t  h = p[(*pos)++];
    uint64_t z = h >> 2;
    int64_t  dod, step, i;

    if (z == 63 && varint_get(p, len, pos, &z) != 0) {
        return -1;
    }
    dod = unzigzag(z);
    /* a step lies in [0, span), so does any change of it that is kept */
    if (dod <= -s->span || dod >= s->span) {
        return -1;
    }
    step = s->step + dod;
    if (step < 0 || s->t - s->base + step >= s->span) {
        return -1;
    }
    rec->t   = s->t + step;
    kinds[0] = h & 3;
    if (s->nfields > 1) {
        if (*pos >= len) {
            return -1;
        }
        uint8_t k = p[(*pos)++];
        for (int f = 1; f < s->nfields; f++) {
            kinds[f] = (k >> (2 * (f - 1))) & 3;
        }
    }
    for (int f = 0; f < s->nfields; f++) {
        uint64_t u = 0;
        size_t   nb = kinds[f] == KIND_FLOAT ? 4 : 8;
        switch (kinds[f]) {
        case KIND_SAME:
            rec->f[f] = bitsd(s->bits[f]);
            break;
        case KIND_INT:
            if (varint_get(p, len, pos, &u) != 0) {
                return -1;
            }
            i = unzigzag(u);
            /* both ends within 2^53, so the sum cannot overflow */
            if (i < -2 * (int64_t)REC_INT_MAX || i > 2 * (int64_t)REC_INT_MAX) {
                return -1;
            }
            i += s->ival[f];
            if (i < -(int64_t)REC_INT_MAX || i > (int64_t)REC_INT_MAX) {
                return -1;
            }
            rec->f[f] = (double)i;
            break;
        default:
            if (len - *pos < nb) {
                return -1;
            }
            for (size_t b = 0; b < nb; b++) {
                u |= (uint64_t)p[*pos + b] << (8 * b);
            }
            *pos += nb;
            if (nb == 4) {
                float    x;
                uint32_t u32 = (uint32_t)u;
                memcpy(&x, &u32, sizeof(x));
                rec->f[f] = (double)x;
            } else {
                rec->f[f] = bitsd(u);
            }
            break;
        }
    }
    return 0;
}

int tn_mon_rec_decode(const uint8_t *p, size_t len, int nfields, int64_t base, int64_t span,
                      tn_mon_rec_t *out, size_t cap, size_t *n_p)
{
    tn_mon_rec_state_t s;
    uint8_t            again[TN_MON_REC_BYTES_MAX + 1];
    size_t             pos = 1, n = 0;

    if (nfields < 1 || nfields > TN_MON_REC_FIELDS_MAX || span <= 0 || len < 1 ||
        p[0] != (TN_MON_REC_FORMAT | nfields)) {
        return -1;
    }
    tn_mon_rec_start(&s, nfields, base, span);
    s.n = 1;    /* the format byte is read: the encoder must not write it again */
    while (pos < len) {
        size_t       start = pos;
        tn_mon_rec_t rec;
        int          m;

        if (n == cap || rec_read(&s, p, len, &pos, &rec) != 0) {
            return -1;
        }
        /* canonical: the encoder, from the same state, writes these very
         * bytes (which also moves the state on) */
        m = tn_mon_rec_put(&s, &rec, again);
        if (m < 0 || (size_t)m != pos - start || memcmp(again, p + start, (size_t)m) != 0) {
            return -1;
        }
        out[n++] = rec;
    }
    *n_p = n;
    return 0;
}

static size_t varint_len(uint64_t v)
{
    size_t n = 1;

    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Visit the nonzero cells in index order: their gaps and values. */
#define MAT_CELLS(n, cells, body)                                       \
    do {                                                                \
        size_t   nn_ = (size_t)(n) * (n);                               \
        uint64_t next_ = 0;                                             \
        for (int k_ = 0; k_ < TN_MON_MAT_KINDS; k_++) {                 \
            for (size_t i_ = 0; i_ < nn_; i_++) {                       \
                uint64_t idx_ = (uint64_t)k_ * nn_ + i_, gap, value;    \
                if ((value = (cells)[k_][i_]) == 0) {                   \
                    continue;                                           \
                }                                                       \
                gap   = idx_ - next_;                                   \
                next_ = idx_ + 1;                                       \
                body;                                                   \
            }                                                           \
        }                                                               \
    } while (0)

size_t tn_mon_mat_size(uint32_t n, const uint64_t *const cells[TN_MON_MAT_KINDS])
{
    size_t   len = 0;
    uint64_t nnz = 0;

    if (n == 0 || n > TN_MON_MAT_N_MAX) {
        return 0;
    }
    MAT_CELLS(n, cells, (len += varint_len(gap) + varint_len(value), nnz++));
    return 1 + varint_len(n) + varint_len(nnz) + len;
}

size_t tn_mon_mat_encode(uint32_t n, const uint64_t *const cells[TN_MON_MAT_KINDS], uint8_t *out)
{
    size_t   len = 0;
    uint64_t nnz = 0;

    MAT_CELLS(n, cells, ((void)gap, nnz++));
    out[len++] = TN_MON_MAT_FORMAT;
    len += varint_put(out + len, n);
    len += varint_put(out + len, nnz);
    MAT_CELLS(n, cells, (len += varint_put(out + len, gap), len += varint_put(out + len, value)));
    return len;
}

int tn_mon_mat_decode(const uint8_t *p, size_t len, uint32_t n, uint64_t *cells)
{
    uint64_t v, nnz, idx = 0, total;
    size_t   pos = 1;

    if (n == 0 || n > TN_MON_MAT_N_MAX || len < 1 || p[0] != TN_MON_MAT_FORMAT ||
        varint_get(p, len, &pos, &v) != 0 || v != n || varint_get(p, len, &pos, &nnz) != 0) {
        return -1;
    }
    total = (uint64_t)TN_MON_MAT_KINDS * n * n;
    /* each cell takes 2 bytes at least */
    if (nnz > total || nnz > (len - pos) / 2) {
        return -1;
    }
    for (uint64_t c = 0; c < nnz; c++) {
        uint64_t gap;
        if (varint_get(p, len, &pos, &gap) != 0 || varint_get(p, len, &pos, &v) != 0 || v == 0) {
            return -1;
        }
        if (gap >= total || (c > 0 && gap >= total - idx - 1)) {
            return -1;
        }
        idx = c == 0 ? gap : idx + 1 + gap;
        cells[idx] = v;
    }
    return pos == len ? 0 : -1;
}

int tn_mon_labels_decode(const uint8_t *p, size_t len, uint32_t n, const char **labels)
{
    size_t   pos = 0;
    uint32_t i;

    for (i = 0; i < n && pos < len; i++) {
        const uint8_t *end = memchr(p + pos, 0, len - pos);
        if (end == NULL) {
            return -1;
        }
        labels[i] = (const char *)p + pos;
        pos       = (size_t)(end - p) + 1;
    }
    return i == n && pos == len ? 0 : -1;
}
