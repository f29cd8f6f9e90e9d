/* Progress at a target that does not call MPI (TERN_ASYNC_PROGRESS=1: the
 * testlist sets it).
 *
 * Passive target: rank 1 exposes an MPI_Win_create window and then computes
 * without any MPI call, looking only at its window memory, until the flag
 * that rank 0 puts last lands there.  Meanwhile rank 0 locks rank 1's
 * window, reads a value with MPI_Get + MPI_Win_flush, puts a payload, flushes,
 * puts the flag and unlocks: every step needs rank 1's progress engine.
 * Point-to-point: rank 1 posts a large receive (rendezvous) and computes
 * until the last byte lands; rank 0 sends it.
 * Rank 1 gives up after MTEST_ASYNC_SECONDS (default 20) of computing, so a
 * library without asynchronous progress fails (rank 0's flush, unlock or
 * send then finish once rank 1 calls MPI again) instead of hanging.
 * User code: the user-defined op of an MPI_Iallreduce runs in this
 * thread only, even when the peers' data arrives while it computes outside
 * MPI (the progress thread must leave that schedule alone).
 * Also: the thread level reported is the one MPI_Init implies
 * (MPI_THREAD_SINGLE), whatever the library runs with.  Ranks beyond 2 only
 * take part in the collective calls. */
#include "mtest.h"
#include <pthread.h>

#define PAYLOAD 512                /* longs put after the get */
#define RNDV_BYTES (1 << 20)       /* above every eager threshold */
#define FLAG 0x5445524e41535943L   /* "TERNASYC" */
#define GET_VALUE 0x0123456789abcdefL

/* The two loops below read memory that the library writes meanwhile from
 * its progress thread: what a program that watches its window does, and a
 * data race by the letter of C11.  ThreadSanitizer does not look at them. */
#if defined(__SANITIZE_THREAD__)
#define MT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MT_TSAN 1
#endif
#endif
#ifdef MT_TSAN
void __tsan_ignore_thread_begin(void);   /* the TSan runtime's */
void __tsan_ignore_thread_end(void);
#define PEEK_BEGIN() __tsan_ignore_thread_begin()
#define PEEK_END() __tsan_ignore_thread_end()
#else
#define PEEK_BEGIN() ((void)0)
#define PEEK_END() ((void)0)
#endif

/* Spin on *p without calling MPI until it reads want or the time is up;
 * returns the seconds it took, or -1. */
static double compute_until(volatile long *p, long want, double limit)
{
    double t0 = mt_mono_now();
    double sink = 1.0;
    for (unsigned long i = 0;; i++) {
        PEEK_BEGIN();
        long v = *p;
        PEEK_END();
        if (v == want) {
            return mt_mono_now() - t0;
        }
        sink = sink * 1.0000001 + 1e-9;           /* the "computation" */
        if ((i & 4095) == 0 && mt_mono_now() - t0 > limit) {
            break;
        }
    }
    if (sink < 0) {
        printf("%f\n", sink);                     /* keep the loop */
    }
    return -1;
}

