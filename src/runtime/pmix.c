/* PMIx client through libpmix (srun --mpi=pmix, prterun, Open MPI's
 * launchers): chosen when PMIX_NAMESPACE and PMIX_RANK are set (or
 * TERN_PMI=pmix).  Built only where configure found libpmix with
 * pkg-config (TERN_HAVE_PMIX); otherwise every call says so and fails.
 *
 * Values are strings put with PMIX_GLOBAL scope; the fence collects data,
 * so that a get after it is answered locally.  What libpmix hands back is
 * checked for its type and length before it is copied. */
#include "runtime/pmi_ops.h"
#include "base/config.h"
#include "base/log.h"

#include <stdio.h>
#include <string.h>

#ifdef TERN_HAVE_PMIX
#include <pmix.h>

const int tn_pmix_built = 1;

static pmix_proc_t tn_pmix_me;

/* An unsigned integer value of key about proc into *v_p: 1, else 0. */
static int tn_pmix_get_uint(const pmix_proc_t *proc, const char *key, long *v_p)
{
    pmix_value_t *val = NULL;
    int ok = 1;
    if (PMIx_Get(proc, key, NULL, 0, &val) != PMIX_SUCCESS || val == NULL) {
        return 0;
    }
    switch (val->type) {
    case PMIX_UINT32:
        *v_p = (long)val->data.uint32;
        break;
    case PMIX_UINT16:
        *v_p = (long)val->data.uint16;
        break;
    case PMIX_INT:
        *v_p = (long)val->data.integer;
        break;
    case PMIX_UINT:
        *v_p = (long)val->data.uint;
        break;
    default:
        ok = 0;
    }
    PMIX_VALUE_RELEASE(val);
    return ok && *v_p >= 0 && *v_p <= 0x7fffffff;
}

static tn_status_t tn_pmix_init(tn_pmi_info_t *info_p)
{
    pmix_status_t rc = PMIx_Init(&tn_pmix_me, NULL, 0);
    long size, v;
    if (rc != PMIX_SUCCESS) {
        tn_log_error("rt", "PMIx_Init failed: %s", PMIx_Error_string(rc));
        return TN_ERR_IO;
    }
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, tn_pmix_me.nspace, PMIX_RANK_WILDCARD);
    if (!tn_pmix_get_uint(&wild, PMIX_JOB_SIZE, &size) || size < 1 ||
        tn_pmix_me.rank >= (pmix_rank_t)size) {
        tn_log_error("rt", "PMIx: no valid job size for rank %u", tn_pmix_me.rank);
        PMIx_Finalize(NULL, 0);
        return TN_ERR_PROTO;
    }
    info_p->rank = (int)tn_pmix_me.rank;
    info_p->size = (int)size;
    info_p->appnum = tn_pmix_get_uint(&tn_pmix_me, PMIX_APPNUM, &v) ? (int)v : -1;
    info_p->universe_size = tn_pmix_get_uint(&wild, PMIX_UNIV_SIZE, &v) && v >= size ? (int)v :
                            (int)size;
    snprintf(info_p->kvsname, sizeof(info_p->kvsname), "%s", tn_pmix_me.nspace);
    return TN_OK;
}

static tn_status_t tn_pmix_put(const char *key, const char *value)
{
    pmix_value_t val;
    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_STRING;
    val.data.string = (char *)value;          /* PMIx_Put copies it */
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &val);
    if (rc != PMIX_SUCCESS) {
        tn_log_error("rt", "PMIx_Put(%s) failed: %s", key, PMIx_Error_string(rc));
        return TN_ERR_IO;
    }
    return TN_OK;
}

