/* The MPI_ERROR field of a status (MPI-4.1 section 3.2.5): calls that fill
 * one status never write it - Recv, Probe, Iprobe, Mprobe, Improbe, Mrecv,
 * Wait, Test, Waitany, Testany, Request_get_status(_any), Sendrecv,
 * Sendrecv_replace, receives from MPI_PROC_NULL, generalized requests -
 * not even when they fail.  Null and inactive requests give the standard's
 * empty status, whose error field is MPI_SUCCESS (MPI-4.1 3.7.3).  The calls that
 * fill an array of statuses (Waitall, Testall, Waitsome, Testsome,
 * Request_get_status_all/some) write it in every status they fill when, and
 * only when, they return MPI_ERR_IN_STATUS.  Ranks 0 (receiver) and 1
 * (sender); others idle. */
#include "mtest.h"

#define SENT 12345 /* what the program leaves in MPI_ERROR before each call */

#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
#define HAVE_GET_STATUS_MULTI 1 /* MPI_Request_get_status_all/any/some */
#endif

enum {
    T_RECV = 1, T_PROBE, T_IPROBE, T_MPROBE, T_IMPROBE, T_IMRECV, T_WAIT, T_TEST, T_GETST,
    T_WANY, T_TANY, T_PERSIST, T_GANY,
    T_ALL0 = 20, T_ALL1, T_TALL0, T_TALL1, T_SOME0, T_SOME1, T_TSOME0, T_TSOME1, T_GALL0,
    T_GALL1, T_GSOME0, T_GSOME1,
    T_TR_RECV = 40, T_TR_WAIT, T_TR_TEST, T_TR_WANY,
    T_E_ALL0 = 50, T_E_ALL1, T_E_TALL0, T_E_TALL1, T_E_SOME0, T_E_SOME1, T_E_TSOME0,
    T_E_TSOME1, T_E_GALL0, T_E_GALL1,
    T_LAST
};

#define SHORT_N 4  /* ints in a message that fits */
#define LONG_N  40 /* ints in a message sent to a SHORT_N buffer */

/* tags whose message is too long for the receive buffer */
static int is_long(int tag)
{
    return tag == T_TR_RECV || tag == T_TR_WAIT || tag == T_TR_TEST || tag == T_TR_WANY ||
           tag == T_E_ALL1 || tag == T_E_TALL1 || tag == T_E_SOME1 || tag == T_E_TSOME1 ||
           tag == T_E_GALL1;
}

static int err_class(int code)
{
    int c = -1;
    MPI_Error_class(code, &c);
    return c;
}

#define KEPT(st, what)                                                         \
    MT_CHECK((st).MPI_ERROR == SENT, "%s: MPI_ERROR is %d, the call must leave it (%d)", \
             (what), (st).MPI_ERROR, SENT)

#define EMPTY(st, what)                                                        \
    MT_CHECK((st).MPI_ERROR == MPI_SUCCESS && (st).MPI_SOURCE == MPI_ANY_SOURCE &&  \
                 (st).MPI_TAG == MPI_ANY_TAG,                                   \
             "%s: not the empty status (error %d, source %d, tag %d)", (what),  \
             (st).MPI_ERROR, (st).MPI_SOURCE, (st).MPI_TAG)

/* After a multiple-completion call that returned MPI_SUCCESS.  The
 * standard says the field is updated only with MPI_ERR_IN_STATUS; Open MPI
 * copies whole statuses and so writes MPI_SUCCESS there. */
#ifdef OPEN_MPI
#define KEPT_MULTI(st, what)                                                   \
    MT_CHECK((st).MPI_ERROR == SENT || (st).MPI_ERROR == MPI_SUCCESS,          \
             "%s: MPI_ERROR is %d", (what), (st).MPI_ERROR)
#else
#define KEPT_MULTI(st, what) KEPT(st, what)
#endif

static void check_data(const int *b, int tag, const char *what)
{
    for (int i = 0; i < SHORT_N; i++)
        if (b[i] != tag * 1000 + i) {
            MT_CHECK(b[i] == tag * 1000 + i, "%s: element %d is %d", what, i, b[i]);
            return;
        }
}

/* every tag rank 0 receives, in no particular order */
static int used(int tag)
{
    return (tag >= T_RECV && tag <= T_GANY) || (tag >= T_ALL0 && tag <= T_GSOME1) ||
           (tag >= T_TR_RECV && tag <= T_TR_WANY) || (tag >= T_E_ALL0 && tag < T_LAST);
}

