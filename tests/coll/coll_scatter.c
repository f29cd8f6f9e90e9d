/* MPI_Scatter and MPI_Scatterv (and _c): every root, MPI_IN_PLACE at the
 * root, block sizes 0..~1 MiB in all, different send and receive types with
 * the same signature (k MPI_2INT against 2k MPI_INT), Scatterv with uneven
 * counts and blocks in reverse order, on COMM_WORLD and a reversed
 * communicator. */
#include "collt.h"

#define POISON (-7777)

static void one_scatter(MPI_Comm comm, const char *cname, int rank, int size, size_t n, int root,
                        int mode, int salt)
{
    /* mode 0: plain, 1: in place at the root, 2: send as MPI_2INT (n even), 3: _c */
    size_t total = n * (size_t)size;
    int *sbuf = mt_malloc(total * sizeof(int)), *rbuf = mt_malloc(n * sizeof(int));
    int *want = mt_malloc(n * sizeof(int));
    for (int r = 0; r < size; r++)
        collt_fill(sbuf + (size_t)r * n, n, OP_SUM, r, 0, salt);
    for (size_t i = 0; i < n; i++)
        rbuf[i] = POISON;
    if (mode == 1 && rank == root) {
        MT_CALL(MPI_Scatter(sbuf, (int)n, MPI_INT, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, root,
                            comm));
        memcpy(rbuf, sbuf + (size_t)rank * n, n * sizeof(int));   /* my block stays put */
    } else if (mode == 2) {
        MT_CALL(MPI_Scatter(sbuf, (int)n / 2, MPI_2INT, rbuf, (int)n, MPI_INT, root, comm));
    } else if (mode == 3) {
        MT_CALL(MPI_Scatter_c(sbuf, (MPI_Count)n, MPI_INT, rbuf, (MPI_Count)n, MPI_INT, root,
                              comm));
    } else {
        MT_CALL(MPI_Scatter(sbuf, (int)n, MPI_INT, rbuf, (int)n, MPI_INT, root, comm));
    }
    collt_fill(want, n, OP_SUM, rank, 0, salt);
    COLLT_CHECK_INTS(rbuf, want, n, "%s: scatter n=%zu root %d mode %d", cname, n, root, mode);
    if (rank == root)   /* the send buffer is left alone */
        for (int r = 0; r < size; r++) {
            collt_fill(want, n, OP_SUM, r, 0, salt);
            COLLT_CHECK_INTS(sbuf + (size_t)r * n, want, n, "%s: scatter n=%zu root %d mode %d: "
                             "sendbuf block %d changed", cname, n, root, mode, r);
        }
    free(sbuf);
    free(rbuf);
    free(want);
}

static size_t vcnt(int r, size_t m)
{
    return (size_t)((r * 3) % 4) * m + (size_t)(r % 2);
}

static void one_scatterv(MPI_Comm comm, const char *cname, int rank, int size, size_t m,
                         int root, int mode, int salt)
{
    /* mode 0: plain, 1: in place at the root, 2: _c */
    int *counts = mt_malloc((size_t)size * sizeof(int)), *displs = mt_malloc((size_t)size * sizeof(int));
    MPI_Count *ccounts = mt_malloc((size_t)size * sizeof(MPI_Count));
    MPI_Aint *cdispls = mt_malloc((size_t)size * sizeof(MPI_Aint));
    size_t total = 0;
    for (int r = size - 1; r >= 0; r--) {
        total += 2;
        counts[r] = (int)vcnt(r, m);
        displs[r] = (int)total;
        ccounts[r] = counts[r];
        cdispls[r] = displs[r];
        total += (size_t)counts[r];
    }
    size_t mine = vcnt(rank, m);
    int *sbuf = mt_malloc(total * sizeof(int)), *rbuf = mt_malloc(mine * sizeof(int));
    int *want = mt_malloc(mine * sizeof(int));
    for (size_t i = 0; i < total; i++)
        sbuf[i] = POISON;
    for (int r = 0; r < size; r++)
        collt_fill(sbuf + displs[r], (size_t)counts[r], OP_SUM, r, 0, salt);
    for (size_t i = 0; i < mine; i++)
        rbuf[i] = POISON;
    if (mode == 1 && rank == root) {
        MT_CALL(MPI_Scatterv(sbuf, counts, displs, MPI_INT, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL,
                             root, comm));
        memcpy(rbuf, sbuf + displs[rank], mine * sizeof(int));
    } else if (mode == 2) {
        MT_CALL(MPI_Scatterv_c(sbuf, ccounts, cdispls, MPI_INT, rbuf, (MPI_Count)mine, MPI_INT,
                               root, comm));
    } else {
        MT_CALL(MPI_Scatterv(sbuf, counts, displs, MPI_INT, rbuf, (int)mine, MPI_INT, root,
                             comm));
    }
    collt_fill(want, mine, OP_SUM, rank, 0, salt);
    COLLT_CHECK_INTS(rbuf, want, mine, "%s: scatterv m=%zu root %d mode %d", cname, m, root, mode);
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
                one_scatter(comm, cname, rank, size, n & ~(size_t)1, root, mode, ++*salt);
        for (int root = big ? size - 1 : 0; root < size; root++)
            for (int mode = 0; mode < 3; mode++)
                one_scatterv(comm, cname, rank, size, n / 2, root, mode, ++*salt);
    }
    one_scatter(comm, cname, rank, size, 10000, size / 2, 0, ++*salt);
}

int main(int argc, char **argv)
{
    int salt = 0;
    collt_init(&argc, &argv);
    for (int c = 0; c < COLLT_NCOMMS; c++)
        run(collt_comms[c], collt_comm_names[c], &salt);
    return collt_finalize();
}
