/* The message path (rma.h): the origin's requests and the target's server.
 *
 * The server of a window keeps one receive posted for the next request
 * (any origin, tag TN_RMA_TAG_REQ, TN_RMA_REQ_MAX bytes) and one for the
 * next control answer to my own requests.  tn_rma_progress, called by the
 * progress engine, serves every request that has arrived, in arrival
 * order, each to the end: a request whose data follows waits for that data
 * there (the progress engine keeps running the transports meanwhile; the
 * server does not run inside itself).  Requests from one origin are
 * therefore applied in the order they were sent, which is what makes a
 * FLUSH answer mean "everything before it is done". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/log.h"
#include "runtime/rt.h"
#include "rma/rma_impl.h"

static tn_win_t *tn_rma_servers;   /* every window with a server */
static int tn_rma_serving;         /* inside tn_rma_progress */

/* ---- in-flight requests ------------------------------------------------- */

static tn_status_t pend_add(tn_rma_pending_t **list, int target, tn_req_t *req, void *tmp,
                            tn_req_t *user)
{
    tn_rma_pending_t *p = malloc(sizeof(*p));
    if (p == NULL) {
        return TN_ERR_NOMEM;
    }
    p->req = req;
    p->target = target;
    p->tmp = tmp;
    p->user = user;
    p->next = *list;
    *list = p;
    return TN_OK;
}

/* Drop the completed entries (of target, or all: -1); returns how many of
 * target's are left and the first error seen. */
static int pend_reap(tn_rma_pending_t **list, int target, tn_status_t *st_p)
{
    int left = 0;
    for (tn_rma_pending_t **pp = list; *pp != NULL;) {
        tn_rma_pending_t *p = *pp;
        if (!tn_req_is_complete(p->req)) {
            left += target < 0 || p->target == target;
            pp = &p->next;
            continue;
        }
        if (st_p != NULL && *st_p == TN_OK && tn_req_status(p->req)->error != TN_OK) {
            *st_p = (tn_status_t)tn_req_status(p->req)->error;
        }
        if (p->user != NULL) {
            tn_req_finish(p->user);
        }
        tn_req_free(p->req);
        free(p->tmp);
        *pp = p->next;
        free(p);
    }
    return left;
}

typedef struct {
    tn_win_t   *win;
    int         target;
    tn_status_t st;
} tn_rma_drain_t;

static int drained(void *arg)
{
    tn_rma_drain_t *d = arg;
    return pend_reap(&d->win->opend, d->target, &d->st) == 0;
}

tn_status_t tn_rma_am_drain(tn_win_t *win, int target)
{
    tn_rma_drain_t d = { win, target, TN_OK };
    int lo = target < 0 ? 0 : target, hi = target < 0 ? win->comm->size : target + 1;
    for (int t = lo; t < hi; t++) {
        tn_status_t st = tn_rma_am_send(win, t);
        if (st != TN_OK && d.st == TN_OK) {
            d.st = st;
        }
    }
    if (!drained(&d)) {
        tn_rt_wait(drained, &d);
    }
    return d.st;
}

/* ---- origin side -------------------------------------------------------- */

static tn_status_t send_req(tn_win_t *win, int target, void *msg, size_t len, tn_req_t *user)
{
    tn_req_t *req = NULL;
    tn_status_t st = tn_p2p_isend(msg, len, tn_dt_byte(), target, TN_RMA_TAG_REQ, win->comm, 0,
                                  TN_SEND_STD, &req);
    if (st != TN_OK) {
        free(msg);
        return st;
    }
    st = pend_add(&win->opend, target, req, msg, user);
    if (st != TN_OK) {
        tn_req_wait(req, NULL);
        tn_req_free(req);
        free(msg);
    }
    return st;
}

/* ---- the batch of requests to one target ----------------------------- */

tn_status_t tn_rma_am_send(tn_win_t *win, int target)
{
    tn_rma_peer_t *p = &win->peers[target];
    if (p->batch_len == 0) {
        return TN_OK;
    }
    char *msg = p->batch;
    size_t len = p->batch_len;
    p->batch = NULL;
    p->batch_len = 0;
    return send_req(win, target, msg, len, NULL);
}

/* Room for a request of up to want bytes at the end of target's batch
 * (sent first when want does not fit after what it holds); NULL: out of
 * memory or the send failed (*st_p). */
