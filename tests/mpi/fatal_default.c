/* Default error handler MPI_ERRORS_ARE_FATAL: rank 0 makes one erroneous
 * call (MPI_Send to a rank that does not exist) while rank 1 waits in
 * MPI_Recv.  The job must end with a non-zero exit code and the error
 * report on stderr must name the function (MPI_Send); the runner checks
 * both (expect_rc=nonzero, expect_stderr=MPI_Send).  If the call returns,
 * the program says so and exits 0, which makes the test fail. */
#include "mtest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, x = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        MPI_Send(&x, 1, MPI_INT, 99 + size, 0, MPI_COMM_WORLD);
        fprintf(stderr, "FAIL: MPI_Send to an invalid rank returned under MPI_ERRORS_ARE_FATAL\n");
        for (int r = 1; r < size; r++)
            MPI_Send(&x, 1, MPI_INT, r, 1, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
