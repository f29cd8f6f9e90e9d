/* The decode step of every active message (see am_decode.h). */
#include "p2p/am_decode.h"
#include "p2p/p2p_impl.h"
#include "runtime/rt.h"

#include <stdio.h>
#include <string.h>

static tn_p2p_stats_t tn_p2p_stats_own;
tn_p2p_stats_t *tn_p2p_st = &tn_p2p_stats_own;
void (*tn_am_violation_hook)(int world, unsigned type, const char *why);

const char *tn_am_type_name(unsigned type)
{
    static const char *const names[] = {
        [TN_AM_EAGER] = "EAGER", [TN_AM_FRAG] = "FRAG", [TN_AM_RTS] = "RTS",
        [TN_AM_CTS] = "CTS", [TN_AM_DATA] = "DATA", [TN_AM_FIN] = "FIN",
        [TN_AM_PCTS] = "PCTS", [TN_AM_PDATA] = "PDATA", [TN_AM_HELP] = "HELP",
        [TN_AM_CANCEL] = "CANCEL", [TN_AM_CANCEL_ACK] = "CANCEL_ACK",
    };
    if (type < sizeof(names) / sizeof(names[0]) && names[type] != NULL) {
        return names[type];
    }
    return "message of unknown type";
}

void tn_am_violation(int world, unsigned type, const char *why)
{
    char msg[200];
    tn_p2p_st->proto_errors++;
    if (tn_am_violation_hook != NULL) {
        tn_am_violation_hook(world, type, why);
    }
    snprintf(msg, sizeof(msg), "protocol error: rank %d sent a%s %s %s", world,
             type == TN_AM_EAGER ? "n" : "", tn_am_type_name(type), why);
    tn_rt_abort(1, msg);
}

/* A request id of ours in a message from world: a live request of kind. */
static struct tn_req *tn_am_req(uint64_t id, int world, tn_req_kind_t kind, const char **why_p,
                                const char *unknown, const char *stale, const char *other,
                                const char *wrong_kind)
{
    tn_reqid_res_t res;
    struct tn_req *req = tn_req_by_id(id, &res);
    if (req == NULL) {
        *why_p = res == TN_REQID_STALE ? stale : unknown;
        return NULL;
    }
    if (req->kind != kind) {
        *why_p = wrong_kind;
        return NULL;
    }
    if (req->world != world) {
        *why_p = other;
        return NULL;
    }
    return req;
}

#define TN_AM_SREQ(id, world, kind, why_p)                                            \
    tn_am_req(id, world, kind, why_p, "naming an unknown request (field sreq)",      \
              "naming a released request (field sreq)",                              \
              "naming another rank's request (field sreq)",                          \
              "naming a request of another kind (field sreq)")
#define TN_AM_RREQ(id, world, kind, why_p)                                            \
    tn_am_req(id, world, kind, why_p, "naming an unknown request (field rreq)",      \
              "naming a released request (field rreq)",                              \
              "naming another rank's request (field rreq)",                          \
              "naming a request of another kind (field rreq)")

/* a message on a communicator's point-to-point context (even ids; the
 * collective context is ctx + 1) carries an MPI tag, >= 0: a negative one
 * (MPI_ANY_TAG's value) would reach the application's status */
#define TN_AM_WHY_TAG "with a negative tag (field tag)"
static int tn_am_tag_bad(const tn_am_hdr_t *hdr)
{
    return hdr->tag < 0 && (hdr->ctx & 1) == 0 && !(hdr->ctx & TN_PART_CTX_BIT);
}

/* ctx (a partitioned hello's: its communicator's) is an id this process
 * claimed: every member of a communicator claims its ids before any member
 * can use them (comm/comm_ctx.c), so no other id can come from a peer of
 * ours, and an unknown one must not cost a matching context of its own
 * (p2p/match.c keeps one for every id a message names) */
#define TN_AM_WHY_CTX "naming a context id this rank never agreed on (field ctx)"

