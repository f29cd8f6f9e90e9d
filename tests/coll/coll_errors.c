/* Argument checks of the collectives added with the vector forms: error
 * classes for MPI_IN_PLACE where MPI forbids it, negative counts in count
 * arrays, bad roots and aliased buffers.  Every check is local (raised
 * before any message), so a failing call never leaves a peer waiting.  Runs
 * under MPI_ERRORS_RETURN. */
#include "collt.h"

int main(int argc, char **argv)
{
    collt_init(&argc, &argv);
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank = mt_rank, size = mt_size, root = size - 1;
    int *counts = mt_malloc((size_t)size * sizeof(int)), *displs = mt_malloc((size_t)size * sizeof(int));
    int buf[64] = { 0 }, buf2[64] = { 0 };

    for (int r = 0; r < size; r++) {
        counts[r] = 1;
        displs[r] = r;
    }
    /* MPI_IN_PLACE as recvbuf of a scatter on a non-root rank */
    if (rank != root) {
        MT_EXPECT_CLASS(MPI_Scatter(buf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, root, comm),
                        MPI_ERR_BUFFER);
        MT_EXPECT_CLASS(MPI_Scatterv(buf, counts, displs, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, root,
                                     comm), MPI_ERR_BUFFER);
        MT_EXPECT_CLASS(MPI_Gatherv(MPI_IN_PLACE, 1, MPI_INT, buf, counts, displs, MPI_INT, root,
                                    comm), MPI_ERR_BUFFER);
    }
    MT_EXPECT_CLASS(MPI_Scatter(buf, 1, MPI_INT, buf2, 1, MPI_INT, size, comm), MPI_ERR_ROOT);
    MT_EXPECT_CLASS(MPI_Gatherv(buf, 1, MPI_INT, buf2, counts, displs, MPI_INT, -1, comm),
                    MPI_ERR_ROOT);
    /* a negative count in an array */
    counts[size - 1] = -1;
    MT_EXPECT_CLASS(MPI_Allgatherv(buf, 1, MPI_INT, buf2, counts, displs, MPI_INT, comm),
                    MPI_ERR_COUNT);
    MT_EXPECT_CLASS(MPI_Reduce_scatter(buf, buf2, counts, MPI_INT, MPI_SUM, comm), MPI_ERR_COUNT);
    MT_EXPECT_CLASS(MPI_Alltoallv(buf, counts, displs, MPI_INT, buf2, counts, displs, MPI_INT, comm),
                    MPI_ERR_COUNT);
    counts[size - 1] = 1;
    MT_EXPECT_CLASS(MPI_Reduce_scatter_block(buf, buf2, -2, MPI_INT, MPI_SUM, comm),
                    MPI_ERR_COUNT);
    MT_EXPECT_CLASS(MPI_Scan(buf, buf2, -1, MPI_INT, MPI_SUM, comm), MPI_ERR_COUNT);
    /* aliased send and receive buffers */
    MT_EXPECT_CLASS(MPI_Scan(buf, buf, 4, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER);
    MT_EXPECT_CLASS(MPI_Exscan(buf, buf, 4, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER);
    MT_EXPECT_CLASS(MPI_Allgatherv(buf, 1, MPI_INT, buf, counts, displs, MPI_INT, comm),
                    MPI_ERR_BUFFER);
    /* an op that is not defined on the type */
    MT_EXPECT_CLASS(MPI_Exscan(buf, buf2, 4, MPI_DOUBLE_INT, MPI_SUM, comm), MPI_ERR_OP);
    /* and the communicator still works */
    int one = 1, sum = 0;
    MT_CALL(MPI_Scan(&one, &sum, 1, MPI_INT, MPI_SUM, comm));
    MT_CHECK(sum == rank + 1, "scan after errors: %d, expected %d", sum, rank + 1);
    free(counts);
    free(displs);
    return collt_finalize();
}
