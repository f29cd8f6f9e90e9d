/* Direct receive: rendezvous data received straight into the user's buffer.
 *
 * A rendezvous receive over udp is announced by the core (recv_direct) when
 * it sends its CTS: the sender will stream the len bytes as TN_AM_DATA
 * pieces of one chunk each (the transport's max payload, the last one
 * shorter), in offset order, one stream after the other in the order of
 * the CTSs.  Before each receive from a socket the transport predicts what
 * comes next and lays the receive out as iovecs: for each datagram a
 * 96-byte head (udp header without SACK ranges, then the active-message
 * header) into a scratch head, and its payload straight into the chunk of
 * the user's buffer it should hold; then a spill area for anything else.
 * GRO may coalesce several datagrams of one size into one receive, so a
 * plan holds as many as fit.
 *
 * What arrives as predicted (a "hit") is in place: the core's copy is
 * skipped.  Anything else is still received correctly: a datagram that
 * lies in one piece is used where it is, one spread over pieces is gathered
 * into scratch; either way the core copies its payload as before.
 *
 * Safety: a plan only ever points into bytes of a stream at or past its
 * cursor, the end of the furthest piece seen of it, so the kernel never
 * writes over data that has arrived (placed or still to be copied).  A
 * datagram that lands in a chunk it does not belong to leaves garbage there
 * only until that chunk's own datagram arrives, which the cursor guarantees
 * is still to come.  A stream ends (recv_direct_end) before its receive
 * completes: nothing is predicted into the buffer after that.
 *
 * No I/O here: udp.c does the socket calls (tn_udp_sock_recv_iov). */
#ifndef TN_XPORT_UDP_UDP_DIRECT_H
#define TN_XPORT_UDP_UDP_DIRECT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include "base/status.h"
#include "xport/udp/udp_proto.h"
#include "xport/xport.h"

/* A predicted datagram's head: the udp header (no SACK ranges) and the
 * active-message header. */
#define TN_UDP_DIRECT_HEAD (sizeof(tn_udp_hdr_t) + sizeof(tn_am_hdr_t))
/* Datagrams one plan predicts at most (GRO coalesces up to 64 KiB). */
#define TN_UDP_DIRECT_MAX 64
/* Datagrams of a receive looked at before any is handed out (those that
 * start in the planned part; more than this are all taken out of it). */
#define TN_UDP_DIRECT_SCAN 256

typedef struct tn_udp_dstream {
    uint64_t               rreq;
    char                  *buf;
    size_t                 len;
    size_t                 cursor;  /* no byte at or past this has arrived */
    struct tn_udp_dstream *next;
} tn_udp_dstream_t;

/* The streams expected from one peer, in the order their data comes. */
typedef struct {
    tn_udp_dstream_t *head, *tail;
    int               n;
} tn_udp_dpeer_t;

/* A peer's data will come for rreq into buf[0, len). */
tn_status_t tn_udp_direct_add(tn_udp_dpeer_t *p, uint64_t rreq, void *buf, size_t len);
/* rreq's receive is complete: forget it. */
void tn_udp_direct_end(tn_udp_dpeer_t *p, uint64_t rreq);
void tn_udp_direct_clear(tn_udp_dpeer_t *p);
/* A valid data packet from the peer carried am and plen payload bytes:
 * move its stream's cursor past them. */
void tn_udp_direct_seen(tn_udp_dpeer_t *p, const tn_am_hdr_t *am, size_t plen);
/* The first stream with bytes still to come (NULL: none). */
tn_udp_dstream_t *tn_udp_direct_next_stream(const tn_udp_dpeer_t *p);

/* A receive laid out for one predicted peer. */
typedef struct {
    struct iovec      iov[2 * TN_UDP_DIRECT_MAX + 1];
    int               niov;
    int               n;                            /* datagrams predicted */
    uint32_t          peer;
    size_t            pos[TN_UDP_DIRECT_MAX];       /* where datagram j starts */
    size_t            off[TN_UDP_DIRECT_MAX];       /* its offset in its stream */
    size_t            plen[TN_UDP_DIRECT_MAX];      /* its payload bytes */
    uint64_t          rreq[TN_UDP_DIRECT_MAX];      /* its stream */
    char            (*heads)[TN_UDP_DIRECT_HEAD];
    size_t            cap;
    const tn_udp_dpeer_t *dp;
    size_t            used;                         /* bytes before the spill area */
    size_t            seg;                          /* after a receive: datagram size */
    size_t            at;                           /* after a receive: next datagram */
    int               k;                            /* ... and its number */
    /* after a receive, for the datagrams that start before the spill area:
     * what each is (TN_UDP_DG_*) */
    int               nk;
    uint8_t           kind[TN_UDP_DIRECT_SCAN];
} tn_udp_dplan_t;

/* Lay out a receive of up to cap bytes: datagrams of chunk payload bytes
 * from p (peer) for as long as they fit cap, then spill (cap bytes).
 * heads: TN_UDP_DIRECT_MAX heads.  p NULL or with nothing to come: spill
 * alone. */
void tn_udp_direct_plan(tn_udp_dplan_t *pl, const tn_udp_dpeer_t *p, uint32_t peer,
                        size_t chunk, size_t cap, char (*heads)[TN_UDP_DIRECT_HEAD],
                        char *spill);

/* One datagram of a receive: pkt[0, len), then tail[0, tail_len) when tail
 * is not NULL (the payload in place, or lent where it landed). */
typedef struct {
    const char *pkt;
    size_t      len;
    const char *tail;
    size_t      tail_len;
    int         hit;        /* lies where it belongs: keep the tail */
} tn_udp_dgram_t;

/* Walk the nbytes received under pl: the datagrams in order, seg bytes
 * each, the last one the rest (seg: the kernel's GRO segment size, nbytes
 * for a single datagram).
 *
 * begin looks at them all first: a datagram that is not a hit but landed
 * in a user's buffer is copied out (into scratch, at its place in the
 * receive) when the payload of one before it belongs where it landed, as
 * that one's delivery would overwrite it.  One spread over several pieces
 * is gathered into scratch too.  scratch holds 2 x cap bytes.  next
 * returns 0 when none is left. */
void tn_udp_direct_begin(tn_udp_dplan_t *pl, size_t nbytes, size_t seg, char *scratch);
int tn_udp_direct_next(tn_udp_dplan_t *pl, size_t nbytes, char *scratch, tn_udp_dgram_t *d);

#endif
