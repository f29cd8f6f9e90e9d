/* Cancelling sends (MPI_Cancel of a send request).
 *
 * A send none of which has left (still on its peer's queue at
 * TN_SEND_START) is taken off the queue and completes cancelled at once.
 *
 * A send the receiver may hold unmatched - a rendezvous whose RTS is out
 * and no CTS or FIN has come back (TN_SEND_WAIT), or a synchronous eager
 * send waiting for its FIN - is asked back:
 *
 *   sender                                receiver
 *   CANCEL {ctx, src, sreq}  ---------->  the message still on the
 *   (queued after every piece             unexpected queue, unmatched?
 *    of the message)                      yes: unlink and free it
 *                            <----------  CANCEL_ACK {sreq, F_WITHDRAWN}
 *                                         no (matched, maybe by Mprobe):
 *                            <----------  CANCEL_ACK {sreq}
 *
 * Active messages arrive in per-peer send order, so CANCEL finds every
 * piece of the message there already, and whatever the receiver sent on a
 * match (FIN, CTS) arrives before its CANCEL_ACK.  With F_WITHDRAWN the
 * request completes cancelled; the receiver never sent and never will send
 * anything for it.  Without, the send was matched: it completes normally,
 * and if it finished before the answer came (TN_CANCEL_HELD) it completes
 * when the answer comes, so that the id in the answer names a live request.
 *
 * Matching keeps no per-pair sequence numbers: non-overtaking follows from
 * in-order delivery and the order of the unexpected queue, from which the
 * withdrawn message is simply unlinked, so later messages from the same
 * sender match as if it had never been sent.
 *
 * Any other send - standard or ready eager that has left (it completes
 * locally), a rendezvous the receiver has answered - is not cancelled and
 * completes normally.  The answer needs the receiver's progress engine,
 * which every MPI call (MPI_Finalize included) drives. */
#include "p2p/p2p_impl.h"
#include "base/log.h"
#include "runtime/rt.h"

#include <string.h>

int tn_proto_send_cancel(struct tn_req *req)
{
    if (req->kind != TN_REQ_SEND || req->complete || req->cancel != TN_CANCEL_NONE ||
        (req->proto != TN_PROTO_EAGER && req->proto != TN_PROTO_RNDV)) {
        return 0;
    }
    if (req->stage == TN_SEND_START) {
        if (!tn_proto_sq_withdraw(req)) {
            tn_log_error("p2p", "an unstarted send is not on its peer's queue");
            return 0;
        }
        req->status.cancelled = 1;
        req->status.bytes = 0;
        tn_proto_send_complete(req);
        return 1;
    }
    int held_by_receiver = (req->proto == TN_PROTO_RNDV && req->stage == TN_SEND_WAIT) ||
                           (req->proto == TN_PROTO_EAGER && req->mode == TN_SEND_SYNC &&
                            (req->stage == TN_SEND_PIECES || req->stage == TN_SEND_WAIT));
    if (!held_by_receiver) {
        return 0;
    }
    tn_am_hdr_t hdr;
    memset(&hdr, 0, sizeof(hdr));
    hdr.type = TN_AM_CANCEL;
    hdr.src = req->comm->rank;
    hdr.ctx = req->comm->ctx + req->coll;
    hdr.tag = req->tag;
    hdr.sreq = tn_req_id(req);
    req->cancel = TN_CANCEL_ASKED;
    if (tn_proto_send_hdr(req->world, &hdr) != TN_OK) {
        req->cancel = TN_CANCEL_NONE;      /* not cancelled: completes normally */
        return 0;
    }
    if (req->world == tn_rt.world_rank) {
        /* to myself the answer needs only my own progress: have it now, so
         * that a test right after MPI_Cancel sees the send cancelled (as in
         * other MPIs; mpi4py's pkl5 tests rely on it).  Only while progress
         * moves: a transport that holds the message back leaves it for later */
        while (req->cancel != TN_CANCEL_NONE && tn_progress() > 0) {
        }
        return req->cancel == TN_CANCEL_NONE && req->status.cancelled;
    }
    return 0;
}

/* Both take decoded messages (p2p/am_decode.c). */
void tn_cancel_am_req(int world, const tn_am_msg_t *m)
{
    tn_match_ctx_t *mc = tn_match_ctx_get(m->ctx, 0);
    tn_unexp_t *ux = NULL;
    if (mc != NULL) {
        ux = tn_match_unexp_withdraw(mc, m->src, world, m->peer_id);
    }
    tn_am_hdr_t ack;
    memset(&ack, 0, sizeof(ack));
    ack.type = TN_AM_CANCEL_ACK;
    ack.sreq = m->peer_id;
    if (ux != NULL) {
        ack.flags = TN_AM_F_WITHDRAWN;
        tn_unexp_free(ux);
    }
    if (tn_proto_send_hdr(world, &ack) != TN_OK) {
        tn_rt_abort(1, "out of memory for a control message");
    }
}

void tn_cancel_am_ack(int world, const tn_am_msg_t *m)
{
    struct tn_req *req = m->req;      /* a send of ours to world, asked back */
    int held = (req->cancel == TN_CANCEL_HELD);
    req->cancel = TN_CANCEL_NONE;
    if (!(m->flags & TN_AM_F_WITHDRAWN)) {
        if (held) {
            tn_proto_send_complete(req);
        }
        return;
    }
    if (req->proto == TN_PROTO_RNDV && tn_peers[world].rndv_out > 0) {
        tn_peers[world].rndv_out--;
    }
    req->status.cancelled = 1;
    req->status.bytes = 0;
    tn_proto_send_complete(req);
}
