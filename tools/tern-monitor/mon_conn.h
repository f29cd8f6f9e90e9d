/* One HTTP connection of the server (mon_srv.h): its buffers, reading,
 * answering in order, writing, and its timers.  Internal to mon_srv.c,
 * which owns the poll() loop; nothing here waits.
 *
 * A connection's life: reading requests and answering them; then, once
 * an answer says close (an error, Connection: close, the client's EOF),
 * closing: nothing more is read as requests and the answers still queued
 * are written; then lingering: the write side is shut and what the client
 * still sends is read and dropped until its EOF or CONN_LINGER_MS, so
 * that no unread input makes the kernel reset the connection before the
 * client has read the last answer. */
#ifndef TN_MON_CONN_H
#define TN_MON_CONN_H

#include "mon_buf.h"
#include "mon_srv.h"

#include <stdint.h>

typedef struct {
    int          fd;
    uint64_t     id;            /* unique per server: a slot reused is another id */
    tn_mon_buf_t in;            /* bytes of requests not answered yet */
    tn_mon_buf_t out;           /* answers; out.data[out_off..len) not sent yet */
    size_t       out_off;
    size_t       need;          /* in.len the parser needs before a new try */
    size_t       scanned;       /* in.len at the parser's last try, while the
                                   head is incomplete; 0 otherwise */
    int64_t      active_ms;     /* last read or write that moved bytes */
    int64_t      started_ms;    /* first byte of the request in in, -1: none */
    int64_t      linger_ms;     /* end of lingering */
    int          closing;       /* no more requests; close once out is sent */
    int          lingering;     /* write side shut, dropping input */
    int          eof;           /* the client sends no more */
} tn_mon_conn_t;

/* A connection on the accepted non-blocking socket fd (owned from now
 * on), or NULL when memory runs out (fd is then not closed). */
tn_mon_conn_t *tn_mon_conn_new(int fd, uint64_t id, const tn_mon_srv_cfg_t *cfg,
                               int64_t now_ms);
/* Close the socket, free everything. */
void tn_mon_conn_free(tn_mon_conn_t *c);
/* The events to poll for. */
short tn_mon_conn_events(const tn_mon_conn_t *c);
/* Serve what poll() reported: read, answer whole requests through
 * cfg->handler (resp is the server's one answer under construction, reset
 * for each request), write.  0, or -1: the connection is done or broken
 * and is to be freed. */
int tn_mon_conn_serve(tn_mon_conn_t *c, short revents, const tn_mon_srv_cfg_t *cfg,
                      tn_mon_http_resp_t *resp, int64_t now_ms);
/* Its timers at now_ms: -1 when it is to be freed (idle, lingered
 * enough); otherwise 0, after answering 408 to a request too slow to
 * come, with *next_ms lowered to its next deadline. */
int tn_mon_conn_expire(tn_mon_conn_t *c, const tn_mon_srv_cfg_t *cfg,
                       tn_mon_http_resp_t *resp, int64_t now_ms, int64_t *next_ms);

#endif
