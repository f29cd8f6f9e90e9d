/* Basic point-to-point: Send/Recv, status fields, Get_count/Get_elements,
 * MPI_ANY_SOURCE/MPI_ANY_TAG, MPI_PROC_NULL, Sendrecv, Sendrecv_replace,
 * zero-length messages, receive buffer larger than the message.
 * Needs at least 2 ranks; works with any number. */
#include "mtest.h"

static void pairs(void)
{
    /* Pair r with r^1; an odd last rank sits this part out. */
    int peer = mt_rank ^ 1;
    if (peer >= mt_size)
        return;
    int a[100], b[120];
    MPI_Status st;
    int cnt;

    for (int i = 0; i < 100; i++)
        a[i] = mt_rank * 1000 + i;
    for (int i = 0; i < 120; i++)
        b[i] = -1;
    if (mt_rank < peer) {
        MT_CALL(MPI_Send(a, 100, MPI_INT, peer, 17, MPI_COMM_WORLD));
        MT_CALL(MPI_Recv(b, 120, MPI_INT, peer, 18, MPI_COMM_WORLD, &st));
    } else {
        MT_CALL(MPI_Recv(b, 120, MPI_INT, peer, 17, MPI_COMM_WORLD, &st));
        MT_CALL(MPI_Send(a, 100, MPI_INT, peer, 18, MPI_COMM_WORLD));
    }
    int want_tag = mt_rank < peer ? 18 : 17;
    MT_CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == want_tag, "status source %d tag %d",
             st.MPI_SOURCE, st.MPI_TAG);
    MT_CALL(MPI_Get_count(&st, MPI_INT, &cnt));
    MT_CHECK(cnt == 100, "Get_count(INT) = %d", cnt);
    MT_CALL(MPI_Get_elements(&st, MPI_INT, &cnt));
    MT_CHECK(cnt == 100, "Get_elements(INT) = %d", cnt);
    MT_CALL(MPI_Get_count(&st, MPI_BYTE, &cnt));
    MT_CHECK(cnt == 100 * (int)sizeof(int), "Get_count(BYTE) = %d", cnt);
    MT_CALL(MPI_Get_count(&st, MPI_DOUBLE, &cnt));
    MT_CHECK(cnt == 100 * (int)sizeof(int) / (int)sizeof(double), "Get_count(DOUBLE) = %d", cnt);
    for (int i = 0; i < 100; i++)
        if (b[i] != peer * 1000 + i) {
            MT_CHECK(b[i] == peer * 1000 + i, "b[%d] = %d", i, b[i]);
            break;
        }
    for (int i = 100; i < 120; i++)
        MT_CHECK(b[i] == -1, "receive wrote beyond the message: b[%d] = %d", i, b[i]);

    /* 10 bytes: not a whole number of ints -> MPI_UNDEFINED. */
    char c10[10], r10[16];
    memset(c10, 7, sizeof c10);
    if (mt_rank < peer) {
        MT_CALL(MPI_Send(c10, 10, MPI_BYTE, peer, 19, MPI_COMM_WORLD));
    } else {
        MT_CALL(MPI_Recv(r10, 16, MPI_BYTE, peer, 19, MPI_COMM_WORLD, &st));
        MT_CALL(MPI_Get_count(&st, MPI_BYTE, &cnt));
        MT_CHECK(cnt == 10, "Get_count(BYTE) = %d", cnt);
        MT_CALL(MPI_Get_count(&st, MPI_INT, &cnt));
        MT_CHECK(cnt == MPI_UNDEFINED, "Get_count(INT) of 10 bytes = %d", cnt);
        MT_CALL(MPI_Get_count(&st, MPI_SHORT, &cnt));
        MT_CHECK(cnt == 5, "Get_count(SHORT) of 10 bytes = %d", cnt);
    }

    /* Zero-length messages, with NULL buffers and with real ones. */
    if (mt_rank < peer) {
        MT_CALL(MPI_Send(NULL, 0, MPI_INT, peer, 20, MPI_COMM_WORLD));
        MT_CALL(MPI_Send(a, 0, MPI_DOUBLE, peer, 21, MPI_COMM_WORLD));
    } else {
        b[0] = 4242;
        mt_poison_status(&st);
        MT_CALL(MPI_Recv(NULL, 0, MPI_INT, peer, 20, MPI_COMM_WORLD, &st));
        MT_CALL(MPI_Get_count(&st, MPI_INT, &cnt));
        MT_CHECK(cnt == 0 && st.MPI_SOURCE == peer && st.MPI_TAG == 20,
                 "zero message: count %d source %d tag %d", cnt, st.MPI_SOURCE, st.MPI_TAG);
        MT_CALL(MPI_Recv(b, 10, MPI_DOUBLE, peer, 21, MPI_COMM_WORLD, &st));
        MT_CALL(MPI_Get_count(&st, MPI_DOUBLE, &cnt));
        MT_CHECK(cnt == 0 && st.MPI_TAG == 21, "zero message 2: count %d tag %d", cnt,
                 st.MPI_TAG);
        MT_CALL(MPI_Get_elements(&st, MPI_DOUBLE, &cnt));
        MT_CHECK(cnt == 0, "Get_elements of empty message = %d", cnt);
        MT_CHECK(b[0] == 4242, "zero-length receive modified the buffer");
    }

    /* Tag MPI_TAG_UB is a valid tag. */
    int *ub, flag;
    MT_CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
    if (flag) {
        int v = 99, w = 0;
        MT_CALL(MPI_Sendrecv(&v, 1, MPI_INT, peer, *ub, &w, 1, MPI_INT, peer, *ub,
                             MPI_COMM_WORLD, &st));
        MT_CHECK(w == 99 && st.MPI_TAG == *ub, "message with tag TAG_UB: value %d tag %d", w,
                 st.MPI_TAG);
    }
}

