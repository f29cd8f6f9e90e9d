/* Point-to-point messaging: requests, sends, receives, probes.
 *
 * All functions here are called with the progress lock held (see
 * runtime/progress.h) and never block, except tn_req_wait*, which drive
 * progress until completion.  Ranks are communicator ranks; `coll` selects the
 * communicator's collective context (1) instead of the point-to-point one (0).
 *
 * Request ownership: tn_p2p_isend/irecv return a request the caller owns;
 * tn_req_free releases it (immediately when complete, otherwise when it
 * completes: MPI_Request_free semantics). */
#ifndef TN_P2P_P2P_H
#define TN_P2P_P2P_H

#include <stddef.h>
#include <stdint.h>
#include "base/status.h"
#include "comm/comm.h"
#include "dt/dt.h"
#include "xport/xport.h"

#define TN_REQ_MAGIC 0x54524551u      /* "TREQ" */

#define TN_ANY_SOURCE (-1)
#define TN_ANY_TAG    (-2)
#define TN_PROC_NULL  (-3)

typedef enum {
    TN_SEND_STD = 0, TN_SEND_SYNC, TN_SEND_READY, TN_SEND_BUFFERED
} tn_send_mode_t;

typedef enum {
    TN_REQ_SEND = 1, TN_REQ_RECV, TN_REQ_GENERIC
} tn_req_kind_t;

/* What MPI_Status carries, in internal form. */
typedef struct {
    int      source;
    int      tag;
    int      error;       /* tn_status_t of the operation */
    int      cancelled;
    uint64_t bytes;       /* bytes received (or sent) */
} tn_msg_status_t;

typedef struct tn_req tn_req_t;

/* The request object.  Its layout is visible so that completion checks on
 * hot paths inline; only src/p2p writes it. */
typedef enum {
    TN_PROTO_EAGER = 1,    /* header + payload pieces */
    TN_PROTO_RNDV,         /* RTS, then FIN (receiver read it) or CTS + DATA */
    TN_PROTO_CTRL,         /* an internal control message (CTS, FIN) */
    TN_PROTO_PART,         /* partitioned data: PDATA pieces (p2p/part.c) */
} tn_proto_t;

typedef enum {
    TN_SEND_START = 0,     /* nothing sent yet */
    TN_SEND_PIECES,        /* first piece out; sending FRAG/DATA pieces */
    TN_SEND_WAIT,          /* everything out; waiting for FIN or CTS */
    TN_SEND_REFS,          /* everything out by reference; waiting for the
                            * transport to release the buffer (ref_done) */
    TN_SEND_DONE,
} tn_send_stage_t;

/* Receive side of a rendezvous: after CTS the receive takes DATA pieces
 * from the sender's world rank (req->world) until expect bytes are in. */
typedef enum {
    TN_RECV_IDLE = 0,
    TN_RECV_STREAM,
} tn_recv_stage_t;

struct tn_unexp;

