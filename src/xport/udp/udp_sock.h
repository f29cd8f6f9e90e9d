/* Socket I/O of the udp transport: the only file that makes system calls.
 *
 * A rank has one UDP socket per rail, bound to that rail's local IPv4
 * address with an ephemeral port.  Sends and receives are batched
 * (sendmmsg/recvmmsg) and non-blocking; tn_udp_sock_wait() blocks in poll()
 * until a socket is readable or a deadline passes.  The fault injector sits
 * here, on the send side, so it can drop, duplicate, hold back (reorder)
 * or corrupt real datagrams with a seeded generator. */
#ifndef TN_XPORT_UDP_UDP_SOCK_H
#define TN_XPORT_UDP_UDP_SOCK_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include "base/status.h"
#include "xport/udp/udp_conn.h"

typedef struct {
    double   drop, dup, reorder, corrupt;   /* percent */
    uint64_t seed;
} tn_udp_fault_cfg_t;

typedef struct {
    uint64_t sent, send_errors, recv, recv_errors;
    uint64_t fault_dropped, fault_duplicated, fault_reordered, fault_corrupted;
} tn_udp_sock_stats_t;

typedef struct {
    int                 nrails;
    int                 fd[TN_UDP_MAX_RAILS];
    struct sockaddr_in  addr[TN_UDP_MAX_RAILS];   /* bound local addresses */
    int                 mtu[TN_UDP_MAX_RAILS];    /* interface MTU (0 unknown) */
    tn_udp_fault_cfg_t  fault;
    uint64_t            rng;
    /* a datagram held back by the reorder fault */
    void               *held;
    size_t              held_len;
    int                 held_rail;
    struct sockaddr_in  held_to;
    tn_udp_sock_stats_t stats;
} tn_udp_sock_t;

/* Open one socket per rail.  rails: "auto" or a comma-separated list of
 * IPv4 addresses / interface names; loopback_only picks 127.0.0.1 for auto. */
tn_status_t tn_udp_sock_open(tn_udp_sock_t *s, const char *rails, int loopback_only,
                             size_t sockbuf, const tn_udp_fault_cfg_t *fault);
void tn_udp_sock_close(tn_udp_sock_t *s);

/* "ip:port,ip:port" of the local rails, for the address exchange. */
void tn_udp_sock_format(const tn_udp_sock_t *s, char *buf, size_t len);
/* Parse the peer's published form into addrs (up to TN_UDP_MAX_RAILS). */
int tn_udp_sock_parse(const char *str, struct sockaddr_in *addrs, int max);

/* One datagram to send: buf, then buf2 (len2 may be 0). */
typedef struct {
    const void         *buf;
    size_t              len;
    const void         *buf2;
    size_t              len2;
    int                 rail;
    struct sockaddr_in  to;
} tn_udp_out_t;

/* Send n datagrams (batched per rail).  Datagrams the kernel refuses for
 * lack of buffer space are simply lost (reliability retransmits them).
 * Returns the number of datagrams handed to the kernel or dropped by the
 * fault injector; a rail whose sends fail with a hard error is reported in
 * *failed_rail_p (-1 if none). */
int tn_udp_sock_send(tn_udp_sock_t *s, const tn_udp_out_t *out, int n, int *failed_rail_p);

/* Receive up to max datagrams from rail into bufs[i] (each cap bytes);
 * lens[i] gets their sizes.  Non-blocking; returns the count (0 if none). */
int tn_udp_sock_recv(tn_udp_sock_t *s, int rail, void **bufs, size_t cap, size_t *lens,
                     int max);

/* Block until a socket is readable or timeout_ns passes. */
void tn_udp_sock_wait(tn_udp_sock_t *s, uint64_t timeout_ns);

#endif
