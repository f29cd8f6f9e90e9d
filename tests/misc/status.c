/* MPI-4.1 status accessors, Status_set_elements(_c,_x), Get_elements_x,
 * Request_get_status_all/any/some, Alloc_mem/Free_mem, and their errors. */
#include "mtest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* accessors */
    MPI_Status st;
    memset(&st, 0, sizeof st);
    MT_CALL(MPI_Status_set_source(&st, 7));
    MT_CALL(MPI_Status_set_tag(&st, 42));
    MT_CALL(MPI_Status_set_error(&st, MPI_ERR_TAG));
    int v = -1;
    MT_CALL(MPI_Status_get_source(&st, &v));
    MT_CHECK(v == 7 && st.MPI_SOURCE == 7, "source %d", v);
    MT_CALL(MPI_Status_get_tag(&st, &v));
    MT_CHECK(v == 42 && st.MPI_TAG == 42, "tag %d", v);
    MT_CALL(MPI_Status_get_error(&st, &v));
    MT_CHECK(v == MPI_ERR_TAG, "error %d", v);
    MT_CALL(MPI_Status_set_cancelled(&st, 1));
    MT_CALL(MPI_Test_cancelled(&st, &v));
    MT_CHECK(v == 1, "cancelled %d", v);
    MT_CALL(MPI_Status_set_cancelled(&st, 0));
    MT_CALL(MPI_Test_cancelled(&st, &v));
    MT_CHECK(v == 0, "cancelled %d", v);

    /* elements */
    int n = -1;
    MPI_Count c = -1;
    MT_CALL(MPI_Status_set_elements(&st, MPI_INT, 5));
    MT_CALL(MPI_Get_count(&st, MPI_INT, &n));
    MT_CHECK(n == 5, "count %d", n);
    MT_CALL(MPI_Get_elements_x(&st, MPI_INT, &c));
    MT_CHECK(c == 5, "elements_x %lld", (long long)c);
    MPI_Datatype pair;
    MT_CALL(MPI_Type_contiguous(3, MPI_DOUBLE, &pair));
    MT_CALL(MPI_Type_commit(&pair));
    MT_CALL(MPI_Status_set_elements_c(&st, pair, 7));
    MT_CALL(MPI_Get_elements_x(&st, pair, &c));
    MT_CHECK(c == 7, "elements_x %lld", (long long)c);
    MT_CALL(MPI_Get_count(&st, pair, &n));
    MT_CHECK(n == MPI_UNDEFINED, "count %d", n);
    MT_CALL(MPI_Status_set_elements_x(&st, pair, 6));
    MT_CALL(MPI_Get_count(&st, pair, &n));
    MT_CHECK(n == 2, "count %d", n);
    MT_CALL(MPI_Type_free(&pair));
    MT_EXPECT_CLASS(MPI_Status_set_elements(&st, MPI_INT, -1), MPI_ERR_COUNT);
    MT_EXPECT_CLASS(MPI_Status_set_elements(&st, MPI_DATATYPE_NULL, 1), MPI_ERR_TYPE);
    MT_EXPECT_CLASS(MPI_Status_set_tag(MPI_STATUS_IGNORE, 1), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Status_get_source(&st, NULL), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Get_elements_x(&st, MPI_INT, NULL), MPI_ERR_ARG);

    /* Request_get_status_all/any/some: ring exchange, requests stay alive */
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    int in = -1, out = 100 + mt_rank;
    MPI_Request r[3] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    MT_CALL(MPI_Irecv(&in, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &r[0]));
    MT_CALL(MPI_Isend(&out, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &r[1]));
    int flag = 0;
    MPI_Status sts[3];
    double t0 = MPI_Wtime();
    while (!flag && MPI_Wtime() - t0 < 20.0) {
        MT_CALL(MPI_Request_get_status_all(3, r, &flag, sts));
    }
    MT_CHECK(flag, "get_status_all never completed");
    MT_CHECK(r[0] != MPI_REQUEST_NULL && r[1] != MPI_REQUEST_NULL, "requests were freed");
    MT_CHECK(sts[0].MPI_SOURCE == left && sts[0].MPI_TAG == 5, "recv status %d/%d",
             sts[0].MPI_SOURCE, sts[0].MPI_TAG);
    MT_CHECK(sts[2].MPI_SOURCE == MPI_ANY_SOURCE, "null slot status %d", sts[2].MPI_SOURCE);
    int idx = -2;
    MT_CALL(MPI_Request_get_status_any(3, r, &idx, &flag, &st));
    MT_CHECK(flag && (idx == 0 || idx == 1), "any: flag %d idx %d", flag, idx);
    int outc = -1, ind[3];
    MT_CALL(MPI_Request_get_status_some(3, r, &outc, ind, sts));
    MT_CHECK(outc == 2 && ind[0] == 0 && ind[1] == 1, "some: %d", outc);
    MT_CALL(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    MT_CHECK(in == 100 + left, "received %d", in);
    MT_CALL(MPI_Request_get_status_any(3, r, &idx, &flag, &st));
    MT_CHECK(flag && idx == MPI_UNDEFINED, "any on nulls: flag %d idx %d", flag, idx);
    MT_CALL(MPI_Request_get_status_some(3, r, &outc, ind, sts));
    MT_CHECK(outc == MPI_UNDEFINED, "some on nulls: %d", outc);
    MT_EXPECT_CLASS(MPI_Request_get_status_all(-1, r, &flag, sts), MPI_ERR_COUNT);
    MT_EXPECT_CLASS(MPI_Request_get_status_all(1, r, NULL, sts), MPI_ERR_ARG);

    /* a pending receive is reported as not done */
    MT_CALL(MPI_Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &r[0]));
    MT_CALL(MPI_Request_get_status_all(1, r, &flag, sts));
    MT_CHECK(!flag, "pending receive reported complete");
    MT_CALL(MPI_Request_get_status_any(1, r, &idx, &flag, &st));
    MT_CHECK(!flag && idx == MPI_UNDEFINED, "any pending: flag %d idx %d", flag, idx);
    MT_CALL(MPI_Request_get_status_some(1, r, &outc, ind, sts));
    MT_CHECK(outc == 0, "some pending: %d", outc);
    MT_CALL(MPI_Cancel(&r[0]));
    MT_CALL(MPI_Wait(&r[0], &st));

    /* Alloc_mem / Free_mem */
    double *p = NULL;
    MT_CALL(MPI_Alloc_mem(1000 * sizeof(double), MPI_INFO_NULL, &p));
    MT_CHECK(p != NULL && ((uintptr_t)p % 8) == 0, "alloc_mem %p", (void *)p);
    if (p != NULL) {
        for (int i = 0; i < 1000; i++)
            p[i] = i;
        MT_CHECK(p[999] == 999.0, "memory not usable");
    }
    MT_CALL(MPI_Free_mem(p));
    MT_EXPECT_CLASS(MPI_Alloc_mem(-1, MPI_INFO_NULL, &p), MPI_ERR_SIZE);
    MT_EXPECT_CLASS(MPI_Alloc_mem((MPI_Aint)1 << 62, MPI_INFO_NULL, &p), MPI_ERR_NO_MEM);
    MT_EXPECT_CLASS(MPI_Alloc_mem(8, MPI_INFO_NULL, NULL), MPI_ERR_ARG);

    return mt_finalize();
}