static char *batch_room(tn_win_t *win, int target, size_t want, tn_status_t *st_p)
{
    tn_rma_peer_t *p = &win->peers[target];
    if (p->batch_len + want > TN_RMA_REQ_MAX && (*st_p = tn_rma_am_send(win, target)) != TN_OK) {
        return NULL;
    }
    if (p->batch == NULL && (p->batch = malloc(TN_RMA_REQ_MAX)) == NULL) {
        *st_p = TN_ERR_NOMEM;
        return NULL;
    }
    return p->batch + p->batch_len;
}

/* Close the request of len bytes at the end of target's batch: pad it. */
static void batch_add(tn_rma_peer_t *p, size_t len)
{
    memset(p->batch + p->batch_len + len, 0, TN_RMA_PADDED(len) - len);
    p->batch_len += TN_RMA_PADDED(len);
}

tn_status_t tn_rma_am_ctl(tn_win_t *win, int target, unsigned type, unsigned flags)
{
    tn_rma_peer_t *p = &win->peers[target];
    tn_status_t st = TN_OK;
    char *at = batch_room(win, target, TN_RMA_PADDED(sizeof(tn_rma_hdr_t)), &st);
    if (at == NULL) {
        return st;
    }
    tn_rma_hdr_t h = { .version = TN_RMA_PROTO_VERSION, .type = (uint8_t)type,
                       .flags = (uint8_t)flags };
    h.cookie = type == TN_RMA_COMPLETE ? 0 : ++p->ctl_sent;   /* COMPLETE: not answered */
    memcpy(at, &h, sizeof(h));
    batch_add(p, sizeof(h));
    return tn_rma_am_send(win, target);
}

typedef struct {
    tn_win_t *win;
    int       target;
} tn_rma_ctl_wait_t;

static int ctl_caught_up(void *arg)
{
    tn_rma_ctl_wait_t *w = arg;
    const tn_rma_peer_t *p = &w->win->peers[w->target];
    return (int32_t)(p->ctl_seen - p->ctl_sent) >= 0;
}

void tn_rma_am_wait_ctl(tn_win_t *win, int target)
{
    tn_rma_ctl_wait_t w = { win, target };
    if (!ctl_caught_up(&w)) {
        tn_rt_wait(ctl_caught_up, &w);
    }
}

typedef struct {
    tn_rma_seg_t  *segs;
    uint32_t       n, cap;
    /* elem_add: the padded element type and where its walk stands */
    const tn_dt_t *basic;
    size_t         piece, rem;
} tn_rma_segs_t;

static int seg_add(ptrdiff_t off, size_t len, void *arg)
{
    tn_rma_segs_t *s = arg;
    if (s->n == s->cap) {
        return 1;
    }
    s->segs[s->n].off = off;
    s->segs[s->n].len = len;
    s->n++;
    return 0;
}

/* The segments of a layout of padded elements (pair types), in type-map
 * order, give one entry per element: where it starts (its first piece
 * minus that piece's offset) and its data bytes. */
static int elem_add(ptrdiff_t off, size_t len, void *arg)
{
    tn_rma_segs_t *s = arg;
    const tn_dt_t *b = s->basic;
    while (len > 0) {
        if (s->piece == 0 && s->rem == b->segs[0].len) {
            if (s->n == s->cap) {
                return 1;
            }
            s->segs[s->n].off = off - b->segs[0].off;
            s->segs[s->n].len = b->size;
            s->n++;
        }
        size_t take = len < s->rem ? len : s->rem;
        off += (ptrdiff_t)take;
        len -= take;
        s->rem -= take;
        if (s->rem == 0) {
            s->piece = (s->piece + 1) % b->nsegs;
            s->rem = b->segs[s->piece].len;
        }
    }
    return 0;
}

/* What a request of op needs besides its segments. */
typedef struct {
    size_t         bytes;      /* data bytes of the target layout */
    const tn_dt_t *basic;      /* ACC/GACC/CAS: element type */
    int            elems;      /* one segment per padded element */
    int            has_data;   /* origin data travels (inline or apart) */
    int            apart;      /* ... as a second message */
} tn_rma_shape_t;

/* Encode op as one request at buf, cap bytes of room: its length, or 0
 * when it does not fit there. */
