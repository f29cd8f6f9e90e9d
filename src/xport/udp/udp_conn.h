/* One reliable connection to a peer, sans I/O.
 *
 * Design note.  A connection owns both directions of traffic with one peer.
 *
 * Sending.  tn_udp_conn_send() copies a message (one active message) into a
 * send queue; it becomes a data packet with the next psn when the window
 * allows: at most min(peer credits, congestion window) packets may be in
 * flight (sent, not acked).  In-flight packets stay in the sent map
 * (udp_sentmap) until cumulatively acked or sacked, for retransmission.
 *
 * Acknowledging.  Every outgoing packet carries the cumulative ack, the
 * highest ranges of out-of-order arrivals (udp_ranges: up to
 * TN_UDP_MAX_SACK, as many as the packet size leaves room for, at least
 * TN_UDP_DATA_SACK) and the receive credits.  A pure ACK packet goes out
 * when data arrived and nothing was sent back within ack_delay, at once
 * after an out-of-order or duplicate arrival (so the sender learns of the
 * gap fast), and after every ack_every data packets.
 *
 * Loss.  RTT samples come from packets acked on their first transmission
 * (Karn); RTO = srtt + 4 rttvar clamped to [rto_min, rto_max] (microseconds
 * to milliseconds, not TCP's 200 ms floor) and doubled per consecutive
 * timeout.  A packet is declared lost when dupthresh packets sent after it
 * were acked (fast retransmit) or when the RTO expires (udp_loss); the
 * first `probes` expiries in a row only resend the oldest packets
 * (tail-loss probes), without touching the window.  Lost
 * packets are resent first, on another rail when there is one.
 *
 * Congestion.  AIMD in packets with slow start (udp_cc): +1 per RTT (or per
 * ack in slow start), halved once per loss episode, reset to cwnd_min on a
 * timeout.
 *
 * Receiving.  Data packets are accepted if ack <= psn < ack + window;
 * duplicates and packets below ack are counted and dropped; out-of-order
 * packets wait in a reorder buffer; in-order packets are handed out by
 * tn_udp_conn_deliver() exactly once, in psn order.
 *
 * Time is an input (nanoseconds, any monotonic origin); the connection
 * never reads a clock, sleeps or touches a socket. */
#ifndef TN_XPORT_UDP_UDP_CONN_H
#define TN_XPORT_UDP_UDP_CONN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include "base/counters_table.h"
#include "base/status.h"
#include "xport/udp/udp_auth.h"
#include "xport/udp/udp_proto.h"

typedef struct {
    uint32_t packet_size;      /* largest datagram, headers included */
    uint32_t window;           /* receive window (credits) in packets */
    uint32_t sendq_max;        /* queued-not-sent messages before send says AGAIN */
    uint32_t ack_every;        /* ack at least every this many data packets */
    uint64_t ack_delay_ns;     /* longest delay of a pure ack */
    uint64_t rto_init_ns;      /* RTO before the first RTT sample */
    uint64_t rto_min_ns;
    uint64_t rto_max_ns;
    uint32_t dupthresh;        /* fast retransmit after this many later acks */
    uint32_t probes;           /* tail-loss probes before a timeout (udp_loss.h) */
    uint32_t cwnd_init;        /* packets */
    uint32_t cwnd_min;
    uint32_t cwnd_max;
    uint32_t pace_burst;       /* packets that may leave back to back (at least 16) */
    uint64_t peer_timeout_ns;  /* no sign of life for this long with data pending: dead */
    int      nrails;           /* 1..TN_UDP_MAX_RAILS */
    /* the job's secret (TN_UDP_SECRET_BYTES; NULL: all zero, for tests)
     * and the authentication mode (udp_auth.h); read by tn_udp_conn_new
     * only */
    const uint8_t *secret;
    int      auth;
    unsigned epoch_bits;       /* datagrams per key: 2^this (0: TN_UDP_EPOCH_BITS) */
    /* a message sent by reference is acked (or sacked): its memory is free */
    void   (*release)(void *cookie);
} tn_udp_conn_cfg_t;

#define TN_UDP_MAX_RAILS 4

/* tn_udp_conn_stats_t: the counters of base/counters_table.h
 * (TN_CTR_UDP_PEER), described there */
_Static_assert(TN_UDP_MAX_RAILS == TN_CTR_RAILS, "rails of the counter table and udp");

typedef struct tn_udp_conn tn_udp_conn_t;

/* A connection from world rank me to world rank peer: its ids, first
 * packet numbers and keys derive from cfg->secret (udp_auth.h). */
tn_status_t tn_udp_conn_new(const tn_udp_conn_cfg_t *cfg, uint32_t me, uint32_t peer,
                            tn_udp_conn_t **conn_p);
void tn_udp_conn_free(tn_udp_conn_t *conn);

/* The ack_every to configure for packets of packet_size bytes and a window
 * of window packets: ack_bytes' worth of packets, at least 16 and at most
 * window / 8 (16 when the window is smaller than 128 packets). */
