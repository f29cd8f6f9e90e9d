/* Collective slots of communicators (see coll_shm.h): the claim, waiting
 * and posting. */
#include "coll/coll_shm.h"
#include "base/config.h"
#include "base/log.h"
#include "runtime/rt.h"
#include "xport/xport.h"

#include <stdlib.h>

/* Claim rounds before a communicator gives up its slot for good (a round
 * fails when another communicator takes a slot between our ranks' looks). */
#define TN_COLL_SHM_ROUNDS 3
/* Polls of a flag before waiting through the progress engine (not when
 * ranks outnumber cores: the rank we wait for needs the core). */
#define TN_COLL_SHM_SPIN 2000

static inline void tn_coll_shm_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

int tn_coll_shm_eligible(tn_comm_t *comm)
{
    size_t bytes;
    int r;

    if (comm->coll_shm_state != 0) {
        return comm->coll_shm_state > 0;
    }
    comm->coll_shm_state = -1;
    if (comm->remote != NULL || comm->size < 2 || comm->size > tn_rt.local_size ||
        tn_xport_shm_coll_slots(&bytes) == 0 || bytes == 0) {
        return 0;
    }
    for (r = 0; r < comm->size; r++) {
        int w = comm->peer_world[r];

        if (r != comm->rank && tn_rt.xport_of[w] != &tn_xport_shm_ops) {
            return 0;
        }
    }
    comm->coll_shm_state = 1;
    return 1;
}

static int tn_coll_shm_claim_round(tn_comm_t *comm, uint64_t key, int start, int *slot_p)
{
    int n = comm->size, slot, i, ok = 1;
    int *all = malloc((size_t)n * sizeof(int));
    tn_coll_blocks_t rb = { NULL, NULL, 0, sizeof(int), tn_dt_byte(), NULL };
    tn_status_t st;

    if (all == NULL) {
        return -1;
    }
    slot = tn_xport_shm_coll_claim(key, start);
    if (slot >= 0) {
        atomic_store_explicit((_Atomic uint64_t *)tn_xport_shm_coll_area(slot, comm->rank), 0,
                              memory_order_release);
    }
    /* Bruck works for any size and is never an shm algorithm itself. */
    st = tn_coll_allgather_bruck(&slot, sizeof(int), tn_dt_byte(), all, &rb, comm);
    for (i = 0; i < n && st == TN_OK; i++) {
        ok &= all[i] == slot && slot >= 0;
    }
    free(all);
    if (st != TN_OK) {
        ok = -1;
    }
    if (ok != 1 && slot >= 0) {
        tn_xport_shm_coll_release(slot);
    }
    *slot_p = slot;
    return ok;
}

tn_status_t tn_coll_shm_get(tn_comm_t *comm, tn_coll_shm_t **sh_p)
{
    tn_coll_shm_t *sh;
    uint64_t key;
    size_t bytes;
    int nslots, slot = -1, round, ok = 0, r;

    *sh_p = comm->coll_shm;
    if (comm->coll_shm != NULL || comm->coll_shm_state < 0) {
        return TN_OK;
    }
    /* Context ids are never used twice by one process and communicators
     * sharing one are disjoint: with the world rank of rank 0 the key names
     * this communicator alone. */
    key = ((uint64_t)comm->ctx << 32 | (uint32_t)comm->peer_world[0]) + 1;
    nslots = tn_xport_shm_coll_slots(&bytes);
    for (round = 0; round < TN_COLL_SHM_ROUNDS && ok == 0; round++) {
        int start = (int)((key * 0x9e3779b97f4a7c15ull) >> 40) % nslots;

        ok = tn_coll_shm_claim_round(comm, key, (start + round) % nslots, &slot);
    }
    if (ok < 0) {
        return TN_ERR_NOMEM;
    }
    if (ok == 0) {
        tn_log_debug("coll", "no shared-memory collective slot for a communicator of %d ranks",
                     comm->size);
        comm->coll_shm_state = -1;
        tn_coll_pick_forget(comm);
        return TN_OK;
    }
    sh = calloc(1, sizeof(*sh));
    if (sh != NULL) {
        sh->area = malloc((size_t)comm->size * sizeof(char *));
    }
    if (sh == NULL || sh->area == NULL) {
        /* cannot happen the same on every rank: no way to fall back alone */
        free(sh);
        tn_xport_shm_coll_release(slot);
        return TN_ERR_NOMEM;
    }
    sh->slot = slot;
    sh->n = comm->size;
    sh->bytes = bytes;
    sh->world = comm->peer_world;
    for (r = 0; r < comm->size; r++) {
        sh->area[r] = tn_xport_shm_coll_area(slot, r);
    }
    comm->coll_shm = sh;
    *sh_p = sh;
    return TN_OK;
}

void tn_coll_shm_free(tn_comm_t *comm)
{
    tn_coll_shm_t *sh = comm->coll_shm;

    if (sh != NULL) {
        tn_xport_shm_coll_release(sh->slot);
        free(sh->area);
        free(sh);
        comm->coll_shm = NULL;
    }
    comm->coll_shm_state = 0;
    tn_coll_pick_forget(comm);
}

typedef struct {
    _Atomic uint64_t *p;
    uint64_t          v;
} tn_coll_shm_cond_t;

static int tn_coll_shm_reached(void *arg)
{
    tn_coll_shm_cond_t *c = arg;

    return atomic_load_explicit(c->p, memory_order_acquire) >= c->v;
}

