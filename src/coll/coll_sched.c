/* The schedule engine (see coll_sched.h). */
#include "coll/coll_sched.h"
#include "coll/coll_util.h"
#include "runtime/rt.h"

#include <stdlib.h>
#include <string.h>

typedef enum { STEP_SEND, STEP_RECV, STEP_COPY, STEP_REDUCE, STEP_CALL, STEP_END } tn_step_kind_t;

typedef struct {
    tn_step_kind_t kind;
    int            peer;
    int            sub;            /* added to the schedule's tag */
    tn_comm_t     *comm;           /* where peer is a rank: s->comm or its local */
    const void    *sbuf;
    void          *rbuf;
    size_t         scount, rcount;
    const tn_dt_t *sdt, *rdt;
    const tn_op_t *op;
    tn_sched_fn_t *fn;             /* STEP_CALL */
    void          *arg;
} tn_step_t;

struct tn_sched {
    tn_comm_t   *comm;
    tn_comm_t   *cur;            /* the messages' communicator (tn_sched_use_local) */
    tn_step_t   *steps;
    int          nsteps, cap;
    int          next;           /* first step of the next round */
    tn_req_t   **reqs;           /* the current round's messages */
    int          nreqs, reqcap;
    void       **tmps;
    int          ntmps, tmpcap;
    int          tag;
    tn_status_t  err;
    tn_req_t    *req;            /* the request the user holds */
    tn_sched_t  *anext, *aprev;  /* started schedules */
    int          started;
    int          persistent;     /* its tag was fixed at initialization */
    int          user_op;        /* reduces with a user-defined op: advanced
                                  * in the application's threads only */
    void       (*cleanup)(void *arg);
    void        *cleanup_arg;
};

static tn_sched_t *tn_sched_active;