struct tn_req {
    uint32_t         magic;
    uint8_t          kind;          /* tn_req_kind_t */
    uint8_t          proto;         /* tn_proto_t (send side) */
    uint8_t          stage;         /* tn_send_stage_t (send side) */
    uint8_t          coll;
    uint8_t          pull;          /* receive: TN_P2P_PULL was asked for */
    uint8_t          direct;        /* receive: the transport places DATA in buf
                                       (recv_direct), until recv_direct_end */
    uint8_t          cancel;        /* send: tn_cancel_state_t (p2p/cancel.c) */
    uint8_t          rx;            /* recv: tn_recv_stage_t (rendezvous stream) */
    volatile int     complete;
    uint32_t         slot;          /* index in the request id table (p2p/reqid.c) */
    uint32_t         gen;           /* generation: bumped each time the slot is reused */
    int              user_freed;    /* MPI_Request_free: release at completion */
    int              in_posted;     /* on a posted-receive queue */
    int              pending;       /* counted in comm->pending */
    tn_msg_status_t  status;
    tn_comm_t       *comm;          /* retained while the request lives */
    int              peer;          /* communicator rank (or ANY_SOURCE) */
    int              world;         /* world rank of peer (sends) */
    int              tag;
    const tn_dt_t   *dt;
    size_t           count;
    void            *buf;           /* the user's buffer (contiguous: its bytes) */
    size_t           bytes;         /* send: message bytes; recv: capacity */
    void            *pack_buf;      /* owned memory freed with the request */
    void            *user_buf;      /* the user's buffer as given */
    int              pack;          /* non-contiguous dt: every piece is packed
                                       from / unpacked into user_buf on the fly */
    tn_send_mode_t   mode;
    size_t           offset;        /* bytes of payload sent/received so far */
    size_t           expect;        /* recv: bytes that will land in buf */
    uint64_t         msg_size;      /* recv: bytes of the matched message */
    uint64_t         rreq;          /* send (CTS path): receiver's request id;
                                       recv: a synchronous sender's id, owed FIN
                                       when the last eager piece arrives */
    uint32_t         refs;          /* send: pieces the transport holds by reference */
    tn_am_hdr_t      ctrl;          /* TN_PROTO_CTRL: the header to send;
                                     * TN_PROTO_PART: the pieces' header, addr
                                     * the offset of buf in the message */
    const tn_xport_ops_t *xp;
    struct tn_req   *qnext;         /* per-peer send queue */
    struct tn_req   *next, *prev;   /* posted queues / free list */
    uint64_t         post_seq;
    struct tn_unexp *unexp;         /* recv waiting for the rest of an unexpected message */
    void           (*on_complete)(struct tn_req *req);
    void            *cb_arg;
    /* MPI-layer persistent requests and other generic requests */
    int              persistent;
    int              active;
    struct tn_req   *inner;
    int              pers_kind;     /* send/recv for persistent */
    const void      *pers_sbuf;
    int              pers_mode;
    /* TN_REQ_GENERIC requests of other layers (collective schedules) */
    tn_status_t    (*gen_start)(struct tn_req *req);
    void           (*gen_fini)(struct tn_req *req);
    void            *ext;           /* MPI layer: generalized request state */
};


/* Start a send of count elements of dt to comm rank dest. */
tn_status_t tn_p2p_isend(const void *buf, size_t count, const tn_dt_t *dt, int dest,
                         int tag, tn_comm_t *comm, int coll, tn_send_mode_t mode,
                         tn_req_t **req_p);
/* Or'ed into tn_p2p_irecv's coll: read a rendezvous sent to this receive
 * in place (single copy) when the transport can, whatever
 * TERN_RNDV_CMA_MIN says.  For collectives whose every rank waits on many
 * peers at once, where streaming would need each pair scheduled together. */
#define TN_P2P_PULL 2
/* Post a receive (src may be TN_ANY_SOURCE, tag TN_ANY_TAG, src TN_PROC_NULL). */
tn_status_t tn_p2p_irecv(void *buf, size_t count, const tn_dt_t *dt, int src, int tag,
                         tn_comm_t *comm, int coll, tn_req_t **req_p);

/* Blocking conveniences for collectives: start, wait, free. */
tn_status_t tn_p2p_send(const void *buf, size_t count, const tn_dt_t *dt, int dest,
                        int tag, tn_comm_t *comm, int coll);
tn_status_t tn_p2p_recv(void *buf, size_t count, const tn_dt_t *dt, int src, int tag,
                        tn_comm_t *comm, int coll, tn_msg_status_t *status_p);
tn_status_t tn_p2p_sendrecv(const void *sbuf, size_t scount, const tn_dt_t *sdt, int dest,
                            int stag, void *rbuf, size_t rcount, const tn_dt_t *rdt,
                            int src, int rtag, tn_comm_t *comm, int coll,
                            tn_msg_status_t *status_p);

