/* Persistent requests: Send_init, Bsend_init, Ssend_init, Rsend_init,
 * Recv_init with Start/Startall, restarted many times with new buffer
 * contents each time; Wait/Test on an inactive persistent request (empty
 * status); Request_free of inactive requests; PROC_NULL persistent requests;
 * synchronous semantics of a started Ssend_init.  Ranks 0 and 1 work. */
#include "mtest.h"

#define ROUNDS 12
static const int sizes[] = { 4, 1000, 1 << 20 };
#define NSIZES 3

static int peer;

static void basic_restart(void)
{
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s];
        unsigned char *buf = mt_malloc((size_t)n);
        MPI_Request r;
        if (mt_rank == 0)
            MT_CALL(MPI_Send_init(buf, n, MPI_BYTE, peer, 10 + s, MPI_COMM_WORLD, &r));
        else
            MT_CALL(MPI_Recv_init(buf, n, MPI_BYTE, peer, 10 + s, MPI_COMM_WORLD, &r));
        MT_CHECK(r != MPI_REQUEST_NULL, "persistent init gave REQUEST_NULL");

        /* Inactive: Wait and Test return at once with an empty status. */
        MPI_Status st;
        mt_poison_status(&st);
        MT_CALL(MPI_Wait(&r, &st));
        MT_CHECK(r != MPI_REQUEST_NULL, "Wait freed an inactive persistent request");
        MT_CHECK_EMPTY_STATUS(st, "Wait on inactive persistent request");
        int flag = 0;
        mt_poison_status(&st);
        MT_CALL(MPI_Test(&r, &flag, &st));
        MT_CHECK(flag, "Test on inactive persistent request: flag 0");
        MT_CHECK_EMPTY_STATUS(st, "Test on inactive persistent request");

        for (int round = 0; round < ROUNDS; round++) {
            unsigned seed = (unsigned)(1000 * s + round);
            if (mt_rank == 0)
                mt_fill(buf, (size_t)n, seed);
            else
                memset(buf, 0, (size_t)n);
            MT_CALL(MPI_Start(&r));
            MT_CALL(MPI_Wait(&r, &st));
            MT_CHECK(r != MPI_REQUEST_NULL, "Wait freed a persistent request");
            if (mt_rank == 1) {
                int cnt;
                MPI_Get_count(&st, MPI_BYTE, &cnt);
                MT_CHECK(cnt == n && st.MPI_SOURCE == 0 && st.MPI_TAG == 10 + s,
                         "round %d size %d: count %d source %d tag %d", round, n, cnt,
                         st.MPI_SOURCE, st.MPI_TAG);
                MT_CHECK_PATTERN(buf, (size_t)n, seed, "persistent Send/Recv");
            }
        }
        MT_CALL(MPI_Request_free(&r));
        MT_CHECK(r == MPI_REQUEST_NULL, "Request_free did not set MPI_REQUEST_NULL");
        free(buf);
    }
}

