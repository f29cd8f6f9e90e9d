/* Start-up benchmark's program (bench/startup.py): MPI_Init, a barrier so
 * that every rank is known to be past MPI_Init, rank 0 prints the wall
 * clock at that moment (CLOCK_REALTIME, ns), MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

int main(int argc, char **argv)
{
    struct timespec ts;
    int             rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        clock_gettime(CLOCK_REALTIME, &ts);
        printf("inited %lld\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
    }
    MPI_Finalize();
    return 0;
}