static int tn_am_src_ok(const tn_am_hdr_t *hdr)
{
    /* a communicator rank: no group is larger than the processes we know */
    return hdr->src >= 0 && hdr->src < tn_rt.nprocs;
}

/* ctx names a communicator this process has (the fast path), or at least
 * an id it claimed; src is the sender's own rank in that communicator, when
 * this process has it already (else tn_match_unexp_find checks it later).
 * The reason when not. */
static const char *tn_am_ctx_src(int world, const tn_am_hdr_t *hdr)
{
    const tn_comm_t *comm = tn_match_comm(hdr->ctx);

    if (comm == NULL && !tn_comm_ctx_claimed(hdr->ctx & ~TN_PART_CTX_BIT)) {
        return TN_AM_WHY_CTX;
    }
    return tn_comm_src_is(comm, hdr->src, world) ? NULL : TN_AM_WHY_NOT_SENDER;
}

/* Where a matchable message comes from (EAGER, RTS, CANCEL): its src, its
 * ctx and, when tag != 0, its tag.  The reason when not right. */
static const char *tn_am_origin(int world, const tn_am_hdr_t *hdr, int tag)
{
    const char *why;
    if (!tn_am_src_ok(hdr)) {
        return "with a rank out of range (field src)";
    }
    if ((why = tn_am_ctx_src(world, hdr)) != NULL) {
        return why;
    }
    return tag && tn_am_tag_bad(hdr) ? TN_AM_WHY_TAG : NULL;
}

static const char *tn_am_decode_eager(int world, const tn_am_hdr_t *hdr, const void *payload,
                                      size_t len, tn_am_msg_t *m)
{
    const tn_peer_t *peer = &tn_peers[world];
    const char *why;
    if (hdr->flags & ~(TN_AM_F_SYNC | TN_AM_F_INLINE)) {
        return "with unknown flags (field flags)";
    }
    if ((hdr->flags & TN_AM_F_SYNC) && (hdr->flags & TN_AM_F_INLINE)) {
        return "both synchronous and inline (field flags)";
    }
    if ((why = tn_am_origin(world, hdr, 1)) != NULL) {
        return why;
    }
    if (peer->in_req != NULL || peer->in_unexp != NULL) {
        return "before the previous message was complete (field type)";
    }
    /* a partitioned hello is matched by a receive its request owns and may
     * release at once: it must be whole when it arrives (p2p/part.c) */
    if ((hdr->ctx & TN_PART_CTX_BIT) && !(hdr->flags & TN_AM_F_INLINE)) {
        return "on a partitioned context not inline (field flags)";
    }
    if ((hdr->ctx & TN_PART_CTX_BIT) && hdr->size != TN_PART_HELLO_BYTES) {
        return "on a partitioned context of another size than a hello (field size)";
    }
    if (hdr->flags & TN_AM_F_INLINE) {
        if (hdr->size > TN_AM_INLINE_MAX) {
            return "declaring more inline bytes than the header holds (field size)";
        }
        m->payload = &hdr->sreq;
        m->len = (size_t)hdr->size;
        return NULL;
    }
    /* what the unexpected buffer is sized by: the sender switches to
     * rendezvous above the transport's eager limit */
    if (hdr->size > peer->eager_limit) {
        return "declaring a size above the eager limit (field size)";
    }
    if (len > hdr->size) {
        return "with more payload than its declared size (field size)";
    }
    m->peer_id = hdr->sreq;
    m->payload = payload;
    m->len = len;
    return NULL;
}

static const char *tn_am_decode_frag(int world, const tn_am_hdr_t *hdr, const void *payload,
                                     size_t len, tn_am_msg_t *m)
{
    const tn_peer_t *peer = &tn_peers[world];
    if (hdr->flags != 0) {
        return "with unknown flags (field flags)";
    }
    if (hdr->size != len || len == 0) {
        return "whose size is not its payload's (field size)";
    }
    if (peer->in_req != NULL) {
        const struct tn_req *req = peer->in_req;
        if (req->offset > req->msg_size || len > req->msg_size - req->offset) {
            return "reaching beyond the end of its message (field size)";
        }
        m->req = peer->in_req;
    } else if (peer->in_unexp != NULL) {
        const tn_unexp_t *ux = peer->in_unexp;
        if (ux->recvd > ux->size || len > ux->size - ux->recvd) {
            return "reaching beyond the end of its message (field size)";
        }
        m->ux = peer->in_unexp;
    } else {
        return "with no message in progress (field type)";
    }
    m->payload = payload;
    m->len = len;
    return NULL;
}