static tn_status_t tn_pmix_fence(void)
{
    pmix_info_t info[2];
    bool collect = true;
    int timeout = (int)tn_cfg.pmi_fence_timeout;
    size_t ninfo = 1;
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) {
        tn_log_error("rt", "PMIx_Commit failed: %s", PMIx_Error_string(rc));
        return TN_ERR_IO;
    }
    PMIX_INFO_LOAD(&info[0], PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    if (tn_cfg.pmi_fence_timeout > 0) {
        timeout = timeout < 1 ? 1 : timeout;
        PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &timeout, PMIX_INT);
        ninfo = 2;
    }
    rc = PMIx_Fence(NULL, 0, info, ninfo);
    for (size_t i = 0; i < ninfo; i++) {
        PMIX_INFO_DESTRUCT(&info[i]);
    }
    if (rc == PMIX_ERR_TIMEOUT) {
        tn_log_error("rt", "PMIx_Fence: the other ranks did not come within %g s "
                     "(TERN_PMI_FENCE_TIMEOUT sets the limit, 0 = none)", tn_cfg.pmi_fence_timeout);
        return TN_ERR_TIMEOUT;
    }
    if (rc != PMIX_SUCCESS) {
        tn_log_error("rt", "PMIx_Fence failed: %s", PMIx_Error_string(rc));
        return TN_ERR_IO;
    }
    return TN_OK;
}

static tn_status_t tn_pmix_get(int rank, const char *key, char *value, int len)
{
    pmix_proc_t proc;
    pmix_value_t *val = NULL;
    tn_status_t st = TN_OK;
    PMIX_LOAD_PROCID(&proc, tn_pmix_me.nspace, (pmix_rank_t)rank);
    pmix_status_t rc = PMIx_Get(&proc, key, NULL, 0, &val);
    if (rc == PMIX_ERR_NOT_FOUND) {
        return TN_ERR_NOTFOUND;
    }
    if (rc != PMIX_SUCCESS || val == NULL) {
        tn_log_error("rt", "PMIx_Get(%s of rank %d) failed: %s", key, rank, PMIx_Error_string(rc));
        return TN_ERR_IO;
    }
    if (val->type != PMIX_STRING || val->data.string == NULL) {
        tn_log_error("rt", "PMIx_Get(%s of rank %d): not a string", key, rank);
        st = TN_ERR_PROTO;
    } else if (strlen(val->data.string) >= (size_t)len) {
        tn_log_error("rt", "PMIx_Get(%s of rank %d): value longer than %d bytes", key, rank,
                     len - 1);
        st = TN_ERR_TRUNCATE;
    } else {
        memcpy(value, val->data.string, strlen(val->data.string) + 1);
    }
    PMIX_VALUE_RELEASE(val);
    return st;
}

static tn_status_t tn_pmix_finalize(void)
{
    pmix_status_t rc = PMIx_Finalize(NULL, 0);
    return rc == PMIX_SUCCESS ? TN_OK : TN_ERR_IO;
}

static void tn_pmix_abort(int code, const char *msg, int user)
{
    (void)user;
    PMIx_Abort(code, msg != NULL ? msg : "aborted", NULL, 0);
}

#else /* !TERN_HAVE_PMIX */

const int tn_pmix_built = 0;

static tn_status_t tn_pmix_init(tn_pmi_info_t *info_p)
{
    (void)info_p;
    tn_log_error("rt", "this Tern was built without PMIx (configure found no libpmix: "
                 "install libpmix-dev and pkg-config, then reconfigure); start it with "
                 "PMI-1 or PMI-2 (srun --mpi=pmi2)");
    return TN_ERR_UNSUPPORTED;
}

static tn_status_t tn_pmix_put(const char *key, const char *value)
{
    (void)key;
    (void)value;
    return TN_ERR_UNSUPPORTED;
}

static tn_status_t tn_pmix_fence(void)
{
    return TN_ERR_UNSUPPORTED;
}

static tn_status_t tn_pmix_get(int rank, const char *key, char *value, int len)
{
    (void)rank;
    (void)key;
    (void)value;
    (void)len;
    return TN_ERR_UNSUPPORTED;
}

static tn_status_t tn_pmix_finalize(void)
{
    return TN_ERR_UNSUPPORTED;
}

static void tn_pmix_abort(int code, const char *msg, int user)
{
    (void)code;
    (void)msg;
    (void)user;
}

#endif

const tn_pmi_ops_t tn_pmix_ops = {
    .name = "PMIx",
    .init = tn_pmix_init,
    .put = tn_pmix_put,
    .fence = tn_pmix_fence,
    .get = tn_pmix_get,
    .finalize = tn_pmix_finalize,
    .abort = tn_pmix_abort,
};
