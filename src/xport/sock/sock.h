/* sock: the stream transport to processes learnt after start-up.
 *
 * Processes of other jobs (spawned children, their parents, jobs met
 * through MPI_Comm_accept/connect or MPI_Comm_join) are not in the job's
 * shared segment or udp address exchange, so they are reached over TCP:
 * every process that takes part in dynamic process management opens one
 * listening socket (tn_xport_sock_listen) and publishes its addresses in
 * its card (runtime/proc.h).  Each direction of a pair is its own
 * connection, opened by the sender at its first message, so a stream
 * carries frames one way only and ordering per pair is TCP's.
 *
 * Trust (docs/security.md, docs/dynamic.md): every connection starts with
 * a handshake in which both ends prove, with HMAC-SHA-256 over fresh
 * nonces, that they hold the job's dynamic-process secret (a spawned job
 * inherits its parent's through the launcher, never over the network).
 * A process whose secret differs (an independently started job) is
 * refused: the connector gets TN_ERR_PROTO and a message, the acceptor
 * drops the connection.  A stream's sender must also be a process this
 * side already knows (tn_xport_sock_add_peer), else it is dropped.
 * Frames after the handshake are not authenticated one by one: TCP's
 * sequence state keeps off-path injection out; an on-path attacker is out
 * of scope as for the launcher's own connections.
 *
 * Frames: u32 length (little endian) of what follows, then the 48-byte
 * active-message header and the payload.  Length 0 is "bye": the sender
 * finalizes; a stream that ends without it means the sender died, and
 * the job is ended through job->fatal naming that process.
 *
 * Port connections (MPI_Comm_accept/connect) use the same listener and
 * handshake with kind "port": they wait, authenticated, until an accept
 * takes them (tn_xport_sock_port_take); then both roots exchange blocking
 * messages over them (tn_xport_sock_msg_*) and close them. */
#ifndef TN_XPORT_SOCK_SOCK_H
#define TN_XPORT_SOCK_SOCK_H

#include <stddef.h>
#include <stdint.h>
#include "base/status.h"
#include "xport/xport.h"

#define TN_SOCK_SECRET_BYTES 32
#define TN_SOCK_KEY_MAX      255     /* longest process key ("job#rank") */
#define TN_SOCK_ADDRS_MAX    200     /* "a.b.c.d:port,..." */

extern const tn_xport_ops_t tn_xport_sock_ops;

/* Set up (no sockets yet): the job's secret, my process key, the handler
 * of arrivals and the fatal-error callback.  Idempotent. */
tn_status_t tn_xport_sock_init(const uint8_t secret[TN_SOCK_SECRET_BYTES], const char *my_key,
                               tn_xport_am_handler_fn_t *handler,
                               void (*fatal)(const char *msg));
/* Open the listener (once) and write its addresses into addrs. */
tn_status_t tn_xport_sock_listen(char *addrs, size_t len);
/* Process gpi (an index of the runtime's process table) is key, reached at
 * addrs. */
tn_status_t tn_xport_sock_add_peer(int gpi, const char *key, const char *addrs);
/* Say bye on every stream, close everything. */
void tn_xport_sock_finalize(void);

/* Blocking connection for port port_id of the process at addrs;
 * TN_ERR_PROTO when it does not hold our secret, TN_ERR_IO when nobody
 * answers within timeout_ms. */
tn_status_t tn_xport_sock_port_connect(const char *addrs, uint64_t port_id, int timeout_ms,
                                       int *fd_p);
/* A connection for port_id that came in and passed the handshake: 1 and
 * *fd_p (the caller owns it), else 0.  Runs the listener once. */
int tn_xport_sock_port_take(uint64_t port_id, int *fd_p);
/* Port port_id is open here (TN_ERR_AGAIN: too many open ports), or is it. */
tn_status_t tn_xport_sock_port_open(uint64_t port_id);
int tn_xport_sock_port_is_open(uint64_t port_id);
/* Close port_id and drop the connections still waiting for it
 * (MPI_Close_port). */
void tn_xport_sock_port_drop(uint64_t port_id);
/* One message of len bytes over a port connection; blocking. */
tn_status_t tn_xport_sock_msg_send(int fd, const void *buf, size_t len);
/* The next message (malloc'd into *buf_p, at most max bytes) within
 * timeout_ms (-1: none). */
tn_status_t tn_xport_sock_msg_recv(int fd, void **buf_p, size_t *len_p, size_t max,
                                   int timeout_ms);

/* 1 once a listener or a stream exists (progress then polls, waiting
 * must not sleep long). */
int tn_xport_sock_active(void);

#endif
