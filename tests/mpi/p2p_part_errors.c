/* Partitioned point-to-point: erroneous calls return the right error class
 * (MPI_ERRORS_RETURN) and change nothing, so the exchange still completes
 * afterwards with the right data.  With PART_FATAL=1 rank 0 marks a
 * partition ready twice under the default handler instead: the job must
 * end with a message naming MPI_Pready and its argument. */
#include "mtest.h"

static void init_errors(void)
{
    int buf[8] = { 0 };
    MPI_Request r = MPI_REQUEST_NULL;
    int next = (mt_rank + 1) % mt_size;
    MT_EXPECT_CLASS(MPI_Psend_init(buf, -1, 2, MPI_INT, next, 0, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &r), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Psend_init(buf, 2, -2, MPI_INT, next, 0, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &r), MPI_ERR_COUNT);
    MT_EXPECT_CLASS(MPI_Psend_init(buf, 2, 2, MPI_DATATYPE_NULL, next, 0, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &r), MPI_ERR_TYPE);
    MT_EXPECT_CLASS(MPI_Psend_init(buf, 2, 2, MPI_INT, mt_size, 0, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &r), MPI_ERR_RANK);
    MT_EXPECT_CLASS(MPI_Precv_init(buf, 2, 2, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &r), MPI_ERR_RANK);
    MT_EXPECT_CLASS(MPI_Precv_init(buf, 2, 2, MPI_INT, next, MPI_ANY_TAG, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &r), MPI_ERR_TAG);
    MT_EXPECT_CLASS(MPI_Psend_init(buf, 2, 2, MPI_INT, next, -5, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &r), MPI_ERR_TAG);
    MT_EXPECT_CLASS(MPI_Psend_init(buf, 2, 2, MPI_INT, next, 0, MPI_COMM_NULL,
                                   MPI_INFO_NULL, &r), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Psend_init(NULL, 2, 2, MPI_INT, next, 0, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &r), MPI_ERR_BUFFER);
    MT_EXPECT_CLASS(MPI_Precv_init(buf, 2, 2, MPI_INT, next, 0, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, NULL), MPI_ERR_ARG);
    MT_CHECK(r == MPI_REQUEST_NULL, "a failed init wrote the request handle");
}

/* Every misuse of a pair of partitioned requests, then a clean exchange on
 * them (4 partitions of 3 ints). */