static void passive_target(double limit)
{
    long *mem = NULL;
    MPI_Aint bytes = mt_rank == 1 ? (MPI_Aint)sizeof(long) * (PAYLOAD + 2) : 0;
    if (mt_rank == 1) {
        mem = calloc(PAYLOAD + 2, sizeof(long));
        MT_CHECK(mem != NULL, "calloc");
        if (mem == NULL)
            MPI_Abort(MPI_COMM_WORLD, 1);
        mem[1] = GET_VALUE;
    }
    MPI_Win win;
    MT_CALL(MPI_Win_create(mem, bytes, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MT_CALL(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0) {
        long got = 0, flag = FLAG;
        long *pay = malloc(sizeof(long) * PAYLOAD);
        MT_CHECK(pay != NULL, "malloc");
        if (pay == NULL)
            MPI_Abort(MPI_COMM_WORLD, 1);
        for (int i = 0; i < PAYLOAD; i++)
            pay[i] = 1000L * i + 7;
        double t0 = mt_mono_now();
        MT_CALL(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
        MT_CALL(MPI_Get(&got, 1, MPI_LONG, 1, 1, 1, MPI_LONG, win));
        MT_CALL(MPI_Win_flush(1, win));
        MT_CHECK(got == GET_VALUE, "MPI_Get read %#lx, expected %#lx", got, GET_VALUE);
        MT_CALL(MPI_Put(pay, PAYLOAD, MPI_LONG, 1, 2, PAYLOAD, MPI_LONG, win));
        MT_CALL(MPI_Win_flush(1, win));
        MT_CALL(MPI_Put(&flag, 1, MPI_LONG, 1, 0, 1, MPI_LONG, win));
        MT_CALL(MPI_Win_unlock(1, win));
        double t = mt_mono_now() - t0;
        MT_CHECK(t < limit, "the epoch took %.1f s: rank 1's progress waited for its MPI calls",
                 t);
        free(pay);
    } else if (mt_rank == 1) {
        double t = compute_until((volatile long *)&mem[0], FLAG, limit);
        MT_CHECK(t >= 0, "the flag did not land in %.0f s of computing outside MPI", limit);
    }
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 1) {
        /* read after an MPI call: the library's writes happen before it */
        int bad = 0;
        for (int i = 0; i < PAYLOAD; i++)
            bad += mem[2 + i] != 1000L * i + 7;
        MT_CHECK(bad == 0, "%d of %d payload values wrong", bad, PAYLOAD);
    }
    MT_CALL(MPI_Win_free(&win));
    free(mem);
}

/* Spin without calling MPI until *last reads want (1) or the time is up (0). */
static int wait_last_byte(volatile unsigned char *last, unsigned char want, double limit)
{
    double t0 = mt_mono_now();
    int seen = 0;
    while (!seen && mt_mono_now() - t0 < limit) {
        PEEK_BEGIN();
        seen = *last == want;
        PEEK_END();
    }
    return seen;
}

static void rendezvous(double limit)
{
    unsigned char *buf = NULL;
    if (mt_rank > 1)
        return;
    buf = malloc(RNDV_BYTES);
    MT_CHECK(buf != NULL, "malloc");
    if (buf == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (mt_rank == 0) {
        for (size_t i = 0; i < RNDV_BYTES; i++)
            buf[i] = mt_pat(i, 5);
        buf[RNDV_BYTES - 1] = 0xa5;
        MT_CALL(MPI_Recv(NULL, 0, MPI_BYTE, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MT_CALL(MPI_Send(buf, RNDV_BYTES, MPI_BYTE, 1, 3, MPI_COMM_WORLD));
    } else {
        MPI_Request req;
        memset(buf, 0, RNDV_BYTES);
        MT_CALL(MPI_Irecv(buf, RNDV_BYTES, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &req));
        /* the sender sends once it sees this: its rendezvous then needs us */
        MT_CALL(MPI_Send(NULL, 0, MPI_BYTE, 0, 4, MPI_COMM_WORLD));
        MT_CHECK(wait_last_byte(&buf[RNDV_BYTES - 1], 0xa5, limit),
                 "the message's last byte did not land in %.0f s outside MPI", limit);
        MT_CALL(MPI_Wait(&req, MPI_STATUS_IGNORE));
        size_t bad = 0;
        for (size_t i = 0; i < RNDV_BYTES - 1; i++)
            bad += buf[i] != mt_pat(i, 5);
        MT_CHECK(bad == 0, "%zu bytes of the rendezvous message wrong", bad);
    }
    free(buf);
}

static pthread_t main_thread;
static int op_calls, op_elsewhere;

static void sum_here(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    op_calls++;
    op_elsewhere += !pthread_equal(pthread_self(), main_thread);
    for (int i = 0; i < *len; i++)
        ((long *)inout)[i] += ((const long *)in)[i];
}

static void user_op(void)
{
    enum { N = 64 };
    long in[N], out[N];
    MPI_Op op;
    MPI_Request req;
    main_thread = pthread_self();
    for (int i = 0; i < N; i++)
        in[i] = (long)(mt_rank + 1) * i;
    MT_CALL(MPI_Op_create(sum_here, 1, &op));
    MT_CALL(MPI_Iallreduce(in, out, N, MPI_LONG, op, MPI_COMM_WORLD, &req));
    /* the others' data arrives meanwhile: a window for the progress thread */
    double t0 = mt_mono_now();
    volatile double sink = 1.0;
    while (mt_mono_now() - t0 < 0.2)
        sink = sink * 1.0000001;
    MT_CALL(MPI_Wait(&req, MPI_STATUS_IGNORE));
    long f = (long)mt_size * (mt_size + 1) / 2;
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += out[i] != f * i;
    MT_CHECK(bad == 0, "%d of %d results of the user op wrong", bad, N);
    MT_CHECK(op_elsewhere == 0, "the user op ran %d of %d times outside the application's "
             "thread", op_elsewhere, op_calls);
    MT_CALL(MPI_Op_free(&op));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    double limit = mt_env_int("MTEST_ASYNC_SECONDS", 20);
    int level = -1;
    MT_CALL(MPI_Query_thread(&level));
    MT_CHECK(level == MPI_THREAD_SINGLE, "MPI_Query_thread after MPI_Init: %d, expected "
             "MPI_THREAD_SINGLE (%d)", level, MPI_THREAD_SINGLE);
    if (mt_size < 2) {
        MT_DIE("needs at least 2 ranks");
    }
    passive_target(limit);
    rendezvous(limit);
    user_op();
    return mt_finalize();
}
