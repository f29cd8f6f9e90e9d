/* Messages to one's own rank, on MPI_COMM_WORLD and MPI_COMM_SELF:
 * Isend/Irecv in both orders (small and 1 MiB), Sendrecv and
 * Sendrecv_replace with self, Bsend to self, Probe of a self message,
 * Issend to self not completing before the receive is posted, wildcard
 * receives of self messages, ordering of several self messages.
 * Works with any number of ranks, including a singleton without launcher. */
#include "mtest.h"

#define BIG (1 << 20)

static void isend_irecv(MPI_Comm comm, int me, int n, int recv_first, unsigned seed)
{
    unsigned char *s = mt_malloc((size_t)n), *r = mt_malloc((size_t)n);
    mt_fill(s, (size_t)n, seed);
    memset(r, 0, (size_t)n);
    MPI_Request rq[2];
    MPI_Status st[2];
    if (recv_first) {
        MT_CALL(MPI_Irecv(r, n, MPI_BYTE, me, 1, comm, &rq[0]));
        MT_CALL(MPI_Isend(s, n, MPI_BYTE, me, 1, comm, &rq[1]));
    } else {
        MT_CALL(MPI_Isend(s, n, MPI_BYTE, me, 1, comm, &rq[1]));
        MT_CALL(MPI_Irecv(r, n, MPI_BYTE, me, 1, comm, &rq[0]));
    }
    MT_CALL(MPI_Waitall(2, rq, st));
    int cnt;
    MPI_Get_count(&st[0], MPI_BYTE, &cnt);
    MT_CHECK(cnt == n && st[0].MPI_SOURCE == me && st[0].MPI_TAG == 1,
             "self %d bytes (recv_first %d): count %d source %d tag %d", n, recv_first, cnt,
             st[0].MPI_SOURCE, st[0].MPI_TAG);
    MT_CHECK_PATTERN(r, (size_t)n, seed, "self message");
    free(s);
    free(r);
}

static void on_comm(MPI_Comm comm)
{
    int me;
    MPI_Comm_rank(comm, &me);
    int sizes[] = { 0, 1, 100, 16384, 65537, BIG };
    unsigned seed = 1;
    for (int i = 0; i < 6; i++)
        for (int rf = 0; rf < 2; rf++)
            isend_irecv(comm, me, sizes[i], rf, seed++);

    /* Isend then blocking Recv then Wait. */
    int a[10], b[10];
    for (int i = 0; i < 10; i++)
        a[i] = i * i;
    MPI_Request r;
    MT_CALL(MPI_Isend(a, 10, MPI_INT, me, 2, comm, &r));
    MPI_Status st;
    MT_CALL(MPI_Probe(me, 2, comm, &st));
    int cnt;
    MPI_Get_count(&st, MPI_INT, &cnt);
    MT_CHECK(cnt == 10 && st.MPI_SOURCE == me, "Probe of self message: count %d source %d", cnt,
             st.MPI_SOURCE);
    MT_CALL(MPI_Recv(b, 10, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
    MT_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MT_CHECK(b[9] == 81 && st.MPI_SOURCE == me && st.MPI_TAG == 2,
             "wildcard self receive: %d source %d tag %d", b[9], st.MPI_SOURCE, st.MPI_TAG);

    /* Sendrecv with self (the classic self exchange). */
    unsigned char *s = mt_malloc(BIG), *rb = mt_malloc(BIG);
    mt_fill(s, BIG, 77);
    MT_CALL(MPI_Sendrecv(s, BIG, MPI_BYTE, me, 3, rb, BIG, MPI_BYTE, me, 3, comm, &st));
    MT_CHECK_PATTERN(rb, BIG, 77, "Sendrecv with self");
    MT_CALL(MPI_Sendrecv_replace(s, BIG, MPI_BYTE, me, 4, me, 4, comm, &st));
    MT_CHECK_PATTERN(s, BIG, 77, "Sendrecv_replace with self");
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    MT_CHECK(cnt == BIG && st.MPI_TAG == 4, "Sendrecv_replace with self: count %d", cnt);

    /* Bsend to self, received later. */
    int bsz = 2 * (1000 + MPI_BSEND_OVERHEAD);
    void *bb = mt_malloc((size_t)bsz);
    MT_CALL(MPI_Buffer_attach(bb, bsz));
    mt_fill(s, 1000, 78);
    MT_CALL(MPI_Bsend(s, 1000, MPI_BYTE, me, 5, comm));
    mt_fill(s, 1000, 79);
    MT_CALL(MPI_Bsend(s, 1000, MPI_BYTE, me, 5, comm));
    memset(s, 0, 1000);
    MT_CALL(MPI_Recv(rb, 1000, MPI_BYTE, me, 5, comm, MPI_STATUS_IGNORE));
    MT_CHECK_PATTERN(rb, 1000, 78, "first Bsend to self");
    MT_CALL(MPI_Recv(rb, 1000, MPI_BYTE, me, 5, comm, MPI_STATUS_IGNORE));
    MT_CHECK_PATTERN(rb, 1000, 79, "second Bsend to self");
    void *addr;
    int sz;
    MT_CALL(MPI_Buffer_detach(&addr, &sz));
    free(bb);

    /* Issend to self: incomplete until the receive is posted. */
    int flag = 1, v = 5, w = 0;
    MT_CALL(MPI_Issend(&v, 1, MPI_INT, me, 6, comm, &r));
    for (int k = 0; k < 5; k++)
        MT_CALL(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    MT_CHECK(!flag, "Issend to self completed before the receive was posted");
    MT_CALL(MPI_Recv(&w, 1, MPI_INT, me, 6, comm, MPI_STATUS_IGNORE));
    if (!flag)
        MT_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MT_CHECK(w == 5, "Issend to self delivered %d", w);

    /* Order of several self messages with one tag, mixed sizes. */
    enum { N = 10 };
    MPI_Request rs[N];
    unsigned char *bufs[N];
    for (int i = 0; i < N; i++) {
        int n = (i % 3 == 1) ? 200000 : 10 + i;
        bufs[i] = mt_malloc((size_t)n);
        mt_fill(bufs[i], (size_t)n, 900u + (unsigned)i);
        MT_CALL(MPI_Isend(bufs[i], n, MPI_BYTE, me, 7, comm, &rs[i]));
    }
    for (int i = 0; i < N; i++) {
        int n = (i % 3 == 1) ? 200000 : 10 + i;
        MT_CALL(MPI_Recv(rb, BIG, MPI_BYTE, me, 7, comm, &st));
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        MT_CHECK(cnt == n, "self message %d: %d bytes, expected %d", i, cnt, n);
        if (cnt == n)
            MT_CHECK_PATTERN(rb, (size_t)n, 900u + (unsigned)i, "ordered self message");
    }
    MT_CALL(MPI_Waitall(N, rs, MPI_STATUSES_IGNORE));
    for (int i = 0; i < N; i++)
        free(bufs[i]);
    free(s);
    free(rb);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int sz = -1, rk = -1;
    MPI_Comm_size(MPI_COMM_SELF, &sz);
    MPI_Comm_rank(MPI_COMM_SELF, &rk);
    MT_CHECK(sz == 1 && rk == 0, "MPI_COMM_SELF size %d rank %d", sz, rk);
    on_comm(MPI_COMM_WORLD);
    on_comm(MPI_COMM_SELF);
    return mt_finalize();
}