static size_t encode(const tn_win_t *win, const tn_rma_op_t *op, const tn_rma_shape_t *sh,
                     char *buf, size_t cap)
{
    static const uint8_t wire[] = { [TN_RMA_OP_PUT] = TN_RMA_PUT, [TN_RMA_OP_GET] = TN_RMA_GET,
                                    [TN_RMA_OP_ACC] = TN_RMA_ACC, [TN_RMA_OP_GACC] = TN_RMA_GACC,
                                    [TN_RMA_OP_CAS] = TN_RMA_CAS };
    size_t hdr = sizeof(tn_rma_hdr_t);
    if (cap < hdr + sizeof(tn_rma_seg_t)) {
        return 0;
    }
    tn_rma_segs_t segs = { (tn_rma_seg_t *)(void *)(buf + hdr), 0,
                           (uint32_t)((cap - hdr) / sizeof(tn_rma_seg_t)) };
    if (sh->elems) {
        segs.basic = sh->basic;
        segs.rem = sh->basic->segs[0].len;
    }
    if (tn_dt_foreach_seg(op->tdt, op->tcount, sh->elems ? elem_add : seg_add, &segs) != 0) {
        return 0;
    }
    size_t len = hdr + segs.n * sizeof(tn_rma_seg_t);
    size_t inline_bytes = op->kind == TN_RMA_OP_CAS ? 2 * sh->bytes
                          : sh->has_data && !sh->apart ? sh->bytes : 0;
    if (TN_RMA_PADDED(len + inline_bytes) > cap) {
        return 0;
    }
    tn_rma_hdr_t h = { .version = TN_RMA_PROTO_VERSION, .type = wire[op->kind],
                       .nsegs = segs.n, .bytes = sh->bytes };
    h.disp = (uint64_t)(op->disp * win->peers[op->target].disp_unit);
    h.op = op->op != NULL ? op->op->handle : 0;
    h.basic = sh->basic != NULL ? sh->basic->handle : 0;
    h.flags = (uint8_t)((sh->apart ? TN_RMA_F_DATA : 0) | (sh->elems ? TN_RMA_F_ELEMS : 0));
    memcpy(buf, &h, sizeof(h));
    if (op->kind == TN_RMA_OP_CAS) {
        memcpy(buf + len, op->caddr, sh->bytes);
        memcpy(buf + len + sh->bytes, op->oaddr, sh->bytes);
    } else if (inline_bytes != 0) {
        tn_dt_pack(op->odt, op->oaddr, op->ocount, buf + len);
    }
    return len + inline_bytes;
}

/* The request's segment count alone, for the size decisions. */
static int count_seg(ptrdiff_t off, size_t len, void *arg)
{
    (void)off;
    (void)len;
    ++*(size_t *)arg;
    return 0;
}

