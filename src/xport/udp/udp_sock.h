/* Socket I/O of the udp transport: the only file that makes system calls.
 *
 * A rank has one UDP socket per rail, bound to that rail's local IPv4
 * address with an ephemeral port, or a free one of a port range.  At
 * start-up it opens one on each candidate interface (auto: every IPv4
 * interface that is up and not loopback; or the pinned TERN_UDP_RAILS
 * list), publishes them as a card (udp_rails.h) with each interface's
 * subnet and routes, and after the address exchange keeps only the
 * sockets that some pair of ranks uses (tn_udp_sock_keep).  Sends and receives are batched
 * (sendmmsg/recvmmsg) and non-blocking; tn_udp_sock_wait() blocks in poll()
 * until a socket is readable or a deadline passes.  The fault injector sits
 * here, on the send side, so it can drop, duplicate, hold back (reorder)
 * or corrupt real datagrams with a seeded generator.
 *
 * Connected routes.  Sending through an unconnected socket makes the
 * kernel look up the route for every datagram; a socket connected to one
 * destination keeps it.  tn_udp_sock_route() opens such a socket (bound to
 * the rail's address, ephemeral port, send only) for up to max_routes
 * destinations; datagrams to a route leave through it.  Receivers identify
 * the sender by the header, not the source port, so nothing else changes.
 * A connected socket reports ICMP errors (ECONNREFUSED once the peer's
 * socket is gone): such a send counts as lost, like a full buffer.
 *
 * Segmentation offload.  With gso on, a run of datagrams to the same
 * address whose sizes are equal (the last may be shorter) leaves in one
 * sendmsg with a UDP_SEGMENT control message: the kernel walks its stack
 * once for up to 64 KiB and cuts the datagrams at the device (or never, on
 * loopback towards a socket with GRO).  Receiving sockets enable UDP_GRO,
 * so one buffer may hold several datagrams, all of one size but the last;
 * the first datagram's header gives that size (no control message needed).  Each datagram keeps its own header and CRC on the
 * wire, so a peer without GSO/GRO sees ordinary datagrams.  A kernel that
 * refuses the option (or a send through a device without checksum
 * offload) turns gso off for that socket and sends one datagram a time.
 *
 * Zero-copy sends (tn_udp_sock_set_splice).  A datagram whose second part
 * is large and marked zcopy (it stays as it is until the datagram is
 * acknowledged: rendezvous data held by reference, a sent-map slot) and
 * that leaves through a connected route is not copied by sendmsg: its
 * header goes into a ring of header slots, both parts are vmspliced into
 * a pipe (the pipe then refers to the pages) and spliced from the pipe to
 * the socket, which attaches the pages to the datagram.  The kernel reads
 * the payload when the datagram is delivered or leaves the device, so the
 * sender's copy into socket buffers is gone; on loopback the receiver's
 * read is the only copy.  Should the memory change before that (a header
 * slot reused, an acknowledged buffer rewritten while a spurious
 * retransmission still queues), the datagram fails its CRC and is
 * dropped, or is a valid copy of another packet with the same bytes: CRC
 * and sequence numbers keep it safe.  Spliced datagrams go one per system
 * call and without GSO (splice hands a socket at most 16 pages per
 * datagram).  Any failure of vmsplice or splice sends the datagram the
 * ordinary way or counts it lost, like a full buffer. */
#ifndef TN_XPORT_UDP_UDP_SOCK_H
#define TN_XPORT_UDP_UDP_SOCK_H

#include <netinet/in.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <stddef.h>
#include <stdint.h>
#include "base/counters_table.h"
#include "base/status.h"
#include "xport/udp/udp_conn.h"
#include "xport/udp/udp_rails.h"

/* sockets (rails) a rank may have open: every candidate interface */
#define TN_UDP_MAX_SOCKS TN_UDP_MAX_CANDS

typedef struct {
    double   drop, dup, reorder, corrupt;   /* percent */
    uint64_t seed;
} tn_udp_fault_cfg_t;

/* tn_udp_sock_stats_t: the counters of base/counters_table.h (TN_CTR_UDP_SOCK) */

typedef struct {
    /* per rail (local socket): every array indexed by rail is compacted
     * by tn_udp_sock_keep */
    int                 nrails;
    int                 fd[TN_UDP_MAX_SOCKS];
    /* connected send sockets (see above) */
    int                *route_fd;
    int                 nroutes, max_routes;
    size_t              sockbuf;
    struct sockaddr_in  addr[TN_UDP_MAX_SOCKS];   /* bound local addresses */
    int                 mtu[TN_UDP_MAX_SOCKS];    /* interface MTU (0 unknown) */
    int                 gso[TN_UDP_MAX_SOCKS];    /* UDP_SEGMENT sends work on this rail */
    int                 gro[TN_UDP_MAX_SOCKS];    /* UDP_GRO enabled on this rail's socket */
    /* recv: successful first reads in a row, and whether the last look for
     * more (recvmmsg) found any; see tn_udp_sock_recv */
    int                 hits[TN_UDP_MAX_SOCKS];
    int                 more[TN_UDP_MAX_SOCKS];
    /* what is published of each rail (card.c[r]: address, port, subnet,
     * routes) and its interface's name, for logs */
    tn_udp_card_t       card;
    char                ifname[TN_UDP_MAX_SOCKS][16];
    /* zero-copy sends (see above): smallest zcopy second part sent by
     * splice (0: off), the pipe, /dev/null to empty it after a failure,
     * its capacity in pages (of page bytes), bytes in it, the header ring */
    size_t              splice_min;
    size_t              page;
    int                 pipe[2];
    int                 null_fd;
    int                 pipe_pages;
    size_t              piped;
    char               *hring;
    unsigned            hnext;
    tn_udp_fault_cfg_t  fault;
    uint64_t            rng;
    /* a datagram held back by the reorder fault */
    void               *held;
    size_t              held_len;
    int                 held_rail;
    int                 held_route;
    struct sockaddr_in  held_to;
    tn_udp_sock_stats_t *stats;       /* stats_own, or in the stats segment */
    tn_udp_sock_stats_t stats_own;
} tn_udp_sock_t;

