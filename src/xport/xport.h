/* Transport interface.
 *
 * The messaging core (p2p/) runs its protocols over a small active-message
 * interface that every transport provides:
 *   - am_send: deliver header + payload to a peer, in order per peer, or say
 *     TN_ERR_AGAIN when there is no room right now (the core keeps a backlog);
 *   - progress: poll for arrivals and hand each one to the core's handler
 *     tn_p2p_am_handler(), in per-peer send order;
 *   - optionally (TN_XPORT_CAP_GET) a single-copy read of a peer's memory
 *     (CMA for shm, memcpy for self), used by rendezvous;
 *   - optionally (TN_XPORT_CAP_FILL) am_send_fill: the same as am_send, but
 *     the payload is written by a callback straight into the transport's
 *     buffer (a derived datatype packed into a shm cell, no temporary).
 *
 * A transport is one const ops table; required slots are checked at
 * registration, optional abilities are capability bits.  Peers are world
 * ranks. */
#ifndef TN_XPORT_XPORT_H
#define TN_XPORT_XPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include "base/status.h"
#include "tern/tools.h"

/* Active-message types. */
enum {
    TN_AM_EAGER = 1,   /* first (maybe only) piece of an eager message       */
    TN_AM_FRAG  = 2,   /* continuation of the previous eager message         */
    TN_AM_RTS   = 3,   /* rendezvous request-to-send (addr = sender buffer,
                          or F_PACK: no address, the receiver sends CTS)    */
    TN_AM_CTS   = 4,   /* clear-to-send (no single-copy path): stream to rreq */
    TN_AM_DATA  = 5,   /* rendezvous data piece for rreq at offset addr      */
    TN_AM_FIN   = 6,   /* receiver done with sender's buffer / sync ack      */
    TN_AM_PCTS  = 7,   /* partitioned: receiver started an epoch (p2p/part.c) */
    TN_AM_PDATA = 8,   /* partitioned: data of ready send partitions         */
    TN_AM_HELP  = 9,   /* receiver reads a rendezvous in place and asks the
                          sender to write chunks of it too (rreq = the
                          transport's transfer id; TN_XPORT_CAP_COOP)       */
    TN_AM_CANCEL     = 10, /* sender asks the receiver to withdraw its RTS or
                              synchronous EAGER sreq (ctx, src) if unmatched */
    TN_AM_CANCEL_ACK = 11, /* answer to CANCEL for sreq: F_WITHDRAWN if the
                              message is gone, else it was matched already  */
};

enum {
    TN_AM_F_SYNC   = 1,   /* EAGER: sender waits for FIN on match (Ssend)  */
    TN_AM_F_INLINE = 2,   /* EAGER: payload (<= 24 B) stored in sreq..addr */
    TN_AM_F_PACK   = 4,   /* RTS: the data is not contiguous at the sender
                             (derived datatype); it is packed on the fly into
                             DATA pieces after CTS, never read in place      */
    TN_AM_F_WITHDRAWN = 8, /* CANCEL_ACK: the message was withdrawn unmatched */
};

/* Every active message starts with this 48-byte header. */
typedef struct tn_am_hdr {
    uint8_t  type;
    uint8_t  flags;
    uint16_t rsv;
    int32_t  src;       /* sender's rank in the communicator */
    uint32_t ctx;       /* context id */
    int32_t  tag;
    uint64_t size;      /* EAGER/RTS: message bytes; FRAG/DATA: bytes in this piece */
    uint64_t sreq;      /* sender request id: gen << 32 | slot of the sender's
                           request table, never an address (p2p_impl.h) */
    uint64_t rreq;      /* receiver request id, the same form */
    uint64_t addr;      /* RTS: sender address; DATA: offset */
} tn_am_hdr_t;

#define TN_AM_INLINE_MAX 24   /* bytes of sreq+rreq+addr */

enum {
    TN_XPORT_CAP_GET  = 1u << 0,   /* ops->get is usable for this peer */
    TN_XPORT_CAP_FILL = 1u << 1,   /* ops->am_send_fill is usable for this peer */
    TN_XPORT_CAP_REF  = 1u << 2,   /* ops->am_send_ref is usable for this peer */
    TN_XPORT_CAP_COOP = 1u << 3,   /* ops->coop_recv / coop_send are usable */
};

#define TN_XPORT_GET_IOV 1024    /* most local pieces of one get (IOV_MAX) */

/* Writes the len payload bytes of an am_send_fill message at dst. */
typedef void (tn_xport_fill_fn_t)(void *dst, size_t len, void *arg);

