/* PMI-1 client (the text "simple PMI" wire protocol served by tern-run and
 * by MPICH's Hydra).  Found through PMI_FD (an inherited socket) or
 * PMI_PORT (host:port to connect to, with PMI_ID).  Without either the
 * process is a singleton and the key/value space is local.
 *
 * After fork(), a child must not talk to the server: every call checks the
 * pid recorded at init and fails in a child.
 *
 * No call waits forever on a server that does not answer: a request waits
 * at most TERN_PMI_TIMEOUT seconds for its reply, a fence (tn_pmi_barrier)
 * at most TERN_PMI_FENCE_TIMEOUT (0, the default, is no limit: a fence
 * waits for the slowest rank).  Past the limit the call logs which reply
 * it missed and returns TN_ERR_TIMEOUT.  A reply "cmd=error" (a server
 * that could not parse the request) gives TN_ERR_PROTO.  Writes use
 * MSG_NOSIGNAL: a server gone gives TN_ERR_IO and a message, never SIGPIPE;
 * the process's SIGPIPE disposition is not touched. */
#ifndef TN_RUNTIME_PMI_H
#define TN_RUNTIME_PMI_H

#include <stddef.h>
#include "base/status.h"

typedef struct {
    int  rank;
    int  size;
    int  appnum;
    int  universe_size;
    int  singleton;
    char kvsname[256];
} tn_pmi_info_t;

tn_status_t tn_pmi_init(tn_pmi_info_t *info_p);
tn_status_t tn_pmi_put(const char *key, const char *value);
tn_status_t tn_pmi_barrier(void);          /* also commits puts */
tn_status_t tn_pmi_get(const char *key, char *value, int len);
tn_status_t tn_pmi_finalize(void);
/* Ask the launcher to end the job with exit code code. */
/* Ask the launcher to end the job with exit code code.  user != 0: the
 * application called MPI_Abort; otherwise Tern itself ends the job (a
 * fatal MPI error, a peer that stopped answering, out of memory), which
 * the request says with internal=1 so that the launcher does not report it
 * as MPI_Abort (launchers that do not know the key ignore it). */
void tn_pmi_abort(int code, const char *msg, int user);

/* The client's parser of the server's reply lines: the value of key in a
 * "cmd=x key=value ..." line, cut to len - 1 bytes (len >= 1), into out;
 * 1 if found, else 0.  Internal; public for tests/fuzz/fuzz_pmi.c. */
int tn_pmi_field(const char *line, const char *key, char *out, size_t len);

#endif