static void sender(void)
{
    static int bufs[T_LAST][LONG_N];
    MPI_Request r[T_LAST];
    int n = 0;
    for (int tag = 1; tag < T_LAST; tag++) {
        if (!used(tag))
            continue;
        for (int i = 0; i < LONG_N; i++)
            bufs[tag][i] = tag * 1000 + i;
        MT_CALL(MPI_Isend(bufs[tag], is_long(tag) ? LONG_N : SHORT_N, MPI_INT, 0, tag,
                          MPI_COMM_WORLD, &r[n++]));
    }
    MT_CALL(MPI_Waitall(n, r, MPI_STATUSES_IGNORE));
}

/* ---- one status ---- */

static void single_ok(void)
{
    int b[SHORT_N], flag;
    MPI_Status st;
    MPI_Request r;
    MPI_Message m;

    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Recv(b, SHORT_N, MPI_INT, 1, T_RECV, MPI_COMM_WORLD, &st));
    KEPT(st, "Recv");
    check_data(b, T_RECV, "Recv");

    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Probe(1, T_PROBE, MPI_COMM_WORLD, &st));
    KEPT(st, "Probe");
    MT_CALL(MPI_Recv(b, SHORT_N, MPI_INT, 1, T_PROBE, MPI_COMM_WORLD, MPI_STATUS_IGNORE));

    flag = 0;
    for (long k = 0; !flag && k < 100000000L; k++) {
        st.MPI_ERROR = SENT;
        MT_CALL(MPI_Iprobe(1, T_IPROBE, MPI_COMM_WORLD, &flag, &st));
        KEPT(st, "Iprobe");
    }
    MT_CHECK(flag, "Iprobe never found the message");
    MT_CALL(MPI_Recv(b, SHORT_N, MPI_INT, 1, T_IPROBE, MPI_COMM_WORLD, MPI_STATUS_IGNORE));

    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Mprobe(1, T_MPROBE, MPI_COMM_WORLD, &m, &st));
    KEPT(st, "Mprobe");
    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Mrecv(b, SHORT_N, MPI_INT, &m, &st));
    KEPT(st, "Mrecv");
    check_data(b, T_MPROBE, "Mrecv");

    flag = 0;
    for (long k = 0; !flag && k < 100000000L; k++) {
        st.MPI_ERROR = SENT;
        MT_CALL(MPI_Improbe(1, T_IMPROBE, MPI_COMM_WORLD, &flag, &m, &st));
        KEPT(st, "Improbe");
    }
    MT_CHECK(flag, "Improbe never found the message");
    if (flag)
        MT_CALL(MPI_Mrecv(b, SHORT_N, MPI_INT, &m, MPI_STATUS_IGNORE));

    MT_CALL(MPI_Mprobe(1, T_IMRECV, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE));
    MT_CALL(MPI_Imrecv(b, SHORT_N, MPI_INT, &m, &r));
    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Wait(&r, &st));
    KEPT(st, "Wait on Imrecv");
    check_data(b, T_IMRECV, "Imrecv");

    MT_CALL(MPI_Irecv(b, SHORT_N, MPI_INT, 1, T_WAIT, MPI_COMM_WORLD, &r));
    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Wait(&r, &st));
    KEPT(st, "Wait");

    MT_CALL(MPI_Irecv(b, SHORT_N, MPI_INT, 1, T_TEST, MPI_COMM_WORLD, &r));
    flag = 0;
    while (!flag) {
        st.MPI_ERROR = SENT;
        MT_CALL(MPI_Test(&r, &flag, &st));
        KEPT(st, "Test");
    }

    MT_CALL(MPI_Irecv(b, SHORT_N, MPI_INT, 1, T_GETST, MPI_COMM_WORLD, &r));
    flag = 0;
    while (!flag) {
        st.MPI_ERROR = SENT;
        MT_CALL(MPI_Request_get_status(r, &flag, &st));
        KEPT(st, "Request_get_status");
    }
    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Wait(&r, &st));
    KEPT(st, "Wait after Request_get_status");

    MPI_Request two[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    int idx = -1;
    MT_CALL(MPI_Irecv(b, SHORT_N, MPI_INT, 1, T_WANY, MPI_COMM_WORLD, &two[1]));
    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Waitany(2, two, &idx, &st));
    KEPT(st, "Waitany");
    MT_CHECK(idx == 1, "Waitany index %d", idx);

    MT_CALL(MPI_Irecv(b, SHORT_N, MPI_INT, 1, T_TANY, MPI_COMM_WORLD, &two[0]));
    flag = 0;
    while (!flag) {
        st.MPI_ERROR = SENT;
        MT_CALL(MPI_Testany(2, two, &idx, &flag, &st));
        KEPT(st, "Testany");
    }
    MT_CHECK(idx == 0, "Testany index %d", idx);

    MT_CALL(MPI_Recv_init(b, SHORT_N, MPI_INT, 1, T_PERSIST, MPI_COMM_WORLD, &r));
    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Wait(&r, &st));        /* inactive: empty status */
    EMPTY(st, "Wait on an inactive persistent request");
    MT_CALL(MPI_Start(&r));
    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Wait(&r, &st));
    KEPT(st, "Wait on a persistent receive");
    MT_CALL(MPI_Request_free(&r));

