/* Context id agreement (see comm.h, and the top of comm.c for the rule).
 *
 * Every process keeps next_ctx: every id below it may be in use here, every
 * id from it up is free.  An agreement over some participants:
 *   1. proposal: the max of the participants' next_ctx;
 *   2. claim: each participant takes [v, v + span) if v >= its next_ctx
 *      now (moving next_ctx past it) and otherwise reports failure;
 *   3. the max of (failed, next_ctx) over the participants: no failure and
 *      v is the id; a failure and the max next_ctx is the next proposal,
 *      back to 2.
 * A claim checks and moves next_ctx in one step under the library's lock,
 * so two agreements in flight at once in one process (threads on different
 * communicators, nonblocking dups) can never both take the same id: the
 * second one's claim fails and it tries a larger one.  Without concurrent
 * agreements step 3 always succeeds at once.  An id a participant claimed
 * in a failed round is simply never used.
 *
 * Messages go over the parent's collective context: the blocking form under
 * a fixed tag (collectives on one communicator are ordered, and concurrent
 * calls on different communicators use different contexts), the
 * nonblocking form (MPI_Comm_idup) as a schedule under the tag of its place
 * in the parent's nonblocking sequence. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "comm/comm.h"
#include "coll/coll.h"
#include "coll/coll_sched.h"
#include "dt/dt.h"
#include "dt/op.h"
#include "p2p/p2p.h"

/* ABI handles of MPI_INT64_T and MPI_MAX */
#define TN_ABI_MPI_INT64_T 0x258u
#define TN_ABI_MPI_MAX     0x23u

static uint32_t next_ctx = 4;

/* The ids claimed here, as ranges [lo, hi) in increasing order: a claim
 * starts at next_ctx or above, so it extends the last range or starts a
 * new one after it.  Ids an agreement skipped (another participant's
 * next_ctx was higher) are in none. */
typedef struct {
    uint32_t lo, hi;
} ctx_range_t;

static ctx_range_t *claimed;
static size_t nclaimed, claimed_cap;
static ctx_range_t claimed_first = { 0, 4 };    /* COMM_WORLD, COMM_SELF */
/* a claim could not be remembered (out of memory): every id below next_ctx
 * counts as claimed from then on */
static int claims_lost;

void tn_comm_ctx_reset(void)
{
    next_ctx = 4;
    if (claimed != &claimed_first) {
        free(claimed);
    }
    claimed = &claimed_first;
    nclaimed = 1;
    claimed_cap = 1;
    claims_lost = 0;
}

int64_t tn_comm_ctx_next(void)
{
    return next_ctx;
}

/* Remember [v, v + span); 0 when out of memory. */
static int ctx_remember(uint32_t v, uint32_t span)
{
    if (nclaimed > 0 && claimed[nclaimed - 1].hi == v) {
        claimed[nclaimed - 1].hi = v + span;
        return 1;
    }
    if (nclaimed == claimed_cap) {
        size_t cap = claimed_cap * 2;
        ctx_range_t *r = malloc(cap * sizeof(*r));

        if (r == NULL) {
            return 0;
        }
        memcpy(r, claimed, nclaimed * sizeof(*r));
        if (claimed != &claimed_first) {
            free(claimed);
        }
        claimed = r;
        claimed_cap = cap;
    }
    claimed[nclaimed].lo = v;
    claimed[nclaimed].hi = v + span;
    nclaimed++;
    return 1;
}

int tn_comm_ctx_claim(int64_t v, uint32_t span)
{
    if (v < (int64_t)next_ctx || v > (int64_t)(UINT32_MAX - span)) {
        return 0;
    }
    if (claimed == NULL) {
        tn_comm_ctx_reset();
    }
    if (!ctx_remember((uint32_t)v, span)) {
        claims_lost = 1;
    }
    next_ctx = (uint32_t)v + span;
    return 1;
}

int tn_comm_ctx_claimed(uint32_t ctx)
{
    size_t lo = 0, hi = nclaimed;

    if (claimed == NULL || claims_lost) {
        return ctx < next_ctx;
    }
    /* the first range that ends after ctx */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (claimed[mid].hi <= ctx) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < nclaimed && claimed[lo].lo <= ctx;
}

/* The highest proposal that can still be claimed: beyond it the ids are
 * exhausted (2^31 communicators), which ends the agreement with an error
 * instead of retrying forever. */
static int ctx_exhausted(int64_t v, uint32_t span)
{
    return v > (int64_t)(UINT32_MAX - span);
}

static int comm_peer(const int *map, int r)
{
    return map != NULL ? map[r] : r;
}