typedef struct tn_xport_ops {
    const char *name;
    /* Largest payload one am_send can carry. */
    size_t      (*max_payload)(void);
    /* Send hdr + iov[0..iovcnt) to world rank peer; TN_ERR_AGAIN if full. */
    tn_status_t (*am_send)(int peer, const tn_am_hdr_t *hdr,
                           const struct iovec *iov, int iovcnt);
    /* Poll; deliver arrivals; return number of events. */
    int         (*progress)(void);
    /* Optional (TN_XPORT_CAP_GET): copy the bytes at peer's remote_addr
     * into the nlocal (<= TN_XPORT_GET_IOV) pieces of local in order, as
     * many as they hold (a scatter read: a derived datatype's layout).  The
     * entries of local may be changed. */
    tn_status_t (*get)(int peer, struct iovec *local, int nlocal, uint64_t remote_addr);
    /* Optional (TN_XPORT_CAP_FILL): like am_send with a payload of len
     * (<= max_payload) bytes that fill(dst, len, arg) writes into the
     * transport's own buffer before am_send_fill returns.  fill is not
     * called when the answer is TN_ERR_AGAIN (or another error). */
    tn_status_t (*am_send_fill)(int peer, const tn_am_hdr_t *hdr, size_t len,
                                tn_xport_fill_fn_t *fill, void *arg);
    /* Capabilities towards peer (TN_XPORT_CAP_*). */
    unsigned    (*caps)(int peer);
    /* Rendezvous threshold towards this transport's peers. */
    size_t      (*eager_limit)(void);
    /* Largest message carried inline in the header (<= TN_AM_INLINE_MAX). */
    size_t      (*tiny_limit)(void);
    /* Optional (TN_XPORT_CAP_REF): send hdr + len bytes at buf without
     * copying them; buf stays unchanged and valid until the transport calls
     * the job's ref_done(cookie), once, when the peer has them.  Same limits
     * and results as am_send. */
    tn_status_t (*am_send_ref)(int peer, const tn_am_hdr_t *hdr, const void *buf, size_t len,
                               void *cookie);
    /* Optional (TN_XPORT_CAP_COOP): a single-copy transfer of len bytes
     * from peer's remote_addr into buf that both sides copy at once.  The
     * receiver calls coop_recv: it publishes the transfer, calls
     * ask(peer, id, arg) (which sends the sender TN_AM_HELP with id), copies
     * chunks until none is left unclaimed, waits for the chunks the sender
     * claimed, and returns TN_OK when buf holds everything;
     * TN_ERR_AGAIN when a transfer from peer is already running (nothing
     * was done); another error when a copy failed (buf is partly written,
     * the sender no longer writes: send it all again another way).  The
     * sender calls coop_send(peer, id, its buffer) on HELP: it copies the
     * chunks it can still claim and returns; a HELP that comes after the
     * transfer is over finds nothing to claim. */
    tn_status_t (*coop_recv)(int peer, uint64_t remote_addr, void *buf, size_t len,
                             void (*ask)(int peer, uint64_t id, void *arg), void *arg);
    void        (*coop_send)(int peer, uint64_t id, const void *buf);
    /* Optional: peer is about to send the len bytes of the contiguous
     * buffer buf as TN_AM_DATA pieces for rreq.  The transport may receive
     * them straight into buf: the handler then gets a payload that already
     * is at buf + the piece's offset.  recv_direct_end(peer, rreq) is
     * called once the receive is complete, before buf is the user's again;
     * the transport writes nothing into buf after that. */
    void        (*recv_direct)(int peer, uint64_t rreq, void *buf, size_t len);
    void        (*recv_direct_end)(int peer, uint64_t rreq);
} tn_xport_ops_t;

/* Handler the core registers for every arriving active message.  payload
 * holds len bytes (for INLINE eager the payload is inside hdr). */
typedef void (tn_xport_am_handler_fn_t)(int peer, const tn_am_hdr_t *hdr,
                                        const void *payload, size_t len);

/* Called by a transport when the memory of an am_send_ref is free again. */
typedef void (tn_xport_ref_done_fn_t)(void *cookie);

