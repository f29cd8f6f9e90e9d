/* Internals of the messaging core: request layout, unexpected messages,
 * matching contexts, per-peer state.  Not for use outside src/p2p. */
#ifndef TN_P2P_P2P_IMPL_H
#define TN_P2P_P2P_IMPL_H

#include "p2p/p2p.h"
#include "p2p/am_decode.h"
#include "xport/xport.h"

typedef struct tn_unexp {
    struct tn_unexp *snext, *sprev;    /* per-source list of its context */
    struct tn_unexp *gnext, *gprev;    /* all sources, arrival order */
    int              src;
    int              tag;
    int              world;            /* world rank of the sender */
    uint8_t          type;             /* TN_AM_EAGER or TN_AM_RTS */
    uint8_t          flags;            /* TN_AM_F_* of the EAGER or RTS */
    uint8_t          src_checked;      /* src was checked against the communicator's
                                          ranks (it was known on arrival) */
    uint64_t         size;             /* message bytes */
    uint64_t         sreq;
    uint64_t         addr;             /* RTS: sender buffer */
    char            *data;             /* EAGER: received bytes */
    size_t           recvd;
    int              complete;         /* all pieces arrived */
    struct tn_req   *waiting;          /* receive matched before completion */
    uint32_t         ctx;
    char             small[64];
} tn_unexp_t;

typedef struct {
    struct tn_req *head, *tail;
} tn_req_list_t;

typedef struct {
    tn_unexp_t *head, *tail;
} tn_unexp_list_t;

typedef struct tn_match_ctx {
    uint32_t              ctx;
    struct tn_match_ctx  *hnext;
    int                   nbins;
    tn_req_list_t        *posted;      /* [src]: receives from a known source */
    tn_req_list_t         posted_any;  /* ANY_SOURCE receives */
    tn_unexp_list_t      *unexp;       /* [src] */
    tn_unexp_list_t       unexp_all;   /* arrival order, via gnext */
    uint64_t              post_seq;
    /* the communicator this context is one of (tn_p2p_comm_attach), whose
     * ranks a message's src names; NULL before it exists here and after
     * it is freed.  Not set on partitioned contexts: their hellos name
     * ranks of the communicator of ctx & ~TN_PART_CTX_BIT. */
    tn_comm_t            *comm;
} tn_match_ctx_t;

/* Is src, as a message from world rank world names its sender, that
 * sender's rank among comm's point-to-point ranks?  No communicator (not
 * made here yet, or freed) counts as yes: a message that came before its
 * communicator is checked when a receive or probe finds it
 * (tn_match_unexp_find). */
static inline int tn_comm_src_is(const tn_comm_t *comm, int src, int world)
{
    return comm == NULL ||
           (src >= 0 && src < tn_comm_peer_size(comm) && comm->peer_world[src] == world);
}

#define TN_AM_WHY_NOT_SENDER \
    "naming a rank that is not the sender's in its communicator (field src)"

typedef struct {
    const tn_xport_ops_t *xp;
    struct tn_req        *sq_head, *sq_tail;  /* sends waiting for room */
    /* where FRAG pieces of the current incoming eager message go */
    struct tn_req        *in_req;
    tn_unexp_t           *in_unexp;
    size_t                max_payload;
    size_t                pack_max;    /* largest piece of a packed (derived type) stream */
    size_t                eager_limit;
    size_t                tiny_limit;
    unsigned              caps;
    unsigned              rndv_out;    /* our RTSs to the peer not yet answered (FIN/CTS) */
} tn_peer_t;

extern tn_peer_t *tn_peers;
extern int tn_peers_pending;        /* peers with a non-empty send queue */
extern int tn_sends_inflight;       /* started sends not complete yet */

/* request pool */
struct tn_req *tn_req_alloc(tn_req_kind_t kind);

/* Request ids on the wire.  No pointer crosses the wire: a request's id is
 * its slot in this process's request table and the slot's generation,
 * packed as gen << 32 | slot.  Pooled request memory keeps its slot for
 * life (p2p/request.c); the generation is bumped each time the memory is
 * handed out again, so the id of a released request never names its
 * successor.  Generations start at 1: no id is 0.  Peers only echo our
 * ids; tn_req_by_id is the one way back from an id to a request. */
extern struct tn_req **tn_reqtab;
extern uint32_t tn_reqtab_len;

typedef enum {
    TN_REQID_OK = 0,
    TN_REQID_UNKNOWN,      /* no such slot, or a generation never issued */
    TN_REQID_STALE,        /* the request was released (maybe reused since) */
} tn_reqid_res_t;

static inline uint64_t tn_req_id(const struct tn_req *req)
{
    return (uint64_t)req->gen << 32 | req->slot;
}