/* Bind comm->ctx / ctx+1 to their matching contexts (creating them if
 * messages for them arrived early), and unbind before the comm is freed. */
tn_status_t tn_p2p_comm_attach(tn_comm_t *comm);
void tn_p2p_comm_detach(tn_comm_t *comm);

/* Completion. */
static inline int tn_req_is_complete(const tn_req_t *req)
{
    return req->complete;
}

static inline int tn_req_is_persistent(const tn_req_t *req)
{
    return req->persistent;
}

static inline int tn_req_is_active(const tn_req_t *req)
{
    return req->active;
}

static inline tn_req_kind_t tn_req_kind(const tn_req_t *req)
{
    return (tn_req_kind_t)req->kind;
}

static inline const tn_msg_status_t *tn_req_status(const tn_req_t *req)
{
    return &req->status;
}

static inline int tn_req_valid(const tn_req_t *req)
{
    return req != NULL && req->magic == TN_REQ_MAGIC;
}

/* Drive progress until req completes; fills *status_p (may be NULL); does
 * not free the request. */
tn_status_t tn_req_wait(tn_req_t *req, tn_msg_status_t *status_p);
/* Wait for all n requests (NULL entries are skipped), free them, return the
 * first error. */
tn_status_t tn_req_waitall_free(int n, tn_req_t **reqs);
void tn_req_free(tn_req_t *req);
/* Call fn for every request that has started and not completed, internal
 * ones (of collectives, of MPI_Sendrecv) included, persistent ones as their
 * running inner requests; fn only looks.  Not for a fast path: it scans
 * every request this process ever allocated (hang reports). */
void tn_req_foreach_pending(void (*fn)(const tn_req_t *req, void *arg), void *arg);

/* Set-up (after the runtime), teardown, and the hooks the runtime calls:
 * arrivals from every transport and the core's own progress. */
struct tn_am_hdr;
void tn_p2p_am_recv(int peer, const struct tn_am_hdr *hdr, const void *payload, size_t len);
/* A transport no longer needs the memory of a send's data sent by reference
 * (cookie: the send request). */
void tn_p2p_ref_done(void *cookie);
tn_status_t tn_p2p_init(void);
/* The runtime's peers_grow hook (runtime/rt.h). */
tn_status_t tn_p2p_peers_grow(int nprocs);
void tn_p2p_finalize(void);
/* Wait until every send this process started has completed (MPI_Finalize:
 * buffered and freed requests included). */
void tn_p2p_flush(void);
int tn_p2p_progress(void);

/* Persistent requests: created inactive (complete), armed by tn_p2p_start.
 * Completion leaves them allocated; MPI_Wait deactivates them. */
tn_status_t tn_p2p_persistent_init(int is_send, const void *buf, size_t count,
                                   const tn_dt_t *dt, int peer, int tag, tn_comm_t *comm,
                                   tn_send_mode_t mode, tn_req_t **req_p);
tn_status_t tn_p2p_start(tn_req_t *req);
/* The arguments a persistent request was created with. */
void tn_req_get_args(const tn_req_t *req, const void **buf_p, size_t *count_p,
                     const tn_dt_t **dt_p, int *peer_p, int *tag_p, tn_comm_t **comm_p,
                     tn_send_mode_t *mode_p);
/* Mark a persistent request active and already complete (buffered sends). */
void tn_req_set_started_complete(tn_req_t *req);
void tn_req_deactivate(tn_req_t *req);
/* Run fn(req) at completion instead of the default handling (the callback
 * owns the request then). */
void tn_req_set_callback(tn_req_t *req, void (*fn)(tn_req_t *req), void *arg);
void *tn_req_callback_arg(const tn_req_t *req);
/* A generic request driven by another layer (collective schedules): arg is
 * kept in cb_arg; fini(req) runs when the request is released; a
 * persistent one is created inactive and tn_p2p_start calls start(req)
 * after marking it active.  tn_req_generic_done completes it with st (and
 * an empty status); it may release the request (MPI_Request_free). */