tn_status_t tn_rma_am_op(tn_win_t *win, const tn_rma_op_t *op, tn_req_t *user)
{
    int t = op->target;
    tn_rma_peer_t *p = &win->peers[t];
    int fetch = op->kind == TN_RMA_OP_GET || op->kind == TN_RMA_OP_GACC ||
                op->kind == TN_RMA_OP_CAS;
    int no_op = op->op != NULL && op->op->handle == TN_OP_H_NO_OP;
    tn_rma_shape_t sh = { .bytes = tn_dt_bytes(op->tdt, op->tcount) };
    tn_status_t st = TN_OK;

    if (sh.bytes == 0) {
        if (user != NULL) {
            tn_req_finish(user);
        }
        return TN_OK;
    }
    if (op->kind == TN_RMA_OP_ACC || op->kind == TN_RMA_OP_GACC || op->kind == TN_RMA_OP_CAS) {
        sh.basic = op->tdt->basic;
        if (sh.basic == NULL || (!sh.basic->is_contig && op->kind == TN_RMA_OP_CAS)) {
            return TN_ERR_UNSUPPORTED;
        }
    }
    sh.elems = sh.basic != NULL && !sh.basic->is_contig;
    sh.has_data = (op->kind == TN_RMA_OP_PUT || op->kind == TN_RMA_OP_ACC ||
                   op->kind == TN_RMA_OP_GACC) && !no_op;
    /* the segments must fit one message; the data goes apart when it
     * would not fit beside them */
    size_t max_segs = (TN_RMA_REQ_MAX - sizeof(tn_rma_hdr_t)) / sizeof(tn_rma_seg_t);
    size_t nsegs = 0;
    if (sh.elems) {
        nsegs = sh.bytes / sh.basic->size;
    } else {
        tn_dt_foreach_seg(op->tdt, op->tcount, count_seg, &nsegs);
    }
    if (nsegs > max_segs) {
        tn_log_error("rma", "a target datatype of more than %zu pieces to a target "
                     "reached by messages", max_segs);
        return TN_ERR_UNSUPPORTED;
    }
    sh.apart = sh.has_data &&
               sh.bytes > TN_RMA_REQ_MAX - sizeof(tn_rma_hdr_t) - nsegs * sizeof(tn_rma_seg_t);
    /* at the end of the batch, or (it was full) first in an empty one,
     * where it always fits */
    size_t len = 0;
    char *at = batch_room(win, t, 0, &st);
    if (at != NULL && (len = encode(win, op, &sh, at, TN_RMA_REQ_MAX - p->batch_len)) == 0) {
        if ((st = tn_rma_am_send(win, t)) == TN_OK &&
            (at = batch_room(win, t, 0, &st)) != NULL) {
            len = encode(win, op, &sh, at, TN_RMA_REQ_MAX);
        }
    }
    if (len == 0) {
        return st != TN_OK ? st : TN_ERR_INTERNAL;
    }
    /* the result's receive before the request, so it lands in place */
    if (fetch) {
        tn_req_t *rreq = NULL;
        void *dst = op->kind == TN_RMA_OP_GET ? (void *)op->oaddr : op->raddr;
        size_t cnt = op->kind == TN_RMA_OP_GET ? op->ocount : op->rcount;
        const tn_dt_t *dt = op->kind == TN_RMA_OP_GET ? op->odt : op->rdt;
        st = tn_p2p_irecv(dst, cnt, dt, t, TN_RMA_TAG_RESULT, win->comm, 0, &rreq);
        if (st == TN_OK && (st = pend_add(&win->opend, t, rreq, NULL, user)) != TN_OK) {
            tn_p2p_cancel(rreq);
            tn_req_free(rreq);
        }
        if (st != TN_OK) {
            return st;
        }
        user = NULL;
    }
    batch_add(p, len);
    if (!fetch) {
        p->dirty = 1;
    }
    if (!fetch && !sh.apart) {
        /* copied: complete at the origin; the batch leaves later */
        if (user != NULL) {
            tn_req_finish(user);
        }
        return TN_OK;
    }
    st = tn_rma_am_send(win, t);
    if (st == TN_OK && sh.apart) {
        tn_req_t *dreq = NULL;
        st = tn_p2p_isend(op->oaddr, op->ocount, op->odt, t, TN_RMA_TAG_DATA, win->comm, 0,
                          TN_SEND_STD, &dreq);
        if (st == TN_OK && (st = pend_add(&win->opend, t, dreq, NULL, user)) != TN_OK) {
            tn_req_wait(dreq, NULL);
            tn_req_free(dreq);
        }
    }
    return st;
}

/* ---- the server --------------------------------------------------------- */

static tn_status_t post_rx(tn_win_t *win)
{
    return tn_p2p_irecv(win->rxbuf, TN_RMA_REQ_MAX, tn_dt_byte(), TN_ANY_SOURCE,
                        TN_RMA_TAG_REQ, win->comm, 0, &win->rx);
}

static tn_status_t post_ctl(tn_win_t *win)
{
    return tn_p2p_irecv(win->ctl_buf, sizeof(win->ctl_buf), tn_dt_byte(), TN_ANY_SOURCE,
                        TN_RMA_TAG_CTL, win->comm, 0, &win->ctl_rx);
}

tn_status_t tn_rma_am_start(tn_win_t *win)
{
    tn_status_t st;

    win->rxbuf = malloc(TN_RMA_REQ_MAX);
    if (win->rxbuf == NULL) {
        return TN_ERR_NOMEM;
    }
    if ((st = post_rx(win)) != TN_OK) {
        goto err_buf;
    }
    if ((st = post_ctl(win)) != TN_OK) {
        goto err_rx;
    }
    win->next = tn_rma_servers;
    tn_rma_servers = win;
    return TN_OK;
err_rx:
    tn_p2p_cancel(win->rx);
    tn_req_free(win->rx);
err_buf:
    free(win->rxbuf);
    return st;
}

