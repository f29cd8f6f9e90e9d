/* The process-manager interface: how a rank learns who it is and exchanges
 * addresses with the others before any transport is up.
 *
 * tn_pmi_init picks a client (pmi.c), by TERN_PMI:
 *   auto  PMIx when PMIX_NAMESPACE and PMIX_RANK are set (srun --mpi=pmix,
 *         prterun); else, on PMI_FD, PMI-2 when the server accepts it at
 *         the handshake (srun --mpi=pmi2, Hydra) and PMI-1 when it
 *         declines (tern-run); PMI-1 on PMI_PORT (Hydra's other mode);
 *         with none of these the process is a singleton (a local
 *         key/value space).
 *   pmi1, pmi2, pmix  that one only; an error when the server does not
 *         speak it (pmix: also when Tern was built without libpmix).
 *         Without any server in the environment: a singleton.
 * The clients: pmi1.c, pmi2.c (wire formats in pmi_wire.h, the socket in
 * pmi_conn.h), pmix.c (libpmix).
 *
 * After fork(), a child must not talk to the server: every call checks the
 * pid recorded at init and fails in a child (abort does nothing there).
 *
 * No call waits forever on a server that does not answer: a request waits
 * at most TERN_PMI_TIMEOUT seconds for its reply, a fence (tn_pmi_barrier)
 * at most TERN_PMI_FENCE_TIMEOUT (0, the default, is no limit: a fence
 * waits for the slowest rank).  Past the limit the call logs which reply
 * it missed and returns TN_ERR_TIMEOUT.  A reply that reports an error or
 * does not parse gives TN_ERR_PROTO.  Writes use MSG_NOSIGNAL: a server
 * gone gives TN_ERR_IO and a message, never SIGPIPE. */
#ifndef TN_RUNTIME_PMI_H
#define TN_RUNTIME_PMI_H

#include <stddef.h>
#include "base/status.h"

typedef struct {
    int  rank;
    int  size;
    int  appnum;             /* -1: the server gives none (no MPI_APPNUM) */
    int  universe_size;
    int  singleton;
    int *node_of;            /* NULL, or the node of each world rank as the
                              * server's process mapping says (numbered in
                              * order of their lowest rank; malloc'd, the
                              * caller frees it) */
    int  nnodes;             /* nodes in node_of */
    const char *via;         /* "PMI-1", "PMI-2", "PMIx", "singleton" */
    char kvsname[256];
} tn_pmi_info_t;

tn_status_t tn_pmi_init(tn_pmi_info_t *info_p);
/* Publish key (already made unique per rank by the caller). */
tn_status_t tn_pmi_put(const char *key, const char *value);
tn_status_t tn_pmi_barrier(void);          /* also commits puts */
/* The value of key, put by rank, into value (len bytes).  TN_ERR_NOTFOUND
 * when nobody put it. */
tn_status_t tn_pmi_get(int rank, const char *key, char *value, int len);
tn_status_t tn_pmi_finalize(void);
/* Ask the launcher to end the job with exit code code.  user != 0: the
 * application called MPI_Abort; otherwise Tern itself ends the job (a
 * fatal MPI error, a peer that stopped answering, out of memory), which
 * the PMI-1 request says with internal=1 so that the launcher does not
 * report it as MPI_Abort (launchers that do not know the key ignore it). */
void tn_pmi_abort(int code, const char *msg, int user);

/* Dynamic processes (PMI-1 and PMI-2; TN_ERR_UNSUPPORTED from PMIx and
 * for a singleton).  One command of a spawn: */
typedef struct {
    const char  *cmd;
    char *const *argv;          /* NULL-terminated, or NULL */
    int          maxprocs;
    int          ninfo;
    const char *const *info_key, *const *info_val;
} tn_pmi_spawn_cmd_t;
/* Start the processes of count commands as one new job whose key/value
 * space holds the npre preput pairs.  errcodes (one per process, in
 * order) get the launcher's codes (0: started).  TN_ERR_INVAL for an
 * argument the wire cannot carry (a newline, too long); TN_ERR_NOTFOUND
 * when the launcher refused; TN_ERR_PROTO for a reply that does not
 * parse.  errcodes may be partly written after an error. */
tn_status_t tn_pmi_spawn(int count, const tn_pmi_spawn_cmd_t *cmds, int npre,
                         const char *const *pre_key, const char *const *pre_val, int *errcodes);
/* The launcher's name service: TN_ERR_NOTFOUND when the service is not
 * published (lookup, unpublish) or already is (publish). */
tn_status_t tn_pmi_publish(const char *service, const char *port);
tn_status_t tn_pmi_lookup(const char *service, char *port, int len);
tn_status_t tn_pmi_unpublish(const char *service);

#endif
