/* Protocols over the active-message interface.
 *
 * eager:      EAGER (payload inline in the header when <= 24 B, else in the
 *             piece) then FRAG pieces; the receiver copies on match.
 * rendezvous: RTS carries the sender's address.  On match the receiver
 *             reads the data with the transport's single-copy get and sends
 *             FIN; without one, it sends CTS and the sender streams DATA
 *             pieces straight into the posted buffer.
 * Synchronous eager sends carry the sender's request id and get a FIN once
 * matched and wholly arrived.  Per peer, the pieces of one message leave
 * before the next message starts (queue), so FRAG pieces always follow
 * their EAGER.  A send may be asked back with CANCEL (p2p/cancel.c).
 *
 * Derived datatypes (req->pack) never go through a whole-message
 * temporary: each piece is packed from the user's buffer straight into the
 * transport's cell (am_send_fill; a bounded staging buffer for transports
 * without it) when it leaves, and unpacked from the cell straight into the
 * user's buffer when it arrives, so pack, transfer and unpack overlap.  A
 * rendezvous whose sender data is not contiguous cannot be read in place:
 * its RTS says F_PACK and the receiver always answers CTS, the sender then
 * streams packed DATA pieces.  A contiguous sender's data is read straight
 * into a non-contiguous receive (the single-copy get with the receive's
 * pieces as iovecs, TN_XPORT_GET_IOV a call) when those pieces are long
 * (tn_scatter_min); shorter ones are streamed after CTS as well. */
#include "p2p/p2p_impl.h"
#include "p2p/am_decode.h"
#include "base/config.h"
#include "base/log.h"
#include "base/monitor.h"
#include "runtime/rt.h"

#include <stdlib.h>
#include <string.h>

/* Packed pieces for transports without am_send_fill, and the iovecs of a
 * scatter read; used only under the progress lock, never across calls. */
#define TN_P2P_STAGE ((size_t)256 * 1024)
static char tn_stage[TN_P2P_STAGE] __attribute__((aligned(64)));
static struct iovec tn_iov[TN_XPORT_GET_IOV];

/* A non-contiguous receive whose mean piece is at least this long is read
 * in place by the single-copy get (iovecs); shorter pieces are streamed
 * (TERN_RNDV_SCATTER_MIN).  On 2 idle cores the stream, which splits the
 * two copies between sender and receiver, measured faster even for 64 KiB
 * pieces (9.2 against 7.0 GB/s; 8.2 against 5.0 at 4 KiB), but it needs
 * both processes on a core and the sender in MPI; the read needs neither,
 * which wins when ranks outnumber cores or the cores are busy (2-3x
 * faster for pieces >= 256 B with other jobs on the machine). */
static size_t tn_scatter_min;
static size_t tn_cma_min;
static size_t tn_coop_min;

tn_peer_t *tn_peers;
int tn_peers_pending;
int tn_sends_inflight;
static int tn_npeers;

static void tn_proto_peer_setup(int p)
{
    tn_peer_t *peer = &tn_peers[p];
    peer->xp = tn_rt.xport_of[p];
    peer->max_payload = peer->xp->max_payload();
    peer->eager_limit = peer->xp->eager_limit();
    peer->tiny_limit = peer->xp->tiny_limit();
    peer->caps = peer->xp->caps(p);
    peer->pack_max = peer->max_payload;
    if (!(peer->caps & TN_XPORT_CAP_FILL) && peer->pack_max > TN_P2P_STAGE) {
        peer->pack_max = TN_P2P_STAGE;
    }
}

tn_status_t tn_proto_init(int world_size, int world_rank)
{
    tn_peers = calloc((size_t)world_size, sizeof(tn_peer_t));
    if (tn_peers == NULL) {
        return TN_ERR_NOMEM;
    }
    tn_npeers = world_size;
    tn_scatter_min = tn_cfg.rndv_scatter_min;
    if (tn_scatter_min == 0) {
        tn_scatter_min = tn_rt.oversubscribed ? 256 : 64 * 1024;
    }
    /* With more ranks than cores, a read in place holds the sender until
     * the receiver is scheduled, reads and answers; streamed through the
     * cells (two copies) the sender is done once the data is in the ring.
     * Measured on 4 and 8 ranks on 2 cores (docs/transports/shm.md), the
     * stream wins up to 512 KiB for most collectives (bcast on 4 ranks
     * 0.2-0.5x the time) and the single copy above. */
    tn_coop_min = tn_cfg.rndv_coop_min;
    tn_cma_min = tn_cfg.rndv_cma_min;
    if (tn_cma_min == 0) {
        tn_cma_min = tn_rt.oversubscribed ? 1024 * 1024 : 0;
    }
    for (int p = 0; p < world_size; p++) {
        tn_proto_peer_setup(p);
    }
    return TN_OK;
}

