/* The receive window of one connection: the reorder buffer, in-order
 * delivery, and the credits it grants the sender.
 *
 * Psns below ack all arrived; psns below del were delivered (del <= ack).
 * The buffer is a ring of window entries indexed by psn, holding
 * [del, del + window): arrived-not-delivered packets in order ([del, ack))
 * and out-of-order ones above ack.  So the sender may have every psn below
 * del + window in flight, i.e. credits = window - (ack - del) beyond ack: an
 * application that stops pulling messages stops the sender after at most
 * window packets, and out-of-order packets never overflow the ring.
 *
 * Messages are copied into slots from a pool (udp_sentmap.h) that grows up
 * to window slots and is reused, so memory follows the real backlog. */
#ifndef TN_XPORT_UDP_UDP_CREDIT_H
#define TN_XPORT_UDP_UDP_CREDIT_H

#include <stddef.h>
#include <stdint.h>
#include "base/status.h"
#include "xport/udp/udp_ranges.h"
#include "xport/udp/udp_sentmap.h"

typedef struct {
    void       *data;       /* NULL: not arrived */
    const void *tail;       /* a split message's second part (NULL: none) */
    uint32_t    len;        /* bytes at data */
    uint32_t    tail_len;
    uint8_t     lent;       /* data is the caller's buffer, not a pool slot */
    uint8_t     tail_kept;  /* tail stays where it is (else it is lent with data) */
} tn_udp_rslot_t;

typedef struct {
    tn_udp_rslot_t *ring;
    uint32_t        mask;       /* ring size - 1 (a power of two >= window) */
    uint32_t        window;
    uint64_t        ack;        /* all psn < ack arrived */
    uint64_t        del;        /* all psn < del delivered */
    int             held;       /* del's message is lent out by deliver */
    uint32_t        nlent;      /* in-order messages still in callers' buffers */
    uint32_t        ooo;        /* buffered above ack */
    tn_udp_ranges_t sacks;      /* psns above ack that arrived (for SACK) */
    tn_udp_slots_t  slots;
} tn_udp_credit_t;

/* What tn_udp_credit_insert made of a packet. */
typedef enum {
    TN_UDP_RX_INORDER,      /* psn == ack: ack advanced (maybe over buffered ones) */
    TN_UDP_RX_OOO,          /* above ack, buffered */
    TN_UDP_RX_DUP,          /* above ack, already buffered */
    TN_UDP_RX_STALE,        /* below ack: arrived before */
    TN_UDP_RX_BEYOND,       /* beyond the credits granted */
    TN_UDP_RX_NOMEM,        /* no slot (out of memory) */
} tn_udp_rx_t;

tn_status_t tn_udp_credit_init(tn_udp_credit_t *w, uint32_t window, size_t slot,
                               uint64_t first_psn);
void tn_udp_credit_fini(tn_udp_credit_t *w);

/* Accept data packet psn carrying len bytes (copied). */
tn_udp_rx_t tn_udp_credit_insert(tn_udp_credit_t *w, uint64_t psn, const void *data,
                                 uint32_t len);

/* The same, but an in-order packet is not copied: the ring refers to data,
 * which the caller keeps unchanged until it has drained
 * tn_udp_credit_deliver (receive straight from the socket's buffer, one
 * copy less).  Out-of-order packets are copied as usual.  Anything still
 * referring to an earlier caller buffer is copied first. */
tn_udp_rx_t tn_udp_credit_insert_lent(tn_udp_credit_t *w, uint64_t psn, const void *data,
                                      uint32_t len);

/* A message in two parts: head (head_len bytes, lent as by
 * tn_udp_credit_insert_lent) followed by tail (tail_len bytes).  keep != 0:
 * the tail is already where the message's consumer wants it and stays
 * there, unchanged, until delivered: only the head is ever copied.  keep ==
 * 0: the tail is lent like the head (copied with it, after it, into one pool
 * slot when the message has to wait). */
tn_udp_rx_t tn_udp_credit_insert_split(tn_udp_credit_t *w, uint64_t psn, const void *head,
                                       uint32_t head_len, const void *tail, uint32_t tail_len,
                                       int keep);

/* Release the message lent by the last deliver (if any). */
void tn_udp_credit_release(tn_udp_credit_t *w);

/* The next in-order message (releasing the previous one), or NULL.  Valid
 * until the next deliver or release.  A split message that kept its tail
 * comes as its head, the tail in *tail_p / *tail_len_p (else NULL / 0);
 * tail_p may be NULL only for a window that never took such a message. */
const void *tn_udp_credit_deliver_split(tn_udp_credit_t *w, size_t *len_p,
                                        const void **tail_p, size_t *tail_len_p);
const void *tn_udp_credit_deliver(tn_udp_credit_t *w, size_t *len_p);

/* Packets the sender may have beyond ack. */
static inline uint32_t tn_udp_credit_credits(const tn_udp_credit_t *w)
{
    return w->window - (uint32_t)(w->ack - w->del);
}

/* One past the highest psn the sender may send: del + window. */
static inline uint64_t tn_udp_credit_limit(const tn_udp_credit_t *w)
{
    return w->del + w->window;
}

/* Packets arrived and not yet delivered (in order or not). */
static inline uint32_t tn_udp_credit_buffered(const tn_udp_credit_t *w)
{
    return (uint32_t)(w->ack - w->del) + w->ooo;
}

#endif