tn_req_t *tn_req_new_generic(int persistent, tn_status_t (*start)(tn_req_t *req),
                             void (*fini)(tn_req_t *req), void *arg);
void tn_req_generic_done(tn_req_t *req, tn_status_t st);
/* A request that is already complete (status of MPI_PROC_NULL). */
tn_req_t *tn_req_new_completed(void);
/* A generic request that completes when tn_req_finish is called on it
 * (MPI_Grequest_start / MPI_Grequest_complete); ext is kept for the caller. */
tn_req_t *tn_req_new_pending(void *ext);
void tn_req_finish(tn_req_t *req);

/* Probes on the point-to-point context.  take != 0 removes the message
 * (MPI_Mprobe) and returns it in *msg_p for tn_p2p_imrecv. */
int tn_p2p_iprobe(int src, int tag, tn_comm_t *comm, int take, tn_msg_status_t *status_p,
                  void **msg_p);
void tn_p2p_probe(int src, int tag, tn_comm_t *comm, int take, tn_msg_status_t *status_p,
                  void **msg_p);
tn_status_t tn_p2p_imrecv(void *buf, size_t count, const tn_dt_t *dt, void *msg,
                          tn_comm_t *comm, tn_req_t **req_p);
/* A send and a receive as one request (MPI_Isendrecv): it completes when
 * both halves have, with the receive's status (or the send's error).
 * owned (may be NULL) is freed with the request. */
tn_status_t tn_p2p_isendrecv(const void *sbuf, size_t scount, const tn_dt_t *sdt, int dest,
                             int stag, void *rbuf, size_t rcount, const tn_dt_t *rdt, int src,
                             int rtag, tn_comm_t *comm, void *owned, tn_req_t **req_p);
/* MPI_Cancel.  A receive that has not matched yet is cancelled at once.
 * A send is withdrawn at once while none of it has left; a synchronous or
 * rendezvous send that the receiver may still hold unmatched is asked back
 * (p2p/cancel.c) and completes later, cancelled if the receiver had not
 * matched it, normally otherwise; any other send completes normally, not
 * cancelled.  Returns 1 if req is cancelled (and complete) on return. */
int tn_p2p_cancel(tn_req_t *req);

/* Partitioned point-to-point (MPI_Psend_init/MPI_Precv_init, p2p/part.c).
 * A partitioned request is a persistent generic request, created inactive;
 * tn_p2p_start begins an epoch.  A send of `partitions` partitions of count
 * elements of dt matches a receive by (source, tag, communicator) in the
 * order of the init calls; the two sides may partition differently, only
 * the total size has to agree.  peer may be TN_PROC_NULL (no wildcards).
 * Send partitions go out once marked ready (and the receiver has started
 * the epoch); a send completes when every partition has gone, a receive
 * when every byte has arrived.  Callers check partition numbers. */
tn_status_t tn_part_init(int is_send, const void *buf, int partitions, size_t count,
                         const tn_dt_t *dt, int peer, int tag, tn_comm_t *comm,
                         tn_req_t **req_p);
/* 1 for a partitioned send, 2 for a partitioned receive, 0 otherwise. */
int tn_part_kind(const tn_req_t *req);
int tn_part_partitions(const tn_req_t *req);
/* Send side, active request: is partition i marked ready in this epoch? */
int tn_part_is_ready(const tn_req_t *req, int i);
/* Mark partitions [first, first + n) ready (none of them may be ready yet)
 * and send what can go. */
tn_status_t tn_part_ready(tn_req_t *req, int first, int n);
/* Receive side: have all bytes of partition i arrived in this epoch?  True
 * for an inactive or complete request. */
int tn_part_arrived(const tn_req_t *req, int i);

#endif
