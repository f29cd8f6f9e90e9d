/* MPI_Cancel of send requests.
 *
 * Rank 0 sends to rank 1 and cancels; MPI_Wait / MPI_Test on a send
 * marked for cancellation must return (a helper gives up after 30 s and
 * fails the test instead of hanging), and MPI_Test_cancelled must say what
 * happened: a send the receiver has not matched - a synchronous send of
 * any size, a rendezvous-size standard send - is cancelled and the
 * receiver never sees it; a send the receiver has matched is not
 * cancelled and arrives whole.  Eager standard sends may go either way
 * (they usually complete locally before the cancel), so rank 0 tells rank 1
 * which messages were not cancelled and rank 1 receives exactly those, in
 * order, every byte checked, then finds nothing more from rank 0 with an
 * Iprobe (nothing cancelled left behind, no hole before later messages).
 *
 * While rank 1 has not posted receives it sits in a blocking MPI_Recv of
 * the control message, so its progress engine answers the cancels.
 *
 * With 3 ranks, rank 2 streams messages of the same tag to rank 1 in
 * every round, and rank 1 takes them with MPI_ANY_SOURCE after rank 0's:
 * none of rank 0's cancelled messages may turn up there.  Rank 0 also
 * cancels a synchronous send to itself. */
#include "mtest.h"

#define TAG_DATA 7
#define TAG_CTL  8
#define TAG_SIG  9
#define TAG_END  10
#define SMALL    100
#define RNDV     (1 << 20)
#define MAXMSG   256
#define NBACKLOG 160
#define BACKLOG_SZ 4096
#define NTHIRD   6
#define DEADLINE 30.0
/* seeds: unmatched-round messages; follow-ups are 1000 + round, matched
 * 2000 + round, persistent 3000 + round, rank 2's 5000 + ... */
#define ID(round) (10000 + 1000 * (round))

static int nthird;    /* messages rank 2 sends to rank 1 per round */

typedef struct {
    int          id;
    int          size;
    int          sync;
    int          cancel;     /* call MPI_Cancel on it */
    int          must;       /* 1: must be cancelled, 0: must not, -1: either */
    unsigned char *buf;
    MPI_Request  req;
    int          cancelled;
} msg_t;

/* Complete req by MPI_Test (use_wait 0) or MPI_Wait; never hang. */
static void complete(MPI_Request *req, MPI_Status *st, int use_wait, const char *what)
{
    if (use_wait) {
        MT_CALL(MPI_Wait(req, st));
        return;
    }
    double t0 = mt_mono_now();
    int flag = 0;
    while (!flag) {
        MT_CALL(MPI_Test(req, &flag, st));
        if (!flag && mt_mono_now() - t0 > DEADLINE)
            MT_DIE("%s: MPI_Test after MPI_Cancel still false after %.0f s", what, DEADLINE);
    }
    MT_CHECK(*req == MPI_REQUEST_NULL, "%s: request not freed by MPI_Test", what);
}

static void msg_init(msg_t *m, int id, int size, int sync, int cancel, int must)
{
    m->id = id;
    m->size = size;
    m->sync = sync;
    m->cancel = cancel;
    m->must = must;
    m->buf = mt_malloc((size_t)size);
    mt_fill(m->buf, (size_t)size, (unsigned)id);
    m->req = MPI_REQUEST_NULL;
    m->cancelled = 0;
}

