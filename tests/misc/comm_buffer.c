/* MPI-4.1 communicator buffers: Comm_attach_buffer / detach / flush /
 * iflush, MPI_Buffer_iflush; a communicator's buffer takes precedence over
 * the process's. */
#include "mtest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm dup;
    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    int sz = 4 * (int)sizeof(int) + 4 * MPI_BSEND_OVERHEAD;
    char *cbuf = malloc((size_t)sz);

    /* no buffer anywhere: Bsend fails */
    int x = mt_rank;
    MT_EXPECT_CLASS(MPI_Bsend(&x, 1, MPI_INT, right, 0, dup), MPI_ERR_BUFFER);
    /* a buffer on dup only */
    MT_CALL(MPI_Comm_attach_buffer(dup, cbuf, sz));
    MT_EXPECT_CLASS(MPI_Comm_attach_buffer(dup, cbuf, sz), MPI_ERR_BUFFER);
    int vals[4], got[4];
    for (int i = 0; i < 4; i++) {
        vals[i] = mt_rank * 100 + i;
        MT_CALL(MPI_Bsend(&vals[i], 1, MPI_INT, right, i, dup));
    }
    /* still no process buffer: MPI_COMM_WORLD cannot buffer */
    MT_EXPECT_CLASS(MPI_Bsend(&x, 1, MPI_INT, right, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    MPI_Request fr;
    MT_CALL(MPI_Comm_iflush_buffer(dup, &fr));
    for (int i = 0; i < 4; i++)
        MT_CALL(MPI_Recv(&got[i], 1, MPI_INT, left, i, dup, MPI_STATUS_IGNORE));
    MT_CALL(MPI_Wait(&fr, MPI_STATUS_IGNORE));
    for (int i = 0; i < 4; i++)
        MT_CHECK(got[i] == left * 100 + i, "got[%d] = %d", i, got[i]);
    MT_CALL(MPI_Comm_flush_buffer(dup));
    void *back = NULL;
    int bsz = -1;
    MT_CALL(MPI_Comm_detach_buffer(dup, &back, &bsz));
    MT_CHECK(back == cbuf && bsz == sz, "detach %p %d", back, bsz);
    MT_EXPECT_CLASS(MPI_Comm_detach_buffer(dup, &back, &bsz), MPI_ERR_BUFFER);

    /* automatic buffer on a communicator, _c forms */
    MT_CALL(MPI_Comm_attach_buffer_c(dup, MPI_BUFFER_AUTOMATIC, 0));
    MT_CALL(MPI_Bsend(&x, 1, MPI_INT, right, 9, dup));
    MT_CALL(MPI_Recv(&got[0], 1, MPI_INT, left, 9, dup, MPI_STATUS_IGNORE));
    MT_CHECK(got[0] == left, "automatic got %d", got[0]);
    MPI_Count csz = -1;
    MT_CALL(MPI_Comm_detach_buffer_c(dup, &back, &csz));
    MT_CHECK(back == MPI_BUFFER_AUTOMATIC, "automatic detach");

    /* process buffer and MPI_Buffer_iflush */
    char *pbuf = malloc((size_t)sz);
    MT_CALL(MPI_Buffer_attach(pbuf, sz));
    MT_CALL(MPI_Bsend(&x, 1, MPI_INT, right, 11, MPI_COMM_WORLD));
    MT_CALL(MPI_Buffer_iflush(&fr));
    MT_CALL(MPI_Recv(&got[0], 1, MPI_INT, left, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MT_CALL(MPI_Wait(&fr, MPI_STATUS_IGNORE));
    MT_CHECK(got[0] == left, "process buffer got %d", got[0]);
    MT_CALL(MPI_Buffer_detach(&back, &bsz));
    MT_CHECK(back == pbuf, "process detach");

    /* errors */
    MT_EXPECT_CLASS(MPI_Comm_attach_buffer(MPI_COMM_NULL, cbuf, sz), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Comm_attach_buffer(dup, cbuf, -1), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Comm_iflush_buffer(dup, NULL), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Comm_detach_buffer(dup, NULL, &bsz), MPI_ERR_ARG);
    MT_CALL(MPI_Comm_flush_buffer(dup));   /* nothing attached: nothing to do */

    /* Comm_free detaches a communicator's buffer after its pending sends */
    MPI_Comm d2;
    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &d2));
    MT_CALL(MPI_Comm_attach_buffer(d2, cbuf, sz));
    MT_CALL(MPI_Bsend(&x, 1, MPI_INT, right, 12, d2));
    MT_CALL(MPI_Recv(&got[0], 1, MPI_INT, left, 12, d2, MPI_STATUS_IGNORE));
    MT_CHECK(got[0] == left, "d2 got %d", got[0]);
    MT_CALL(MPI_Comm_free(&d2));

    MT_CALL(MPI_Comm_free(&dup));
    free(cbuf);
    free(pbuf);
    return mt_finalize();
}