/* The live request named by id, or NULL with the reason in *res_p. */
static inline struct tn_req *tn_req_by_id(uint64_t id, tn_reqid_res_t *res_p)
{
    uint32_t slot = (uint32_t)id, gen = (uint32_t)(id >> 32);
    if (slot >= tn_reqtab_len || gen == 0) {
        *res_p = TN_REQID_UNKNOWN;
        return NULL;
    }
    struct tn_req *req = tn_reqtab[slot];
    if (req->gen != gen || req->magic != TN_REQ_MAGIC) {
        /* a later generation than the slot's was never handed out */
        *res_p = (int32_t)(gen - req->gen) > 0 ? TN_REQID_UNKNOWN : TN_REQID_STALE;
        return NULL;
    }
    *res_p = TN_REQID_OK;
    return req;
}
void tn_req_release(struct tn_req *req);
void tn_req_complete(struct tn_req *req);
/* An operation on req->comm starts / is over: comm->pending counts them
 * (MPI_Comm_disconnect waits for none).  Sends and receives count from
 * their start to their completion (or release); persistent ones only while
 * active, control messages and partitioned requests not at all. */
static inline void tn_req_pending_add(struct tn_req *req)
{
    req->comm->pending++;
    req->pending = 1;
}

static inline void tn_req_pending_done(struct tn_req *req)
{
    if (req->pending) {
        req->pending = 0;
        req->comm->pending--;
    }
}

/* matching */
tn_match_ctx_t *tn_match_ctx_get(uint32_t ctx, int create);
/* The communicator whose ranks a message on ctx names (a partitioned
 * hello's: that of ctx & ~TN_PART_CTX_BIT), or NULL if none is here. */
const tn_comm_t *tn_match_comm(uint32_t ctx);
/* Find the earliest posted receive matching (src, tag) and remove it. */
struct tn_req *tn_match_posted_take(tn_match_ctx_t *mc, int src, int tag);
void tn_match_post(tn_match_ctx_t *mc, struct tn_req *req);
int tn_match_posted_remove(tn_match_ctx_t *mc, struct tn_req *req);
/* Earliest unexpected message matching (src, tag); remove it if take.  One
 * that came before its communicator existed here has its src checked now:
 * a rank that did not send it ends the job (tn_am_violation). */
tn_unexp_t *tn_match_unexp_find(tn_match_ctx_t *mc, int src, int tag, int take);
void tn_match_unexp_add(tn_match_ctx_t *mc, tn_unexp_t *ux);
/* Remove the unexpected message of send sreq from world (comm rank src)
 * if it is still there, unmatched and wholly arrived (a cancelled send);
 * NULL otherwise.  The caller frees it. */
tn_unexp_t *tn_match_unexp_withdraw(tn_match_ctx_t *mc, int src, int world, uint64_t sreq);
void tn_unexp_free(tn_unexp_t *ux);
void tn_match_finalize(void);

/* Context bit of the partitioned handshakes (p2p/part.c): communicator
 * contexts are small even numbers, far below it.  The only message on such
 * a context is the hello, an inline EAGER of TN_PART_HELLO_BYTES, which
 * completes the moment it matches (am_decode.c refuses anything else). */
#define TN_PART_CTX_BIT     0x80000000u
#define TN_PART_HELLO_BYTES 24

/* protocols */
tn_status_t tn_proto_send_start(struct tn_req *req);
int tn_proto_progress_sends(void);
/* Queue a header-only active message to world after what is queued for
 * it (control messages; partitioned handshakes). */
tn_status_t tn_proto_send_hdr(int world, const tn_am_hdr_t *hdr);
/* Queue req (TN_REQ_SEND with world, buf, bytes and the header template in
 * ctrl set) to leave as PDATA pieces; it completes when the last is out. */
tn_status_t tn_proto_send_part(struct tn_req *req);
/* Partitioned messages (part.c). */
void tn_part_am_cts(int world, const tn_am_msg_t *m);
void tn_part_am_data(int world, const tn_am_msg_t *m);
/* Deliver a matched unexpected message into a receive request. */
void tn_proto_recv_unexp(struct tn_req *req, tn_unexp_t *ux);
/* Send cancellation (cancel.c).  TN_CANCEL_ASKED: CANCEL went to the
 * receiver, no answer yet; TN_CANCEL_HELD: the send finished meanwhile,
 * its completion waits for the answer (which names the request). */
typedef enum {
    TN_CANCEL_NONE = 0, TN_CANCEL_ASKED, TN_CANCEL_HELD
} tn_cancel_state_t;
int tn_proto_send_cancel(struct tn_req *req);
/* Take a send that has not started (TN_SEND_START) off its peer's queue;
 * 1 if it was there. */
int tn_proto_sq_withdraw(struct tn_req *req);
/* Complete a finished send (stage TN_SEND_DONE) or a withdrawn one. */
void tn_proto_send_complete(struct tn_req *req);
void tn_cancel_am_req(int world, const tn_am_msg_t *m);
void tn_cancel_am_ack(int world, const tn_am_msg_t *m);
tn_status_t tn_proto_init(int world_size, int world_rank);
/* The process table grew (runtime/proc.h): peers 0..npeers-1 exist. */
tn_status_t tn_proto_grow(int npeers);
void tn_proto_finalize(void);
void tn_p2p_am_recv(int peer, const tn_am_hdr_t *hdr, const void *payload, size_t len);

#endif
