/* A traced job of persistent and nonblocking operations (check_otf2.py):
 * on 3 ranks, rank 0 sends rank 1 three 64-byte messages through one
 * persistent send (MPI_Send_init, MPI_Start x 3) into one persistent
 * receive; then an MPI_Iallreduce of 16 ints, two starts of a persistent
 * MPI_Allreduce_init of 8 ints, and an MPI_Ibcast of 100 bytes from
 * rank 1, every request completed by MPI_Wait; the persistent requests
 * are freed. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, v[16], w[16];
    char buf[128];
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(buf, rank, sizeof(buf));
    for (int i = 0; i < 16; i++) {
        v[i] = rank + i;
    }
    if (rank == 0) {
        MPI_Send_init(buf, 64, MPI_CHAR, 1, 5, MPI_COMM_WORLD, &req);
    } else if (rank == 1) {
        MPI_Recv_init(buf, 64, MPI_CHAR, 0, 5, MPI_COMM_WORLD, &req);
    }
    for (int k = 0; k < 3 && rank < 2; k++) {
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    if (rank < 2) {
        MPI_Request_free(&req);
    }
    MPI_Iallreduce(v, w, 16, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Allreduce_init(v, w, 8, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    for (int k = 0; k < 2; k++) {
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&req);
    MPI_Ibcast(buf, 100, MPI_CHAR, 1, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    if (rank == 0) {
        printf("trace_persist: done\n");
    }
    return 0;
}
