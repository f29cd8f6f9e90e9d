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
    int *sbuf = malloc(sizeof(int) * (size_t)(size * n));
    int *rbuf = malloc(sizeof(int) * (size_t)(size * n));
    MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * (size_t)size);
    MPI_Datatype *rt = malloc(sizeof(MPI_Datatype) * (size_t)size);
    int *cnt = malloc(sizeof(int) * (size_t)size), *dis = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size * n; i++) {
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
    free(sbuf); free(rbuf); free(st); free(rt); free(cnt); free(dis);
    return mt_finalize();
}
