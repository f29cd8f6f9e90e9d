/* MPI_T events delivered (docs/mpi_t.md): callbacks registered for the udp
 * events run while traffic crosses a lossy udp connection, see sane data
 * through MPI_T_event_read/_copy/_get_timestamp/_get_source, and stop when
 * their registration is freed.  MTEST_MPIT_EVENTS picks the run:
 *
 *   burst (default; TERN_XPORT=udp and TERN_UDP_FAULT_DROP set by the
 *         testlist): udp_retransmit_burst reaches a callback registered at
 *         MPI_T_CB_REQUIRE_MPI_RESTRICTED and one at _THREAD_SAFE; a
 *         registration with only an MPI_T_CB_REQUIRE_NONE callback gets
 *         its dropped handler instead; after MPI_T_event_handle_free (whose
 *         free callback runs once) a registration gets nothing more while
 *         another one still does; a callback frees its own registration
 *         and another one.  The instances agree with the per-peer
 *         counters (fast retransmits, timeouts, probes).  With one rail,
 *         udp_rail_state never fires.
 *   rail  (two nodes joined by two rails; tests/net): rank 0 runs
 *         MTEST_RAIL_DOWN_CMD (takes its second link down) mid-run, and
 *         udp_rail_state must report a rail of the peer going down, as
 *         often as the udp_peer_rails_down counter counts.
 *   peer_failure (TERN_UDP_PEER_TIMEOUT short): rank 1 stops (SIGSTOP)
 *         while rank 0 sends to it; rank 0's udp_peer_failure callback
 *         prints "udp_peer_failure event: peer 1 reason R ok" before the
 *         job ends, which the testlist's expect_stderr checks. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "mtest.h"

#define T_CALL(call)                                                           \
    do {                                                                       \
        int rc_ = (call);                                                      \
        MT_CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_);            \
    } while (0)
#define T_EXPECT(call, code)                                                   \
    do {                                                                       \
        int rc_ = (call);                                                      \
        MT_CHECK(rc_ == (code), "%s returned %d, expected %s", #call, rc_, #code); \
    } while (0)

#define MSG_BYTES (256 << 10)
#define MAX_ROUNDS 400

/* What one registration saw. */
typedef struct {
    const char              *what;
    int                      nelems;     /* elements of its event */
    MPI_T_event_registration reg;
    MPI_T_cb_safety          safety;     /* level it was registered at */
    int                      calls;
    int                      packets;    /* burst: sum of the packets element */
    int                      by_cause[3]; /* burst: instances per cause */
    int                      fast_packets; /* burst: packets of cause 0 */
    int                      downs;      /* rail: state-0 instances */
    MPI_Count                last_ts;
    MPI_T_event_instance     last_inst;  /* invalid once the callback returned */
    int                      dropped;    /* dropped handler: sum of counts */
    int                      frees;
} seen_t;

static int peer_rank;
static MPI_Count t_start;     /* source timestamp before any traffic */

static int elem_ok(const seen_t *s, const int *e)
{
    if (e[0] != peer_rank) {
        return 0;
    }
    if (strcmp(s->what, "udp_retransmit_burst") == 0) {
        return e[1] >= 0 && e[2] >= 0 && e[2] <= 2;
    }
    if (strcmp(s->what, "udp_rail_state") == 0) {
        return e[1] >= 0 && e[1] < 4 && (e[2] == 0 || e[2] == 1);
    }
    return e[1] >= 1 && e[1] <= 3;          /* peer failure: the reason */
}

