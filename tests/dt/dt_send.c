/* Derived datatypes in point-to-point messages (2 processes): vector,
 * struct, subarray, darray, indexed family, resized; sent with one type and
 * received with another (contiguous or the same derived type), blocking and
 * nonblocking, small (eager) and 1 MiB (rendezvous); checked against a
 * packing done by hand.  Also MPI_PACKED data received as the original type
 * and Get_count on a derived type. */
#include "dttest.h"

#define TAG 7

typedef struct {
    int    a;
    double b;
    char   c[3];
} rec_t;

static MPI_Datatype rec_type(void)
{
    MPI_Datatype t, r;
    int bl[3] = { 1, 1, 3 };
    MPI_Aint d[3] = { offsetof(rec_t, a), offsetof(rec_t, b), offsetof(rec_t, c) };
    MPI_Datatype ty[3] = { MPI_INT, MPI_DOUBLE, MPI_CHAR };

    CALL(MPI_Type_create_struct(3, bl, d, ty, &t));
    CALL(MPI_Type_create_resized(t, 0, sizeof(rec_t), &r));
    CALL(MPI_Type_free(&t));
    CALL(MPI_Type_commit(&r));
    return r;
}

/* every other double of n blocks */
static void test_vector(int peer, int nblk)
{
    MPI_Datatype v;
    int count = 2, n = count * nblk;
    double *src = malloc(sizeof(double) * 2 * n), *got = malloc(sizeof(double) * n);
    double *back = malloc(sizeof(double) * 2 * n);
    MPI_Status st;
    int cnt;

    CALL(MPI_Type_vector(nblk, 1, 2, MPI_DOUBLE, &v));
    /* extent (2 nblk - 1) doubles: two elements interleave back to back
     * only through a resize */
    MPI_Datatype vr;
    CALL(MPI_Type_create_resized(v, 0, (MPI_Aint)sizeof(double) * 2 * nblk, &vr));
    CALL(MPI_Type_commit(&vr));
    for (int i = 0; i < 2 * n; i++) {
        src[i] = i + 0.5;
        back[i] = -1;
    }
    if (dt_rank == 0) {
        CALL(MPI_Send(src, count, vr, peer, TAG, MPI_COMM_WORLD));
        CALL(MPI_Send(src, count, vr, peer, TAG, MPI_COMM_WORLD));
    } else {
        CALL(MPI_Recv(got, n, MPI_DOUBLE, peer, TAG, MPI_COMM_WORLD, &st));
        int bad = 0;
        for (int i = 0; i < n; i++) {
            bad += got[i] != 2 * i + 0.5;
        }
        CHECK(bad == 0, "vector of %d: %d doubles wrong", nblk, bad);
        CALL(MPI_Recv(back, count, vr, peer, TAG, MPI_COMM_WORLD, &st));
        CALL(MPI_Get_count(&st, vr, &cnt));
        CHECK(cnt == count, "Get_count %d", cnt);
        bad = 0;
        for (int i = 0; i < 2 * n; i++) {
            bad += back[i] != (i % 2 == 0 ? i + 0.5 : -1);
        }
        CHECK(bad == 0, "vector into vector of %d: %d wrong (holes written?)", nblk, bad);
    }
    CALL(MPI_Type_free(&v));
    CALL(MPI_Type_free(&vr));
    free(src);
    free(got);
    free(back);
}

