/* Rendezvous data received straight into the receive buffer (the udp
 * transport's direct receive, TERN_UDP_DIRECT): the transport lets the
 * kernel write datagrams where it expects them to belong, and moves what
 * landed elsewhere.  Here every receive buffer is larger than its message
 * and fenced by guard bytes, so a datagram written past the message, or
 * into a buffer whose receive has completed, shows:
 *
 *  - windows of nonblocking receives from one peer, message sizes around
 *    and on multiples of a packet's payload (a stream that ends on a full
 *    packet runs into the next one);
 *  - two senders at once into one receiver (3 ranks or more);
 *  - exchanges both ways at once (acks with SACK ranges ride on data);
 *  - a completed buffer overwritten by the application at once while
 *    later messages from the same peer keep coming: it must keep what the
 *    application wrote.
 * With the fault injector on (the test's environment), pieces arrive out
 * of order, twice, or not at all, and are resent. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 4096
#define WINDOW 8

static int failures;

static unsigned char pattern(int tag, int from, size_t i)
{
    return (unsigned char)(i * 131u + (size_t)tag * 7u + (size_t)from * 29u + (i >> 9));
}

static void fill(unsigned char *b, size_t n, int tag, int from)
{
    for (size_t i = 0; i < n; i++) {
        b[i] = pattern(tag, from, i);
    }
}

static void fail(const char *what, int tag, int from, size_t at, size_t n)
{
    if (failures++ < 8) {
        fprintf(stderr, "FAIL %s: tag %d from %d, byte %zu of %zu\n", what, tag, from, at, n);
    }
}

/* A receive area: guard, capacity bytes, guard; 0xA5 everywhere. */
static unsigned char *area_new(size_t cap)
{
    unsigned char *a = malloc(cap + 2 * GUARD);
    memset(a, 0xA5, cap + 2 * GUARD);
    return a;
}

/* The message (n bytes of tag from `from`) is in place, and the rest of the
 * area is untouched. */
static void area_check(const unsigned char *a, size_t cap, size_t n, int tag, int from)
{
    for (size_t i = 0; i < GUARD; i++) {
        if (a[i] != 0xA5) {
            fail("guard before the buffer written", tag, from, i, n);
            break;
        }
    }
    const unsigned char *b = a + GUARD;
    for (size_t i = 0; i < n; i++) {
        if (b[i] != pattern(tag, from, i)) {
            fail("wrong data", tag, from, i, n);
            break;
        }
    }
    for (size_t i = n; i < cap + GUARD; i++) {
        if (b[i] != 0xA5) {
            fail("written past the message", tag, from, i, n);
            break;
        }
    }
}

