/* CRC32C: the standard check value, all three implementations (tables,
 * crc32 instruction, carry-less folding) agree with a bit-at-a-time
 * reference on random buffers of every length 0..1000 at every
 * misalignment and on long ones, the copying variants copy exactly, and
 * chaining (crc of a buffer fed in pieces) equals the one-shot value.  The
 * paths the CPU lacks fall back and are reported as absent. */
#include "xport/udp/udp_conn.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

uint32_t tn_udp_crc32c_sw(uint32_t crc, const void *data, size_t len);
uint32_t tn_udp_crc32c_hw(uint32_t crc, const void *data, size_t len);
uint32_t tn_udp_crc32c_vec(uint32_t crc, const void *data, size_t len);
uint32_t tn_udp_crc32c_vec_copy(uint32_t crc, void *dst, const void *src, size_t len);
uint32_t tn_udp_crc32c_hw_copy(uint32_t crc, void *dst, const void *src, size_t len);
int tn_udp_crc32c_hw_available(void);
int tn_udp_crc32c_vec_available(void);

#include "../check.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Bit-at-a-time reference, independent of both implementations. */
static uint32_t crc_ref(uint32_t crc, const unsigned char *p, size_t len)
{
    crc = ~crc;
    while (len--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++) {
            crc = (crc >> 1) ^ ((crc & 1u) ? 0x82F63B78u : 0);
        }
    }
    return ~crc;
}

int main(void)
{
    const char *check = "123456789";
    CHECK(tn_udp_crc32c(0, check, 9) == 0xE3069283u);
    CHECK(tn_udp_crc32c_sw(0, check, 9) == 0xE3069283u);
    CHECK(tn_udp_crc32c_hw(0, check, 9) == 0xE3069283u);
    CHECK(tn_udp_crc32c_vec(0, check, 9) == 0xE3069283u);
    CHECK(tn_udp_crc32c(0, check, 0) == 0);
    /* 32 bytes of zeros: a published CRC32C test vector (RFC 3720 B.4) */
    unsigned char z[32] = { 0 };
    CHECK(tn_udp_crc32c(0, z, 32) == 0x8A9136AAu);
    memset(z, 0xff, sizeof(z));
    CHECK(tn_udp_crc32c(0, z, 32) == 0x62A8AB43u);
    printf("crc32c: crc32 instruction %s, carry-less folding %s\n",
           tn_udp_crc32c_hw_available() ? "present" : "absent",
           tn_udp_crc32c_vec_available() ? "present" : "absent");
    /* 4 KiB of zeros and of 0xff, which the folding path handles */
    static unsigned char big[4096];
    uint32_t zref = crc_ref(0, big, sizeof(big));
    CHECK(tn_udp_crc32c_vec(0, big, sizeof(big)) == zref);
    CHECK(tn_udp_crc32c(0, big, sizeof(big)) == zref);
    memset(big, 0xff, sizeof(big));
    CHECK(tn_udp_crc32c_vec(0, big, sizeof(big)) == crc_ref(0, big, sizeof(big)));

    static unsigned char buf[20000 + 16];
    for (size_t i = 0; i < sizeof(buf); i++) {
        buf[i] = (unsigned char)next_rand();
    }
    int bad = 0;
    for (size_t len = 0; len <= 1000; len++) {
        for (size_t mis = 0; mis < 8; mis++) {
            const unsigned char *p = buf + mis + (len * 7) % 5;
            uint32_t seed = (uint32_t)next_rand();
            uint32_t ref = crc_ref(seed, p, len);
            if (tn_udp_crc32c_sw(seed, p, len) != ref || tn_udp_crc32c_hw(seed, p, len) != ref ||
                tn_udp_crc32c_vec(seed, p, len) != ref || tn_udp_crc32c(seed, p, len) != ref) {
                if (bad++ < 5) {
                    fprintf(stderr, "mismatch at len %zu misalignment %zu\n", len, mis);
                }
            }
        }
    }
    CHECK(bad == 0);
    /* long buffers exercise the three-stream blocks of every size */
    size_t lens[] = { 191, 192, 193, 255, 256, 257, 271, 319, 320, 511, 512, 513, 767, 768,
                      769, 1023, 1024, 1040, 6143, 6144, 6145, 8016, 8192, 9000, 20000 };
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        for (size_t mis = 0; mis < 8; mis += 3) {
            uint32_t ref = crc_ref(7, buf + mis, lens[i]);
            CHECK(tn_udp_crc32c_hw(7, buf + mis, lens[i]) == ref);
            CHECK(tn_udp_crc32c_sw(7, buf + mis, lens[i]) == ref);
            CHECK(tn_udp_crc32c_vec(7, buf + mis, lens[i]) == ref);
            CHECK(tn_udp_crc32c_vec(0xFFFFFFFFu, buf + mis, lens[i]) ==
                  crc_ref(0xFFFFFFFFu, buf + mis, lens[i]));
        }
    }
    /* copy and checksum in one pass: same bytes, same CRC, any length,
     * either buffer misaligned, nothing written past the end */
    static unsigned char dst[20100];
    size_t clens[] = { 0, 1, 7, 8, 9, 63, 191, 192, 193, 255, 256, 257, 335, 768, 6144, 6151,
                       8016, 20000 };
    uint32_t (*copiers[])(uint32_t, void *, const void *, size_t) = {
        tn_udp_crc32c_copy, tn_udp_crc32c_hw_copy, tn_udp_crc32c_vec_copy };
    for (size_t f = 0; f < sizeof(copiers) / sizeof(copiers[0]); f++) {
        for (size_t i = 0; i < sizeof(clens) / sizeof(clens[0]); i++) {
            for (size_t mis = 0; mis < 8; mis += 3) {
                size_t len = clens[i], dmis = (mis * 5 + 1) % 8;
                memset(dst, 0xA5, sizeof(dst));
                uint32_t seed = (uint32_t)next_rand();
                uint32_t got = copiers[f](seed, dst + dmis, buf + mis, len);
                CHECK(got == crc_ref(seed, buf + mis, len));
                CHECK(memcmp(dst + dmis, buf + mis, len) == 0);
                CHECK(dst[dmis + len] == 0xA5 && (dmis == 0 || dst[dmis - 1] == 0xA5));
            }
        }
    }
    /* chaining */
    for (int t = 0; t < 200; t++) {
        size_t len = next_rand() % 9000, cut = len ? next_rand() % len : 0;
        uint32_t whole = tn_udp_crc32c(0, buf, len);
        CHECK(tn_udp_crc32c(tn_udp_crc32c(0, buf, cut), buf + cut, len - cut) == whole);
        CHECK(tn_udp_crc32c_sw(tn_udp_crc32c_hw(0, buf, cut), buf + cut, len - cut) == whole);
        CHECK(tn_udp_crc32c_vec(tn_udp_crc32c_sw(0, buf, cut), buf + cut, len - cut) == whole);
    }
    return tn_check_report("test_crc");
}