tn_status_t tn_proto_grow(int npeers)
{
    if (npeers <= tn_npeers) {
        return TN_OK;
    }
    tn_peer_t *n = realloc(tn_peers, sizeof(tn_peer_t) * (size_t)npeers);
    if (n == NULL) {
        return TN_ERR_NOMEM;
    }
    memset(n + tn_npeers, 0, sizeof(tn_peer_t) * (size_t)(npeers - tn_npeers));
    tn_peers = n;
    for (int p = tn_npeers; p < npeers; p++) {
        tn_proto_peer_setup(p);
    }
    tn_npeers = npeers;
    return TN_OK;
}

void tn_proto_finalize(void)
{
    free(tn_peers);
    tn_peers = NULL;
    tn_npeers = 0;
    tn_peers_pending = 0;
}

/* ------------------------------------------------------------ send side */

static void tn_sends_grew(void)
{
    tn_sends_inflight++;
    tn_p2p_st->sends_depth = (uint64_t)tn_sends_inflight;
    if (tn_p2p_st->sends_depth > tn_p2p_st->sends_max) {
        tn_p2p_st->sends_max = tn_p2p_st->sends_depth;
    }
}

static void tn_sq_append(tn_peer_t *peer, struct tn_req *req)
{
    req->qnext = NULL;
    if (peer->sq_tail != NULL) {
        peer->sq_tail->qnext = req;
    } else {
        peer->sq_head = req;
        tn_peers_pending++;
    }
    peer->sq_tail = req;
}

static void tn_sq_pop(tn_peer_t *peer)
{
    struct tn_req *req = peer->sq_head;
    peer->sq_head = req->qnext;
    if (peer->sq_head == NULL) {
        peer->sq_tail = NULL;
        tn_peers_pending--;
    }
    req->qnext = NULL;
}

int tn_proto_sq_withdraw(struct tn_req *req)
{
    tn_peer_t *peer = &tn_peers[req->world];
    struct tn_req *prev = NULL;
    for (struct tn_req *r = peer->sq_head; r != NULL; prev = r, r = r->qnext) {
        if (r != req) {
            continue;
        }
        if (prev == NULL) {
            tn_sq_pop(peer);
        } else {
            prev->qnext = req->qnext;
            if (peer->sq_tail == req) {
                peer->sq_tail = prev;
            }
            req->qnext = NULL;
        }
        return 1;
    }
    return 0;
}

void tn_proto_send_complete(struct tn_req *req)
{
    req->stage = TN_SEND_DONE;
    tn_sends_inflight--;
    tn_p2p_st->sends_depth = (uint64_t)tn_sends_inflight;
    tn_req_complete(req);
}

static void tn_send_finish(struct tn_req *req)
{
    req->stage = TN_SEND_DONE;
    req->status.bytes = req->bytes;
    if (req->proto == TN_PROTO_CTRL) {
        tn_req_release(req);
        return;
    }
    if (req->cancel == TN_CANCEL_ASKED) {
        /* the receiver matched it before our CANCEL: its answer is on the
         * way and names this request, which must live until then */
        req->cancel = TN_CANCEL_HELD;
        return;
    }
    tn_proto_send_complete(req);
}

typedef struct {
    const struct tn_req *req;
    size_t               off;
} tn_pack_arg_t;

static void tn_pack_fill(void *dst, size_t len, void *arg)
{
    const tn_pack_arg_t *a = arg;
    tn_dt_pack_partial(a->req->dt, a->req->user_buf, a->req->count, a->off, len, dst);
}

/* Send hdr with bytes [off, off + n) of req's message as its payload
 * (n <= max_payload, and <= pack_max for a packed stream). */
