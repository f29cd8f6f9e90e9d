/* Choosing the PMI client, and the singleton's local key/value space
 * (pmi.h). */
#include "runtime/pmi.h"
#include "runtime/pmi_ops.h"
#include "runtime/pmi_conn.h"
#include "base/config.h"
#include "base/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
    const tn_pmi_ops_t *ops;       /* NULL: singleton */
    pid_t pid;
    /* singleton key/value space */
    char **keys, **vals;
    int    nkv;
} tn_pmi;

static tn_status_t tn_pmi_singleton(tn_pmi_info_t *info_p)
{
    tn_pmi.ops = NULL;
    info_p->singleton = 1;
    info_p->rank = 0;
    info_p->size = 1;
    info_p->appnum = 0;
    info_p->universe_size = 1;
    info_p->via = "singleton";
    snprintf(info_p->kvsname, sizeof(info_p->kvsname), "single-%d", (int)getpid());
    return TN_OK;
}

/* PMI-1 or PMI-2 on the connection from PMI_FD or PMI_PORT. */
static tn_status_t tn_pmi_init_wire(const char *want, tn_pmi_info_t *info_p)
{
    tn_status_t st = tn_pmi_conn_open();
    if (st == TN_ERR_NOTFOUND) {
        if (strcmp(want, "auto") != 0) {
            tn_log_debug("rt", "TERN_PMI=%s but no PMI server (PMI_FD, PMI_PORT): a singleton",
                         want);
        }
        return tn_pmi_singleton(info_p);
    }
    if (st != TN_OK) {
        return st;
    }
    int try2 = strcmp(want, "pmi2") == 0 || (strcmp(want, "auto") == 0 && !tn_pmi_conn_port());
    if (try2) {
        tn_pmi.ops = &tn_pmi2_ops;
        st = tn_pmi2_ops.init(info_p);
        if (st != TN_ERR_UNSUPPORTED) {
            return st;
        }
        if (strcmp(want, "pmi2") == 0) {
            tn_log_error("rt", "TERN_PMI=pmi2 but the PMI server declines PMI-2");
            return TN_ERR_PROTO;
        }
        /* auto: the server speaks PMI-1 only; it answered, ask again */
    }
    tn_pmi.ops = &tn_pmi1_ops;
    return tn_pmi1_ops.init(info_p);
}

tn_status_t tn_pmi_init(tn_pmi_info_t *info_p)
{
    const char *want = tn_cfg.pmi != NULL ? tn_cfg.pmi : "auto";
    tn_status_t st;
    memset(info_p, 0, sizeof(*info_p));
    info_p->appnum = -1;
    tn_pmi.pid = getpid();
    int pmix_env = getenv("PMIX_NAMESPACE") != NULL && getenv("PMIX_RANK") != NULL;
    if (strcmp(want, "pmix") == 0 || (strcmp(want, "auto") == 0 && pmix_env)) {
        if (!pmix_env && tn_pmix_built) {
            tn_log_debug("rt", "TERN_PMI=pmix but no PMIx server (PMIX_NAMESPACE): a singleton");
            return tn_pmi_singleton(info_p);
        }
        tn_pmi.ops = &tn_pmix_ops;
        st = tn_pmix_ops.init(info_p);
    } else if (strcmp(want, "auto") == 0 || strcmp(want, "pmi1") == 0 ||
               strcmp(want, "pmi2") == 0) {
        st = tn_pmi_init_wire(want, info_p);
    } else {
        tn_log_error("rt", "TERN_PMI=%s is not one of auto, pmi1, pmi2, pmix", want);
        return TN_ERR_INVAL;
    }
    if (st == TN_OK && tn_pmi.ops != NULL) {
        info_p->via = tn_pmi.ops->name;
        tn_log_debug("rt", "%s: rank %d of %d, appnum %d, universe %d, job %s%s", info_p->via,
                     info_p->rank, info_p->size, info_p->appnum, info_p->universe_size,
                     info_p->kvsname, info_p->node_of ? ", process mapping given" : "");
    }
    if (st != TN_OK) {
        free(info_p->node_of);
        info_p->node_of = NULL;
        tn_pmi.ops = NULL;
    }
    return st;
}

/* A fork()ed child stays off the wire: the server knows its parent. */
static int tn_pmi_child(void)
{
    return getpid() != tn_pmi.pid;
}