/* Reads the instance every way there is and checks the answers agree. */
static void on_event(MPI_T_event_instance inst, MPI_T_event_registration reg,
                     MPI_T_cb_safety safety, void *user_data)
{
    seen_t *s = user_data;
    int e[4] = { -1, -1, -1, -1 }, c[4] = { -2, -2, -2, -2 }, src = -1;
    MPI_Count ts = -1, now = -1;
    MT_CHECK(reg == s->reg, "%s: callback for another registration", s->what);
    MT_CHECK(safety == MPI_T_CB_REQUIRE_MPI_RESTRICTED, "%s: called in context %d", s->what,
             (int)safety);
    MT_CHECK(s->safety != MPI_T_CB_REQUIRE_NONE, "%s: an MPI_T_CB_REQUIRE_NONE callback ran",
             s->what);
    for (int k = 0; k < s->nelems; k++) {
        T_CALL(MPI_T_event_read(inst, k, &e[k]));
    }
    T_EXPECT(MPI_T_event_read(inst, s->nelems, &e[3]), MPI_T_ERR_INVALID_INDEX);
    T_CALL(MPI_T_event_copy(inst, c));
    MT_CHECK(memcmp(e, c, (size_t)s->nelems * sizeof(int)) == 0 && c[s->nelems] == -2,
             "%s: copy %d %d %d differs from read %d %d %d", s->what, c[0], c[1], c[2], e[0],
             e[1], e[2]);
    MT_CHECK(elem_ok(s, e), "%s: elements %d %d %d (peer should be %d)", s->what, e[0], e[1],
             e[2], peer_rank);
    T_CALL(MPI_T_event_get_source(inst, &src));
    MT_CHECK(src == 0, "%s: source %d", s->what, src);
    T_CALL(MPI_T_event_get_timestamp(inst, &ts));
    T_CALL(MPI_T_source_get_timestamp(src, &now));
    /* one ordered source: instances come in time order, none from the future */
    MT_CHECK(ts >= t_start && ts <= now && ts >= s->last_ts,
             "%s: timestamp %lld outside [%lld (start) / %lld (last), %lld (now)]", s->what,
             (long long)ts, (long long)t_start, (long long)s->last_ts, (long long)now);
    s->last_ts = ts;
    s->last_inst = inst;
    s->calls++;
    s->packets += e[1];
    s->downs += strcmp(s->what, "udp_rail_state") == 0 && e[2] == 0;
    if (strcmp(s->what, "udp_retransmit_burst") == 0 && e[2] >= 0 && e[2] <= 2) {
        s->by_cause[e[2]]++;
        s->fast_packets += e[2] == 0 ? e[1] : 0;
    }
    if (strcmp(s->what, "udp_peer_failure") == 0 && mt_errs == 0) {
        fprintf(stderr, "udp_peer_failure event: peer %d reason %d ok\n", e[0], e[1]);
    }
}

static void on_dropped(MPI_Count count, MPI_T_event_registration reg, int source_index,
                       MPI_T_cb_safety safety, void *user_data)
{
    seen_t *s = user_data;
    MT_CHECK(reg == s->reg && source_index == 0 && count >= 1 &&
             safety == MPI_T_CB_REQUIRE_MPI_RESTRICTED,
             "%s: dropped handler with count %lld, source %d, context %d", s->what,
             (long long)count, source_index, (int)safety);
    s->dropped += (int)count;
}

static void on_free(MPI_T_event_registration reg, MPI_T_cb_safety safety, void *user_data)
{
    seen_t *s = user_data;
    /* called from MPI_T_event_handle_free, in the tool's own context */
    MT_CHECK(reg == s->reg && safety == MPI_T_CB_REQUIRE_NONE,
             "%s: free callback for another registration or in context %d", s->what,
             (int)safety);
    s->frees++;
}

/* A callback that, on its first call, frees its own registration and then
 * another registration of the same event: the free callback of its own
 * runs once the callback has returned, the other's at once, and neither
 * is called again. */
static seen_t *self_victim;
static int self_victim_calls;    /* the victim's calls when it was freed */

static void on_event_free_self(MPI_T_event_instance inst, MPI_T_event_registration reg,
                               MPI_T_cb_safety safety, void *user_data)
{
    seen_t *s = user_data;
    (void)inst;
    (void)safety;
    s->calls++;
    if (s->calls == 1) {
        T_CALL(MPI_T_event_handle_free(reg, s, on_free));
        MT_CHECK(s->frees == 0, "%s: free callback ran inside the registration's own "
                 "callback", s->what);
        T_CALL(MPI_T_event_handle_free(self_victim->reg, self_victim, on_free));
        MT_CHECK(self_victim->frees == 1, "%s: the other registration's free callback ran %d "
                 "times", s->what, self_victim->frees);
        self_victim_calls = self_victim->calls;
    }
}