static tn_status_t tn_send_piece(tn_peer_t *peer, struct tn_req *req, const tn_am_hdr_t *hdr,
                                 size_t off, size_t n)
{
    if (!req->pack) {
        struct iovec iov = { (char *)req->buf + off, n };
        return peer->xp->am_send(req->world, hdr, &iov, 1);
    }
    tn_pack_arg_t a = { req, off };
    if (peer->caps & TN_XPORT_CAP_FILL) {
        return peer->xp->am_send_fill(req->world, hdr, n, tn_pack_fill, &a);
    }
    tn_pack_fill(tn_stage, n, &a);
    struct iovec iov = { tn_stage, n };
    return peer->xp->am_send(req->world, hdr, &iov, 1);
}

/* Push what can go of req now.  Returns TN_OK when req needs nothing more
 * from the queue, TN_ERR_AGAIN when the transport is full. */
static tn_status_t tn_send_push(struct tn_req *req)
{
    tn_peer_t *peer = &tn_peers[req->world];
    const tn_xport_ops_t *xp = peer->xp;
    tn_status_t st;

    if (req->proto == TN_PROTO_CTRL) {
        st = xp->am_send(req->world, &req->ctrl, NULL, 0);
        if (st == TN_OK) {
            tn_send_finish(req);
        }
        return st;
    }

    if (req->proto == TN_PROTO_PART) {
        /* at least one piece, so that empty partitions are announced too */
        while (req->stage == TN_SEND_START || req->offset < req->bytes) {
            tn_am_hdr_t hdr = req->ctrl;
            size_t n = req->bytes - req->offset;
            if (n > peer->max_payload) {
                n = peer->max_payload;
            }
            hdr.size = n;
            hdr.addr += req->offset;
            struct iovec iov = { (char *)req->buf + req->offset, n };
            st = xp->am_send(req->world, &hdr, &iov, n > 0);
            if (st != TN_OK) {
                return st;
            }
            req->offset += n;
            req->stage = TN_SEND_PIECES;
        }
        tn_send_finish(req);
        return TN_OK;
    }

    if (req->stage == TN_SEND_START) {
        tn_am_hdr_t hdr;
        hdr.flags = 0;
        hdr.rsv = 0;
        hdr.src = req->comm->rank;
        hdr.ctx = req->comm->ctx + req->coll;
        hdr.tag = req->tag;
        hdr.size = req->bytes;
        hdr.sreq = tn_req_id(req);
        hdr.rreq = 0;
        hdr.addr = 0;
        if (req->proto == TN_PROTO_RNDV) {
            hdr.type = TN_AM_RTS;
            if (req->pack) {
                hdr.flags |= TN_AM_F_PACK;      /* nothing to read in place */
            } else {
                hdr.addr = (uint64_t)(uintptr_t)req->buf;
            }
            st = xp->am_send(req->world, &hdr, NULL, 0);
            if (st != TN_OK) {
                return st;
            }
            req->stage = TN_SEND_WAIT;
            tn_peers[req->world].rndv_out++;
            return TN_OK;
        }
        hdr.type = TN_AM_EAGER;
        if (req->mode == TN_SEND_SYNC) {
            hdr.flags |= TN_AM_F_SYNC;
        }
        if (req->bytes <= peer->tiny_limit && req->mode != TN_SEND_SYNC) {
            hdr.flags |= TN_AM_F_INLINE;
            if (req->pack) {
                tn_dt_pack_partial(req->dt, req->user_buf, req->count, 0, req->bytes,
                                   &hdr.sreq);
            } else if (req->bytes > 0) {
                memcpy(&hdr.sreq, req->buf, req->bytes);
            }
            st = xp->am_send(req->world, &hdr, NULL, 0);
            if (st != TN_OK) {
                return st;
            }
            req->offset = req->bytes;
        } else {
            size_t lim = req->pack ? peer->pack_max : peer->max_payload;
            size_t n = req->bytes < lim ? req->bytes : lim;
            st = tn_send_piece(peer, req, &hdr, 0, n);
            if (st != TN_OK) {
                return st;
            }
            req->offset = n;
        }
        req->stage = TN_SEND_PIECES;
    }

    if (req->stage == TN_SEND_PIECES) {
        int data = (req->proto == TN_PROTO_RNDV);
        size_t lim = req->pack ? peer->pack_max : peer->max_payload;
        while (req->offset < req->bytes) {
            tn_am_hdr_t hdr;
            memset(&hdr, 0, sizeof(hdr));
            size_t n = req->bytes - req->offset;
            if (n > lim) {
                n = lim;
            }
            hdr.type = data ? TN_AM_DATA : TN_AM_FRAG;
            hdr.size = n;
            hdr.rreq = req->rreq;
            hdr.addr = req->offset;
            if (data && !req->pack && (peer->caps & TN_XPORT_CAP_REF)) {
                /* rendezvous data leaves from the user's buffer, which the
                 * send holds until the transport has no more use for it */
                st = xp->am_send_ref(req->world, &hdr, (char *)req->buf + req->offset, n, req);
                if (st != TN_OK) {
                    return st;
                }
                req->refs++;
            } else {
                st = tn_send_piece(peer, req, &hdr, req->offset, n);
                if (st != TN_OK) {
                    return st;
                }
            }
            req->offset += n;
        }
        if (req->refs != 0) {
            req->stage = TN_SEND_REFS;      /* until tn_p2p_ref_done */
            return TN_OK;
        }
        if (req->proto == TN_PROTO_EAGER && req->mode == TN_SEND_SYNC) {
            req->stage = TN_SEND_WAIT;     /* until FIN */
            return TN_OK;
        }
        tn_send_finish(req);
    }
    return TN_OK;
}

