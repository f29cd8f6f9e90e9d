/* tern-monitor's database formats (tools/tern-monitor/mon_store_codec.c),
 * no SQLite: record streams round trip bit for bit (repeats, integers,
 * floats, doubles, -0.0, NaN, infinities, irregular times) at the sizes
 * the design counts on, and damaged or non-canonical ones are refused;
 * matrices (dense, sparse, extreme values) round trip and lies are
 * refused; label lists; series keys in canonical form.
 *
 * `test_mon_store_codec --corpus DIR` writes fuzz_store's seeds into DIR
 * (tests/fuzz/corpus/store/): the encoder's output of each kind behind
 * the harness's two selector bytes. */
#include "mon_store_codec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"

#define BASE 1699920000000LL    /* a day boundary */

static size_t enc(int nf, int64_t base, int64_t span, const tn_mon_rec_t *r, size_t n, uint8_t *out)
{
    tn_mon_rec_state_t s;
    size_t             len = 0;

    tn_mon_rec_start(&s, nf, base, span);
    for (size_t i = 0; i < n; i++) {
        int m = tn_mon_rec_put(&s, &r[i], out + len);
        CHECK(m > 0);
        len += (size_t)(m > 0 ? m : 0);
    }
    return len;
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof(a)) == 0;
}

static void test_records(void)
{
    static const double vals[] = { 0, 0, 0, 1, 1, 2, -5, 1e15, 9007199254740992.0, 0.5, 0.1, -0.0,
                                   INFINITY, -INFINITY, NAN, 3.25, 3.25, 1e300, 123456.789 };
    enum { N = sizeof(vals) / sizeof(vals[0]) };
    tn_mon_rec_t r[N], back[N + 1];
    uint8_t      buf[1 + N * TN_MON_REC_BYTES_MAX];
    size_t       len, n = 0;

    for (size_t i = 0; i < N; i++) {
        /* a second apart with jitter, and one long gap */
        r[i].t    = BASE + (int64_t)i * 1000 + (int64_t)(i % 3) * 7 + (i > 10 ? 20000 : 0);
        r[i].f[0] = vals[i];
    }
    len = enc(1, BASE, 60000, r, N, buf);
    CHECK(tn_mon_rec_decode(buf, len, 1, BASE, 60000, back, N, &n) == 0 && n == N);
    for (size_t i = 0; i < n; i++) {
        CHECK(back[i].t == r[i].t && same_bits(back[i].f[0], r[i].f[0]));
    }
    /* cap too small, wrong field count, times past a shorter slot, every
     * truncation */
    CHECK(tn_mon_rec_decode(buf, len, 1, BASE, 60000, back, N - 1, &n) != 0);
    CHECK(tn_mon_rec_decode(buf, len, 2, BASE, 60000, back, N, &n) != 0);
    CHECK(tn_mon_rec_decode(buf, len, 1, BASE, 30000, back, N, &n) != 0);
    for (size_t cut = 1; cut < len; cut++) {
        size_t m = 0;
        if (tn_mon_rec_decode(buf, cut, 1, BASE, 60000, back, N, &m) == 0) {
            /* a cut at a record's end is a shorter stream: a prefix */
            CHECK(m < N);
            for (size_t i = 0; i < m; i++) {
                CHECK(back[i].t == r[i].t && same_bits(back[i].f[0], r[i].f[0]));
            }
        }
    }
    /* the encoder refuses time going back or leaving the slot */
    tn_mon_rec_state_t s;
    tn_mon_rec_t       x = { .t = BASE + 5 };
    tn_mon_rec_start(&s, 1, BASE, 60000);
    CHECK(tn_mon_rec_put(&s, &x, buf) == 2);
    x.t = BASE + 4;
    CHECK(tn_mon_rec_put(&s, &x, buf) == -1);
    x.t = BASE + 60000;
    CHECK(tn_mon_rec_put(&s, &x, buf) == -1);

    /* sizes: a sample a second of a constant is 1 byte after the second,
     * a small integer counter 2 */
    tn_mon_rec_t c[60];
    for (int i = 0; i < 60; i++) {
        c[i].t    = BASE + 500 + i * 1000;
        c[i].f[0] = 0;
    }
    len = enc(1, BASE, 60000, c, 60, buf);
    CHECK(len == 1 + 3 + 3 + 58);   /* format; two records with their time escaped */
    for (int i = 0; i < 60; i++) {
        c[i].f[0] = i * 3;
    }
    len = enc(1, BASE, 60000, c, 60, buf);
    CHECK(len == 1 + 3 + 4 + 58 * 2);

    /* non-canonical forms of the same values are refused: a "double" for
     * an integer, a long varint, an inline time escaped */
    static const uint8_t dbl_for_int[] = { 0x11, 0x03, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f };  /* 1.0 */
    static const uint8_t int_ok[]      = { 0x11, 0x01, 0x02 };                          /* 1.0 */
    static const uint8_t long_varint[] = { 0x11, 0x01, 0x82, 0x00 };
    static const uint8_t esc_small[]   = { 0x11, 0xfc, 0x02 };
    static const uint8_t bad_format[]  = { 0x12, 0x00 };
    CHECK(tn_mon_rec_decode(int_ok, sizeof(int_ok), 1, 0, 60000, back, 4, &n) == 0 && n == 1 &&
          back[0].t == 0 && back[0].f[0] == 1.0);
    CHECK(tn_mon_rec_decode(dbl_for_int, sizeof(dbl_for_int), 1, 0, 60000, back, 4, &n) != 0);
    CHECK(tn_mon_rec_decode(long_varint, sizeof(long_varint), 1, 0, 60000, back, 4, &n) != 0);
    CHECK(tn_mon_rec_decode(esc_small, sizeof(esc_small), 1, 0, 60000, back, 4, &n) != 0);
    CHECK(tn_mon_rec_decode(bad_format, sizeof(bad_format), 1, 0, 60000, back, 4, &n) != 0);

    /* aggregates: four fields, each with its own history */
    tn_mon_rec_t a[3] = {
        { BASE, { 60, 1770, 0, 59 } }, { BASE + 60000, { 60, 1770, 0, 59 } },
        { BASE + 180000, { 58, 0.75, -2.5, 1e-3 } },
    };
    len = enc(4, BASE, 3600000, a, 3, buf);
    CHECK(tn_mon_rec_decode(buf, len, 4, BASE, 3600000, back, 3, &n) == 0 && n == 3);
    for (size_t i = 0; i < 3; i++) {
        CHECK(back[i].t == a[i].t);
        for (int f = 0; f < 4; f++) {
            CHECK(same_bits(back[i].f[f], a[i].f[f]));
        }
    }
}

