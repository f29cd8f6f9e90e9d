/* fork() after MPI_Init.  Every rank forks two children:
 *   - one that leaves at once with _exit(0);
 *   - one that computes for a while, prints a line and leaves with exit(0),
 *     so atexit handlers (the MPI library's included) run in the child;
 * the parent reaps both with waitpid (exit status 0 each) and keeps
 * communicating: rank 1 has a 1 MiB Isend to rank 0 in flight across the
 * forks, then ping-pong, Allreduce, Barrier and MPI_Finalize must work and
 * nothing may hang. */
#include "mtest.h"
#include <sys/wait.h>

static void reap(pid_t pid, const char *what)
{
    int status = 0;
    pid_t r;
    do {
        r = waitpid(pid, &status, 0);
    } while (r < 0 && errno == EINTR);
    MT_CHECK(r == pid, "waitpid(%s) returned %d (errno %d)", what, (int)r, errno);
    if (r == pid)
        MT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                 "%s child: exited %d status %d signalled %d sig %d", what, WIFEXITED(status),
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1, WIFSIGNALED(status),
                 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    enum { BIG = 1 << 20 };
    unsigned char *big = mt_malloc(BIG);
    MPI_Request r = MPI_REQUEST_NULL;
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 1) {
        mt_fill(big, BIG, 9);
        MT_CALL(MPI_Isend(big, BIG, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &r));
    }

    fflush(stdout);
    fflush(stderr);
    pid_t c1 = fork();
    if (c1 == 0)
        _exit(0);
    MT_CHECK(c1 > 0, "fork failed");

    fflush(stdout);
    pid_t c2 = fork();
    if (c2 == 0) {
        volatile double acc = 0;
        for (int i = 0; i < 2000000; i++)
            acc += i * 0.5;
        mt_sleep_ms(50);
        printf("fork child of rank %d done (%g)\n", mt_rank, (double)acc);
        exit(0);
    }
    MT_CHECK(c2 > 0, "fork failed");

    if (c1 > 0)
        reap(c1, "_exit");
    if (c2 > 0)
        reap(c2, "exit");

    /* Keep communicating. */
    if (mt_rank == 0 && mt_size > 1) {
        memset(big, 0, BIG);
        MT_CALL(MPI_Recv(big, BIG, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MT_CHECK_PATTERN(big, BIG, 9, "message in flight across fork");
    }
    if (mt_rank == 1)
        MT_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
    int peer = mt_rank ^ 1;
    if (peer < mt_size)
        for (int i = 0; i < 100; i++) {
            int out = i * 10 + mt_rank, in = -1;
            MT_CALL(MPI_Sendrecv(&out, 1, MPI_INT, peer, 4, &in, 1, MPI_INT, peer, 4,
                                 MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MT_CHECK(in == i * 10 + peer, "ping-pong %d after fork got %d", i, in);
        }
    /* A second round of forks after more communication. */
    fflush(stdout);
    pid_t c3 = fork();
    if (c3 == 0)
        exit(0);
    if (c3 > 0)
        reap(c3, "second exit");
    int sum = 0;
    MT_CALL(MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MT_CHECK(sum == mt_size * (mt_size - 1) / 2, "allreduce after fork %d", sum);
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    free(big);
    return mt_finalize();
}
