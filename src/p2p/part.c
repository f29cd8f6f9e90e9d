/* Partitioned point-to-point communication (MPI_Psend_init, MPI_Precv_init,
 * MPI_Pready*, MPI_Parrived).
 *
 * Protocol, per pair of matched requests (active messages of xport.h):
 *   hello  MPI_Psend_init queues a 24-byte inline EAGER message on the
 *          communicator's partitioned context (ctx | TN_PART_CTX_BIT) with
 *          the user's tag: the sender's request id, its message size, its
 *          serial and its partition count.  MPI_Precv_init posts a receive
 *          for it there, so sends and receives pair up by (source, tag,
 *          communicator) in the order of their init calls (the
 *          non-overtaking rule of ordinary messages), and never meet user
 *          messages.  Nothing else is taken on that context (am_decode.c),
 *          so the hello receive completes the moment it matches: until
 *          then it is only posted, and the request may drop it at once.
 *   PCTS   every MPI_Start of the receive sends one PCTS to the sender once
 *          the hello is in (sreq/addr = sender id and serial, rreq/size =
 *          receiver id and serial).  The sender sends the data of its e-th
 *          epoch only after its e-th PCTS: data of the next epoch cannot
 *          land in a buffer the receiver still owns, and no buffering of
 *          early data is needed.
 *   PDATA  consecutive ready send partitions leave as one run of pieces
 *          routed straight to the receive request, no matching: rreq/sreq =
 *          receiver id and serial, addr = byte offset in the message, tag =
 *          first sender partition of the run, ctx = its partition count (at
 *          least one piece per run, so empty partitions are announced too).
 * The receiver counts the bytes that arrived per receive partition; one has
 * arrived when all its bytes have.  In an empty message, partition i has
 * arrived when sender partition i has if both sides have as many
 * partitions, else when all of them have.  The receive completes when the
 * sender's whole message is in (more than fits: MPI_ERR_TRUNCATE).
 * Non-contiguous types: the sender packs a partition when it is marked
 * ready, the receiver unpacks one when it has arrived.
 *
 * Request ids are table ids (p2p_impl.h), checked on arrival with the
 * serial, the peer and every offset by tn_part_decode before a handler
 * runs.  Called with the progress lock held. */
#include "p2p/p2p_impl.h"
#include "base/log.h"
#include "runtime/rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TN_PART_IDLE = 0, TN_PART_READY = 1, TN_PART_SENT = 2 };

_Static_assert(TN_PART_HELLO_BYTES <= TN_AM_INLINE_MAX, "the hello travels in its header");

typedef struct {
    int        is_send;
    uint32_t   serial;         /* tells reused request memory apart */
    int        parts;
    size_t     count;          /* elements per partition */
    size_t     part_bytes;     /* packed bytes per partition */
    size_t     total;          /* parts * part_bytes */
    void      *user_buf;
    char      *data;           /* the message bytes: user_buf, or pack */
    char      *pack;           /* owned, for non-contiguous types */
    int        world;          /* the peer's world rank (unless PROC_NULL) */
    uint64_t   epoch;          /* starts so far */
    /* send: TN_PART_* per partition; receive: 1 when it has arrived */
    uint8_t   *state;
    /* send side */
    uint64_t   cts;            /* PCTS received */
    uint64_t   rid, rserial;   /* the receive request, from PCTS */
    int        nready;         /* partitions marked ready in this epoch */
    int        unsent;         /* ready, waiting for the epoch's PCTS */
    int        inflight;       /* runs queued and not out yet */
    /* receive side */
    tn_req_t  *hello;          /* the posted hello receive until it matches */
    tn_match_ctx_t *hello_mc;
    uint64_t   hello_buf[TN_PART_HELLO_BYTES / 8];
    int        have_hello;
    uint64_t   sid, sserial;   /* the send request, from the hello */
    int        sparts;
    uint64_t   stotal;         /* the sender's message size */
    uint64_t  *got;            /* bytes arrived per receive partition */
    uint64_t   bytes_in;
    uint64_t   empty_in;       /* empty sender partitions arrived */
} tn_part_t;

static uint32_t tn_part_serial;

static tn_status_t tn_part_start(tn_req_t *req);

static tn_part_t *tn_part_of(const tn_req_t *req)
{
    return req->kind == TN_REQ_GENERIC && req->gen_start == tn_part_start ? req->cb_arg
                                                                          : NULL;
}

