/* A rank dies: after a few exchanges, rank 1 starts a large nonblocking
 * send to rank 0 and kills itself with SIGKILL, while rank 0 is receiving
 * that message and then blocks in MPI_Recv from rank 1 for a message that
 * will never come; further ranks wait in a barrier.  The job must end (not
 * hang), with a non-zero exit code, and stderr must report rank 1 and
 * SIGKILL (checked by the runner). */
#include "mtest.h"
#include <signal.h>

#define BIG (16 << 20)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char *buf = malloc(BIG);
    memset(buf, 1, BIG);
    for (int i = 0; i < 10; i++)
        MPI_Sendrecv_replace(buf, 1000, MPI_BYTE, (rank + 1) % size, 0,
                             (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Request r;
        MPI_Isend(buf, BIG, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &r);
        mt_sleep_ms(20);
        raise(SIGKILL);
    } else if (rank == 0) {
        MPI_Recv(buf, BIG, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(buf, 1, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    fprintf(stderr, "FAIL: rank %d returned from a call that cannot complete\n", rank);
    MPI_Finalize();
    return 0;
}
