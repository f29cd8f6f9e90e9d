/* Started by any launcher (tern-run, Hydra) or none (singleton): checks
 * rank/size against what the launcher promised (expected size in argv[1]),
 * exchanges messages around a ring over shared memory and self, and
 * reduces.  Prints " No Errors" from rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, errs = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int expect = argc > 1 ? atoi(argv[1]) : size;
    if (size != expect) {
        fprintf(stderr, "rank %d: size %d, expected %d\n", rank, size, expect);
        errs++;
    }
    /* ring of 1 MiB messages (rendezvous) and 8-byte ones (eager) */
    int n = 1 << 18;
    int *out = malloc(sizeof(int) * (size_t)n), *in = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) {
        out[i] = rank * 1000003 + i;
    }
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Sendrecv(out, n, MPI_INT, right, 1, in, n, MPI_INT, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++) {
        if (in[i] != left * 1000003 + i) {
            fprintf(stderr, "rank %d: ring data wrong at %d\n", rank, i);
            errs++;
            break;
        }
    }
    long long mine = rank + 1, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (sum != (long long)size * (size + 1) / 2) {
        fprintf(stderr, "rank %d: allreduce gave %lld\n", rank, sum);
        errs++;
    }
    int total = 0;
    MPI_Reduce(&errs, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && total == 0) {
        printf(" No Errors\n");
    }
    free(out);
    free(in);
    MPI_Finalize();
    return total != 0;
}