static void tn_send_enqueue(struct tn_req *req)
{
    tn_peer_t *peer = &tn_peers[req->world];
    if (peer->sq_head == NULL && tn_send_push(req) != TN_ERR_AGAIN) {
        return;
    }
    tn_sq_append(peer, req);
}

void tn_p2p_ref_done(void *cookie)
{
    struct tn_req *req = cookie;
    if (req == NULL || req->magic != TN_REQ_MAGIC || req->refs == 0) {
        tn_log_error("p2p", "a transport released a send it does not hold");
        return;
    }
    /* pieces of a send still being queued may be released already: only
     * the last release of a fully queued send completes it */
    if (--req->refs == 0 && req->stage == TN_SEND_REFS) {
        tn_send_finish(req);
    }
}

tn_status_t tn_proto_send_start(struct tn_req *req)
{
    tn_peer_t *peer = &tn_peers[req->world];
    if (peer->xp == NULL) {
        tn_log_error("p2p", "no transport reaches world rank %d (it is on another node "
                     "and no network transport is built yet)", req->world);
        return TN_ERR_UNSUPPORTED;
    }
    req->xp = peer->xp;
    req->proto = req->bytes <= peer->eager_limit ? TN_PROTO_EAGER : TN_PROTO_RNDV;
    req->stage = TN_SEND_START;
    tn_mon_sent(req->world, req->coll ? TN_MON_COLL : req->comm->mon_class,
                req->proto == TN_PROTO_EAGER ? TN_MON_EAGER : TN_MON_RNDV, req->bytes);
    tn_sends_grew();
    tn_send_enqueue(req);
    return TN_OK;
}

int tn_proto_progress_sends(void)
{
    if (tn_peers_pending == 0) {
        return 0;
    }
    int events = 0;
    for (int p = 0; p < tn_npeers && tn_peers_pending > 0; p++) {
        tn_peer_t *peer = &tn_peers[p];
        while (peer->sq_head != NULL) {
            struct tn_req *req = peer->sq_head;
            if (tn_send_push(req) == TN_ERR_AGAIN) {
                break;
            }
            tn_sq_pop(peer);
            events++;
        }
    }
    return events;
}

tn_status_t tn_proto_send_part(struct tn_req *req)
{
    tn_peer_t *peer = &tn_peers[req->world];
    if (peer->xp == NULL) {
        return TN_ERR_UNSUPPORTED;
    }
    req->xp = peer->xp;
    req->proto = TN_PROTO_PART;
    req->stage = TN_SEND_START;
    req->offset = 0;
    tn_mon_sent(req->world, TN_MON_P2P, TN_MON_EAGER, req->bytes);   /* pieces have no comm */
    tn_sends_grew();
    tn_send_enqueue(req);
    return TN_OK;
}

tn_status_t tn_proto_send_hdr(int world, const tn_am_hdr_t *hdr)
{
    if (tn_peers[world].xp == NULL) {
        return TN_ERR_UNSUPPORTED;
    }
    struct tn_req *c = tn_req_alloc(TN_REQ_SEND);
    if (c == NULL) {
        return TN_ERR_NOMEM;
    }
    c->proto = TN_PROTO_CTRL;
    c->world = world;
    c->ctrl = *hdr;
    tn_send_enqueue(c);
    return TN_OK;
}