uint32_t tn_udp_conn_ack_every(size_t packet_size, uint32_t window, uint64_t ack_bytes);

/* Largest message tn_udp_conn_send accepts (packet_size - TN_UDP_OVERHEAD). */
size_t tn_udp_conn_max_message(const tn_udp_conn_t *conn);

/* Messages queued and not yet sent. */
uint64_t tn_udp_conn_queued(const tn_udp_conn_t *conn);

/* Queue one message (the concatenation of iov) for reliable in-order
 * delivery.  Copies it.  TN_ERR_AGAIN when sendq_max messages already wait;
 * TN_ERR_INVAL when it exceeds tn_udp_conn_max_message. */
tn_status_t tn_udp_conn_send(tn_udp_conn_t *conn, const struct iovec *iov, int iovcnt,
                             uint64_t now);

/* Queue one message by reference: head (copied, head_len bytes) followed by
 * ext_len bytes at ext, which are not copied and must stay unchanged until
 * the connection calls cfg.release(cookie), once the peer has acknowledged
 * the message.  Their CRC is computed here, in one read.  Same limits and
 * results as tn_udp_conn_send. */
tn_status_t tn_udp_conn_send_ref(tn_udp_conn_t *conn, const void *head, size_t head_len,
                                 const void *ext, size_t ext_len, void *cookie,
                                 uint64_t now);

/* Feed one received datagram addressed to this connection.  The caller has
 * checked it: tn_udp_conn_authentic, then tn_udp_packet_check (length,
 * version, connection id, addresses, CRC).
 * rail: the rail it arrived on. */
void tn_udp_conn_input(tn_udp_conn_t *conn, const void *pkt, size_t len, int rail,
                       uint64_t now);

/* The same, without copying an in-order payload: deliver hands out a
 * pointer into pkt, so the caller keeps pkt unchanged until it has drained
 * tn_udp_conn_deliver (which it does right after each input).  Payloads
 * still undelivered at the next input are copied then. */
void tn_udp_conn_input_lent(tn_udp_conn_t *conn, const void *pkt, size_t len, int rail,
                            uint64_t now);

/* The same for a datagram received in two parts: pkt[0, len) (header, SACK
 * ranges and the start of the payload) followed by tail[0, tail_len) (the
 * rest of the payload, elsewhere), checked by tn_udp_packet_check_split.
 * The head is lent as by tn_udp_conn_input_lent.  keep != 0: the tail is
 * already where its consumer wants it and stays unchanged until delivered
 * (tn_udp_conn_deliver_split hands it out in place; only the head is ever
 * copied); keep == 0: it is lent like the head. */
void tn_udp_conn_input_split(tn_udp_conn_t *conn, const void *pkt, size_t len,
                             const void *tail, size_t tail_len, int keep, int rail,
                             uint64_t now);

/* The next datagram to transmit, written to buf (cap >= packet_size), CRC
 * included: a retransmission, new data within the window, or an ack that
 * is due.  Returns its length (0 when nothing is due) and the rail to send
 * it on. */
size_t tn_udp_conn_output(tn_udp_conn_t *conn, void *buf, size_t cap, int *rail_p,
                          uint64_t now);

/* The same without copying the payload: buf receives the header and SACK
 * blocks (their length is returned, 0: nothing due) and *payload_p /
 * *plen_p the payload to send after them (NULL / 0 for control packets),
 * which stays valid until the next call into the connection.  The CRC
 * covers both.  For a message sent by reference buf also receives its
 * head, and the payload is the caller's ext: *ref_p (may be NULL) says
 * so.
 *
 * timers: run the loss timers first (the RTO, the time threshold), as
 * tn_udp_conn_output always does.  Pass 0 when the peer's latest packets
 * may be waiting unread in the socket (a sender pushing a long stream
 * without reading): the timers would take that silence for loss. */
size_t tn_udp_conn_output_gather(tn_udp_conn_t *conn, void *buf, size_t cap,
                                 const void **payload_p, size_t *plen_p, int *ref_p,
                                 int *rail_p, uint64_t now, int timers);

/* The next in-order message, or NULL.  The pointer stays valid until the
 * next call to tn_udp_conn_deliver or tn_udp_conn_input. */
const void *tn_udp_conn_deliver(tn_udp_conn_t *conn, size_t *len_p);
/* The same where split messages were input: a message that kept its tail
 * comes as its first part, the tail in *tail_p / *tail_len_p (else NULL). */
const void *tn_udp_conn_deliver_split(tn_udp_conn_t *conn, size_t *len_p, const void **tail_p,
                                      size_t *tail_len_p);

/* Earliest time tn_udp_conn_output must be called again even without
 * input (RTO, delayed ack, pacing); UINT64_MAX if none. */
uint64_t tn_udp_conn_deadline(const tn_udp_conn_t *conn);

