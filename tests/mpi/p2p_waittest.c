/* Completion calls: Wait/Waitall/Waitany/Waitsome and Test/Testall/Testany/
 * Testsome, with empty lists and MPI_REQUEST_NULL entries, Request_free on
 * an active send, Request_get_status, Cancel of a receive + Test_cancelled.
 * Ranks 0 and 1 do the work (rank 0 = "me" side, rank 1 = helper); others idle.
 *
 * Ordering: whenever a test checks that something is NOT yet complete, the
 * peer only sends after receiving a "go" message, so the check is exact. */
#include "mtest.h"

#define GO_TAG 999

static int peer;

static void go(void)
{
    MT_CALL(MPI_Send(NULL, 0, MPI_BYTE, peer, GO_TAG, MPI_COMM_WORLD));
}

static void wait_go(void)
{
    MT_CALL(MPI_Recv(NULL, 0, MPI_BYTE, peer, GO_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

static void empty_and_null(void)
{
    MPI_Request reqs[4] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL,
                            MPI_REQUEST_NULL };
    MPI_Status sts[4], st;
    int idx = 0, flag = 0, outcount = 0, indices[4];

    /* Empty lists. */
    MT_CALL(MPI_Waitall(0, reqs, sts));
    flag = 0;
    MT_CALL(MPI_Testall(0, reqs, &flag, sts));
    MT_CHECK(flag, "Testall of an empty list: flag false");
    idx = 7;
    MT_CALL(MPI_Waitany(0, reqs, &idx, &st));
    MT_CHECK(idx == MPI_UNDEFINED, "Waitany of an empty list: index %d", idx);
    idx = 7;
    flag = 0;
    MT_CALL(MPI_Testany(0, reqs, &idx, &flag, &st));
    MT_CHECK(flag && idx == MPI_UNDEFINED, "Testany of an empty list: flag %d index %d", flag,
             idx);
    outcount = 7;
    MT_CALL(MPI_Waitsome(0, reqs, &outcount, indices, sts));
    MT_CHECK(outcount == MPI_UNDEFINED, "Waitsome of an empty list: outcount %d", outcount);
    outcount = 7;
    MT_CALL(MPI_Testsome(0, reqs, &outcount, indices, sts));
    MT_CHECK(outcount == MPI_UNDEFINED, "Testsome of an empty list: outcount %d", outcount);

    /* Lists of null requests only. */
    for (int i = 0; i < 4; i++)
        mt_poison_status(&sts[i]);
    MT_CALL(MPI_Waitall(4, reqs, sts));
    for (int i = 0; i < 4; i++)
        MT_CHECK_EMPTY_STATUS(sts[i], "Waitall of null requests");
    flag = 0;
    MT_CALL(MPI_Testall(4, reqs, &flag, MPI_STATUSES_IGNORE));
    MT_CHECK(flag, "Testall of null requests: flag false");
    idx = 7;
    mt_poison_status(&st);
    MT_CALL(MPI_Waitany(4, reqs, &idx, &st));
    MT_CHECK(idx == MPI_UNDEFINED, "Waitany of null requests: index %d", idx);
    MT_CHECK_EMPTY_STATUS(st, "Waitany of null requests");
    idx = 7;
    flag = 0;
    MT_CALL(MPI_Testany(4, reqs, &idx, &flag, &st));
    MT_CHECK(flag && idx == MPI_UNDEFINED, "Testany of null requests: flag %d index %d", flag,
             idx);
    outcount = 7;
    MT_CALL(MPI_Waitsome(4, reqs, &outcount, indices, sts));
    MT_CHECK(outcount == MPI_UNDEFINED, "Waitsome of null requests: outcount %d", outcount);
    outcount = 7;
    MT_CALL(MPI_Testsome(4, reqs, &outcount, indices, MPI_STATUSES_IGNORE));
    MT_CHECK(outcount == MPI_UNDEFINED, "Testsome of null requests: outcount %d", outcount);

    /* Single null request. */
    MPI_Request r = MPI_REQUEST_NULL;
    mt_poison_status(&st);
    MT_CALL(MPI_Wait(&r, &st));
    MT_CHECK_EMPTY_STATUS(st, "Wait(REQUEST_NULL)");
    flag = 0;
    mt_poison_status(&st);
    MT_CALL(MPI_Test(&r, &flag, &st));
    MT_CHECK(flag, "Test(REQUEST_NULL): flag false");
    MT_CHECK_EMPTY_STATUS(st, "Test(REQUEST_NULL)");
    flag = 0;
    mt_poison_status(&st);
    MT_CALL(MPI_Request_get_status(r, &flag, &st));
    MT_CHECK(flag, "Request_get_status(REQUEST_NULL): flag false");
    MT_CHECK_EMPTY_STATUS(st, "Request_get_status(REQUEST_NULL)");
}

/* Requests mixed with null entries; the helper sends tags 1 and 2 after go. */
static void mixed_any(void)
{
    if (mt_rank == 1) {
        wait_go();
        int v = 2;
        MT_CALL(MPI_Send(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD));
        wait_go();
        v = 1;
        MT_CALL(MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD));
        return;
    }
    int a = -1, b = -1, idx = -5, flag = 1;
    MPI_Request reqs[4] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL,
                            MPI_REQUEST_NULL };
    MPI_Status st;
    MT_CALL(MPI_Irecv(&a, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &reqs[1]));
    MT_CALL(MPI_Irecv(&b, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &reqs[3]));

    /* Nothing sent yet. */
    MT_CALL(MPI_Testany(4, reqs, &idx, &flag, &st));
    MT_CHECK(!flag && idx == MPI_UNDEFINED, "Testany before any send: flag %d index %d", flag,
             idx);
    int outcount = -5, indices[4];
    MT_CALL(MPI_Testsome(4, reqs, &outcount, indices, MPI_STATUSES_IGNORE));
    MT_CHECK(outcount == 0, "Testsome before any send: outcount %d", outcount);
    flag = 1;
    MT_CALL(MPI_Testall(4, reqs, &flag, MPI_STATUSES_IGNORE));
    MT_CHECK(!flag, "Testall before any send: flag %d", flag);
    MT_CHECK(reqs[1] != MPI_REQUEST_NULL && reqs[3] != MPI_REQUEST_NULL,
             "incomplete requests were freed");
    flag = 1;
    MT_CALL(MPI_Test(&reqs[1], &flag, MPI_STATUS_IGNORE));
    MT_CHECK(!flag, "Test before send: flag %d", flag);

    go(); /* helper sends tag 2 -> index 3 */
    MT_CALL(MPI_Waitany(4, reqs, &idx, &st));
    MT_CHECK(idx == 3 && b == 2 && st.MPI_TAG == 2 && st.MPI_SOURCE == 1,
             "Waitany: index %d value %d tag %d", idx, b, st.MPI_TAG);
    MT_CHECK(reqs[3] == MPI_REQUEST_NULL, "completed request not set to MPI_REQUEST_NULL");
    go(); /* tag 1 -> index 1 */
    flag = 0;
    idx = -5;
    while (!flag)
        MT_CALL(MPI_Testany(4, reqs, &idx, &flag, &st));
    MT_CHECK(idx == 1 && a == 1 && st.MPI_TAG == 1, "Testany: index %d value %d tag %d", idx,
             a, st.MPI_TAG);
    MT_CHECK(reqs[1] == MPI_REQUEST_NULL, "completed request not set to MPI_REQUEST_NULL");
    MT_CALL(MPI_Waitany(4, reqs, &idx, &st));
    MT_CHECK(idx == MPI_UNDEFINED, "Waitany after all done: index %d", idx);
}

