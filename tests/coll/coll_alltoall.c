/* MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw (and _c): MPI_IN_PLACE or
 * not, block sizes 0..~1 MiB in all, different send and receive types with
 * the same signature, uneven counts with blocks in reverse order and gaps
 * that must stay untouched, per-peer types (alltoallw), on COMM_WORLD and a
 * reversed communicator.  The block from r to q holds collt_val(r, q * BIG
 * + i). */
#include "collt.h"

#define POISON (-7777)
#define BIG ((size_t)1000003)

static void one_alltoall(MPI_Comm comm, const char *cname, int rank, int size, size_t n,
                         int mode, int salt)
{
    /* mode 0: plain, 1: in place, 2: send as MPI_2INT (n even), 3: _c */
    size_t total = n * (size_t)size;
    int *sbuf = mt_malloc(total * sizeof(int)), *rbuf = mt_malloc(total * sizeof(int));
    int *want = mt_malloc(total * sizeof(int));
    for (int q = 0; q < size; q++) {
        collt_fill(sbuf + (size_t)q * n, n, OP_SUM, rank, (size_t)q * BIG, salt);
        collt_fill(want + (size_t)q * n, n, OP_SUM, q, (size_t)rank * BIG, salt);
    }
    for (size_t i = 0; i < total; i++)
        rbuf[i] = POISON;
    if (mode == 1) {
        memcpy(rbuf, sbuf, total * sizeof(int));
        MT_CALL(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rbuf, (int)n, MPI_INT, comm));
    } else if (mode == 2) {
        MT_CALL(MPI_Alltoall(sbuf, (int)n / 2, MPI_2INT, rbuf, (int)n, MPI_INT, comm));
    } else if (mode == 3) {
        MT_CALL(MPI_Alltoall_c(sbuf, (MPI_Count)n, MPI_INT, rbuf, (MPI_Count)n, MPI_INT, comm));
    } else {
        MT_CALL(MPI_Alltoall(sbuf, (int)n, MPI_INT, rbuf, (int)n, MPI_INT, comm));
    }
    COLLT_CHECK_INTS(rbuf, want, total, "%s: alltoall n=%zu mode %d", cname, n, mode);
    free(sbuf);
    free(rbuf);
    free(want);
}

/* ints from r to q */
static size_t vcnt(int r, int q, size_t m)
{
    return (size_t)((r + 2 * q) % 3) * m + (size_t)((r + q) % 2);
}

/* Layout of one side: blocks for/from peers in reverse order with gap ints
 * before each; counts[q] = vcnt(me, q) when sending, vcnt(q, me) when
 * receiving.  Returns the total ints. */
static size_t layout(int me, int size, size_t m, int sending, int gap, int *counts, int *displs)
{
    size_t total = 0;
    for (int q = size - 1; q >= 0; q--) {
        total += (size_t)gap;
        counts[q] = (int)(sending ? vcnt(me, q, m) : vcnt(q, me, m));
        displs[q] = (int)total;
        total += (size_t)counts[q];
    }
    return total;
}

