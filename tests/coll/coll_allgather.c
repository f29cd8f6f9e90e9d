/* MPI_Allgather and MPI_Allgatherv (and _c): MPI_IN_PLACE or not, block
 * sizes 0..~1 MiB in all, different send and receive types with the same
 * signature (2k MPI_INT against k MPI_2INT), Allgatherv with uneven counts,
 * blocks in reverse order and gaps that must stay untouched, on COMM_WORLD
 * and a reversed communicator. */
#include "collt.h"

#define POISON (-7777)

static void one_allgather(MPI_Comm comm, const char *cname, int rank, int size, size_t n,
                          int mode, int salt)
{
    /* mode 0: plain, 1: in place, 2: recv as MPI_2INT (n even), 3: _c */
    size_t total = n * (size_t)size;
    int *sbuf = mt_malloc(n * sizeof(int)), *rbuf = mt_malloc(total * sizeof(int));
    int *want = mt_malloc(total * sizeof(int));
    collt_fill(sbuf, n, OP_SUM, rank, 0, salt);
    for (size_t i = 0; i < total; i++)
        rbuf[i] = POISON;
    for (int r = 0; r < size; r++)
        collt_fill(want + (size_t)r * n, n, OP_SUM, r, 0, salt);
    if (mode == 1) {
        memcpy(rbuf + (size_t)rank * n, sbuf, n * sizeof(int));
        MT_CALL(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rbuf, (int)n, MPI_INT, comm));
    } else if (mode == 2) {
        MT_CALL(MPI_Allgather(sbuf, (int)n, MPI_INT, rbuf, (int)n / 2, MPI_2INT, comm));
    } else if (mode == 3) {
        MT_CALL(MPI_Allgather_c(sbuf, (MPI_Count)n, MPI_INT, rbuf, (MPI_Count)n, MPI_INT, comm));
    } else {
        MT_CALL(MPI_Allgather(sbuf, (int)n, MPI_INT, rbuf, (int)n, MPI_INT, comm));
    }
    COLLT_CHECK_INTS(rbuf, want, total, "%s: allgather n=%zu mode %d", cname, n, mode);
    free(sbuf);
    free(rbuf);
    free(want);
}

static size_t vcnt(int r, size_t m)
{
    return (size_t)((r * 5) % 3) * m + (size_t)(r % 2);
}

static void one_allgatherv(MPI_Comm comm, const char *cname, int rank, int size, size_t m,
                           int mode, int salt)
{
    /* mode 0: plain, 1: in place, 2: _c */
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
    if (mode == 1) {
        memcpy(rbuf + displs[rank], sbuf, mine * sizeof(int));
        MT_CALL(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rbuf, counts, displs, MPI_INT,
                               comm));
    } else if (mode == 2) {
        MT_CALL(MPI_Allgatherv_c(sbuf, (MPI_Count)mine, MPI_INT, rbuf, ccounts, cdispls, MPI_INT,
                                 comm));
    } else {
        MT_CALL(MPI_Allgatherv(sbuf, (int)mine, MPI_INT, rbuf, counts, displs, MPI_INT, comm));
    }
    COLLT_CHECK_INTS(rbuf, want, total, "%s: allgatherv m=%zu mode %d", cname, m, mode);
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
        for (int mode = 0; mode < 4; mode++)
            one_allgather(comm, cname, rank, size, n & ~(size_t)1, mode, ++*salt);
        for (int mode = 0; mode < 3; mode++)
            one_allgatherv(comm, cname, rank, size, n / 2, mode, ++*salt);
    }
    /* odd block sizes, and a total above the short-message thresholds */
    one_allgather(comm, cname, rank, size, 7, 0, ++*salt);
    one_allgather(comm, cname, rank, size, 7, 1, ++*salt);
    one_allgather(comm, cname, rank, size, COLLT_MEDIUM / (size_t)size, 1, ++*salt);
}

int main(int argc, char **argv)
{
    int salt = 0;
    collt_init(&argc, &argv);
    for (int c = 0; c < COLLT_NCOMMS; c++)
        run(collt_comms[c], collt_comm_names[c], &salt);
    return collt_finalize();
}
