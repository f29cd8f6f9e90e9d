/* The recorder of schedules (plan.h): the nonblocking and persistent
 * collectives' builders (coll/nbc, compiled in unchanged) add their steps
 * here instead of to a schedule the progress engine runs.
 *
 * A schedule is rounds (coll_sched.h): a round's local steps run when it
 * begins, then its sends and receives are posted, and it ends when all of
 * them have completed.  Recorded the same way: a round's reductions are
 * written as they come, its posts are held until the round ends and then
 * written, followed by one wait for all of them.  Every message of a
 * schedule travels on the collective context with the schedule's tag plus
 * its sub-tag (the sequence number is the same on every member). */
#include <stdlib.h>
#include <string.h>

#include "coll/coll_sched.h"
#include "comm/comm.h"
#include "dt/dt.h"

#include "plan.h"

typedef struct {
    uint8_t  type;
    int32_t  peer;
    int32_t  sub;
    uint64_t bytes;
} sp_post_t;

struct tn_sched {
    tn_comm_t  *comm;
    sp_post_t  *posts;       /* the current round's */
    int         nposts, cap;
    void      **tmps;
    int         ntmps, tmpcap;
    tn_status_t err;
    void      (*cleanup)(void *arg);
    void       *cleanup_arg;
};

tn_sched_t *tn_sched_new(tn_comm_t *comm)
{
    tn_sched_t *s = calloc(1, sizeof(*s));

    if (s != NULL) {
        s->comm = comm;
    }
    return s;
}

void tn_sched_fail(tn_sched_t *s, tn_status_t st)
{
    if (s->err == TN_OK) {
        s->err = st;
    }
}

tn_status_t tn_sched_status(const tn_sched_t *s)
{
    return s->err;
}

static void sp_post(tn_sched_t *s, uint8_t type, size_t count, const tn_dt_t *dt, int peer, int sub)
{
    if (s->err != TN_OK) {
        return;
    }
    if (peer < 0 || peer >= s->comm->size || sub < 0 || sub >= TN_SCHED_TAG_SUBS) {
        tn_sched_fail(s, TN_ERR_INVAL);
        return;
    }
    if (s->nposts == s->cap) {
        int cap = s->cap ? s->cap * 2 : 16;
        sp_post_t *a = realloc(s->posts, sizeof(*a) * (size_t)cap);
        if (a == NULL) {
            tn_sched_fail(s, TN_ERR_NOMEM);
            return;
        }
        s->posts = a;
        s->cap = cap;
    }
    sp_post_t *p = &s->posts[s->nposts++];
    p->type = type;
    p->peer = peer;
    p->sub = sub;
    p->bytes = (uint64_t)dt->size * count;
}

void tn_sched_send(tn_sched_t *s, const void *buf, size_t count, const tn_dt_t *dt, int peer)
{
    (void)buf;
    sp_post(s, PL_SEND, count, dt, peer, 0);
}

void tn_sched_recv(tn_sched_t *s, void *buf, size_t count, const tn_dt_t *dt, int peer)
{
    (void)buf;
    sp_post(s, PL_RECV, count, dt, peer, 0);
}

void tn_sched_send_sub(tn_sched_t *s, const void *buf, size_t count, const tn_dt_t *dt, int peer,
                       int sub)
{
    (void)buf;
    sp_post(s, PL_SEND, count, dt, peer, sub);
}

void tn_sched_recv_sub(tn_sched_t *s, void *buf, size_t count, const tn_dt_t *dt, int peer,
                       int sub)
{
    (void)buf;
    sp_post(s, PL_RECV, count, dt, peer, sub);
}

void tn_sched_copy(tn_sched_t *s, const void *sbuf, size_t scount, const tn_dt_t *sdt,
                   void *rbuf, size_t rcount, const tn_dt_t *rdt)
{
    (void)sbuf;
    (void)rbuf;
    (void)rcount;
    (void)rdt;
    if (s->err == TN_OK && pl_rec_copy((uint64_t)sdt->size * scount) != 0) {   /* the sender's bytes */
        tn_sched_fail(s, TN_ERR_NOMEM);
    }
}

void tn_sched_reduce(tn_sched_t *s, const void *in, void *inout, size_t count, const tn_dt_t *dt,
                     const tn_op_t *op)
{
    (void)in;
    (void)inout;
    (void)op;
    if (s->err != TN_OK) {
        return;
    }
    pl_op_t *o = pl_rec_push(PL_CALC);
    if (o == NULL) {
        tn_sched_fail(s, TN_ERR_NOMEM);
        return;
    }
    o->bytes = (uint64_t)dt->size * count;
}

