/* Collectives on MPI_BOTTOM with absolute-address datatypes (what mpi4py's
 * test_cco_vec testAlltoallwBottom does): send and receive "buffers" are both
 * MPI_BOTTOM, so equal pointers must not be taken for "same data, nothing to
 * copy" when the types describe different memory, and a receive into
 * MPI_BOTTOM (a NULL buffer) must still be unpacked. */
#include "mtest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int n = 3, size = mt_size;
    int m = size < 2 ? 2 : size;        /* blocks: a ring has two neighbours */
    int *sbuf = malloc(sizeof(int) * (size_t)(m * n));
    int *rbuf = malloc(sizeof(int) * (size_t)(m * n));
    MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * (size_t)size);
    MPI_Datatype *rt = malloc(sizeof(MPI_Datatype) * (size_t)size);
    int *cnt = malloc(sizeof(int) * (size_t)size), *dis = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < m * n; i++) {
        sbuf[i] = mt_rank * 1000 + i;
        rbuf[i] = -1;
    }
    for (int p = 0; p < size; p++) {
        MPI_Aint sa, ra;
        MT_CALL(MPI_Get_address(sbuf + p * n, &sa));
        MT_CALL(MPI_Get_address(rbuf + p * n, &ra));
        int bl = n;
        MT_CALL(MPI_Type_create_struct(1, &bl, &sa, (MPI_Datatype[]){MPI_INT}, &st[p]));
        MT_CALL(MPI_Type_create_struct(1, &bl, &ra, (MPI_Datatype[]){MPI_INT}, &rt[p]));
        MT_CALL(MPI_Type_commit(&st[p]));
        MT_CALL(MPI_Type_commit(&rt[p]));
        cnt[p] = 1;
        dis[p] = 0;
    }
    MT_CALL(MPI_Alltoallw(MPI_BOTTOM, cnt, dis, st, MPI_BOTTOM, cnt, dis, rt, MPI_COMM_WORLD));
    for (int p = 0; p < size; p++)
        for (int i = 0; i < n; i++)
            MT_CHECK(rbuf[p * n + i] == p * 1000 + mt_rank * n + i,
                     "alltoallw bottom: rbuf[%d] = %d, want %d", p * n + i, rbuf[p * n + i],
                     p * 1000 + mt_rank * n + i);
    for (int p = 0; p < size; p++) {
        MT_CALL(MPI_Type_free(&st[p]));
        MT_CALL(MPI_Type_free(&rt[p]));
    }
    free(st); free(rt); free(cnt); free(dis);

    /* predefined types at absolute byte displacements from MPI_BOTTOM (the
     * large-count form: addresses need MPI_Aint) */
    MPI_Count *ccnt = malloc(sizeof(MPI_Count) * (size_t)m);
    MPI_Aint *sd = malloc(sizeof(MPI_Aint) * (size_t)m);
    MPI_Aint *rd = malloc(sizeof(MPI_Aint) * (size_t)m);
    MPI_Datatype *ints = malloc(sizeof(MPI_Datatype) * (size_t)m);
    for (int p = 0; p < m; p++) {
        MT_CALL(MPI_Get_address(sbuf + p * n, &sd[p]));
        MT_CALL(MPI_Get_address(rbuf + p * n, &rd[p]));
        ccnt[p] = n;
        ints[p] = MPI_INT;
    }
    for (int i = 0; i < size * n; i++) {
        rbuf[i] = -1;
    }
    MT_CALL(MPI_Alltoallw_c(MPI_BOTTOM, ccnt, sd, ints, MPI_BOTTOM, ccnt, rd, ints,
                            MPI_COMM_WORLD));
    for (int p = 0; p < size; p++)
        for (int i = 0; i < n; i++)
            MT_CHECK(rbuf[p * n + i] == p * 1000 + mt_rank * n + i,
                     "alltoallw_c bottom: rbuf[%d] = %d, want %d", p * n + i, rbuf[p * n + i],
                     p * 1000 + mt_rank * n + i);

    /* the same through a neighbourhood: a periodic ring, left then right */
    MPI_Comm ring;
    int dims = size, periods = 1, left, right;
    MT_CALL(MPI_Cart_create(MPI_COMM_WORLD, 1, &dims, &periods, 0, &ring));
    MT_CALL(MPI_Cart_shift(ring, 0, 1, &left, &right));
    int ncnt[2] = { n, n };
    for (int i = 0; i < 2 * n; i++) {
        rbuf[i] = -1;
    }
    MT_CALL(MPI_Neighbor_alltoallw(MPI_BOTTOM, ncnt, sd, ints, MPI_BOTTOM, ncnt, rd, ints, ring));
    /* from the left neighbour: what it sent to its right (its block 1);
     * from the right: what it sent to its left (its block 0) */
    for (int i = 0; i < n; i++) {
        MT_CHECK(rbuf[i] == left * 1000 + n + i, "neighbor_alltoallw bottom: from left [%d] = %d",
                 i, rbuf[i]);
        MT_CHECK(rbuf[n + i] == right * 1000 + i, "neighbor_alltoallw bottom: from right [%d] = %d",
                 i, rbuf[n + i]);
    }
    MT_CALL(MPI_Comm_free(&ring));
    /* a block that itself starts at NULL is still refused */
    MT_CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Aint zero[1] = { 0 };
    MPI_Count one[1] = { 1 };
    if (size == 1) {
        int rc = MPI_Alltoallw_c(MPI_BOTTOM, one, zero, ints, rbuf, one, rd, ints, MPI_COMM_WORLD);
        int cls = -1;
        MPI_Error_class(rc, &cls);
        MT_CHECK(cls == MPI_ERR_BUFFER, "alltoallw_c with a block at NULL: class %d", cls);
    }
    free(ccnt); free(sd); free(rd); free(ints);
    free(sbuf); free(rbuf);
    return mt_finalize();
}
