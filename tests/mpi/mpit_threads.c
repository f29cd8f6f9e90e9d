/* MPI_T from a tool thread while the application thread communicates
 * (MPI_THREAD_MULTIPLE; run under TSan by the TERN_TSAN build): the tool
 * thread registers and frees callbacks for udp_retransmit_burst over and
 * over, writes the writable control variables (TERN_LOG_LEVEL,
 * TERN_LOG_SUBSYS, TERN_STATS, TERN_COLL_ALLREDUCE) and reads per-peer
 * performance variables, while the main thread's traffic (sendrecv and
 * allreduce) over lossy udp raises the event.
 *
 * Checks: every exchanged byte; a callback never runs for a registration
 * after MPI_T_event_handle_free returned (its free callback ran once); the
 * callbacks ran at all; written values read back. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "mtest.h"

#define T_CALL(call)                                                           \
    do {                                                                       \
        int rc_ = (call);                                                      \
        MT_CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_);            \
    } while (0)

#define MSG_BYTES (128 << 10)
#define REGS 64

typedef struct {
    MPI_T_event_registration reg;
    int                      freed;     /* set (release) once handle_free returned */
    int                      calls;     /* callbacks (atomic) */
    int                      frees;
    int                      late;      /* callbacks after the free (atomic) */
} slot_t;

static slot_t slots[REGS];
static int tool_done;          /* atomic: the tool thread finished */
static int peer_rank;

static void on_event(MPI_T_event_instance inst, MPI_T_event_registration reg,
                     MPI_T_cb_safety safety, void *user_data)
{
    slot_t *s = user_data;
    int peer = -1;
    if (__atomic_load_n(&s->freed, __ATOMIC_ACQUIRE)) {
        __atomic_add_fetch(&s->late, 1, __ATOMIC_RELAXED);
    }
    if (MPI_T_event_read(inst, 0, &peer) != MPI_SUCCESS || peer != peer_rank ||
        reg != s->reg || safety != MPI_T_CB_REQUIRE_MPI_RESTRICTED) {
        __atomic_add_fetch(&s->late, 1000, __ATOMIC_RELAXED);     /* bad instance */
    }
    __atomic_add_fetch(&s->calls, 1, __ATOMIC_RELAXED);
}

static void on_free(MPI_T_event_registration reg, MPI_T_cb_safety safety, void *user_data)
{
    slot_t *s = user_data;
    s->frees += reg == s->reg && safety == MPI_T_CB_REQUIRE_NONE ? 1 : 100;
}

static int cvar_handle(const char *name, MPI_T_cvar_handle *h)
{
    int idx = -1, count = 0;
    T_CALL(MPI_T_cvar_get_index(name, &idx));
    T_CALL(MPI_T_cvar_handle_alloc(idx, NULL, h, &count));
    return count;
}

