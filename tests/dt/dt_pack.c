/* MPI_Pack / MPI_Unpack / MPI_Pack_size and the external32 forms (1
 * process): round trips of predefined and derived types through one buffer
 * with a running position, exact packed sizes, external32 bytes checked one
 * by one (big-endian, standard sizes: an int 1 is 00 00 00 01, a long is 4
 * bytes, a double 1.0 is 3f f0 00 .. 00, a long double is a binary128),
 * and the large-count _c forms. */
#include "dttest.h"

static void test_native(void)
{
    MPI_Datatype v;
    double d[10], dback[10];
    int i3[3] = { 7, -8, 9 }, iback[3] = { 0, 0, 0 };
    char buf[512];
    int pos = 0, size, n;

    CALL(MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &v));    /* d[0..1], d[4..5], d[8..9] */
    CALL(MPI_Type_commit(&v));
    for (int i = 0; i < 10; i++) {
        d[i] = i * 1.5;
        dback[i] = -1;
    }
    CALL(MPI_Pack_size(1, v, MPI_COMM_WORLD, &size));
    CHECK(size == 48, "Pack_size of vector %d", size);
    CALL(MPI_Pack_size(3, MPI_INT, MPI_COMM_WORLD, &size));
    CHECK(size == 12, "Pack_size of 3 ints %d", size);

    CALL(MPI_Pack(i3, 3, MPI_INT, buf, sizeof(buf), &pos, MPI_COMM_WORLD));
    CHECK(pos == 12, "position after ints %d", pos);
    CALL(MPI_Pack(d, 1, v, buf, sizeof(buf), &pos, MPI_COMM_WORLD));
    CHECK(pos == 60, "position after vector %d", pos);
    double packed[6];
    memcpy(packed, buf + 12, sizeof(packed));
    CHECK(packed[0] == 0 && packed[1] == 1.5 && packed[2] == 6 && packed[5] == 13.5,
          "packed vector %g %g %g %g", packed[0], packed[1], packed[2], packed[5]);

    n = pos;
    pos = 0;
    CALL(MPI_Unpack(buf, n, &pos, iback, 3, MPI_INT, MPI_COMM_WORLD));
    CALL(MPI_Unpack(buf, n, &pos, dback, 1, v, MPI_COMM_WORLD));
    CHECK(pos == 60, "unpack position %d", pos);
    CHECK(iback[0] == 7 && iback[1] == -8 && iback[2] == 9, "ints back");
    for (int i = 0; i < 10; i++) {
        int in = i % 4 < 2;
        CHECK(dback[i] == (in ? d[i] : -1), "vector back [%d] = %g", i, dback[i]);
    }

    /* large-count forms */
    MPI_Count cpos = 0, csize;
    CALL(MPI_Pack_size_c(2, v, MPI_COMM_WORLD, &csize));
    CHECK(csize == 96, "Pack_size_c %lld", (long long)csize);
    double two[20];
    for (int i = 0; i < 20; i++) {
        two[i] = i;
    }
    /* extent of v is 10 doubles: element 2 starts at two[10] */
    CALL(MPI_Pack_c(two, 2, v, buf, sizeof(buf), &cpos, MPI_COMM_WORLD));
    CHECK(cpos == 96, "Pack_c position %lld", (long long)cpos);
    memcpy(packed, buf + 48, sizeof(packed));
    CHECK(packed[0] == 10 && packed[1] == 11 && packed[2] == 14, "second element packed");
    MPI_Count upos = 0;
    double two_back[20] = { 0 };
    CALL(MPI_Unpack_c(buf, cpos, &upos, two_back, 2, v, MPI_COMM_WORLD));
    CHECK(upos == 96 && two_back[19] == 19 && two_back[18] == 18 && two_back[17] == 0,
          "Unpack_c");
    CALL(MPI_Type_free(&v));
}

static void expect_bytes(const unsigned char *got, const unsigned char *want, int n,
                         const char *what)
{
    int bad = memcmp(got, want, (size_t)n) != 0;

    CHECK(!bad, "%s: external32 bytes differ", what);
    if (bad) {
        fprintf(stderr, "  got ");
        for (int i = 0; i < n; i++) {
            fprintf(stderr, "%02x ", got[i]);
        }
        fprintf(stderr, "\n");
    }
}

