/* Persistent collectives started in different orders on different ranks.
 *
 * MPI matches persistent collectives by the order of their initialization
 * calls (which are collective, hence in the same order everywhere); the
 * order of MPI_Start may differ from rank to rank unless the application
 * promises otherwise with mpi_assert_strict_persistent_collective_ordering.
 * Every rank initializes the same list (barrier, bcasts of different sizes
 * and roots, allreduce, allgather, one nonblocking collective interleaved),
 * then each round starts them in a rank-dependent order, one MPI_Start at a
 * time or with MPI_Startall on a permuted array, and checks every value.
 * Errors are returned (MPI_ERRORS_RETURN), so a mismatch shows up as a
 * failed check or MPI_ERR_TRUNCATE, never as a silent pass. */
#include "nbct.h"

#define NREQ 7
#define ROUNDS 12

static int v(int round, int who, int i)
{
    return round * 1000003 + who * 7919 + i * 31 + 5;
}

int main(int argc, char **argv)
{
    int rank, size;
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* bcast sizes: tiny, eager, rendezvous-size */
    static const int bn[3] = { 1, 700, 70000 };
    int *bb[3];
    for (int k = 0; k < 3; k++)
        bb[k] = mt_malloc((size_t)bn[k] * sizeof(int));
    int asend[4], arecv[4];
    int *gsend = mt_malloc(3 * sizeof(int)), *grecv = mt_malloc((size_t)size * 3 * sizeof(int));
    MPI_Request req[NREQ];
    MPI_Info info;
    MPI_Info_create(&info);

    MT_CALL(MPI_Barrier_init(MPI_COMM_WORLD, info, &req[0]));
    for (int k = 0; k < 3; k++)
        MT_CALL(MPI_Bcast_init(bb[k], bn[k], MPI_INT, k % size, MPI_COMM_WORLD, info,
                               &req[1 + k]));
    MT_CALL(MPI_Allreduce_init(asend, arecv, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, info,
                               &req[4]));
    MT_CALL(MPI_Allgather_init(gsend, 3, MPI_INT, grecv, 3, MPI_INT, MPI_COMM_WORLD, info,
                               &req[5]));
    MT_CALL(MPI_Bcast_init(bb[0], 0, MPI_INT, 0, MPI_COMM_WORLD, info, &req[6]));

    for (int round = 0; round < ROUNDS; round++) {
        int order[NREQ];
        for (int i = 0; i < NREQ; i++)
            order[i] = i;
        /* a rank-dependent permutation */
        unsigned x = (unsigned)(rank * 2654435761u + (unsigned)round * 40503u + 1u);
        for (int i = NREQ - 1; i > 0; i--) {
            x = x * 1103515245u + 12345u;
            int j = (int)((x >> 8) % (unsigned)(i + 1));
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < bn[k]; i++)
                bb[k][i] = rank == k % size ? v(round, k, i) : -1;
        for (int i = 0; i < 4; i++)
            asend[i] = v(round, rank, i);
        for (int i = 0; i < 3; i++)
            gsend[i] = v(round, rank, 100 + i);

        /* a nonblocking collective between the starts: its own matching */
        int ib = rank == 0 ? v(round, 9, 9) : 0;
        MPI_Request nb;
        if (round % 2 == 0) {
            for (int i = 0; i < NREQ; i++)
                MT_CALL(MPI_Start(&req[order[i]]));
        } else {
            MPI_Request perm[NREQ];
            for (int i = 0; i < NREQ; i++)
                perm[i] = req[order[i]];
            MT_CALL(MPI_Startall(NREQ, perm));
        }
        MT_CALL(MPI_Ibcast(&ib, 1, MPI_INT, 0, MPI_COMM_WORLD, &nb));
        /* complete in yet another order: one by one, reversed */
        for (int i = NREQ - 1; i >= 0; i--)
            MT_CALL(MPI_Wait(&req[order[i]], MPI_STATUS_IGNORE));
        MT_CALL(MPI_Wait(&nb, MPI_STATUS_IGNORE));
        MT_CHECK(ib == v(round, 9, 9), "round %d: Ibcast gave %d", round, ib);

        for (int k = 0; k < 3; k++)
            for (int i = 0; i < bn[k]; i++)
                if (bb[k][i] != v(round, k, i)) {
                    MT_CHECK(0, "round %d: bcast %d (%d ints) int %d is %d, expected %d", round,
                             k, bn[k], i, bb[k][i], v(round, k, i));
                    break;
                }
        for (int i = 0; i < 4; i++) {
            long want = 0;
            for (int r = 0; r < size; r++)
                want += v(round, r, i);
            MT_CHECK(arecv[i] == (int)want, "round %d: allreduce[%d] = %d, expected %d", round,
                     i, arecv[i], (int)want);
        }
        for (int r = 0; r < size; r++)
            for (int i = 0; i < 3; i++)
                MT_CHECK(grecv[r * 3 + i] == v(round, r, 100 + i),
                         "round %d: allgather block %d int %d = %d", round, r, i,
                         grecv[r * 3 + i]);
    }
    for (int i = 0; i < NREQ; i++)
        MT_CALL(MPI_Request_free(&req[i]));
    MPI_Info_free(&info);
    for (int k = 0; k < 3; k++)
        free(bb[k]);
    free(gsend);
    free(grecv);
    return mt_finalize();
}
