/* This rank's status slot: the MPI call it is in, published for hang
 * reports and the monitor (the format and its rules: include/tern/status.h).
 *
 * Writing.  Every published MPI entry point (tools/abi/gen_bindings.py
 * chooses them) calls tn_rt_status_enter() before its implementation and
 * tn_rt_status_leave() after.  Both are inline: a load of the slot pointer and,
 * when publishing, eleven stores into one cache line of our own on entry and
 * two on exit, plus a copy of the launcher's clock word.  No clock read, no
 * syscall, no lock.  With MPI_THREAD_MULTIPLE only the thread that called
 * MPI_Init publishes (a slot has one writer).
 *
 * Answering.  The launcher asks for more by bumping the slot's ask word;
 * a rank waiting inside MPI notices it in tn_rt_wait (tn_rt_status_asked) and
 * answers (tn_rt_status_answer): its pending requests and the current call's
 * communicator, resolved by the layer above (tn_rt_hooks_t.status_fill).
 *
 * The slot is mapped by tn_rt_status_attach() (tn_rt_init) when tern-run gave
 * us one (TERN_STATUS_FD, TERN_STATUS_SLOT) and TERN_STATUS is on, and stays
 * mapped until the process ends: the report shows "after MPI_Finalize" too. */
#ifndef TN_RUNTIME_STATUS_H
#define TN_RUNTIME_STATUS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "tern/status.h"

typedef struct {
    tern_status_call_t *call;       /* our slot's call line; NULL: off */
    const uint64_t     *now;        /* the launcher's clock word */
    const uint32_t     *ask;        /* the launcher's ask word */
    uint32_t            seq;        /* the last seq we stored */
    uint32_t            answered;   /* the last ask we answered */
    int                 main_only;  /* MPI_THREAD_MULTIPLE */
    pthread_t           main;       /* the thread that attached */
} tn_rt_status_t;

extern tn_rt_status_t tn_rt_status __attribute__((visibility("hidden")));

/* Inlined even into the 600 entry points of the generated bindings, where
 * GCC would otherwise call an out-of-line copy (argument shuffling, two
 * calls per MPI call). */
#define TN_RT_STATUS_INLINE static inline __attribute__((always_inline))

/* Non-zero when this thread may write the slot. */
TN_RT_STATUS_INLINE int tn_rt_status_writer(void)
{
    return tn_rt_status.call != NULL &&
           (!tn_rt_status.main_only || pthread_equal(pthread_self(), tn_rt_status.main));
}

/* Entering published call `call` (an id of tn_status_calls.h) with these
 * arguments (0 for those it lacks).  A call made inside another (an error
 * handler, a callback) replaces the record; its exit then marks the rank
 * out of MPI. */
TN_RT_STATUS_INLINE void tn_rt_status_enter(uint32_t call, uint64_t obj, int32_t peer,
                                            int32_t tag, int32_t peer2, int32_t tag2,
                                            int64_t count, uint64_t dtype)
{
    if (!tn_rt_status_writer()) {
        return;
    }
    tern_status_call_t *c = tn_rt_status.call;
    uint32_t s = (tn_rt_status.seq | 3u) + 1u;       /* next multiple of 4 */
    /* the odd seq first, then the record: each store a release, so none
     * becomes visible before the odd seq (a fence would do it too, but
     * ThreadSanitizer builds refuse fences; on x86 these are plain moves) */
    __atomic_store_n(&c->seq, s + 1u, __ATOMIC_RELAXED);
    __atomic_store_n(&c->call, call, __ATOMIC_RELEASE);
    __atomic_store_n(&c->peer, peer, __ATOMIC_RELEASE);
    __atomic_store_n(&c->tag, tag, __ATOMIC_RELEASE);
    __atomic_store_n(&c->peer2, peer2, __ATOMIC_RELEASE);
    __atomic_store_n(&c->tag2, tag2, __ATOMIC_RELEASE);
    __atomic_store_n(&c->count, count, __ATOMIC_RELEASE);
    __atomic_store_n(&c->obj, obj, __ATOMIC_RELEASE);
    __atomic_store_n(&c->dtype, dtype, __ATOMIC_RELEASE);
    __atomic_store_n(&c->enter_ms, __atomic_load_n(tn_rt_status.now, __ATOMIC_RELAXED),
                     __ATOMIC_RELEASE);
    __atomic_store_n(&c->seq, s + 2u, __ATOMIC_RELEASE);
    tn_rt_status.seq = s + 2u;
}

/* Leaving the published call. */
TN_RT_STATUS_INLINE void tn_rt_status_leave(void)
{
    if (!tn_rt_status_writer()) {
        return;
    }
    tern_status_call_t *c = tn_rt_status.call;
    uint32_t s = (tn_rt_status.seq | 3u) + 1u;
    __atomic_store_n(&c->leave_ms, __atomic_load_n(tn_rt_status.now, __ATOMIC_RELAXED),
                     __ATOMIC_RELAXED);
    __atomic_store_n(&c->seq, s, __ATOMIC_RELEASE);
    tn_rt_status.seq = s;
}

/* MPI_Init and the like: the slot is not mapped yet; remember the call for
 * tn_rt_status_attach to publish. */
void tn_rt_status_init_call(uint32_t call);

/* Map our slot if tern-run gave us one and TERN_STATUS is on (config
 * loaded), once per process; publish the pending init call.  Failures are
 * logged at debug level and leave publication off. */
void tn_rt_status_attach(void);

/* No slot from tern-run: publish the current call in line instead (the
 * stats segment's), without a clock (enter_ms and leave_ms stay 0) and
 * without answers. */
void tn_rt_status_attach_line(tern_status_call_t *line);

/* Our world rank and size, once PMI told us (the launcher knows them
 * already; another reader may not). */
void tn_rt_status_identify(int world_rank, int world_size);

/* Attach to memory the caller owns instead (unit tests): hdr and the slot
 * (TERN_STATUS_SLOT_SIZE bytes, 8-aligned). */
void tn_rt_status_attach_mem(const tern_status_hdr_t *hdr, void *slot);

/* The thread level was decided: with MPI_THREAD_MULTIPLE only the thread
 * that attached publishes. */
void tn_rt_status_set_multiple(int multiple);

/* What the layer above writes into an answer (tn_rt_hooks_t.status_fill):
 * the current call's communicator and datatype size and at most max pending
 * requests into ans->comm, ans->dtype_size and ans->reqs, with ans->nreqs
 * and ans->nreqs_total; obj and dtype are the current call's record fields
 * (handles the application passed: check them before use). */
typedef void (tn_rt_status_fill_fn_t)(tern_status_answer_t *ans, size_t max,
                                      uint64_t obj, uint64_t dtype);
void tn_rt_status_set_fill(tn_rt_status_fill_fn_t *fill);

/* Has the launcher asked for an answer we have not given? */
static inline int tn_rt_status_asked(void)
{
    return tn_rt_status.ask != NULL &&
           __atomic_load_n(tn_rt_status.ask, __ATOMIC_RELAXED) != tn_rt_status.answered;
}

/* Answer it (call with the runtime lock held, from a waiting loop). */
void tn_rt_status_answer(void);

#endif
