/* Waiting: spin on progress, then yield the core, then block in the kernel
 * until a peer rings our doorbell.  When ranks outnumber cores, spinning
 * only steals time from the rank we wait for, so auto mode blocks early. */
#include "runtime/async.h"
#include "base/config.h"
#include "xport/sock/sock.h"

#include <sched.h>
#include <stdatomic.h>
#include <string.h>

typedef enum { TN_WAIT_AUTO, TN_WAIT_SPIN, TN_WAIT_YIELD, TN_WAIT_BLOCK } tn_wait_mode_t;

static int tn_wait_configured;
static tn_wait_mode_t tn_wait_mode;
static long tn_wait_spins, tn_wait_yields;

static void tn_wait_configure(void)
{
    const char *m = tn_cfg.wait ? tn_cfg.wait : "auto";
    tn_wait_mode = strcmp(m, "spin") == 0 ? TN_WAIT_SPIN :
                   strcmp(m, "yield") == 0 ? TN_WAIT_YIELD :
                   strcmp(m, "block") == 0 ? TN_WAIT_BLOCK : TN_WAIT_AUTO;
    tn_wait_spins = tn_cfg.wait_spin;
    tn_wait_yields = tn_cfg.wait_yield;
    if (tn_wait_mode == TN_WAIT_AUTO && tn_rt.oversubscribed) {
        tn_wait_spins = 0;   /* polling only delays the rank we wait for */
        tn_wait_yields = tn_wait_yields < 4 ? tn_wait_yields : 4;
    }
    tn_wait_configured = 1;
}

/* What the current tn_rt_wait waits for: the last look before sleeping
 * checks it too, since some conditions (the shared-memory collectives'
 * flags) are not events of the progress engine.  Their writers wake us
 * after a fence when they see us asleep. */
static __thread tn_wait_cond_fn_t *tn_wait_done;
static __thread void *tn_wait_arg;

static int tn_wait_recheck(void)
{
    tn_rt_lock();
    int n = tn_progress();
    if (n == 0 && tn_wait_done(tn_wait_arg)) {
        n = 1;
    }
    if (tn_rt_async_self()) {
        tn_rt_async_kick();     /* threads napping on us look again too */
    }
    tn_rt_unlock();
    return n;
}

void tn_rt_sleep(tn_wait_cond_fn_t *done, void *arg, uint64_t timeout)
{
    tn_wait_done = done;
    tn_wait_arg = arg;
    tn_rt_unlock();
    if (tn_xport_sock_active()) {
        timeout = 200000ull;     /* streams of other jobs wake nobody: look often */
    }
    if (tn_xport_udp_active()) {
        /* shm peers wake a poll() on the sockets through the wake
         * socket; should there be none, look at the rings at least
         * every millisecond */
        static _Atomic int shm_wakes_seen;    /* threads sleep at once */
        uint64_t t = tn_rt.local_size > 1 && !atomic_load_explicit(&shm_wakes_seen,
                                                                    memory_order_relaxed)
                         ? 1000000ull : timeout;
        atomic_store_explicit(&shm_wakes_seen, tn_xport_udp_sleep(tn_wait_recheck, t),
                              memory_order_relaxed);
    } else {
        tn_xport_shm_sleep(tn_wait_recheck, timeout);
    }
    tn_rt_lock();
}

void tn_rt_wait(tn_wait_cond_fn_t *done, void *arg)
{
    if (!tn_wait_configured) {
        tn_wait_configure();
    }
    long idle = 0;
    for (;;) {
        int events = tn_progress();
        if (done(arg)) {
            return;
        }
        if (events > 0) {
            idle = 0;
            continue;
        }
        idle++;
        if (tn_rt_status_asked()) {
            tn_rt_status_answer();      /* the launcher wants our pending requests */
        }
        switch (tn_wait_mode) {
        case TN_WAIT_SPIN:
            if (tn_rt.thread_multiple) {
                tn_rt_unlock();
                tn_rt_lock();
            }
            continue;
        case TN_WAIT_YIELD:
            tn_rt_unlock();
            sched_yield();
            tn_rt_lock();
            continue;
        case TN_WAIT_BLOCK:
            break;
        case TN_WAIT_AUTO:
            if (idle < tn_wait_spins) {
                if (tn_rt.thread_multiple) {
                    tn_rt_unlock();
                    tn_rt_lock();
                }
                continue;
            }
            if (idle < tn_wait_spins + tn_wait_yields) {
                tn_rt_unlock();
                sched_yield();
                tn_rt_lock();
                continue;
            }
            break;
        }
        /* Block.  Other threads may need the lock meanwhile; a timeout
         * bounds the cost of any wake-up we cannot see (another thread of
         * the application completing what we wait for). */
        uint64_t timeout = tn_rt.thread_level == TN_RT_THREAD_MULTIPLE ? 1000000ull
                                                                         : 200000000ull;
        if (tn_rt_async_waits()) {
            /* the progress thread sleeps on the doorbell: it wakes us */
            tn_rt_async_nap(timeout);
        } else {
            tn_rt_sleep(done, arg, timeout);
        }
        idle = tn_wait_spins;    /* after a wake-up, poll a little before sleeping */
    }
}
