/* The asynchronous progress thread (TERN_ASYNC_PROGRESS=1): rt.h has the
 * contract, async.h the waiting scheme.  The thread holds the runtime lock
 * while it runs the engine and sleeps on the doorbell otherwise, so an idle
 * process costs nothing but a wake-up every TN_ASYNC_NAP_NS. */
#include "runtime/async.h"
#include "base/log.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

/* The longest sleep without a ring.  Peers ring for every message, udp
 * timers shorten the sleep and the other threads of the process make their
 * own progress while they are in MPI: nothing waits for this timeout in
 * the normal course; it bounds what an unseen wake-up would cost. */
#define TN_ASYNC_NAP_NS 100000000ull

static pthread_t tn_async_thread;
static int tn_async_started;            /* the thread that starts and stops */
static _Atomic int tn_async_running;    /* between start and join: naps go to it */
static _Atomic int tn_async_stopping;
static __thread int tn_async_me;

/* Naps: tn_async_gen counts the thread's passes over the engine. */
static pthread_mutex_t tn_async_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tn_async_cv;
static uint64_t tn_async_gen;
static int tn_async_nappers;

int tn_rt_async_self(void)
{
    return tn_async_me;
}

int tn_rt_async_waits(void)
{
    return !tn_async_me && atomic_load_explicit(&tn_async_running, memory_order_relaxed);
}

void tn_rt_async_kick(void)
{
    pthread_mutex_lock(&tn_async_mu);
    tn_async_gen++;
    if (tn_async_nappers > 0) {
        pthread_cond_broadcast(&tn_async_cv);
    }
    pthread_mutex_unlock(&tn_async_mu);
}

void tn_rt_async_nap(uint64_t timeout_ns)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t ns = (uint64_t)ts.tv_nsec + timeout_ns;
    ts.tv_sec += (time_t)(ns / 1000000000ull);
    ts.tv_nsec = (long)(ns % 1000000000ull);
    /* the generation is read before the runtime lock goes: a pass that
     * could change the caller's condition comes after and bumps it */
    pthread_mutex_lock(&tn_async_mu);
    uint64_t gen = tn_async_gen;
    tn_async_nappers++;
    tn_rt_unlock();
    int rc = 0;
    while (tn_async_gen == gen && rc != ETIMEDOUT) {
        rc = pthread_cond_timedwait(&tn_async_cv, &tn_async_mu, &ts);
    }
    tn_async_nappers--;
    pthread_mutex_unlock(&tn_async_mu);
    tn_rt_lock();
}

static int tn_async_stop_asked(void *arg)
{
    (void)arg;
    return atomic_load_explicit(&tn_async_stopping, memory_order_seq_cst);
}

static void *tn_async_main(void *arg)
{
    (void)arg;
    tn_async_me = 1;
    tn_rt_lock();
    while (!tn_async_stop_asked(NULL)) {
        int n = tn_progress();
        tn_rt_async_kick();
        if (n > 0) {
            /* more may follow at once: look again, after letting in a
             * thread that waits for the lock */
            tn_rt_unlock();
            tn_rt_lock();
            continue;
        }
        tn_rt_sleep(tn_async_stop_asked, NULL, TN_ASYNC_NAP_NS);
    }
    tn_rt_unlock();
    return NULL;
}

tn_status_t tn_rt_async_start(void)
{
    if (!tn_rt.async || tn_async_started) {
        return TN_OK;
    }
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&tn_async_cv, &ca);
    pthread_condattr_destroy(&ca);
    /* The application's signals go to its own threads; faults in ours
     * still reach the backtrace handler. */
    sigset_t block, old;
    sigfillset(&block);
    sigdelset(&block, SIGSEGV);
    sigdelset(&block, SIGBUS);
    sigdelset(&block, SIGFPE);
    sigdelset(&block, SIGILL);
    sigdelset(&block, SIGABRT);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    atomic_store_explicit(&tn_async_stopping, 0, memory_order_relaxed);
    atomic_store_explicit(&tn_async_running, 1, memory_order_relaxed);
    int rc = pthread_create(&tn_async_thread, NULL, tn_async_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        atomic_store_explicit(&tn_async_running, 0, memory_order_relaxed);
        pthread_cond_destroy(&tn_async_cv);
        tn_log_error("rt", "cannot start the progress thread: %s", strerror(rc));
        return TN_ERR_NOMEM;
    }
    pthread_setname_np(tn_async_thread, "tern-progress");
    tn_async_started = 1;
    return TN_OK;
}

void tn_rt_async_stop(void)
{
    if (!tn_async_started) {
        return;
    }
    /* The thread looks at the flag before every sleep, after announcing
     * it: either it sees the flag or the wake-up finds it asleep. */
    atomic_store_explicit(&tn_async_stopping, 1, memory_order_seq_cst);
    tn_xport_shm_wake_self();
    pthread_join(tn_async_thread, NULL);
    atomic_store_explicit(&tn_async_running, 0, memory_order_relaxed);
    pthread_cond_destroy(&tn_async_cv);
    tn_async_started = 0;
}
