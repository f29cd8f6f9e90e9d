/* Large-count ("_c", MPI_Count) variants of point-to-point, datatype and
 * simple collective calls (MPI-4).  Built everywhere; does real work only
 * when mpi.h is MPI >= 4 (Tern: MPI 5.0).  With MTEST_LARGE_COUNT_HUGE=1 it
 * also moves a message of more than INT_MAX bytes (needs ~5 GiB of memory),
 * checking Get_count -> MPI_UNDEFINED and Get_count_c -> the real count. */
#include "mtest.h"
#include <limits.h>

#if MPI_VERSION >= 4

static void p2p(void)
{
    int peer = 1 - mt_rank;
    enum { N = 100000 };
    int *s = mt_malloc(N * sizeof(int)), *r = mt_malloc(N * sizeof(int));
    MPI_Count n = N, cnt = -1;
    MPI_Status st;
    for (int i = 0; i < N; i++)
        s[i] = mt_rank * 1000000 + i;

#define CHECK_R(what)                                                                      \
    do {                                                                                   \
        for (int i_ = 0; i_ < N; i_++)                                                     \
            if (r[i_] != peer * 1000000 + i_) {                                            \
                MT_CHECK(0, "%s: element %d = %d", what, i_, r[i_]);                       \
                break;                                                                     \
            }                                                                              \
        memset(r, 0, N * sizeof(int));                                                     \
    } while (0)

    /* Send_c / Recv_c (ordered by rank) */
    if (mt_rank == 0) {
        MT_CALL(MPI_Send_c(s, n, MPI_INT, peer, 1, MPI_COMM_WORLD));
        MT_CALL(MPI_Recv_c(r, n, MPI_INT, peer, 1, MPI_COMM_WORLD, &st));
    } else {
        MT_CALL(MPI_Recv_c(r, n, MPI_INT, peer, 1, MPI_COMM_WORLD, &st));
        MT_CALL(MPI_Send_c(s, n, MPI_INT, peer, 1, MPI_COMM_WORLD));
    }
    MT_CALL(MPI_Get_count_c(&st, MPI_INT, &cnt));
    MT_CHECK(cnt == N, "Get_count_c = %lld", (long long)cnt);
    MT_CALL(MPI_Get_elements_c(&st, MPI_INT, &cnt));
    MT_CHECK(cnt == N, "Get_elements_c = %lld", (long long)cnt);
    MT_CALL(MPI_Get_count_c(&st, MPI_BYTE, &cnt));
    MT_CHECK(cnt == (MPI_Count)N * (MPI_Count)sizeof(int), "Get_count_c(BYTE) = %lld",
             (long long)cnt);
    int icnt = -1;
    MT_CALL(MPI_Get_count(&st, MPI_INT, &icnt));
    MT_CHECK(icnt == N, "Get_count = %d", icnt);
    CHECK_R("Send_c/Recv_c");

    /* Isend_c / Irecv_c */
    MPI_Request rq[2];
    MT_CALL(MPI_Irecv_c(r, n, MPI_INT, peer, 2, MPI_COMM_WORLD, &rq[0]));
    MT_CALL(MPI_Isend_c(s, n, MPI_INT, peer, 2, MPI_COMM_WORLD, &rq[1]));
    MT_CALL(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    CHECK_R("Isend_c/Irecv_c");

    /* Sendrecv_c, Sendrecv_replace_c */
    MT_CALL(MPI_Sendrecv_c(s, n, MPI_INT, peer, 3, r, n, MPI_INT, peer, 3, MPI_COMM_WORLD, &st));
    MT_CALL(MPI_Get_count_c(&st, MPI_INT, &cnt));
    MT_CHECK(cnt == N, "Sendrecv_c count %lld", (long long)cnt);
    CHECK_R("Sendrecv_c");
    memcpy(r, s, N * sizeof(int));
    MT_CALL(MPI_Sendrecv_replace_c(r, n, MPI_INT, peer, 4, peer, 4, MPI_COMM_WORLD, &st));
    CHECK_R("Sendrecv_replace_c");

    /* Ssend_c / Issend_c / Rsend_c / Irsend_c / Bsend_c / Ibsend_c */
    MPI_Count bsz = 2 * ((MPI_Count)N * (MPI_Count)sizeof(int) + MPI_BSEND_OVERHEAD);
    void *bb = mt_malloc((size_t)bsz);
    MT_CALL(MPI_Buffer_attach_c(bb, bsz));
    for (int mode = 0; mode < 6; mode++) {
        MT_CALL(MPI_Irecv_c(r, n, MPI_INT, peer, 10 + mode, MPI_COMM_WORLD, &rq[0]));
        /* the receive is posted on both sides before anyone sends (Rsend) */
        MT_CALL(MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, 9, NULL, 0, MPI_BYTE, peer, 9,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        rq[1] = MPI_REQUEST_NULL;
        switch (mode) {
        case 0:
            MT_CALL(MPI_Ssend_c(s, n, MPI_INT, peer, 10, MPI_COMM_WORLD));
            break;
        case 1:
            MT_CALL(MPI_Issend_c(s, n, MPI_INT, peer, 11, MPI_COMM_WORLD, &rq[1]));
            break;
        case 2:
            MT_CALL(MPI_Rsend_c(s, n, MPI_INT, peer, 12, MPI_COMM_WORLD));
            break;
        case 3:
            MT_CALL(MPI_Irsend_c(s, n, MPI_INT, peer, 13, MPI_COMM_WORLD, &rq[1]));
            break;
        case 4:
            MT_CALL(MPI_Bsend_c(s, n, MPI_INT, peer, 14, MPI_COMM_WORLD));
            break;
        default:
            MT_CALL(MPI_Ibsend_c(s, n, MPI_INT, peer, 15, MPI_COMM_WORLD, &rq[1]));
            break;
        }
        MT_CALL(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        char what[32];
        snprintf(what, sizeof what, "send mode %d", mode);
        CHECK_R(what);
    }
    void *addr = NULL;
    MPI_Count dsz = -1;
    MT_CALL(MPI_Buffer_detach_c(&addr, &dsz));
    MT_CHECK(addr == bb && dsz == bsz, "Buffer_detach_c gave %p/%lld", addr, (long long)dsz);
    free(bb);

    /* Persistent _c */
    MPI_Request pr[2];
    MT_CALL(MPI_Recv_init_c(r, n, MPI_INT, peer, 20, MPI_COMM_WORLD, &pr[0]));
    MT_CALL(MPI_Send_init_c(s, n, MPI_INT, peer, 20, MPI_COMM_WORLD, &pr[1]));
    for (int k = 0; k < 3; k++) {
        MT_CALL(MPI_Startall(2, pr));
        MT_CALL(MPI_Waitall(2, pr, MPI_STATUSES_IGNORE));
        CHECK_R("Send_init_c/Recv_init_c");
    }
    MT_CALL(MPI_Request_free(&pr[0]));
    MT_CALL(MPI_Request_free(&pr[1]));

    /* Mprobe + Mrecv_c / Imrecv_c */
    MT_CALL(MPI_Isend_c(s, n, MPI_INT, peer, 30, MPI_COMM_WORLD, &rq[1]));
    MPI_Message m;
    MT_CALL(MPI_Mprobe(peer, 30, MPI_COMM_WORLD, &m, &st));
    MT_CALL(MPI_Get_count_c(&st, MPI_INT, &cnt));
    MT_CHECK(cnt == N, "Mprobe count %lld", (long long)cnt);
    MT_CALL(MPI_Mrecv_c(r, n, MPI_INT, &m, &st));
    MT_CALL(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    CHECK_R("Mrecv_c");
    MT_CALL(MPI_Isend_c(s, n, MPI_INT, peer, 31, MPI_COMM_WORLD, &rq[1]));
    MT_CALL(MPI_Mprobe(peer, 31, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE));
    MT_CALL(MPI_Imrecv_c(r, n, MPI_INT, &m, &rq[0]));
    MT_CALL(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    CHECK_R("Imrecv_c");
#undef CHECK_R
    free(s);
    free(r);
}

static void types(void)
{
    MPI_Count sz = -1, lb = -1, ext = -1;
    MT_CALL(MPI_Type_size_c(MPI_DOUBLE, &sz));
    MT_CHECK(sz == (MPI_Count)sizeof(double), "Type_size_c(DOUBLE) = %lld", (long long)sz);
    MT_CALL(MPI_Type_get_extent_c(MPI_DOUBLE_INT, &lb, &ext));
    struct di {
        double d;
        int i;
    };
    MT_CHECK(lb == 0 && ext == (MPI_Count)sizeof(struct di), "Type_get_extent_c(DOUBLE_INT) %lld %lld",
             (long long)lb, (long long)ext);
    MT_CALL(MPI_Type_get_true_extent_c(MPI_DOUBLE_INT, &lb, &ext));
    MT_CHECK(lb == 0 && ext == (MPI_Count)(offsetof(struct di, i) + sizeof(int)),
             "Type_get_true_extent_c(DOUBLE_INT) %lld %lld", (long long)lb, (long long)ext);
}

static void colls(void)
{
    enum { N = 5000 };
    int *a = mt_malloc(N * sizeof(int)), *b = mt_malloc((size_t)N * (size_t)mt_size * sizeof(int));
    MPI_Count n = N;
    for (int i = 0; i < N; i++)
        a[i] = (mt_rank == 0) ? i : -1;
    MT_CALL(MPI_Bcast_c(a, n, MPI_INT, 0, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++)
        if (a[i] != i) {
            MT_CHECK(0, "Bcast_c element %d = %d", i, a[i]);
            break;
        }
    for (int i = 0; i < N; i++)
        a[i] = mt_rank + i;
    MT_CALL(MPI_Allreduce_c(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++)
        if (b[i] != mt_size * (mt_size - 1) / 2 + mt_size * i) {
            MT_CHECK(0, "Allreduce_c element %d = %d", i, b[i]);
            break;
        }
    MT_CALL(MPI_Reduce_c(a, b, n, MPI_INT, MPI_MAX, mt_size - 1, MPI_COMM_WORLD));
    if (mt_rank == mt_size - 1)
        MT_CHECK(b[7] == mt_size - 1 + 7, "Reduce_c MAX = %d", b[7]);
    MT_CALL(MPI_Allgather_c(a, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < mt_size; r++)
        MT_CHECK(b[r * N + 3] == r + 3, "Allgather_c block %d = %d", r, b[r * N + 3]);
    MT_CALL(MPI_Gather_c(a, n, MPI_INT, b, n, MPI_INT, 0, MPI_COMM_WORLD));
    if (mt_rank == 0)
        for (int r = 0; r < mt_size; r++)
            MT_CHECK(b[r * N + 5] == r + 5, "Gather_c block %d = %d", r, b[r * N + 5]);
    int *c = mt_malloc((size_t)mt_size * sizeof(int)), *d = mt_malloc((size_t)mt_size * sizeof(int));
    for (int r = 0; r < mt_size; r++)
        c[r] = mt_rank * 100 + r;
    MT_CALL(MPI_Alltoall_c(c, 1, MPI_INT, d, 1, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < mt_size; r++)
        MT_CHECK(d[r] == r * 100 + mt_rank, "Alltoall_c from %d = %d", r, d[r]);
    free(a);
    free(b);
    free(c);
    free(d);
}

static void huge(void)
{
    if (!mt_env_int("MTEST_LARGE_COUNT_HUGE", 0) || mt_size < 2)
        return;
    MPI_Count n = (MPI_Count)INT_MAX + 9;
    if (mt_rank == 0) {
        unsigned char *s = mt_malloc((size_t)n);
        mt_fill(s, (size_t)n, 5);
        MT_CALL(MPI_Send_c(s, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD));
        free(s);
    } else if (mt_rank == 1) {
        unsigned char *r = mt_malloc((size_t)n);
        MPI_Status st;
        MT_CALL(MPI_Recv_c(r, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st));
        MPI_Count cnt = -1;
        int icnt = 0;
        MT_CALL(MPI_Get_count_c(&st, MPI_BYTE, &cnt));
        MT_CHECK(cnt == n, "huge Get_count_c %lld", (long long)cnt);
        MPI_Get_count(&st, MPI_BYTE, &icnt);
        MT_CHECK(icnt == MPI_UNDEFINED, "huge Get_count (int) = %d, want MPI_UNDEFINED", icnt);
        MT_CHECK_PATTERN(r, (size_t)n, 5, "huge message");
        free(r);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    if (mt_size < 2)
        MT_DIE("needs at least 2 ranks");
    if (mt_rank <= 1)
        p2p();
    types();
    colls();
    huge();
    return mt_finalize();
}

#else /* MPI < 4: nothing to test */

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    if (mt_rank == 0)
        printf("MPI %d.%d has no large-count functions; skipped\n", MPI_VERSION, MPI_SUBVERSION);
    return mt_finalize();
}

#endif
