/* The point-to-point API over the protocols and matching. */
#include "p2p/p2p_impl.h"
#include "base/config.h"
#include "base/counters.h"
#include "base/log.h"
#include "base/monitor.h"
#include "runtime/rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tn_status_t tn_p2p_init(void)
{
    tn_p2p_st = tn_mon_home(TN_CTR_SET_P2P, tn_p2p_st);
    tn_ctr_attach(TN_CTR_SET_P2P, tn_p2p_st);
    tn_ctr_attach(TN_CTR_SET_MSG, tn_mon.msg);
    return tn_proto_init(tn_rt.world_size, tn_rt.world_rank);
}

tn_status_t tn_p2p_peers_grow(int nprocs)
{
    return tn_proto_grow(nprocs);
}

void tn_p2p_finalize(void)
{
    tn_proto_finalize();
    tn_match_finalize();
}

static int tn_p2p_quiet(void *arg)
{
    return tn_sends_inflight == 0 && tn_peers_pending == 0;
}

void tn_p2p_flush(void)
{
    if (!tn_p2p_quiet(NULL)) {
        tn_rt_wait(tn_p2p_quiet, NULL);
    }
}

int tn_p2p_progress(void)
{
    return tn_proto_progress_sends();
}

tn_status_t tn_p2p_comm_attach(tn_comm_t *comm)
{
    for (int i = 0; i < 2; i++) {
        comm->match[i] = tn_match_ctx_get(comm->ctx + (uint32_t)i, 1);
        if (comm->match[i] == NULL) {
            return TN_ERR_NOMEM;
        }
        comm->match[i]->comm = comm;
    }
    return TN_OK;
}

void tn_p2p_comm_detach(tn_comm_t *comm)
{
    for (int i = 0; i < 2; i++) {
        if (comm->match[i] != NULL) {
            comm->match[i]->comm = NULL;
            comm->match[i] = NULL;
        }
    }
}

static struct tn_req *tn_req_null_completed(tn_req_kind_t kind)
{
    struct tn_req *req = tn_req_alloc(kind);
    if (req == NULL) {
        return NULL;
    }
    req->status.source = TN_PROC_NULL;
    req->status.tag = TN_ANY_TAG;
    req->status.error = TN_OK;
    req->status.bytes = 0;
    req->complete = 1;
    return req;
}

/* Fill the send fields of req (shared by isend and persistent starts). */
static tn_status_t tn_send_setup(struct tn_req *req)
{
    const tn_dt_t *dt = req->dt;
    req->bytes = tn_dt_bytes(dt, req->count);
    req->buf = (void *)req->user_buf;
    req->pack = !dt->is_contig && req->bytes > 0;   /* packed piece by piece */
    req->world = tn_comm_world_rank(req->comm, req->peer);
    return TN_OK;
}

static tn_status_t tn_send_go(struct tn_req *req)
{
    tn_status_t st = tn_send_setup(req);
    if (st == TN_OK) {
        st = tn_proto_send_start(req);
    }
    if (tn_rt.thread_multiple && req->world == tn_rt.world_rank) {
        tn_xport_shm_wake_self();    /* another thread may wait for it */
    }
    return st;
}

tn_status_t tn_p2p_isend(const void *buf, size_t count, const tn_dt_t *dt, int dest,
                         int tag, tn_comm_t *comm, int coll, tn_send_mode_t mode,
                         tn_req_t **req_p)
{
    if (dest == TN_PROC_NULL) {
        struct tn_req *req = tn_req_null_completed(TN_REQ_SEND);
        if (req == NULL) {
            return TN_ERR_NOMEM;
        }
        *req_p = req;
        return TN_OK;
    }
    struct tn_req *req = tn_req_alloc(TN_REQ_SEND);
    if (req == NULL) {
        return TN_ERR_NOMEM;
    }
    tn_comm_retain(comm);
    req->comm = comm;
    req->coll = (uint8_t)(coll & 1);
    req->peer = dest;
    req->tag = tag;
    req->dt = dt;
    tn_dt_retain(dt);
    req->count = count;
    req->user_buf = (void *)buf;
    req->mode = mode;
    req->status.source = comm->rank;
    req->status.tag = tag;
    tn_req_pending_add(req);
    tn_status_t st = tn_send_go(req);
    if (st != TN_OK) {
        tn_req_release(req);
        return st;
    }
    *req_p = req;
    return TN_OK;
}