static void tn_send_ctrl(int world, uint8_t type, uint64_t sreq, uint64_t rreq, uint64_t size)
{
    tn_am_hdr_t hdr;
    memset(&hdr, 0, sizeof(hdr));
    hdr.type = type;
    hdr.sreq = sreq;
    hdr.rreq = rreq;
    hdr.size = size;
    if (tn_proto_send_hdr(world, &hdr) != TN_OK) {
        tn_rt_abort(1, "out of memory for a control message");
    }
}

/* ---------------------------------------------------------- receive side */

static void tn_recv_set_envelope(struct tn_req *req, int src, int tag, uint64_t size)
{
    req->status.source = src;
    req->status.tag = tag;
    req->expect = size <= req->bytes ? size : req->bytes;
    req->status.bytes = req->expect;
    req->status.error = size > req->bytes ? TN_ERR_TRUNCATE : TN_OK;
    req->msg_size = size;
    req->offset = 0;
}

/* Copy piece [off, off+len) of the message into req, clipped to capacity;
 * a derived datatype is unpacked straight into the user's buffer (which is
 * NULL for MPI_BOTTOM with absolute addresses). */
static void tn_recv_copy(struct tn_req *req, size_t off, const void *data, size_t len)
{
    /* an empty piece may come with no payload pointer at all */
    if (off < req->expect && len > 0) {
        size_t n = req->expect - off < len ? req->expect - off : len;
        if (req->pack) {
            tn_dt_unpack_partial(req->dt, data, req->count, off, n, req->user_buf);
        } else if ((const char *)req->buf + off != (const char *)data) {
            /* data may lie in this very buffer (recv_direct: a piece that
             * landed where another belongs); equal to the target when the
             * transport placed it there */
            memmove((char *)req->buf + off, data, n);
        }
    }
}

/* Single-copy read of the expected bytes at the sender's addr into req:
 * straight into a contiguous buffer, into the pieces of a derived datatype
 * as iovecs (bounded batches) otherwise. */
static tn_status_t tn_rndv_get(tn_peer_t *peer, int world, struct tn_req *req, uint64_t addr)
{
    if (!req->pack) {
        struct iovec v = { req->buf, req->expect };
        return peer->xp->get(world, &v, 1, addr);
    }
    for (size_t off = 0; off < req->expect;) {
        int n = TN_XPORT_GET_IOV;
        size_t got = tn_dt_iov(req->dt, req->user_buf, req->count, off, req->expect - off,
                               tn_iov, &n);
        tn_status_t st = peer->xp->get(world, tn_iov, n, addr + off);
        if (st != TN_OK) {
            return st;      /* the CTS stream that follows rewrites it all */
        }
        off += got;
    }
    return TN_OK;
}

/* A cooperative read asks the sender to write its share (TN_AM_HELP). */
static void tn_rndv_ask_help(int world, uint64_t id, void *arg)
{
    tn_send_ctrl(world, TN_AM_HELP, *(const uint64_t *)arg, id, 0);
}

/* Matched an RTS (flags: its TN_AM_F_*): fetch the data. */
static void tn_rndv_recv(struct tn_req *req, int world, uint64_t sreq, uint64_t addr,
                         unsigned flags)
{
    tn_peer_t *peer = &tn_peers[world];
    if (req->expect == 0) {
        tn_send_ctrl(world, TN_AM_FIN, sreq, 0, 0);
        tn_req_complete(req);
        return;
    }
    /* the sender's data can be read in place (and is long enough to) */
    int in_place = !(flags & TN_AM_F_PACK) && (req->expect >= tn_cma_min || req->pull);
    /* long and contiguous at both ends: read one part while the sender
     * writes the other (TERN_RNDV_COOP_MIN).  Not while we send to that
     * peer by rendezvous too: it is then busy reading from us (an
     * exchange), and two cores copying both ways gain nothing */
    if (in_place && !req->pack && (peer->caps & TN_XPORT_CAP_COOP) && tn_coop_min != 0 &&
        req->expect >= tn_coop_min && peer->rndv_out == 0) {
        tn_status_t st = peer->xp->coop_recv(world, addr, req->buf, req->expect,
                                             tn_rndv_ask_help, &sreq);
        if (st == TN_OK) {
            tn_send_ctrl(world, TN_AM_FIN, sreq, 0, 0);
            tn_req_complete(req);
            return;
        }
        if (st != TN_ERR_AGAIN) {
            /* a copy failed: no single copy from this peer any more, and
             * the stream after CTS rewrites the whole buffer */
            peer->caps &= ~(TN_XPORT_CAP_GET | TN_XPORT_CAP_COOP);
        }
    }
    if (in_place && (peer->caps & TN_XPORT_CAP_GET) &&
        (!req->pack || req->dt->size / tn_dt_pieces(req->dt) >= tn_scatter_min)) {
        tn_status_t st = tn_rndv_get(peer, world, req, addr);
        if (st == TN_OK) {
            tn_send_ctrl(world, TN_AM_FIN, sreq, 0, 0);
            tn_req_complete(req);
            return;
        }
        peer->caps &= ~TN_XPORT_CAP_GET;
    }
    /* No single-copy path (or nothing to read in place): ask the sender to
     * stream expect bytes, which the transport may receive in place. */
    req->world = world;
    req->rx = TN_RECV_STREAM;      /* DATA from world inside [0, expect) */
    if (!req->pack && peer->xp->recv_direct != NULL) {
        peer->xp->recv_direct(world, tn_req_id(req), req->buf, req->expect);
        req->direct = 1;
    }
    tn_send_ctrl(world, TN_AM_CTS, sreq, tn_req_id(req), req->expect);
}