static void test_matrix(void)
{
    enum { N = 512 };
    uint64_t *cells[TN_MON_MAT_KINDS], *back = calloc((size_t)TN_MON_MAT_KINDS * N * N, 8);
    uint8_t  *buf;
    size_t    len, nn = (size_t)N * N;

    for (int k = 0; k < TN_MON_MAT_KINDS; k++) {
        cells[k] = calloc(nn, 8);
    }
    /* a ring and a few extremes */
    for (size_t i = 0; i < N; i++) {
        cells[0][i * N + (i + 1) % N] = 1000 + i;
        cells[3][i * N + (i + N - 1) % N] = 7;
    }
    cells[5][nn - 1] = UINT64_MAX;
    cells[2][0]      = 1;
    len = tn_mon_mat_size(N, (const uint64_t *const *)cells);
    CHECK(len > 0 && len < 8 * N);     /* about 2-3 bytes a nonzero cell, then gaps */
    buf = malloc(len);
    CHECK(tn_mon_mat_encode(N, (const uint64_t *const *)cells, buf) == len);
    CHECK(tn_mon_mat_decode(buf, len, N, back) == 0);
    for (int k = 0; k < TN_MON_MAT_KINDS; k++) {
        CHECK(memcmp(back + k * nn, cells[k], nn * 8) == 0);
    }
    /* wrong order, truncation, trailing byte, a zero value */
    CHECK(tn_mon_mat_decode(buf, len, N - 1, back) != 0);
    CHECK(tn_mon_mat_decode(buf, len - 1, N, back) != 0);
    uint8_t *more = malloc(len + 1);
    memcpy(more, buf, len);
    more[len] = 0;
    CHECK(tn_mon_mat_decode(more, len + 1, N, back) != 0);
    static const uint8_t zero_val[] = { 1, 2, 1, 0, 0 };
    static const uint8_t past_end[] = { 1, 2, 1, 24, 1 };     /* 6 * 2 * 2 = 24 cells */
    static const uint8_t last[]     = { 1, 2, 1, 23, 9 };
    static const uint8_t lie_count[] = { 1, 2, 200, 0, 1 };
    uint64_t small[24] = { 0 };
    CHECK(tn_mon_mat_decode(zero_val, sizeof(zero_val), 2, small) != 0);
    CHECK(tn_mon_mat_decode(past_end, sizeof(past_end), 2, small) != 0);
    CHECK(tn_mon_mat_decode(lie_count, sizeof(lie_count), 2, small) != 0);
    CHECK(tn_mon_mat_decode(last, sizeof(last), 2, small) == 0 && small[23] == 9);
    CHECK(tn_mon_mat_size(0, (const uint64_t *const *)cells) == 0);
    CHECK(tn_mon_mat_size(TN_MON_MAT_N_MAX + 1, (const uint64_t *const *)cells) == 0);
    for (int k = 0; k < TN_MON_MAT_KINDS; k++) {
        free(cells[k]);
    }
    free(more);
    free(buf);
    free(back);
}