static tn_status_t tn_recv_go(struct tn_req *req)
{
    const tn_dt_t *dt = req->dt;
    req->bytes = tn_dt_bytes(dt, req->count);
    req->buf = req->user_buf;
    req->status.error = TN_OK;
    req->pack = !dt->is_contig && req->bytes > 0;   /* unpacked piece by piece */
    tn_match_ctx_t *mc = req->comm->match[req->coll];
    tn_unexp_t *ux = tn_match_unexp_find(mc, req->peer, req->tag, 1);
    if (ux != NULL) {
        tn_proto_recv_unexp(req, ux);
    } else {
        tn_match_post(mc, req);
    }
    return TN_OK;
}

tn_status_t tn_p2p_irecv(void *buf, size_t count, const tn_dt_t *dt, int src, int tag,
                         tn_comm_t *comm, int coll, tn_req_t **req_p)
{
    if (src == TN_PROC_NULL) {
        struct tn_req *req = tn_req_null_completed(TN_REQ_RECV);
        if (req == NULL) {
            return TN_ERR_NOMEM;
        }
        *req_p = req;
        return TN_OK;
    }
    struct tn_req *req = tn_req_alloc(TN_REQ_RECV);
    if (req == NULL) {
        return TN_ERR_NOMEM;
    }
    tn_comm_retain(comm);
    req->comm = comm;
    req->coll = (uint8_t)(coll & 1);
    req->pull = (coll & TN_P2P_PULL) != 0;
    req->peer = src;
    req->tag = tag;
    req->dt = dt;
    tn_dt_retain(dt);
    req->count = count;
    req->user_buf = buf;
    tn_req_pending_add(req);
    tn_status_t st = tn_recv_go(req);
    if (st != TN_OK) {
        tn_req_release(req);
        return st;
    }
    *req_p = req;
    return TN_OK;
}

tn_status_t tn_p2p_send(const void *buf, size_t count, const tn_dt_t *dt, int dest,
                        int tag, tn_comm_t *comm, int coll)
{
    if (dest == TN_PROC_NULL) {
        return TN_OK;
    }
    /* Fast path: a small contiguous message that fits one piece leaves
     * without a request when nothing is queued ahead of it. */
    size_t bytes = tn_dt_bytes(dt, count);
    int world = tn_comm_world_rank(comm, dest);
    tn_peer_t *peer = &tn_peers[world];
    if (dt->is_contig && peer->xp != NULL && peer->sq_head == NULL &&
        bytes <= peer->max_payload && bytes <= peer->eager_limit &&
        !(tn_rt.thread_multiple && world == tn_rt.world_rank)) {
        tn_am_hdr_t hdr;
        hdr.type = TN_AM_EAGER;
        hdr.flags = 0;
        hdr.rsv = 0;
        hdr.src = comm->rank;
        hdr.ctx = comm->ctx + (uint32_t)coll;
        hdr.tag = tag;
        hdr.size = bytes;
        hdr.sreq = hdr.rreq = hdr.addr = 0;
        tn_status_t st;
        if (bytes <= peer->tiny_limit) {
            hdr.flags = TN_AM_F_INLINE;
            if (bytes > 0) {
                memcpy(&hdr.sreq, buf, bytes);
            }
            st = peer->xp->am_send(world, &hdr, NULL, 0);
        } else {
            struct iovec iov = { (void *)buf, bytes };
            st = peer->xp->am_send(world, &hdr, &iov, 1);
        }
        if (st == TN_OK) {
            tn_mon_sent(world, coll ? TN_MON_COLL : comm->mon_class, TN_MON_EAGER, bytes);
            return TN_OK;
        }
        if (st != TN_ERR_AGAIN) {
            return st;
        }
    }
    tn_req_t *req;
    tn_status_t st = tn_p2p_isend(buf, count, dt, dest, tag, comm, coll, TN_SEND_STD, &req);
    if (st != TN_OK) {
        return st;
    }
    st = tn_req_wait(req, NULL);
    tn_req_release(req);
    return st;
}

