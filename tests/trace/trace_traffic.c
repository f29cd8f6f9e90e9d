/* Known traffic for the trace test (check_trace.py): every call here is
 * one the checker expects to find in the ranks' traces, with these sizes,
 * tags and peers.  Needs exactly 3 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3) {
        fprintf(stderr, "trace_traffic needs 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char buf[4096];
    memset(buf, rank, sizeof(buf));
    MPI_Status st;
    MPI_Request req[4];

    /* point to point, 0 -> 1: blocking, nonblocking, synchronous */
    if (rank == 0) {
        MPI_Send(buf, 100, MPI_CHAR, 1, 7, MPI_COMM_WORLD);
        MPI_Isend(buf, 250, MPI_INT, 1, 8, MPI_COMM_WORLD, &req[0]);
        MPI_Wait(&req[0], &st);
        MPI_Ssend(buf, 10, MPI_CHAR, 1, 9, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(buf, 200, MPI_CHAR, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st);
        MPI_Irecv(buf, 1000, MPI_INT, 0, 8, MPI_COMM_WORLD, &req[0]);
        MPI_Wait(&req[0], &st);
        MPI_Recv(buf, 64, MPI_CHAR, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    }

    /* a ring with Waitall */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Irecv(buf + 2048, 33, MPI_CHAR, left, 11, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(buf, 33, MPI_CHAR, right, 11, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    MPI_Sendrecv(buf, 5, MPI_DOUBLE, right, 12, buf + 2048, 5, MPI_DOUBLE, left, 12,
                 MPI_COMM_WORLD, &st);

    /* collectives */
    int v[16], w[16];
    for (int i = 0; i < 16; i++) {
        v[i] = rank + i;
    }
    MPI_Allreduce(v, w, 16, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(buf, 64, MPI_CHAR, 2, MPI_COMM_WORLD);
    MPI_Reduce(v, w, 4, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    int sc[3], sd[3], rc[3], rd[3];
    for (int p = 0; p < 3; p++) {
        sc[p] = rank + p + 1;       /* to p: rank + p + 1 ints */
        sd[p] = 64 * p;
        rc[p] = p + rank + 1;       /* from p: p + rank + 1 ints */
        rd[p] = 64 * p;
    }
    MPI_Alltoallv(v, sc, sd, MPI_INT, w, rc, rd, MPI_INT, MPI_COMM_WORLD);
    MPI_Ibarrier(MPI_COMM_WORLD, &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);

    /* a new communicator, used */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Barrier(half);
    MPI_Comm_free(&half);

    /* a user error, reported through MPI_ERRORS_RETURN: the record says so */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (MPI_Send(buf, 1, MPI_CHAR, 99, 0, MPI_COMM_WORLD) == MPI_SUCCESS) {
        fprintf(stderr, "a send to rank 99 succeeded\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Finalize();
    if (rank == 0) {
        printf("trace_traffic: done\n");
    }
    return 0;
}