#ifdef HAVE_GET_STATUS_MULTI
    MT_CALL(MPI_Irecv(b, SHORT_N, MPI_INT, 1, T_GANY, MPI_COMM_WORLD, &two[0]));
    flag = 0;
    while (!flag) {
        st.MPI_ERROR = SENT;
        MT_CALL(MPI_Request_get_status_any(2, two, &idx, &flag, &st));
        KEPT(st, "Request_get_status_any");
    }
    MT_CALL(MPI_Wait(&two[0], MPI_STATUS_IGNORE));
#else
    MT_CALL(MPI_Recv(b, SHORT_N, MPI_INT, 1, T_GANY, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
#endif
}

/* Null requests and MPI_PROC_NULL (no message involved). */
static void single_null(void)
{
    int b[SHORT_N] = { 0 }, flag, idx;
    MPI_Status st;
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Message m;

    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Wait(&r, &st));
    EMPTY(st, "Wait(MPI_REQUEST_NULL)");
    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Test(&r, &flag, &st));
    EMPTY(st, "Test(MPI_REQUEST_NULL)");
    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Request_get_status(r, &flag, &st));
    EMPTY(st, "Request_get_status(MPI_REQUEST_NULL)");
    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Waitany(1, &r, &idx, &st));
    EMPTY(st, "Waitany of null requests");
    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Testany(1, &r, &idx, &flag, &st));
    EMPTY(st, "Testany of null requests");

    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Recv(b, SHORT_N, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    KEPT(st, "Recv(MPI_PROC_NULL)");
    MT_CHECK_PROCNULL_STATUS(st, "Recv(MPI_PROC_NULL)");
    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    KEPT(st, "Probe(MPI_PROC_NULL)");
    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Iprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &st));
    KEPT(st, "Iprobe(MPI_PROC_NULL)");
    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, &st));
    KEPT(st, "Mprobe(MPI_PROC_NULL)");
    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Mrecv(b, SHORT_N, MPI_INT, &m, &st));
    KEPT(st, "Mrecv(MPI_MESSAGE_NO_PROC)");
    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &m, &st));
    KEPT(st, "Improbe(MPI_PROC_NULL)");
    MT_CALL(MPI_Imrecv(b, SHORT_N, MPI_INT, &m, &r));
    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Wait(&r, &st));
    KEPT(st, "Wait on Imrecv(MPI_MESSAGE_NO_PROC)");
    MT_CALL(MPI_Irecv(b, SHORT_N, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Wait(&r, &st));
    KEPT(st, "Wait on Irecv(MPI_PROC_NULL)");
    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Sendrecv(b, SHORT_N, MPI_INT, MPI_PROC_NULL, 0, b, SHORT_N, MPI_INT,
                         MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    KEPT(st, "Sendrecv(MPI_PROC_NULL)");
    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Sendrecv_replace(b, SHORT_N, MPI_INT, MPI_PROC_NULL, 0, MPI_PROC_NULL, 0,
                                 MPI_COMM_WORLD, &st));
    KEPT(st, "Sendrecv_replace(MPI_PROC_NULL)");
}