static void test_labels(void)
{
    const char *l[3];
    CHECK(tn_mon_labels_decode((const uint8_t *)"a\0bc\0\0", 6, 3, l) == 0 && strcmp(l[1], "bc") == 0 &&
          l[2][0] == '\0');
    CHECK(tn_mon_labels_decode((const uint8_t *)"a\0bc\0\0", 6, 2, l) != 0);
    CHECK(tn_mon_labels_decode((const uint8_t *)"a\0bc", 4, 2, l) != 0);
    CHECK(tn_mon_labels_decode((const uint8_t *)"", 0, 0, l) == 0);
}

static int canon_is(const char *in, const char *want)
{
    char out[TN_MON_KEY_MAX + 1];
    int  n = tn_mon_key_canon(in, strlen(in), out, sizeof(out));

    if (want == NULL ? n != -1 : (n < 0 || strcmp(out, want) != 0)) {
        fprintf(stderr, "canon(%s) = %d %s, want %s\n", in, n, n >= 0 ? out : "", want ? want : "-1");
        return 0;
    }
    return 1;
}

static void test_keys(void)
{
    char        out[TN_MON_KEY_MAX + 1], big[TN_MON_KEY_MAX + 8];
    const char *names[]  = { "src", "jobid", "rail", "dst" };
    const char *values[] = { "n0", "x\"y\\z\n", "0", "n1" };

    CHECK(canon_is("up", "up"));
    CHECK(canon_is("up{}", "up"));
    CHECK(canon_is("a:b_c9{z=\"1\",a=\"2\",}", "a:b_c9{a=\"2\",z=\"1\"}"));
    CHECK(canon_is("m{a=\"x\\\"\\\\\\n\"}", "m{a=\"x\\\"\\\\\\n\"}"));
    CHECK(canon_is("m{a=\"\"}", "m{a=\"\"}"));
    CHECK(canon_is("9m", NULL));
    CHECK(canon_is("", NULL));
    CHECK(canon_is("m{a:b=\"1\"}", NULL));
    CHECK(canon_is("m{a=\"1\",a=\"2\"}", NULL));
    CHECK(canon_is("m{a=\"1\"", NULL));
    CHECK(canon_is("m{a=\"1\"} ", NULL));
    CHECK(canon_is("m{a=1}", NULL));
    CHECK(canon_is("m{a=\"\\t\"}", NULL));
    CHECK(canon_is("m{a=\"1\" ,b=\"2\"}", NULL));
    CHECK(canon_is("m{,}", NULL));
    CHECK(tn_mon_key_make(out, sizeof(out), "udp_retransmit_rate", names, values, 4) > 0 &&
          strcmp(out, "udp_retransmit_rate{dst=\"n1\",jobid=\"x\\\"y\\\\z\\n\",rail=\"0\",src=\"n0\"}") == 0);
    CHECK(tn_mon_key_make(out, 8, "udp_retransmit_rate", names, values, 4) == -1);
    memset(big, 'a', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    CHECK(tn_mon_key_canon(big, TN_MON_KEY_MAX, out, sizeof(out)) == TN_MON_KEY_MAX);
    CHECK(tn_mon_key_canon(big, TN_MON_KEY_MAX + 1, out, sizeof(out)) == -1);
    /* 32 labels are fine, 33 are not */
    for (int count = 32; count <= 33; count++) {
        char many[1024];
        int  len = snprintf(many, sizeof(many), "m{");
        for (int i = count - 1; i >= 0; i--) {
            len += snprintf(many + len, sizeof(many) - (size_t)len, "l%02d=\"\",", i);
        }
        many[len - 1] = '}';
        int n = tn_mon_key_canon(many, (size_t)len, out, sizeof(out));
        CHECK(count == 32 ? n > 0 && strncmp(out, "m{l00=\"\",l01=", 13) == 0 : n == -1);
    }
}

static void seed(const char *dir, const char *name, uint8_t b, uint8_t a, const void *p, size_t len)
{
    char  path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f != NULL) {
        CHECK(fputc(b, f) != EOF && fputc(a, f) != EOF && fwrite(p, 1, len, f) == len);
        fclose(f);
    }
}