static void wildcards(void)
{
    /* Every rank > 0 sends (rank+1) ints with tag 100+rank to rank 0, which
     * receives them with ANY_SOURCE/ANY_TAG and sorts them out by status. */
    if (mt_rank == 0) {
        int seen[64] = { 0 };
        int buf[70];
        for (int n = 1; n < mt_size; n++) {
            MPI_Status st;
            int cnt = -1;
            MT_CALL(MPI_Recv(buf, 70, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            int src = st.MPI_SOURCE;
            MPI_Get_count(&st, MPI_INT, &cnt);
            MT_CHECK(src > 0 && src < mt_size, "ANY_SOURCE gave source %d", src);
            if (src <= 0 || src >= mt_size || src >= 64)
                continue;
            MT_CHECK(!seen[src], "source %d twice", src);
            seen[src] = 1;
            MT_CHECK(st.MPI_TAG == 100 + src, "tag %d from %d", st.MPI_TAG, src);
            MT_CHECK(cnt == src + 1, "count %d from %d", cnt, src);
            for (int i = 0; i < cnt && i < 70; i++)
                MT_CHECK(buf[i] == src * 7 + i, "value %d from %d", buf[i], src);
        }
    } else {
        int buf[70];
        for (int i = 0; i < 70; i++)
            buf[i] = mt_rank * 7 + i;
        MT_CALL(MPI_Send(buf, mt_rank + 1 > 70 ? 70 : mt_rank + 1, MPI_INT, 0, 100 + mt_rank,
                         MPI_COMM_WORLD));
    }

    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));

    /* ANY_TAG from a specific source, ANY_SOURCE with a specific tag. */
    if (mt_rank == 1) {
        int v = 5;
        MT_CALL(MPI_Send(&v, 1, MPI_INT, 0, 31, MPI_COMM_WORLD));
        v = 6;
        MT_CALL(MPI_Send(&v, 1, MPI_INT, 0, 32, MPI_COMM_WORLD));
    } else if (mt_rank == 0) {
        int v = 0;
        MPI_Status st;
        MT_CALL(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 32, MPI_COMM_WORLD, &st));
        MT_CHECK(v == 6 && st.MPI_SOURCE == 1 && st.MPI_TAG == 32, "tag-32 receive: %d %d %d",
                 v, st.MPI_SOURCE, st.MPI_TAG);
        MT_CALL(MPI_Recv(&v, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        MT_CHECK(v == 5 && st.MPI_SOURCE == 1 && st.MPI_TAG == 31, "ANY_TAG receive: %d %d %d",
                 v, st.MPI_SOURCE, st.MPI_TAG);
    }
}

static void proc_null(void)
{
    int buf[4] = { 11, 12, 13, 14 };
    MPI_Status st;
    MPI_Request req;

    MT_CALL(MPI_Send(buf, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD));
    MT_CALL(MPI_Ssend(buf, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD));
    mt_poison_status(&st);
    MT_CALL(MPI_Recv(buf, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st));
    MT_CHECK_PROCNULL_STATUS(st, "Recv from PROC_NULL");
    MT_CHECK(buf[0] == 11 && buf[3] == 14, "Recv from PROC_NULL changed the buffer");

    mt_poison_status(&st);
    MT_CALL(MPI_Irecv(buf, 4, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &req));
    MT_CALL(MPI_Wait(&req, &st));
    MT_CHECK(req == MPI_REQUEST_NULL, "request not freed");
    MT_CHECK_PROCNULL_STATUS(st, "Irecv from PROC_NULL");

    MT_CALL(MPI_Isend(buf, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &req));
    int flag = 0;
    MT_CALL(MPI_Test(&req, &flag, &st));
    MT_CHECK(flag, "Isend to PROC_NULL not complete at first Test");
    if (!flag)
        MT_CALL(MPI_Wait(&req, &st));

    mt_poison_status(&st);
    MT_CALL(MPI_Sendrecv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, buf, 4, MPI_INT, MPI_PROC_NULL, 1,
                         MPI_COMM_WORLD, &st));
    MT_CHECK_PROCNULL_STATUS(st, "Sendrecv with PROC_NULL");
    mt_poison_status(&st);
    MT_CALL(MPI_Sendrecv_replace(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_PROC_NULL, 1,
                                 MPI_COMM_WORLD, &st));
    MT_CHECK_PROCNULL_STATUS(st, "Sendrecv_replace with PROC_NULL");
    MT_CHECK(buf[0] == 11 && buf[3] == 14, "PROC_NULL Sendrecv_replace changed the buffer");

    /* Half PROC_NULL: a chain 0 -> 1 -> ... -> n-1 with PROC_NULL at the ends. */
    int up = mt_rank + 1 < mt_size ? mt_rank + 1 : MPI_PROC_NULL;
    int down = mt_rank > 0 ? mt_rank - 1 : MPI_PROC_NULL;
    int out = mt_rank * 3, in = -77;
    mt_poison_status(&st);
    MT_CALL(MPI_Sendrecv(&out, 1, MPI_INT, up, 9, &in, 1, MPI_INT, down, 9, MPI_COMM_WORLD, &st));
    if (down == MPI_PROC_NULL) {
        MT_CHECK(in == -77, "chain: receive from PROC_NULL wrote %d", in);
        MT_CHECK_PROCNULL_STATUS(st, "chain start");
    } else {
        MT_CHECK(in == down * 3 && st.MPI_SOURCE == down && st.MPI_TAG == 9,
                 "chain: got %d from %d tag %d", in, st.MPI_SOURCE, st.MPI_TAG);
    }
}