static void one_alltoallv(MPI_Comm comm, const char *cname, int rank, int size, size_t m,
                          int mode, int salt)
{
    /* mode 0: v, 1: v in place, 2: v_c, 3: w (MPI_INT / MPI_2INT per peer),
     * 4: w in place, 5: w_c */
    int w = mode >= 3, inplace = mode == 1 || mode == 4, wide = mode == 2 || mode == 5;
    size_t ns = (size_t)size;
    int *sc = mt_malloc(ns * sizeof(int)), *sd = mt_malloc(ns * sizeof(int));
    int *rc = mt_malloc(ns * sizeof(int)), *rd = mt_malloc(ns * sizeof(int));
    MPI_Count *csc = mt_malloc(ns * sizeof(MPI_Count)), *crc = mt_malloc(ns * sizeof(MPI_Count));
    MPI_Aint *csd = mt_malloc(ns * sizeof(MPI_Aint)), *crd = mt_malloc(ns * sizeof(MPI_Aint));
    MPI_Datatype *st = mt_malloc(ns * sizeof(MPI_Datatype)), *rt = mt_malloc(ns * sizeof(MPI_Datatype));
    /* in place: the receive layout holds the outgoing data, so counts must
     * be symmetric: use vcnt(min, max) both ways */
    size_t stotal = layout(rank, size, m, 1, 2, sc, sd);
    size_t rtotal = layout(rank, size, m, 0, 3, rc, rd);
    if (inplace) {
        for (int q = 0; q < size; q++) {
            int lo = rank < q ? rank : q, hi = rank < q ? q : rank;
            rc[q] = (int)vcnt(lo, hi, m);
        }
        rtotal = 0;
        for (int q = size - 1; q >= 0; q--) {
            rtotal += 3;
            rd[q] = (int)rtotal;
            rtotal += (size_t)rc[q];
        }
    }
    int *sbuf = mt_malloc(stotal * sizeof(int)), *rbuf = mt_malloc(rtotal * sizeof(int));
    int *want = mt_malloc(rtotal * sizeof(int));
    for (size_t i = 0; i < stotal; i++)
        sbuf[i] = POISON;
    for (size_t i = 0; i < rtotal; i++)
        rbuf[i] = want[i] = POISON;
    for (int q = 0; q < size; q++) {
        collt_fill(sbuf + sd[q], (size_t)sc[q], OP_SUM, rank, (size_t)q * BIG, salt);
        collt_fill(want + rd[q], (size_t)rc[q], OP_SUM, q, (size_t)rank * BIG, salt);
        if (inplace)
            collt_fill(rbuf + rd[q], (size_t)rc[q], OP_SUM, rank, (size_t)q * BIG, salt);
    }
    const void *s = inplace ? MPI_IN_PLACE : sbuf;
    if (!w) {
        for (int q = 0; q < size; q++) {
            csc[q] = sc[q];
            csd[q] = sd[q];
            crc[q] = rc[q];
            crd[q] = rd[q];
        }
        if (wide)
            MT_CALL(MPI_Alltoallv_c(s, csc, csd, MPI_INT, rbuf, crc, crd, MPI_INT, comm));
        else
            MT_CALL(MPI_Alltoallv(s, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, comm));
    } else {
        /* byte displacements; even-count blocks travel as MPI_2INT on one side */
        for (int q = 0; q < size; q++) {
            st[q] = MPI_INT;
            rt[q] = MPI_INT;
            csc[q] = sc[q];
            crc[q] = rc[q];
            if (sc[q] % 2 == 0 && (rank + q) % 2 == 0 && !inplace) {
                st[q] = MPI_2INT;
                csc[q] = sc[q] / 2;
            }
            if (rc[q] % 2 == 0 && (rank + q) % 3 == 0) {
                rt[q] = MPI_2INT;
                crc[q] = rc[q] / 2;
            }
            csd[q] = (MPI_Aint)sd[q] * (MPI_Aint)sizeof(int);
            crd[q] = (MPI_Aint)rd[q] * (MPI_Aint)sizeof(int);
        }
        if (wide) {
            MT_CALL(MPI_Alltoallw_c(s, csc, csd, st, rbuf, crc, crd, rt, comm));
        } else {
            for (int q = 0; q < size; q++) {
                sc[q] = (int)csc[q];
                sd[q] = (int)csd[q];
                rc[q] = (int)crc[q];
                rd[q] = (int)crd[q];
            }
            MT_CALL(MPI_Alltoallw(s, sc, sd, st, rbuf, rc, rd, rt, comm));
        }
    }
    COLLT_CHECK_INTS(rbuf, want, rtotal, "%s: alltoall%s m=%zu mode %d", cname, w ? "w" : "v", m,
                     mode);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(csc);
    free(crc);
    free(csd);
    free(crd);
    free(st);
    free(rt);
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
            one_alltoall(comm, cname, rank, size, n & ~(size_t)1, mode, ++*salt);
        for (int mode = 0; mode < 6; mode++)
            one_alltoallv(comm, cname, rank, size, n / 2, mode, ++*salt);
    }
    one_alltoall(comm, cname, rank, size, 1, 0, ++*salt);
    one_alltoall(comm, cname, rank, size, 7, 1, ++*salt);
    one_alltoall(comm, cname, rank, size, 10000, 0, ++*salt);
}

int main(int argc, char **argv)
{
    int salt = 0;
    collt_init(&argc, &argv);
    for (int c = 0; c < COLLT_NCOMMS; c++)
        run(collt_comms[c], collt_comm_names[c], &salt);
    return collt_finalize();
}
