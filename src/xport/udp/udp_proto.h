/* Wire format of the udp transport (version 3).
 *
 * Every datagram starts with tn_udp_hdr_t, in little-endian byte order (the
 * transport refuses to start on a big-endian host rather than byte-swap),
 * followed by nsack selective-acknowledgement ranges (tn_udp_sack_t) and
 * then len payload bytes.  The CRC32C covers the whole datagram with the crc
 * field taken as zero, in this order: the payload, then the header and the
 * SACK ranges (version 1 took the header first).  Payload first lets a
 * sender checksum a payload once, while copying it in, and reuse that for
 * every transmission, whose header (acks, flags) differs each time.
 *
 * Authentication (udp_auth.h).  Each direction of a connection has a
 * connection id, a first packet number and a key derived from the job's
 * secret.  The header ends with seq, the direction's count of datagrams
 * sent (the nonce), and a 16-byte tag over the header and its SACK ranges
 * (tag field as zero), written after the CRC, so it covers the payload's
 * CRC too; zero when authentication is off.  A receiver checks, in order:
 * length and version, that it is the destination and the source rank is
 * a peer, the datagram's source address (one of that peer's rails), the
 * connection id, the tag, then the CRC and the rest.
 *
 * Per ordered pair of ranks (one "connection"), data packets carry a packet
 * sequence number (psn) starting at the direction's first packet number.  Every packet, data or not, carries
 * the sender's view of the reverse direction: the cumulative ack (all
 * psn < ack arrived), the SACK ranges above it, and the receive credits
 * (the sender of data may have psn < ack + credits outstanding).
 *
 * A data packet holds exactly one active message: the core's 48-byte
 * tn_am_hdr_t followed by its payload; the core never hands the transport a
 * message larger than one packet, so there is no reassembly here.
 *
 * Anything that does not parse, fails the CRC or the tag, carries another
 * connection's id, comes from an address that is not the peer's, is
 * addressed to another rank, or has an unknown version is counted and
 * dropped. */
#ifndef TN_XPORT_UDP_UDP_PROTO_H
#define TN_XPORT_UDP_UDP_PROTO_H

#include <stdint.h>

#define TN_UDP_VERSION 3            /* wire: bumped on any incompatible change */

enum {
    TN_UDP_PKT_DATA = 1,            /* wire: carries psn and one active message */
    TN_UDP_PKT_ACK  = 2,            /* wire: acks/credits only (psn = 0, len = 0) */
    TN_UDP_PKT_PING = 3,            /* wire: liveness probe; answered by an ACK */
};

enum {
    TN_UDP_F_RETX   = 1u << 0,      /* wire: this data packet is a retransmission */
    TN_UDP_F_ACKNOW = 1u << 1,      /* wire: please acknowledge at once (no delay) */
    TN_UDP_F_LATE   = 1u << 2,      /* wire: the ack is late: its sender had not read
                                     * its sockets for longer than the minimum RTO
                                     * (busy outside MPI, descheduled); a timeout
                                     * the ack answers was not congestion.  Ignored
                                     * by a receiver that does not know it. */
};

typedef struct __attribute__((packed)) {
    uint8_t  version;               /* wire: TN_UDP_VERSION */
    uint8_t  type;                  /* wire: TN_UDP_PKT_* */
    uint16_t flags;                 /* wire: TN_UDP_F_* */
    uint32_t conn;                  /* wire: connection id of the direction (udp_auth.h) */
    uint32_t src;                   /* wire: sender's world rank */
    uint32_t dst;                   /* wire: receiver's world rank */
    uint64_t psn;                   /* wire: DATA: packet sequence number (>= 1); else 0 */
    uint64_t ack;                   /* wire: cumulative ack of the reverse direction */
    uint32_t credits;               /* wire: packets the peer may have beyond ack */
    uint16_t nsack;                 /* wire: SACK ranges following the header */
    uint16_t len;                   /* wire: payload bytes after the SACK ranges */
    uint32_t crc;                   /* wire: CRC32C of the datagram, this field as 0 */
    uint32_t rsv;                   /* wire: zero */
    uint64_t seq;                   /* wire: datagrams the direction sent before, + 1
                                     * (the authentication nonce) */
    uint8_t  tag[16];               /* wire: authentication tag, or zero (mode off) */
} tn_udp_hdr_t;

_Static_assert(sizeof(tn_udp_hdr_t) == 72, "udp header is 72 bytes on the wire");
#define TN_UDP_TAG_OFF 56           /* offset of tag in the header */

/* A received range [start, end) of psns above the cumulative ack. */
typedef struct __attribute__((packed)) {
    uint64_t start;                 /* wire: first psn of the range */
    uint64_t end;                   /* wire: one past the last psn of the range */
} tn_udp_sack_t;

#define TN_UDP_MAX_SACK 8           /* at most this many ranges per packet */
/* Ranges a data packet of the largest payload still has room for: a pure
 * ACK carries up to TN_UDP_MAX_SACK, a data packet as many as fit in the
 * packet size (at least this many).  Reserving all eight cost 128 of the
 * 1472 bytes of a 1500-byte MTU's datagram. */
#define TN_UDP_DATA_SACK 2

/* Bytes of header room a data packet reserves before its payload. */
#define TN_UDP_OVERHEAD (sizeof(tn_udp_hdr_t) + TN_UDP_DATA_SACK * sizeof(tn_udp_sack_t))

#endif
