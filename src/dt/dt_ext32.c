/* external32: the standard's portable data representation.
 *
 * Big-endian, no padding, fixed sizes that may differ from this machine's:
 * MPI_LONG and MPI_UNSIGNED_LONG are 4 bytes, MPI_WCHAR 2, MPI_LONG_DOUBLE
 * (and its complex and pair forms) an IEEE 754 binary128 of 16 bytes;
 * everything else has its usual size (MPI_AINT, MPI_OFFSET, MPI_COUNT 8,
 * C/Fortran integers, reals and logicals their byte size, complex two
 * reals, pair types a value then an int).  Integers narrowed on the way out
 * are truncated, and widened on the way back with their sign (signed types)
 * or zeros.
 *
 * Conversion goes through the native packed form: the type signature says
 * which predefined type comes next in it, and each predefined type is one or
 * two "parts" (a complex number or a pair is two) converted on their own. */
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include "dt/dt.h"

/* ABI handle values of the types whose external size differs (checked
 * against mpi.h by the unit test through tn_dt_ext32_size). */
#define TN_H_LONG          0x20au
#define TN_H_UNSIGNED_LONG 0x20eu
#define TN_H_WCHAR         0x23cu
#define TN_H_LONG_INT      0x22au

typedef enum { X_SWAP, X_SINT, X_UINT, X_LDBL } xclass_t;

typedef struct {
    unsigned char cls, nsize, xsize;   /* class, native and external bytes */
} xpart_t;

typedef struct {
    int     nparts;
    xpart_t part[2];
} xdesc_t;

static int kind_signed(tn_dt_kind_t k)
{
    return k == TN_DK_INT8 || k == TN_DK_INT16 || k == TN_DK_INT32 || k == TN_DK_INT64;
}

/* How one element of predefined type t converts. */
static xdesc_t xdesc(const tn_dt_t *t)
{
    xdesc_t d = { 1, { { X_SWAP, (unsigned char)t->size, (unsigned char)t->size } } };

    switch (t->kind) {
    case TN_DK_LONG_DOUBLE:
        d.part[0].cls = X_LDBL;
        d.part[0].xsize = 16;
        return d;
    case TN_DK_C_FLOAT_COMPLEX:
    case TN_DK_C_DOUBLE_COMPLEX:
    case TN_DK_2FLOAT:
    case TN_DK_2DOUBLE:
    case TN_DK_2INT32F:
        d.nparts = 2;
        d.part[0].nsize = d.part[0].xsize = (unsigned char)(t->size / 2);
        d.part[1] = d.part[0];
        return d;
    case TN_DK_C_LONG_DOUBLE_COMPLEX:
        d.nparts = 2;
        d.part[0].cls = X_LDBL;
        d.part[0].nsize = (unsigned char)(t->size / 2);
        d.part[0].xsize = 16;
        d.part[1] = d.part[0];
        return d;
    case TN_DK_FLOAT_INT:
    case TN_DK_DOUBLE_INT:
    case TN_DK_LONG_INT:
    case TN_DK_2INT:
    case TN_DK_SHORT_INT:
    case TN_DK_LONG_DOUBLE_INT:
        d.nparts = 2;
        d.part[0].nsize = d.part[0].xsize = (unsigned char)(t->size - sizeof(int));
        d.part[1].cls = X_SWAP;
        d.part[1].nsize = d.part[1].xsize = sizeof(int);
        if (t->kind == TN_DK_LONG_DOUBLE_INT) {
            d.part[0].cls = X_LDBL;
            d.part[0].xsize = 16;
        } else if (t->kind == TN_DK_LONG_INT) {
            d.part[0].cls = X_SINT;
            d.part[0].xsize = 4;
        }
        return d;
    case TN_DK_NONE:
        if (t->category & TN_DC_COMPLEX) {     /* COMPLEX4, COMPLEX32: two reals */
            d.nparts = 2;
            d.part[0].nsize = d.part[0].xsize = (unsigned char)(t->size / 2);
            d.part[1] = d.part[0];
        }
        return d;
    default:
        break;
    }
    if (t->handle == TN_H_LONG || t->handle == TN_H_UNSIGNED_LONG ||
        t->handle == TN_H_WCHAR) {
        d.part[0].cls = kind_signed(t->kind) && t->handle != TN_H_WCHAR ? X_SINT : X_UINT;
        d.part[0].xsize = t->handle == TN_H_WCHAR ? 2 : 4;
    }
    return d;
}

