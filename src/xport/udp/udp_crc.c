/* CRC32C (Castagnoli, reflected polynomial 0x82F63B78) over udp datagrams.
 *
 * Two implementations with one result: the SSE4.2 crc32 instruction where
 * the CPU has it, else slice-by-8 tables.  The instruction has a latency of
 * three cycles and a throughput of one, so long buffers run three
 * independent streams over three equal blocks and join them afterwards:
 * joining shifts a CRC state over the zero bytes of the blocks after it,
 * a linear map done with four 256-entry tables per block length.
 *
 * Where the CPU has VPCLMULQDQ and AVX-512, buffers of 256 bytes and more
 * are folded instead: sixteen 128-bit lanes (four zmm registers) each carry
 * a polynomial congruent to the data they have absorbed; one fold
 * multiplies a lane by x^d modulo the polynomial (two carry-less 64x33-bit
 * products, constants computed at start-up) and adds the block d bits
 * further on.  The lanes are then folded into one 128-bit value, which has
 * the same CRC as the data so far, and the crc32 instruction finishes from
 * there.  This moves 64 bytes per two multiplies instead of 8 per crc32.
 *
 * tn_udp_crc32c(crc, ...) follows zlib's convention: start with 0, feed the
 * previous result to continue (crc(crc(0, a), b) == crc(0, a || b)). */
#include "xport/udp/udp_conn.h"

#include <stdint.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define TN_CRC32C_POLY 0x82F63B78u

/* Exported (not in a header) so that the unit test can compare both paths. */
uint32_t tn_udp_crc32c_sw(uint32_t crc, const void *data, size_t len);
uint32_t tn_udp_crc32c_hw(uint32_t crc, const void *data, size_t len);
uint32_t tn_udp_crc32c_vec(uint32_t crc, const void *data, size_t len);
uint32_t tn_udp_crc32c_vec_copy(uint32_t crc, void *dst, const void *src, size_t len);
uint32_t tn_udp_crc32c_hw_copy(uint32_t crc, void *dst, const void *src, size_t len);
int tn_udp_crc32c_hw_available(void);
int tn_udp_crc32c_vec_available(void);

static uint32_t tn_crc_table[8][256];

/* The three-stream path works on blocks of these sizes (bytes per stream),
 * largest first; each has its own shift tables. */
#define TN_CRC_NBLK 3
static const size_t tn_crc_blk[TN_CRC_NBLK] = { 2048, 256, 64 };
static uint32_t tn_crc_shift[TN_CRC_NBLK][4][256];

static int tn_crc_hw;

/* Folding (see the top): the smallest buffer worth it, and the constants
 * for each fold distance, in bits. */
#define TN_CRC_VEC_MIN 256
enum { TN_CRC_D2048, TN_CRC_D1536, TN_CRC_D1024, TN_CRC_D512, TN_CRC_D384, TN_CRC_D256,
       TN_CRC_D128, TN_CRC_ND };
static const unsigned tn_crc_fold_bits[TN_CRC_ND] = { 2048, 1536, 1024, 512, 384, 256, 128 };
static uint64_t tn_crc_fold[TN_CRC_ND][2];
static int tn_crc_vec;

/* a * b modulo the polynomial, in the reflected bit order. */
static uint32_t tn_crc_mulmod(uint32_t a, uint32_t b)
{
    uint32_t prod = 0;
    for (int i = 0; i < 32; i++) {
        if (a & 0x80000000u) {
            prod ^= b;
        }
        a <<= 1;
        b = (b >> 1) ^ ((b & 1u) ? TN_CRC32C_POLY : 0);
    }
    return prod;
}

/* x^n modulo the polynomial (n in bits). */
static uint32_t tn_crc_xn(size_t n)
{
    uint32_t result = 0x80000000u;        /* x^0 */
    uint32_t sq = 0x40000000u;            /* x^1 */
    while (n != 0) {
        if (n & 1u) {
            result = tn_crc_mulmod(result, sq);
        }
        sq = tn_crc_mulmod(sq, sq);
        n >>= 1;
    }
    return result;
}