tn_status_t tn_p2p_recv(void *buf, size_t count, const tn_dt_t *dt, int src, int tag,
                        tn_comm_t *comm, int coll, tn_msg_status_t *status_p)
{
    tn_req_t *req;
    tn_status_t st = tn_p2p_irecv(buf, count, dt, src, tag, comm, coll, &req);
    if (st != TN_OK) {
        return st;
    }
    st = tn_req_wait(req, status_p);
    tn_req_release(req);
    return st;
}

tn_status_t tn_p2p_sendrecv(const void *sbuf, size_t scount, const tn_dt_t *sdt, int dest,
                            int stag, void *rbuf, size_t rcount, const tn_dt_t *rdt,
                            int src, int rtag, tn_comm_t *comm, int coll,
                            tn_msg_status_t *status_p)
{
    tn_req_t *reqs[2];
    tn_status_t st = tn_p2p_irecv(rbuf, rcount, rdt, src, rtag, comm, coll, &reqs[0]);
    if (st != TN_OK) {
        return st;
    }
    st = tn_p2p_isend(sbuf, scount, sdt, dest, stag, comm, coll, TN_SEND_STD, &reqs[1]);
    if (st != TN_OK) {
        tn_req_wait(reqs[0], NULL);
        tn_req_release(reqs[0]);
        return st;
    }
    tn_status_t rst = tn_req_wait(reqs[0], status_p);
    tn_status_t sst = tn_req_wait(reqs[1], NULL);
    tn_req_release(reqs[0]);
    tn_req_release(reqs[1]);
    return rst != TN_OK ? rst : sst;
}

/* ------------------------------------------------------------ isendrecv */

/* The outer request of tn_p2p_isendrecv: a generic request whose `count`
 * holds the halves still running, `inner` the receive while it runs (for
 * cancel), and `tag` the send's error until completion.  The halves' own
 * completion callbacks release them. */
static void tn_isr_half_done(tn_req_t *half)
{
    struct tn_req *outer = half->cb_arg;
    if (half->kind == TN_REQ_RECV) {
        outer->status = half->status;
        outer->inner = NULL;
    } else if (half->status.error != TN_OK) {
        outer->tag = half->status.error;
    }
    tn_req_release(half);
    if (--outer->count == 0) {
        if (outer->status.error == TN_OK && outer->tag != TN_OK) {
            outer->status.error = outer->tag;
        }
        tn_req_complete(outer);
    }
}

static void tn_isr_attach(struct tn_req *outer, tn_req_t *half)
{
    if (half->complete) {
        half->cb_arg = outer;
        tn_isr_half_done(half);
    } else {
        tn_req_set_callback(half, tn_isr_half_done, outer);
    }
}

tn_status_t tn_p2p_isendrecv(const void *sbuf, size_t scount, const tn_dt_t *sdt, int dest,
                             int stag, void *rbuf, size_t rcount, const tn_dt_t *rdt, int src,
                             int rtag, tn_comm_t *comm, void *owned, tn_req_t **req_p)
{
    struct tn_req *outer = tn_req_alloc(TN_REQ_GENERIC);
    if (outer == NULL) {
        return TN_ERR_NOMEM;
    }
    tn_req_t *r, *s;
    tn_status_t st = tn_p2p_irecv(rbuf, rcount, rdt, src, rtag, comm, 0, &r);
    if (st != TN_OK) {
        tn_req_release(outer);
        return st;
    }
    st = tn_p2p_isend(sbuf, scount, sdt, dest, stag, comm, 0, TN_SEND_STD, &s);
    if (st != TN_OK) {
        if (!tn_p2p_cancel(r)) {
            tn_req_wait(r, NULL);
        }
        tn_req_release(r);
        tn_req_release(outer);
        return st;
    }
    outer->pack_buf = owned;       /* freed with the request */
    outer->count = 2;
    outer->tag = TN_OK;
    outer->inner = r->complete ? NULL : r;
    tn_isr_attach(outer, r);
    tn_isr_attach(outer, s);
    *req_p = outer;
    return TN_OK;
}

