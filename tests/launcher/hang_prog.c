/* MPI programs that hang on purpose, for the hang-report tests
 * (status_test.py).  Each rank prints "ready <rank> <pid>" once it has done
 * everything before the call it hangs in; the test waits for those lines,
 * then for the report to show the calls (it may see a rank between its
 * "ready" and its call: it polls until the state it expects shows).
 *
 *   hang_prog three    3 ranks: rank 0 waits in MPI_Recv(source 2, tag 7)
 *                      that never comes, rank 1 in MPI_Barrier, rank 2
 *                      sends rank 1 a message (tag 9), then computes forever
 *   hang_prog waitall  2 ranks: rank 0 posts MPI_Irecv(source 1, tag 5,
 *                      1 int, MPI_COMM_WORLD) and MPI_Irecv(MPI_ANY_SOURCE,
 *                      tag 6, 3 doubles, a communicator named "side") and
 *                      waits in MPI_Waitall; rank 1 waits in MPI_Recv on
 *                      "side" (source 0, tag 4)
 *   hang_prog done     every rank finalizes, then rank 0 computes forever */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void ready(int rank)
{
    printf("ready %d %d\n", rank, (int)getpid());
    fflush(stdout);
}

/* Written and never read: the loop's work stays (clang warns about a
 * local that is only set). */
static volatile unsigned long compute_sink;

static void compute_forever(void)
{
    for (;;) {
        for (int i = 0; i < 1000000; i++) {
            compute_sink += (unsigned long)i;
        }
        usleep(1000);       /* "computing", gently: the machine is shared */
    }
}

static int three(int rank)
{
    int v = 0;

    if (rank == 0) {
        ready(rank);
        MPI_Recv(&v, 1, MPI_INT, 2, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        ready(rank);
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        MPI_Send(&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
        ready(rank);
        compute_forever();
    }
    return 1;               /* never reached */
}

static int waitall(int rank)
{
    MPI_Comm    side;
    MPI_Request reqs[2];
    int         v = 0;
    double      d[3];

    MPI_Comm_dup(MPI_COMM_WORLD, &side);
    MPI_Comm_set_name(side, "side");
    if (rank == 0) {
        MPI_Irecv(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(d, 3, MPI_DOUBLE, MPI_ANY_SOURCE, 6, side, &reqs[1]);
        ready(rank);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    } else {
        ready(rank);
        MPI_Recv(&v, 1, MPI_INT, 0, 4, side, MPI_STATUS_IGNORE);
    }
    return 1;
}

int main(int argc, char **argv)
{
    int rank;

    if (argc != 2) {
        fprintf(stderr, "usage: hang_prog three|waitall|done\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (strcmp(argv[1], "three") == 0) {
        return three(rank);
    }
    if (strcmp(argv[1], "waitall") == 0) {
        return waitall(rank);
    }
    if (strcmp(argv[1], "done") == 0) {
        MPI_Finalize();
        ready(rank);
        if (rank == 0) {
            compute_forever();
        }
        return 0;
    }
    fprintf(stderr, "hang_prog: unknown mode %s\n", argv[1]);
    MPI_Abort(MPI_COMM_WORLD, 2);
    return 2;
}
