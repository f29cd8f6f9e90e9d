/* The shm wake socket ("poll mode", shm.c): a rank blocked in poll() on
 * other descriptors (the udp sockets) is woken through it.  Checked here
 * within one process: wake_self while in poll mode makes the socket
 * readable (and only then), poll_end drains it, and a thread blocked in
 * poll() is woken by another thread. */
#include "xport/xport.h"

#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"

static tn_status_t no_fence(void)
{
    return TN_OK;
}

static int readable(int fd, int ms)
{
    struct pollfd p = { fd, POLLIN, 0 };
    return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

static pthread_barrier_t announced;
static int sleeper_fd = -1;
static int sleeper_woken;

static void *sleeper(void *arg)
{
    (void)arg;
    sleeper_fd = tn_xport_shm_poll_begin();
    pthread_barrier_wait(&announced);
    /* a generous bound: a missed wake-up shows as a timeout, not a hang */
    sleeper_woken = sleeper_fd >= 0 && readable(sleeper_fd, 10000);
    tn_xport_shm_poll_end();
    return NULL;
}

int main(void)
{
    static const int world_of_local[1] = { 0 };
    static const int local_of_world[1] = { 0 };
    static const unsigned char use[1] = { 0 };
    tn_xport_job_t job;
    memset(&job, 0, sizeof(job));
    job.kvsname = "test-shm-wake";
    job.world_size = job.local_size = 1;
    job.world_of_local = world_of_local;
    job.local_of_world = local_of_world;
    job.nnodes = 1;
    job.fence = no_fence;
    job.use = use;
    CHECK(tn_xport_shm_init(&job) == TN_OK);

    /* outside poll mode a wake goes to the futex, not the socket */
    int fd = tn_xport_shm_poll_begin();
    CHECK(fd >= 0);
    tn_xport_shm_poll_end();
    tn_xport_shm_wake_self();
    CHECK(!readable(fd, 0));

    /* in poll mode it makes the socket readable; poll_end drains it */
    CHECK(tn_xport_shm_poll_begin() == fd);
    CHECK(!readable(fd, 0));
    tn_xport_shm_wake_self();
    tn_xport_shm_wake_self();
    CHECK(readable(fd, 1000));
    tn_xport_shm_poll_end();
    CHECK(!readable(fd, 0));

    /* another thread's wake reaches a thread blocked in poll() */
    pthread_t t;
    pthread_barrier_init(&announced, NULL, 2);
    pthread_create(&t, NULL, sleeper, NULL);
    pthread_barrier_wait(&announced);
    tn_xport_shm_wake_self();
    pthread_join(t, NULL);
    CHECK(sleeper_fd == fd && sleeper_woken);
    CHECK(!readable(fd, 0));

    tn_xport_shm_finalize();
    if (failures) {
        fprintf(stderr, "test_shm_wake: %d failures\n", failures);
        return 1;
    }
    printf("test_shm_wake: ok\n");
    return 0;
}
