/* Nonblocking intercommunicator collectives: barrier semantics (it cannot
 * complete before the other group has entered), several outstanding at
 * once (completed out of order, by Testall and Waitall), a persistent one
 * started between nonblocking ones, messages past the eager size, and the
 * error classes: MPI_IN_PLACE,
 * bad roots, scan/exscan on an intercommunicator. */
#include "inter_nbc_common.h"

/* Group 1 enters the barrier only once group 0's leader tells it to, after
 * checking that its own barrier has not completed. */
static void barrier_order(const it_t *t)
{
    MPI_Request r = MPI_REQUEST_NULL;
    int flag = 0, go = 0;

    for (int m = 0; m < 2; m++) {
        if (t->color == 0) {
            if (m == 0) {
                MT_CALL(MPI_Ibarrier(t->inter, &r));
            } else {
                MT_CALL(MPI_Barrier_init(t->inter, MPI_INFO_NULL, &r));
                MT_CALL(MPI_Start(&r));
            }
            for (int k = 0; k < 50; k++) {
                MT_CALL(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
                MT_CHECK(!flag, "barrier (%d) completed before the other group entered", m);
                usleep(1000);
            }
            /* every member of group 0 has checked before group 1 may enter */
            MT_CALL(MPI_Barrier(t->local));
            if (t->lrank == 0) {
                for (int j = 0; j < t->rsize; j++) {
                    go = 1;
                    MT_CALL(MPI_Send(&go, 1, MPI_INT, j, 5, t->inter));
                }
            }
            MT_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
        } else {
            MT_CALL(MPI_Recv(&go, 1, MPI_INT, 0, 5, t->inter, MPI_STATUS_IGNORE));
            MT_CHECK(go == 1, "go = %d", go);
            if (m == 0) {
                MT_CALL(MPI_Ibarrier(t->inter, &r));
            } else {
                MT_CALL(MPI_Barrier_init(t->inter, MPI_INFO_NULL, &r));
                MT_CALL(MPI_Start(&r));
            }
            while (!flag) {
                MT_CALL(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
            }
            flag = 0;
        }
        if (m == 1) {
            MT_CALL(MPI_Request_free(&r));
        }
    }
}

/* Four collectives outstanding at once: two allreduces, a bcast from
 * group 0's leader and a persistent allgather started in between;
 * completed in reverse order, then again with Testall. */
static void overlap(const it_t *t)
{
    int nr = t->rsize, root, a = mt_rank + 1, b = 2 * mt_rank, sa = -1, sbb = -1, bc[2];
    int *ag = malloc((size_t)nr * sizeof(int)), me = mt_rank;
    MPI_Request r[4], p;
    int wa = 0, wb = 0;

    for (int j = 0; j < nr; j++) {
        wa += it_world(1 - t->color, j) + 1;
        wb += 2 * it_world(1 - t->color, j);
    }
    root = t->color == 0 ? (t->lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MT_CALL(MPI_Allgather_init(&me, 1, MPI_INT, ag, 1, MPI_INT, t->inter, MPI_INFO_NULL, &p));
    for (int round = 0; round < 2; round++) {
        sa = sbb = -1;
        bc[0] = bc[1] = root == MPI_ROOT ? 4242 + round : -1;
        for (int j = 0; j < nr; j++) {
            ag[j] = -1;
        }
        MT_CALL(MPI_Iallreduce(&a, &sa, 1, MPI_INT, MPI_SUM, t->inter, &r[0]));
        MT_CALL(MPI_Ibcast(bc, 2, MPI_INT, root, t->inter, &r[1]));
        MT_CALL(MPI_Start(&p));
        r[2] = p;
        MT_CALL(MPI_Iallreduce(&b, &sbb, 1, MPI_INT, MPI_SUM, t->inter, &r[3]));
        if (round == 0) {
            for (int k = 3; k >= 0; k--) {
                MT_CALL(MPI_Wait(&r[k], MPI_STATUS_IGNORE));
            }
        } else {
            int flag = 0;
            while (!flag) {
                MT_CALL(MPI_Testall(4, r, &flag, MPI_STATUSES_IGNORE));
            }
        }
        MT_CHECK(sa == wa, "overlap %d: allreduce a = %d, want %d", round, sa, wa);
        MT_CHECK(sbb == wb, "overlap %d: allreduce b = %d, want %d", round, sbb, wb);
        for (int i = 0; i < 2; i++) {
            int want = t->color == 1 || root == MPI_ROOT ? 4242 + round : -1;
            MT_CHECK(bc[i] == want, "overlap %d: bcast[%d] = %d, want %d", round, i, bc[i],
                     want);
        }
        for (int j = 0; j < nr; j++) {
            MT_CHECK(ag[j] == it_world(1 - t->color, j), "overlap %d: allgather[%d] = %d",
                     round, j, ag[j]);
        }
    }
    MT_CALL(MPI_Request_free(&p));
    free(ag);
}

/* Messages past the eager size: allreduce and bcast of BIG ints, both
 * outstanding at once, completed by a Test loop. */
#define BIG (1 << 17)
static void big(const it_t *t)
{
    int *a = malloc(BIG * sizeof(int)), *s = malloc(BIG * sizeof(int));
    int *b = malloc(BIG * sizeof(int)), flag = 0, bad = 0, rsum = 0;
    int root = t->color == 1 ? (t->lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Request r[2];

    for (int j = 0; j < t->rsize; j++) {
        rsum += it_world(1 - t->color, j);
    }
    for (int i = 0; i < BIG; i++) {
        a[i] = mt_rank + i % 7;
        s[i] = -1;
        b[i] = root == MPI_ROOT ? i : -1;
    }
    MT_CALL(MPI_Iallreduce(a, s, BIG, MPI_INT, MPI_SUM, t->inter, &r[0]));
    MT_CALL(MPI_Ibcast(b, BIG, MPI_INT, root, t->inter, &r[1]));
    while (!flag) {
        MT_CALL(MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE));
    }
    for (int i = 0; i < BIG && bad < 5; i++) {
        int want = rsum + t->rsize * (i % 7);
        int wantb = root == MPI_PROC_NULL ? -1 : i;
        if (s[i] != want || b[i] != wantb) {
            MT_CHECK(0, "big [%d]: allreduce %d (want %d), bcast %d (want %d)", i, s[i], want,
                     b[i], wantb);
            bad++;
        }
    }
    free(a);
    free(s);
    free(b);
}

static void errors(const it_t *t)
{
    MPI_Comm ic = t->inter;
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Info ni = MPI_INFO_NULL;
    int x[64] = { 0 }, y[64] = { 0 }, cnt[16], i;

    for (i = 0; i < 16; i++) {
        cnt[i] = 1;
    }
    MT_CALL(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
    MT_EXPECT_CLASS(MPI_Iallreduce(MPI_IN_PLACE, y, 1, MPI_INT, MPI_SUM, ic, &r),
                    MPI_ERR_BUFFER);
    MT_EXPECT_CLASS(MPI_Allreduce_init(MPI_IN_PLACE, y, 1, MPI_INT, MPI_SUM, ic, ni, &r),
                    MPI_ERR_BUFFER);
    MT_EXPECT_CLASS(MPI_Iallgather(MPI_IN_PLACE, 1, MPI_INT, y, 1, MPI_INT, ic, &r),
                    MPI_ERR_BUFFER);
    MT_EXPECT_CLASS(MPI_Ialltoall(MPI_IN_PLACE, 1, MPI_INT, y, 1, MPI_INT, ic, &r),
                    MPI_ERR_BUFFER);
    MT_EXPECT_CLASS(MPI_Ireduce_scatter_block_c(MPI_IN_PLACE, y, 1, MPI_INT, MPI_SUM, ic, &r),
                    MPI_ERR_BUFFER);
    MT_EXPECT_CLASS(MPI_Reduce_scatter_init(MPI_IN_PLACE, y, cnt, MPI_INT, MPI_SUM, ic, ni,
                                            &r),
                    MPI_ERR_BUFFER);
    MT_EXPECT_CLASS(MPI_Ibcast(MPI_IN_PLACE, 1, MPI_INT, 0, ic, &r), MPI_ERR_BUFFER);
    MT_EXPECT_CLASS(MPI_Igather(x, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, MPI_ROOT, ic, &r),
                    MPI_ERR_BUFFER);
    MT_EXPECT_CLASS(MPI_Iscatter(MPI_IN_PLACE, 1, MPI_INT, y, 1, MPI_INT, MPI_ROOT, ic, &r),
                    MPI_ERR_BUFFER);
    /* roots: the remote group has ranks [0, rsize) */
    MT_EXPECT_CLASS(MPI_Ibcast(x, 1, MPI_INT, t->rsize, ic, &r), MPI_ERR_ROOT);
    MT_EXPECT_CLASS(MPI_Ireduce(x, y, 1, MPI_INT, MPI_SUM, -7, ic, &r), MPI_ERR_ROOT);
    MT_EXPECT_CLASS(MPI_Gather_init(x, 1, MPI_INT, y, 1, MPI_INT, t->rsize, ic, ni, &r),
                    MPI_ERR_ROOT);
    MT_EXPECT_CLASS(MPI_Iscatterv_c(x, NULL, NULL, MPI_INT, y, 1, MPI_INT, -2, ic, &r),
                    MPI_ERR_ROOT);
    /* no scan on an intercommunicator */
    MT_EXPECT_CLASS(MPI_Iscan(x, y, 1, MPI_INT, MPI_SUM, ic, &r), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Iexscan(x, y, 1, MPI_INT, MPI_SUM, ic, &r), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Scan_init(x, y, 1, MPI_INT, MPI_SUM, ic, ni, &r), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Exscan_init_c(x, y, 1, MPI_INT, MPI_SUM, ic, ni, &r), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Ibarrier(ic, NULL), MPI_ERR_ARG);
    MT_CHECK(r == MPI_REQUEST_NULL, "a failed call set the request");
    /* still usable after the errors: a zero-count allreduce and a barrier */
    MT_CALL(MPI_Iallreduce(x, y, 0, MPI_INT, MPI_SUM, ic, &r));
    MT_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MT_CALL(MPI_Ibarrier(ic, &r));
    MT_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
}

int main(int argc, char **argv)
{
    it_t t;

    mt_init(&argc, &argv);
    if (mt_size < 2) {
        MT_DIE("needs 2 processes");
    }
    it_setup(&t);
    barrier_order(&t);
    overlap(&t);
    big(&t);
    errors(&t);
    it_teardown(&t);
    return mt_finalize();
}
