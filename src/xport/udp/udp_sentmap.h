/* The sent map: every message of one connection's send side from the time
 * it gets a psn until the peer acknowledges it.
 *
 * Psns are dense, so the map is a ring indexed by psn & mask holding the
 * psns [una, end): [una, nxt) have been transmitted at least once, [nxt,
 * end) wait for their first transmission (the connection's send queue is
 * the tail of the map, so a message is copied once, from the caller into
 * its slot).  Each transmitted, unacknowledged entry is on exactly one of
 * two lists threaded through the ring:
 *   inflight  in transmission order (oldest first): loss detection walks it
 *             from the head (packet threshold, RTO expiry);
 *   lost      declared lost, waiting for retransmission, oldest first.
 * Sacked entries are on neither list and their bytes are released at once
 * (the receiver never discards what it sacked); cumulatively acked ones
 * leave the ring.  Every operation is O(1) per packet it changes.
 *
 * Every transmission gets the next transmission sequence number (txseq), so
 * "sent after" is well defined although a retransmission reuses its psn.
 *
 * Message bytes live in fixed-size slots from a pool that grows in chunks up
 * to the ring's capacity and is reused last-freed-first, so memory follows
 * the peak number of outstanding messages, not the configured maximum, and
 * nothing is allocated per packet once the pool has grown.
 *
 * A message may instead be held by reference: its leading bytes in the map,
 * the rest (ext) in the owner's memory, which must stay unchanged until the
 * map calls release(cookie) -- once, when the message is acked or sacked,
 * the moment its bytes can no longer be needed for a retransmission.  Up to
 * TN_UDP_SM_HEAD leading bytes (an active message's header) are kept in a
 * cache line of their own per ring entry, not in a slot: slots are a packet
 * apart, so the heads of a long stream all fall into the same few cache
 * sets and each read of one at transmission time missed the caches (perf:
 * 7 % of a 1 MiB stream's sender time went to those 48-byte copies). */
#ifndef TN_XPORT_UDP_UDP_SENTMAP_H
#define TN_XPORT_UDP_UDP_SENTMAP_H

#include <stddef.h>
#include <stdint.h>
#include "base/status.h"

/* ---- a pool of fixed-size byte slots (also used by the receive window) */

typedef struct {
    size_t    slot;         /* bytes per slot */
    uint32_t  max;          /* slots at most */
    uint32_t  nalloc;       /* slots allocated so far */
    uint32_t  nfree;
    void    **free;         /* [max] stack of free slots */
    void    **chunks;       /* allocated chunks */
    uint32_t  nchunks;
} tn_udp_slots_t;

tn_status_t tn_udp_slots_init(tn_udp_slots_t *s, size_t slot, uint32_t max);
void tn_udp_slots_fini(tn_udp_slots_t *s);
/* A slot, or NULL when max are in use or memory ran out. */
void *tn_udp_slots_get(tn_udp_slots_t *s);
void tn_udp_slots_put(tn_udp_slots_t *s, void *p);

/* ---- the sent map ------------------------------------------------------ */

enum {
    TN_UDP_SM_QUEUED = 0,   /* never transmitted */
    TN_UDP_SM_INFLIGHT,     /* transmitted, on the inflight list */
    TN_UDP_SM_LOST,         /* declared lost, on the lost list */
    TN_UDP_SM_SACKED,       /* selectively acked; bytes released */
};

#define TN_UDP_SM_NIL UINT32_MAX

#define TN_UDP_SM_RAILS 8   /* rails counted in tn_udp_acked_t */
#define TN_UDP_SM_HEAD 64   /* leading bytes of a by-reference message kept per entry */

typedef struct {
    uint64_t psn;
    uint64_t sent_ns;       /* time of the latest transmission */
    uint64_t txseq;         /* txseq of the latest transmission */
    void    *data;          /* message bytes (NULL once sacked); by reference:
                             * the len - ext_len leading bytes */
    const void *ext;        /* by reference: the other ext_len bytes, else NULL */
    void    *cookie;        /* by reference: passed to release */
    uint32_t ext_len;
    uint32_t len;           /* message length */
    uint32_t crc;           /* CRC32C of the message bytes (set by the owner) */
    uint32_t prev, next;    /* list links (ring indices) */
    uint8_t  tx_count;      /* transmissions so far, saturating (1: Karn-safe sample) */
    uint8_t  flags;         /* TN_UDP_SM_F_*, cleared at each transmission */
    uint8_t  rail;          /* rail of the latest transmission */
    uint8_t  state;         /* TN_UDP_SM_* */
} tn_udp_sent_t;

#define TN_UDP_SM_F_RTO 1u  /* declared lost by a timeout, not by later acks */
#define TN_UDP_SM_F_PROBE 2u /* queued again by a tail-loss probe, not declared lost */

typedef struct {
    uint32_t head, tail, n;
} tn_udp_sm_list_t;

typedef struct {
    tn_udp_sent_t   *ent;
    uint32_t         mask;          /* capacity - 1 (a power of two) */
    uint64_t         una;           /* lowest psn not cumulatively acked */
    uint64_t         nxt;           /* lowest psn never transmitted */
    uint64_t         end;           /* next psn to assign */
    uint64_t         txseq;         /* last txseq given out (0: none) */
    tn_udp_sm_list_t inflight, lost;
    tn_udp_slots_t   slots;
    unsigned char   *heads;         /* [capacity][TN_UDP_SM_HEAD], by psn & mask */
    void           (*release)(void *cookie);    /* by-reference messages done */
} tn_udp_sentmap_t;

