// A C++ MPI program for the build-system tests (tests/launch/glue_test.py):
// sums the ranks and prints " No Errors" from rank 0 when the sum is right.
#include <mpi.h>
#include <cstdio>

int main(int argc, char **argv)
{
    int rank = -1, size = -1, sum = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    bool ok = sum == size * (size - 1) / 2;
    if (!ok) {
        std::fprintf(stderr, "rank %d: FAIL sum of ranks %d, size %d\n", rank, sum, size);
    }
    int bad = ok ? 0 : 1, nbad = 1;
    MPI_Reduce(&bad, &nbad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && nbad == 0) {
        std::printf(" No Errors\n");
    }
    MPI_Finalize();
    return ok ? 0 : 1;
}