/* Every send mode as a persistent request, exchanged with Startall. */
static void modes_startall(void)
{
    enum { N = 300 };
    int bsize = 2 * (N * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    void *bbuf = mt_malloc((size_t)bsize);
    MT_CALL(MPI_Buffer_attach(bbuf, bsize));
    int sb[4][N], rb[4][N];
    MPI_Request sreq[4], rreq[4];
    /* tag = mode; both directions at once (each rank sends all four modes) */
    MT_CALL(MPI_Send_init(sb[0], N, MPI_INT, peer, 0, MPI_COMM_WORLD, &sreq[0]));
    MT_CALL(MPI_Bsend_init(sb[1], N, MPI_INT, peer, 1, MPI_COMM_WORLD, &sreq[1]));
    MT_CALL(MPI_Ssend_init(sb[2], N, MPI_INT, peer, 2, MPI_COMM_WORLD, &sreq[2]));
    MT_CALL(MPI_Rsend_init(sb[3], N, MPI_INT, peer, 3, MPI_COMM_WORLD, &sreq[3]));
    for (int m = 0; m < 4; m++)
        MT_CALL(MPI_Recv_init(rb[m], N, MPI_INT, peer, m, MPI_COMM_WORLD, &rreq[m]));

    for (int round = 0; round < ROUNDS; round++) {
        for (int m = 0; m < 4; m++)
            for (int i = 0; i < N; i++) {
                sb[m][i] = mt_rank * 1000000 + round * 10000 + m * 1000 + i;
                rb[m][i] = -1;
            }
        MT_CALL(MPI_Startall(4, rreq));
        /* Ready mode needs the peer's receive posted: exchange a token. */
        MT_CALL(MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, 50, NULL, 0, MPI_BYTE, peer, 50,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MT_CALL(MPI_Startall(4, sreq));
        MPI_Status st[4];
        MT_CALL(MPI_Waitall(4, rreq, st));
        MT_CALL(MPI_Waitall(4, sreq, MPI_STATUSES_IGNORE));
        for (int m = 0; m < 4; m++) {
            int cnt;
            MPI_Get_count(&st[m], MPI_INT, &cnt);
            MT_CHECK(cnt == N && st[m].MPI_TAG == m && st[m].MPI_SOURCE == peer,
                     "mode %d round %d: count %d tag %d", m, round, cnt, st[m].MPI_TAG);
            for (int i = 0; i < N; i++)
                if (rb[m][i] != peer * 1000000 + round * 10000 + m * 1000 + i) {
                    MT_CHECK(0, "mode %d round %d: element %d = %d", m, round, i, rb[m][i]);
                    break;
                }
        }
    }
    for (int m = 0; m < 4; m++) {
        MT_CALL(MPI_Request_free(&sreq[m]));
        MT_CALL(MPI_Request_free(&rreq[m]));
    }
    void *addr;
    int sz;
    MT_CALL(MPI_Buffer_detach(&addr, &sz));
    MT_CHECK(addr == bbuf && sz == bsize, "Buffer_detach gave %p/%d", addr, sz);
    free(bbuf);
}

/* A started Ssend_init does not complete before the receive is posted. */
static void ssend_sync(void)
{
    int v = 0;
    MPI_Request r;
    if (mt_rank == 0) {
        MT_CALL(MPI_Ssend_init(&v, 1, MPI_INT, 1, 70, MPI_COMM_WORLD, &r));
        for (int round = 0; round < 3; round++) {
            v = round;
            MT_CALL(MPI_Start(&r));
            int flag = 0;
            for (int k = 0; k < 10 && !flag; k++) {
                MT_CALL(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
                mt_sleep_ms(2);
            }
            MT_CHECK(!flag, "started Ssend_init completed before the receive (round %d)", round);
            MT_CALL(MPI_Send(NULL, 0, MPI_BYTE, 1, 71, MPI_COMM_WORLD));
            if (!flag)
                MT_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
        MT_CALL(MPI_Request_free(&r));
    } else if (mt_rank == 1) {
        for (int round = 0; round < 3; round++) {
            MT_CALL(MPI_Recv(NULL, 0, MPI_BYTE, 0, 71, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MT_CALL(MPI_Recv(&v, 1, MPI_INT, 0, 70, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MT_CHECK(v == round, "Ssend_init round %d delivered %d", round, v);
        }
    }
}

static void proc_null_persistent(void)
{
    int buf[3] = { 1, 2, 3 };
    MPI_Request r[2];
    MPI_Status st[2];
    MT_CALL(MPI_Send_init(buf, 3, MPI_INT, MPI_PROC_NULL, 4, MPI_COMM_WORLD, &r[0]));
    MT_CALL(MPI_Recv_init(buf, 3, MPI_INT, MPI_PROC_NULL, 4, MPI_COMM_WORLD, &r[1]));
    for (int round = 0; round < 3; round++) {
        mt_poison_status(&st[1]);
        MT_CALL(MPI_Startall(2, r));
        MT_CALL(MPI_Waitall(2, r, st));
        MT_CHECK_PROCNULL_STATUS(st[1], "persistent receive from PROC_NULL");
    }
    MT_CHECK(buf[0] == 1 && buf[2] == 3, "PROC_NULL persistent receive wrote the buffer");
    MT_CALL(MPI_Request_free(&r[0]));
    MT_CALL(MPI_Request_free(&r[1]));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    if (mt_size < 2)
        MT_DIE("needs at least 2 ranks");
    peer = mt_rank == 0 ? 1 : 0;
    if (mt_rank <= 1) {
        basic_restart();
        modes_startall();
        ssend_sync();
    }
    proc_null_persistent();
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    return mt_finalize();
}
