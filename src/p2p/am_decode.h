/* Decoding of arriving active messages: the one step between the wire and
 * the protocol handlers.
 *
 * Everything in an active message is hostile until tn_am_decode has
 * checked it against local state: the type and flags are known; the
 * sender's rank in the communicator is a rank; request ids name a live
 * request of ours (p2p_impl.h: table slot + generation) of the kind and
 * state the message expects, belonging to the rank that sent it; declared
 * sizes fit the message, the posted receive or the unexpected buffer;
 * fragment and rendezvous offsets fall inside the message and the
 * receive's range.  Nothing is written and no memory of a request is
 * touched before that.  Handlers then work on the decoded message only.
 *
 * A message that fails is a protocol error of an authenticated peer (the
 * transports drop what they cannot attribute to one): tn_am_violation
 * counts it and ends the job naming the peer and the field. */
#ifndef TN_P2P_AM_DECODE_H
#define TN_P2P_AM_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include "base/counters_table.h"
#include "xport/xport.h"

struct tn_req;
struct tn_unexp;

typedef struct {
    uint8_t          type;          /* TN_AM_* */
    uint8_t          flags;         /* TN_AM_F_*, only those the type knows */
    int              src;           /* EAGER/RTS/CANCEL: sender's comm rank, 0 <= src < world size */
    uint32_t         ctx;
    int              tag;
    uint64_t         size;          /* EAGER/RTS: message bytes; CTS: bytes the receiver takes */
    uint64_t         peer_id;       /* the sender's own request id, echoed back (opaque) */
    uint64_t         id2;           /* CTS: receiver's id; HELP: transfer id (opaque) */
    uint64_t         addr;          /* RTS: sender buffer; DATA/PDATA: offset, checked */
    struct tn_req   *req;           /* our request the message is for (CTS, DATA, FIN,
                                       HELP, CANCEL_ACK, FRAG to a receive, PCTS, PDATA) */
    struct tn_unexp *ux;            /* FRAG to an unexpected message */
    const void      *payload;       /* len bytes (INLINE EAGER: inside the header) */
    size_t           len;
} tn_am_msg_t;

/* Check the message hdr + payload[0..len) from world rank world against
 * local state and fill *m.  TN_OK, or TN_ERR_PROTO with *why_p set to a
 * phrase naming the field ("naming an unknown request (field sreq)").
 * Changes nothing. */
tn_status_t tn_am_decode(int world, const tn_am_hdr_t *hdr, const void *payload, size_t len,
                         tn_am_msg_t *m, const char **why_p);

/* The name of an active-message type ("CTS"), "an unknown" for others. */
const char *tn_am_type_name(unsigned type);

/* Count a violation and end the job: "rank <world> sent a <type> <why>".
 * Does not return. */
void tn_am_violation(int world, unsigned type, const char *why) __attribute__((noreturn));

/* Test seam, NULL in a job: when set, tn_am_violation calls it (after
 * counting) instead of ending the job.  It must not return: the fuzz
 * harness (tests/fuzz/fuzz_am.c) leaves by longjmp and throws the state
 * away, as the job would have ended; if it returns, the job ends. */
extern void (*tn_am_violation_hook)(int world, unsigned type, const char *why);

/* The counters of the point-to-point layer (base/counters_table.h,
 * TN_CTR_P2P): protocol errors (the job ends at the first), unexpected
 * messages.  Attached by tn_p2p_init. */
extern tn_p2p_stats_t *tn_p2p_st;   /* in the stats segment when published */

/* Partitioned messages (PCTS, PDATA) are checked in p2p/part.c, against
 * state only it knows; called by tn_am_decode with the header fields in m. */
tn_status_t tn_part_decode(int world, const tn_am_hdr_t *hdr, tn_am_msg_t *m,
                           const char **why_p);

#endif
