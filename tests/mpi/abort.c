/* MPI_Abort: rank 1 calls MPI_Abort(MPI_COMM_WORLD, 7) while the other
 * ranks block in MPI_Recv (rank 0) and MPI_Barrier (others).  The whole
 * job must end with exit code 7 and stderr must mention rank 1 and
 * MPI_Abort (checked by the runner). */
#include "mtest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* make sure everybody is up and connected first */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        mt_sleep_ms(100); /* let the others block */
        MPI_Abort(MPI_COMM_WORLD, 7);
        fprintf(stderr, "FAIL: MPI_Abort returned\n");
        return 0;
    }
    if (rank == 0)
        MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        MPI_Barrier(MPI_COMM_WORLD);
    fprintf(stderr, "FAIL: rank %d got past a call that could only end by the abort\n", rank);
    MPI_Finalize();
    return 0;
}
