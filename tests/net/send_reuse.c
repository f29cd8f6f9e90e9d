/* A send's buffer is the user's again the moment the send completes.  The
 * udp transport sends rendezvous data straight from that buffer and holds
 * it until the peer acknowledges it, so a send must not complete earlier:
 * here every rank overwrites each buffer as soon as its send completes
 * (blocking, synchronous, nonblocking, persistent), while the fault
 * injector drops, duplicates and reorders packets, so data is often resent
 * after the application has moved on.  Receivers check every byte; a
 * retransmission read from an overwritten buffer would carry other bytes
 * than its checksum and never arrive (the job would time out). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 12

static int failures;

static unsigned char pattern(int round, int from, size_t i)
{
    return (unsigned char)(i * 131u + (size_t)round * 7u + (size_t)from * 29u + (i >> 9));
}

static void fill(unsigned char *b, size_t n, int round, int from)
{
    for (size_t i = 0; i < n; i++) {
        b[i] = pattern(round, from, i);
    }
}

static void check(const unsigned char *b, size_t n, int round, int from, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        if (b[i] != pattern(round, from, i)) {
            if (failures++ < 5) {
                fprintf(stderr, "%s round %d from %d: byte %zu of %zu is %u, expected %u\n",
                        what, round, from, i, n, b[i], pattern(round, from, i));
            }
            return;
        }
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* above any eager threshold, and not a multiple of a packet */
    static const size_t sizes[] = { 70001, 262144, 1048576 + 17, 3 << 20 };
    const int nsizes = (int)(sizeof(sizes) / sizeof(sizes[0]));
    size_t max = sizes[nsizes - 1];
    unsigned char *sbuf = malloc(max), *rbuf = malloc(max);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int round = 0; round < ROUNDS; round++) {
        size_t n = sizes[round % nsizes];
        int mode = round % 4;
        MPI_Request rr, sr;
        MPI_Irecv(rbuf, (int)n, MPI_BYTE, left, round, MPI_COMM_WORLD, &rr);
        fill(sbuf, n, round, rank);
        switch (mode) {
        case 0:
            MPI_Send(sbuf, (int)n, MPI_BYTE, right, round, MPI_COMM_WORLD);
            break;
        case 1:
            MPI_Ssend(sbuf, (int)n, MPI_BYTE, right, round, MPI_COMM_WORLD);
            break;
        case 2:
            MPI_Isend(sbuf, (int)n, MPI_BYTE, right, round, MPI_COMM_WORLD, &sr);
            MPI_Wait(&sr, MPI_STATUS_IGNORE);
            break;
        default:
            MPI_Send_init(sbuf, (int)n, MPI_BYTE, right, round, MPI_COMM_WORLD, &sr);
            MPI_Start(&sr);
            MPI_Wait(&sr, MPI_STATUS_IGNORE);
            MPI_Request_free(&sr);
            break;
        }
        memset(sbuf, 0xA5, n);          /* the buffer is ours again */
        MPI_Wait(&rr, MPI_STATUS_IGNORE);
        check(rbuf, n, round, left, "ring");
    }
    /* many sends in flight at once, all overwritten as each completes */
    if (size >= 2) {
        enum { K = 8 };
        size_t n = 300000;
        unsigned char *sb = malloc(K * n), *rb = malloc(K * n);
        MPI_Request rq[2 * K];
        for (int k = 0; k < K; k++) {
            MPI_Irecv(rb + (size_t)k * n, (int)n, MPI_BYTE, left, 100 + k, MPI_COMM_WORLD, &rq[k]);
            fill(sb + (size_t)k * n, n, 100 + k, rank);
            MPI_Isend(sb + (size_t)k * n, (int)n, MPI_BYTE, right, 100 + k, MPI_COMM_WORLD,
                      &rq[K + k]);
        }
        int done = 0;
        while (done < K) {
            int idx;
            MPI_Waitany(K, &rq[K], &idx, MPI_STATUS_IGNORE);
            memset(sb + (size_t)idx * n, 0x5A, n);
            done++;
        }
        MPI_Waitall(K, rq, MPI_STATUSES_IGNORE);
        for (int k = 0; k < K; k++) {
            check(rb + (size_t)k * n, n, 100 + k, left, "burst");
        }
        free(sb);
        free(rb);
    }
    int all;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0) {
        printf(" No Errors\n");
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return all != 0;
}