static int event_index(const char *name, int *nelems_p)
{
    int idx = -1, n = 0;
    T_CALL(MPI_T_event_get_index(name, &idx));
    T_CALL(MPI_T_event_get_info(idx, NULL, NULL, NULL, NULL, NULL, &n, NULL, NULL, NULL, NULL,
                                NULL));
    *nelems_p = n;
    return idx;
}

static void reg_alloc(seen_t *s, const char *name, MPI_T_cb_safety safety)
{
    *s = (seen_t){ .what = name, .safety = safety, .last_ts = 0 };
    int idx = event_index(name, &s->nelems);
    MT_CHECK(s->nelems >= 2 && s->nelems <= 3, "%s: %d elements", name, s->nelems);
    T_CALL(MPI_T_event_handle_alloc(idx, NULL, MPI_INFO_NULL, &s->reg));
    T_CALL(MPI_T_event_register_callback(s->reg, safety, MPI_INFO_NULL, s, on_event));
    T_CALL(MPI_T_event_set_dropped_handler(s->reg, on_dropped));
}

static void reg_free(seen_t *s)
{
    T_CALL(MPI_T_event_handle_free(s->reg, s, on_free));
    MT_CHECK(s->frees == 1, "%s: free callback ran %d times", s->what, s->frees);
}

/* The per-peer counters the events must agree with (docs/mpi_t.md: a
 * udp_peer_* variable is an array over the world ranks; a handle counts
 * from 0 at its allocation). */
static MPI_T_pvar_session session;

typedef struct {
    MPI_T_pvar_handle h;
    int               count;
} pvar_t;

static void pvar_alloc(pvar_t *p, const char *name)
{
    int idx = -1;
    T_CALL(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &idx));
    T_CALL(MPI_T_pvar_handle_alloc(session, idx, NULL, &p->h, &p->count));
    MT_CHECK(p->count == mt_size, "%s: count %d", name, p->count);
}

/* Element peer_rank of p. */
static unsigned long long pvar_peer(const pvar_t *p)
{
    unsigned long long v[8] = { 0 };
    if (p->count < 1 || p->count > 8) {
        return ~0ull;
    }
    T_CALL(MPI_T_pvar_read(session, p->h, v));
    return v[peer_rank];
}