/* x^(8 n) modulo the polynomial: the operator "feed n zero bytes". */
static uint32_t tn_crc_x8n(size_t n)
{
    return tn_crc_xn(8 * n);
}

/* A fold multiplies the lane's high-degree half H (its low 64 bits, x^127
 * .. x^64) by x^(d+64) and its low-degree half L by x^d.  pclmulqdq on
 * reflected operands drops one degree, so each constant is x times a
 * residue (x^(d+63) resp. x^(d-1) modulo P), of degree <= 32, held with
 * bit k standing for x^(64-k): the reflected 32-bit residue shifted up by
 * 32. */
static void tn_crc_fold_init(void)
{
    for (int i = 0; i < TN_CRC_ND; i++) {
        size_t d = tn_crc_fold_bits[i];
        tn_crc_fold[i][0] = (uint64_t)tn_crc_xn(d + 63) << 32;
        tn_crc_fold[i][1] = (uint64_t)tn_crc_xn(d - 1) << 32;
    }
}

__attribute__((constructor)) static void tn_crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) {
            c = (c >> 1) ^ ((c & 1u) ? TN_CRC32C_POLY : 0);
        }
        tn_crc_table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++) {
        for (int t = 1; t < 8; t++) {
            uint32_t prev = tn_crc_table[t - 1][i];
            tn_crc_table[t][i] = (prev >> 8) ^ tn_crc_table[0][prev & 0xff];
        }
    }
    for (int b = 0; b < TN_CRC_NBLK; b++) {
        uint32_t op = tn_crc_x8n(tn_crc_blk[b]);
        for (int k = 0; k < 4; k++) {
            for (uint32_t i = 0; i < 256; i++) {
                tn_crc_shift[b][k][i] = tn_crc_mulmod(i << (8 * k), op);
            }
        }
    }
#if defined(__x86_64__)
    __builtin_cpu_init();
    tn_crc_hw = __builtin_cpu_supports("sse4.2");
    tn_crc_vec = tn_crc_hw && __builtin_cpu_supports("pclmul") &&
                 __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("vpclmulqdq");
#endif
    tn_crc_fold_init();
}

static inline uint64_t tn_crc_load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

/* Raw register update (no pre/post inversion), table path. */
static uint32_t tn_crc_sw_raw(uint32_t c, const unsigned char *p, size_t len)
{
    while (len != 0 && ((uintptr_t)p & 7u) != 0) {
        c = (c >> 8) ^ tn_crc_table[0][(c ^ *p++) & 0xff];
        len--;
    }
    while (len >= 8) {
        uint64_t v = tn_crc_load64(p) ^ c;
        c = tn_crc_table[7][v & 0xff] ^ tn_crc_table[6][(v >> 8) & 0xff] ^
            tn_crc_table[5][(v >> 16) & 0xff] ^ tn_crc_table[4][(v >> 24) & 0xff] ^
            tn_crc_table[3][(v >> 32) & 0xff] ^ tn_crc_table[2][(v >> 40) & 0xff] ^
            tn_crc_table[1][(v >> 48) & 0xff] ^ tn_crc_table[0][v >> 56];
        p += 8;
        len -= 8;
    }
    while (len != 0) {
        c = (c >> 8) ^ tn_crc_table[0][(c ^ *p++) & 0xff];
        len--;
    }
    return c;
}

uint32_t tn_udp_crc32c_sw(uint32_t crc, const void *data, size_t len)
{
    return ~tn_crc_sw_raw(~crc, data, len);
}

/* Copy, then checksum the copy with the tables (no crc32 instruction). */
static uint32_t tn_crc_sw_copy(uint32_t crc, void *dst, const void *src, size_t len)
{
    if (len != 0) {
        memcpy(dst, src, len);
    }
    return tn_udp_crc32c_sw(crc, dst, len);
}

int tn_udp_crc32c_hw_available(void)
{
    return tn_crc_hw;
}

int tn_udp_crc32c_vec_available(void)
{
    return tn_crc_vec;
}

#if defined(__x86_64__)

