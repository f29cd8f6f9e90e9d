/* Runtime: process identity, init/finalize, the progress engine and waiting.
 *
 * tn_rt is filled by tn_rt_init() (PMI or singleton) and read-only after.
 * The progress engine polls every transport; tn_rt_wait() drives it until a
 * condition holds, spinning, then yielding, then blocking in the kernel
 * (TERN_WAIT).  With MPI_THREAD_MULTIPLE, or with the progress thread
 * (TERN_ASYNC_PROGRESS), every MPI call holds tn_rt.lock; waiting releases
 * it while it yields or sleeps. */
#ifndef TN_RUNTIME_RT_H
#define TN_RUNTIME_RT_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include "base/status.h"
#include "runtime/status.h"
#include "xport/xport.h"

/* Thread-level constants of the ABI (mpi.h is not visible down here). */
enum { TN_RT_THREAD_SINGLE = 0, TN_RT_THREAD_MULTIPLE = 4096 };

typedef struct {
    int        initialized;        /* MPI_Init done */
    int        finalized;          /* MPI_Finalize done */
    int        thread_level;       /* MPI_THREAD_* granted */
    int        thread_multiple;    /* lock needed: MPI_THREAD_MULTIPLE or async */
    int        async;              /* TERN_ASYNC_PROGRESS: a progress thread
                                    * runs from tn_rt_async_start to _stop */
    pthread_t  main_thread;
    pid_t      pid;                /* pid at init: a fork()ed child differs */
    int        world_rank;
    int        world_size;
    int        nprocs;             /* processes in the tables below: the world,
                                    * then those met later (runtime/proc.h) */
    int        node_id;            /* index of my node */
    int       *node_of_world;      /* world rank -> node index (nodes are
                                    * numbered in order of their lowest
                                    * world rank); the same on every rank */
    int        local_rank;         /* index among ranks of my node */
    int        local_size;
    int       *local_of_world;     /* world rank -> local index, -1 if remote */
    int       *world_of_local;     /* local index -> world rank */
    int        appnum;
    int        universe_size;
    int        singleton;          /* started without a launcher */
    int        oversubscribed;     /* more local ranks than cores */
    int        cores;              /* the machine's online CPUs (0: unknown) */
    int        nnodes;
    const tn_xport_ops_t **xport_of;  /* world rank -> transport serving it */
    char       kvsname[256];
    char       hostname[256];
    pthread_mutex_t lock;
} tn_rt_t;

extern tn_rt_t tn_rt;

static inline void tn_rt_lock(void)
{
    if (tn_rt.thread_multiple) {
        pthread_mutex_lock(&tn_rt.lock);
    }
}

static inline void tn_rt_unlock(void)
{
    if (tn_rt.thread_multiple) {
        pthread_mutex_unlock(&tn_rt.lock);
    }
}

/* What the layers above plug into the runtime. */
typedef struct {
    tn_xport_am_handler_fn_t *am_handler;   /* arrivals from every transport */
    tn_xport_ref_done_fn_t   *ref_done;     /* am_send_ref memory free again */
    int (*progress)(void);                  /* the core's own progress work */
    tn_rt_status_fill_fn_t *status_fill;    /* answers to the launcher (status.h) */
    /* the process table grew to nprocs (runtime/proc.h): per-peer tables
     * of the core must grow with it */
    tn_status_t (*peers_grow)(int nprocs);
} tn_rt_hooks_t;

/* MPI_Init_thread's work below the core: config, PMI, node map, transports. */
tn_status_t tn_rt_init(int required, int *provided_p, const tn_rt_hooks_t *hooks);
/* Stop the progress thread first (tn_rt_async_stop). */
tn_status_t tn_rt_finalize(void);
/* A second model (MPI_Init after MPI_Session_init, or the reverse) asks for
 * a thread level: raise the granted level to it (never lower); returns the
 * level now granted.  Call with no other thread inside MPI. */
int tn_rt_raise_thread_level(int required);
/* The names of the transports that serve some peer of this process (self
 * for itself included), comma-separated in a fixed order ("self, shm, udp"),
 * into buf; "" outside tn_rt_init..tn_rt_finalize.  Truncated to len. */
void tn_rt_xports_in_use(char *buf, size_t len);
/* End the whole job now: Tern's own fatal errors (tn_rt_abort) or the
 * application's MPI_Abort (tn_rt_abort_user), which the launcher reports
 * differently.  msg may be NULL. */
void tn_rt_abort(int code, const char *msg) __attribute__((noreturn));
void tn_rt_abort_user(int code, const char *msg) __attribute__((noreturn));

/* ---- the asynchronous progress thread (async.c) ---------------------------
 * With TERN_ASYNC_PROGRESS=1 (tn_rt.async) one thread per process runs the
 * progress engine, holding tn_rt.lock, whenever a peer rings the doorbell,
 * and sleeps in the kernel otherwise: a passive target, a rendezvous peer,
 * a nonblocking collective move on while the application computes.  It
 * runs the engine only: the layers above keep application code out of it
 * (tn_rt_async_self): a schedule with a user-defined op advances in the
 * application's calls only, MPI_T event callbacks need
 * MPI_T_CB_REQUIRE_THREAD_SAFE there; error handlers and generalized
 * request callbacks run in MPI calls anyway. */
/* Start it (a no-op unless tn_rt.async): after the core is set up, with no
 * thread inside MPI and the lock not held.  Fails only if the thread
 * cannot be created. */
tn_status_t tn_rt_async_start(void);
/* Stop and join it (a no-op if it does not run): before the transports
 * close, lock not held. */
void tn_rt_async_stop(void);
/* Whether the caller is the progress thread. */
int tn_rt_async_self(void);

/* ---- progress ------------------------------------------------------------ */
/* One pass over every transport; returns the number of events handled. */
int tn_progress(void);

typedef int (tn_wait_cond_fn_t)(void *arg);
/* Drive progress until done(arg) returns non-zero.  done may be called
 * again after it returned non-zero (once more before sleeping, and after
 * waking): a condition that consumes something must remember it. */
void tn_rt_wait(tn_wait_cond_fn_t *done, void *arg);

/* Key/value exchange through PMI (or local for a singleton): publish, then
 * tn_rt_fence(), then look up other ranks' values. */
tn_status_t tn_rt_kv_put(const char *key, const char *value);
tn_status_t tn_rt_fence(void);
tn_status_t tn_rt_kv_get(int rank, const char *key, char *value, int len);

#endif
