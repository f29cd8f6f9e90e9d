/* The victim of the adversarial udp test (tests/net/attack.sh): ranks
 * exchange messages of every protocol size around a ring for SECONDS
 * (argv[1]), every byte checked, with an allreduce each round, while
 * forge sends forged traffic at their sockets.  At the end rank 0 prints
 * its udp drop counters by reason (tern/tools.h) as "dropped:" lines, and
 * " No Errors" when every message was right. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tern/tools.h>

static unsigned char pat(int round, int from, size_t i)
{
    return (unsigned char)(i * 151u + (size_t)round * 13u + (size_t)from * 31u + (i >> 11));
}

int main(int argc, char **argv)
{
    int rank, size, bad = 0, rounds = 0;
    double secs = argc > 1 ? atof(argv[1]) : 5.0;
    static const size_t sizes[] = { 8, 1024, 60000, 300000, 1 << 20 };
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char *s = malloc(1 << 20), *r = malloc(1 << 20);
    double end = MPI_Wtime() + secs;
    int go = 1;
    while (go) {
        for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
            size_t n = sizes[k];
            int to = (rank + 1) % size, from = (rank + size - 1) % size;
            for (size_t i = 0; i < n; i++) {
                s[i] = pat(rounds, rank, i);
            }
            memset(r, 0, n);
            MPI_Sendrecv(s, (int)n, MPI_BYTE, to, 5, r, (int)n, MPI_BYTE, from, 5,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (size_t i = 0; i < n; i++) {
                if (r[i] != pat(rounds, from, i)) {
                    if (bad++ < 5) {
                        fprintf(stderr, "rank %d: FAIL round %d size %zu byte %zu\n", rank,
                                rounds, n, i);
                    }
                    break;
                }
            }
        }
        int mine = rounds, sum = 0;
        MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (sum != rounds * size && bad++ < 5) {
            fprintf(stderr, "rank %d: FAIL allreduce %d\n", rank, sum);
        }
        rounds++;
        go = MPI_Wtime() < end;
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    int total = 0;
    MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    tern_udp_stats_t st;
    if (tern_tools_udp_stats(&st) == 0) {
        printf("rank %d dropped: foreign=%llu bad_source=%llu bad_conn=%llu bad_auth=%llu "
               "bad=%llu rounds=%d\n", rank, st.foreign, st.bad_source, st.bad_conn,
               st.bad_auth, st.bad, rounds);
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && total == 0) {
        printf(" No Errors\n");
    }
    free(s);
    free(r);
    MPI_Finalize();
    return total != 0;
}