/* Another thread may sleep waiting for what we just queued to ourselves. */
static void tn_part_wake(const tn_part_t *p)
{
    if (tn_rt.thread_multiple && p->world == tn_rt.world_rank) {
        tn_xport_shm_wake_self();
    }
}

/* ---------------------------------------------------------------- send */

static void tn_part_send_check(tn_req_t *req, tn_part_t *p)
{
    if (!req->complete && p->nready == p->parts && p->unsent == 0 && p->inflight == 0) {
        req->status.bytes = p->total;
        tn_req_complete(req);
    }
}

static void tn_part_run_done(tn_req_t *s)
{
    tn_req_t *req = tn_req_callback_arg(s);
    tn_part_t *p = req->cb_arg;
    tn_req_release(s);
    p->inflight--;
    tn_part_send_check(req, p);
}

/* Send partitions [first, first + n), all ready, as one run. */
static tn_status_t tn_part_send_run(tn_req_t *req, tn_part_t *p, int first, int n)
{
    struct tn_req *s = tn_req_alloc(TN_REQ_SEND);
    if (s == NULL) {
        return TN_ERR_NOMEM;
    }
    s->world = p->world;
    s->buf = p->data + (size_t)first * p->part_bytes;
    s->bytes = (size_t)n * p->part_bytes;
    s->ctrl.type = TN_AM_PDATA;
    s->ctrl.rreq = p->rid;
    s->ctrl.sreq = p->rserial;
    s->ctrl.addr = (uint64_t)first * p->part_bytes;
    s->ctrl.tag = first;
    s->ctrl.ctx = (uint32_t)n;
    tn_req_set_callback(s, tn_part_run_done, req);
    memset(p->state + first, TN_PART_SENT, (size_t)n);
    p->unsent -= n;
    p->inflight++;
    tn_status_t st = tn_proto_send_part(s);     /* may complete the run (and req) */
    if (st != TN_OK) {
        p->inflight--;
        tn_req_release(s);
        return st;
    }
    tn_part_wake(p);
    return TN_OK;
}

/* Send every ready partition that waited for the epoch's PCTS. */
static tn_status_t tn_part_send_ready(tn_req_t *req, tn_part_t *p)
{
    int i = 0;
    while (p->unsent > 0 && i < p->parts) {
        if (p->state[i] != TN_PART_READY) {
            i++;
            continue;
        }
        int j = i + 1;
        while (j < p->parts && p->state[j] == TN_PART_READY) {
            j++;
        }
        tn_status_t st = tn_part_send_run(req, p, i, j - i);
        if (st != TN_OK) {
            return st;
        }
        i = j;
    }
    return TN_OK;
}

static tn_status_t tn_part_hello_send(tn_req_t *req, tn_part_t *p)
{
    tn_am_hdr_t hdr;
    memset(&hdr, 0, sizeof(hdr));
    hdr.type = TN_AM_EAGER;
    hdr.flags = TN_AM_F_INLINE;
    hdr.src = req->comm->rank;
    hdr.ctx = req->comm->ctx | TN_PART_CTX_BIT;
    hdr.tag = req->tag;
    hdr.size = sizeof(p->hello_buf);
    hdr.sreq = tn_req_id(req);
    hdr.rreq = p->total;
    hdr.addr = (uint64_t)p->serial << 32 | (uint32_t)p->parts;
    tn_status_t st = tn_proto_send_hdr(p->world, &hdr);
    if (st == TN_OK) {
        tn_part_wake(p);
    }
    return st;
}

void tn_part_am_cts(int world, const tn_am_msg_t *m)
{
    tn_req_t *req = m->req;
    tn_part_t *p = req->cb_arg;
    p->rid = m->id2;
    p->rserial = m->size;
    p->cts++;
    if (req->active && !req->complete && p->cts >= p->epoch && p->unsent > 0) {
        tn_status_t st = tn_part_send_ready(req, p);
        if (st != TN_OK) {
            tn_log_error("p2p", "partitioned send: cannot queue data: %s", tn_status_str(st));
            tn_rt_abort(1, "partitioned send: cannot queue data");
        }
    }
}

/* ------------------------------------------------------------- receive */

