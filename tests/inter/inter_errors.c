/* Argument errors on and around intercommunicators: error classes through
 * MPI_ERRORS_RETURN (inherited from the local communicator). */
#include "inter_common.h"

int main(int argc, char **argv)
{
    it_t t;
    MPI_Comm nc = MPI_COMM_NULL;
    int x = 0, y = 0, flag;
    int dims[1] = { 1 }, periods[1] = { 0 };

    mt_init(&argc, &argv);
    if (mt_size < 2) {
        MT_DIE("needs 2 processes");
    }
    it_setup(&t);
    MT_EXPECT_CLASS(MPI_Intercomm_create(t.local, t.lsize, MPI_COMM_WORLD, 0, 1, &nc),
                    MPI_ERR_RANK);
    MT_EXPECT_CLASS(MPI_Intercomm_create(t.local, -1, MPI_COMM_WORLD, 0, 1, &nc),
                    MPI_ERR_RANK);
    if (t.lrank == 0) {
        /* remote leader out of range / inside my own group: checked at the leader */
        MPI_Comm self = MPI_COMM_SELF;
        MT_EXPECT_CLASS(MPI_Intercomm_create(self, 0, MPI_COMM_WORLD, mt_size, 1, &nc),
                        MPI_ERR_RANK);
        MT_EXPECT_CLASS(MPI_Intercomm_create(self, 0, MPI_COMM_WORLD, mt_rank, 1, &nc),
                        MPI_ERR_RANK);
    }
    MT_EXPECT_CLASS(MPI_Intercomm_create(t.inter, 0, MPI_COMM_WORLD, 0, 1, &nc), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &nc), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Comm_remote_size(t.local, &x), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, t.inter), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, t.inter), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Cart_create(t.inter, 1, dims, periods, 0, &nc), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Comm_split_type(t.inter, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &nc),
                    MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Send(&x, 1, MPI_INT, t.rsize, 0, t.inter), MPI_ERR_RANK);
    MT_EXPECT_CLASS(MPI_Bcast(&x, 1, MPI_INT, t.rsize, t.inter), MPI_ERR_ROOT);
    MT_EXPECT_CLASS(MPI_Bcast(&x, 1, MPI_INT, -7, t.inter), MPI_ERR_ROOT);
    MT_EXPECT_CLASS(MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, t.inter),
                    MPI_ERR_BUFFER);
    /* PROC_NULL send/recv on an intercomm are fine */
    MT_CALL(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, t.inter));
    MT_CALL(MPI_Comm_test_inter(t.inter, &flag));
    MT_CHECK(flag, "not an intercomm after the errors");
    /* still usable */
    MT_CALL(MPI_Barrier(t.inter));
    it_teardown(&t);
    return mt_finalize();
}