/* Waitsome / Testsome over 8 receives that the helper satisfies in reverse. */
static void some(void)
{
    enum { N = 8 };
    if (mt_rank == 1) {
        for (int round = 0; round < 2; round++) {
            wait_go();
            for (int i = N - 1; i >= 0; i--) {
                int v = 100 * round + i;
                MT_CALL(MPI_Send(&v, 1, MPI_INT, 0, i, MPI_COMM_WORLD));
            }
        }
        return;
    }
    for (int round = 0; round < 2; round++) {
        int vals[N], done[N] = { 0 }, ndone = 0, calls = 0;
        MPI_Request reqs[N];
        for (int i = 0; i < N; i++) {
            vals[i] = -1;
            MT_CALL(MPI_Irecv(&vals[i], 1, MPI_INT, 1, i, MPI_COMM_WORLD, &reqs[i]));
        }
        go();
        while (ndone < N && calls < 10000000) {
            int outcount = -5, indices[N];
            MPI_Status sts[N];
            if (round == 0)
                MT_CALL(MPI_Waitsome(N, reqs, &outcount, indices, sts));
            else
                MT_CALL(MPI_Testsome(N, reqs, &outcount, indices, sts));
            calls++;
            MT_CHECK(outcount >= (round == 0 ? 1 : 0) && outcount <= N - ndone,
                     "some: outcount %d with %d outstanding", outcount, N - ndone);
            if (outcount == MPI_UNDEFINED || outcount < 0)
                break;
            for (int k = 0; k < outcount; k++) {
                int i = indices[k];
                MT_CHECK(i >= 0 && i < N && !done[i], "some: bad or repeated index %d", i);
                if (i < 0 || i >= N || done[i])
                    continue;
                done[i] = 1;
                ndone++;
                MT_CHECK(sts[k].MPI_TAG == i && sts[k].MPI_SOURCE == 1,
                         "some: status %d has tag %d", k, sts[k].MPI_TAG);
                MT_CHECK(vals[i] == 100 * round + i, "some: value %d for %d", vals[i], i);
                MT_CHECK(reqs[i] == MPI_REQUEST_NULL, "some: request %d not freed", i);
            }
        }
        MT_CHECK(ndone == N, "some: %d of %d completed", ndone, N);
        int outcount = -5, indices[N];
        MT_CALL(MPI_Waitsome(N, reqs, &outcount, indices, MPI_STATUSES_IGNORE));
        MT_CHECK(outcount == MPI_UNDEFINED, "Waitsome after all done: %d", outcount);
    }
}