/* Non-zero when, with data outstanding, the peer has not been heard from
 * for peer_timeout (TN_UDP_DEAD_SILENT), or packets were in flight and no
 * ack acknowledged anything new for peer_timeout although the peer still
 * sends (TN_UDP_DEAD_STUCK: acks, pings or data keep coming, our packets
 * do not get through).  A receiver that only withholds credits, with
 * nothing in flight, is not dead.  TN_UDP_DEAD_CRYPTO: the cryptography
 * library failed to seal a datagram (nothing can be sent). */
enum { TN_UDP_DEAD_SILENT = 1, TN_UDP_DEAD_STUCK = 2, TN_UDP_DEAD_CRYPTO = 3 };
int tn_udp_conn_dead(const tn_udp_conn_t *conn, uint64_t now);

/* Nothing queued or in flight in either direction's send side. */
int tn_udp_conn_idle(const tn_udp_conn_t *conn);

/* A rail stopped working: stop using it (retransmit its in-flight packets
 * on the others).  The last working rail cannot be taken down. */
void tn_udp_conn_rail_down(tn_udp_conn_t *conn, int rail);

const tn_udp_conn_stats_t *tn_udp_conn_stats(const tn_udp_conn_t *conn);

/* ---- helpers shared with the socket layer ---------------------------- */

/* Whether a datagram from the connection's peer is genuine: its connection
 * id is the one the peer's direction derived, and its tag authenticates
 * the header and SACK ranges, and in modes aead and encrypt the payload
 * too (mode off: the id only).  The datagram is pkt[0, len) and, when tail
 * is not NULL, tail[0, tail_len) after it.  Mode encrypt decrypts the
 * payload in place (whatever the outcome: what fails is garbage).  Looks
 * at nothing else; run it before tn_udp_packet_check. */
enum { TN_UDP_AUTH_GOOD = 0, TN_UDP_AUTH_BAD_CONN = 1, TN_UDP_AUTH_BAD_TAG = 2 };
int tn_udp_conn_authentic(tn_udp_conn_t *conn, void *pkt, size_t len);
int tn_udp_conn_authentic_split(tn_udp_conn_t *conn, void *pkt, size_t len, void *tail,
                                size_t tail_len);
/* The key epoch of each direction (tests: keys rotate). */
uint64_t tn_udp_conn_key_epoch(const tn_udp_conn_t *conn, int rx);
/* The connection id datagrams from the peer carry. */
uint32_t tn_udp_conn_rx_id(const tn_udp_conn_t *conn);

/* Validate a received datagram: size, version, type, connection id (conn),
 * dst, nsack/len consistency, CRC.  Returns TN_OK or TN_ERR_PROTO (and why
 * in *why_p). */
tn_status_t tn_udp_packet_check(const void *pkt, size_t len, uint32_t conn, uint32_t me,
                                const char **why_p);
/* The same for a datagram in two parts, pkt[0, len) then tail[0, tail_len);
 * the header and SACK ranges must lie in the first. */
tn_status_t tn_udp_packet_check_split(const void *pkt, size_t len, const void *tail,
                                      size_t tail_len, uint32_t conn, uint32_t me,
                                      const char **why_p);
/* The same, with the CRC checked only when crc != 0: a datagram that
 * passed tn_udp_conn_authentic in modes aead and encrypt has a tag over
 * all its bytes, and its CRC adds nothing (tn_udp_conn_needs_crc). */
tn_status_t tn_udp_packet_check_crc(const void *pkt, size_t len, const void *tail,
                                    size_t tail_len, uint32_t conn, uint32_t me, int crc,
                                    const char **why_p);
int tn_udp_conn_needs_crc(const tn_udp_conn_t *conn);

/* The caller had not read its sockets for longer than the minimum RTO
 * before the packet it is about to feed in: the next packet out (which
 * carries the ack) is flagged TN_UDP_F_LATE.  A sender that timed out
 * waiting for that ack undoes the timeout's window reduction when it sees
 * the flag (udp_cc's verdict): the silence was ours, not the network's. */
void tn_udp_conn_note_late(tn_udp_conn_t *conn);

/* CRC32C (Castagnoli), hardware instruction when available. */
uint32_t tn_udp_crc32c(uint32_t crc, const void *data, size_t len);

/* memcpy(dst, src, len) and tn_udp_crc32c(crc, src, len) in one pass. */
uint32_t tn_udp_crc32c_copy(uint32_t crc, void *dst, const void *src, size_t len);

/* The wire CRC of a datagram (see udp_proto.h), its crc field taken as 0:
 * payload first, then header and SACK blocks.  The payload starts after
 * min(nsack, TN_UDP_MAX_SACK) ranges (clipped to len), so that a corrupted
 * nsack reads as a bad CRC. */
uint32_t tn_udp_packet_crc(const void *pkt, size_t len);
uint32_t tn_udp_packet_crc_split(const void *pkt, size_t len, const void *tail,
                                 size_t tail_len);

#endif
