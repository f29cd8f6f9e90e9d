/* Runtime-internal glue between the waits (progress.c) and the
 * asynchronous progress thread (async.c); the public side is in rt.h.
 *
 * The doorbell (a shm futex, or poll() on the udp sockets and the shm wake
 * socket) has one "asleep" word per process, which the first peer to ring
 * takes down.  It can only serve one sleeper: when the progress thread
 * runs it is that sleeper, and threads of the application that block in
 * tn_rt_wait nap on a condition variable that the progress thread
 * broadcasts after every pass of the engine it makes (tn_rt_async_nap). */
#ifndef TN_RUNTIME_ASYNC_H
#define TN_RUNTIME_ASYNC_H

#include <stdint.h>
#include "runtime/rt.h"

/* progress.c: block in the kernel until a peer rings our doorbell, a udp
 * timer is due or timeout_ns passes.  Called with the runtime lock held;
 * releases it while asleep.  Before sleeping it runs the engine once more
 * and checks done(arg): either finding something skips the sleep. */
void tn_rt_sleep(tn_wait_cond_fn_t *done, void *arg, uint64_t timeout_ns);

/* async.c, for progress.c. */
/* Whether a thread that blocks must nap on the progress thread instead of
 * the doorbell: the thread runs and the caller is not the thread. */
int  tn_rt_async_waits(void);
/* Nap until the progress thread has made a pass of the engine that started
 * after this call, or timeout_ns passes.  Runtime lock held on entry and
 * on return, released meanwhile: a pass after the caller's last look at
 * its condition cannot be missed, since passes need the lock. */
void tn_rt_async_nap(uint64_t timeout_ns);
/* On the progress thread, runtime lock held: a pass of the engine was
 * made; wake the threads that nap. */
void tn_rt_async_kick(void);

#endif