/* Testall/Waitall with statuses; Testall must not free anything unless all
 * are complete. */
static void all(void)
{
    enum { N = 5 };
    if (mt_rank == 1) {
        wait_go();
        for (int i = 0; i < N - 1; i++)
            MT_CALL(MPI_Send(&i, 1, MPI_INT, 0, 10 + i, MPI_COMM_WORLD));
        wait_go();
        int i = N - 1;
        MT_CALL(MPI_Send(&i, 1, MPI_INT, 0, 10 + i, MPI_COMM_WORLD));
        return;
    }
    int vals[N];
    MPI_Request reqs[N];
    MPI_Status sts[N];
    for (int i = 0; i < N; i++)
        MT_CALL(MPI_Irecv(&vals[i], 1, MPI_INT, 1, 10 + i, MPI_COMM_WORLD, &reqs[i]));
    go();
    /* Wait for the first N-1 individually, but via Request_get_status so the
     * requests stay allocated. */
    for (int i = 0; i < N - 1; i++) {
        int flag = 0;
        while (!flag)
            MT_CALL(MPI_Request_get_status(reqs[i], &flag, MPI_STATUS_IGNORE));
    }
    int flag = 1;
    MT_CALL(MPI_Testall(N, reqs, &flag, sts));
    MT_CHECK(!flag, "Testall with one incomplete request: flag %d", flag);
    for (int i = 0; i < N; i++)
        MT_CHECK(reqs[i] != MPI_REQUEST_NULL, "Testall (flag false) freed request %d", i);
    go();
    MT_CALL(MPI_Waitall(N, reqs, sts));
    for (int i = 0; i < N; i++) {
        MT_CHECK(reqs[i] == MPI_REQUEST_NULL, "Waitall left request %d", i);
        MT_CHECK(vals[i] == i && sts[i].MPI_TAG == 10 + i && sts[i].MPI_SOURCE == 1,
                 "Waitall %d: value %d tag %d", i, vals[i], sts[i].MPI_TAG);
    }
}

/* Request_get_status does not free; Wait afterwards returns the same status. */
static void get_status(void)
{
    if (mt_rank == 1) {
        wait_go();
        double d[3] = { 1.5, 2.5, 3.5 };
        MT_CALL(MPI_Send(d, 3, MPI_DOUBLE, 0, 77, MPI_COMM_WORLD));
        return;
    }
    double d[3] = { 0, 0, 0 };
    MPI_Request r;
    MPI_Status st;
    int flag = 1;
    MT_CALL(MPI_Irecv(d, 3, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r));
    MT_CALL(MPI_Request_get_status(r, &flag, &st));
    MT_CHECK(!flag, "Request_get_status before the send: flag %d", flag);
    go();
    flag = 0;
    while (!flag)
        MT_CALL(MPI_Request_get_status(r, &flag, &st));
    int cnt;
    MPI_Get_count(&st, MPI_DOUBLE, &cnt);
    MT_CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 77 && cnt == 3,
             "Request_get_status: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, cnt);
    MT_CHECK(r != MPI_REQUEST_NULL, "Request_get_status freed the request");
    MT_CALL(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE));
    MT_CHECK(flag, "second Request_get_status: flag %d", flag);
    mt_poison_status(&st);
    MT_CALL(MPI_Wait(&r, &st));
    MPI_Get_count(&st, MPI_DOUBLE, &cnt);
    MT_CHECK(r == MPI_REQUEST_NULL && st.MPI_SOURCE == 1 && st.MPI_TAG == 77 && cnt == 3,
             "Wait after Request_get_status: source %d tag %d count %d", st.MPI_SOURCE,
             st.MPI_TAG, cnt);
    MT_CHECK(d[0] == 1.5 && d[2] == 3.5, "data %g %g", d[0], d[2]);
}