static const char *tn_am_decode_rts(int world, const tn_am_hdr_t *hdr, tn_am_msg_t *m)
{
    const char *why;
    if (hdr->flags & ~TN_AM_F_PACK) {
        return "with unknown flags (field flags)";
    }
    if ((why = tn_am_origin(world, hdr, 1)) != NULL) {
        return why;
    }
    if (hdr->ctx & TN_PART_CTX_BIT) {
        return "on a partitioned context (field ctx)";
    }
    /* the address is only ever read through the transport's copy from the
     * sender's own memory, which the kernel checks; it must describe a
     * range at all */
    if (!(hdr->flags & TN_AM_F_PACK) && hdr->size > 0 &&
        (hdr->addr == 0 || hdr->addr + hdr->size < hdr->addr)) {
        return "with an invalid buffer address (field addr)";
    }
    m->peer_id = hdr->sreq;
    m->addr = hdr->addr;
    return NULL;
}

static const char *tn_am_decode_cts(int world, const tn_am_hdr_t *hdr, tn_am_msg_t *m)
{
    const char *why = NULL;
    if (hdr->flags != 0) {
        return "with unknown flags (field flags)";
    }
    struct tn_req *req = TN_AM_SREQ(hdr->sreq, world, TN_REQ_SEND, &why);
    if (req == NULL) {
        return why;
    }
    if (req->proto != TN_PROTO_RNDV || req->stage != TN_SEND_WAIT) {
        return "naming a send that waits for no CTS (field sreq)";
    }
    if (hdr->size > req->bytes) {
        return "asking for more bytes than the message has (field size)";
    }
    if (hdr->rreq == 0) {
        return "naming no receive (field rreq)";
    }
    m->req = req;
    m->id2 = hdr->rreq;
    return NULL;
}

static const char *tn_am_decode_data(int world, const tn_am_hdr_t *hdr, const void *payload,
                                     size_t len, tn_am_msg_t *m)
{
    const char *why = NULL;
    if (hdr->flags != 0) {
        return "with unknown flags (field flags)";
    }
    struct tn_req *req = TN_AM_RREQ(hdr->rreq, world, TN_REQ_RECV, &why);
    if (req == NULL) {
        return why;
    }
    if (req->rx != TN_RECV_STREAM) {
        return "naming a receive that waits for no data (field rreq)";
    }
    if (hdr->size != len || len == 0) {
        return "whose size is not its payload's (field size)";
    }
    /* the range the receive registered with its CTS: [0, expect) */
    if (hdr->addr > req->expect || len > req->expect - hdr->addr) {
        return "with a piece outside the receive's range (field addr)";
    }
    m->req = req;
    m->addr = hdr->addr;
    m->payload = payload;
    m->len = len;
    return NULL;
}

static const char *tn_am_decode_fin(int world, const tn_am_hdr_t *hdr, tn_am_msg_t *m)
{
    const char *why = NULL;
    if (hdr->flags != 0) {
        return "with unknown flags (field flags)";
    }
    struct tn_req *req = TN_AM_SREQ(hdr->sreq, world, TN_REQ_SEND, &why);
    if (req == NULL) {
        return why;
    }
    int rndv = req->proto == TN_PROTO_RNDV;
    int sync = req->proto == TN_PROTO_EAGER && req->mode == TN_SEND_SYNC;
    if (req->stage != TN_SEND_WAIT || !(rndv || sync)) {
        return "naming a send that waits for no FIN (field sreq)";
    }
    m->req = req;
    return NULL;
}