static inline uint32_t tn_crc_shift_apply(int b, uint32_t c)
{
    return tn_crc_shift[b][0][c & 0xff] ^ tn_crc_shift[b][1][(c >> 8) & 0xff] ^
           tn_crc_shift[b][2][(c >> 16) & 0xff] ^ tn_crc_shift[b][3][c >> 24];
}

__attribute__((target("sse4.2")))
static uint32_t tn_crc_hw_raw(uint32_t c, const unsigned char *p, size_t len)
{
    while (len != 0 && ((uintptr_t)p & 7u) != 0) {
        c = __builtin_ia32_crc32qi(c, *p++);
        len--;
    }
    /* three streams over blocks of n bytes each, joined by shifting */
    for (int b = 0; b < TN_CRC_NBLK; b++) {
        size_t n = tn_crc_blk[b];
        while (len >= 3 * n) {
            uint64_t c0 = c, c1 = 0, c2 = 0;
            const unsigned char *p1 = p + n, *p2 = p + 2 * n;
            for (size_t i = 0; i < n; i += 8) {
                c0 = __builtin_ia32_crc32di(c0, tn_crc_load64(p + i));
                c1 = __builtin_ia32_crc32di(c1, tn_crc_load64(p1 + i));
                c2 = __builtin_ia32_crc32di(c2, tn_crc_load64(p2 + i));
            }
            c = tn_crc_shift_apply(b, (uint32_t)c0) ^ (uint32_t)c1;
            c = tn_crc_shift_apply(b, c) ^ (uint32_t)c2;
            p += 3 * n;
            len -= 3 * n;
        }
    }
    uint64_t c64 = c;
    while (len >= 8) {
        c64 = __builtin_ia32_crc32di(c64, tn_crc_load64(p));
        p += 8;
        len -= 8;
    }
    c = (uint32_t)c64;
    if (len >= 4) {
        uint32_t v;
        memcpy(&v, p, sizeof(v));
        c = __builtin_ia32_crc32si(c, v);
        p += 4;
        len -= 4;
    }
    while (len != 0) {
        c = __builtin_ia32_crc32qi(c, *p++);
        len--;
    }
    return c;
}

uint32_t tn_udp_crc32c_hw(uint32_t crc, const void *data, size_t len)
{
    return ~tn_crc_hw_raw(~crc, data, len);
}

/* Copy and checksum in one pass: the same three streams, each stored as it
 * is read, so the bytes are loaded once. */
__attribute__((target("sse4.2")))
static uint32_t tn_crc_hw_copy_raw(uint32_t c, unsigned char *d, const unsigned char *p,
                                   size_t len)
{
    for (int b = 0; b < TN_CRC_NBLK; b++) {
        size_t n = tn_crc_blk[b];
        while (len >= 3 * n) {
            uint64_t c0 = c, c1 = 0, c2 = 0;
            for (size_t i = 0; i < n; i += 8) {
                uint64_t v0 = tn_crc_load64(p + i);
                uint64_t v1 = tn_crc_load64(p + n + i);
                uint64_t v2 = tn_crc_load64(p + 2 * n + i);
                memcpy(d + i, &v0, 8);
                memcpy(d + n + i, &v1, 8);
                memcpy(d + 2 * n + i, &v2, 8);
                c0 = __builtin_ia32_crc32di(c0, v0);
                c1 = __builtin_ia32_crc32di(c1, v1);
                c2 = __builtin_ia32_crc32di(c2, v2);
            }
            c = tn_crc_shift_apply(b, (uint32_t)c0) ^ (uint32_t)c1;
            c = tn_crc_shift_apply(b, c) ^ (uint32_t)c2;
            p += 3 * n;
            d += 3 * n;
            len -= 3 * n;
        }
    }
    uint64_t c64 = c;
    while (len >= 8) {
        uint64_t v = tn_crc_load64(p);
        memcpy(d, &v, 8);
        c64 = __builtin_ia32_crc32di(c64, v);
        p += 8;
        d += 8;
        len -= 8;
    }
    c = (uint32_t)c64;
    while (len != 0) {
        *d++ = *p;
        c = __builtin_ia32_crc32qi(c, *p++);
        len--;
    }
    return c;
}