/* Open one socket per candidate rail.  rails: "auto" or a comma-separated
 * list of IPv4 addresses / interface names (pinned); auto takes every IPv4
 * interface that is up and not loopback (at most TN_UDP_MAX_SOCKS, one per
 * address), or 127.0.0.1 alone when loopback_only.  port_lo..port_hi:
 * bind each socket to a free port of that range (tried from a random
 * start; 0..0: an ephemeral port).  gso: try UDP segmentation and receive
 * offload (see above).  Fails with a message when a pinned rail is not a
 * local address or interface or no port of the range is free. */
tn_status_t tn_udp_sock_open(tn_udp_sock_t *s, const char *rails, int loopback_only,
                             size_t sockbuf, int gso, const tn_udp_fault_cfg_t *fault,
                             unsigned port_lo, unsigned port_hi);
/* Keep the rails whose bit is set in mask, close the others, and number
 * the kept ones from 0 in their order.  Only before the first route. */
void tn_udp_sock_keep(tn_udp_sock_t *s, unsigned mask);
/* Allow up to per_rail connected routes on each rail (0: none). */
void tn_udp_sock_set_routes(tn_udp_sock_t *s, int per_rail);

/* Send zcopy second parts of at least min bytes by splice (see above);
 * 0 turns it off.  Returns 1 when zero-copy sends are on. */
int tn_udp_sock_set_splice(tn_udp_sock_t *s, size_t min);

/* A connected send socket on rail towards to (see above): its route
 * number, or -1 when max_routes are in use or it cannot be made (the
 * caller then sends unconnected). */
int tn_udp_sock_route(tn_udp_sock_t *s, int rail, const struct sockaddr_in *to);

/* Datagrams of dgram bytes one GSO send carries at most (1: no GSO). */
int tn_udp_sock_gso_segs(const tn_udp_sock_t *s, size_t dgram);

/* Largest buffer one receive may fill: 64 KiB when a rail has GRO on (so
 * receive buffers must be that large), else packet_size. */
size_t tn_udp_sock_recv_cap(const tn_udp_sock_t *s, size_t packet_size);
void tn_udp_sock_close(tn_udp_sock_t *s);

/* Routes of the kernel's main table (path: /proc/net/route) that leave
 * through interface ifname, not the default route and not the subnet
 * net/len the interface's address is on: at most max into out, the widest
 * first.  Returns how many (0 when the table cannot be read). */
int tn_udp_sock_routes(const char *path, const char *ifname, uint32_t net, unsigned len,
                       tn_udp_prefix_t *out, int max);

/* One datagram to send: buf, then buf2 (len2 may be 0).  zcopy: buf2
 * stays as it is until the datagram is acknowledged, so the kernel may
 * read it after the send returns (zero-copy, see above). */
typedef struct {
    const void         *buf;
    size_t              len;
    const void         *buf2;
    size_t              len2;
    int                 zcopy;
    int                 rail;
    int                 route;      /* from tn_udp_sock_route, or -1 */
    struct sockaddr_in  to;         /* used when route is -1 */
} tn_udp_out_t;

/* Send n datagrams (batched per rail).  Datagrams the kernel refuses for
 * lack of buffer space are simply lost (reliability retransmits them).
 * Returns the number of datagrams handed to the kernel or dropped by the
 * fault injector; a rail whose sends fail with a hard error is reported in
 * *failed_rail_p (-1 if none). */
int tn_udp_sock_send(tn_udp_sock_t *s, const tn_udp_out_t *out, int n, int *failed_rail_p);

/* Receive up to max buffers from rail into base + i * cap (each cap
 * bytes); lens[i] gets their sizes and segs[i] the size of the datagrams in it:
 * lens[i] for a single datagram, less when GRO coalesced several (each
 * segs[i] bytes, the last one the rest: the kernel's segment size, never
 * read from the datagrams), from[i] its source address
 * (sin_family AF_UNSPEC when not IPv4).  Non-blocking; returns the count
 * of buffers filled (0 if none).  Consecutive calls must pass the same
 * base, cap and from (the message headers are built once). */
int tn_udp_sock_recv(tn_udp_sock_t *s, int rail, char *base, size_t cap, size_t *lens,
                     size_t *segs, struct sockaddr_in *from, int max);

/* Receive one buffer (a datagram, or several coalesced by GRO) from rail
 * into the niov pieces of iov, non-blocking.  Returns its length, 0 when
 * none waits, or -1 when it was longer than the pieces (dropped); *from
 * gets its source address, *seg_p the size of the datagrams in it (as
 * segs in tn_udp_sock_recv: the kernel's).  The caller counts what it
 * holds with tn_udp_sock_note_recv. */
ssize_t tn_udp_sock_recv_iov(tn_udp_sock_t *s, int rail, struct iovec *iov, int niov,
                             struct sockaddr_in *from, size_t *seg_p);
/* ndg datagrams arrived in one buffer (statistics). */
void tn_udp_sock_note_recv(tn_udp_sock_t *s, size_t ndg);

/* Block until a socket (or extra_fd, when >= 0) is readable or timeout_ns
 * passes. */
void tn_udp_sock_wait(tn_udp_sock_t *s, uint64_t timeout_ns, int extra_fd);

#endif