static const char *tn_am_decode_help(int world, const tn_am_hdr_t *hdr, tn_am_msg_t *m)
{
    const char *why = NULL;
    if (hdr->flags != 0) {
        return "with unknown flags (field flags)";
    }
    struct tn_req *req = TN_AM_SREQ(hdr->sreq, world, TN_REQ_SEND, &why);
    if (req == NULL) {
        return why;
    }
    if (req->proto != TN_PROTO_RNDV || req->stage != TN_SEND_WAIT || req->pack ||
        !(tn_peers[world].caps & TN_XPORT_CAP_COOP)) {
        return "naming a send that cannot be helped (field sreq)";
    }
    m->req = req;
    m->id2 = hdr->rreq;        /* the transport checks its own transfer id */
    return NULL;
}

static const char *tn_am_decode_cancel(int world, const tn_am_hdr_t *hdr, tn_am_msg_t *m)
{
    const char *why;
    if (hdr->flags != 0) {
        return "with unknown flags (field flags)";
    }
    if ((why = tn_am_origin(world, hdr, 0)) != NULL) {
        return why;
    }
    m->peer_id = hdr->sreq;    /* compared with the ids of its own messages only */
    return NULL;
}

static const char *tn_am_decode_cancel_ack(int world, const tn_am_hdr_t *hdr, tn_am_msg_t *m)
{
    const char *why = NULL;
    if (hdr->flags & ~TN_AM_F_WITHDRAWN) {
        return "with unknown flags (field flags)";
    }
    struct tn_req *req = TN_AM_SREQ(hdr->sreq, world, TN_REQ_SEND, &why);
    if (req == NULL) {
        return why;
    }
    if (req->cancel == TN_CANCEL_NONE) {
        return "naming a send not asked back (field sreq)";
    }
    if ((hdr->flags & TN_AM_F_WITHDRAWN) &&
        (req->cancel == TN_CANCEL_HELD || req->stage != TN_SEND_WAIT)) {
        return "withdrawing a send it had answered (field flags)";
    }
    m->req = req;
    return NULL;
}

tn_status_t tn_am_decode(int world, const tn_am_hdr_t *hdr, const void *payload, size_t len,
                         tn_am_msg_t *m, const char **why_p)
{
    const char *why;
    memset(m, 0, sizeof(*m));
    m->type = hdr->type;
    m->flags = hdr->flags;
    m->src = hdr->src;
    m->ctx = hdr->ctx;
    m->tag = hdr->tag;
    m->size = hdr->size;
    switch (hdr->type) {
    case TN_AM_EAGER:      why = tn_am_decode_eager(world, hdr, payload, len, m); break;
    case TN_AM_FRAG:       why = tn_am_decode_frag(world, hdr, payload, len, m); break;
    case TN_AM_RTS:        why = tn_am_decode_rts(world, hdr, m); break;
    case TN_AM_CTS:        why = tn_am_decode_cts(world, hdr, m); break;
    case TN_AM_DATA:       why = tn_am_decode_data(world, hdr, payload, len, m); break;
    case TN_AM_FIN:        why = tn_am_decode_fin(world, hdr, m); break;
    case TN_AM_HELP:       why = tn_am_decode_help(world, hdr, m); break;
    case TN_AM_CANCEL:     why = tn_am_decode_cancel(world, hdr, m); break;
    case TN_AM_CANCEL_ACK: why = tn_am_decode_cancel_ack(world, hdr, m); break;
    case TN_AM_PCTS:
    case TN_AM_PDATA: {
        m->payload = payload;
        m->len = len;
        tn_status_t st = tn_part_decode(world, hdr, m, why_p);
        if (st != TN_OK) {
            memset(m, 0, sizeof(*m));
        }
        return st;
    }
    default:
        why = "(field type)";
        break;
    }
    if (why != NULL) {
        memset(m, 0, sizeof(*m));
        *why_p = why;
        return TN_ERR_PROTO;
    }
    return TN_OK;
}
