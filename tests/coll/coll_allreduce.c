/* MPI_Allreduce (and _c): MPI_IN_PLACE or not, SUM / MAX / a
 * non-commutative matrix product, counts 0..~1 MiB plus a medium vector,
 * on COMM_WORLD and a reversed communicator; MAXLOC on the padded pair type
 * MPI_DOUBLE_INT.  Every rank must get the same result. */
#include "collt.h"

typedef struct {
    double v;
    int i;
} dint_t;

static void pair_check(MPI_Comm comm, int rank, int size, size_t n)
{
    dint_t *s = mt_malloc(n * sizeof *s), *r = mt_malloc(n * sizeof *r);
    for (size_t i = 0; i < n; i++) {
        s[i].v = (double)((collt_val(rank, i, 9) + 100) % 5);
        s[i].i = rank;
    }
    MT_CALL(MPI_Allreduce(s, r, (int)n, MPI_DOUBLE_INT, MPI_MAXLOC, comm));
    for (size_t i = 0; i < n; i++) {
        double best = -1;
        int at = -1;
        for (int q = 0; q < size; q++) {
            double v = (double)((collt_val(q, i, 9) + 100) % 5);
            if (v > best) {
                best = v;
                at = q;
            }
        }
        if (r[i].v != best || r[i].i != at) {
            MT_CHECK(0, "MAXLOC n=%zu: element %zu is (%g,%d), expected (%g,%d)", n, i, r[i].v,
                     r[i].i, best, at);
            break;
        }
    }
    free(s);
    free(r);
}

static void one(MPI_Comm comm, const char *cname, int rank, int size, int op, size_t n,
                int inplace, int wide, int salt)
{
    int *sbuf = mt_malloc(n * sizeof(int)), *rbuf = mt_malloc(n * sizeof(int));
    int *want = mt_malloc(n * sizeof(int)), *tmp = mt_malloc(n * sizeof(int));
    collt_fill(sbuf, n, op, rank, 0, salt);
    for (size_t i = 0; i < n; i++)
        rbuf[i] = -7777;
    const void *s = sbuf;
    if (inplace) {
        memcpy(rbuf, sbuf, n * sizeof(int));
        s = MPI_IN_PLACE;
    }
    if (wide)
        MT_CALL(MPI_Allreduce_c(s, rbuf, (MPI_Count)n, MPI_INT, collt_ops[op], comm));
    else
        MT_CALL(MPI_Allreduce(s, rbuf, (int)n, MPI_INT, collt_ops[op], comm));
    collt_expect(want, tmp, n, op, 0, size, 0, salt);
    COLLT_CHECK_INTS(rbuf, want, n, "%s: allreduce %s n=%zu%s", cname, collt_op_names[op], n,
                     inplace ? " in place" : "");
    free(sbuf);
    free(rbuf);
    free(want);
    free(tmp);
}

static void run(MPI_Comm comm, const char *cname, int *salt)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int op = 0; op < NOPS; op++) {
        size_t counts[8];
        int nc = collt_counts(counts, op == OP_MAT);
        for (int ci = 0; ci < nc; ci++)
            for (int inplace = 0; inplace < 2; inplace++)
                one(comm, cname, rank, size, op, counts[ci], inplace, (ci + inplace) % 2,
                    ++*salt);
        one(comm, cname, rank, size, op, COLLT_MEDIUM, op == OP_MAX, 0, ++*salt);
    }
    pair_check(comm, rank, size, 7);
    pair_check(comm, rank, size, 300);
}

int main(int argc, char **argv)
{
    int salt = 0;
    collt_init(&argc, &argv);
    for (int c = 0; c < COLLT_NCOMMS; c++)
        run(collt_comms[c], collt_comm_names[c], &salt);
    return collt_finalize();
}
