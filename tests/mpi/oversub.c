/* Oversubscription: meant for more ranks than cores (8 ranks on 2 cores).
 * Loops of Allreduce, Barrier, pairwise ping-pong and ring Sendrecv with a
 * few thousand iterations in total, all results checked.  A library that
 * only busy-polls without yielding makes this crawl; the runner's timeout
 * catches that.  MTEST_ITERS scales the loops (default 2000).  Rank 0
 * prints the time of each phase. */
#include "mtest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int iters = mt_env_int("MTEST_ITERS", 2000);
    double t0 = MPI_Wtime();

    for (int i = 0; i < iters; i++) {
        int v = mt_rank + i, s = 0;
        MT_CALL(MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        if (s != mt_size * (mt_size - 1) / 2 + mt_size * i) {
            MT_CHECK(0, "allreduce %d gave %d", i, s);
            break;
        }
    }
    double t1 = MPI_Wtime();

    for (int i = 0; i < iters / 2; i++)
        MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    double t2 = MPI_Wtime();

    int peer = mt_rank ^ 1;
    if (peer < mt_size) {
        for (int i = 0; i < 2 * iters; i++) {
            int out = i, in = -1;
            if (mt_rank < peer) {
                MT_CALL(MPI_Send(&out, 1, MPI_INT, peer, 0, MPI_COMM_WORLD));
                MT_CALL(MPI_Recv(&in, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            } else {
                MT_CALL(MPI_Recv(&in, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                MT_CALL(MPI_Send(&out, 1, MPI_INT, peer, 0, MPI_COMM_WORLD));
            }
            if (in != i) {
                MT_CHECK(0, "ping-pong %d got %d", i, in);
                break;
            }
        }
    }
    double t3 = MPI_Wtime();

    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    static double sbuf[8192], rbuf[8192]; /* 64 KiB: beyond eager limits */
    for (int i = 0; i < iters / 2; i++) {
        int n = (i % 4 == 3) ? 8192 : 16;
        sbuf[0] = mt_rank * 1000.0 + i;
        sbuf[n - 1] = -sbuf[0];
        MT_CALL(MPI_Sendrecv(sbuf, n, MPI_DOUBLE, right, 1, rbuf, n, MPI_DOUBLE, left, 1,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (rbuf[0] != left * 1000.0 + i || rbuf[n - 1] != -rbuf[0]) {
            MT_CHECK(0, "ring %d got %g", i, rbuf[0]);
            break;
        }
    }
    double t4 = MPI_Wtime();
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0)
        printf("oversub: %d ranks, allreduce %.2fs, barrier %.2fs, ping-pong %.2fs, ring %.2fs\n",
               mt_size, t1 - t0, t2 - t1, t3 - t2, t4 - t3);
    return mt_finalize();
}
