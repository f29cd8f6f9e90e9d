/* The shared-memory collectives' slots (src/coll/coll_shm.c) under the
 * patterns that stress them; every result is checked.
 *
 *   runahead  bursts of bcasts from a root whose readers lag, and of
 *             reduces to a lagging root; then bcasts with rotating roots,
 *             reduces, gathers and scatters back to back with sizes up to
 *             the slot, so that roots and non-roots run ahead of each
 *             other by several collectives (a slot's buffers are reused
 *             every 4 collectives);
 *   many      more communicators at once than there are slots (those
 *             without a slot fall back to messages), collectives
 *             interleaved over all of them, then freed and made again;
 *   split     two halves of COMM_WORLD claim their slots at the same
 *             moment and then run collectives at the same time;
 *   reuse     communicators made and freed one after the other: each must
 *             get a slot (ctest fails the run on the log line that says a
 *             communicator got none, TERN_LOG_LEVEL=debug).
 *
 * Usage: coll_shm [runahead|many|split|reuse] (default: all but reuse). */
#include "mtest.h"

#include <stdint.h>
#include <string.h>

#define ITERS 400

static unsigned char val(int rank, int iter, size_t i)
{
    return (unsigned char)(rank * 31 + iter * 7 + (int)i * 13 + 1);
}

/* Bcast, reduce (sum of ints), gather and scatter with rotating roots and
 * sizes cycling up to 4 KiB, none separated by a barrier. */
static void runahead(MPI_Comm comm, int iters)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    unsigned char *buf = mt_malloc(4096), *all = mt_malloc(4096 * (size_t)size);
    int *ibuf = mt_malloc(1024 * sizeof(int)), *isum = mt_malloc(1024 * sizeof(int));

    for (int it = 0; it < iters; it++) {
        int root = it % size;
        size_t n = (size_t)(1 + (it * 37) % 4096);

        for (size_t i = 0; i < n; i++) {
            buf[i] = rank == root ? val(root, it, i) : 0;
        }
        MT_CALL(MPI_Bcast(buf, (int)n, MPI_BYTE, root, comm));
        for (size_t i = 0; i < n; i++) {
            if (buf[i] != val(root, it, i)) {
                MT_CHECK(0, "bcast %d from %d: byte %zu is %u, want %u", it, root, i, buf[i],
                         val(root, it, i));
                break;
            }
        }

        size_t m = (size_t)(1 + (it * 11) % 1024);
        for (size_t i = 0; i < m; i++) {
            ibuf[i] = rank * 1000 + it + (int)i;
        }
        MT_CALL(MPI_Reduce(ibuf, isum, (int)m, MPI_INT, MPI_SUM, root, comm));
        if (rank == root) {
            for (size_t i = 0; i < m; i++) {
                int want = 1000 * size * (size - 1) / 2 + size * (it + (int)i);
                if (isum[i] != want) {
                    MT_CHECK(0, "reduce %d to %d: [%zu] = %d, want %d", it, root, i, isum[i],
                             want);
                    break;
                }
            }
        }

        size_t g = (size_t)(1 + (it * 5) % (4096 / (size_t)size));
        for (size_t i = 0; i < g; i++) {
            buf[i] = val(rank, it, i);
        }
        MT_CALL(MPI_Gather(buf, (int)g, MPI_BYTE, all, (int)g, MPI_BYTE, root, comm));
        if (rank == root) {
            for (int q = 0; q < size; q++) {
                for (size_t i = 0; i < g; i++) {
                    if (all[(size_t)q * g + i] != val(q, it, i)) {
                        MT_CHECK(0, "gather %d to %d: rank %d byte %zu wrong", it, root, q, i);
                        q = size;
                        break;
                    }
                }
            }
        }

        if (rank == root) {
            for (int q = 0; q < size; q++) {
                for (size_t i = 0; i < g; i++) {
                    all[(size_t)q * g + i] = val(q + 100, it, i);
                }
            }
        }
        MT_CALL(MPI_Scatter(all, (int)g, MPI_BYTE, buf, (int)g, MPI_BYTE, root, comm));
        for (size_t i = 0; i < g; i++) {
            if (buf[i] != val(rank + 100, it, i)) {
                MT_CHECK(0, "scatter %d from %d: byte %zu wrong", it, root, i);
                break;
            }
        }
    }
    free(buf);
    free(all);
    free(ibuf);
    free(isum);
}