/* Rank 1: receive message (id, size) from src and check every byte. */
static void recv_check(int src, int id, int size, const char *what)
{
    unsigned char *buf = mt_malloc((size_t)size + 64);
    MPI_Status st;
    int cnt = -1, canc = -1;
    MT_CALL(MPI_Recv(buf, size + 64, MPI_BYTE, src, TAG_DATA, MPI_COMM_WORLD, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    MPI_Test_cancelled(&st, &canc);
    MT_CHECK(cnt == size && st.MPI_SOURCE == (src == MPI_ANY_SOURCE ? 2 : src) && !canc,
             "%s: message %d: count %d (want %d) source %d cancelled %d", what, id, cnt,
             size, st.MPI_SOURCE, canc);
    if (cnt == size)
        MT_CHECK_PATTERN(buf, (size_t)size, (unsigned)id, what);
    free(buf);
}

/* Rank 2: the stream of this round (tag TAG_DATA, ids 5000 + round * 16 + i). */
static void third_sends(int round)
{
    if (nthird == 0)
        return;
    MPI_Request reqs[NTHIRD];
    unsigned char *bufs[NTHIRD];
    for (int i = 0; i < nthird; i++) {
        int size = (i % 3 == 2) ? RNDV : SMALL * (i + 1);
        bufs[i] = mt_malloc((size_t)size);
        mt_fill(bufs[i], (size_t)size, 5000u + (unsigned)(round * 16 + i));
        if (i % 2)
            MT_CALL(MPI_Issend(bufs[i], size, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD,
                               &reqs[i]));
        else
            MT_CALL(MPI_Isend(bufs[i], size, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD,
                              &reqs[i]));
    }
    MT_CALL(MPI_Waitall(nthird, reqs, MPI_STATUSES_IGNORE));
    for (int i = 0; i < nthird; i++)
        free(bufs[i]);
}

static void third_recvs(int round, const char *what)
{
    for (int i = 0; i < nthird; i++) {
        int size = (i % 3 == 2) ? RNDV : SMALL * (i + 1);
        recv_check(MPI_ANY_SOURCE, 5000 + round * 16 + i, size, what);
    }
}

/* Rank 1, end of a round: nothing more from rank 0 (or anyone) with
 * TAG_DATA, then release the others into the next round. */
static void round_end(const char *what)
{
    int flag = 1;
    MPI_Status st;
    MT_CALL(MPI_Iprobe(MPI_ANY_SOURCE, TAG_DATA, MPI_COMM_WORLD, &flag, &st));
    if (flag) {
        int cnt = -1;
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        MT_CHECK(!flag, "%s: a message (source %d, %d B) is left over", what, st.MPI_SOURCE,
                 cnt);
    }
    MT_CALL(MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_END, MPI_COMM_WORLD));
    if (mt_size > 2)
        MT_CALL(MPI_Send(NULL, 0, MPI_BYTE, 2, TAG_END, MPI_COMM_WORLD));
}

static void wait_round_end(void)
{
    MT_CALL(MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_END, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

/* One round of unmatched sends: rank 0 starts msgs[0..n), cancels those
 * marked, completes the cancelled ones, sends a follow-up and the list of
 * what rank 1 is to receive; rank 1 receives that. */
static void unmatched_round(int round, msg_t *msgs, int n, int use_wait, const char *what)
{
    if (mt_rank == 0) {
        for (int i = 0; i < n; i++) {
            msg_t *m = &msgs[i];
            if (m->sync)
                MT_CALL(MPI_Issend(m->buf, m->size, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD,
                                   &m->req));
            else
                MT_CALL(MPI_Isend(m->buf, m->size, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD,
                                  &m->req));
        }
        /* cancel from the last to the first: later sends are the ones a
         * backlog still holds */
        for (int i = n - 1; i >= 0; i--)
            if (msgs[i].cancel)
                MT_CALL(MPI_Cancel(&msgs[i].req));
        int ctl[1 + 2 * MAXMSG + 2], k = 0;
        for (int i = 0; i < n; i++) {
            msg_t *m = &msgs[i];
            if (!m->cancel)
                continue;
            MPI_Status st;
            mt_poison_status(&st);
            complete(&m->req, &st, use_wait, what);
            MPI_Test_cancelled(&st, &m->cancelled);
            if (m->must >= 0)
                MT_CHECK(m->cancelled == m->must,
                         "%s: message %d (%d B, %s): cancelled %d, expected %d", what, m->id,
                         m->size, m->sync ? "Issend" : "Isend", m->cancelled, m->must);
        }
        if (mt_env_int("MTEST_VERBOSE", 0)) {
            int nc = 0;
            for (int i = 0; i < n; i++)
                nc += msgs[i].cancelled;
            printf("%s: %d of %d cancelled\n", what, nc, n);
        }
        for (int i = 0; i < n; i++) {
            if (!msgs[i].cancelled) {
                ctl[1 + 2 * k] = msgs[i].id;
                ctl[2 + 2 * k] = msgs[i].size;
                k++;
            }
        }
        /* a later message from the same sender must not be held up */
        msg_t follow;
        msg_init(&follow, 1000 + round, 3000 + round, 0, 0, 0);
        MT_CALL(MPI_Isend(follow.buf, follow.size, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD,
                          &follow.req));
        ctl[1 + 2 * k] = follow.id;
        ctl[2 + 2 * k] = follow.size;
        k++;
        ctl[0] = k;
        MT_CALL(MPI_Send(ctl, 1 + 2 * k, MPI_INT, 1, TAG_CTL, MPI_COMM_WORLD));
        for (int i = 0; i < n; i++) {
            if (msgs[i].req != MPI_REQUEST_NULL) {
                MPI_Status st;
                int canc = -1;
                MT_CALL(MPI_Wait(&msgs[i].req, &st));
                MPI_Test_cancelled(&st, &canc);
                MT_CHECK(canc == 0, "%s: message %d not cancelled, yet its status says so",
                         what, msgs[i].id);
            }
            free(msgs[i].buf);
        }
        MT_CALL(MPI_Wait(&follow.req, MPI_STATUS_IGNORE));
        free(follow.buf);
        wait_round_end();
    } else if (mt_rank == 1) {
        int ctl[1 + 2 * MAXMSG + 2];
        MT_CALL(MPI_Recv(ctl, 1 + 2 * MAXMSG + 2, MPI_INT, 0, TAG_CTL, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
        for (int i = 0; i < ctl[0]; i++)
            recv_check(0, ctl[1 + 2 * i], ctl[2 + 2 * i], what);
        third_recvs(round, what);
        round_end(what);
    } else if (mt_rank == 2) {
        third_sends(round);
        wait_round_end();
    }
}

/* Sends rank 1 has matched (receive posted before the send started) are
 * not cancelled and arrive whole; the cancel's answer may come after the
 * send's FIN, which must still complete the request. */
static void matched_round(int round, int size, int sync, const char *what)
{
    int id = 2000 + round;
    if (mt_rank == 0) {
        msg_t m;
        msg_init(&m, id, size, sync, 1, 0);
        MT_CALL(MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_SIG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (sync)
            MT_CALL(MPI_Issend(m.buf, size, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, &m.req));
        else
            MT_CALL(MPI_Isend(m.buf, size, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, &m.req));
        MT_CALL(MPI_Cancel(&m.req));
        MPI_Status st;
        int canc = -1;
        complete(&m.req, &st, 0, what);
        MPI_Test_cancelled(&st, &canc);
        MT_CHECK(canc == 0, "%s: a matched send (%d B) was cancelled", what, size);
        free(m.buf);
        wait_round_end();
    } else if (mt_rank == 1) {
        unsigned char *buf = mt_malloc((size_t)size);
        MPI_Request r;
        MPI_Status st;
        int cnt = -1, canc = -1;
        MT_CALL(MPI_Irecv(buf, size, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, &r));
        MT_CALL(MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_SIG, MPI_COMM_WORLD));
        MT_CALL(MPI_Wait(&r, &st));
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        MPI_Test_cancelled(&st, &canc);
        MT_CHECK(cnt == size && !canc, "%s: count %d (want %d) cancelled %d", what, cnt, size,
                 canc);
        MT_CHECK_PATTERN(buf, (size_t)size, (unsigned)id, what);
        free(buf);
        third_recvs(round, what);
        round_end(what);
    } else if (mt_rank == 2) {
        third_sends(round);
        wait_round_end();
    }
}

/* Persistent sends: a cancelled start leaves nothing behind, the next
 * start of the same request is delivered. */
static void persistent_round(int round, int size, int sync, const char *what)
{
    int id = 3000 + round;
    if (mt_rank == 0) {
        msg_t m;
        msg_init(&m, id, size, sync, 1, 1);
        if (sync)
            MT_CALL(MPI_Ssend_init(m.buf, size, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, &m.req));
        else
            MT_CALL(MPI_Send_init(m.buf, size, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, &m.req));
        MT_CALL(MPI_Start(&m.req));
        MT_CALL(MPI_Cancel(&m.req));
        MPI_Status st;
        int canc = -1;
        MT_CALL(MPI_Wait(&m.req, &st));
        MPI_Test_cancelled(&st, &canc);
        MT_CHECK(canc == 1, "%s: persistent send (%d B) not cancelled", what, size);
        MT_CHECK(m.req != MPI_REQUEST_NULL, "%s: persistent request freed", what);
        MT_CALL(MPI_Start(&m.req));
        int ctl[3] = { 1, id, size };
        MT_CALL(MPI_Send(ctl, 3, MPI_INT, 1, TAG_CTL, MPI_COMM_WORLD));
        MT_CALL(MPI_Wait(&m.req, &st));
        MPI_Test_cancelled(&st, &canc);
        MT_CHECK(canc == 0, "%s: second start of a persistent send says cancelled", what);
        MT_CALL(MPI_Request_free(&m.req));
        free(m.buf);
        wait_round_end();
    } else if (mt_rank == 1) {
        int ctl[3];
        MT_CALL(MPI_Recv(ctl, 3, MPI_INT, 0, TAG_CTL, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        recv_check(0, ctl[1], ctl[2], what);
        third_recvs(round, what);
        round_end(what);
    } else if (mt_rank == 2) {
        third_sends(round);
        wait_round_end();
    }
}

/* Rank 0 cancels a synchronous send to itself, then receives a later one. */
static void self_cancel(void)
{
    unsigned char sbuf[SMALL], rbuf[SMALL];
    MPI_Request r;
    MPI_Status st;
    int canc = -1, flag = 1;
    mt_fill(sbuf, SMALL, 77);
    MT_CALL(MPI_Issend(sbuf, SMALL, MPI_BYTE, 0, TAG_DATA, MPI_COMM_SELF, &r));
    MT_CALL(MPI_Cancel(&r));
    complete(&r, &st, 0, "self Issend");
    MPI_Test_cancelled(&st, &canc);
    MT_CHECK(canc == 1, "self: an unmatched Issend to ourselves was not cancelled");
    mt_fill(sbuf, SMALL, 78);
    MT_CALL(MPI_Isend(sbuf, SMALL, MPI_BYTE, 0, TAG_DATA, MPI_COMM_SELF, &r));
    MT_CALL(MPI_Recv(rbuf, SMALL, MPI_BYTE, 0, TAG_DATA, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    MT_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MT_CHECK_PATTERN(rbuf, SMALL, 78, "self: the message after a cancelled one");
    MT_CALL(MPI_Iprobe(0, TAG_DATA, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE));
    MT_CHECK(!flag, "self: the cancelled message is still there");
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    if (mt_size < 2) {
        MT_CHECK(0, "needs at least 2 ranks");
        return mt_finalize();
    }
    nthird = mt_size > 2 ? NTHIRD : 0;
    static msg_t msgs[NBACKLOG];
    int round = 0;

    /* an unmatched Issend to myself: cancelled by the time MPI_Cancel
     * returns, as the first MPI_Request_get_status sees (mpi4py's pkl5
     * tests receive the message when it says not cancelled) */
    for (int size = 0; size <= RNDV; size = size ? size * 64 : SMALL) {
        static char sbuf[RNDV];
        MPI_Request r;
        MPI_Status st;
        int flag = 0, c = 0;
        MT_CALL(MPI_Issend(sbuf, size, MPI_BYTE, mt_rank, 77, MPI_COMM_WORLD, &r));
        MT_CALL(MPI_Cancel(&r));
        MT_CALL(MPI_Request_get_status(r, &flag, &st));
        MT_CALL(MPI_Test_cancelled(&st, &c));
        MT_CHECK(flag && c, "Issend of %d B to myself: complete %d, cancelled %d right after "
                 "MPI_Cancel", size, flag, c);
        MT_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }

    /* unmatched synchronous sends of every protocol, a rendezvous-size
     * standard send, an eager standard send (either outcome) */
    static const struct { int size, sync, must; const char *what; } one[] = {
        { SMALL, 1, 1, "unmatched Issend (eager size)" },
        { 0, 1, 1, "unmatched Issend (0 B)" },
        { RNDV, 1, 1, "unmatched Issend (rendezvous size)" },
        { RNDV, 0, 1, "unmatched Isend (rendezvous size)" },
        { SMALL, 0, -1, "eager Isend" },
    };
    for (int c = 0; c < (int)(sizeof one / sizeof one[0]); c++) {
        for (int use_wait = 0; use_wait < 2; use_wait++) {
            if (mt_rank == 0)
                msg_init(&msgs[0], ID(round), one[c].size, one[c].sync, 1, one[c].must);
            unmatched_round(round, msgs, 1, use_wait, one[c].what);
            round++;
        }
    }

    /* cancelled and kept messages interleaved */
    if (mt_rank == 0) {
        int id = ID(round);
        msg_init(&msgs[0], id + 0, SMALL, 1, 1, 1);
        msg_init(&msgs[1], id + 1, SMALL * 3, 0, 0, 0);
        msg_init(&msgs[2], id + 2, RNDV, 0, 1, 1);
        msg_init(&msgs[3], id + 3, 7, 0, 0, 0);
        msg_init(&msgs[4], id + 4, RNDV / 2, 1, 1, 1);
        msg_init(&msgs[5], id + 5, RNDV + 3, 0, 0, 0);
        msg_init(&msgs[6], id + 6, 0, 1, 1, 1);
        msg_init(&msgs[7], id + 7, SMALL, 1, 0, 0);
    }
    unmatched_round(round++, msgs, 8, 0, "interleaved");

    /* a backlog of eager sends: those still queued can be withdrawn */
    if (mt_rank == 0)
        for (int i = 0; i < NBACKLOG; i++)
            msg_init(&msgs[i], ID(round) + i, BACKLOG_SZ, 0, i >= NBACKLOG / 2, -1);
    unmatched_round(round++, msgs, NBACKLOG, 0, "backlog");

    matched_round(round++, SMALL, 1, "matched Issend (eager size)");
    matched_round(round++, RNDV, 1, "matched Issend (rendezvous size)");
    matched_round(round++, RNDV, 0, "matched Isend (rendezvous size)");
    matched_round(round++, SMALL, 0, "matched Isend (eager size)");

    persistent_round(round++, RNDV, 0, "persistent Send_init (rendezvous size)");
    persistent_round(round++, SMALL, 1, "persistent Ssend_init (eager size)");

    if (mt_rank == 0)
        self_cancel();
    return mt_finalize();
}
