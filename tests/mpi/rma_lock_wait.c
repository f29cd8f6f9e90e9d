/* A passive-target lock that has to wait sleeps instead of spinning.
 *
 * Rank 0 locks its own MPI_Win_allocate window exclusively and keeps the
 * lock for MTEST_HOLD_MS (default 600) while it computes outside MPI; every
 * other rank then asks for the same lock, exclusive, and gets it in turn.
 * Each waiter checks that it got the lock only after the holder let go
 * (the word it reads under the lock is the holder's last store, then
 * each later holder's), and that waiting cost it less than a third of a
 * core (getrusage over the wait): a waiter that polled would use it all.
 * When the ranks of a node reach each other only through udp
 * (TERN_XPORT=udp: no shared-memory doorbells) the waits poll with
 * sched_yield, and only the order is checked.  Any number of ranks. */
#include "mtest.h"
#include <sys/resource.h>

static double cpu_now(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_utime.tv_sec + (double)u.ru_stime.tv_sec +
           ((double)u.ru_utime.tv_usec + (double)u.ru_stime.tv_usec) * 1e-6;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int hold_ms = mt_env_int("MTEST_HOLD_MS", 600);
    const char *xport = getenv("TERN_XPORT");
    int polls = xport != NULL && strcmp(xport, "udp") == 0;
    long *mem = NULL;
    MPI_Win win;
    MT_CALL(MPI_Win_allocate(2 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                             &win));
    mem[0] = mem[1] = 0;
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0) {
        MT_CALL(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
        long v = -1;
        MT_CALL(MPI_Put(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win));
        MT_CALL(MPI_Win_flush(0, win));
        struct timespec ts = { hold_ms / 1000, (long)(hold_ms % 1000) * 1000000L };
        nanosleep(&ts, NULL);           /* "computing" with the lock held */
        v = 1;
        MT_CALL(MPI_Put(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win));
        MT_CALL(MPI_Win_unlock(0, win));
    } else {
        MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
        double t0 = mt_mono_now(), c0 = cpu_now();
        MT_CALL(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        double wall = mt_mono_now() - t0, cpu = cpu_now() - c0;
        long got[2] = { 0, 0 }, next = 0;
        MT_CALL(MPI_Get(got, 2, MPI_LONG, 0, 0, 2, MPI_LONG, win));
        MT_CALL(MPI_Win_flush(0, win));
        /* the holder's last store, then one more per waiter served */
        MT_CHECK(got[0] >= 1 && got[0] <= mt_size - 1 && got[1] == got[0] - 1,
                 "under the lock: word %ld, count %ld (the holder stores 1 before unlock)",
                 got[0], got[1]);
        next = got[0] + 1;
        MT_CALL(MPI_Put(&next, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win));
        MT_CALL(MPI_Put(&got[0], 1, MPI_LONG, 0, 1, 1, MPI_LONG, win));
        MT_CALL(MPI_Win_unlock(0, win));
        if (!polls) {
            MT_CHECK(cpu < wall / 3 + 0.02, "waiting %.3f s for the lock cost %.3f s of CPU", wall,
                     cpu);
        }
        if (mt_env_int("MTEST_VERBOSE", 0))
            printf("rank %d: waited %.3f s, %.3f s CPU\n", mt_rank, wall, cpu);
    }
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0)
        MT_CHECK(mem[0] == mt_size && mem[1] == mt_size - 1,
                 "after every waiter: word %ld count %ld, want %d %d", mem[0], mem[1], mt_size,
                 mt_size - 1);
    MT_CALL(MPI_Win_free(&win));
    return mt_finalize();
}