tn_status_t tn_pmi_put(const char *key, const char *value)
{
    if (tn_pmi.ops != NULL) {
        return tn_pmi_child() ? TN_ERR_UNSUPPORTED : tn_pmi.ops->put(key, value);
    }
    char **k = realloc(tn_pmi.keys, sizeof(char *) * (size_t)(tn_pmi.nkv + 1));
    if (k == NULL) {
        return TN_ERR_NOMEM;
    }
    tn_pmi.keys = k;
    char **v = realloc(tn_pmi.vals, sizeof(char *) * (size_t)(tn_pmi.nkv + 1));
    if (v == NULL) {
        return TN_ERR_NOMEM;
    }
    tn_pmi.vals = v;
    k[tn_pmi.nkv] = strdup(key);
    v[tn_pmi.nkv] = strdup(value);
    if (k[tn_pmi.nkv] == NULL || v[tn_pmi.nkv] == NULL) {
        free(k[tn_pmi.nkv]);
        free(v[tn_pmi.nkv]);
        return TN_ERR_NOMEM;
    }
    tn_pmi.nkv++;
    return TN_OK;
}

tn_status_t tn_pmi_barrier(void)
{
    if (tn_pmi.ops != NULL) {
        return tn_pmi_child() ? TN_ERR_UNSUPPORTED : tn_pmi.ops->fence();
    }
    return TN_OK;
}

tn_status_t tn_pmi_get(int rank, const char *key, char *value, int len)
{
    if (tn_pmi.ops != NULL) {
        return tn_pmi_child() ? TN_ERR_UNSUPPORTED : tn_pmi.ops->get(rank, key, value, len);
    }
    for (int i = tn_pmi.nkv - 1; i >= 0; i--) {
        if (strcmp(tn_pmi.keys[i], key) == 0) {
            snprintf(value, (size_t)len, "%s", tn_pmi.vals[i]);
            return TN_OK;
        }
    }
    return TN_ERR_NOTFOUND;
}

tn_status_t tn_pmi_finalize(void)
{
    if (tn_pmi.ops != NULL) {
        if (tn_pmi_child()) {
            return TN_ERR_UNSUPPORTED;
        }
        tn_status_t st = tn_pmi.ops->finalize();
        tn_pmi.ops = NULL;
        return st;
    }
    for (int i = 0; i < tn_pmi.nkv; i++) {
        free(tn_pmi.keys[i]);
        free(tn_pmi.vals[i]);
    }
    free(tn_pmi.keys);
    free(tn_pmi.vals);
    tn_pmi.keys = tn_pmi.vals = NULL;
    tn_pmi.nkv = 0;
    return TN_OK;
}

void tn_pmi_abort(int code, const char *msg, int user)
{
    if (tn_pmi.ops == NULL || tn_pmi_child()) {
        return;
    }
    tn_pmi.ops->abort(code, msg, user);
}

/* Dynamic processes: through the client when it has them. */
tn_status_t tn_pmi_spawn(int count, const tn_pmi_spawn_cmd_t *cmds, int npre,
                         const char *const *pre_key, const char *const *pre_val, int *errcodes)
{
    if (tn_pmi.ops == NULL || tn_pmi.ops->spawn == NULL || tn_pmi_child()) {
        return TN_ERR_UNSUPPORTED;
    }
    return tn_pmi.ops->spawn(count, cmds, npre, pre_key, pre_val, errcodes);
}

tn_status_t tn_pmi_publish(const char *service, const char *port)
{
    if (tn_pmi.ops == NULL || tn_pmi.ops->publish == NULL || tn_pmi_child()) {
        return TN_ERR_UNSUPPORTED;
    }
    return tn_pmi.ops->publish(service, port);
}

tn_status_t tn_pmi_lookup(const char *service, char *port, int len)
{
    if (tn_pmi.ops == NULL || tn_pmi.ops->lookup == NULL || tn_pmi_child()) {
        return TN_ERR_UNSUPPORTED;
    }
    return tn_pmi.ops->lookup(service, port, len);
}

tn_status_t tn_pmi_unpublish(const char *service)
{
    if (tn_pmi.ops == NULL || tn_pmi.ops->unpublish == NULL || tn_pmi_child()) {
        return TN_ERR_UNSUPPORTED;
    }
    return tn_pmi.ops->unpublish(service);
}
