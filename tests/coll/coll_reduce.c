/* MPI_Reduce (and _c): every root, MPI_IN_PLACE at the root, SUM / MAX /
 * a non-commutative matrix product, counts 0..~1 MiB, on COMM_WORLD and a
 * reversed communicator; MAXLOC on the padded pair type MPI_DOUBLE_INT. */
#include "collt.h"

typedef struct {
    double v;
    int i;
} dint_t;

static void pair_check(MPI_Comm comm, int rank, int size, size_t n, int root)
{
    dint_t *s = mt_malloc(n * sizeof *s), *r = mt_malloc(n * sizeof *r);
    for (size_t i = 0; i < n; i++) {
        s[i].v = (double)((collt_val(rank, i, 5) + 100) % 5);
        s[i].i = rank;
    }
    MT_CALL(MPI_Reduce(s, r, (int)n, MPI_DOUBLE_INT, MPI_MAXLOC, root, comm));
    if (rank == root) {
        for (size_t i = 0; i < n; i++) {
            double best = -1;
            int at = -1;
            for (int q = 0; q < size; q++) {
                double v = (double)((collt_val(q, i, 5) + 100) % 5);
                if (v > best) {
                    best = v;
                    at = q;
                }
            }
            if (r[i].v != best || r[i].i != at) {
                MT_CHECK(0, "MAXLOC n=%zu root %d: element %zu is (%g,%d), expected (%g,%d)", n,
                         root, i, r[i].v, r[i].i, best, at);
                break;
            }
        }
    }
    free(s);
    free(r);
}

static void run(MPI_Comm comm, const char *cname, int *salt)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int op = 0; op < NOPS; op++) {
        size_t counts[8];
        int nc = collt_counts(counts, op == OP_MAT);
        for (int ci = 0; ci < nc; ci++) {
            size_t n = counts[ci];
            int big = n > 100000;
            int *sbuf = mt_malloc(n * sizeof(int)), *rbuf = mt_malloc(n * sizeof(int));
            int *want = mt_malloc(n * sizeof(int)), *tmp = mt_malloc(n * sizeof(int));
            for (int root = big ? size - 1 : 0; root < size; root++) {
                for (int inplace = 0; inplace < 2; inplace++) {
                    int wide = (root + inplace) % 2;
                    ++*salt;
                    collt_fill(sbuf, n, op, rank, 0, *salt);
                    for (size_t i = 0; i < n; i++)
                        rbuf[i] = -7777;
                    if (inplace && rank == root) {
                        memcpy(rbuf, sbuf, n * sizeof(int));
                        if (wide)
                            MT_CALL(MPI_Reduce_c(MPI_IN_PLACE, rbuf, (MPI_Count)n, MPI_INT,
                                                 collt_ops[op], root, comm));
                        else
                            MT_CALL(MPI_Reduce(MPI_IN_PLACE, rbuf, (int)n, MPI_INT,
                                               collt_ops[op], root, comm));
                    } else if (wide) {
                        MT_CALL(MPI_Reduce_c(sbuf, rbuf, (MPI_Count)n, MPI_INT, collt_ops[op],
                                             root, comm));
                    } else {
                        MT_CALL(MPI_Reduce(sbuf, rbuf, (int)n, MPI_INT, collt_ops[op], root,
                                           comm));
                    }
                    if (rank == root) {
                        collt_expect(want, tmp, n, op, 0, size, 0, *salt);
                        COLLT_CHECK_INTS(rbuf, want, n, "%s: reduce %s n=%zu root %d%s", cname,
                                         collt_op_names[op], n, root,
                                         inplace ? " in place" : "");
                    }
                }
            }
            free(sbuf);
            free(rbuf);
            free(want);
            free(tmp);
        }
    }
    /* medium vectors (long-message algorithms in the automatic choice) */
    for (int op = OP_SUM; op < NOPS; op += OP_MAT - OP_SUM) {
        size_t n = COLLT_MEDIUM;
        int *sbuf = mt_malloc(n * sizeof(int)), *rbuf = mt_malloc(n * sizeof(int));
        int *want = mt_malloc(n * sizeof(int)), *tmp = mt_malloc(n * sizeof(int));
        int root = size / 2;
        ++*salt;
        collt_fill(sbuf, n, op, rank, 0, *salt);
        MT_CALL(MPI_Reduce(sbuf, rbuf, (int)n, MPI_INT, collt_ops[op], root, comm));
        if (rank == root) {
            collt_expect(want, tmp, n, op, 0, size, 0, *salt);
            COLLT_CHECK_INTS(rbuf, want, n, "%s: reduce %s n=%zu root %d", cname,
                             collt_op_names[op], n, root);
        }
        free(sbuf);
        free(rbuf);
        free(want);
        free(tmp);
    }
    pair_check(comm, rank, size, 7, 0);
    pair_check(comm, rank, size, 129, size - 1);
}

int main(int argc, char **argv)
{
    int salt = 0;
    collt_init(&argc, &argv);
    for (int c = 0; c < COLLT_NCOMMS; c++)
        run(collt_comms[c], collt_comm_names[c], &salt);
    return collt_finalize();
}
