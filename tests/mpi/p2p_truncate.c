/* Truncation: a message longer than the receive buffer gives an error of
 * class MPI_ERR_TRUNCATE (with MPI_ERRORS_RETURN), for blocking and
 * nonblocking receives, small (eager) and large (rendezvous) messages, and
 * for sends to self.  Nothing beyond the receive buffer is written, the
 * sender completes normally, and communication continues afterwards.
 * With Waitall, the call returns MPI_ERR_IN_STATUS and the per-request
 * MPI_ERROR fields say MPI_SUCCESS / MPI_ERR_TRUNCATE. */
#include "mtest.h"

#define GUARD 64
#define BIG (1 << 20)

static int err_class(int code)
{
    int c = -1;
    MPI_Error_class(code, &c);
    return c;
}

static void check_guard(const unsigned char *buf, int from, const char *what)
{
    for (int i = from; i < from + GUARD; i++)
        if (buf[i] != 0xa5) {
            MT_CHECK(buf[i] == 0xa5, "%s: byte %d beyond the receive buffer was written", what, i);
            return;
        }
}

static void one_case(int n, int cap, int nonblocking, unsigned seed)
{
    unsigned char *buf = mt_malloc((size_t)n + GUARD);
    if (mt_rank == 1) {
        mt_fill(buf, (size_t)n, seed);
        MT_CALL(MPI_Send(buf, n, MPI_BYTE, 0, 7, MPI_COMM_WORLD));
    } else if (mt_rank == 0) {
        char what[64];
        snprintf(what, sizeof what, "%d bytes into %d (%s)", n, cap,
                 nonblocking ? "Irecv" : "Recv");
        memset(buf, 0xa5, (size_t)n + GUARD);
        MPI_Status st;
        int rc;
        if (nonblocking) {
            MPI_Request r;
            MT_CALL(MPI_Irecv(buf, cap, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &r));
            rc = MPI_Wait(&r, &st);
            MT_CHECK(r == MPI_REQUEST_NULL, "%s: request not freed after error", what);
        } else {
            rc = MPI_Recv(buf, cap, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &st);
        }
        MT_CHECK(rc != MPI_SUCCESS && err_class(rc) == MPI_ERR_TRUNCATE,
                 "%s: rc %d class %d, expected MPI_ERR_TRUNCATE", what, rc, err_class(rc));
        check_guard(buf, cap, what);
    }
    free(buf);
    /* communication goes on */
    int x = mt_rank, y = -1;
    if (mt_rank <= 1) {
        int peer = 1 - mt_rank;
        MT_CALL(MPI_Sendrecv(&x, 1, MPI_INT, peer, 8, &y, 1, MPI_INT, peer, 8, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE));
        MT_CHECK(y == peer, "exchange after truncation gave %d", y);
    }
}

static void waitall_case(void)
{
    if (mt_rank == 1) {
        int a[4] = { 1, 2, 3, 4 }, b[40];
        for (int i = 0; i < 40; i++)
            b[i] = i;
        MT_CALL(MPI_Send(a, 4, MPI_INT, 0, 20, MPI_COMM_WORLD));
        MT_CALL(MPI_Send(b, 40, MPI_INT, 0, 21, MPI_COMM_WORLD));
    } else if (mt_rank == 0) {
        int a[4], b[10 + GUARD];
        for (int i = 0; i < 10 + GUARD; i++)
            b[i] = -1;
        MPI_Request r[2];
        MPI_Status st[2];
        MT_CALL(MPI_Irecv(a, 4, MPI_INT, 1, 20, MPI_COMM_WORLD, &r[0]));
        MT_CALL(MPI_Irecv(b, 10, MPI_INT, 1, 21, MPI_COMM_WORLD, &r[1]));
        st[0].MPI_ERROR = st[1].MPI_ERROR = -77;
        int rc = MPI_Waitall(2, r, st);
        MT_CHECK(err_class(rc) == MPI_ERR_IN_STATUS, "Waitall returned class %d, want IN_STATUS",
                 err_class(rc));
        MT_CHECK(st[0].MPI_ERROR == MPI_SUCCESS, "good request: MPI_ERROR %d", st[0].MPI_ERROR);
        MT_CHECK(err_class(st[1].MPI_ERROR) == MPI_ERR_TRUNCATE,
                 "truncated request: MPI_ERROR class %d", err_class(st[1].MPI_ERROR));
        MT_CHECK(a[3] == 4, "good request data %d", a[3]);
        for (int i = 10; i < 10 + GUARD; i++)
            if (b[i] != -1) {
                MT_CHECK(b[i] == -1, "Waitall truncation wrote b[%d]", i);
                break;
            }
    }
}

static void self_case(void)
{
    unsigned char sbuf[100], rbuf[10 + GUARD];
    MPI_Request r;
    mt_fill(sbuf, 100, 3);
    memset(rbuf, 0xa5, sizeof rbuf);
    MT_CALL(MPI_Isend(sbuf, 100, MPI_BYTE, mt_rank, 30, MPI_COMM_WORLD, &r));
    int rc = MPI_Recv(rbuf, 10, MPI_BYTE, mt_rank, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MT_CHECK(err_class(rc) == MPI_ERR_TRUNCATE, "self truncation: class %d", err_class(rc));
    check_guard(rbuf, 10, "self truncation");
    MT_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));

    /* Large self message into a small buffer (on MPI_COMM_SELF). */
    unsigned char *big = mt_malloc(BIG), *small = mt_malloc(1000 + GUARD);
    mt_fill(big, BIG, 4);
    memset(small, 0xa5, 1000 + GUARD);
    MPI_Request rr;
    MT_CALL(MPI_Irecv(small, 1000, MPI_BYTE, 0, 31, MPI_COMM_SELF, &rr));
    MT_CALL(MPI_Isend(big, BIG, MPI_BYTE, 0, 31, MPI_COMM_SELF, &r));
    MPI_Status st;
    rc = MPI_Wait(&rr, &st);
    MT_CHECK(err_class(rc) == MPI_ERR_TRUNCATE, "large self truncation: class %d", err_class(rc));
    check_guard(small, 1000, "large self truncation");
    MT_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
    free(big);
    free(small);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    if (mt_size < 2)
        MT_DIE("needs at least 2 ranks");
    unsigned seed = 1;
    int cases[][2] = { { 1, 0 }, { 100, 10 }, { 400, 399 }, { 70000, 1000 }, { BIG, 16 }, { BIG, BIG - 1 } };
    for (int c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++)
        for (int nb = 0; nb < 2; nb++)
            one_case(cases[c][0], cases[c][1], nb, seed++);
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    waitall_case();
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    self_case();
    return mt_finalize();
}