void tn_rma_am_stop(tn_win_t *win)
{
    for (tn_win_t **pp = &tn_rma_servers; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == win) {
            *pp = win->next;
            break;
        }
    }
    tn_req_t *rx[2] = { win->rx, win->ctl_rx };
    for (int i = 0; i < 2; i++) {
        if (rx[i] != NULL) {
            tn_p2p_cancel(rx[i]);
            tn_req_wait(rx[i], NULL);
            tn_req_free(rx[i]);
        }
    }
    while (pend_reap(&win->spend, -1, NULL) > 0) {
        tn_progress();
    }
    while (win->waiters != NULL) {
        tn_rma_waiter_t *w = win->waiters;
        win->waiters = w->next;
        free(w);
    }
    free(win->rxbuf);
}

/* An answer from the server (result or control word), sent from tmp (owned). */
static void answer(tn_win_t *win, int origin, int tag, const void *buf, size_t len, void *tmp)
{
    tn_req_t *req = NULL;
    tn_status_t st = tn_p2p_isend(buf, len, tn_dt_byte(), origin, tag, win->comm, 0,
                                  TN_SEND_STD, &req);
    if (st == TN_OK) {
        st = pend_add(&win->spend, origin, req, tmp, NULL);
        if (st == TN_OK) {
            return;
        }
        tn_req_wait(req, NULL);
        tn_req_free(req);
    }
    free(tmp);
    tn_log_error("rma", "cannot answer rank %d: %s", origin, tn_status_str(st));
}

static void answer_ctl(tn_win_t *win, int origin, unsigned type, uint64_t cookie)
{
    uint64_t *w = malloc(2 * sizeof(*w));
    if (w == NULL) {
        tn_log_error("rma", "cannot answer rank %d: out of memory", origin);
        return;
    }
    w[0] = type;
    w[1] = cookie;
    answer(win, origin, TN_RMA_TAG_CTL, w, 2 * sizeof(*w), w);
}

static void grant_waiters(tn_win_t *win)
{
    for (tn_rma_waiter_t **pp = &win->waiters; *pp != NULL;) {
        tn_rma_waiter_t *w = *pp;
        if (!tn_rma_lock_try(win->lockp, w->exclusive)) {
            if (w->exclusive) {
                break;          /* first come: no one overtakes an exclusive waiter */
            }
            pp = &w->next;
            continue;
        }
        answer_ctl(win, w->origin, TN_RMA_LOCK, w->cookie);
        __atomic_fetch_sub(&win->lockp->waiting, 1, __ATOMIC_SEQ_CST);
        *pp = w->next;
        free(w);
    }
}

static void violation(tn_win_t *win, int origin, const char *why)
{
    char msg[256];
    snprintf(msg, sizeof(msg), "rank %d (world) sent a one-sided request %s",
             tn_comm_world_rank(win->comm, origin), why);
    tn_rt_abort(1, msg);
}

/* The data of r: inline, or received now into tmp (returned, caller frees). */
static const char *req_data(tn_win_t *win, int origin, const tn_rma_req_t *r, char **tmp_p)
{
    *tmp_p = NULL;
    if (!(r->flags & TN_RMA_F_DATA)) {
        return r->data;
    }
    char *tmp = malloc(r->bytes);
    if (tmp == NULL) {
        tn_rt_abort(1, "out of memory receiving one-sided data");
    }
    tn_msg_status_t ms;
    tn_status_t st = tn_p2p_recv(tmp, r->bytes, tn_dt_byte(), origin, TN_RMA_TAG_DATA,
                                 win->comm, 0, &ms);
    if (st != TN_OK || ms.bytes != r->bytes) {
        violation(win, origin, "whose data did not match its size (field bytes)");
    }
    *tmp_p = tmp;
    return tmp;
}

/* Copy between the packed stream and the window segments. */
static void scatter(const tn_rma_req_t *r, const char *in)
{
    for (uint32_t i = 0; i < r->nsegs; i++) {
        memcpy(r->at + r->segs[i].off, in, r->segs[i].len);
        in += r->segs[i].len;
    }
}