uint32_t tn_udp_crc32c_hw_copy(uint32_t crc, void *dst, const void *src, size_t len)
{
    if (!tn_crc_hw) {
        return tn_crc_sw_copy(crc, dst, src, len);
    }
    return ~tn_crc_hw_copy_raw(~crc, dst, src, len);
}

#define TN_CRC_VEC_TARGET "avx512f,vpclmulqdq,pclmul,sse4.2"

__attribute__((target(TN_CRC_VEC_TARGET), always_inline))
static inline __m512i tn_crc_fold512(__m512i x, __m512i k, __m512i next)
{
    return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
                                     _mm512_clmulepi64_epi128(x, k, 0x11), next, 0x96);
}

__attribute__((target(TN_CRC_VEC_TARGET), always_inline))
static inline __m128i tn_crc_fold128(__m128i x, __m128i k, __m128i next)
{
    return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00),
                                       _mm_clmulepi64_si128(x, k, 0x11)), next);
}

__attribute__((target(TN_CRC_VEC_TARGET), always_inline))
static inline __m128i tn_crc_k128(int i)
{
    return _mm_set_epi64x((long long)tn_crc_fold[i][1], (long long)tn_crc_fold[i][0]);
}

/* Load the 256 bytes at p into v[0..3]; store them at d too unless d is
 * NULL.  (Loops over the four registers are unrolled: left as loops, the
 * registers go through memory and the fold runs at 39 GB/s instead of 56.) */
__attribute__((target(TN_CRC_VEC_TARGET), always_inline))
static inline void tn_crc_load256(__m512i v[4], unsigned char *d, const unsigned char *p)
{
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
        v[i] = _mm512_loadu_si512(p + 64 * i);
        if (d != NULL) {
            _mm512_storeu_si512(d + 64 * i, v[i]);
        }
    }
}

/* Folding path, len >= TN_CRC_VEC_MIN; copies to d as it reads when d is
 * not NULL (the always_inline callers below give both a branch-free body). */
__attribute__((target(TN_CRC_VEC_TARGET), always_inline))
static inline uint32_t tn_crc_vec_body(uint32_t c, unsigned char *d, const unsigned char *p,
                                       size_t len)
{
    __m512i v[4], w[4];
    tn_crc_load256(v, d, p);
    if (d != NULL) {
        d += 256;
    }
    /* the register's starting value enters as the first 32 data bits */
    v[0] = _mm512_xor_si512(v[0], _mm512_inserti32x4(_mm512_setzero_si512(),
                                                      _mm_cvtsi32_si128((int)c), 0));
    p += 256;
    len -= 256;
    const __m512i k2048 = _mm512_broadcast_i32x4(tn_crc_k128(TN_CRC_D2048));
    while (len >= 256) {
        tn_crc_load256(w, d, p);
        if (d != NULL) {
            d += 256;
        }
#pragma GCC unroll 4
        for (int i = 0; i < 4; i++) {
            v[i] = tn_crc_fold512(v[i], k2048, w[i]);
        }
        p += 256;
        len -= 256;
    }
    /* four registers into one: v[0] lies 1536 bits before v[3], and so on */
    __m512i x = tn_crc_fold512(v[0], _mm512_broadcast_i32x4(tn_crc_k128(TN_CRC_D1536)), v[3]);
    x = tn_crc_fold512(v[1], _mm512_broadcast_i32x4(tn_crc_k128(TN_CRC_D1024)), x);
    const __m512i k512 = _mm512_broadcast_i32x4(tn_crc_k128(TN_CRC_D512));
    x = tn_crc_fold512(v[2], k512, x);
    while (len >= 64) {
        __m512i y = _mm512_loadu_si512(p);
        if (d != NULL) {
            _mm512_storeu_si512(d, y);
            d += 64;
        }
        x = tn_crc_fold512(x, k512, y);
        p += 64;
        len -= 64;
    }
    /* four lanes into one */
    __m128i r = _mm512_extracti32x4_epi32(x, 3);
    r = tn_crc_fold128(_mm512_extracti32x4_epi32(x, 0), tn_crc_k128(TN_CRC_D384), r);
    r = tn_crc_fold128(_mm512_extracti32x4_epi32(x, 1), tn_crc_k128(TN_CRC_D256), r);
    const __m128i k128 = tn_crc_k128(TN_CRC_D128);
    r = tn_crc_fold128(_mm512_extracti32x4_epi32(x, 2), k128, r);
    while (len >= 16) {
        __m128i y = _mm_loadu_si128((const __m128i *)p);
        if (d != NULL) {
            _mm_storeu_si128((__m128i *)d, y);
            d += 16;
        }
        r = tn_crc_fold128(r, k128, y);
        p += 16;
        len -= 16;
    }
    /* r has the CRC of everything so far, as 16 bytes fed to a zero register */
    uint64_t c64 = __builtin_ia32_crc32di(0, (uint64_t)_mm_cvtsi128_si64(r));
    c64 = __builtin_ia32_crc32di(c64, (uint64_t)_mm_extract_epi64(r, 1));
    c = (uint32_t)c64;
    while (len != 0) {
        if (d != NULL) {
            *d++ = *p;
        }
        c = __builtin_ia32_crc32qi(c, *p++);
        len--;
    }
    return c;
}