void tn_proto_recv_unexp(struct tn_req *req, tn_unexp_t *ux)
{
    tn_recv_set_envelope(req, ux->src, ux->tag, ux->size);
    if (ux->type == TN_AM_RTS) {
        tn_rndv_recv(req, ux->world, ux->sreq, ux->addr, ux->flags);
        free(ux);
        return;
    }
    if (!ux->complete) {
        ux->waiting = req;         /* finished when the last piece lands */
        req->unexp = ux;
        return;
    }
    tn_recv_copy(req, 0, ux->data, ux->size);
    if (ux->flags & TN_AM_F_SYNC) {
        tn_send_ctrl(ux->world, TN_AM_FIN, ux->sreq, 0, 0);
    }
    if (ux->data != ux->small) {
        free(ux->data);
    }
    free(ux);
    tn_req_complete(req);
}

/* The handlers below see only decoded messages (p2p/am_decode.c): every
 * id names a live request of the right kind and state, every size and
 * offset fits what it addresses. */
static void tn_am_eager(int world, const tn_am_msg_t *m)
{
    tn_peer_t *peer = &tn_peers[world];
    tn_match_ctx_t *mc = tn_match_ctx_get(m->ctx, 1);
    if (mc == NULL) {
        tn_rt_abort(1, "out of memory for a matching context");
    }
    const void *payload = m->payload;
    size_t len = m->len;
    struct tn_req *req = tn_match_posted_take(mc, m->src, m->tag);
    if (req != NULL) {
        tn_recv_set_envelope(req, m->src, m->tag, m->size);
        tn_recv_copy(req, 0, payload, len);
        req->offset = len;
        if (len < m->size) {
            /* A synchronous sender takes FIN only once its last piece is
             * out (TN_SEND_WAIT): answer when that piece has arrived. */
            req->rreq = (m->flags & TN_AM_F_SYNC) ? m->peer_id : 0;
            peer->in_req = req;
            return;
        }
        if (m->flags & TN_AM_F_SYNC) {
            tn_send_ctrl(world, TN_AM_FIN, m->peer_id, 0, 0);
        }
        tn_req_complete(req);
        return;
    }
    tn_unexp_t *ux = malloc(sizeof(*ux));
    if (ux == NULL) {
        tn_rt_abort(1, "out of memory for an unexpected message");
    }
    ux->src = m->src;
    ux->tag = m->tag;
    ux->world = world;
    ux->type = TN_AM_EAGER;
    ux->flags = m->flags;
    ux->src_checked = tn_match_comm(m->ctx) != NULL;    /* by am_decode.c */
    ux->size = m->size;
    ux->sreq = m->peer_id;
    ux->addr = 0;
    ux->waiting = NULL;
    ux->data = m->size <= sizeof(ux->small) ? ux->small : malloc(m->size);
    if (ux->data == NULL) {
        tn_rt_abort(1, "out of memory for an unexpected message");
    }
    if (len > 0) {
        memcpy(ux->data, payload, len);
    }
    ux->recvd = len;
    ux->complete = (len == m->size);
    if (!ux->complete) {
        peer->in_unexp = ux;
    }
    tn_match_unexp_add(mc, ux);
}