tn_sched_t *tn_sched_new(tn_comm_t *comm)
{
    tn_sched_t *s = calloc(1, sizeof(*s));
    if (s != NULL) {
        s->comm = comm;
        s->cur = comm;
        tn_comm_retain(comm);
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

void tn_sched_use_local(tn_sched_t *s, int local)
{
    s->cur = local && s->comm->local != NULL ? s->comm->local : s->comm;
}

static tn_step_t *tn_sched_add(tn_sched_t *s, tn_step_kind_t kind)
{
    if (s->err != TN_OK) {
        return NULL;
    }
    if (s->nsteps == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        tn_step_t *st = realloc(s->steps, (size_t)cap * sizeof(*st));
        if (st == NULL) {
            s->err = TN_ERR_NOMEM;
            return NULL;
        }
        s->steps = st;
        s->cap = cap;
    }
    tn_step_t *st = &s->steps[s->nsteps++];
    memset(st, 0, sizeof(*st));
    st->kind = kind;
    return st;
}

static void tn_sched_ref_dt(const tn_dt_t *dt)
{
    if (dt != NULL) {
        tn_dt_retain(dt);
    }
}

void tn_sched_send(tn_sched_t *s, const void *buf, size_t count, const tn_dt_t *dt, int peer)
{
    tn_sched_send_sub(s, buf, count, dt, peer, 0);
}

void tn_sched_recv(tn_sched_t *s, void *buf, size_t count, const tn_dt_t *dt, int peer)
{
    tn_sched_recv_sub(s, buf, count, dt, peer, 0);
}

void tn_sched_send_sub(tn_sched_t *s, const void *buf, size_t count, const tn_dt_t *dt,
                       int peer, int sub)
{
    tn_step_t *st = tn_sched_add(s, STEP_SEND);
    if (st != NULL) {
        st->sub = sub;
        st->comm = s->cur;
        st->sbuf = buf;
        st->scount = count;
        st->sdt = dt;
        st->peer = peer;
        tn_sched_ref_dt(dt);
    }
}

void tn_sched_recv_sub(tn_sched_t *s, void *buf, size_t count, const tn_dt_t *dt, int peer,
                       int sub)
{
    tn_step_t *st = tn_sched_add(s, STEP_RECV);
    if (st != NULL) {
        st->sub = sub;
        st->comm = s->cur;
        st->rbuf = buf;
        st->rcount = count;
        st->rdt = dt;
        st->peer = peer;
        tn_sched_ref_dt(dt);
    }
}

void tn_sched_copy(tn_sched_t *s, const void *sbuf, size_t scount, const tn_dt_t *sdt,
                   void *rbuf, size_t rcount, const tn_dt_t *rdt)
{
    tn_step_t *st = tn_sched_add(s, STEP_COPY);
    if (st != NULL) {
        st->sbuf = sbuf;
        st->scount = scount;
        st->sdt = sdt;
        st->rbuf = rbuf;
        st->rcount = rcount;
        st->rdt = rdt;
        tn_sched_ref_dt(sdt);
        tn_sched_ref_dt(rdt);
    }
}

void tn_sched_reduce(tn_sched_t *s, const void *in, void *inout, size_t count,
                     const tn_dt_t *dt, const tn_op_t *op)
{
    tn_step_t *st = tn_sched_add(s, STEP_REDUCE);
    if (st != NULL) {
        st->sbuf = in;
        st->rbuf = inout;
        st->scount = count;
        st->sdt = dt;
        st->op = op;
        s->user_op |= !op->predefined;
        tn_sched_ref_dt(dt);
        tn_op_retain(op);
    }
}

void tn_sched_call(tn_sched_t *s, tn_sched_fn_t *fn, void *arg)
{
    tn_step_t *st = tn_sched_add(s, STEP_CALL);
    if (st != NULL) {
        st->fn = fn;
        st->arg = arg;
    }
}

void tn_sched_on_free(tn_sched_t *s, void (*fn)(void *arg), void *arg)
{
    s->cleanup = fn;
    s->cleanup_arg = arg;
}

void tn_sched_barrier(tn_sched_t *s)
{
    if (s->nsteps > 0 && s->steps[s->nsteps - 1].kind != STEP_END) {
        tn_sched_add(s, STEP_END);
    }
}

char *tn_sched_tmp(tn_sched_t *s, const tn_dt_t *dt, size_t count)
{
    if (s->err != TN_OK) {
        return NULL;
    }
    if (s->ntmps == s->tmpcap) {
        int cap = s->tmpcap ? 2 * s->tmpcap : 8;
        void **t = realloc(s->tmps, (size_t)cap * sizeof(*t));
        if (t == NULL) {
            s->err = TN_ERR_NOMEM;
            return NULL;
        }
        s->tmps = t;
        s->tmpcap = cap;
    }
    /* the data range and count * extent bytes from the address, like
     * tn_coll_tmp_dt (the pair-type kernels store whole structs) */
    ptrdiff_t lo, hi, whole = (ptrdiff_t)count * dt->extent;
    hi = (ptrdiff_t)tn_coll_true_range(dt, count, &lo) + lo;
    if (count > 0 && whole > hi) {
        hi = whole;
    }
    if (lo > 0) {
        lo = 0;
    }
    char *p = tn_coll_buf_get((size_t)(hi - lo) + 1);
    if (p == NULL) {
        s->err = TN_ERR_NOMEM;
        return NULL;
    }
    s->tmps[s->ntmps++] = p;
    return p - lo;
}

void tn_sched_free(tn_sched_t *s)
{
    if (s->cleanup != NULL) {
        s->cleanup(s->cleanup_arg);
    }
    for (int i = 0; i < s->nreqs; i++) {
        if (s->reqs[i] != NULL) {
            tn_req_free(s->reqs[i]);    /* only after an error: released when done */
        }
    }
    for (int i = 0; i < s->nsteps; i++) {
        tn_step_t *st = &s->steps[i];
        if (st->sdt != NULL) {
            tn_dt_release(st->sdt);
        }
        if (st->rdt != NULL) {
            tn_dt_release(st->rdt);
        }
        if (st->op != NULL) {
            tn_op_release(st->op);
        }
    }
    for (int i = 0; i < s->ntmps; i++) {
        tn_coll_buf_put(s->tmps[i]);
    }
    tn_comm_release(s->comm);
    free(s->steps);
    free(s->reqs);
    free(s->tmps);
    free(s);
}

/* ---- running ------------------------------------------------------------ */
static void tn_sched_unlink(tn_sched_t *s)
{
    if (s->aprev != NULL) {
        s->aprev->anext = s->anext;
    } else {
        tn_sched_active = s->anext;
    }
    if (s->anext != NULL) {
        s->anext->aprev = s->aprev;
    }
    s->anext = s->aprev = NULL;
    s->started = 0;
}

static tn_status_t tn_sched_post(tn_sched_t *s, tn_step_t *st)
{
    tn_req_t *r = NULL;
    tn_status_t rc;

    if (s->nreqs == s->reqcap) {
        int cap = s->reqcap ? 2 * s->reqcap : 8;
        tn_req_t **q = realloc(s->reqs, (size_t)cap * sizeof(*q));
        if (q == NULL) {
            return TN_ERR_NOMEM;
        }
        s->reqs = q;
        s->reqcap = cap;
    }
    if (st->kind == STEP_SEND) {
        rc = tn_p2p_isend(st->sbuf, st->scount, st->sdt, st->peer, s->tag + st->sub,
                          st->comm, 1, TN_SEND_STD, &r);
    } else {
        rc = tn_p2p_irecv(st->rbuf, st->rcount, st->rdt, st->peer, s->tag + st->sub,
                          st->comm, 1, &r);
    }
    if (rc == TN_OK) {
        s->reqs[s->nreqs++] = r;
    }
    return rc;
}

/* Run the next round's local steps and post its messages. */
static tn_status_t tn_sched_round(tn_sched_t *s)
{
    tn_status_t rc = TN_OK;

    while (s->next < s->nsteps && rc == TN_OK) {
        tn_step_t *st = &s->steps[s->next++];
        switch (st->kind) {
        case STEP_END:
            return TN_OK;
        case STEP_SEND:
        case STEP_RECV:
            rc = tn_sched_post(s, st);
            break;
        case STEP_COPY:
            rc = tn_coll_copy(st->sbuf, st->scount, st->sdt, st->rbuf, st->rcount, st->rdt,
                              s->comm);
            break;
        case STEP_REDUCE:
            rc = tn_op_apply(st->op, st->sdt, tn_coll_dt_handle(st->sdt), st->sbuf, st->rbuf,
                             st->scount);
            break;
        case STEP_CALL: {
            /* fn may add steps (and move s->steps): st is not used after */
            tn_sched_fn_t *fn = st->fn;
            rc = fn(s, st->arg);
            break;
        }
        }
    }
    return rc;
}

/* Advance s as far as it goes now; returns 1 if anything happened, and
 * completes the user request when the schedule is done. */
static int tn_sched_advance(tn_sched_t *s)
{
    int events = 0;

    for (;;) {
        int i;
        for (i = 0; i < s->nreqs; i++) {
            if (!tn_req_is_complete(s->reqs[i])) {
                return events;
            }
        }
        for (i = 0; i < s->nreqs; i++) {
            tn_status_t e = (tn_status_t)tn_req_status(s->reqs[i])->error;
            if (s->err == TN_OK && e != TN_OK) {
                s->err = e;
            }
            tn_req_free(s->reqs[i]);
            s->reqs[i] = NULL;
        }
        s->nreqs = 0;
        events++;
        if (s->err == TN_OK && s->next < s->nsteps) {
            s->err = tn_sched_round(s);
            if (s->err == TN_OK) {
                continue;
            }
        }
        if (s->err != TN_OK) {
            /* stop here: the messages already posted are left to finish
             * on their own (tn_req_free releases them when done) */
            for (i = 0; i < s->nreqs; i++) {
                tn_req_free(s->reqs[i]);
                s->reqs[i] = NULL;
            }
            s->nreqs = 0;
        }
        tn_sched_unlink(s);
        tn_req_generic_done(s->req, s->err);   /* may free s */
        return events;
    }
}

static tn_status_t tn_sched_start(tn_req_t *req)
{
    tn_sched_t *s = tn_req_callback_arg(req);

    s->next = 0;
    s->nreqs = 0;
    s->err = TN_OK;
    if (!s->persistent) {
        s->tag = TN_SCHED_TAG_BASE +
                 (int)(s->comm->coll_seq++ % TN_SCHED_TAG_SPAN) * TN_SCHED_TAG_SUBS;
    }
    s->started = 1;
    s->aprev = NULL;
    s->anext = tn_sched_active;
    if (tn_sched_active != NULL) {
        tn_sched_active->aprev = s;
    }
    tn_sched_active = s;
    tn_sched_advance(s);
    return TN_OK;
}

static void tn_sched_fini(tn_req_t *req)
{
    tn_sched_t *s = tn_req_callback_arg(req);
    if (s->started) {
        tn_sched_unlink(s);
    }
    tn_sched_free(s);
}

tn_status_t tn_sched_commit(tn_sched_t *s, int persistent, tn_req_t **req_p)
{
    tn_status_t rc = s->err;
    if (rc != TN_OK) {
        tn_sched_free(s);
        return rc;
    }
    tn_req_t *req = tn_req_new_generic(persistent, tn_sched_start, tn_sched_fini, s);
    if (req == NULL) {
        tn_sched_free(s);
        return TN_ERR_NOMEM;
    }
    s->req = req;
    s->persistent = persistent;
    if (persistent) {
        /* matched by initialization order: MPI lets ranks start persistent
         * collectives in different orders, but every rank initializes
         * them in the same order (the init calls are collectives) */
        s->tag = TN_SCHED_TAG_PBASE +
                 (int)(s->comm->coll_pseq++ % TN_SCHED_TAG_SPAN) * TN_SCHED_TAG_SUBS;
    }
    if (!persistent) {
        tn_sched_start(req);
    }
    *req_p = req;
    return TN_OK;
}

int tn_coll_sched_progress(void)
{
    int events = 0;
    tn_sched_t *s = tn_sched_active, *next;
    int async = tn_rt_async_self();

    for (; s != NULL; s = next) {
        next = s->anext;
        if (!(async && s->user_op)) {
            events += tn_sched_advance(s);
        }
    }
    return events;
}