__attribute__((target(TN_CRC_VEC_TARGET)))
static uint32_t tn_crc_vec_raw(uint32_t c, const unsigned char *p, size_t len)
{
    return tn_crc_vec_body(c, NULL, p, len);
}

__attribute__((target(TN_CRC_VEC_TARGET)))
static uint32_t tn_crc_vec_copy_raw(uint32_t c, unsigned char *d, const unsigned char *p,
                                    size_t len)
{
    return tn_crc_vec_body(c, d, p, len);
}

uint32_t tn_udp_crc32c_vec(uint32_t crc, const void *data, size_t len)
{
    if (!tn_crc_vec || len < TN_CRC_VEC_MIN) {
        return tn_udp_crc32c_hw(crc, data, len);
    }
    return ~tn_crc_vec_raw(~crc, data, len);
}

uint32_t tn_udp_crc32c_vec_copy(uint32_t crc, void *dst, const void *src, size_t len)
{
    if (!tn_crc_vec || len < TN_CRC_VEC_MIN) {
        return tn_udp_crc32c_copy(crc, dst, src, len);
    }
    return ~tn_crc_vec_copy_raw(~crc, dst, src, len);
}

#else

uint32_t tn_udp_crc32c_hw(uint32_t crc, const void *data, size_t len)
{
    return tn_udp_crc32c_sw(crc, data, len);
}

uint32_t tn_udp_crc32c_hw_copy(uint32_t crc, void *dst, const void *src, size_t len)
{
    return tn_crc_sw_copy(crc, dst, src, len);
}

uint32_t tn_udp_crc32c_vec(uint32_t crc, const void *data, size_t len)
{
    return tn_udp_crc32c(crc, data, len);
}

uint32_t tn_udp_crc32c_vec_copy(uint32_t crc, void *dst, const void *src, size_t len)
{
    return tn_udp_crc32c_copy(crc, dst, src, len);
}

#endif

uint32_t tn_udp_crc32c(uint32_t crc, const void *data, size_t len)
{
#if defined(__x86_64__)
    if (tn_crc_vec && len >= TN_CRC_VEC_MIN) {
        return ~tn_crc_vec_raw(~crc, data, len);
    }
    if (__builtin_expect(tn_crc_hw, 1)) {
        return ~tn_crc_hw_raw(~crc, data, len);
    }
#endif
    return ~tn_crc_sw_raw(~crc, data, len);
}

uint32_t tn_udp_crc32c_copy(uint32_t crc, void *dst, const void *src, size_t len)
{
#if defined(__x86_64__)
    if (tn_crc_vec && len >= TN_CRC_VEC_MIN) {
        return ~tn_crc_vec_copy_raw(~crc, dst, src, len);
    }
#endif
    return tn_udp_crc32c_hw_copy(crc, dst, src, len);
}