/* Busy for us microseconds (makes a rank lag behind the others). */
static void busy(double us)
{
    double t = MPI_Wtime() + us * 1e-6;
    while (MPI_Wtime() < t) {
    }
}

/* Bursts of bcasts from rank 0 while the others lag (the root runs ahead
 * until the slot's buffers make it wait), then reduces to rank 0 while it
 * lags (the others run ahead). */
static void bursts(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    unsigned char buf[300];
    int v[64], sum[64];

    for (int b = 0; b < 64; b++) {
        if (rank != 0) {
            busy(20.0 * rank);
        }
        for (size_t i = 0; i < sizeof buf; i++) {
            buf[i] = rank == 0 ? val(0, 5000 + b, i) : 0;
        }
        MT_CALL(MPI_Bcast(buf, (int)sizeof buf, MPI_BYTE, 0, comm));
        for (size_t i = 0; i < sizeof buf; i++) {
            if (buf[i] != val(0, 5000 + b, i)) {
                MT_CHECK(0, "burst bcast %d: byte %zu is %u, want %u", b, i, buf[i],
                         val(0, 5000 + b, i));
                break;
            }
        }
    }
    for (int b = 0; b < 64; b++) {
        if (rank == 0) {
            busy(20.0);
        }
        for (int i = 0; i < 64; i++) {
            v[i] = rank + b * i;
        }
        MT_CALL(MPI_Reduce(v, sum, 64, MPI_INT, MPI_SUM, 0, comm));
        for (int i = 0; rank == 0 && i < 64; i++) {
            if (sum[i] != size * (size - 1) / 2 + size * b * i) {
                MT_CHECK(0, "burst reduce %d: [%d] = %d, want %d", b, i, sum[i],
                         size * (size - 1) / 2 + size * b * i);
                break;
            }
        }
    }
}

/* An allreduce and an allgather on comm, checked; tag tells calls apart. */
static void allcheck(MPI_Comm comm, int tag)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    long v[3] = { rank + tag, 2 * rank, tag }, s[3];
    MT_CALL(MPI_Allreduce(v, s, 3, MPI_LONG, MPI_SUM, comm));
    long tri = (long)size * (size - 1) / 2;
    MT_CHECK(s[0] == tri + (long)size * tag && s[1] == 2 * tri && s[2] == (long)size * tag,
             "allreduce tag %d on %d ranks: %ld %ld %ld", tag, size, s[0], s[1], s[2]);
    int *all = mt_malloc((size_t)size * 2 * sizeof(int));
    int mine[2] = { rank, tag };
    MT_CALL(MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, comm));
    for (int q = 0; q < size; q++) {
        MT_CHECK(all[2 * q] == q && all[2 * q + 1] == tag, "allgather tag %d: block %d", tag, q);
    }
    free(all);
}

static void many(void)
{
    enum { NCOMM = 40 };
    MPI_Comm c[NCOMM];

    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < NCOMM; i++) {
            MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c[i]));
        }
        for (int it = 0; it < 20; it++) {
            for (int i = 0; i < NCOMM; i++) {
                allcheck(c[(i * 7 + it) % NCOMM], it * NCOMM + i);
            }
            MT_CALL(MPI_Barrier(c[it % NCOMM]));
        }
        for (int i = 0; i < NCOMM; i++) {
            MT_CALL(MPI_Comm_free(&c[i]));
        }
    }
}

static void split(void)
{
    int rank;
    MPI_Comm half;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MT_CALL(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    for (int it = 0; it < 50; it++) {
        allcheck(half, it);
    }
    runahead(half, ITERS / 4);
    MT_CALL(MPI_Comm_free(&half));
}

static void reuse(void)
{
    for (int i = 0; i < 100; i++) {
        MPI_Comm c;
        MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        allcheck(c, i);
        MT_CALL(MPI_Comm_free(&c));
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    const char *what = argc > 1 ? argv[1] : "all";
    int all = strcmp(what, "all") == 0;

    if (all || strcmp(what, "runahead") == 0) {
        bursts(MPI_COMM_WORLD);
        runahead(MPI_COMM_WORLD, ITERS);
    }
    if (all || strcmp(what, "many") == 0) {
        many();
    }
    if (all || strcmp(what, "split") == 0) {
        split();
    }
    if (strcmp(what, "reuse") == 0) {
        reuse();
    }
    return mt_finalize();
}