static void request_errors(void)
{
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    int sbuf[12], rbuf[12], flag = 0, other = 0;
    for (int k = 0; k < 12; k++) {
        sbuf[k] = mt_rank * 100 + k;
        rbuf[k] = -1;
    }
    MPI_Request sreq, rreq, plain;
    MT_CALL(MPI_Psend_init(sbuf, 4, 3, MPI_INT, next, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq));
    MT_CALL(MPI_Precv_init(rbuf, 4, 3, MPI_INT, prev, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq));
    MT_CALL(MPI_Send_init(&other, 1, MPI_INT, next, 2, MPI_COMM_WORLD, &plain));

    /* before MPI_Start */
    MT_EXPECT_CLASS(MPI_Pready(0, sreq), MPI_ERR_REQUEST);
    MT_EXPECT_CLASS(MPI_Pready_range(0, 1, sreq), MPI_ERR_REQUEST);
    MT_EXPECT_CLASS(MPI_Pready_list(1, (int[]){ 0 }, sreq), MPI_ERR_REQUEST);
    /* wrong kind of request */
    MT_EXPECT_CLASS(MPI_Pready(0, rreq), MPI_ERR_REQUEST);
    MT_EXPECT_CLASS(MPI_Pready(0, plain), MPI_ERR_REQUEST);
    MT_EXPECT_CLASS(MPI_Pready(0, MPI_REQUEST_NULL), MPI_ERR_REQUEST);
    MT_EXPECT_CLASS(MPI_Parrived(sreq, 0, &flag), MPI_ERR_REQUEST);
    MT_EXPECT_CLASS(MPI_Parrived(plain, 0, &flag), MPI_ERR_REQUEST);
    /* inactive and null requests: flag true */
    flag = 0;
    MT_CALL(MPI_Parrived(rreq, 3, &flag));
    MT_CHECK(flag, "Parrived on an inactive request: flag false");
    flag = 0;
    MT_CALL(MPI_Parrived(MPI_REQUEST_NULL, 0, &flag));
    MT_CHECK(flag, "Parrived on MPI_REQUEST_NULL: flag false");
    MT_EXPECT_CLASS(MPI_Parrived(rreq, 4, &flag), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Parrived(rreq, 0, NULL), MPI_ERR_ARG);

    MT_CALL(MPI_Start(&rreq));
    MT_CALL(MPI_Start(&sreq));
    MT_EXPECT_CLASS(MPI_Start(&sreq), MPI_ERR_REQUEST);          /* already active */
    /* out of range, reversed range, bad lists */
    MT_EXPECT_CLASS(MPI_Pready(4, sreq), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Pready(-1, sreq), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Pready_range(2, 1, sreq), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Pready_range(0, 4, sreq), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Pready_list(-1, (int[]){ 0 }, sreq), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Pready_list(1, NULL, sreq), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Pready_list(2, (int[]){ 1, 5 }, sreq), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Pready_list(3, (int[]){ 1, 2, 1 }, sreq), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Parrived(rreq, -1, &flag), MPI_ERR_ARG);
    /* none of that made anything ready */
    flag = 1;
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < 4; i++) {
        MT_CALL(MPI_Parrived(rreq, i, &flag));
        MT_CHECK(!flag, "partition %d arrived after failed Pready calls only", i);
    }
    /* nothing can arrive before the next barrier: an active receive cannot
     * be freed or cancelled */
    MPI_Request copy = rreq;
    MT_EXPECT_CLASS(MPI_Request_free(&copy), MPI_ERR_REQUEST);
    MT_CHECK(copy == rreq, "a failed Request_free changed the handle");
    MT_EXPECT_CLASS(MPI_Cancel(&rreq), MPI_ERR_REQUEST);
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));

    /* ready twice in one epoch, by every form; an active send cannot be
     * freed or cancelled */
    MT_CALL(MPI_Pready(1, sreq));
    MT_EXPECT_CLASS(MPI_Pready(1, sreq), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Pready_range(0, 1, sreq), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Pready_list(2, (int[]){ 0, 1 }, sreq), MPI_ERR_ARG);
    copy = sreq;
    MT_EXPECT_CLASS(MPI_Request_free(&copy), MPI_ERR_REQUEST);
    MT_CHECK(copy == sreq, "a failed Request_free changed the handle");
    MT_EXPECT_CLASS(MPI_Cancel(&sreq), MPI_ERR_REQUEST);

    /* the failed calls left partitions 0, 2 and 3 to do */
    MT_CALL(MPI_Pready_list(3, (int[]){ 3, 0, 2 }, sreq));
    MPI_Status st[2];
    MPI_Request both[2] = { sreq, rreq };
    MT_CALL(MPI_Waitall(2, both, st));
    int cnt = -1;
    MPI_Get_count(&st[1], MPI_INT, &cnt);
    MT_CHECK(cnt == 12 && st[1].MPI_SOURCE == prev && st[1].MPI_TAG == 1,
             "status: count %d source %d tag %d", cnt, st[1].MPI_SOURCE, st[1].MPI_TAG);
    for (int k = 0; k < 12; k++)
        MT_CHECK(rbuf[k] == prev * 100 + k, "rbuf[%d] = %d", k, rbuf[k]);
    /* complete (inactive) again: Pready is an error, Cancel does nothing,
     * Request_free works */
    MT_EXPECT_CLASS(MPI_Pready(0, sreq), MPI_ERR_REQUEST);
    MT_CALL(MPI_Cancel(&rreq));
    MT_CALL(MPI_Request_free(&sreq));
    MT_CALL(MPI_Request_free(&rreq));
    MT_CALL(MPI_Request_free(&plain));
}

int main(int argc, char **argv)
{
    if (mt_env_int("PART_FATAL", 0)) {
        MPI_Init(&argc, &argv);
        mt_after_init(0);
        if (mt_rank == 0) {
            int buf[2] = { 0, 0 };
            MPI_Request r;
            MPI_Psend_init(buf, 2, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &r);
            MPI_Start(&r);
            MPI_Pready(0, r);
            MPI_Pready(0, r);       /* ends the job */
            fprintf(stderr, "FAIL: a second MPI_Pready returned under the fatal handler\n");
        }
        MPI_Finalize();
        return 0;
    }
    mt_init(&argc, &argv);
    init_errors();
    request_errors();
    return mt_finalize();
}