/* Failing single-completion calls: the error is the return value only. */
static void single_err(void)
{
    int b[SHORT_N], flag = 0, idx = -1, rc;
    MPI_Status st;
    MPI_Request r;

    st.MPI_ERROR = SENT;
    rc = MPI_Recv(b, SHORT_N, MPI_INT, 1, T_TR_RECV, MPI_COMM_WORLD, &st);
    MT_CHECK(err_class(rc) == MPI_ERR_TRUNCATE, "truncated Recv: class %d", err_class(rc));
    KEPT(st, "truncated Recv");

    MT_CALL(MPI_Irecv(b, SHORT_N, MPI_INT, 1, T_TR_WAIT, MPI_COMM_WORLD, &r));
    st.MPI_ERROR = SENT;
    rc = MPI_Wait(&r, &st);
    MT_CHECK(err_class(rc) == MPI_ERR_TRUNCATE, "truncated Wait: class %d", err_class(rc));
    KEPT(st, "truncated Wait");

    MT_CALL(MPI_Irecv(b, SHORT_N, MPI_INT, 1, T_TR_TEST, MPI_COMM_WORLD, &r));
    rc = MPI_SUCCESS;
    while (!flag && rc == MPI_SUCCESS) {
        st.MPI_ERROR = SENT;
        rc = MPI_Test(&r, &flag, &st);
        KEPT(st, "Test of a truncated receive");
    }
    MT_CHECK(err_class(rc) == MPI_ERR_TRUNCATE, "truncated Test: class %d", err_class(rc));

    MT_CALL(MPI_Irecv(b, SHORT_N, MPI_INT, 1, T_TR_WANY, MPI_COMM_WORLD, &r));
    st.MPI_ERROR = SENT;
    rc = MPI_Waitany(1, &r, &idx, &st);
    MT_CHECK(err_class(rc) == MPI_ERR_TRUNCATE, "truncated Waitany: class %d", err_class(rc));
    KEPT(st, "truncated Waitany");
}

/* ---- arrays of statuses ---- */

static void set_sent(MPI_Status *st, int n)
{
    for (int i = 0; i < n; i++)
        st[i].MPI_ERROR = SENT;
}

static void post2(int (*b)[SHORT_N], int tag0, MPI_Request *r)
{
    MT_CALL(MPI_Irecv(b[0], SHORT_N, MPI_INT, 1, tag0, MPI_COMM_WORLD, &r[0]));
    MT_CALL(MPI_Irecv(b[1], SHORT_N, MPI_INT, 1, tag0 + 1, MPI_COMM_WORLD, &r[1]));
}

