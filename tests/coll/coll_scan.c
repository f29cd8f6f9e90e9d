/* MPI_Scan and MPI_Exscan (and _c): MPI_IN_PLACE or not, SUM / MAX / a
 * non-commutative matrix product, counts 0..~1 MiB, on COMM_WORLD and a
 * reversed communicator.  Exscan's result on rank 0 is undefined and not
 * checked. */
#include "collt.h"

#define POISON (-7777)

static void one(MPI_Comm comm, const char *cname, int rank, int op, size_t n, int excl,
                int inplace, int wide, int salt)
{
    int *sbuf = mt_malloc(n * sizeof(int)), *rbuf = mt_malloc(n * sizeof(int));
    int *want = mt_malloc(n * sizeof(int)), *tmp = mt_malloc(n * sizeof(int));
    collt_fill(sbuf, n, op, rank, 0, salt);
    for (size_t i = 0; i < n; i++)
        rbuf[i] = POISON;
    const void *s = sbuf;
    if (inplace) {
        memcpy(rbuf, sbuf, n * sizeof(int));
        s = MPI_IN_PLACE;
    }
    if (excl && wide)
        MT_CALL(MPI_Exscan_c(s, rbuf, (MPI_Count)n, MPI_INT, collt_ops[op], comm));
    else if (excl)
        MT_CALL(MPI_Exscan(s, rbuf, (int)n, MPI_INT, collt_ops[op], comm));
    else if (wide)
        MT_CALL(MPI_Scan_c(s, rbuf, (MPI_Count)n, MPI_INT, collt_ops[op], comm));
    else
        MT_CALL(MPI_Scan(s, rbuf, (int)n, MPI_INT, collt_ops[op], comm));
    int hi = excl ? rank : rank + 1;
    if (hi > 0) {
        collt_expect(want, tmp, n, op, 0, hi, 0, salt);
        COLLT_CHECK_INTS(rbuf, want, n, "%s: %s %s n=%zu%s", cname, excl ? "exscan" : "scan",
                         collt_op_names[op], n, inplace ? " in place" : "");
    }
    free(sbuf);
    free(rbuf);
    free(want);
    free(tmp);
}

static void run(MPI_Comm comm, const char *cname, int *salt)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    for (int op = 0; op < NOPS; op++) {
        size_t counts[8];
        int nc = collt_counts(counts, op == OP_MAT);
        for (int ci = 0; ci < nc; ci++)
            for (int excl = 0; excl < 2; excl++)
                for (int inplace = 0; inplace < 2; inplace++)
                    one(comm, cname, rank, op, counts[ci], excl, inplace, (ci + inplace) % 2,
                        ++*salt);
        one(comm, cname, rank, op, COLLT_MEDIUM, 0, 0, 0, ++*salt);
        one(comm, cname, rank, op, COLLT_MEDIUM, 1, 1, 0, ++*salt);
    }
}

int main(int argc, char **argv)
{
    int salt = 0;
    collt_init(&argc, &argv);
    for (int c = 0; c < COLLT_NCOMMS; c++)
        run(collt_comms[c], collt_comm_names[c], &salt);
    return collt_finalize();
}
