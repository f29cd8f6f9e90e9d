/* Argument errors on and around intercommunicators: error classes through
 * MPI_ERRORS_RETURN (inherited from the local communicator). */
#include "inter_common.h"

static int eh_calls;
static MPI_Comm eh_comm;
static int eh_code;

static void eh_fn(MPI_Comm *comm, int *code, ...)
{
    eh_calls++;
    eh_comm = *comm;
    eh_code = *code;
}

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
    /* not an error: an intercommunicator splits by type as by color (one
     * node here, so both groups stay whole), MPI_UNDEFINED gives no comm */
    MT_CALL(MPI_Comm_split_type(t.inter, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &nc));
    if (nc != MPI_COMM_NULL) {
        int isinter = 0, rs = -1;
        MT_CALL(MPI_Comm_test_inter(nc, &isinter));
        MT_CALL(MPI_Comm_remote_size(nc, &rs));
        MT_CHECK(isinter && rs == t.rsize, "split_type of the intercomm: inter %d, remote size %d",
                 isinter, rs);
        MT_CALL(MPI_Comm_free(&nc));
    } else {
        MT_CHECK(0, "split_type of the intercomm gave MPI_COMM_NULL");
    }
    MT_CALL(MPI_Comm_split_type(t.inter, MPI_UNDEFINED, 0, MPI_INFO_NULL, &nc));
    MT_CHECK(nc == MPI_COMM_NULL, "split_type MPI_UNDEFINED gave a communicator");
    MT_EXPECT_CLASS(MPI_Send(&x, 1, MPI_INT, t.rsize, 0, t.inter), MPI_ERR_RANK);
    MT_EXPECT_CLASS(MPI_Bcast(&x, 1, MPI_INT, t.rsize, t.inter), MPI_ERR_ROOT);
    MT_EXPECT_CLASS(MPI_Bcast(&x, 1, MPI_INT, -7, t.inter), MPI_ERR_ROOT);
    MT_EXPECT_CLASS(MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, t.inter),
                    MPI_ERR_BUFFER);
    MT_EXPECT_CLASS(MPI_Comm_split(t.inter, -5, 0, &nc), MPI_ERR_ARG);
    {
        MPI_Group wg;
        MT_CALL(MPI_Comm_group(MPI_COMM_WORLD, &wg));
        /* the world group is no subset of the local group */
        MT_EXPECT_CLASS(MPI_Comm_create(t.inter, wg, &nc), MPI_ERR_GROUP);
        MT_CALL(MPI_Group_free(&wg));
    }
    MT_EXPECT_CLASS(MPI_Comm_create_group(t.inter, MPI_GROUP_EMPTY, 0, &nc), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Gather(&x, 1, MPI_INT, &y, 1, MPI_INT, t.rsize + 3, t.inter),
                    MPI_ERR_ROOT);
    /* PROC_NULL send/recv on an intercomm are fine */
    MT_CALL(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, t.inter));
    MT_CALL(MPI_Comm_test_inter(t.inter, &flag));
    MT_CHECK(flag, "not an intercomm after the errors");
    /* a user error handler on the intercommunicator sees it as comm */
    {
        MPI_Errhandler eh, got;
        int cls;
        MT_CALL(MPI_Comm_create_errhandler(eh_fn, &eh));
        MT_CALL(MPI_Comm_set_errhandler(t.inter, eh));
        MT_CALL(MPI_Comm_get_errhandler(t.inter, &got));
        MT_CHECK(got == eh, "get_errhandler returned another handler");
        MT_CALL(MPI_Errhandler_free(&got));
        MPI_Send(&x, 1, MPI_INT, -5, 0, t.inter);
        MT_CHECK(eh_calls == 1 && eh_comm == t.inter, "handler calls %d", eh_calls);
        MPI_Error_class(eh_code, &cls);
        MT_CHECK(cls == MPI_ERR_RANK, "handler got class %d", cls);
        /* the dup inherits it */
        MPI_Comm d;
        MT_CALL(MPI_Comm_dup(t.inter, &d));
        MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, -9, d);
        MT_CHECK(eh_calls == 2 && eh_comm == d, "handler on the dup: calls %d", eh_calls);
        MPI_Error_class(eh_code, &cls);
        MT_CHECK(cls == MPI_ERR_ROOT, "handler got class %d on the dup", cls);
        MT_CALL(MPI_Comm_free(&d));
        MT_CALL(MPI_Comm_set_errhandler(t.inter, MPI_ERRORS_RETURN));
        MT_CALL(MPI_Errhandler_free(&eh));
    }
    /* still usable */
    MT_CALL(MPI_Barrier(t.inter));
    it_teardown(&t);
    return mt_finalize();
}