void tn_coll_shm_wait(tn_coll_shm_t *sh, int r, uint64_t s)
{
    tn_coll_shm_cond_t c = { tn_coll_shm_posted(sh, r), s };
    int i;

    if (tn_coll_shm_reached(&c)) {
        return;
    }
    if (!tn_rt.oversubscribed) {
        for (i = 0; i < TN_COLL_SHM_SPIN; i++) {
            tn_coll_shm_relax();
            if (tn_coll_shm_reached(&c)) {
                return;
            }
        }
    }
    tn_rt_wait(tn_coll_shm_reached, &c);
}

void tn_coll_shm_wait_all(tn_coll_shm_t *sh, int me, uint64_t s)
{
    int r;

    for (r = 0; r < sh->n; r++) {
        if (r != me) {
            tn_coll_shm_wait(sh, r, s);
        }
    }
    if (s > sh->all_lb) {
        sh->all_lb = s;
    }
}

void tn_coll_shm_post(tn_coll_shm_t *sh, int me, uint64_t s)
{
    int r;

    atomic_store_explicit(tn_coll_shm_posted(sh, me), s, memory_order_release);
    atomic_thread_fence(memory_order_seq_cst);
    for (r = 0; r < sh->n; r++) {
        if (r != me) {
            tn_xport_shm_wake_sleeper(sh->world[r]);
        }
    }
}

void tn_coll_shm_put_typed(tn_coll_shm_t *sh, int me, uint64_t s, const void *buf,
                           size_t count, const tn_dt_t *dt)
{
    ptrdiff_t lo;
    size_t span = tn_coll_true_range(dt, count, &lo);

    memcpy(tn_coll_shm_buf(sh, me, s), (const char *)buf + lo, span);
    tn_mon_wrote(tn_dt_bytes(dt, count));
}

void tn_coll_shm_differ(const tn_coll_shm_t *sh, int me, uint64_t s, int r, uint64_t w)
{
    uint64_t h = tn_coll_shm_heard(sh, r, s);

    if (w == TN_COLL_SHM_DIFFER) {
        tn_log_debug("coll", "collective %llu on %d ranks: my send and receive sizes differ "
                     "(rank %d): MPI_ERR_TRUNCATE", (unsigned long long)s, sh->n, me);
    } else if (h == TN_COLL_SHM_DIFFER) {
        tn_log_debug("coll", "collective %llu on %d ranks: rank %d's send and receive sizes "
                     "differ: MPI_ERR_TRUNCATE", (unsigned long long)s, sh->n, r);
    } else {
        tn_log_debug("coll", "collective %llu on %d ranks: rank %d has %llu bytes, rank %d "
                     "%llu: MPI_ERR_TRUNCATE where that is too many", (unsigned long long)s,
                     sh->n, r, (unsigned long long)h, me, (unsigned long long)w);
    }
}

int tn_coll_shm_all_said(tn_coll_shm_t *sh, int me, uint64_t s, uint64_t w)
{
    int r;

    tn_coll_shm_wait_all(sh, me, s);
    for (r = 0; r < sh->n; r++) {
        if (r != me && tn_coll_shm_heard(sh, r, s) != w) {
            tn_coll_shm_differ(sh, me, s, r, w);
            return 0;
        }
    }
    return 1;
}

tn_status_t tn_coll_shm_reduce(tn_coll_shm_t *sh, int me, uint64_t s, uint64_t w, void *rbuf,
                               size_t off, size_t count, size_t total, const tn_dt_t *dt,
                               const tn_op_t *op, tn_comm_t *comm)
{
    uintptr_t dth = tn_coll_dt_handle(dt);
    ptrdiff_t lo, shift = (ptrdiff_t)off * dt->extent;
    int j = sh->n - 1;
    tn_status_t st;

    (void)tn_coll_true_range(dt, total, &lo);
    if (j != me) {
        tn_coll_shm_wait(sh, j, s);
    }
    if (j != me && tn_coll_shm_heard(sh, j, s) != w) {
        tn_coll_shm_differ(sh, me, s, j, w);
        st = TN_ERR_TRUNCATE;
    } else {
        st = tn_coll_copy(tn_coll_shm_buf(sh, j, s) - lo + shift, count, dt, rbuf, count, dt,
                          comm);
        if (j != me) {
            tn_coll_shm_took(sh, j, tn_dt_bytes(dt, count));
        }
    }
    for (j = sh->n - 2; j >= 0; j--) {
        if (j != me) {
            tn_coll_shm_wait(sh, j, s);
        }
        if (st == TN_OK && j != me && tn_coll_shm_heard(sh, j, s) != w) {
            tn_coll_shm_differ(sh, me, s, j, w);
            st = TN_ERR_TRUNCATE;
        }
        if (st == TN_OK) {
            st = tn_op_apply(op, dt, dth, tn_coll_shm_buf(sh, j, s) - lo + shift, rbuf, count);
            if (j != me) {
                tn_coll_shm_took(sh, j, tn_dt_bytes(dt, count));
            }
        }
    }
    sh->all_lb = s;
    return st;
}

tn_status_t tn_coll_shm_collect(tn_coll_shm_t *sh, int me, uint64_t s, size_t bytes,
                                void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm)
{
    tn_status_t st = TN_OK;
    int j;

    for (j = 0; j < sh->n; j++) {
        if (j != me) {
            tn_coll_shm_wait(sh, j, s);
            if (st == TN_OK && tn_coll_shm_heard(sh, j, s) != bytes) {
                tn_coll_shm_differ(sh, me, s, j, bytes);
                st = TN_ERR_TRUNCATE;
            }
            if (st == TN_OK) {
                st = tn_coll_copy(tn_coll_shm_buf(sh, j, s), bytes, tn_dt_byte(),
                                  tn_coll_blk_ptr(rb, rbuf, j), rb->count, rb->dt, comm);
                tn_coll_shm_took(sh, j, bytes);
            }
        }
    }
    sh->all_lb = s;
    return st;
}