static void sendrecv(void)
{
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    MPI_Status st;
    int cnt;

    /* Ring shift with Sendrecv, different send and receive counts/tags. */
    double out[8], in[16];
    for (int i = 0; i < 8; i++)
        out[i] = mt_rank + i * 0.5;
    MT_CALL(MPI_Sendrecv(out, 8, MPI_DOUBLE, right, 40 + mt_rank, in, 16, MPI_DOUBLE, left,
                         40 + left, MPI_COMM_WORLD, &st));
    MPI_Get_count(&st, MPI_DOUBLE, &cnt);
    MT_CHECK(cnt == 8 && st.MPI_SOURCE == left && st.MPI_TAG == 40 + left,
             "Sendrecv status: count %d source %d tag %d", cnt, st.MPI_SOURCE, st.MPI_TAG);
    for (int i = 0; i < 8; i++)
        MT_CHECK(in[i] == left + i * 0.5, "Sendrecv in[%d] = %g", i, in[i]);

    /* Sendrecv with wildcards on the receive side. */
    MT_CALL(MPI_Sendrecv(out, 3, MPI_DOUBLE, right, 7, in, 16, MPI_DOUBLE, MPI_ANY_SOURCE,
                         MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    MPI_Get_count(&st, MPI_DOUBLE, &cnt);
    MT_CHECK(cnt == 3 && st.MPI_SOURCE == left && st.MPI_TAG == 7,
             "wildcard Sendrecv: count %d source %d tag %d", cnt, st.MPI_SOURCE, st.MPI_TAG);

    /* Sendrecv_replace, small and large (rendezvous-sized) in a ring. */
    int sizes[2] = { 10, 300000 };
    for (int s = 0; s < 2; s++) {
        int n = sizes[s];
        int *buf = mt_malloc((size_t)n * sizeof(int));
        for (int i = 0; i < n; i++)
            buf[i] = mt_rank * 7 + i;
        MT_CALL(MPI_Sendrecv_replace(buf, n, MPI_INT, right, 50, left, 50, MPI_COMM_WORLD, &st));
        MPI_Get_count(&st, MPI_INT, &cnt);
        MT_CHECK(cnt == n && st.MPI_SOURCE == left && st.MPI_TAG == 50,
                 "Sendrecv_replace(%d): count %d source %d tag %d", n, cnt, st.MPI_SOURCE,
                 st.MPI_TAG);
        for (int i = 0; i < n; i++)
            if (buf[i] != left * 7 + i) {
                MT_CHECK(buf[i] == left * 7 + i, "Sendrecv_replace(%d): buf[%d] = %d", n, i,
                         buf[i]);
                break;
            }
        free(buf);
    }

    /* Status ignored. */
    int x = mt_rank, y = -1;
    MT_CALL(MPI_Sendrecv(&x, 1, MPI_INT, right, 8, &y, 1, MPI_INT, left, 8, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
    MT_CHECK(y == left, "Sendrecv with STATUS_IGNORE gave %d", y);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    if (mt_size < 2)
        MT_DIE("needs at least 2 ranks");
    pairs();
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    wildcards();
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    proc_null();
    sendrecv();
    return mt_finalize();
}
