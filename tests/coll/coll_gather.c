/* MPI_Gather and MPI_Gatherv (and _c): every root, MPI_IN_PLACE at the root,
 * block sizes 0..~1 MiB in all, different send and receive types with the
 * same signature (2k MPI_INT against k MPI_2INT), Gatherv with uneven
 * counts, blocks in reverse order and gaps that must stay untouched, on
 * COMM_WORLD and a reversed communicator. */
#include "collt.h"

#define POISON (-7777)

static void one_gather(MPI_Comm comm, const char *cname, int rank, int size, size_t n, int root,
                       int mode, int salt)
{
    /* mode 0: plain, 1: in place at the root, 2: recv as MPI_2INT (n even), 3: _c */
    size_t total = n * (size_t)size;
    int *sbuf = mt_malloc(n * sizeof(int)), *rbuf = mt_malloc(total * sizeof(int));
    collt_fill(sbuf, n, OP_SUM, rank, 0, salt);
    for (size_t i = 0; i < total; i++)
        rbuf[i] = POISON;
    if (mode == 1 && rank == root) {
        memcpy(rbuf + (size_t)rank * n, sbuf, n * sizeof(int));
        MT_CALL(MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rbuf, (int)n, MPI_INT, root,
                           comm));
    } else if (mode == 2) {
        MT_CALL(MPI_Gather(sbuf, (int)n, MPI_INT, rbuf, (int)n / 2, MPI_2INT, root, comm));
    } else if (mode == 3) {
        MT_CALL(MPI_Gather_c(sbuf, (MPI_Count)n, MPI_INT, rbuf, (MPI_Count)n, MPI_INT, root,
                             comm));
    } else {
        MT_CALL(MPI_Gather(sbuf, (int)n, MPI_INT, rbuf, (int)n, MPI_INT, root, comm));
    }
    if (rank == root) {
        for (int r = 0; r < size; r++) {
            collt_fill(sbuf, n, OP_SUM, r, 0, salt);
            COLLT_CHECK_INTS(rbuf + (size_t)r * n, sbuf, n, "%s: gather n=%zu root %d mode %d "
                             "block of %d", cname, n, root, mode, r);
        }
    }
    free(sbuf);
    free(rbuf);
}

/* Uneven blocks: rank r sends cnt(r) ints; the root stores them in reverse
 * rank order with 3 untouched ints before each. */
static size_t vcnt(int r, size_t m)
{
    return (size_t)((r * 7) % 5) * m + (size_t)(r % 2);
}

static void one_gatherv(MPI_Comm comm, const char *cname, int rank, int size, size_t m,
                        int root, int mode, int salt)
{
    /* mode 0: plain, 1: in place at the root, 2: _c */
    int *counts = mt_malloc((size_t)size * sizeof(int)), *displs = mt_malloc((size_t)size * sizeof(int));
    MPI_Count *ccounts = mt_malloc((size_t)size * sizeof(MPI_Count));
    MPI_Aint *cdispls = mt_malloc((size_t)size * sizeof(MPI_Aint));
    size_t total = 0;
    for (int r = size - 1; r >= 0; r--) {
        total += 3;
        counts[r] = (int)vcnt(r, m);
        displs[r] = (int)total;
        ccounts[r] = counts[r];
        cdispls[r] = displs[r];
        total += (size_t)counts[r];
    }
    size_t mine = vcnt(rank, m);
    int *sbuf = mt_malloc(mine * sizeof(int)), *rbuf = mt_malloc(total * sizeof(int));
    int *want = mt_malloc(total * sizeof(int));
    collt_fill(sbuf, mine, OP_SUM, rank, 0, salt);
    for (size_t i = 0; i < total; i++)
        rbuf[i] = want[i] = POISON;
    for (int r = 0; r < size; r++)
        collt_fill(want + displs[r], (size_t)counts[r], OP_SUM, r, 0, salt);
    if (mode == 1 && rank == root) {
        memcpy(rbuf + displs[rank], sbuf, mine * sizeof(int));
        MT_CALL(MPI_Gatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rbuf, counts, displs, MPI_INT,
                            root, comm));
    } else if (mode == 2) {
        MT_CALL(MPI_Gatherv_c(sbuf, (MPI_Count)mine, MPI_INT, rbuf, ccounts, cdispls, MPI_INT,
                              root, comm));
    } else {
        MT_CALL(MPI_Gatherv(sbuf, (int)mine, MPI_INT, rbuf, counts, displs, MPI_INT, root,
                            comm));
    }
    if (rank == root)
        COLLT_CHECK_INTS(rbuf, want, total, "%s: gatherv m=%zu root %d mode %d", cname, m, root,
                         mode);
    free(counts);
    free(displs);
    free(ccounts);
    free(cdispls);
    free(sbuf);
    free(rbuf);
    free(want);
}

static void run(MPI_Comm comm, const char *cname, int *salt)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    size_t counts[8];
    int nc = collt_counts(counts, 1);   /* even counts (MPI_2INT) */
    for (int ci = 0; ci < nc; ci++) {
        size_t n = counts[ci] > 100000 ? counts[ci] / (size_t)size : counts[ci];
        int big = counts[ci] > 100000;
        for (int root = big ? size - 1 : 0; root < size; root++)
            for (int mode = 0; mode < 4; mode++)
                one_gather(comm, cname, rank, size, n & ~(size_t)1, root, mode, ++*salt);
        for (int root = big ? size - 1 : 0; root < size; root++)
            for (int mode = 0; mode < 3; mode++)
                one_gatherv(comm, cname, rank, size, n / 2, root, mode, ++*salt);
    }
    one_gather(comm, cname, rank, size, 10000, size / 2, 0, ++*salt);
}

int main(int argc, char **argv)
{
    int salt = 0;
    collt_init(&argc, &argv);
    for (int c = 0; c < COLLT_NCOMMS; c++)
        run(collt_comms[c], collt_comm_names[c], &salt);
    return collt_finalize();
}
