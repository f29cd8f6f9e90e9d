/* A 64 MiB message checked byte for byte (the pattern depends on the byte
 * index), rank 0 -> 1 with Send/Recv, then 1 -> 0 with Isend/Irecv, then
 * both ways at once with Sendrecv, and finally as 16 Mi MPI_INTs. */
#include "mtest.h"

#define HUGE_BYTES (64u << 20)

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    if (mt_size < 2)
        MT_DIE("needs at least 2 ranks");
    size_t n = HUGE_BYTES;
    if (mt_rank <= 1) {
        int peer = 1 - mt_rank;
        unsigned char *s = mt_malloc(n), *r = mt_malloc(n);
        MPI_Status st;
        int cnt;

        /* 0 -> 1 blocking */
        if (mt_rank == 0) {
            mt_fill(s, n, 11);
            MT_CALL(MPI_Send(s, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD));
        } else {
            memset(r, 0, n);
            MT_CALL(MPI_Recv(r, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st));
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            MT_CHECK(cnt == (int)n, "count %d", cnt);
            MT_CHECK_PATTERN(r, n, 11, "64 MiB Send/Recv");
        }

        /* 1 -> 0 nonblocking */
        MPI_Request rq;
        if (mt_rank == 1) {
            mt_fill(s, n, 12);
            MT_CALL(MPI_Isend(s, (int)n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &rq));
            MT_CALL(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        } else {
            memset(r, 0, n);
            MT_CALL(MPI_Irecv(r, (int)n, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &rq));
            MT_CALL(MPI_Wait(&rq, &st));
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            MT_CHECK(cnt == (int)n, "count %d", cnt);
            MT_CHECK_PATTERN(r, n, 12, "64 MiB Isend/Irecv");
        }

        /* both directions at once */
        mt_fill(s, n, 20u + (unsigned)mt_rank);
        memset(r, 0, n);
        MT_CALL(MPI_Sendrecv(s, (int)n, MPI_BYTE, peer, 3, r, (int)n, MPI_BYTE, peer, 3,
                             MPI_COMM_WORLD, &st));
        MT_CHECK_PATTERN(r, n, 20u + (unsigned)peer, "64 MiB Sendrecv");

        /* as ints */
        int *si = (int *)s, *ri = (int *)r;
        int ni = (int)(n / sizeof(int));
        for (int i = 0; i < ni; i++)
            si[i] = i ^ (mt_rank << 28);
        memset(r, 0, n);
        MT_CALL(MPI_Sendrecv(si, ni, MPI_INT, peer, 4, ri, ni, MPI_INT, peer, 4, MPI_COMM_WORLD,
                             &st));
        MPI_Get_count(&st, MPI_INT, &cnt);
        MT_CHECK(cnt == ni, "int count %d", cnt);
        for (int i = 0; i < ni; i++)
            if (ri[i] != (i ^ (peer << 28))) {
                MT_CHECK(0, "int %d is %d", i, ri[i]);
                break;
            }
        free(s);
        free(r);
    }
    return mt_finalize();
}
