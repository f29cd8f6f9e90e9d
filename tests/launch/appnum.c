/* MPI_APPNUM on MPI_COMM_WORLD against what the launcher should give this
 * rank: argv[1] is a number, or "none" when the launcher gives no appnum
 * (Slurm's PMI-1 and PMI-2 say -1).  With Hydra's "-n 2 appnum 0 : -n 1
 * appnum 1" each application context expects its own number.  Every rank
 * also checks MPI_UNIVERSE_SIZE >= the world size when it is set.  Prints
 * " No Errors" from rank 0 when every rank saw what it expected. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, flag = 0, errs = 0, total = 0;
    int *val = NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *want = argc > 1 ? argv[1] : "none";
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &val, &flag);
    if (strcmp(want, "none") == 0 ? flag != 0 : (!flag || *val != atoi(want))) {
        fprintf(stderr, "rank %d: MPI_APPNUM %s%d, expected %s\n", rank,
                flag ? "" : "not set, ", flag ? *val : 0, want);
        errs++;
    }
    printf("rank %d: appnum=%s%d\n", rank, flag ? "" : "unset/", flag ? *val : -1);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &val, &flag);
    if (flag && *val < size) {
        fprintf(stderr, "rank %d: MPI_UNIVERSE_SIZE %d < world size %d\n", rank, *val, size);
        errs++;
    }
    MPI_Reduce(&errs, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && total == 0) {
        printf(" No Errors\n");
    }
    MPI_Finalize();
    return total != 0;
}
