/* Known traffic for the monitor's end-to-end tests (e2e.py, alerts.py,
 * netns_e2e.py):  monitor_traffic GO [K [MIDDLE]]
 * rank i sends (i + 1) * 1000 bytes to rank i + 1 (mod n); with K, the
 * ranks then pass 64 KiB around the ring K times, 10 ms apart (traffic for
 * the udp rails to lose), and with MIDDLE wait for that file and do it K
 * times again; then every rank but 0 waits in MPI_Barrier while rank 0
 * waits outside MPI for the file GO, so the test can look at a running job
 * whose matrix it knows. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Rank 0 waits until path exists (at most 120 s), the others in
 * MPI_Barrier meanwhile.  Rank 0 looks in with MPI_Iprobe between naps, so
 * that its peers' packets are acknowledged: a rank that never enters MPI
 * makes them retransmit, which the monitor rightly reports. */
static void wait_file(int rank, const char *path)
{
    if (rank == 0) {
        for (int i = 0; i < 12000 && access(path, F_OK) != 0; i++) {
            int flag;
            MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            struct timespec ts = { 0, 10000000 };
            nanosleep(&ts, NULL);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

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
    /* argv[2] = K: K rounds of 64 KiB around the ring, 10 ms apart, then
     * a pause until the file argv[3] exists, then K more rounds */
    int rounds = argc > 2 ? atoi(argv[2]) : 0;
    for (int phase = 0; rounds > 0 && phase < 2; phase++) {
        char *big = calloc(65536, 1);
        for (int k = 0; k < rounds; k++) {
            MPI_Sendrecv_replace(big, 65536, MPI_CHAR, to, 8, from, 8, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE);
            struct timespec ts = { 0, 10000000 };
            nanosleep(&ts, NULL);
        }
        free(big);
        if (phase == 0 && argc > 3) {
            wait_file(rank, argv[3]);
        } else if (phase == 0) {
            break;
        }
    }
    wait_file(rank, argv[1]);
    free(buf);
    MPI_Finalize();
    return 0;
}
