/* core_rtt: how long a cache line takes to go from one core to another and
 * back, right now.  Not an MPI program.
 *
 * On a virtual machine the host moves the virtual CPUs between physical
 * cores; on this project's 2-vCPU VM the round trip between the two was
 * 40-140 ns most of the time and 470-530 ns in some phases of seconds to
 * minutes, and every shared-memory MPI library slowed down with it (2.5-4 x
 * for short collectives).  bench/compare.py runs this before each benchmark
 * run to record the phase, and can wait for a fast one (--settle).
 *
 * Two processes, pinned to the first two CPUs this one may use, hand a
 * counter back and forth through one cache line; prints the median of 5
 * rounds of 20000 round trips as "core_rtt_ns N", or "core_rtt_ns -" when
 * there are fewer than two CPUs.  Exit status 0 either way; 1 on errors. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 5
#define TRIPS  20000

typedef struct {
    _Atomic long ping;
    char pad1[64 - sizeof(long)];
    _Atomic long pong;
    char pad2[64 - sizeof(long)];
} lines_t;

static int pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof(set), &set);
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    cpu_set_t set;
    int cpus[2], n = 0;

    if (sched_getaffinity(0, sizeof(set), &set) != 0) {
        perror("sched_getaffinity");
        return 1;
    }
    for (int c = 0; c < CPU_SETSIZE && n < 2; c++) {
        if (CPU_ISSET(c, &set)) {
            cpus[n++] = c;
        }
    }
    if (n < 2) {
        printf("core_rtt_ns -\n");
        return 0;
    }
    lines_t *l = mmap(NULL, sizeof(lines_t), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (l == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    const long total = (long)(ROUNDS + 1) * TRIPS;   /* one round of warm-up */
    pid_t child = fork();
    if (child < 0) {
        perror("fork");
        return 1;
    }
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);       /* never spin on alone */
        if (pin(cpus[1]) != 0) {
            _exit(1);
        }
        for (long i = 1; i <= total; i++) {
            while (atomic_load_explicit(&l->ping, memory_order_acquire) != i) {
            }
            atomic_store_explicit(&l->pong, i, memory_order_release);
        }
        _exit(0);
    }
    if (pin(cpus[0]) != 0) {
        perror("sched_setaffinity");
        kill(child, SIGKILL);
        return 1;
    }
    double per[ROUNDS];
    long i = 0;
    for (int r = -1; r < ROUNDS; r++) {
        double t0 = now_ns();
        for (long k = 0; k < TRIPS; k++) {
            i++;
            atomic_store_explicit(&l->ping, i, memory_order_release);
            while (atomic_load_explicit(&l->pong, memory_order_acquire) != i) {
            }
        }
        if (r >= 0) {
            per[r] = (now_ns() - t0) / TRIPS;
        }
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "core_rtt: the second process failed\n");
        return 1;
    }
    qsort(per, ROUNDS, sizeof(per[0]), cmp_double);
    printf("core_rtt_ns %.0f\n", per[ROUNDS / 2]);
    return 0;
}
