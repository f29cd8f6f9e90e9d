/* Generalized requests: query/free/cancel callbacks at the right times,
 * with Wait, Test, Waitall, Request_get_status and Request_free; and
 * MPI_Get_hw_resource_info. */
#include "mtest.h"

typedef struct {
    int queries, frees, cancels, last_complete, value;
} gstate_t;

static int query_fn(void *extra, MPI_Status *status)
{
    gstate_t *g = extra;
    g->queries++;
    MPI_Status_set_source(status, MPI_UNDEFINED);
    MPI_Status_set_tag(status, g->value);
    MPI_Status_set_elements(status, MPI_INT, 3);
    MPI_Status_set_cancelled(status, g->cancels > 0);
    return g->value == 666 ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int free_fn(void *extra)
{
    ((gstate_t *)extra)->frees++;
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    gstate_t *g = extra;
    g->cancels++;
    g->last_complete = complete;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Request r;
    MPI_Status st;
    int flag = -1, n = -1;

    /* Test before completion, Grequest_complete, Wait */
    gstate_t g = { 0, 0, 0, -1, 17 };
    MT_CALL(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &g, &r));
    MT_CALL(MPI_Test(&r, &flag, &st));
    MT_CHECK(!flag && g.queries == 0 && g.frees == 0, "test before complete: %d %d %d", flag,
             g.queries, g.frees);
    MT_CALL(MPI_Request_get_status(r, &flag, &st));
    MT_CHECK(!flag, "get_status before complete");
    MT_CALL(MPI_Grequest_complete(r));
    MT_CALL(MPI_Request_get_status(r, &flag, &st));
    MT_CHECK(flag && g.queries == 1 && g.frees == 0 && st.MPI_TAG == 17,
             "get_status after complete: %d q%d f%d tag %d", flag, g.queries, g.frees,
             st.MPI_TAG);
    MT_CALL(MPI_Wait(&r, &st));
    MT_CHECK(r == MPI_REQUEST_NULL && g.queries == 2 && g.frees == 1, "wait: q%d f%d",
             g.queries, g.frees);
    MT_CALL(MPI_Get_count(&st, MPI_INT, &n));
    MT_CHECK(st.MPI_TAG == 17 && n == 3, "status tag %d count %d", st.MPI_TAG, n);

    /* cancel before completion, then complete and Test */
    gstate_t h = { 0, 0, 0, -1, 5 };
    MT_CALL(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &h, &r));
    MT_CALL(MPI_Cancel(&r));
    MT_CHECK(h.cancels == 1 && h.last_complete == 0, "cancel: %d %d", h.cancels,
             h.last_complete);
    MT_CALL(MPI_Grequest_complete(r));
    MT_CALL(MPI_Test(&r, &flag, &st));
    int canc = 0;
    MT_CALL(MPI_Test_cancelled(&st, &canc));
    MT_CHECK(flag && canc && h.frees == 1 && r == MPI_REQUEST_NULL, "cancelled test");

    /* Waitall mixes a generalized request with a p2p one; error from query */
    gstate_t e = { 0, 0, 0, -1, 666 };
    MPI_Request rs[2];
    int x = 0;
    MT_CALL(MPI_Grequest_start(query_fn, free_fn, NULL, &e, &rs[0]));
    MT_CALL(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &rs[1]));
    MT_CALL(MPI_Grequest_complete(rs[0]));
    MPI_Status sts[2];
    MT_EXPECT_CLASS(MPI_Waitall(2, rs, sts), MPI_ERR_IN_STATUS);
    MT_CHECK(sts[0].MPI_ERROR == MPI_ERR_OTHER, "status error %d", sts[0].MPI_ERROR);
    MT_CHECK(e.frees == 1, "free after waitall %d", e.frees);

    /* Request_free before completion: free_fn once, completion still allowed */
    gstate_t f = { 0, 0, 0, -1, 1 };
    MT_CALL(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &f, &r));
    MPI_Request keep = r;
    MT_CALL(MPI_Request_free(&r));
    MT_CHECK(f.frees == 1 && r == MPI_REQUEST_NULL, "request_free: %d", f.frees);
    MT_CALL(MPI_Grequest_complete(keep));
    MT_CHECK(f.frees == 1 && f.queries == 0, "after complete: f%d q%d", f.frees, f.queries);

    /* errors */
    MT_EXPECT_CLASS(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &g, NULL), MPI_ERR_ARG);
    MT_CALL(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
    MT_EXPECT_CLASS(MPI_Grequest_complete(r), MPI_ERR_REQUEST);
    MT_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MT_EXPECT_CLASS(MPI_Grequest_complete(MPI_REQUEST_NULL), MPI_ERR_REQUEST);

    /* hardware resource info: a valid (possibly empty) info object */
    MPI_Info info = MPI_INFO_NULL;
    MT_CALL(MPI_Get_hw_resource_info(&info));
    MT_CHECK(info != MPI_INFO_NULL, "no info object");
    int nkeys = -1;
    MT_CALL(MPI_Info_get_nkeys(info, &nkeys));
    MT_CHECK(nkeys >= 0, "nkeys %d", nkeys);
    MT_CALL(MPI_Info_free(&info));
    MT_EXPECT_CLASS(MPI_Get_hw_resource_info(NULL), MPI_ERR_ARG);
    return mt_finalize();
}
