/* Known traffic for the monitor's end-to-end tests (e2e.py, alerts.py):
 * rank i sends (i + 1) * 1000 bytes to rank i + 1 (mod n); with a second
 * argument S, the ranks then pass 64 KiB around the ring for S seconds
 * (traffic for the udp rails to lose); then every rank but 0 waits in
 * MPI_Barrier while rank 0 waits outside MPI for the file argv[1] to
 * exist, so the test can look at a running job whose matrix it knows. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2 || size < 2) {
        fprintf(stderr, "usage: monitor_traffic GO_FILE (2 ranks or more)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = calloc((size_t)size * 1000, 1);
    MPI_Request rq;
    int from = (rank + size - 1) % size, to = (rank + 1) % size;
    MPI_Irecv(buf, (from + 1) * 1000, MPI_CHAR, from, 7, MPI_COMM_WORLD, &rq);
    MPI_Send(buf, (rank + 1) * 1000, MPI_CHAR, to, 7, MPI_COMM_WORLD);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    double seconds = argc > 2 ? atof(argv[2]) : 0.0;
    if (seconds > 0) {
        char *big = calloc(65536, 1);
        double end = MPI_Wtime() + seconds;
        int more = 1;
        while (more) {
            MPI_Sendrecv_replace(big, 65536, MPI_CHAR, to, 8, from, 8, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE);
            more = MPI_Wtime() < end;
            MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);   /* all stop together */
        }
        free(big);
    }
    if (rank == 0) {
        /* outside MPI until the test says go (at most 60 s) */
        for (int i = 0; i < 6000 && access(argv[1], F_OK) != 0; i++) {
            struct timespec ts = { 0, 10000000 };
            nanosleep(&ts, NULL);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(buf);
    MPI_Finalize();
    return 0;
}
