/* tern-run's control socket: `tern-run --status [PID]` asks a running
 * tern-run for its hang report.
 *
 * Where.  A running tern-run listens on a Unix stream socket named
 * run-<its pid>.sock in $XDG_RUNTIME_DIR/tern when that variable names an
 * absolute directory, else in /tmp/tern-<uid>.  Either directory is made
 * with mode 0700 and used only if it is a directory (not a link) that this
 * user owns and nobody else can enter; the server also checks each
 * client's uid (SO_PEERCRED) and the client the server's.
 *
 * Protocol (version 1).  The client sends one line, "status 1\n"; the
 * server answers with text and closes: a summary line ("tern-run pid P: N
 * ranks of PROG on HOST, running T s"), then the report (run_status.h).
 * Anything else gets "error: ...\n".  A client that sends nothing within a
 * second, or does not read its answer within two, is dropped.  The client
 * prints only printable ASCII of what it receives (other bytes become '?'),
 * at most TN_RUN_CTL_MAX_REPLY bytes.
 *
 * The thread.  tn_run_ctl_start runs one thread that advances the status
 * segment's clock every TN_RUN_STATUS_TICK_MS and serves clients one at a
 * time; it never touches the job itself, only the status object. */
#ifndef TN_RUN_CTL_H
#define TN_RUN_CTL_H

#include "run_status.h"

#define TN_RUN_CTL_MAX_REPLY (4u << 20)

typedef struct tn_run_ctl tn_run_ctl_t;

/* Start the thread (and the socket, when a safe directory is found);
 * NULL when no thread could be started (said at -v). */
tn_run_ctl_t *tn_run_ctl_start(tn_run_status_t *st);
/* Stop the thread and remove the socket.  NULL is fine. */
void tn_run_ctl_stop(tn_run_ctl_t *ctl);

/* Whether argv[1] asks for the client ("--status", "-status",
 * "--status=PID"). */
int tn_run_ctl_is_client(int argc, char **argv);
/* tern-run --status [PID]: print the report of that job, or of every job
 * of this user found (a list first when there are several).  Returns the
 * exit status: 0 when some report was printed, 1 when none was found, 2
 * after a usage error. */
int tn_run_ctl_client(int argc, char **argv);

#endif