/* Three slots: two receives and a null request in the middle. */
static void multi_ok(void)
{
    int b[2][SHORT_N], flag, n, idx[3];
    MPI_Status st[3];
    MPI_Request r[3], two[2];

    post2(b, T_ALL0, two);
    r[0] = two[0], r[1] = MPI_REQUEST_NULL, r[2] = two[1];
    set_sent(st, 3);
    MT_CALL(MPI_Waitall(3, r, st));
    for (int i = 0; i < 3; i += 2)
        KEPT_MULTI(st[i], "Waitall");
    EMPTY(st[1], "Waitall (the null request's slot)");

    post2(b, T_TALL0, two);
    r[0] = two[0], r[1] = MPI_REQUEST_NULL, r[2] = two[1];
    flag = 0;
    while (!flag) {
        set_sent(st, 3);
        MT_CALL(MPI_Testall(3, r, &flag, st));
        for (int i = 0; i < 3; i += 2)
            KEPT_MULTI(st[i], "Testall");
        EMPTY(st[1], "Testall (the null request's slot)");
    }

    post2(b, T_SOME0, two);
    r[0] = two[0], r[1] = MPI_REQUEST_NULL, r[2] = two[1];
    for (int done = 0; done < 2;) {
        set_sent(st, 3);
        MT_CALL(MPI_Waitsome(3, r, &n, idx, st));
        MT_CHECK(n >= 1 && n <= 2, "Waitsome outcount %d", n);
        if (n < 1 || n > 2)
            break;
        for (int i = 0; i < 3; i++)
            KEPT_MULTI(st[i], "Waitsome");
        done += n;
    }

    post2(b, T_TSOME0, two);
    r[0] = two[0], r[1] = MPI_REQUEST_NULL, r[2] = two[1];
    for (int done = 0; done < 2;) {
        set_sent(st, 3);
        MT_CALL(MPI_Testsome(3, r, &n, idx, st));
        MT_CHECK(n >= 0 && n <= 2, "Testsome outcount %d", n);
        if (n < 0 || n > 2)
            break;
        for (int i = 0; i < 3; i++)
            KEPT_MULTI(st[i], "Testsome");
        done += n;
    }

#ifdef HAVE_GET_STATUS_MULTI
    post2(b, T_GALL0, two);
    r[0] = two[0], r[1] = MPI_REQUEST_NULL, r[2] = two[1];
    flag = 0;
    while (!flag) {
        set_sent(st, 3);
        MT_CALL(MPI_Request_get_status_all(3, r, &flag, st));
        for (int i = 0; i < 3; i += 2)
            KEPT_MULTI(st[i], "Request_get_status_all");
        EMPTY(st[1], "Request_get_status_all (the null request's slot)");
    }
    MT_CALL(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));

    post2(b, T_GSOME0, two);
    r[0] = two[0], r[1] = MPI_REQUEST_NULL, r[2] = two[1];
    n = 0;
    while (n != 2) {
        set_sent(st, 3);
        MT_CALL(MPI_Request_get_status_some(3, r, &n, idx, st));
        for (int i = 0; i < 3; i++)
            KEPT_MULTI(st[i], "Request_get_status_some");
    }
    MT_CALL(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
#else
    for (int tag = T_GALL0; tag <= T_GSOME1; tag++)
        MT_CALL(MPI_Recv(b[0], SHORT_N, MPI_INT, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
#endif
}

/* The status of slot i after MPI_ERR_IN_STATUS: slot 0 good, slot 1 a null
 * request, slot 2 truncated. */
static void check_in_status(const MPI_Status *st, int i, int slot, const char *what)
{
    if (slot == 2)
        MT_CHECK(err_class(st[i].MPI_ERROR) == MPI_ERR_TRUNCATE,
                 "%s: status %d (truncated receive) MPI_ERROR %d, class %d", what, i,
                 st[i].MPI_ERROR, err_class(st[i].MPI_ERROR));
    else
        MT_CHECK(st[i].MPI_ERROR == MPI_SUCCESS,
                 "%s: status %d (slot %d) MPI_ERROR %d, expected MPI_SUCCESS", what, i, slot,
                 st[i].MPI_ERROR);
}

static void multi_err(void)
{
    int b[2][SHORT_N], flag, n, idx[3], rc;
    MPI_Status st[3];
    MPI_Request r[3], two[2];

    post2(b, T_E_ALL0, two);
    r[0] = two[0], r[1] = MPI_REQUEST_NULL, r[2] = two[1];
    set_sent(st, 3);
    rc = MPI_Waitall(3, r, st);
    MT_CHECK(err_class(rc) == MPI_ERR_IN_STATUS, "Waitall: class %d", err_class(rc));
    for (int i = 0; i < 3; i++)
        check_in_status(st, i, i, "Waitall");
    check_data(b[0], T_E_ALL0, "Waitall");

    post2(b, T_E_TALL0, two);
    r[0] = two[0], r[1] = MPI_REQUEST_NULL, r[2] = two[1];
    flag = 0;
    rc = MPI_SUCCESS;
    while (!flag) {
        set_sent(st, 3);
        rc = MPI_Testall(3, r, &flag, st);
        if (!flag) {
            MT_CALL(rc);
            for (int i = 0; i < 3; i++)
                KEPT(st[i], "Testall before completion");
        }
    }
    MT_CHECK(err_class(rc) == MPI_ERR_IN_STATUS, "Testall: class %d", err_class(rc));
    for (int i = 0; i < 3; i++)
        check_in_status(st, i, i, "Testall");

    /* Waitsome and Testsome may report the two one at a time. */
    for (int pass = 0; pass < 2; pass++) {
        const char *what = pass == 0 ? "Waitsome" : "Testsome";
        int seen_err = 0;
        post2(b, pass == 0 ? T_E_SOME0 : T_E_TSOME0, two);
        r[0] = two[0], r[1] = MPI_REQUEST_NULL, r[2] = two[1];
        for (int done = 0; done < 2;) {
            set_sent(st, 3);
            rc = pass == 0 ? MPI_Waitsome(3, r, &n, idx, st) : MPI_Testsome(3, r, &n, idx, st);
            if (n < 0 || n > 2) {
                MT_CHECK(0, "%s: outcount %d", what, n);
                break;
            }
            if (rc == MPI_SUCCESS) {
                for (int i = 0; i < 3; i++)
                    KEPT_MULTI(st[i], what);
            } else {
                MT_CHECK(err_class(rc) == MPI_ERR_IN_STATUS, "%s: class %d", what,
                         err_class(rc));
                for (int i = 0; i < n; i++) {
                    check_in_status(st, i, idx[i], what);
                    seen_err |= idx[i] == 2;
                }
                for (int i = n; i < 3; i++)
                    KEPT(st[i], what);   /* not filled */
            }
            done += n;
        }
        MT_CHECK(seen_err, "%s never reported the truncated receive", what);
    }

#ifdef HAVE_GET_STATUS_MULTI
    post2(b, T_E_GALL0, two);
    r[0] = two[0], r[1] = MPI_REQUEST_NULL, r[2] = two[1];
    flag = 0;
    rc = MPI_SUCCESS;
    while (!flag) {
        set_sent(st, 3);
        rc = MPI_Request_get_status_all(3, r, &flag, st);
        if (!flag) {
            MT_CALL(rc);
            for (int i = 0; i < 3; i++)
                KEPT(st[i], "Request_get_status_all before completion");
        }
    }
    MT_CHECK(err_class(rc) == MPI_ERR_IN_STATUS, "Request_get_status_all: class %d",
             err_class(rc));
    for (int i = 0; i < 3; i++)
        check_in_status(st, i, i, "Request_get_status_all");
    set_sent(st, 3);
    rc = MPI_Request_get_status_some(3, r, &n, idx, st);
    MT_CHECK(err_class(rc) == MPI_ERR_IN_STATUS && n == 2,
             "Request_get_status_some: class %d outcount %d", err_class(rc), n);
    for (int i = 0; i < n && i < 2; i++)
        check_in_status(st, i, idx[i], "Request_get_status_some");
    KEPT(st[2], "Request_get_status_some (unfilled status)");
    MT_EXPECT_CLASS(MPI_Waitall(3, r, MPI_STATUSES_IGNORE), MPI_ERR_IN_STATUS);
#else
    MT_CALL(MPI_Recv(b[0], SHORT_N, MPI_INT, 1, T_E_GALL0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MT_EXPECT_CLASS(MPI_Recv(b[0], SHORT_N, MPI_INT, 1, T_E_GALL1, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE);
#endif
}

/* ---- generalized requests ---- */

static int query_fn(void *extra, MPI_Status *st)
{
    (void)extra;
    /* the standard asks query_fn not to set MPI_ERROR: it does not */
    MPI_Status_set_elements(st, MPI_BYTE, 3);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int free_fn(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

static void greq(void)
{
    MPI_Request r;
    MPI_Status st;
    int flag = 0;

    MT_CALL(MPI_Grequest_start(query_fn, free_fn, cancel_fn, NULL, &r));
    MT_CALL(MPI_Grequest_complete(r));
    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Request_get_status(r, &flag, &st));
    KEPT(st, "Request_get_status of a generalized request");
    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Wait(&r, &st));
    KEPT(st, "Wait on a generalized request");
}

/* Both ranks: a message exchanged both ways. */
static void exchange(void)
{
    int peer = 1 - mt_rank, x[SHORT_N], y[SHORT_N], rc;
    MPI_Status st;

    for (int i = 0; i < SHORT_N; i++)
        x[i] = mt_rank * 100 + i;
    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Sendrecv(x, SHORT_N, MPI_INT, peer, 70, y, SHORT_N, MPI_INT, peer, 70,
                         MPI_COMM_WORLD, &st));
    KEPT(st, "Sendrecv");
    MT_CHECK(y[0] == peer * 100, "Sendrecv data %d", y[0]);
    st.MPI_ERROR = SENT;
    MT_CALL(MPI_Sendrecv_replace(x, SHORT_N, MPI_INT, peer, 71, peer, 71, MPI_COMM_WORLD,
                                 &st));
    KEPT(st, "Sendrecv_replace");
    MT_CHECK(x[0] == peer * 100, "Sendrecv_replace data %d", x[0]);
    /* a failing Sendrecv: the peer's message is longer than the buffer */
    st.MPI_ERROR = SENT;
    rc = MPI_Sendrecv(x, SHORT_N, MPI_INT, peer, 72, y, SHORT_N - 1, MPI_INT, peer, 72,
                      MPI_COMM_WORLD, &st);
    MT_CHECK(err_class(rc) == MPI_ERR_TRUNCATE, "truncated Sendrecv: class %d", err_class(rc));
    KEPT(st, "truncated Sendrecv");
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    if (mt_size < 2) {
        MT_CHECK(mt_size >= 2, "needs 2 ranks, has %d", mt_size);
    } else if (mt_rank == 1) {
        sender();
    } else if (mt_rank == 0) {
        single_ok();
        single_null();
        single_err();
        multi_ok();
        multi_err();
    }
    greq();
    if (mt_rank <= 1 && mt_size >= 2)
        exchange();
    return mt_finalize();
}