static void gather(const tn_rma_req_t *r, char *out)
{
    if (r->flags & TN_RMA_F_ELEMS) {
        for (uint32_t i = 0; i < r->nsegs; i++) {
            tn_dt_pack(r->basic, r->at + r->segs[i].off, 1, out + i * r->basic->size);
        }
        return;
    }
    for (uint32_t i = 0; i < r->nsegs; i++) {
        memcpy(out, r->at + r->segs[i].off, r->segs[i].len);
        out += r->segs[i].len;
    }
}

static void accumulate(const tn_rma_req_t *r, const char *in)
{
    if (r->flags & TN_RMA_F_ELEMS) {
        /* one padded element at a time, unpacked into its own layout */
        _Alignas(16) char tmp[64];
        if ((size_t)r->basic->extent > sizeof(tmp) || r->op->handle == TN_OP_H_NO_OP) {
            return;
        }
        for (uint32_t i = 0; i < r->nsegs; i++, in += r->basic->size) {
            char *at = r->at + r->segs[i].off;
            if (r->op->handle == TN_OP_H_REPLACE) {
                tn_dt_unpack(r->basic, in, 1, at);
                continue;
            }
            tn_dt_unpack(r->basic, in, 1, tmp);
            (void)tn_op_apply(r->op, r->basic, r->basic->handle, tmp, at, 1);
        }
        return;
    }
    for (uint32_t i = 0; i < r->nsegs; i++) {
        char *at = r->at + r->segs[i].off;
        size_t len = r->segs[i].len;
        if (r->op->handle == TN_OP_H_REPLACE) {
            memcpy(at, in, len);
        } else if (r->op->handle != TN_OP_H_NO_OP) {
            (void)tn_op_apply(r->op, r->basic, r->basic->handle, in, at, len / r->basic->size);
        }
        in += len;
    }
}

/* Carry out one decoded request of origin. */
static void serve_one(tn_win_t *win, int origin, const tn_rma_req_t *req)
{
    tn_rma_req_t r = *req;
    char *tmp = NULL;

    switch (r.type) {
    case TN_RMA_PUT:
        if ((r.flags & TN_RMA_F_DATA) && r.nsegs == 1) {
            tn_msg_status_t ms;
            tn_status_t st = tn_p2p_recv(r.at + r.segs[0].off, r.bytes, tn_dt_byte(), origin,
                                         TN_RMA_TAG_DATA, win->comm, 0, &ms);
            if (st != TN_OK || ms.bytes != r.bytes) {
                violation(win, origin, "whose data did not match its size (field bytes)");
            }
            break;
        }
        scatter(&r, req_data(win, origin, &r, &tmp));
        break;
    case TN_RMA_ACC: {
        const char *in = req_data(win, origin, &r, &tmp);
        tn_rma_acc_lock(win->lockp);
        accumulate(&r, in);
        tn_rma_acc_unlock(win->lockp);
        break;
    }
    case TN_RMA_GET:
        if (r.nsegs == 1) {
            answer(win, origin, TN_RMA_TAG_RESULT, r.at + r.segs[0].off, r.bytes, NULL);
        } else if ((tmp = malloc(r.bytes)) != NULL) {
            gather(&r, tmp);
            answer(win, origin, TN_RMA_TAG_RESULT, tmp, r.bytes, tmp);
            tmp = NULL;
        } else {
            tn_rt_abort(1, "out of memory answering a one-sided get");
        }
        break;
    case TN_RMA_GACC:
    case TN_RMA_CAS: {
        const char *in = r.type == TN_RMA_GACC ? req_data(win, origin, &r, &tmp) : r.data;
        char *old = malloc(r.bytes);
        if (old == NULL) {
            tn_rt_abort(1, "out of memory answering a one-sided fetch");
        }
        tn_rma_acc_lock(win->lockp);
        gather(&r, old);
        if (r.type == TN_RMA_GACC) {
            accumulate(&r, in);
        } else if (memcmp(old, in, r.bytes) == 0) {
            memcpy(r.at + r.segs[0].off, in + r.bytes, r.bytes);
        }
        tn_rma_acc_unlock(win->lockp);
        answer(win, origin, TN_RMA_TAG_RESULT, old, r.bytes, old);
        break;
    }
    case TN_RMA_FLUSH:
        answer_ctl(win, origin, TN_RMA_FLUSH, r.cookie);
        break;
    case TN_RMA_LOCK: {
        int excl = (r.flags & TN_RMA_F_EXCLUSIVE) != 0;
        if (win->waiters == NULL && tn_rma_lock_try(win->lockp, excl)) {
            answer_ctl(win, origin, TN_RMA_LOCK, r.cookie);
            break;
        }
        tn_rma_waiter_t *w = calloc(1, sizeof(*w)), **pp = &win->waiters;
        if (w == NULL) {
            tn_rt_abort(1, "out of memory queueing a one-sided lock");
        }
        w->origin = origin;
        w->exclusive = excl;
        w->cookie = r.cookie;
        while (*pp != NULL) {
            pp = &(*pp)->next;
        }
        *pp = w;
        /* a rank of the node releasing the lock wakes me to grant it */
        __atomic_fetch_add(&win->lockp->waiting, 1, __ATOMIC_SEQ_CST);
        break;
    }
    case TN_RMA_UNLOCK:
        tn_rma_lock_release(win, win->lockp);
        answer_ctl(win, origin, TN_RMA_UNLOCK, r.cookie);
        grant_waiters(win);
        break;
    case TN_RMA_COMPLETE:
        win->completes++;
        break;
    default:
        break;
    }
    free(tmp);
}

