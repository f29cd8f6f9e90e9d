/* CRC32C (Castagnoli, reflected polynomial 0x82F63B78) over udp datagrams.
 *
 * Two implementations with one result: the SSE4.2 crc32 instruction where
 * the CPU has it, else slice-by-8 tables.  The instruction has a latency of
 * three cycles and a throughput of one, so long buffers run three
 * independent streams over three equal blocks and join them afterwards:
 * joining shifts a CRC state over the zero bytes of the blocks after it,
 * a linear map done with four 256-entry tables per block length.
 *
 * tn_udp_crc32c(crc, ...) follows zlib's convention: start with 0, feed the
 * previous result to continue (crc(crc(0, a), b) == crc(0, a || b)). */
#include "xport/udp/udp_conn.h"

#include <stdint.h>
#include <string.h>

#define TN_CRC32C_POLY 0x82F63B78u

/* Exported (not in a header) so that the unit test can compare both paths. */
uint32_t tn_udp_crc32c_sw(uint32_t crc, const void *data, size_t len);
uint32_t tn_udp_crc32c_hw(uint32_t crc, const void *data, size_t len);
int tn_udp_crc32c_hw_available(void);

static uint32_t tn_crc_table[8][256];

/* The three-stream path works on blocks of these sizes (bytes per stream),
 * largest first; each has its own shift tables. */
#define TN_CRC_NBLK 3
static const size_t tn_crc_blk[TN_CRC_NBLK] = { 2048, 256, 64 };
static uint32_t tn_crc_shift[TN_CRC_NBLK][4][256];

static int tn_crc_hw;

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

/* x^(8 n) modulo the polynomial: the operator "feed n zero bytes". */
static uint32_t tn_crc_x8n(size_t n)
{
    uint32_t result = 0x80000000u;        /* x^0 */
    uint32_t sq = 0x00800000u;            /* x^8 */
    while (n != 0) {
        if (n & 1u) {
            result = tn_crc_mulmod(result, sq);
        }
        sq = tn_crc_mulmod(sq, sq);
        n >>= 1;
    }
    return result;
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
#endif
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

int tn_udp_crc32c_hw_available(void)
{
    return tn_crc_hw;
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

#else

uint32_t tn_udp_crc32c_hw(uint32_t crc, const void *data, size_t len)
{
    return tn_udp_crc32c_sw(crc, data, len);
}

#endif

uint32_t tn_udp_crc32c(uint32_t crc, const void *data, size_t len)
{
#if defined(__x86_64__)
    if (__builtin_expect(tn_crc_hw, 1)) {
        return ~tn_crc_hw_raw(~crc, data, len);
    }
#endif
    return ~tn_crc_sw_raw(~crc, data, len);
}

uint32_t tn_udp_crc32c_copy(uint32_t crc, void *dst, const void *src, size_t len)
{
#if defined(__x86_64__)
    if (__builtin_expect(tn_crc_hw, 1)) {
        return ~tn_crc_hw_copy_raw(~crc, dst, src, len);
    }
#endif
    if (len != 0) {
        memcpy(dst, src, len);
    }
    return ~tn_crc_sw_raw(~crc, dst, len);
}
