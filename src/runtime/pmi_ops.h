/* The PMI clients behind pmi.c: one const ops table per protocol.  pmi.c
 * picks one at tn_pmi_init (TERN_PMI and the environment), handles the
 * singleton and the fork()ed-child cases, and calls only the chosen
 * table afterwards.  Every slot is set in every table, but for the
 * dynamic-process ones (NULL: not supported by that client). */
#ifndef TN_RUNTIME_PMI_OPS_H
#define TN_RUNTIME_PMI_OPS_H

#include "runtime/pmi.h"

typedef struct {
    const char *name;                                       /* "PMI-1" ... */
    /* Start the client (the connection is open for PMI-1 and PMI-2) and
     * fill *info_p.  PMI-2 returns TN_ERR_UNSUPPORTED, having logged
     * nothing, when the server declines PMI-2 at the handshake. */
    tn_status_t (*init)(tn_pmi_info_t *info_p);
    tn_status_t (*put)(const char *key, const char *value);
    tn_status_t (*fence)(void);                             /* commits puts */
    /* key as put by rank */
    tn_status_t (*get)(int rank, const char *key, char *value, int len);
    tn_status_t (*finalize)(void);
    void (*abort)(int code, const char *msg, int user);
    tn_status_t (*spawn)(int count, const tn_pmi_spawn_cmd_t *cmds, int npre,
                         const char *const *pre_key, const char *const *pre_val,
                         int *errcodes);
    tn_status_t (*publish)(const char *service, const char *port);
    tn_status_t (*lookup)(const char *service, char *port, int len);
    tn_status_t (*unpublish)(const char *service);
} tn_pmi_ops_t;

extern const tn_pmi_ops_t tn_pmi1_ops;   /* pmi1.c */
extern const tn_pmi_ops_t tn_pmi2_ops;   /* pmi2.c */
extern const tn_pmi_ops_t tn_pmix_ops;   /* pmix.c (errors without libpmix) */

/* The PMI-1 "init" exchange, which also opens PMI-2: ask for
 * version.subversion; TN_OK when the server agrees, TN_ERR_UNSUPPORTED
 * when it answers with rc != 0 or another version (nothing logged). */
tn_status_t tn_pmi1_handshake(int version, int subversion);

/* 1 when Tern was built with libpmix. */
extern const int tn_pmix_built;

#endif
