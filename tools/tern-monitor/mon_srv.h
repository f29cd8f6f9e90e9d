/* tern-monitor's web server: one thread, one poll() loop.
 *
 * Design note.  The server listens on one address, accepts up to
 * max_conns connections and answers their HTTP/1.1 requests (mon_http.h)
 * through one handler callback, in order, pipelined requests included.
 * Every socket is non-blocking and every wait is the one poll(), so no
 * client can hold up another: a connection reads at most 16 KiB per
 * round, and what it cannot take of its answers waits in its own buffer.
 *
 * Bounds, per connection: input of at most a head and max_body bytes
 * (more is refused by the parser before it is buffered); output of at
 * most out_max bytes (a handler's body is bounded by it too; an answer
 * that does not fit closes the connection).  Further requests of a
 * connection are not read while 64 KiB of its answers wait, so a client
 * that pipelines without reading gets nothing more buffered for it.
 * Timers: a connection that makes no progress either way for idle_ms is
 * closed; a request that has not arrived whole request_ms after its first
 * byte is answered 408 (a slow-loris client cannot keep a slot forever by
 * sending a byte now and then).  A connection beyond max_conns is answered
 * 503 and closed at once.  After an answer that closes (an error, or
 * Connection: close), the server shuts its side, reads and drops what the
 * client still sends for a short while, then closes: closing with unread
 * input would make the kernel reset the connection and throw the answer
 * away before the client reads it.
 *
 * The owner may add other descriptors (agents' connections, a signalfd)
 * to the same loop with callbacks of their own, and a periodic tick.
 * Everything runs on the thread that calls tn_mon_srv_step() or _run();
 * only tn_mon_srv_stop() may be called from elsewhere (another thread, a
 * signal handler).  The handler and the callbacks may add, change and
 * delete descriptors, set the tick and stop the server, but not close it
 * or run a step of their own. */
#ifndef TN_MON_SRV_H
#define TN_MON_SRV_H

#include "mon_http.h"
#include "mon_resp.h"

#include <stddef.h>
#include <stdint.h>

typedef struct tn_mon_srv tn_mon_srv_t;

/* Answer req by filling resp (status, content type, headers, body; see
 * mon_resp.h).  For HEAD the handler builds the same answer as for GET
 * and the server leaves the body out.  Returns 0, or -1 for the server
 * to answer 500 instead (and close the connection). */
typedef int (*tn_mon_srv_handler_fn_t)(void *ctx, const tn_mon_http_req_t *req,
                                       tn_mon_http_resp_t *resp);
/* An owner's descriptor is ready: revents as poll() set them (POLLHUP,
 * POLLERR and POLLNVAL included).  The callback may add and delete
 * descriptors, its own included. */
typedef void (*tn_mon_srv_fd_fn_t)(void *arg, int fd, short revents);
/* The periodic tick; now_ms is CLOCK_MONOTONIC in milliseconds. */
typedef void (*tn_mon_srv_tick_fn_t)(void *arg, int64_t now_ms);
/* A line about a connection dropped or refused (no newline). */
typedef void (*tn_mon_srv_log_fn_t)(void *ctx, const char *msg);

typedef struct {
    const char             *addr;       /* IPv4 or IPv6 literal (brackets allowed),
                                           or "localhost"; NULL: 127.0.0.1
                                           (mon_listen.h splits "ADDR:PORT") */
    uint16_t                port;       /* 0: one the kernel picks (tn_mon_srv_port) */
    int                     max_conns;  /* 0: 64 */
    size_t                  max_body;   /* 0: 1 MiB */
    size_t                  out_max;    /* 0: 16 MiB */
    int                     idle_ms;    /* 0: 60 000 */
    int                     request_ms; /* 0: 10 000 */
    tn_mon_srv_handler_fn_t handler;
    void                   *ctx;        /* handler's and log's first argument */
    tn_mon_srv_log_fn_t     log;        /* NULL: nothing said */
} tn_mon_srv_cfg_t;

/* Listen as cfg says.  Returns 0 with the server in *srv_p, or -errno
 * (-EINVAL for an address that is not a literal or "localhost", or no
 * handler; what socket(), bind() and listen() said). */
int tn_mon_srv_open(const tn_mon_srv_cfg_t *cfg, tn_mon_srv_t **srv_p);
/* Close every connection and the listening socket, free everything.  The
 * owner's descriptors are not closed. */
void tn_mon_srv_close(tn_mon_srv_t *srv);
/* The port listened on (the picked one when cfg.port was 0). */
uint16_t tn_mon_srv_port(const tn_mon_srv_t *srv);
/* Open HTTP connections. */
int tn_mon_srv_nconns(const tn_mon_srv_t *srv);

/* Watch fd for events (POLLIN, POLLOUT) and call cb(arg, fd, revents)
 * when poll() reports any.  0, -EEXIST (fd is watched already, or is the
 * server's), -EINVAL, -ENOMEM.  Delete an fd before closing it. */
int tn_mon_srv_add_fd(tn_mon_srv_t *srv, int fd, short events,
                      tn_mon_srv_fd_fn_t cb, void *arg);
/* New events for a watched fd: 0 or -ENOENT. */
int tn_mon_srv_mod_fd(tn_mon_srv_t *srv, int fd, short events);
/* Stop watching fd (it is not closed); its callback is not called again,
 * not even later in the same round.  0 or -ENOENT. */
int tn_mon_srv_del_fd(tn_mon_srv_t *srv, int fd);
/* Call cb every period_ms (0: no tick).  A late round calls it once,
 * not once per missed period. */
void tn_mon_srv_set_tick(tn_mon_srv_t *srv, int period_ms, tn_mon_srv_tick_fn_t cb,
                         void *arg);

/* One round: wait up to max_wait_ms (-1: until something happens, the
 * tick and the connections' timers included), then serve what is ready.
 * 0, or -errno when poll() fails. */
int tn_mon_srv_step(tn_mon_srv_t *srv, int max_wait_ms);
/* Rounds until tn_mon_srv_stop(): 0, or -errno of a failed round. */
int tn_mon_srv_run(tn_mon_srv_t *srv);
/* Make tn_mon_srv_run() return after its current round.  Safe from a
 * signal handler and from other threads. */
void tn_mon_srv_stop(tn_mon_srv_t *srv);

#endif