/* What a transport learns of the job at set-up (the runtime fills it). */
typedef struct {
    const char *kvsname;            /* job id, names shared segments */
    int         world_rank;
    int         world_size;
    int         local_rank;
    int         local_size;
    const int  *world_of_local;
    const int  *local_of_world;     /* -1 for ranks on other nodes */
    int         node_id;
    const int  *node_of_world;      /* world rank -> node index, the same on
                                       every rank (host name and network
                                       namespace) */
    int         oversubscribed;
    int         nnodes;
    tn_status_t (*fence)(void);     /* job-wide barrier */
    /* job-wide key/value exchange: put, then fence, then get */
    tn_status_t (*kv_put)(const char *key, const char *value);
    tn_status_t (*kv_get)(int rank, const char *key, char *value, int len);
    /* end the job with a message (a peer is gone, ...); does not return */
    void        (*fatal)(const char *msg);
    /* per world rank: non-zero when this transport is to serve that peer */
    const unsigned char *use;
    tn_xport_am_handler_fn_t *am_handler;
    tn_xport_ref_done_fn_t   *ref_done;
} tn_xport_job_t;

/* Validate an ops table (required slots present). */
tn_status_t tn_xport_check_ops(const tn_xport_ops_t *ops);

extern const tn_xport_ops_t tn_xport_self_ops;
extern const tn_xport_ops_t tn_xport_shm_ops;
extern const tn_xport_ops_t tn_xport_udp_ops;

/* Set-up and teardown of the transports (runtime/). */
tn_status_t tn_xport_self_init(const tn_xport_job_t *job);
void        tn_xport_self_finalize(void);
/* Collective over the job (always the same number of fences, whether or
 * not job->use names a local peer). */
tn_status_t tn_xport_shm_init(const tn_xport_job_t *job);
void        tn_xport_shm_finalize(void);
/* Block until a peer wakes us or timeout_ns passes.  recheck() runs after
 * the sleep is announced; if it finds work (> 0) we do not sleep, which
 * closes the lost-wake-up race.  Works without a segment (timed only). */
void        tn_xport_shm_sleep(int (*recheck)(void), uint64_t timeout_ns);
/* Wake this process's own sleeper (another thread queued work for it). */
void        tn_xport_shm_wake_self(void);
/* Collective slots: memory of the node's segment that the local ranks of
 * one communicator use for their small collectives (coll/coll_shm.c), one
 * communicator per slot at a time.  Returns the number of slots (0 when
 * there is no segment) and sets *bytes_p to the data bytes per rank and
 * buffer. */
int         tn_xport_shm_coll_slots(size_t *bytes_p);
/* Join the slot owned by key (non-zero, unique to one communicator) or take
 * a free one, looking from slot start on; returns it, or -1 (all taken).
 * Every claim is undone by one tn_xport_shm_coll_release; the last frees it. */
int         tn_xport_shm_coll_claim(uint64_t key, int start);
void        tn_xport_shm_coll_release(int slot);
/* Rank r's area in a slot: TN_XPORT_SHM_COLL_HDR bytes for its flags (a
 * multiple of the cache line), then TN_XPORT_SHM_COLL_BUFS buffers of the
 * slot's data bytes; r < the node's local ranks. */
#define TN_XPORT_SHM_COLL_HDR  512
#define TN_XPORT_SHM_COLL_BUFS 4
void       *tn_xport_shm_coll_area(int slot, int r);
/* Wake world rank world_rank if it is a local rank asleep (called after a
 * seq_cst fence that follows the store it must see). */
void        tn_xport_shm_wake_sleeper(int world_rank);
/* Sleeping in poll() elsewhere (the udp sockets): from here until
 * tn_xport_shm_poll_end, wakers send a byte to the returned descriptor
 * (include it in the poll set) instead of the futex.  -1: no wake socket,
 * poll with a short timeout instead. */
int         tn_xport_shm_poll_begin(void);
void        tn_xport_shm_poll_end(void);

/* The udp transport: set up when some peer is served by it (job->use). */
tn_status_t tn_xport_udp_init(const tn_xport_job_t *job);
/* Finalize, first step (after the job's closing barrier): exchange FINs with
 * every udp peer and wait until all our packets are acknowledged. */
void        tn_xport_udp_close(void);
void        tn_xport_udp_finalize(void);
int         tn_xport_udp_active(void);
/* Like tn_xport_shm_sleep, blocking in poll() on the sockets and the shm
 * wake socket (tn_xport_shm_poll_begin); at most timeout_ns, less when a
 * retransmission or ack timer is due sooner.  Returns 0 if shared-memory
 * wake-ups could not be seen (no wake socket): the caller then sleeps in
 * short slices. */
int         tn_xport_udp_sleep(int (*recheck)(void), uint64_t timeout_ns);
/* The counters for tools (include/tern/tools.h): 0, or -1 when udp is not
 * in use / there is no connection to world_rank. */
int         tn_xport_udp_tool_stats(tern_udp_stats_t *out);
int         tn_xport_udp_tool_peer_stats(int world_rank, tern_udp_peer_stats_t *out);

#endif