static void test_struct(int peer)
{
    MPI_Datatype r = rec_type();
    rec_t s[5], g[5];
    MPI_Request req;

    memset(s, 0x5a, sizeof(s));
    memset(g, 0x77, sizeof(g));
    for (int i = 0; i < 5; i++) {
        s[i].a = i * 3;
        s[i].b = i / 4.0;
        s[i].c[0] = 'a' + (char)i;
        s[i].c[1] = 'b';
        s[i].c[2] = 'c';
    }
    if (dt_rank == 0) {
        CALL(MPI_Isend(s, 5, r, peer, TAG, MPI_COMM_WORLD, &req));
        CALL(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
        CALL(MPI_Irecv(g, 5, r, peer, TAG, MPI_COMM_WORLD, &req));
        CALL(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int i = 0; i < 5; i++) {
            CHECK(g[i].a == i * 3 && g[i].b == i / 4.0 && g[i].c[0] == 'a' + i &&
                  g[i].c[2] == 'c', "struct element %d", i);
        }
        /* the padding between a and b was not written */
        unsigned char pad[sizeof(double)];
        memcpy(pad, (char *)&g[1] + sizeof(int), offsetof(rec_t, b) - sizeof(int));
        CHECK(pad[0] == 0x77, "struct padding written");
    }
    CALL(MPI_Type_free(&r));
}

static void test_subarray(int peer)
{
    MPI_Datatype sub;
    int sizes[2] = { 6, 8 }, subs[2] = { 3, 4 }, starts[2] = { 2, 3 };
    int a[48], got[12];

    CALL(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &sub));
    CALL(MPI_Type_commit(&sub));
    for (int i = 0; i < 48; i++) {
        a[i] = 1000 + i;
    }
    if (dt_rank == 0) {
        CALL(MPI_Send(a, 1, sub, peer, TAG, MPI_COMM_WORLD));
    } else {
        CALL(MPI_Recv(got, 12, MPI_INT, peer, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        int k = 0, bad = 0;
        for (int r = 2; r < 5; r++) {
            for (int c = 3; c < 7; c++) {
                bad += got[k++] != 1000 + r * 8 + c;
            }
        }
        CHECK(bad == 0, "subarray: %d wrong", bad);
    }
    MPI_Aint lb, ext;
    CALL(MPI_Type_get_extent(sub, &lb, &ext));
    CHECK(lb == 0 && ext == 48 * (MPI_Aint)sizeof(int), "subarray extent %ld", (long)ext);
    CALL(MPI_Type_free(&sub));
}

/* darray: 6 x 5 global array of ints, rows BLOCK over 2 processes, columns
 * not distributed; each rank sends its part of a global array to the other,
 * which receives it contiguous.  Fortran order too. */
static void test_darray(int peer)
{
    int g[2] = { 6, 5 }, dist[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE };
    int darg[2] = { MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG }, ps[2] = { 2, 1 };
    int a[30], got[15];
    MPI_Datatype d;

    for (int i = 0; i < 30; i++) {
        a[i] = i;
    }
    CALL(MPI_Type_create_darray(2, dt_rank, 2, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &d));
    CALL(MPI_Type_commit(&d));
    CALL(MPI_Sendrecv(a, 1, d, peer, TAG, got, 15, MPI_INT, peer, TAG, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE));
    int bad = 0;
    for (int k = 0; k < 15; k++) {
        bad += got[k] != peer * 15 + k;     /* rows 3*peer .. 3*peer+2, whole */
    }
    CHECK(bad == 0, "darray C: %d wrong", bad);
    CALL(MPI_Type_free(&d));

    /* Fortran order, cyclic rows: rank r owns rows r, r+2, r+4 of each column,
     * column-major memory: element (i, j) at i + 6 j */
    dist[0] = MPI_DISTRIBUTE_CYCLIC;
    CALL(MPI_Type_create_darray(2, dt_rank, 2, g, dist, darg, ps, MPI_ORDER_FORTRAN, MPI_INT,
                                &d));
    CALL(MPI_Type_commit(&d));
    CALL(MPI_Sendrecv(a, 1, d, peer, TAG, got, 15, MPI_INT, peer, TAG, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE));
    bad = 0;
    for (int j = 0, k = 0; j < 5; j++) {
        for (int i = peer; i < 6; i += 2) {
            bad += got[k++] != i + 6 * j;
        }
    }
    CHECK(bad == 0, "darray Fortran cyclic: %d wrong", bad);
    CALL(MPI_Type_free(&d));
}

static void test_indexed(int peer)
{
    int bl[3] = { 2, 1, 3 }, dis[3] = { 5, 0, 9 };
    MPI_Aint hdis[3] = { 20, 0, 36 };
    int blk_dis[3] = { 7, 1, 4 };
    MPI_Datatype t[3];
    int a[16], got[6];
    static const int want[3][6] = { { 5, 6, 0, 9, 10, 11 }, { 5, 6, 0, 9, 10, 11 },
                                    { 7, 8, 1, 2, 4, 5 } };

    CALL(MPI_Type_indexed(3, bl, dis, MPI_INT, &t[0]));
    CALL(MPI_Type_create_hindexed(3, bl, hdis, MPI_INT, &t[1]));
    CALL(MPI_Type_create_indexed_block(3, 2, blk_dis, MPI_INT, &t[2]));
    for (int i = 0; i < 16; i++) {
        a[i] = i;
    }
    for (int k = 0; k < 3; k++) {
        CALL(MPI_Type_commit(&t[k]));
        if (dt_rank == 0) {
            CALL(MPI_Send(a, 1, t[k], peer, TAG, MPI_COMM_WORLD));
        } else {
            memset(got, 0xff, sizeof(got));
            CALL(MPI_Recv(got, 6, MPI_INT, peer, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(memcmp(got, want[k], sizeof(got)) == 0, "indexed kind %d: %d %d %d %d %d %d", k,
                  got[0], got[1], got[2], got[3], got[4], got[5]);
        }
        CALL(MPI_Type_free(&t[k]));
    }
}

/* MPI_Pack on one side, the derived type on the other (both directions) */
static void test_packed(int peer)
{
    MPI_Datatype r = rec_type();
    rec_t s[3], g[3];
    char buf[256];
    int pos = 0, size;

    memset(g, 0, sizeof(g));
    for (int i = 0; i < 3; i++) {
        s[i].a = 10 + i;
        s[i].b = 1.25 * i;
        memcpy(s[i].c, "xyz", 3);
    }
    CALL(MPI_Pack_size(3, r, MPI_COMM_WORLD, &size));
    CHECK(size == 3 * (4 + 8 + 3), "Pack_size %d", size);
    if (dt_rank == 0) {
        CALL(MPI_Pack(s, 3, r, buf, sizeof(buf), &pos, MPI_COMM_WORLD));
        CALL(MPI_Send(buf, pos, MPI_PACKED, peer, TAG, MPI_COMM_WORLD));
        CALL(MPI_Send(s, 3, r, peer, TAG, MPI_COMM_WORLD));
    } else {
        CALL(MPI_Recv(g, 3, r, peer, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < 3; i++) {
            CHECK(g[i].a == 10 + i && g[i].b == 1.25 * i && g[i].c[1] == 'y',
                  "packed -> struct %d", i);
        }
        CALL(MPI_Recv(buf, sizeof(buf), MPI_PACKED, peer, TAG, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE));
        memset(g, 0, sizeof(g));
        CALL(MPI_Unpack(buf, sizeof(buf), &pos, g, 3, r, MPI_COMM_WORLD));
        CHECK(pos == size, "unpack position %d", pos);
        for (int i = 0; i < 3; i++) {
            CHECK(g[i].a == 10 + i && g[i].b == 1.25 * i && g[i].c[2] == 'z',
                  "struct -> packed %d", i);
        }
    }
    CALL(MPI_Type_free(&r));
}

int main(int argc, char **argv)
{
    dt_init(&argc, &argv);
    if (dt_size != 2) {
        if (dt_rank == 0) {
            fprintf(stderr, "FAIL: needs 2 processes\n");
        }
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int peer = 1 - dt_rank;
    test_vector(peer, 3);
    test_vector(peer, 65536);          /* 1 MiB of data: the large-message path */
    test_struct(peer);
    test_subarray(peer);
    test_darray(peer);
    test_indexed(peer);
    test_packed(peer);
    return dt_finish();
}