/* Request_free on active sends: the messages still arrive intact. */
static void free_active(void)
{
    enum { SMALL = 16, LARGE = 1 << 20 };
    if (mt_rank == 0) {
        unsigned char *s = mt_malloc(SMALL), *l = mt_malloc(LARGE);
        mt_fill(s, SMALL, 800);
        mt_fill(l, LARGE, 801);
        MPI_Request r1, r2;
        MT_CALL(MPI_Isend(s, SMALL, MPI_BYTE, 1, 800, MPI_COMM_WORLD, &r1));
        MT_CALL(MPI_Isend(l, LARGE, MPI_BYTE, 1, 801, MPI_COMM_WORLD, &r2));
        MT_CALL(MPI_Request_free(&r1));
        MT_CALL(MPI_Request_free(&r2));
        MT_CHECK(r1 == MPI_REQUEST_NULL && r2 == MPI_REQUEST_NULL,
                 "Request_free did not set MPI_REQUEST_NULL");
        /* The buffers may only be reused once the receiver confirms. */
        wait_go();
        free(s);
        free(l);
    } else if (mt_rank == 1) {
        unsigned char *b = mt_malloc(LARGE);
        MPI_Status st;
        int cnt;
        MT_CALL(MPI_Recv(b, LARGE, MPI_BYTE, 0, 801, MPI_COMM_WORLD, &st));
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        MT_CHECK(cnt == LARGE, "freed large send: count %d", cnt);
        MT_CHECK_PATTERN(b, LARGE, 801, "freed large send");
        MT_CALL(MPI_Recv(b, SMALL, MPI_BYTE, 0, 800, MPI_COMM_WORLD, &st));
        MT_CHECK_PATTERN(b, SMALL, 800, "freed small send");
        go();
        free(b);
    }
}

/* Cancel of a receive that can never match; cancel of a completed one. */
static void cancel(void)
{
    if (mt_rank == 1) {
        wait_go();
        int v = 55;
        MT_CALL(MPI_Send(&v, 1, MPI_INT, 0, 66, MPI_COMM_WORLD));
        return;
    }
    int v = -1, flag = -1;
    MPI_Request r;
    MPI_Status st;
    MT_CALL(MPI_Irecv(&v, 1, MPI_INT, 1, 12345, MPI_COMM_WORLD, &r));
    MT_CALL(MPI_Cancel(&r));
    MT_CHECK(r != MPI_REQUEST_NULL, "MPI_Cancel freed the request");
    MT_CALL(MPI_Wait(&r, &st));
    MT_CHECK(r == MPI_REQUEST_NULL, "Wait on cancelled request did not free it");
    MT_CALL(MPI_Test_cancelled(&st, &flag));
    MT_CHECK(flag == 1, "Test_cancelled on a cancelled receive gave %d", flag);
    MT_CHECK(v == -1, "cancelled receive wrote the buffer");

    /* Cancel + Test loop. */
    MT_CALL(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 12346, MPI_COMM_WORLD, &r));
    MT_CALL(MPI_Cancel(&r));
    int done = 0;
    while (!done)
        MT_CALL(MPI_Test(&r, &done, &st));
    MT_CALL(MPI_Test_cancelled(&st, &flag));
    MT_CHECK(flag == 1, "Test_cancelled after Test gave %d", flag);

    /* A receive that completed before the cancel is not cancelled. */
    MT_CALL(MPI_Irecv(&v, 1, MPI_INT, 1, 66, MPI_COMM_WORLD, &r));
    go();
    done = 0;
    while (!done)
        MT_CALL(MPI_Request_get_status(r, &done, MPI_STATUS_IGNORE));
    MT_CALL(MPI_Cancel(&r));
    MT_CALL(MPI_Wait(&r, &st));
    MT_CALL(MPI_Test_cancelled(&st, &flag));
    MT_CHECK(flag == 0 && v == 55 && st.MPI_TAG == 66,
             "completed-then-cancelled receive: cancelled %d value %d tag %d", flag, v,
             st.MPI_TAG);
    /* A normal status is not cancelled. */
    int w = 0;
    MT_CALL(MPI_Sendrecv(&v, 1, MPI_INT, 0, 1, &w, 1, MPI_INT, 0, 1, MPI_COMM_SELF, &st));
    MT_CALL(MPI_Test_cancelled(&st, &flag));
    MT_CHECK(flag == 0, "Test_cancelled on a normal status gave %d", flag);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    if (mt_size < 2)
        MT_DIE("needs at least 2 ranks");
    peer = mt_rank == 0 ? 1 : 0;
    empty_and_null();
    if (mt_rank <= 1) {
        mixed_any();
        some();
        all();
        get_status();
        free_active();
        cancel();
    }
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    return mt_finalize();
}
