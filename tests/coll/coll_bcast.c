/* MPI_Bcast (and _c): every root, counts 0..~1 MiB plus a medium buffer of
 * several pipeline segments, MPI_INT and the padded pair type
 * MPI_DOUBLE_INT, on COMM_WORLD and a reversed communicator. */
#include "collt.h"

typedef struct {
    double v;
    int i;
} dint_t;

static void one_int(MPI_Comm comm, const char *cname, int rank, size_t n, int root, int wide,
                    int salt)
{
    int *buf = mt_malloc(n * sizeof(int)), *want = mt_malloc(n * sizeof(int));
    collt_fill(want, n, OP_SUM, root, 0, salt);
    if (rank == root)
        memcpy(buf, want, n * sizeof(int));
    else
        for (size_t i = 0; i < n; i++)
            buf[i] = -7777;
    if (wide)
        MT_CALL(MPI_Bcast_c(buf, (MPI_Count)n, MPI_INT, root, comm));
    else
        MT_CALL(MPI_Bcast(buf, (int)n, MPI_INT, root, comm));
    COLLT_CHECK_INTS(buf, want, n, "%s: bcast n=%zu root %d", cname, n, root);
    free(buf);
    free(want);
}

static void one_pair(MPI_Comm comm, const char *cname, int rank, size_t n, int root, int salt)
{
    dint_t *buf = mt_malloc(n * sizeof *buf);
    for (size_t i = 0; i < n; i++) {
        if (rank == root) {
            buf[i].v = collt_val(root, i, salt) * 0.5;
            buf[i].i = collt_val(root, i, salt + 1);
        } else {
            buf[i].v = -1;
            buf[i].i = -1;
        }
    }
    MT_CALL(MPI_Bcast(buf, (int)n, MPI_DOUBLE_INT, root, comm));
    for (size_t i = 0; i < n; i++) {
        if (buf[i].v != collt_val(root, i, salt) * 0.5 || buf[i].i != collt_val(root, i, salt + 1)) {
            MT_CHECK(0, "%s: bcast DOUBLE_INT n=%zu root %d: element %zu wrong", cname, n, root, i);
            break;
        }
    }
    free(buf);
}

static void run(MPI_Comm comm, const char *cname, int *salt)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    size_t counts[8];
    int nc = collt_counts(counts, 0);
    for (int ci = 0; ci < nc; ci++) {
        int big = counts[ci] > 100000;
        for (int root = big ? size - 1 : 0; root < size; root++)
            one_int(comm, cname, rank, counts[ci], root, (root + ci) % 2, ++*salt);
    }
    /* 5 pipeline segments and more than the short-message threshold */
    one_int(comm, cname, rank, 5 * 16384 + 3, size / 2, 0, ++*salt);
    one_pair(comm, cname, rank, 129, 0, ++*salt);
    one_pair(comm, cname, rank, COLLT_MEDIUM, size - 1, ++*salt);
}

int main(int argc, char **argv)
{
    int salt = 0;
    collt_init(&argc, &argv);
    for (int c = 0; c < COLLT_NCOMMS; c++)
        run(collt_comms[c], collt_comm_names[c], &salt);
    return collt_finalize();
}