static void test_external(void)
{
    unsigned char buf[256];
    MPI_Aint pos = 0, size;

    /* int 1 -> 00 00 00 01 */
    {
        int one = 1, back = 0;
        static const unsigned char want[4] = { 0, 0, 0, 1 };
        CALL(MPI_Pack_external_size("external32", 1, MPI_INT, &size));
        CHECK(size == 4, "ext size int %ld", (long)size);
        CALL(MPI_Pack_external("external32", &one, 1, MPI_INT, buf, sizeof(buf), &pos));
        CHECK(pos == 4, "position %ld", (long)pos);
        expect_bytes(buf, want, 4, "int 1");
        pos = 0;
        CALL(MPI_Unpack_external("external32", buf, 4, &pos, &back, 1, MPI_INT));
        CHECK(back == 1 && pos == 4, "int back %d", back);
    }
    /* long: 4 bytes, sign kept */
    {
        long l[2] = { 258, -3 }, back[2] = { 0, 0 };
        static const unsigned char want[8] = { 0, 0, 1, 2, 0xff, 0xff, 0xff, 0xfd };
        pos = 0;
        CALL(MPI_Pack_external_size("external32", 2, MPI_LONG, &size));
        CHECK(size == 8, "ext size of 2 longs %ld", (long)size);
        CALL(MPI_Pack_external("external32", l, 2, MPI_LONG, buf, sizeof(buf), &pos));
        expect_bytes(buf, want, 8, "long");
        pos = 0;
        CALL(MPI_Unpack_external("external32", buf, 8, &pos, back, 2, MPI_LONG));
        CHECK(back[0] == 258 && back[1] == -3, "longs back %ld %ld", back[0], back[1]);
    }
    /* double 1.0, float -2.0, short 0x1234, wchar 'A', long double 1.0 */
    {
        double d = 1.0;
        float f = -2.0f;
        short s = 0x1234;
        wchar_t w = L'A';
        long double ld = 1.0L;
        static const unsigned char wd[8] = { 0x3f, 0xf0, 0, 0, 0, 0, 0, 0 };
        static const unsigned char wf[4] = { 0xc0, 0, 0, 0 };
        static const unsigned char ws[2] = { 0x12, 0x34 };
        static const unsigned char ww[2] = { 0, 0x41 };
        static const unsigned char wld[16] = { 0x3f, 0xff };
        pos = 0;
        CALL(MPI_Pack_external("external32", &d, 1, MPI_DOUBLE, buf, sizeof(buf), &pos));
        CALL(MPI_Pack_external("external32", &f, 1, MPI_FLOAT, buf, sizeof(buf), &pos));
        CALL(MPI_Pack_external("external32", &s, 1, MPI_SHORT, buf, sizeof(buf), &pos));
        CALL(MPI_Pack_external("external32", &w, 1, MPI_WCHAR, buf, sizeof(buf), &pos));
        CALL(MPI_Pack_external("external32", &ld, 1, MPI_LONG_DOUBLE, buf, sizeof(buf), &pos));
        CHECK(pos == 8 + 4 + 2 + 2 + 16, "mixed position %ld", (long)pos);
        expect_bytes(buf, wd, 8, "double 1.0");
        expect_bytes(buf + 8, wf, 4, "float -2.0");
        expect_bytes(buf + 12, ws, 2, "short");
        expect_bytes(buf + 14, ww, 2, "wchar");
        expect_bytes(buf + 16, wld, 16, "long double 1.0");
        double d2 = 0;
        float f2 = 0;
        short s2 = 0;
        wchar_t w2 = 0;
        long double ld2 = 0;
        MPI_Aint p2 = 0;
        CALL(MPI_Unpack_external("external32", buf, pos, &p2, &d2, 1, MPI_DOUBLE));
        CALL(MPI_Unpack_external("external32", buf, pos, &p2, &f2, 1, MPI_FLOAT));
        CALL(MPI_Unpack_external("external32", buf, pos, &p2, &s2, 1, MPI_SHORT));
        CALL(MPI_Unpack_external("external32", buf, pos, &p2, &w2, 1, MPI_WCHAR));
        CALL(MPI_Unpack_external("external32", buf, pos, &p2, &ld2, 1, MPI_LONG_DOUBLE));
        CHECK(d2 == d && f2 == f && s2 == s && w2 == w && ld2 == ld && p2 == pos,
              "mixed round trip");
    }
    /* a derived type: vector of 2 blocks of {short, int} structs */
    {
        struct si { short s; int i; } v[4] = { { 1, 2 }, { -1, -2 }, { 3, 4 }, { 5, 6 } }, b[4];
        MPI_Datatype st, sr, vec;
        int bl[2] = { 1, 1 };
        MPI_Aint ds[2] = { offsetof(struct si, s), offsetof(struct si, i) };
        MPI_Datatype ty[2] = { MPI_SHORT, MPI_INT };
        static const unsigned char want[12] = { 0, 1, 0, 0, 0, 2, 0, 3, 0, 0, 0, 4 };
        CALL(MPI_Type_create_struct(2, bl, ds, ty, &st));
        CALL(MPI_Type_create_resized(st, 0, sizeof(struct si), &sr));
        CALL(MPI_Type_vector(2, 1, 2, sr, &vec));        /* v[0] and v[2] */
        CALL(MPI_Type_commit(&vec));
        CALL(MPI_Pack_external_size("external32", 1, vec, &size));
        CHECK(size == 12, "derived ext size %ld", (long)size);
        pos = 0;
        CALL(MPI_Pack_external("external32", v, 1, vec, buf, sizeof(buf), &pos));
        expect_bytes(buf, want, 12, "vector of struct");
        memset(b, 0, sizeof(b));
        pos = 0;
        CALL(MPI_Unpack_external("external32", buf, 12, &pos, b, 1, vec));
        CHECK(b[0].s == 1 && b[0].i == 2 && b[2].s == 3 && b[2].i == 4 && b[1].s == 0,
              "vector of struct back");
        /* _c forms */
        MPI_Count cs, cp = 0;
        CALL(MPI_Pack_external_size_c("external32", 2, MPI_DOUBLE_INT, &cs));
        CHECK(cs == 24, "ext size of 2 DOUBLE_INT %lld", (long long)cs);
        CALL(MPI_Pack_external_c("external32", v, 1, vec, buf, sizeof(buf), &cp));
        CHECK(cp == 12, "Pack_external_c position");
        cp = 0;
        memset(b, 0, sizeof(b));
        CALL(MPI_Unpack_external_c("external32", buf, 12, &cp, b, 1, vec));
        CHECK(b[2].i == 4 && cp == 12, "Unpack_external_c");
        CALL(MPI_Type_free(&st));
        CALL(MPI_Type_free(&sr));
        CALL(MPI_Type_free(&vec));
    }
}

int main(int argc, char **argv)
{
    dt_init(&argc, &argv);
    test_native();
    test_external();
    return dt_finish();
}