static void *tool_main(void *arg)
{
    int idx = -1, n = 0, provided;
    (void)arg;
    T_CALL(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    T_CALL(MPI_T_event_get_index("udp_retransmit_burst", &idx));

    MPI_T_cvar_handle level, subsys, stats;
    cvar_handle("TERN_LOG_LEVEL", &level);
    int subsys_count = cvar_handle("TERN_LOG_SUBSYS", &subsys);
    cvar_handle("TERN_STATS", &stats);
    MPI_T_cvar_handle coll;
    int coll_count = cvar_handle("TERN_COLL_ALLREDUCE", &coll);
    char *coll_val = calloc((size_t)coll_count, 1);
    snprintf(coll_val, (size_t)coll_count, "auto");
    char *subsys_val = calloc((size_t)subsys_count, 1);

    MPI_T_pvar_session session;
    MPI_T_pvar_handle sent;
    int pidx = -1, count = 0;
    T_CALL(MPI_T_pvar_session_create(&session));
    T_CALL(MPI_T_pvar_get_index("udp_peer_data_sent", MPI_T_PVAR_CLASS_COUNTER, &pidx));
    T_CALL(MPI_T_pvar_handle_alloc(session, pidx, NULL, &sent, &count));
    unsigned long long *vals = calloc((size_t)count + 1, sizeof(*vals));

    for (int i = 0; i < REGS; i++) {
        slot_t *s = &slots[i];
        T_CALL(MPI_T_event_handle_alloc(idx, NULL, MPI_INFO_NULL, &s->reg));
        T_CALL(MPI_T_event_register_callback(s->reg, MPI_T_CB_REQUIRE_MPI_RESTRICTED,
                                             MPI_INFO_NULL, s, on_event));
        /* keep each one until it heard something (or the traffic ends) */
        while (__atomic_load_n(&s->calls, __ATOMIC_RELAXED) == 0 &&
               __atomic_load_n(&tool_done, __ATOMIC_ACQUIRE) == 0) {
            /* "error" or "trace" with a filter that matches no subsystem:
             * every trace site reads level and filter, none prints */
            int lv = n++ % 2 ? 4 : 0;
            snprintf(subsys_val, (size_t)subsys_count, "%s", lv ? "nothing" : "none");
            T_CALL(MPI_T_cvar_write(subsys, subsys_val));
            T_CALL(MPI_T_cvar_write(level, &lv));
            int back = -1;
            T_CALL(MPI_T_cvar_read(level, &back));
            MT_CHECK(back == lv, "TERN_LOG_LEVEL read %d after writing %d", back, lv);
            /* ALL_EQ: every rank writes the same value */
            T_CALL(MPI_T_cvar_write(coll, coll_val));
            int st = 0;
            T_CALL(MPI_T_cvar_write(stats, &st));
            T_CALL(MPI_T_pvar_read(session, sent, vals));
            sched_yield();
        }
        T_CALL(MPI_T_event_handle_free(s->reg, s, on_free));
        __atomic_store_n(&s->freed, 1, __ATOMIC_RELEASE);
        MT_CHECK(s->frees == 1, "registration %d: free callback ran %d times", i, s->frees);
    }
    T_CALL(MPI_T_pvar_handle_free(session, &sent));
    T_CALL(MPI_T_pvar_session_free(&session));
    T_CALL(MPI_T_cvar_handle_free(&level));
    T_CALL(MPI_T_cvar_handle_free(&subsys));
    T_CALL(MPI_T_cvar_handle_free(&stats));
    T_CALL(MPI_T_cvar_handle_free(&coll));
    T_CALL(MPI_T_finalize());
    free(vals);
    free(subsys_val);
    free(coll_val);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    mt_after_init(1);
    if (provided != MPI_THREAD_MULTIPLE || mt_size != 2) {
        MT_DIE("needs MPI_THREAD_MULTIPLE (got %d) and 2 ranks (got %d)", provided, mt_size);
    }
    peer_rank = 1 - mt_rank;
    pthread_t tool;
    if (pthread_create(&tool, NULL, tool_main, NULL) != 0) {
        MT_DIE("pthread_create failed");
    }
    static unsigned char sbuf[MSG_BYTES], rbuf[MSG_BYTES];
    int rounds = mt_env_int("MTEST_ITERS", 300);
    for (int r = 0; r < rounds; r++) {
        mt_fill(sbuf, sizeof(sbuf), (unsigned)(r * 2 + mt_rank));
        MT_CALL(MPI_Sendrecv(sbuf, MSG_BYTES, MPI_BYTE, peer_rank, r, rbuf, MSG_BYTES, MPI_BYTE,
                             peer_rank, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        size_t bad = mt_verify(rbuf, sizeof(rbuf), (unsigned)(r * 2 + peer_rank));
        MT_CHECK(bad == (size_t)-1, "round %d: byte %zu wrong", r, bad);
        int sum = 0, mine = r + mt_rank;
        MT_CALL(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        MT_CHECK(sum == 2 * r + 1, "round %d: allreduce gave %d", r, sum);
    }
    __atomic_store_n(&tool_done, 1, __ATOMIC_RELEASE);
    pthread_join(tool, NULL);
    int heard = 0, late = 0;
    for (int i = 0; i < REGS; i++) {
        heard += slots[i].calls > 0;
        late += slots[i].late;
    }
    MT_CHECK(late == 0, "%d callbacks after a free or with a wrong peer", late);
    MT_CHECK(heard > 0, "no registration heard udp_retransmit_burst in %d rounds", rounds);
    return mt_finalize();
}
