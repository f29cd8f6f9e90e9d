/* The byte stream to a PMI-1 or PMI-2 server: the only file of the PMI
 * clients that makes socket calls (pmi1.c and pmi2.c build requests and
 * decode replies with the parsers of pmi_wire.h).
 *
 * One connection per process, opened from PMI_FD (a socket the launcher
 * left open for us: Slurm's mpi/pmi2 plugin, Hydra, tern-run) or PMI_PORT
 * (host:port to connect to, Hydra's other mode).  pmi.c keeps a fork()ed
 * child off it.
 *
 * Reads are buffered (at most TN_PMI_CONN_BUF bytes wait) and never wait
 * past a deadline (CLOCK_MONOTONIC milliseconds, -1: none); a server that
 * closes the connection gives TN_ERR_IO, one that sends more than the
 * buffer holds without the end of a message TN_ERR_PROTO.  Writes use
 * MSG_NOSIGNAL: a server gone gives TN_ERR_IO, never SIGPIPE. */
#ifndef TN_RUNTIME_PMI_CONN_H
#define TN_RUNTIME_PMI_CONN_H

#include <stddef.h>
#include <stdint.h>
#include "base/status.h"

#define TN_PMI_CONN_BUF 65536

/* Open the connection: PMI_FD when set, else PMI_PORT.  TN_ERR_NOTFOUND
 * when neither is set (no server: a singleton). */
tn_status_t tn_pmi_conn_open(void);
/* 1 when it came from PMI_PORT (the server then wants an initack first). */
int tn_pmi_conn_port(void);
/* 1 while open. */
int tn_pmi_conn_is_open(void);
tn_status_t tn_pmi_conn_write(const char *data, size_t len);
/* One line, without its '\n', cut to len - 1 bytes, into line (len >= 1). */
tn_status_t tn_pmi_conn_read_line(char *line, size_t len, int64_t deadline);
/* Exactly n bytes into out. */
tn_status_t tn_pmi_conn_read(char *out, size_t n, int64_t deadline);
/* The deadline of a request sent now: TERN_PMI_TIMEOUT, or
 * TERN_PMI_FENCE_TIMEOUT for a fence (fence != 0); -1 when it is 0. */
int64_t tn_pmi_conn_deadline(int fence);
/* Log that the reply named what did not come before the deadline. */
void tn_pmi_conn_timed_out(const char *what, int fence);
/* After an abort request: wait up to 5 s for the server to end us (it
 * closes the connection or kills the process), so that it can report the
 * abort before it sees us exit. */
void tn_pmi_conn_linger(void);
void tn_pmi_conn_close(void);

#endif