/* ------------------------------------------------------------ persistent */

tn_status_t tn_p2p_persistent_init(int is_send, const void *buf, size_t count,
                                   const tn_dt_t *dt, int peer, int tag, tn_comm_t *comm,
                                   tn_send_mode_t mode, tn_req_t **req_p)
{
    struct tn_req *req = tn_req_alloc(is_send ? TN_REQ_SEND : TN_REQ_RECV);
    if (req == NULL) {
        return TN_ERR_NOMEM;
    }
    tn_comm_retain(comm);
    req->comm = comm;
    req->persistent = 1;
    req->active = 0;
    req->complete = 1;          /* inactive requests count as complete */
    req->peer = peer;
    req->tag = tag;
    req->dt = dt;
    tn_dt_retain(dt);
    req->count = count;
    req->user_buf = (void *)buf;
    req->mode = mode;
    req->status.source = TN_PROC_NULL;
    req->status.tag = TN_ANY_TAG;
    *req_p = req;
    return TN_OK;
}

tn_status_t tn_p2p_start(tn_req_t *req)
{
    free(req->pack_buf);
    req->pack_buf = NULL;
    req->active = 1;
    req->complete = 0;
    req->offset = 0;
    req->stage = TN_SEND_START;
    req->unexp = NULL;
    memset(&req->status, 0, sizeof(req->status));
    if (req->kind == TN_REQ_GENERIC && req->gen_start != NULL) {
        req->status.source = TN_ANY_SOURCE;
        req->status.tag = TN_ANY_TAG;
        return req->gen_start(req);
    }
    if (req->peer == TN_PROC_NULL) {
        req->status.source = TN_PROC_NULL;
        req->status.tag = TN_ANY_TAG;
        req->complete = 1;
        return TN_OK;
    }
    tn_req_pending_add(req);
    if (req->kind == TN_REQ_SEND) {
        req->status.source = req->comm->rank;
        req->status.tag = req->tag;
        return tn_send_go(req);
    }
    return tn_recv_go(req);
}

void tn_req_get_args(const tn_req_t *req, const void **buf_p, size_t *count_p,
                     const tn_dt_t **dt_p, int *peer_p, int *tag_p, tn_comm_t **comm_p,
                     tn_send_mode_t *mode_p)
{
    *buf_p = req->user_buf;
    *count_p = req->count;
    *dt_p = req->dt;
    *peer_p = req->peer;
    *tag_p = req->tag;
    *comm_p = req->comm;
    *mode_p = req->mode;
}

void tn_req_set_started_complete(tn_req_t *req)
{
    req->active = 1;
    req->complete = 1;
    memset(&req->status, 0, sizeof(req->status));
    req->status.source = req->comm->rank;
    req->status.tag = req->tag;
}

void tn_req_deactivate(tn_req_t *req)
{
    req->active = 0;
}

void tn_req_set_callback(tn_req_t *req, void (*fn)(tn_req_t *req), void *arg)
{
    req->on_complete = fn;
    req->cb_arg = arg;
}

void *tn_req_callback_arg(const tn_req_t *req)
{
    return req->cb_arg;
}

tn_req_t *tn_req_new_completed(void)
{
    struct tn_req *req = tn_req_alloc(TN_REQ_GENERIC);
    if (req != NULL) {
        req->complete = 1;
        req->status.source = TN_PROC_NULL;
        req->status.tag = TN_ANY_TAG;
    }
    return req;
}

tn_req_t *tn_req_new_pending(void *ext)
{
    struct tn_req *req = tn_req_alloc(TN_REQ_GENERIC);
    if (req != NULL) {
        req->ext = ext;
    }
    return req;
}

