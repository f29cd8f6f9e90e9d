/* Records that do not fit the recorder's fast path (check_nested.py): a
 * call made from inside another (a user reduction that asks for its rank),
 * a communicator first named inside a call, and a wait whose record is
 * larger than the whole trace buffer.  Two ranks. */
#include <mpi.h>
#include <stdio.h>

#define NMSG 300

static void sum_and_ask(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int r;
    (void)dt;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);      /* a nested record */
    for (int i = 0; i < *len; i++) {
        ((int *)inout)[i] += ((int *)in)[i];
    }
}

int main(int argc, char **argv)
{
    int rank, v, sum = 0;
    static int buf[NMSG];
    MPI_Request reqs[NMSG];
    MPI_Op op;
    MPI_Comm dup;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    v = rank + 1;
    MPI_Op_create(sum_and_ask, 1, &op);
    MPI_Allreduce(&v, &sum, 1, MPI_INT, op, MPI_COMM_WORLD);
    MPI_Op_free(&op);

    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (int i = 0; i < NMSG; i++) {
        buf[i] = rank == 0 ? i : -1;
        if (rank == 0) {
            MPI_Isend(&buf[i], 1, MPI_INT, 1, i, dup, &reqs[i]);
        } else {
            MPI_Irecv(&buf[i], 1, MPI_INT, 0, i, dup, &reqs[i]);
        }
    }
    MPI_Waitall(NMSG, reqs, MPI_STATUSES_IGNORE);
    int bad = 0;
    for (int i = 0; i < NMSG; i++) {
        bad += buf[i] != i;
    }
    MPI_Comm_free(&dup);
    if (rank == 0) {
        printf("trace_nested: sum %d bad %d done\n", sum, bad);
    }
    MPI_Finalize();
    return sum == 3 && bad == 0 ? 0 : 1;
}