/* One exchange with the peer, every byte checked. */
static void exchange(int round)
{
    static unsigned char sbuf[MSG_BYTES], rbuf[MSG_BYTES];
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mt_fill(sbuf, sizeof(sbuf), (unsigned)(round * 2 + rank));
    memset(rbuf, 0, sizeof(rbuf));
    MT_CALL(MPI_Sendrecv(sbuf, MSG_BYTES, MPI_BYTE, peer_rank, round, rbuf, MSG_BYTES,
                         MPI_BYTE, peer_rank, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    size_t bad = mt_verify(rbuf, sizeof(rbuf), (unsigned)(round * 2 + peer_rank));
    MT_CHECK(bad == (size_t)-1, "round %d: byte %zu wrong", round, bad);
}

/* Exchanges until *count has grown by want on every rank (or MAX_ROUNDS);
 * what it grew by. */
static int exchange_until(int *round, const int *count, int want)
{
    int base = *count, done = 0;
    for (int r = 0; r < MAX_ROUNDS && !done; r++) {
        exchange((*round)++);
        int mine = *count - base >= want;
        MT_CALL(MPI_Allreduce(&mine, &done, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
    }
    return *count - base;
}

static void run_burst(void)
{
    seen_t burst, burst2, none_only, rail;
    pvar_t fast, timeouts, probes;
    int round = 0;
    reg_alloc(&burst, "udp_retransmit_burst", MPI_T_CB_REQUIRE_MPI_RESTRICTED);
    reg_alloc(&burst2, "udp_retransmit_burst", MPI_T_CB_REQUIRE_THREAD_SAFE);
    reg_alloc(&none_only, "udp_retransmit_burst", MPI_T_CB_REQUIRE_NONE);
    reg_alloc(&rail, "udp_rail_state", MPI_T_CB_REQUIRE_MPI_RESTRICTED);
    seen_t victim, self;
    reg_alloc(&victim, "udp_retransmit_burst", MPI_T_CB_REQUIRE_MPI_RESTRICTED);
    reg_alloc(&self, "udp_retransmit_burst", MPI_T_CB_REQUIRE_MPI_RESTRICTED);
    T_CALL(MPI_T_event_register_callback(self.reg, MPI_T_CB_REQUIRE_MPI_RESTRICTED,
                                         MPI_INFO_NULL, &self, on_event_free_self));
    self_victim = &victim;
    pvar_alloc(&fast, "udp_peer_fast_retransmits");
    pvar_alloc(&timeouts, "udp_peer_timeouts");
    pvar_alloc(&probes, "udp_peer_probes");

    int got = exchange_until(&round, &burst.calls, 5);
    MT_CHECK(got >= 5, "udp_retransmit_burst: %d callbacks in %d rounds with drops", got, round);
    MT_CHECK(burst.packets > 0, "udp_retransmit_burst: no packet resent in %d events",
             burst.calls);
    /* every pass the counters saw was an event, with the same numbers */
    unsigned long long f = pvar_peer(&fast), t = pvar_peer(&timeouts), p = pvar_peer(&probes);
    MT_CHECK(f == (unsigned long long)burst.fast_packets &&
             t == (unsigned long long)burst.by_cause[1] &&
             p == (unsigned long long)burst.by_cause[2],
             "events (fast retransmit %d packets, %d timeouts, %d probes) differ from the "
             "counters (%llu, %llu, %llu)", burst.fast_packets, burst.by_cause[1],
             burst.by_cause[2], f, t, p);
    MT_CHECK(burst2.calls == burst.calls, "the THREAD_SAFE registration saw %d events, the "
             "MPI_RESTRICTED one %d", burst2.calls, burst.calls);
    MT_CHECK(none_only.calls == 0 && none_only.dropped == burst.calls,
             "NONE-only registration: %d callbacks, %d dropped, %d events", none_only.calls,
             none_only.dropped, burst.calls);
    MT_CHECK(rail.calls == 0, "udp_rail_state: %d events with one rail", rail.calls);
    MT_CHECK(self.calls == 1 && self.frees == 1 && victim.frees == 1 &&
             victim.calls == self_victim_calls,
             "registrations freed in a callback: own %d calls %d frees; other %d frees, "
             "%d calls (%d when freed)", self.calls, self.frees, victim.frees, victim.calls,
             self_victim_calls);
    /* the instance lives only inside its callback */
    T_EXPECT(MPI_T_event_read(burst.last_inst, 0, &got), MPI_T_ERR_INVALID_HANDLE);
    T_EXPECT(MPI_T_event_get_timestamp(burst.last_inst, &t_start), MPI_T_ERR_INVALID_HANDLE);

    /* freed: nothing more reaches it, while burst2 still hears the event */
    int before = burst.calls, dropped_before = none_only.dropped;
    reg_free(&burst);
    reg_free(&none_only);
    got = exchange_until(&round, &burst2.calls, 5);
    MT_CHECK(got >= 5, "udp_retransmit_burst: %d callbacks after a free", got);
    MT_CHECK(burst.calls == before && none_only.dropped == dropped_before,
             "freed registrations still called: %d -> %d callbacks, %d -> %d dropped", before,
             burst.calls, dropped_before, none_only.dropped);
    T_EXPECT(MPI_T_event_handle_free(burst.reg, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
    T_EXPECT(MPI_T_event_register_callback(burst.reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL,
                                           NULL, on_event), MPI_T_ERR_INVALID_HANDLE);

    /* removing the last callback (NULL) silences a registration too */
    before = burst2.calls;
    T_CALL(MPI_T_event_register_callback(burst2.reg, MPI_T_CB_REQUIRE_THREAD_SAFE,
                                         MPI_INFO_NULL, NULL, NULL));
    for (int r = 0; r < 20; r++) {
        exchange(round++);
    }
    MT_CHECK(burst2.calls == before, "a registration without callbacks was called %d times",
             burst2.calls - before);
    reg_free(&burst2);
    reg_free(&rail);
}

static void run_rail(void)
{
    seen_t rail;
    pvar_t down;
    int round = 0;
    const char *cmd = getenv("MTEST_RAIL_DOWN_CMD");
    reg_alloc(&rail, "udp_rail_state", MPI_T_CB_REQUIRE_MPI_RESTRICTED);
    pvar_alloc(&down, "udp_peer_rails_down");
    for (int r = 0; r < 10; r++) {
        exchange(round++);
    }
    if (mt_rank == 0) {
        MT_CHECK(cmd != NULL, "no MTEST_RAIL_DOWN_CMD");
        int rc = cmd != NULL ? system(cmd) : -1;
        MT_CHECK(rc == 0, "'%s' exited with %d", cmd != NULL ? cmd : "", rc);
    }
    /* rank 0's sends on the dead link fail or are lost: it takes it down */
    int got = exchange_until(&round, &rail.downs, mt_rank == 0 ? 1 : 0);
    MT_CHECK(mt_rank != 0 || got >= 1, "udp_rail_state: no rail down in %d rounds", round);
    /* a busy machine may take a working rail down too (docs/transports/
     * udp.md): every one the counter saw must have been an event */
    unsigned long long d = pvar_peer(&down);
    MT_CHECK(d == (unsigned long long)rail.downs, "%d rail-down events, counter %llu",
             rail.downs, d);
    reg_free(&rail);
}

static void run_peer_failure(void)
{
    seen_t fail;
    reg_alloc(&fail, "udp_peer_failure", MPI_T_CB_REQUIRE_MPI_RESTRICTED);
    exchange(0);
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 1) {
        raise(SIGSTOP);     /* silent from now on; the launcher kills it */
    } else if (mt_rank == 0) {
        exchange(1);        /* never completes: the job ends in udp */
    }
    fprintf(stderr, "FAIL: rank %d returned from a call that cannot complete\n", mt_rank);
}

int main(int argc, char **argv)
{
    int provided;
    const char *mode = getenv("MTEST_MPIT_EVENTS");
    mode = mode != NULL ? mode : "burst";
    /* MPI_T before MPI_Init: a registration made there is kept */
    T_CALL(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    seen_t early;
    reg_alloc(&early, "udp_rail_state", MPI_T_CB_REQUIRE_MPI_RESTRICTED);
    mt_init(&argc, &argv);
    if (mt_size != 2) {
        MT_DIE("needs 2 ranks, not %d", mt_size);
    }
    peer_rank = 1 - mt_rank;
    T_CALL(MPI_T_source_get_timestamp(0, &t_start));
    T_CALL(MPI_T_pvar_session_create(&session));
    if (strcmp(mode, "burst") == 0) {
        run_burst();
        MT_CHECK(early.calls == 0, "udp_rail_state: %d events with one rail", early.calls);
    } else if (strcmp(mode, "rail") == 0) {
        run_rail();
        MT_CHECK(mt_rank != 0 || early.downs >= 1,
                 "the registration made before MPI_Init saw no rail down");
    } else if (strcmp(mode, "peer_failure") == 0) {
        run_peer_failure();
    } else {
        MT_DIE("unknown MTEST_MPIT_EVENTS=%s", mode);
    }
    reg_free(&early);
    T_CALL(MPI_T_pvar_session_free(&session));
    int rc = mt_finalize();
    T_CALL(MPI_T_finalize());
    return rc != 0 || mt_errs != 0;
}