/* The round's posts, then one wait for them all. */
void tn_sched_barrier(tn_sched_t *s)
{
    uint32_t *idx;

    if (s->err != TN_OK || s->nposts == 0) {
        return;
    }
    if ((idx = malloc(sizeof(*idx) * (size_t)s->nposts)) == NULL) {
        tn_sched_fail(s, TN_ERR_NOMEM);
        return;
    }
    for (int i = 0; i < s->nposts; i++) {
        const sp_post_t *p = &s->posts[i];
        pl_op_t *o = pl_rec_push(p->type);

        if (o == NULL) {
            tn_sched_fail(s, TN_ERR_NOMEM);
            break;
        }
        idx[i] = (uint32_t)(pl_run.ranks[pl_run.me].nops - 1);
        o->peer = s->comm->peer_world[p->peer];
        o->ctx = s->comm->ctx + 1;
        o->tag = TN_SCHED_TAG_BASE + p->sub;
        o->bytes = p->bytes;
    }
    if (s->err == TN_OK && pl_rec_wait(idx, s->nposts) != 0) {
        tn_sched_fail(s, TN_ERR_NOMEM);
    }
    free(idx);
    s->nposts = 0;
}

/* Run at once: the builders the planner calls add no such step, and what
 * one adds is recorded where it is added. */
void tn_sched_call(tn_sched_t *s, tn_sched_fn_t *fn, void *arg)
{
    tn_sched_barrier(s);
    if (s->err == TN_OK) {
        tn_sched_fail(s, fn(s, arg));
    }
}

void tn_sched_on_free(tn_sched_t *s, void (*fn)(void *arg), void *arg)
{
    s->cleanup = fn;
    s->cleanup_arg = arg;
}

void tn_sched_use_local(tn_sched_t *s, int local)
{
    (void)local;
    tn_sched_fail(s, TN_ERR_UNSUPPORTED);   /* intercommunicators are not planned */
}

char *tn_sched_tmp(tn_sched_t *s, const tn_dt_t *dt, size_t count)
{
    size_t bytes = count * (size_t)(dt->extent < 0 ? -dt->extent : dt->extent) +
                   (size_t)(dt->true_extent > 0 ? dt->true_extent : 0) + 64;
    char *p;

    if (s->err != TN_OK) {
        return NULL;
    }
    if (s->ntmps == s->tmpcap) {
        int cap = s->tmpcap ? s->tmpcap * 2 : 8;
        void **t = realloc(s->tmps, sizeof(*t) * (size_t)cap);
        if (t == NULL) {
            tn_sched_fail(s, TN_ERR_NOMEM);
            return NULL;
        }
        s->tmps = t;
        s->tmpcap = cap;
    }
    /* never read nor written here: untouched pages of a large calloc cost
     * nothing */
    if ((p = calloc(1, bytes)) == NULL) {
        tn_sched_fail(s, TN_ERR_NOMEM);
        return NULL;
    }
    s->tmps[s->ntmps++] = p;
    return p - (dt->true_lb < 0 ? dt->true_lb : 0);
}

tn_status_t tn_sched_commit(tn_sched_t *s, int persistent, tn_req_t **req_p)
{
    tn_status_t st;

    (void)persistent;
    tn_sched_barrier(s);
    st = s->err;
    *req_p = NULL;
    tn_sched_free(s);
    return st;
}

void tn_sched_free(tn_sched_t *s)
{
    if (s->cleanup != NULL) {
        s->cleanup(s->cleanup_arg);
    }
    for (int i = 0; i < s->ntmps; i++) {
        free(s->tmps[i]);
    }
    free(s->tmps);
    free(s->posts);
    free(s);
}

/* nbc_twolevel's strided copies: only their size matters here */
tn_status_t tn_dt_create_hvector(size_t count, size_t blen, ptrdiff_t stride, const tn_dt_t *old,
                                 tn_dt_t **new_p)
{
    tn_dt_t *t = calloc(1, sizeof(*t));

    if (t == NULL) {
        return TN_ERR_NOMEM;
    }
    t->size = count * blen * old->size;
    t->extent = count > 0 ? (ptrdiff_t)(count - 1) * stride + (ptrdiff_t)blen * old->extent : 0;
    t->true_extent = t->extent;
    t->committed = 1;
    *new_p = t;
    return TN_OK;
}

void tn_dt_release(const tn_dt_t *dt)
{
    if (dt != NULL && !dt->predefined) {
        free((void *)dt);
    }
}