static size_t xdesc_size(const xdesc_t *d)
{
    return d->nparts == 1 ? d->part[0].xsize : (size_t)d->part[0].xsize + d->part[1].xsize;
}

size_t tn_dt_ext32_size(const tn_dt_t *dt)
{
    size_t list = 0;

    for (size_t k = 0; k < dt->nruns; k++) {
        xdesc_t d = xdesc(dt->runs[k].type);
        list += dt->runs[k].n * xdesc_size(&d);
    }
    return list * dt->run_rep;
}

/* ---- one part ---------------------------------------------------------- */

static void reverse(unsigned char *dst, const unsigned char *src, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        dst[i] = src[n - 1 - i];
    }
}

static uint64_t load_le(const unsigned char *p, size_t n)
{
    uint64_t v = 0;

    for (size_t i = n; i > 0; i--) {
        v = v << 8 | p[i - 1];
    }
    return v;
}

static void store_le(unsigned char *p, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++, v >>= 8) {
        p[i] = (unsigned char)v;
    }
}

static void store_be(unsigned char *p, uint64_t v, size_t n)
{
    for (size_t i = n; i > 0; i--, v >>= 8) {
        p[i - 1] = (unsigned char)v;
    }
}

static uint64_t load_be(const unsigned char *p, size_t n)
{
    uint64_t v = 0;

    for (size_t i = 0; i < n; i++) {
        v = v << 8 | p[i];
    }
    return v;
}

/* long double <-> binary128 as (hi, lo) 64-bit halves.  The x87 80-bit
 * format has the same exponent (15 bits, bias 16383) and an explicit
 * integer bit before 63 fraction bits: the fraction moves to the top of
 * binary128's 112 bits.  binary128 long double (aarch64, ...) is a copy;
 * other formats go through frexpl (no NaN payloads). */
#if LDBL_MANT_DIG == 64
static void ldbl_to_q(const unsigned char *n, uint64_t *hi, uint64_t *lo)
{
    uint64_t mant = load_le(n, 8) & 0x7fffffffffffffffULL;
    uint64_t se = load_le(n + 8, 2);

    *hi = se << 48 | mant >> 15;
    *lo = (mant & 0x7fff) << 49;
}

static void q_to_ldbl(uint64_t hi, uint64_t lo, unsigned char *n)
{
    uint64_t se = hi >> 48, exp = se & 0x7fff;
    uint64_t mant = (hi & 0xffffffffffffULL) << 15 | lo >> 49;

    if (exp != 0) {
        mant |= 1ULL << 63;      /* explicit integer bit of normal numbers */
    }
    memset(n, 0, sizeof(long double));
    store_le(n, mant, 8);
    store_le(n + 8, se, 2);
}
#elif LDBL_MANT_DIG == 113
static void ldbl_to_q(const unsigned char *n, uint64_t *hi, uint64_t *lo)
{
    *lo = load_le(n, 8);
    *hi = load_le(n + 8, 8);
}

static void q_to_ldbl(uint64_t hi, uint64_t lo, unsigned char *n)
{
    store_le(n, lo, 8);
    store_le(n + 8, hi, 8);
}
#else
#include <math.h>
static void ldbl_to_q(const unsigned char *n, uint64_t *hi, uint64_t *lo)
{
    long double x, m;
    uint64_t sign, f[2] = { 0, 0 };
    int e;

    memcpy(&x, n, sizeof(x));
    sign = signbit(x) ? 1ULL << 63 : 0;
    if (isnan(x) || isinf(x)) {
        *hi = sign | 0x7fffULL << 48 | (isnan(x) ? 1ULL << 47 : 0);
        *lo = 0;
        return;
    }
    if (x == 0) {
        *hi = sign;
        *lo = 0;
        return;
    }
    m = frexpl(fabsl(x), &e);            /* x = m * 2^e, m in [0.5, 1) */
    m = m * 2 - 1;                       /* fraction of 1.f * 2^(e-1) */
    for (int i = 0; i < 112; i++) {
        m *= 2;
        f[i / 64] = f[i / 64] << 1 | (m >= 1);
        if (m >= 1) {
            m -= 1;
        }
    }
    f[1] <<= 16;                         /* 48 bits landed in f[1] */
    *hi = sign | (uint64_t)(e - 1 + 16383) << 48 | f[0] >> 16;
    *lo = f[0] << 48 | f[1] >> 16;
}