void tn_req_finish(tn_req_t *req)
{
    tn_req_complete(req);
}

/* ---------------------------------------------------------------- probe */

static void tn_unexp_status(const tn_unexp_t *ux, tn_msg_status_t *st)
{
    st->source = ux->src;
    st->tag = ux->tag;
    st->error = TN_OK;
    st->cancelled = 0;
    st->bytes = ux->size;
}

int tn_p2p_iprobe(int src, int tag, tn_comm_t *comm, int take, tn_msg_status_t *status_p,
                  void **msg_p)
{
    tn_match_ctx_t *mc = comm->match[0];
    tn_unexp_t *ux = tn_match_unexp_find(mc, src, tag, take);
    if (ux == NULL) {
        tn_progress();
        ux = tn_match_unexp_find(mc, src, tag, take);
        if (ux == NULL) {
            return 0;
        }
    }
    if (status_p != NULL) {
        tn_unexp_status(ux, status_p);
    }
    if (msg_p != NULL) {
        *msg_p = ux;
    }
    return 1;
}

typedef struct {
    int src, tag, take;
    tn_comm_t *comm;
    tn_msg_status_t *status;
    void **msg;
    int found;
} tn_probe_arg_t;

/* May be called again after it returned 1 (tn_rt_wait looks at the
 * condition before sleeping and once more after waking): a matched probe
 * has taken the message off the queue by then, so the answer is kept. */
static int tn_probe_cond(void *arg)
{
    tn_probe_arg_t *a = arg;
    if (a->found) {
        return 1;
    }
    tn_unexp_t *ux = tn_match_unexp_find(a->comm->match[0], a->src, a->tag, a->take);
    if (ux == NULL) {
        return 0;
    }
    a->found = 1;
    if (a->status != NULL) {
        tn_unexp_status(ux, a->status);
    }
    if (a->msg != NULL) {
        *a->msg = ux;
    }
    return 1;
}

void tn_p2p_probe(int src, int tag, tn_comm_t *comm, int take, tn_msg_status_t *status_p,
                  void **msg_p)
{
    tn_probe_arg_t a = { src, tag, take, comm, status_p, msg_p, 0 };
    if (!tn_probe_cond(&a)) {
        tn_rt_wait(tn_probe_cond, &a);
    }
}

tn_status_t tn_p2p_imrecv(void *buf, size_t count, const tn_dt_t *dt, void *msg,
                          tn_comm_t *comm, tn_req_t **req_p)
{
    tn_unexp_t *ux = msg;
    struct tn_req *req = tn_req_alloc(TN_REQ_RECV);
    if (req == NULL) {
        return TN_ERR_NOMEM;
    }
    tn_comm_retain(comm);
    req->comm = comm;
    req->peer = ux->src;
    req->tag = ux->tag;
    req->dt = dt;
    tn_dt_retain(dt);
    req->count = count;
    req->user_buf = buf;
    req->bytes = tn_dt_bytes(dt, count);
    req->buf = buf;
    req->pack = !dt->is_contig && req->bytes > 0;
    tn_req_pending_add(req);
    tn_proto_recv_unexp(req, ux);
    *req_p = req;
    return TN_OK;
}

/* Cancel a receive that has not matched yet, or a send (p2p/cancel.c).
 * Returns 1 if cancelled now. */
int tn_p2p_cancel(tn_req_t *req)
{
    if (req->kind == TN_REQ_SEND) {
        return tn_proto_send_cancel(req);
    }
    if (req->kind == TN_REQ_GENERIC && !req->complete && req->inner != NULL &&
        !req->persistent) {
        /* isendrecv: cancel the receive half; the request completes when
         * the send half is done, its status marked cancelled. */
        return tn_p2p_cancel(req->inner);
    }
    if (req->kind != TN_REQ_RECV || req->complete || !req->in_posted) {
        return 0;
    }
    tn_match_posted_remove(req->comm->match[req->coll], req);
    req->status.cancelled = 1;
    req->status.error = TN_OK;
    req->status.bytes = 0;
    tn_req_complete(req);
    return 1;
}