/* What an ack did, accumulated over the cumulative ack and the SACK blocks
 * of one packet (zero it before). */
typedef struct {
    uint32_t newly;             /* entries newly acked or sacked (in flight or lost) */
    uint32_t newly_inflight;    /* of which were still counted in flight */
    uint64_t largest_txseq;     /* largest txseq among newly acked first transmissions */
    uint64_t newest_txseq;      /* largest txseq among all newly acked */
    uint64_t rtt_sent_ns;       /* send time of that newest transmission ... */
    int      has_rtt;           /* ... if it was a first transmission (Karn): then the
                                 * ack was most likely sent on its arrival */
    uint32_t spurious;          /* declared lost by later acks, never resent, and acked
                                 * after all: reordered, not lost */
    uint64_t spurious_txseq;    /* the smallest txseq among those */
    uint32_t spurious_rto;      /* declared lost by a timeout, never resent, and acked
                                 * after all: the timeout was premature */
    uint32_t rail_acked[TN_UDP_SM_RAILS]; /* newly acked first transmissions, by rail */
} tn_udp_acked_t;

/* Room for capacity outstanding messages (rounded up to a power of two) of
 * up to slot bytes; the first psn is first_psn. */
tn_status_t tn_udp_sentmap_init(tn_udp_sentmap_t *sm, uint32_t capacity, size_t slot,
                                uint64_t first_psn);
void tn_udp_sentmap_fini(tn_udp_sentmap_t *sm);

static inline uint32_t tn_udp_sentmap_capacity(const tn_udp_sentmap_t *sm)
{
    return sm->mask + 1;
}

static inline tn_udp_sent_t *tn_udp_sentmap_get(const tn_udp_sentmap_t *sm, uint64_t psn)
{
    return &sm->ent[psn & sm->mask];
}

/* Give the next psn to a message of len bytes: returns its slot to copy the
 * bytes into (and the psn in *psn_p), or NULL when the map is full. */
void *tn_udp_sentmap_push(tn_udp_sentmap_t *sm, uint32_t len, uint64_t *psn_p);

/* The same for a message held by reference: len bytes in all, of which the
 * last ext_len stay at ext until release(cookie); returns where to copy the
 * leading len - ext_len bytes (the entry's head line when they fit, else a
 * slot). */
void *tn_udp_sentmap_push_ref(tn_udp_sentmap_t *sm, uint32_t len, const void *ext,
                              uint32_t ext_len, void *cookie, uint64_t *psn_p);

/* psn (queued, in flight or lost) was transmitted on rail at now: it moves
 * to the tail of the inflight list with a new txseq. */
void tn_udp_sentmap_on_send(tn_udp_sentmap_t *sm, uint64_t psn, int rail, uint64_t now);

/* Cumulative ack: every psn < ack (ack <= nxt) arrived. */
void tn_udp_sentmap_ack(tn_udp_sentmap_t *sm, uint64_t ack, tn_udp_acked_t *acc);

/* Selective ack of [start, end), clipped to [una, nxt). */
void tn_udp_sentmap_sack(tn_udp_sentmap_t *sm, uint64_t start, uint64_t end,
                         tn_udp_acked_t *acc);

/* Oldest transmission in flight (head of the inflight list), or NULL. */
static inline tn_udp_sent_t *tn_udp_sentmap_oldest(const tn_udp_sentmap_t *sm)
{
    return sm->inflight.head == TN_UDP_SM_NIL ? NULL : &sm->ent[sm->inflight.head];
}

/* The in-flight transmission after e in transmission order, or NULL. */
static inline tn_udp_sent_t *tn_udp_sentmap_next(const tn_udp_sentmap_t *sm,
                                                 const tn_udp_sent_t *e)
{
    return e->next == TN_UDP_SM_NIL ? NULL : &sm->ent[e->next];
}

/* Move an in-flight entry to the tail of the lost list. */
void tn_udp_sentmap_mark_lost(tn_udp_sentmap_t *sm, tn_udp_sent_t *e);

/* The oldest lost entry (next to retransmit), or NULL. */
static inline tn_udp_sent_t *tn_udp_sentmap_next_lost(const tn_udp_sentmap_t *sm)
{
    return sm->lost.head == TN_UDP_SM_NIL ? NULL : &sm->ent[sm->lost.head];
}

static inline uint32_t tn_udp_sentmap_inflight(const tn_udp_sentmap_t *sm)
{
    return sm->inflight.n;
}

static inline uint32_t tn_udp_sentmap_nlost(const tn_udp_sentmap_t *sm)
{
    return sm->lost.n;
}

/* Messages with a psn that never left (the send queue). */
static inline uint64_t tn_udp_sentmap_queued(const tn_udp_sentmap_t *sm)
{
    return sm->end - sm->nxt;
}

/* Messages not yet acknowledged, queued ones included. */
static inline uint64_t tn_udp_sentmap_outstanding(const tn_udp_sentmap_t *sm)
{
    return sm->end - sm->una;
}

#endif
