/* A rail stops working in the middle of a job: ranks 0 and 1 (on two
 * nodes joined by two rails) exchange large messages, striped over both
 * rails; after the first rounds rank 0 runs the command in
 * TN_RAIL_DOWN_CMD (e.g. "ip link set eth1 down" inside its namespace),
 * and the exchange goes on.  Every byte of every message is checked, and
 * the job must end normally: traffic continues on the remaining rail. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 40
#define DOWN_AT 10
#define BYTES (1 << 20)

static int failures;

static unsigned char pattern(int round, int from, size_t i)
{
    return (unsigned char)(i * 131u + (size_t)round * 7u + (size_t)from * 29u);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            printf("FAIL rail_fail needs 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    const char *cmd = getenv("TN_RAIL_DOWN_CMD");
    unsigned char *sbuf = malloc(BYTES), *rbuf = malloc(BYTES);
    if (sbuf == NULL || rbuf == NULL) {
        printf("FAIL out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int peer = 1 - rank;
    for (int round = 0; round < ROUNDS; round++) {
        if (round == DOWN_AT && rank == 0 && cmd != NULL) {
            int rc = system(cmd);
            if (rc != 0) {
                printf("FAIL '%s' exited with %d\n", cmd, rc);
                failures++;
            }
        }
        for (size_t i = 0; i < BYTES; i++)
            sbuf[i] = pattern(round, rank, i);
        memset(rbuf, 0, BYTES);
        MPI_Sendrecv(sbuf, BYTES, MPI_BYTE, peer, round, rbuf, BYTES, MPI_BYTE, peer, round,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (size_t i = 0; i < BYTES; i++) {
            if (rbuf[i] != pattern(round, peer, i)) {
                printf("FAIL rank %d round %d: byte %zu is %u, expected %u\n", rank, round, i,
                       rbuf[i], pattern(round, peer, i));
                failures++;
                break;
            }
        }
    }
    int total = 0;
    MPI_Reduce(&failures, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf(" No Errors\n");
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return total != 0;
}