/* vals[0..nv) = element-wise max over the n participants (comm ranks
 * map[0..n), every rank of comm when map is NULL; I am participant rank):
 * recursive doubling, the participants beyond the largest power of two
 * folded onto their neighbours.  Messages over comm's collective context
 * with tag. */
static tn_status_t comm_allreduce_max_i64(int64_t *vals, int nv, tn_comm_t *comm, int n,
                                          int rank, const int *map, int tag)
{
    const tn_dt_t *byte = tn_dt_byte();
    size_t bytes = (size_t)nv * sizeof(*vals);
    int pof2, rem, newrank, mask, i;
    int64_t in[4];
    tn_status_t st;

    if (n == 1) {
        return TN_OK;
    }
    if (nv > 4) {
        return TN_ERR_INVAL;
    }
    for (pof2 = 1; pof2 * 2 <= n; pof2 *= 2) {
    }
    rem = n - pof2;
    if (rank < 2 * rem) {
        if (rank % 2 == 0) {
            st = tn_p2p_send(vals, bytes, byte, comm_peer(map, rank + 1), tag, comm, 1);
            newrank = -1;
        } else {
            st = tn_p2p_recv(in, bytes, byte, comm_peer(map, rank - 1), tag, comm, 1, NULL);
            for (i = 0; i < nv && st == TN_OK; i++) {
                vals[i] = in[i] > vals[i] ? in[i] : vals[i];
            }
            newrank = rank / 2;
        }
        if (st != TN_OK) {
            return st;
        }
    } else {
        newrank = rank - rem;
    }
    if (newrank >= 0) {
        for (mask = 1; mask < pof2; mask <<= 1) {
            int newdst = newrank ^ mask;
            int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;

            st = tn_p2p_sendrecv(vals, bytes, byte, comm_peer(map, dst), tag, in, bytes, byte,
                                 comm_peer(map, dst), tag, comm, 1, NULL);
            if (st != TN_OK) {
                return st;
            }
            for (i = 0; i < nv; i++) {
                vals[i] = in[i] > vals[i] ? in[i] : vals[i];
            }
        }
    }
    if (rank < 2 * rem) {
        if (rank % 2 == 1) {
            st = tn_p2p_send(vals, bytes, byte, comm_peer(map, rank - 1), tag, comm, 1);
        } else {
            st = tn_p2p_recv(vals, bytes, byte, comm_peer(map, rank + 1), tag, comm, 1, NULL);
        }
        if (st != TN_OK) {
            return st;
        }
    }
    return TN_OK;
}

tn_status_t tn_comm_allreduce_max(int64_t *vals, int nv, tn_comm_t *comm)
{
    return comm_allreduce_max_i64(vals, nv, comm, comm->size, comm->rank, NULL,
                                  TN_COLL_TAG_COMM_CTX);
}

tn_status_t tn_comm_ctx_agree(tn_comm_t *comm, int n, int me, const int *map, int tag,
                              uint32_t span, int64_t first, uint32_t *ctx_p)
{
    int64_t v = first, f[2];
    tn_status_t st;

    if (v < 0) {
        v = next_ctx;
        st = comm_allreduce_max_i64(&v, 1, comm, n, me, map, tag);
        if (st != TN_OK) {
            return st;
        }
    }
    for (;;) {
        if (ctx_exhausted(v, span)) {
            return TN_ERR_NOMEM;
        }
        f[0] = !tn_comm_ctx_claim(v, span);
        f[1] = next_ctx;
        st = comm_allreduce_max_i64(f, 2, comm, n, me, map, tag);
        if (st != TN_OK) {
            return st;
        }
        if (f[0] == 0) {
            *ctx_p = (uint32_t)v;
            return TN_OK;
        }
        v = f[1];
    }
}

/* ---- MPI_Comm_idup: the agreement as a schedule ------------------------- */

typedef struct {
    tn_comm_t *parent;
    tn_comm_t *nc;        /* the duplicate: no context until the agreement ends */
    uint32_t   span;      /* 2, or 4 for an intercommunicator (its local comm) */
    int64_t    v[1];      /* the proposal, then the agreed id */
    int64_t    f[2];      /* (failed, next_ctx) */
    int64_t    rf[2];     /* the remote group's (intercommunicators) */
} idup_t;

static const tn_dt_t *idup_i64(void)
{
    return tn_dt_predefined(TN_ABI_MPI_INT64_T);
}

static void idup_merge(int64_t *vals, const int64_t *rvals, int nv)
{
    for (int i = 0; i < nv; i++) {
        vals[i] = rvals[i] > vals[i] ? rvals[i] : vals[i];
    }
}

static tn_status_t idup_merge_v(tn_sched_t *s, void *arg)
{
    idup_t *d = arg;

    (void)s;
    idup_merge(d->v, d->rf, 1);
    return TN_OK;
}

