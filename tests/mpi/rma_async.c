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
 * Also: the thread level reported is the one MPI_Init implies
 * (MPI_THREAD_SINGLE), whatever the library runs with.  Ranks beyond 2 only
 * take part in the collective calls. */
#include "mtest.h"

#define PAYLOAD 512                /* longs put after the get */
#define RNDV_BYTES (1 << 20)       /* above every eager threshold */
#define FLAG 0x5445524e41535943L   /* "TERNASYC" */
#define GET_VALUE 0x0123456789abcdefL

/* Spin on *p without calling MPI until it reads want or the time is up;
 * returns the seconds it took, or -1. */
static double compute_until(volatile long *p, long want, double limit)
{
    double t0 = mt_mono_now();
    double sink = 1.0;
    for (unsigned long i = 0;; i++) {
        if (*p == want) {
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
        if (t >= 0) {
            int bad = 0;
            for (int i = 0; i < PAYLOAD; i++)
                bad += ((volatile long *)mem)[2 + i] != 1000L * i + 7;
            MT_CHECK(bad == 0, "%d of %d payload values wrong when the flag landed", bad,
                     PAYLOAD);
        }
    }
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    MT_CALL(MPI_Win_free(&win));
    free(mem);
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
        volatile unsigned char *last = &buf[RNDV_BYTES - 1];
        double t0 = mt_mono_now();
        while (*last != 0xa5 && mt_mono_now() - t0 < limit) {
        }
        MT_CHECK(*last == 0xa5, "the message's last byte did not land in %.0f s outside MPI",
                 limit);
        MT_CALL(MPI_Wait(&req, MPI_STATUS_IGNORE));
        size_t bad = 0;
        for (size_t i = 0; i < RNDV_BYTES - 1; i++)
            bad += buf[i] != mt_pat(i, 5);
        MT_CHECK(bad == 0, "%zu bytes of the rendezvous message wrong", bad);
    }
    free(buf);
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
    return mt_finalize();
}
