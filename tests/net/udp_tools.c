/* The udp transport's counters through include/tern/tools.h, read while the
 * job runs.  Every rank sends rounds of rendezvous and eager messages to
 * its right neighbour, then checks what the counters say against what it
 * sent and received, that they only grow, and that ranks without a udp
 * connection, or a process without udp, read as -1.
 *
 *   udp_tools udp [faults]   (under TERN_XPORT=udp; faults: the fault
 *                             injector drops 10 %, so retransmissions must
 *                             show)
 *   udp_tools none           (no udp peer: every call answers -1) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tern/tools.h"

#define ROUNDS 10
#define BIG 200000
#define SMALL 1000

static int rank = -1, failures;

#define T(cond, ...)                                                               \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "rank %d: FAIL %s:%d: %s: ", rank, __FILE__, __LINE__, \
                    #cond);                                                        \
            fprintf(stderr, __VA_ARGS__);                                          \
            fprintf(stderr, "\n");                                                 \
            failures++;                                                            \
        }                                                                          \
    } while (0)

/* ROUNDS rounds of one BIG and one SMALL message to the right, from the left */
static void exchange(int right, int left, char *sb, char *rb)
{
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Request rq[4];
        MPI_Irecv(rb, BIG, MPI_BYTE, left, 1, MPI_COMM_WORLD, &rq[0]);
        MPI_Irecv(rb + BIG, SMALL, MPI_BYTE, left, 2, MPI_COMM_WORLD, &rq[1]);
        MPI_Isend(sb, BIG, MPI_BYTE, right, 1, MPI_COMM_WORLD, &rq[2]);
        MPI_Isend(sb + BIG, SMALL, MPI_BYTE, right, 2, MPI_COMM_WORLD, &rq[3]);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "udp";
    int udp = strcmp(mode, "udp") == 0;
    int faults = argc > 2 && strcmp(argv[2], "faults") == 0;
    tern_udp_stats_t st;
    tern_udp_peer_stats_t ps, before;

    T(tern_tools_udp_stats(&st) == -1, "counters before MPI_Init");
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    char *sb = malloc(BIG + SMALL), *rb = malloc(BIG + SMALL);
    memset(sb, rank + 1, BIG + SMALL);

    exchange(right, left, sb, rb);
    MPI_Barrier(MPI_COMM_WORLD);

    T(tern_tools_udp_peer_stats(rank, &ps) == -1, "a connection to myself");
    T(tern_tools_udp_peer_stats(-1, &ps) == -1, "rank -1");
    T(tern_tools_udp_peer_stats(size, &ps) == -1, "rank %d of %d", size, size);
    T(tern_tools_udp_stats(NULL) == -1, "NULL");
    if (!udp) {
        T(tern_tools_udp_stats(&st) == -1, "udp counters without udp");
        T(tern_tools_udp_peer_stats(right, &ps) == -1, "a udp peer without udp");
    } else {
        const unsigned long long want = (unsigned long long)ROUNDS * (BIG + SMALL);
        T(tern_tools_udp_stats(&st) == 0, "no udp counters");
        T(st.datagrams_sent > 0 && st.datagrams_recv > 0, "datagrams sent %llu, received %llu",
          st.datagrams_sent, st.datagrams_recv);
        /* what went right: at least the payload bytes, in at least two
         * packets a round (BIG takes several) */
        T(tern_tools_udp_peer_stats(right, &before) == 0, "no connection to my right");
        T(before.data_bytes_sent >= want && before.data_sent >= 2 * ROUNDS,
          "to the right: %llu packets, %llu bytes; sent %llu bytes", before.data_sent,
          before.data_bytes_sent, want);
        T(before.nrails >= 1 && before.nrails <= TERN_UDP_MAX_RAILS, "%d rails", before.nrails);
        unsigned long long rail_sent = 0;
        for (int r = 0; r < before.nrails; r++) {
            rail_sent += before.rail_sent[r];
        }
        T(rail_sent >= before.data_sent, "rails carried %llu packets of %llu", rail_sent,
          before.data_sent);
        T(before.srtt_us > 0 && before.rto_us >= before.srtt_us && before.cwnd > 0,
          "srtt %.1f us, rto %.1f us, cwnd %llu", before.srtt_us, before.rto_us, before.cwnd);
        T(st.datagrams_sent >= before.data_sent, "process sent %llu datagrams, peer %llu",
          st.datagrams_sent, before.data_sent);
        T(tern_tools_udp_peer_stats(left, &ps) == 0 && ps.data_bytes_recv >= want,
          "from the left: %llu bytes; received %llu", ps.data_bytes_recv, want);
        T(ps.acks_sent > 0, "no acks to the left");
        /* read again after more traffic: the counters only grow */
        exchange(right, left, sb, rb);
        MPI_Barrier(MPI_COMM_WORLD);
        T(tern_tools_udp_peer_stats(right, &ps) == 0, "no connection to my right");
        T(ps.data_bytes_sent >= before.data_bytes_sent + want &&
          ps.data_sent > before.data_sent && ps.acks_recv >= before.acks_recv,
          "after a second exchange: %llu bytes (%llu before)", ps.data_bytes_sent,
          before.data_bytes_sent);
        if (faults) {
            T(tern_tools_udp_stats(&st) == 0 && st.fault_dropped > 0, "no datagram dropped");
            T(ps.retransmits > 0, "dropped %llu datagrams, no retransmission to the right",
              st.fault_dropped);
        }
    }
    int all;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    free(sb);
    free(rb);
    MPI_Finalize();
    T(tern_tools_udp_stats(&st) == -1, "counters after MPI_Finalize");
    if (rank == 0 && all == 0 && failures == 0) {
        printf(" No Errors\n");
    }
    return failures != 0;
}