static void write_corpus(const char *dir)
{
    tn_mon_rec_t r[120];
    uint8_t      buf[1 + 120 * TN_MON_REC_BYTES_MAX];
    size_t       len;

    /* a minute of samples: repeats, integers, floats, doubles, a gap */
    for (int i = 0; i < 60; i++) {
        r[i].t    = BASE + 250 + i * 1000 + (i % 4) * 3 + (i > 40 ? 500 : 0);
        r[i].f[0] = i < 20 ? 0 : i < 30 ? (double)(i * 7) : i < 40 ? 0.25 * i : 1.1e9 + i / 3.0;
    }
    len = enc(1, BASE, 60000, r, 60, buf);
    seed(dir, "rec_raw_minute", 0, 0x4, buf, len);          /* 1 field, a minute */
    r[0].f[0] = NAN, r[1].f[0] = -INFINITY, r[2].f[0] = -0.0, r[3].f[0] = 9007199254740992.0;
    len = enc(1, BASE, 60000, r, 4, buf);
    seed(dir, "rec_raw_specials", 0, 0x4, buf, len);
    buf[0] = TN_MON_REC_FORMAT | 1;
    seed(dir, "rec_empty", 0, 0x4, buf, 1);
    /* an hour of minute aggregates, a day of hour aggregates */
    for (int i = 0; i < 60; i++) {
        r[i].t    = BASE + i * 60000LL;
        r[i].f[0] = 60, r[i].f[1] = i < 30 ? 0 : 1770.5 + i, r[i].f[2] = i < 30 ? 0 : -1;
        r[i].f[3] = i < 30 ? 0 : 1e9 + i;
    }
    len = enc(4, BASE, 3600000, r, 60, buf);
    seed(dir, "rec_agg_hour", 0, 0x8 | 3, buf, len);        /* 4 fields, an hour */
    for (int i = 0; i < 24; i++) {
        r[i].t = BASE + i * 3600000LL;
    }
    len = enc(4, BASE, 86400000, r, 24, buf);
    seed(dir, "rec_agg_day", 0, 0xc | 3, buf, len);

    /* a 4 x 4 matrix: a ring in bytes and messages, one extreme value */
    uint64_t        c[TN_MON_MAT_KINDS][16] = { { 0 } };
    const uint64_t *k[TN_MON_MAT_KINDS];
    uint8_t         mat[1024];
    for (int i = 0; i < 4; i++) {
        c[0][i * 4 + (i + 1) % 4] = 65536u + (unsigned)i;
        c[3][i * 4 + (i + 1) % 4] = 2;
    }
    c[5][15] = UINT64_MAX;
    for (int i = 0; i < TN_MON_MAT_KINDS; i++) {
        k[i] = c[i];
    }
    len = tn_mon_mat_size(4, k);
    CHECK(len <= sizeof(mat) && tn_mon_mat_encode(4, k, mat) == len);
    seed(dir, "mat_ring4", 1, 3, mat, len);                  /* order 3 % 16 + 1 */

    seed(dir, "labels_3", 2, 3, "node-0\0node-1\0", 15);
    static const char *const keys[] = {
        "udp_retransmit_rate{dst=\"n1\",jobid=\"x\",rail=\"0\",src=\"n0\"}",
        "m{z=\"1\",a=\"x\\\"\\\\\\n\",}", "up{}", "a:b",
    };
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        char name[16];
        snprintf(name, sizeof(name), "key_%zu", i);
        seed(dir, name, 3, 0, keys[i], strlen(keys[i]));
    }
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--corpus") == 0) {
        write_corpus(argv[2]);
        return tn_check_report("test_mon_store_codec --corpus");
    }
    test_records();
    test_matrix();
    test_labels();
    test_keys();
    return tn_check_report("test_mon_store_codec");
}