static void q_to_ldbl(uint64_t hi, uint64_t lo, unsigned char *n)
{
    int exp = (int)(hi >> 48 & 0x7fff);
    long double x = 0, scale = 1;

    if (exp == 0x7fff) {
        x = (hi & 0xffffffffffffULL) || lo ? NAN : INFINITY;
    } else if (exp != 0 || hi != 0 || lo != 0) {
        for (int i = 47; i >= 0; i--) {
            scale /= 2;
            x += (hi >> i & 1) ? scale : 0;
        }
        for (int i = 63; i >= 0; i--) {
            scale /= 2;
            x += (lo >> i & 1) ? scale : 0;
        }
        x = ldexpl(exp != 0 ? 1 + x : x, (exp != 0 ? exp : 1) - 16383);
    }
    if (hi >> 63) {
        x = -x;
    }
    memcpy(n, &x, sizeof(x));
}
#endif

/* One part, native -> external (to = 1) or back. */
static void part_conv(const xpart_t *pt, unsigned char *nat, unsigned char *ext, int to)
{
    uint64_t v, hi, lo;

    switch ((xclass_t)pt->cls) {
    case X_SWAP:
        if (to) {
            reverse(ext, nat, pt->nsize);
        } else {
            reverse(nat, ext, pt->nsize);
        }
        return;
    case X_SINT:
    case X_UINT:
        if (to) {
            store_be(ext, load_le(nat, pt->nsize), pt->xsize);
            return;
        }
        v = load_be(ext, pt->xsize);
        if (pt->cls == X_SINT && pt->xsize < 8 && (v >> (8 * pt->xsize - 1)) & 1) {
            v |= ~0ULL << (8 * pt->xsize);       /* sign-extend */
        }
        store_le(nat, v, pt->nsize);
        return;
    case X_LDBL:
        if (to) {
            ldbl_to_q(nat, &hi, &lo);
            store_be(ext, hi, 8);
            store_be(ext + 8, lo, 8);
        } else {
            q_to_ldbl(load_be(ext, 8), load_be(ext + 8, 8), nat);
        }
        return;
    }
}

/* Convert count elements between the native packed stream nat and the
 * external stream ext, following dt's signature. */
static void convert(const tn_dt_t *dt, size_t count, unsigned char *nat, unsigned char *ext,
                    int to)
{
    size_t reps = count * dt->run_rep;

    for (size_t r = 0; r < reps; r++) {
        for (size_t k = 0; k < dt->nruns; k++) {
            const tn_dt_t *t = dt->runs[k].type;
            xdesc_t d = xdesc(t);

            if (d.nparts == 1 && d.part[0].cls == X_SWAP && d.part[0].nsize == 1) {
                size_t n = dt->runs[k].n;        /* bytes: one copy */
                if (to) {
                    memcpy(ext, nat, n);
                } else {
                    memcpy(nat, ext, n);
                }
                nat += n;
                ext += n;
                continue;
            }
            for (size_t i = 0; i < dt->runs[k].n; i++) {
                for (int p = 0; p < d.nparts; p++) {
                    part_conv(&d.part[p], nat, ext, to);
                    nat += d.part[p].nsize;
                    ext += d.part[p].xsize;
                }
            }
        }
    }
}

tn_status_t tn_dt_pack_ext32(const tn_dt_t *dt, const void *buf, size_t count, void *out)
{
    size_t bytes = count * dt->size;
    unsigned char *tmp;

    if (bytes == 0) {
        return TN_OK;
    }
    tmp = malloc(bytes);
    if (tmp == NULL) {
        return TN_ERR_NOMEM;
    }
    tn_dt_pack(dt, buf, count, tmp);
    convert(dt, count, tmp, out, 1);
    free(tmp);
    return TN_OK;
}

tn_status_t tn_dt_unpack_ext32(const tn_dt_t *dt, const void *in, size_t count, void *buf)
{
    size_t bytes = count * dt->size;
    unsigned char *tmp;

    if (bytes == 0) {
        return TN_OK;
    }
    tmp = malloc(bytes);
    if (tmp == NULL) {
        return TN_ERR_NOMEM;
    }
    convert(dt, count, tmp, (unsigned char *)in, 0);
    tn_dt_unpack(dt, tmp, count, buf);
    free(tmp);
    return TN_OK;
}
