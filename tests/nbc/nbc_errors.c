/* Argument checks of the nonblocking and persistent collectives: the right
 * error class, raised through the communicator's error handler. */
#include "nbct.h"

static int handler_calls;

static void count_handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    handler_calls++;
}

int main(int argc, char **argv)
{
    MPI_Comm comm;
    MPI_Errhandler eh;
    MPI_Request rq = MPI_REQUEST_NULL;
    int buf[8] = { 0 }, out[8];

    mt_init(&argc, &argv);
    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MT_CALL(MPI_Comm_create_errhandler(count_handler, &eh));
    MT_CALL(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));

    MT_EXPECT_CLASS(MPI_Ibarrier(MPI_COMM_NULL, &rq), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Ibarrier(comm, NULL), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Ibcast(buf, -1, MPI_INT, 0, comm, &rq), MPI_ERR_COUNT);
    MT_EXPECT_CLASS(MPI_Ibcast(buf, 1, MPI_DATATYPE_NULL, 0, comm, &rq), MPI_ERR_TYPE);
    MT_EXPECT_CLASS(MPI_Ibcast(buf, 1, MPI_INT, mt_size, comm, &rq), MPI_ERR_ROOT);
    MT_EXPECT_CLASS(MPI_Bcast_init(buf, 1, MPI_INT, -5, comm, MPI_INFO_NULL, &rq),
                    MPI_ERR_ROOT);
    MT_EXPECT_CLASS(MPI_Iallreduce(buf, out, 1, MPI_INT, MPI_OP_NULL, comm, &rq), MPI_ERR_OP);
    MT_EXPECT_CLASS(MPI_Iallreduce(buf, buf, 1, MPI_INT, MPI_SUM, comm, &rq), MPI_ERR_BUFFER);
    MT_EXPECT_CLASS(MPI_Allreduce_init(buf, out, 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL,
                                       NULL), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Ireduce_scatter_block(buf, out, -2, MPI_INT, MPI_SUM, comm, &rq),
                    MPI_ERR_COUNT);
    MT_EXPECT_CLASS(MPI_Iscan(buf, out, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL, &rq),
                    MPI_ERR_COMM);
    if (mt_size > 1) {
        int root = mt_rank == 0 ? 1 : 0;
        MT_EXPECT_CLASS(MPI_Ireduce(MPI_IN_PLACE, out, 1, MPI_INT, MPI_SUM, root, comm, &rq),
                        MPI_ERR_BUFFER);
        MT_EXPECT_CLASS(MPI_Igather(MPI_IN_PLACE, 1, MPI_INT, out, 1, MPI_INT, root, comm,
                                    &rq), MPI_ERR_BUFFER);
    }
    if (mt_size == 1) {   /* only the root checks recvcounts */
        MT_EXPECT_CLASS(MPI_Igatherv(buf, 1, MPI_INT, out, NULL, NULL, MPI_INT, 0, comm, &rq),
                        MPI_ERR_ARG);
    }
    MT_CHECK(rq == MPI_REQUEST_NULL, "a failed call set the request");

    /* the communicator's handler sees the error */
    MT_CALL(MPI_Comm_set_errhandler(comm, eh));
    (void)MPI_Ibcast(buf, -1, MPI_INT, 0, comm, &rq);
    (void)MPI_Alltoall_init(buf, -1, MPI_INT, out, 1, MPI_INT, comm, MPI_INFO_NULL, &rq);
    MT_CHECK(handler_calls == 2, "error handler called %d times", handler_calls);
    MT_CALL(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));

    /* persistent: start while active is an error */
    MT_CALL(MPI_Barrier_init(comm, MPI_INFO_NULL, &rq));
    MT_CALL(MPI_Start(&rq));
    MT_EXPECT_CLASS(MPI_Start(&rq), MPI_ERR_REQUEST);
    MT_CALL(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    MT_CALL(MPI_Request_free(&rq));

    MPI_Errhandler_free(&eh);
    MPI_Comm_free(&comm);
    return mt_finalize();
}