/* Everything of the sender's message is in: finish the epoch. */
static void tn_part_recv_check(tn_req_t *req, tn_part_t *p)
{
    int done = p->stotal > 0 ? p->bytes_in >= p->stotal
                             : p->empty_in >= (uint64_t)p->sparts;
    if (!done || req->complete) {
        return;
    }
    uint64_t n = p->stotal < p->total ? p->stotal : p->total;
    for (int r = 0; r < p->parts; r++) {
        /* partitions a shorter message left incomplete get what came */
        uint64_t lo = (uint64_t)r * p->part_bytes;
        if (!p->state[r] && p->pack != NULL && lo < n) {
            uint64_t len = n - lo < p->part_bytes ? n - lo : p->part_bytes;
            tn_dt_unpack_partial(req->dt, p->pack + lo, p->count * (size_t)p->parts,
                                 (size_t)lo, (size_t)len, p->user_buf);
        }
        p->state[r] = 1;
    }
    req->status.bytes = n;
    req->status.error = p->stotal > p->total ? TN_ERR_TRUNCATE : TN_OK;
    tn_req_complete(req);
}

/* The hello is in and the epoch started: ask for the data. */
static tn_status_t tn_part_recv_go(tn_req_t *req, tn_part_t *p)
{
    if (p->sparts == 0) {
        tn_part_recv_check(req, p);     /* a send without partitions waits for nothing */
        return TN_OK;
    }
    tn_am_hdr_t hdr;
    memset(&hdr, 0, sizeof(hdr));
    hdr.type = TN_AM_PCTS;
    hdr.sreq = p->sid;
    hdr.addr = p->sserial;
    hdr.rreq = tn_req_id(req);
    hdr.size = p->serial;
    tn_status_t st = tn_proto_send_hdr(p->world, &hdr);
    if (st != TN_OK) {
        return st;
    }
    tn_part_wake(p);
    return TN_OK;
}

static void tn_part_hello_in(tn_req_t *h)
{
    tn_req_t *req = tn_req_callback_arg(h);
    tn_part_t *p = req->cb_arg;
    p->hello = NULL;
    p->sid = p->hello_buf[0];
    p->stotal = p->hello_buf[1];
    p->sserial = p->hello_buf[2] >> 32;
    p->sparts = (int)(uint32_t)p->hello_buf[2];
    if (p->sparts < 0) {
        tn_am_violation(p->world, TN_AM_EAGER, "announcing a partitioned send with a "
                        "negative partition count (field addr)");
    }
    p->have_hello = 1;
    tn_req_release(h);
    if (req->active && !req->complete) {
        tn_status_t st = tn_part_recv_go(req, p);
        if (st != TN_OK) {
            req->status.error = st;
            tn_req_complete(req);
        }
    }
}

static tn_status_t tn_part_hello_post(tn_req_t *req, tn_part_t *p)
{
    tn_match_ctx_t *mc = tn_match_ctx_get(req->comm->ctx | TN_PART_CTX_BIT, 1);
    if (mc == NULL) {
        return TN_ERR_NOMEM;
    }
    struct tn_req *h = tn_req_alloc(TN_REQ_RECV);
    if (h == NULL) {
        return TN_ERR_NOMEM;
    }
    h->peer = req->peer;
    h->tag = req->tag;
    h->buf = p->hello_buf;
    h->bytes = sizeof(p->hello_buf);
    tn_req_set_callback(h, tn_part_hello_in, req);
    p->hello = h;
    p->hello_mc = mc;
    tn_unexp_t *ux = tn_match_unexp_find(mc, h->peer, h->tag, 1);
    if (ux != NULL) {
        tn_proto_recv_unexp(h, ux);     /* runs tn_part_hello_in */
    } else {
        tn_match_post(mc, h);
    }
    return TN_OK;
}

/* Account for bytes [off, off + n) of the message, inside the buffer. */
static void tn_part_account(tn_req_t *req, tn_part_t *p, uint64_t off, size_t n)
{
    uint64_t pb = p->part_bytes, end = off + n;
    for (uint64_t r = off / pb; r < (uint64_t)p->parts && r * pb < end; r++) {
        uint64_t lo = off > r * pb ? off : r * pb;
        uint64_t hi = end < (r + 1) * pb ? end : (r + 1) * pb;
        p->got[r] += hi - lo;
        if (p->got[r] == pb) {
            if (p->pack != NULL) {
                tn_dt_unpack_partial(req->dt, p->pack + r * pb, p->count * (size_t)p->parts,
                                     (size_t)(r * pb), (size_t)pb, p->user_buf);
            }
            p->state[r] = 1;
        }
    }
}