static void tn_am_frag(int world, const tn_am_msg_t *m)
{
    tn_peer_t *peer = &tn_peers[world];
    if (m->req != NULL) {
        struct tn_req *req = m->req;
        tn_recv_copy(req, req->offset, m->payload, m->len);
        req->offset += m->len;
        if (req->offset >= req->msg_size) {
            peer->in_req = NULL;
            if (req->rreq != 0) {
                tn_send_ctrl(world, TN_AM_FIN, req->rreq, 0, 0);
                req->rreq = 0;
            }
            tn_req_complete(req);
        }
        return;
    }
    tn_unexp_t *ux = m->ux;
    memcpy(ux->data + ux->recvd, m->payload, m->len);
    ux->recvd += m->len;
    if (ux->recvd < ux->size) {
        return;
    }
    ux->complete = 1;
    peer->in_unexp = NULL;
    if (ux->waiting != NULL) {
        struct tn_req *req = ux->waiting;
        req->unexp = NULL;
        tn_proto_recv_unexp(req, ux);
    }
}

static void tn_am_rts(int world, const tn_am_msg_t *m)
{
    tn_match_ctx_t *mc = tn_match_ctx_get(m->ctx, 1);
    if (mc == NULL) {
        tn_rt_abort(1, "out of memory for a matching context");
    }
    struct tn_req *req = tn_match_posted_take(mc, m->src, m->tag);
    if (req != NULL) {
        tn_recv_set_envelope(req, m->src, m->tag, m->size);
        tn_rndv_recv(req, world, m->peer_id, m->addr, m->flags);
        return;
    }
    tn_unexp_t *ux = malloc(sizeof(*ux));
    if (ux == NULL) {
        tn_rt_abort(1, "out of memory for an unexpected message");
    }
    memset(ux, 0, sizeof(*ux));
    ux->src = m->src;
    ux->tag = m->tag;
    ux->world = world;
    ux->type = TN_AM_RTS;
    ux->flags = m->flags;
    ux->src_checked = tn_match_comm(m->ctx) != NULL;    /* by am_decode.c */
    ux->size = m->size;
    ux->sreq = m->peer_id;
    ux->addr = m->addr;
    ux->complete = 1;
    tn_match_unexp_add(mc, ux);
}

void tn_p2p_am_recv(int world, const tn_am_hdr_t *hdr, const void *payload, size_t len)
{
    tn_am_msg_t m;
    const char *why;
    if (tn_am_decode(world, hdr, payload, len, &m, &why) != TN_OK) {
        tn_am_violation(world, hdr->type, why);
    }
    struct tn_req *req = m.req;
    switch (m.type) {
    case TN_AM_EAGER:
        tn_am_eager(world, &m);
        return;
    case TN_AM_FRAG:
        tn_am_frag(world, &m);
        return;
    case TN_AM_RTS:
        tn_am_rts(world, &m);
        return;
    case TN_AM_CTS:
        req->rreq = m.id2;
        req->bytes = m.size;            /* what the receiver can take (<= bytes) */
        req->offset = 0;
        req->stage = TN_SEND_PIECES;
        if (tn_peers[world].rndv_out > 0) {
            tn_peers[world].rndv_out--;
        }
        tn_send_enqueue(req);
        return;
    case TN_AM_DATA:
        tn_recv_copy(req, m.addr, m.payload, m.len);
        req->offset += m.len;
        if (req->offset >= req->expect) {
            req->rx = TN_RECV_IDLE;
            if (req->direct) {
                tn_peers[world].xp->recv_direct_end(world, tn_req_id(req));
                req->direct = 0;
            }
            tn_req_complete(req);
        }
        return;
    case TN_AM_PCTS:
        tn_part_am_cts(world, &m);
        return;
    case TN_AM_PDATA:
        tn_part_am_data(world, &m);
        return;
    case TN_AM_HELP:
        /* the receiver reads our buffer in place and asks us to write part
         * of it: the send is still waiting for its FIN */
        tn_peers[world].xp->coop_send(world, m.id2, req->buf);
        return;
    case TN_AM_FIN:
        if (req->proto == TN_PROTO_RNDV && tn_peers[world].rndv_out > 0) {
            tn_peers[world].rndv_out--;
        }
        tn_send_finish(req);
        return;
    case TN_AM_CANCEL:
        tn_cancel_am_req(world, &m);
        return;
    case TN_AM_CANCEL_ACK:
        tn_cancel_am_ack(world, &m);
        return;
    default:
        tn_am_violation(world, m.type, "(field type)");   /* decode let it through */
    }
}