/* Windows of messages from rank `from` to rank `to`. */
static void windows(int rank, int from, int to, const size_t *sizes, int nsizes, int tag0)
{
    size_t cap = 0;
    for (int i = 0; i < nsizes; i++) {
        cap = sizes[i] > cap ? sizes[i] : cap;
    }
    cap += 100000;                          /* room the message does not use */
    if (rank == from) {
        unsigned char *sb[WINDOW];
        MPI_Request r[WINDOW];
        for (int base = 0; base < nsizes; base += WINDOW) {
            int n = nsizes - base < WINDOW ? nsizes - base : WINDOW;
            for (int w = 0; w < n; w++) {
                sb[w] = malloc(sizes[base + w]);
                fill(sb[w], sizes[base + w], tag0 + base + w, from);
                MPI_Isend(sb[w], (int)sizes[base + w], MPI_BYTE, to, tag0 + base + w,
                          MPI_COMM_WORLD, &r[w]);
            }
            MPI_Waitall(n, r, MPI_STATUSES_IGNORE);
            for (int w = 0; w < n; w++) {
                free(sb[w]);
            }
            int ack;
            MPI_Recv(&ack, 1, MPI_INT, to, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else if (rank == to) {
        unsigned char *a[WINDOW];
        MPI_Request r[WINDOW];
        for (int base = 0; base < nsizes; base += WINDOW) {
            int n = nsizes - base < WINDOW ? nsizes - base : WINDOW;
            for (int w = 0; w < n; w++) {
                a[w] = area_new(cap);
                MPI_Irecv(a[w] + GUARD, (int)cap, MPI_BYTE, from, tag0 + base + w,
                          MPI_COMM_WORLD, &r[w]);
            }
            MPI_Waitall(n, r, MPI_STATUSES_IGNORE);
            for (int w = 0; w < n; w++) {
                area_check(a[w], cap, sizes[base + w], tag0 + base + w, from);
                free(a[w]);
            }
            int ack = 1;
            MPI_Send(&ack, 1, MPI_INT, from, 999, MPI_COMM_WORLD);
        }
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* 32544 and 8160: a packet's payload for 32 KiB and 8 KiB packets */
    static const size_t sizes[] = { 65536 + 1, 2 * 32544, 3 * 32544, 262144, 300007,
                                    1048576, 32 * 8160, 200000, 1048576 + 13, 4 * 32544,
                                    777777, 131072 };
    const int nsizes = (int)(sizeof(sizes) / sizeof(sizes[0]));

    /* 1. windows from 0 to 1 */
    windows(rank, 0, 1, sizes, nsizes, 100);
    MPI_Barrier(MPI_COMM_WORLD);

    /* 2. two senders at once into rank 1 */
    if (size >= 3) {
        if (rank == 0 || rank == 2) {
            windows(rank, rank, 1, sizes, nsizes, 200 + rank * 50);
        } else if (rank == 1) {
            /* receive from both: post both windows, complete both */
            size_t cap = 1048576 + 100013;
            for (int base = 0; base < nsizes; base += WINDOW) {
                int n = nsizes - base < WINDOW ? nsizes - base : WINDOW;
                unsigned char *a[2][WINDOW];
                MPI_Request r[2 * WINDOW];
                for (int w = 0; w < n; w++) {
                    for (int k = 0; k < 2; k++) {
                        int from = k == 0 ? 0 : 2;
                        a[k][w] = area_new(cap);
                        MPI_Irecv(a[k][w] + GUARD, (int)cap, MPI_BYTE, from,
                                  200 + from * 50 + base + w, MPI_COMM_WORLD, &r[k * n + w]);
                    }
                }
                MPI_Waitall(2 * n, r, MPI_STATUSES_IGNORE);
                for (int w = 0; w < n; w++) {
                    for (int k = 0; k < 2; k++) {
                        int from = k == 0 ? 0 : 2;
                        area_check(a[k][w], cap, sizes[base + w], 200 + from * 50 + base + w,
                                   from);
                        free(a[k][w]);
                    }
                }
                int ack = 1;
                MPI_Send(&ack, 1, MPI_INT, 0, 999, MPI_COMM_WORLD);
                MPI_Send(&ack, 1, MPI_INT, 2, 999, MPI_COMM_WORLD);
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 3. exchanges both ways around a ring */
    {
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        for (int i = 0; i < nsizes; i++) {
            size_t n = sizes[i], cap = n + 50000;
            unsigned char *s = malloc(n), *a = area_new(cap);
            fill(s, n, 300 + i, rank);
            MPI_Sendrecv(s, (int)n, MPI_BYTE, right, 300 + i, a + GUARD, (int)cap, MPI_BYTE,
                         left, 300 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            area_check(a, cap, n, 300 + i, left);
            free(s);
            free(a);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 4. a completed buffer is the application's at once: overwritten
     * while later messages from the same sender keep arriving */
    {
        const int rounds = 16;
        size_t n = 1048576 + 5;
        if (rank == 0) {
            unsigned char *s = malloc(n);
            for (int i = 0; i < rounds; i++) {
                fill(s, n, 400 + i, 0);
                MPI_Send(s, (int)n, MPI_BYTE, 1, 400 + i, MPI_COMM_WORLD);
            }
            free(s);
        } else if (rank == 1) {
            unsigned char *a[16];
            for (int i = 0; i < rounds; i++) {
                a[i] = area_new(n);
                MPI_Recv(a[i] + GUARD, (int)n, MPI_BYTE, 0, 400 + i, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                area_check(a[i], n, n, 400 + i, 0);
                memset(a[i] + GUARD, 0x3C, n);      /* the application's now */
            }
            for (int i = 0; i < rounds; i++) {
                for (size_t k = 0; k < n; k++) {
                    if (a[i][GUARD + k] != 0x3C) {
                        fail("completed buffer written later", 400 + i, 0, k, n);
                        break;
                    }
                }
                free(a[i]);
            }
        }
    }

    int all;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0) {
        printf(" No Errors\n");
    }
    MPI_Finalize();
    return all != 0;
}