/* Every request of one message, in order. */
static void serve(tn_win_t *win, int origin, const char *msg, size_t len)
{
    size_t used = 0;
    if (len == 0) {
        violation(win, origin, "with no request in its message (field bytes)");
    }
    for (size_t off = 0; off < len; off += used) {
        /* attached regions may change between requests (the decode looks
         * them up; a detach is only legal outside epochs) */
        tn_rma_mem_t mem = { (uintptr_t)win->base, win->size, win->regions, win->nregions,
                             win->flavor == TN_WIN_DYNAMIC };
        tn_rma_req_t r;
        const char *why = NULL;
        if (tn_rma_decode(msg + off, len - off, &mem, &r, &used, &why) != TN_OK) {
            violation(win, origin, why);
        }
        serve_one(win, origin, &r);
    }
}

static int serve_window(tn_win_t *win)
{
    int n = 0;
    while (win->rx != NULL && tn_req_is_complete(win->rx)) {
        tn_msg_status_t ms = *tn_req_status(win->rx);
        tn_req_free(win->rx);
        win->rx = NULL;
        if (ms.error != TN_OK) {
            violation(win, ms.source, "longer than any request (field bytes)");
        }
        /* the next one may already wait: keep its buffer apart from this one */
        char *msg = win->rxbuf;
        win->rxbuf = malloc(TN_RMA_REQ_MAX);
        if (win->rxbuf == NULL || post_rx(win) != TN_OK) {
            tn_rt_abort(1, "out of memory in the one-sided server");
        }
        serve(win, ms.source, msg, (size_t)ms.bytes);
        free(msg);
        n++;
    }
    while (win->ctl_rx != NULL && tn_req_is_complete(win->ctl_rx)) {
        tn_msg_status_t ms = *tn_req_status(win->ctl_rx);
        tn_req_free(win->ctl_rx);
        win->ctl_rx = NULL;
        if (ms.error != TN_OK || ms.source < 0 || ms.source >= win->comm->size) {
            violation(win, ms.source, "answer of the wrong size (field bytes)");
        }
        tn_rma_peer_t *p = &win->peers[ms.source];
        const char *why = NULL;
        if (tn_rma_ctl_decode(win->ctl_buf, (size_t)ms.bytes, p->ctl_sent, p->ctl_seen,
                              &why) != TN_OK) {
            violation(win, ms.source, why);
        }
        p->ctl_seen++;
        if (post_ctl(win) != TN_OK) {
            tn_rt_abort(1, "out of memory in the one-sided server");
        }
        n++;
    }
    if (win->waiters != NULL) {
        grant_waiters(win);
    }
    if (win->spend != NULL) {
        pend_reap(&win->spend, -1, NULL);
    }
    if (win->opend != NULL) {
        pend_reap(&win->opend, -1, NULL);   /* finishes R* requests */
    }
    return n;
}

int tn_rma_progress(void)
{
    int n = 0;
    if (tn_rma_serving || tn_rma_servers == NULL) {
        return 0;
    }
    tn_rma_serving = 1;
    for (tn_win_t *w = tn_rma_servers; w != NULL; w = w->next) {
        n += serve_window(w);
    }
    tn_rma_serving = 0;
    return n;
}