static tn_status_t idup_merge_f(tn_sched_t *s, void *arg)
{
    idup_t *d = arg;

    (void)s;
    idup_merge(d->f, d->rf, 2);
    return TN_OK;
}

/* Steps that make vals[0..nv) the max over every participant: the
 * communicator's ranks, or both groups of an intercommunicator (each group
 * reduces, the two leaders swap and merge, each leader broadcasts). */
static void idup_max(tn_sched_t *s, idup_t *d, int64_t *vals, int nv)
{
    const tn_dt_t *i64 = idup_i64();
    const tn_op_t *max = tn_op_predefined(TN_ABI_MPI_MAX);
    tn_comm_t *p = d->parent;

    if (p->remote == NULL) {
        tn_nbc_grp_t all = tn_nbc_grp_all(p);
        tn_nbc_grp_allreduce(s, vals, vals, (size_t)nv, i64, max, &all);
        tn_sched_barrier(s);
        return;
    }
    tn_nbc_grp_t loc = { NULL, p->size, p->rank };
    tn_sched_use_local(s, 1);
    tn_nbc_grp_allreduce(s, vals, vals, (size_t)nv, i64, max, &loc);
    tn_sched_barrier(s);
    if (p->rank == 0) {
        tn_sched_use_local(s, 0);
        tn_sched_send(s, vals, (size_t)nv, i64, 0);
        tn_sched_recv(s, d->rf, (size_t)nv, i64, 0);
        tn_sched_barrier(s);
        tn_sched_call(s, vals == d->v ? idup_merge_v : idup_merge_f, d);
        tn_sched_use_local(s, 1);
    }
    tn_nbc_grp_bcast(s, vals, (size_t)nv, i64, 0, &loc);
    tn_sched_barrier(s);
    tn_sched_use_local(s, 0);
}

static tn_status_t idup_check(tn_sched_t *s, void *arg);

static tn_status_t idup_claim(tn_sched_t *s, void *arg)
{
    idup_t *d = arg;

    (void)s;
    if (ctx_exhausted(d->v[0], d->span)) {
        return TN_ERR_NOMEM;
    }
    d->f[0] = !tn_comm_ctx_claim(d->v[0], d->span);
    d->f[1] = next_ctx;
    d->rf[0] = d->rf[1] = 0;
    return TN_OK;
}

/* One round of claims: claim, (failed, next_ctx) over everyone, check. */
static void idup_round(tn_sched_t *s, idup_t *d)
{
    tn_sched_call(s, idup_claim, d);
    idup_max(s, d, d->f, 2);
    tn_sched_call(s, idup_check, d);
}

static tn_status_t idup_check(tn_sched_t *s, void *arg)
{
    idup_t *d = arg;
    tn_comm_t *nc = d->nc;
    tn_status_t st;

    if (d->f[0] != 0) {
        d->v[0] = d->f[1];
        idup_round(s, d);
        return tn_sched_status(s);
    }
    if (nc->local != NULL) {
        nc->local->ctx = (uint32_t)d->v[0] + 2;
        st = tn_p2p_comm_attach(nc->local);
        if (st != TN_OK) {
            return st;
        }
    }
    nc->ctx = (uint32_t)d->v[0];
    return tn_p2p_comm_attach(nc);
}

static tn_status_t idup_propose(tn_sched_t *s, void *arg)
{
    idup_t *d = arg;

    (void)s;
    d->v[0] = next_ctx;
    d->rf[0] = 0;
    return TN_OK;
}

static void idup_free(void *arg)
{
    idup_t *d = arg;

    tn_comm_release(d->nc);
    free(d);
}

tn_status_t tn_comm_idup(tn_comm_t *comm, tn_comm_t **comm_p, tn_req_t **req_p)
{
    idup_t *d;
    tn_sched_t *s;
    tn_comm_t *nc = NULL;
    tn_status_t st;

    st = tn_comm_dup_shell(comm, &nc);
    if (st != TN_OK) {
        return st;
    }
    d = calloc(1, sizeof(*d));
    s = d != NULL ? tn_sched_new(comm) : NULL;
    if (s == NULL) {
        free(d);
        tn_comm_release(nc);
        return TN_ERR_NOMEM;
    }
    d->parent = comm;
    d->nc = nc;
    d->span = comm->remote != NULL ? 4 : 2;
    tn_comm_retain(nc);              /* the schedule's reference */
    tn_sched_on_free(s, idup_free, d);
    tn_sched_call(s, idup_propose, d);
    idup_max(s, d, d->v, 1);
    idup_round(s, d);
    st = tn_sched_commit(s, 0, req_p);
    if (st != TN_OK) {
        tn_comm_release(nc);
        return st;
    }
    *comm_p = nc;
    return TN_OK;
}