void tn_part_am_data(int world, const tn_am_msg_t *m)
{
    tn_req_t *req = m->req;
    tn_part_t *p = req->cb_arg;
    uint64_t off = m->addr;
    const void *payload = m->payload;
    size_t len = m->len;
    if (len > 0) {
        if (off < p->total) {
            size_t n = p->total - off < len ? (size_t)(p->total - off) : len;
            memcpy(p->data + off, payload, n);
            tn_part_account(req, p, off, n);
        }
        p->bytes_in += len;
    } else if (p->stotal == 0) {
        int first = m->tag, n = (int)m->ctx;     /* inside the sender's partitions */
        p->empty_in += (uint64_t)n;
        if (p->sparts == p->parts) {
            memset(p->state + first, 1, (size_t)n);
        }
    }
    tn_part_recv_check(req, p);
}

/* -------------------------------------------------------------- decode */

/* PCTS and PDATA checked against the partitioned request they name
 * (am_decode.h): an id of ours, of a partitioned request of the right
 * side, with its serial, paired with world; PDATA inside the sender's
 * message and partitions as its hello announced them. */
tn_status_t tn_part_decode(int world, const tn_am_hdr_t *hdr, tn_am_msg_t *m,
                           const char **why_p)
{
    int is_send = hdr->type == TN_AM_PCTS;
    uint64_t id = is_send ? hdr->sreq : hdr->rreq;
    uint64_t serial = is_send ? hdr->addr : hdr->sreq;
    const char *f = is_send ? "sreq" : "rreq";
    static char why[96];
    tn_reqid_res_t res;
    tn_req_t *req = tn_req_by_id(id, &res);
    tn_part_t *p = req != NULL ? tn_part_of(req) : NULL;
    if (hdr->flags != 0) {
        *why_p = "with unknown flags (field flags)";
        return TN_ERR_PROTO;
    }
    if (req == NULL) {
        snprintf(why, sizeof(why), "naming %s request (field %s)",
                 res == TN_REQID_STALE ? "a released" : "an unknown", f);
        goto err;
    }
    if (p == NULL || p->is_send != is_send) {
        snprintf(why, sizeof(why), "naming a request of another kind (field %s)", f);
        goto err;
    }
    if (req->peer == TN_PROC_NULL || p->world != world) {
        snprintf(why, sizeof(why), "naming another rank's request (field %s)", f);
        goto err;
    }
    if (p->serial != serial) {
        snprintf(why, sizeof(why), "naming a released request (field %s)",
                 is_send ? "addr" : "sreq");
        goto err;
    }
    m->req = req;
    if (is_send) {
        if (hdr->rreq == 0) {
            *why_p = "naming no receive (field rreq)";
            return TN_ERR_PROTO;
        }
        m->id2 = hdr->rreq;
        return TN_OK;
    }
    if (!req->active || req->complete || !p->have_hello) {
        *why_p = "for a receive in no epoch (field rreq)";
        return TN_ERR_PROTO;
    }
    if (hdr->size != m->len) {
        *why_p = "whose size is not its payload's (field size)";
        return TN_ERR_PROTO;
    }
    if (m->len > 0) {
        if (hdr->addr > p->stotal || m->len > p->stotal - hdr->addr) {
            *why_p = "with a piece outside the message (field addr)";
            return TN_ERR_PROTO;
        }
    } else {
        int first = hdr->tag;
        if (p->stotal != 0) {
            *why_p = "with no data for a message that has some (field size)";
            return TN_ERR_PROTO;
        }
        if (first < 0 || first > p->sparts) {
            *why_p = "with a partition out of range (field tag)";
            return TN_ERR_PROTO;
        }
        if (hdr->ctx > (uint32_t)(p->sparts - first)) {
            *why_p = "with a partition count out of range (field ctx)";
            return TN_ERR_PROTO;
        }
    }
    m->addr = hdr->addr;
    return TN_OK;
err:
    *why_p = why;
    return TN_ERR_PROTO;
}

/* ------------------------------------------------------------- requests */

static tn_status_t tn_part_start(tn_req_t *req)
{
    tn_part_t *p = req->cb_arg;
    p->epoch++;
    memset(p->state, 0, (size_t)p->parts);
    if (req->peer == TN_PROC_NULL) {
        req->status.source = TN_PROC_NULL;
        req->status.tag = TN_ANY_TAG;
        tn_req_complete(req);
        return TN_OK;
    }
    req->status.source = p->is_send ? req->comm->rank : req->peer;
    req->status.tag = req->tag;
    if (p->is_send) {
        p->nready = p->unsent = p->inflight = 0;
        tn_part_send_check(req, p);        /* no partitions: done */
        return TN_OK;
    }
    memset(p->got, 0, (size_t)p->parts * sizeof(*p->got));
    p->bytes_in = p->empty_in = 0;
    if (!p->have_hello) {
        return TN_OK;                       /* tn_part_hello_in goes on */
    }
    tn_status_t st = tn_part_recv_go(req, p);
    if (st != TN_OK) {
        req->status.error = st;
        tn_req_complete(req);
    }
    return st;
}

