/* MPI_Isendrecv / MPI_Isendrecv_replace (+ _c): one request for both
 * halves, completed by every Wait/Test form, with the receive's status;
 * PROC_NULL halves, cancel of the receive half, argument errors. */
#include "mtest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    MPI_Status st;
    MPI_Request r;

    /* ring: Wait */
    int out[4], in[4];
    for (int i = 0; i < 4; i++)
        out[i] = mt_rank * 10 + i, in[i] = -1;
    MT_CALL(MPI_Isendrecv(out, 4, MPI_INT, right, 3, in, 4, MPI_INT, left, 3, MPI_COMM_WORLD,
                          &r));
    MT_CALL(MPI_Wait(&r, &st));
    MT_CHECK(r == MPI_REQUEST_NULL, "request not freed");
    for (int i = 0; i < 4; i++)
        MT_CHECK(in[i] == left * 10 + i, "in[%d] = %d", i, in[i]);
    int n = -1;
    MT_CALL(MPI_Get_count(&st, MPI_INT, &n));
    MT_CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 3 && n == 4, "status %d/%d/%d",
             st.MPI_SOURCE, st.MPI_TAG, n);

    /* several at once through Test loops, Waitany, Waitsome */
    MPI_Request rs[3];
    int a[3], b[3];
    for (int k = 0; k < 3; k++) {
        a[k] = mt_rank + 100 * k;
        b[k] = -1;
        MT_CALL(MPI_Isendrecv_c(&a[k], 1, MPI_INT, right, 10 + k, &b[k], 1, MPI_INT, left,
                                10 + k, MPI_COMM_WORLD, &rs[k]));
    }
    int idx = -1;
    MT_CALL(MPI_Waitany(3, rs, &idx, &st));
    MT_CHECK(idx >= 0 && idx < 3 && st.MPI_TAG == 10 + idx, "waitany %d tag %d", idx,
             st.MPI_TAG);
    int outc = 0, ind[3];
    MT_CALL(MPI_Waitsome(3, rs, &outc, ind, MPI_STATUSES_IGNORE));
    MT_CHECK(outc >= 1, "waitsome %d", outc);
    int flag = 0;
    double t0 = MPI_Wtime();
    while (!flag && MPI_Wtime() - t0 < 20.0)
        MT_CALL(MPI_Testall(3, rs, &flag, MPI_STATUSES_IGNORE));
    MT_CHECK(flag, "testall never completed");
    for (int k = 0; k < 3; k++)
        MT_CHECK(b[k] == left + 100 * k, "b[%d] = %d", k, b[k]);

    /* replace with a strided type */
    double v[6];
    for (int i = 0; i < 6; i++)
        v[i] = mt_rank + 0.5 * i;
    MPI_Datatype vec;
    MT_CALL(MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &vec));
    MT_CALL(MPI_Type_commit(&vec));
    MT_CALL(MPI_Isendrecv_replace(v, 1, vec, right, 7, left, 7, MPI_COMM_WORLD, &r));
    flag = 0;
    t0 = MPI_Wtime();
    while (!flag && MPI_Wtime() - t0 < 20.0)
        MT_CALL(MPI_Test(&r, &flag, &st));
    MT_CHECK(flag && st.MPI_SOURCE == left, "replace status %d", st.MPI_SOURCE);
    for (int i = 0; i < 6; i++) {
        double want = (i % 2 == 0 ? left : mt_rank) + 0.5 * i;
        MT_CHECK(v[i] == want, "v[%d] = %g, want %g", i, v[i], want);
    }
    MT_CALL(MPI_Type_free(&vec));
    long big[3] = { mt_rank, mt_rank, mt_rank };
    MT_CALL(MPI_Isendrecv_replace_c(big, 3, MPI_LONG, right, 8, left, 8, MPI_COMM_WORLD, &r));
    MT_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MT_CHECK(big[0] == left && big[2] == left, "replace_c %ld", big[2]);

    /* PROC_NULL on both sides: completes at once, PROC_NULL status */
    MT_CALL(MPI_Isendrecv(out, 1, MPI_INT, MPI_PROC_NULL, 0, in, 1, MPI_INT, MPI_PROC_NULL, 0,
                          MPI_COMM_WORLD, &r));
    MT_CALL(MPI_Wait(&r, &st));
    MT_CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "proc_null source %d", st.MPI_SOURCE);

    /* cancel: the receive half never matches */
    MT_CALL(MPI_Isendrecv(out, 1, MPI_INT, MPI_PROC_NULL, 0, in, 1, MPI_INT, MPI_ANY_SOURCE,
                          999, MPI_COMM_WORLD, &r));
    MT_CALL(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    MT_CHECK(!flag, "unmatched isendrecv completed");
    MT_CALL(MPI_Cancel(&r));
    MT_CALL(MPI_Wait(&r, &st));
    int canc = 0;
    MT_CALL(MPI_Test_cancelled(&st, &canc));
    MT_CHECK(canc, "isendrecv not cancelled");

    /* Request_free on a running one: it still completes */
    MT_CALL(MPI_Isendrecv(out, 1, MPI_INT, right, 20, in, 1, MPI_INT, left, 20,
                          MPI_COMM_WORLD, &r));
    MT_CALL(MPI_Request_free(&r));
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));

    /* errors */
    MT_EXPECT_CLASS(MPI_Isendrecv(out, 1, MPI_INT, mt_size, 0, in, 1, MPI_INT, left, 0,
                                  MPI_COMM_WORLD, &r), MPI_ERR_RANK);
    MT_EXPECT_CLASS(MPI_Isendrecv(out, 1, MPI_INT, right, -5, in, 1, MPI_INT, left, 0,
                                  MPI_COMM_WORLD, &r), MPI_ERR_TAG);
    MT_EXPECT_CLASS(MPI_Isendrecv(out, -1, MPI_INT, right, 0, in, 1, MPI_INT, left, 0,
                                  MPI_COMM_WORLD, &r), MPI_ERR_COUNT);
    MT_EXPECT_CLASS(MPI_Isendrecv(out, 1, MPI_INT, right, 0, in, 1, MPI_INT, left, 0,
                                  MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Isendrecv_replace(in, 1, MPI_DATATYPE_NULL, right, 0, left, 0,
                                          MPI_COMM_WORLD, &r), MPI_ERR_TYPE);
    MT_EXPECT_CLASS(MPI_Isendrecv_replace(in, 1, MPI_INT, right, 0, left, 0, MPI_COMM_NULL,
                                          &r), MPI_ERR_COMM);
    return mt_finalize();
}
