/* MPI_Reduce_scatter_block and MPI_Reduce_scatter (and _c): MPI_IN_PLACE or
 * not, SUM / MAX / a non-commutative matrix product (blocks of multiples of
 * 4 ints), uneven and empty blocks, vectors 0..~1 MiB, on COMM_WORLD and a
 * reversed communicator. */
#include "collt.h"

#define POISON (-7777)

/* mode 0: block, 1: block in place, 2: block_c, 3: counts, 4: counts in
 * place, 5: counts _c.  m: ints per block unit (a multiple of 4 for MAT). */
static void one(MPI_Comm comm, const char *cname, int rank, int size, int op, size_t m, int mode,
                int salt)
{
    int block = mode < 3, inplace = mode == 1 || mode == 4, wide = mode == 2 || mode == 5;
    int *counts = mt_malloc((size_t)size * sizeof(int));
    MPI_Count *ccounts = mt_malloc((size_t)size * sizeof(MPI_Count));
    size_t total = 0, first = 0;
    for (int r = 0; r < size; r++) {
        counts[r] = block ? (int)m : (int)(((size_t)(r * 5 + 2) % 4) * m);
        ccounts[r] = counts[r];
        if (r == rank)
            first = total;
        total += (size_t)counts[r];
    }
    size_t mine = (size_t)counts[rank];
    int *sbuf = mt_malloc(total * sizeof(int)), *rbuf = mt_malloc(total * sizeof(int));
    int *want = mt_malloc(mine * sizeof(int)), *tmp = mt_malloc(mine * sizeof(int));
    collt_fill(sbuf, total, op, rank, 0, salt);
    for (size_t i = 0; i < total; i++)
        rbuf[i] = POISON;
    const void *s = sbuf;
    if (inplace) {
        memcpy(rbuf, sbuf, total * sizeof(int));
        s = MPI_IN_PLACE;
    }
    if (block && wide)
        MT_CALL(MPI_Reduce_scatter_block_c(s, rbuf, (MPI_Count)m, MPI_INT, collt_ops[op], comm));
    else if (block)
        MT_CALL(MPI_Reduce_scatter_block(s, rbuf, (int)m, MPI_INT, collt_ops[op], comm));
    else if (wide)
        MT_CALL(MPI_Reduce_scatter_c(s, rbuf, ccounts, MPI_INT, collt_ops[op], comm));
    else
        MT_CALL(MPI_Reduce_scatter(s, rbuf, counts, MPI_INT, collt_ops[op], comm));
    collt_expect(want, tmp, mine, op, 0, size, first, salt);
    COLLT_CHECK_INTS(rbuf, want, mine, "%s: reduce_scatter%s %s m=%zu mode %d", cname,
                     block ? "_block" : "", collt_op_names[op], m, mode);
    /* only the result block is written (pairwise receives into it) */
    for (size_t i = mine; !inplace && i < total; i++) {
        if (rbuf[i] != POISON) {
            mt_fail(__FILE__, __LINE__, "%s: reduce_scatter%s %s m=%zu mode %d: rbuf[%zu] = %d "
                    "past the %zu of the result", cname, block ? "_block" : "",
                    collt_op_names[op], m, mode, i, rbuf[i], mine);
            break;
        }
    }
    free(counts);
    free(ccounts);
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
        for (int ci = 0; ci < nc; ci++) {
            size_t m = counts[ci] > 100000 ? counts[ci] / (size_t)size : counts[ci];
            m = op == OP_MAT ? m & ~(size_t)3 : m;
            /* uneven blocks are 0..3 units of half the size */
            size_t unit = op == OP_MAT ? (m / 2) & ~(size_t)3 : m / 2;
            for (int mode = 0; mode < 6; mode++)
                one(comm, cname, rank, size, op, mode >= 3 ? unit : m, mode, ++*salt);
        }
        one(comm, cname, rank, size, op, (COLLT_MEDIUM / (size_t)size) & ~(size_t)3, 0, ++*salt);
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