static void tn_part_fini(tn_req_t *req)
{
    tn_part_t *p = req->cb_arg;
    if (p == NULL) {
        return;
    }
    if (p->hello != NULL) {
        tn_match_posted_remove(p->hello_mc, p->hello);
        tn_req_release(p->hello);
    }
    free(p->state);
    free(p->got);
    free(p->pack);
    free(p);
    req->cb_arg = NULL;
}

tn_status_t tn_part_init(int is_send, const void *buf, int partitions, size_t count,
                         const tn_dt_t *dt, int peer, int tag, tn_comm_t *comm,
                         tn_req_t **req_p)
{
    tn_part_t *p = calloc(1, sizeof(*p));
    if (p == NULL) {
        return TN_ERR_NOMEM;
    }
    p->is_send = is_send;
    p->serial = ++tn_part_serial;
    p->parts = partitions;
    p->count = count;
    p->part_bytes = tn_dt_bytes(dt, count);
    p->total = p->part_bytes * (size_t)partitions;
    p->user_buf = (void *)buf;
    p->data = (char *)buf;
    size_t nparts = partitions > 0 ? (size_t)partitions : 1;
    p->state = calloc(nparts, 1);
    if (!is_send) {
        p->got = calloc(nparts, sizeof(*p->got));
    }
    if (!dt->is_contig && p->total > 0) {
        p->pack = malloc(p->total);
        p->data = p->pack;
    }
    tn_req_t *req = NULL;
    if (p->state == NULL || (!is_send && p->got == NULL) ||
        (p->data == NULL && p->total > 0) ||
        (req = tn_req_new_generic(1, tn_part_start, tn_part_fini, p)) == NULL) {
        free(p->state);
        free(p->got);
        free(p->pack);
        free(p);
        return TN_ERR_NOMEM;
    }
    tn_comm_retain(comm);
    req->comm = comm;
    req->peer = peer;
    req->tag = tag;
    req->dt = dt;
    tn_dt_retain(dt);
    req->count = count * (size_t)partitions;
    req->user_buf = (void *)buf;
    req->status.source = TN_PROC_NULL;
    if (peer != TN_PROC_NULL) {
        p->world = tn_comm_world_rank(comm, peer);
        tn_status_t st = is_send ? tn_part_hello_send(req, p) : tn_part_hello_post(req, p);
        if (st != TN_OK) {
            tn_req_release(req);        /* tn_part_fini frees p */
            return st;
        }
    }
    *req_p = req;
    return TN_OK;
}

int tn_part_kind(const tn_req_t *req)
{
    const tn_part_t *p = tn_part_of(req);
    return p == NULL ? 0 : p->is_send ? 1 : 2;
}

int tn_part_partitions(const tn_req_t *req)
{
    return ((const tn_part_t *)req->cb_arg)->parts;
}

int tn_part_is_ready(const tn_req_t *req, int i)
{
    return ((const tn_part_t *)req->cb_arg)->state[i] != TN_PART_IDLE;
}

tn_status_t tn_part_ready(tn_req_t *req, int first, int n)
{
    tn_part_t *p = req->cb_arg;
    if (n <= 0) {
        return TN_OK;
    }
    size_t off = (size_t)first * p->part_bytes, len = (size_t)n * p->part_bytes;
    if (p->pack != NULL && len > 0) {
        tn_dt_pack_partial(req->dt, p->user_buf, p->count * (size_t)p->parts, off, len,
                           p->pack + off);
    }
    p->nready += n;
    if (req->peer == TN_PROC_NULL) {
        memset(p->state + first, TN_PART_SENT, (size_t)n);
        return TN_OK;
    }
    memset(p->state + first, TN_PART_READY, (size_t)n);
    p->unsent += n;
    if (p->cts < p->epoch) {
        return TN_OK;                   /* tn_part_am_cts sends it */
    }
    return tn_part_send_run(req, p, first, n);
}

int tn_part_arrived(const tn_req_t *req, int i)
{
    const tn_part_t *p = req->cb_arg;
    return !req->active || req->complete || p->state[i] != 0;
}
