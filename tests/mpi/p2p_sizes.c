/* Message sizes: 0 and every power of two from 1 B to 4 MiB, and the odd
 * sizes around each (p-1, p+1) plus a few primes, ping-ponged between
 * ranks 0 and 1 and checked byte for byte.  The receive buffer is larger
 * than the message and starts at an odd address for half of the transfers
 * (unaligned copies); blocking and nonblocking calls alternate.  Ranks
 * beyond 1 run the same exchange in pairs (2,3), (4,5)... */
#include "mtest.h"

#define MAXSZ (4 << 20)

static int peer;

static void exchange(int n, int variant, unsigned seed)
{
    unsigned char *sraw = mt_malloc(MAXSZ + 8), *rraw = mt_malloc(MAXSZ + 8 + 64);
    unsigned char *s = sraw + (variant & 1 ? 3 : 0);
    unsigned char *r = rraw + (variant & 2 ? 1 : 0);
    int lo = mt_rank < peer;
    unsigned myseed = seed * 2 + (unsigned)lo, peerseed = seed * 2 + (unsigned)!lo;
    mt_fill(s, (size_t)n, myseed);
    memset(r, 0x3c, (size_t)n + 64);
    MPI_Status st;
    int cap = n + 64; /* receive buffer larger than the message */

    if (variant < 2) {
        if (lo) {
            MT_CALL(MPI_Send(s, n, MPI_BYTE, peer, n % 32768, MPI_COMM_WORLD));
            MT_CALL(MPI_Recv(r, cap, MPI_BYTE, peer, n % 32768, MPI_COMM_WORLD, &st));
        } else {
            MT_CALL(MPI_Recv(r, cap, MPI_BYTE, peer, n % 32768, MPI_COMM_WORLD, &st));
            MT_CALL(MPI_Send(s, n, MPI_BYTE, peer, n % 32768, MPI_COMM_WORLD));
        }
    } else {
        MPI_Request rq[2];
        MT_CALL(MPI_Irecv(r, cap, MPI_BYTE, peer, n % 32768, MPI_COMM_WORLD, &rq[0]));
        MT_CALL(MPI_Isend(s, n, MPI_BYTE, peer, n % 32768, MPI_COMM_WORLD, &rq[1]));
        MPI_Status sts[2];
        MT_CALL(MPI_Waitall(2, rq, sts));
        st = sts[0];
    }
    int cnt = -1;
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    MT_CHECK(cnt == n, "size %d variant %d: received count %d", n, variant, cnt);
    char what[64];
    snprintf(what, sizeof what, "size %d variant %d", n, variant);
    MT_CHECK_PATTERN(r, (size_t)n, peerseed, what);
    for (int i = n; i < n + 64; i++)
        if (r[i] != 0x3c) {
            MT_CHECK(r[i] == 0x3c, "%s: byte %d after the message was written", what, i);
            break;
        }
    free(sraw);
    free(rraw);
}

/* Same with MPI_INT / MPI_DOUBLE element counts (sizes multiple of 8). */
static void typed(int nelem)
{
    double *s = mt_malloc((size_t)nelem * sizeof(double)), *r = mt_malloc((size_t)nelem * sizeof(double));
    for (int i = 0; i < nelem; i++)
        s[i] = mt_rank * 1e6 + i + 0.25;
    MPI_Status st;
    MT_CALL(MPI_Sendrecv(s, nelem, MPI_DOUBLE, peer, 1, r, nelem, MPI_DOUBLE, peer, 1,
                         MPI_COMM_WORLD, &st));
    int cnt;
    MPI_Get_count(&st, MPI_DOUBLE, &cnt);
    MT_CHECK(cnt == nelem, "typed %d doubles: count %d", nelem, cnt);
    for (int i = 0; i < nelem; i++)
        if (r[i] != peer * 1e6 + i + 0.25) {
            MT_CHECK(0, "typed %d doubles: element %d = %g", nelem, i, r[i]);
            break;
        }
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    if (mt_size < 2)
        MT_DIE("needs at least 2 ranks");
    peer = mt_rank ^ 1;
    if (peer < mt_size) {
        unsigned seed = 1;
        int variant = 0;
        exchange(0, 0, seed++);
        exchange(0, 3, seed++);
        for (int p = 1; p <= MAXSZ; p *= 2) {
            exchange(p, variant++ % 4, seed++);
            if (p > 2) {
                exchange(p - 1, variant++ % 4, seed++);
                if (p < MAXSZ)
                    exchange(p + 1, variant++ % 4, seed++);
            }
        }
        int odd[] = { 3, 7, 13, 97, 1021, 4099, 16411, 65521, 262147, 1000003 };
        for (int i = 0; i < (int)(sizeof odd / sizeof odd[0]); i++)
            exchange(odd[i], i % 4, seed++);
        for (int n = 1; n <= 524288; n *= 8)
            typed(n);
    }
    return mt_finalize();
}
