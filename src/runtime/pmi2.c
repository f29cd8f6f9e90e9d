/* PMI-2 client (Slurm's srun --mpi=pmi2, Hydra).  Opened by the PMI-1
 * "init" line asking for version 2.0, then length-prefixed messages
 * (pmi_wire.h has the wire format; pmi2_wire.c encodes and decodes them,
 * pmi_conn.c moves the bytes).  Needs PMI_FD: the PMI_PORT mode is spoken
 * in PMI-1 only. */
#include "runtime/pmi_ops.h"
#include "runtime/pmi_conn.h"
#include "runtime/pmi_wire.h"
#include "base/log.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A request: a key and a value of at most TN_PMI2_VAL_MAX bytes, every
 * ';' doubled, plus the job id. */
#define TN_PMI2_REQ_MAX (TN_PMI2_HDR + 4 * TN_PMI2_VAL_MAX + 512)

static struct {
    char          jobid[256];
    unsigned      nfence;         /* fences so far */
    char          req[TN_PMI2_REQ_MAX];
    char          body[TN_PMI2_BODY_MAX];
    tn_pmi2_msg_t reply;          /* the last reply, decoded */
} tn_pmi2;

/* Write the encoded request req (len bytes), then read messages until
 * the one whose cmd is expect (others are skipped), within
 * TERN_PMI_TIMEOUT (TERN_PMI_FENCE_TIMEOUT when fence != 0).  The reply,
 * decoded, is left in tn_pmi2.reply; its rc is not looked at. */
static tn_status_t tn_pmi2_xchg(const char *cmd, const char *req, size_t len, const char *expect,
                                int fence)
{
    int64_t deadline = tn_pmi_conn_deadline(fence);
    tn_log_trace("rt", "PMI-2 > %.*s", (int)len, req);
    tn_status_t st = tn_pmi_conn_write(req, len);
    if (st != TN_OK) {
        return st;
    }
    for (;;) {
        char hdr[TN_PMI2_HDR];
        size_t blen;
        st = tn_pmi_conn_read(hdr, sizeof(hdr), deadline);
        if (st == TN_OK && (st = tn_pmi2_hdr_parse(hdr, &blen)) != TN_OK) {
            tn_log_error("rt", "PMI-2: bad length header \"%.6s\" from the server", hdr);
        }
        if (st == TN_OK) {
            st = tn_pmi_conn_read(tn_pmi2.body, blen, deadline);
        }
        if (st == TN_OK) {
            tn_log_trace("rt", "PMI-2 < %.*s", (int)blen, tn_pmi2.body);
        }
        if (st == TN_OK && (st = tn_pmi2_msg_parse(tn_pmi2.body, blen, &tn_pmi2.reply)) != TN_OK) {
            tn_log_error("rt", "PMI-2: malformed reply to %s from the server", cmd);
        }
        if (st == TN_ERR_TIMEOUT) {
            tn_pmi_conn_timed_out(expect, fence);
        }
        if (st != TN_OK) {
            return st;
        }
        if (strcmp(tn_pmi2.reply.pair[0].val, expect) == 0) {
            return TN_OK;
        }
        tn_log_debug("rt", "PMI-2: ignoring %s while waiting for %s", tn_pmi2.reply.pair[0].val,
                     expect);
    }
}

/* 1 when the last reply says rc=0 or has no rc, else 0 (its errmsg into
 * *why_p, or "", so that the caller can log it at the level it wants). */
static int tn_pmi2_rc_ok(const char **why_p)
{
    long rc = 0;
    const char *rcs = tn_pmi2_msg_get(&tn_pmi2.reply, "rc");
    const char *why = tn_pmi2_msg_get(&tn_pmi2.reply, "errmsg");
    *why_p = why != NULL ? why : "";
    return rcs == NULL ||
           (tn_pmi2_msg_int(&tn_pmi2.reply, "rc", LONG_MIN, LONG_MAX, &rc) && rc == 0);
}

/* Send cmd with n pairs and wait for expect (tn_pmi2_xchg).  A reply with
 * rc != 0 gives TN_ERR_PROTO, its errmsg logged. */
static tn_status_t tn_pmi2_call(const char *cmd, const char *const *keys, const char *const *vals,
                                int n, const char *expect, int fence)
{
    size_t len;
    const char *why;
    tn_status_t st = tn_pmi2_msg_build(tn_pmi2.req, sizeof(tn_pmi2.req), cmd, keys, vals, n, &len);
    if (st != TN_OK) {
        tn_log_error("rt", "PMI-2: cannot encode %s (%s)", cmd, tn_status_str(st));
        return st;
    }
    if ((st = tn_pmi2_xchg(cmd, tn_pmi2.req, len, expect, fence)) != TN_OK) {
        return st;
    }
    if (!tn_pmi2_rc_ok(&why)) {
        tn_log_error("rt", "PMI-2: %s failed: rc=%s%s%s", cmd,
                     tn_pmi2_msg_get(&tn_pmi2.reply, "rc"), *why ? ", " : "", why);
        return TN_ERR_PROTO;
    }
    return TN_OK;
}

/* The value of job attribute key into out (len bytes): 1 if the server has
 * it and it fits, else 0. */
static int tn_pmi2_jobattr(const char *key, char *out, size_t len)
{
    static const char *const k[] = { "key" };
    const char *v[] = { key };
    if (tn_pmi2_call("info-getjobattr", k, v, 1, "info-getjobattr-response", 0) != TN_OK) {
        return 0;
    }
    const char *found = tn_pmi2_msg_get(&tn_pmi2.reply, "found");
    const char *val = tn_pmi2_msg_get(&tn_pmi2.reply, "value");
    if (found == NULL || strcmp(found, "TRUE") != 0 || val == NULL || strlen(val) >= len) {
        return 0;
    }
    memcpy(out, val, strlen(val) + 1);
    return 1;
}

/* PMI_process_mapping, when the server has one, as the node of each rank. */
static void tn_pmi2_node_map(tn_pmi_info_t *info_p)
{
    char map[TN_PMI2_BODY_MAX];
    if (!tn_pmi2_jobattr("PMI_process_mapping", map, sizeof(map))) {
        return;
    }
    int *node_of = malloc(sizeof(int) * (size_t)info_p->size);
    int nnodes;
    if (node_of == NULL) {
        return;                           /* the runtime asks the ranks */
    }
    if (tn_pmi_map_parse(map, info_p->size, node_of, &nnodes) != TN_OK) {
        tn_log_warn("rt", "PMI-2: cannot read PMI_process_mapping \"%.200s\"; ignored", map);
        free(node_of);
        return;
    }
    info_p->node_of = node_of;
    info_p->nnodes = nnodes;
}

static tn_status_t tn_pmi2_init(tn_pmi_info_t *info_p)
{
    tn_status_t st;
    if (tn_pmi_conn_port()) {
        tn_log_error("rt", "TERN_PMI=pmi2 needs PMI_FD; a server found through PMI_PORT is "
                     "spoken to in PMI-1 (TERN_PMI=pmi1 or auto)");
        return TN_ERR_INVAL;
    }
    if ((st = tn_pmi1_handshake(2, 0)) != TN_OK) {
        return st;                        /* UNSUPPORTED: declined, quietly */
    }
    const char *keys[3], *vals[3];
    char rank_s[32], id_s[32];
    const char *jobid = getenv("PMI_JOBID");
    long v, size, rank = -1;
    int n = 0;
    if (jobid != NULL) {
        keys[n] = "pmijobid";
        vals[n++] = jobid;
    }
    if (tn_pmi_int(getenv("PMI_RANK"), 0, INT_MAX, &rank)) {
        snprintf(rank_s, sizeof(rank_s), "%ld", rank);
        keys[n] = "pmirank";
        vals[n++] = rank_s;
    } else if (tn_pmi_int(getenv("PMI_ID"), 0, INT_MAX, &v)) {
        snprintf(id_s, sizeof(id_s), "%ld", v);
        keys[n] = "srcid";
        vals[n++] = id_s;
    }
    keys[n] = "threaded";
    vals[n++] = "FALSE";
    if ((st = tn_pmi2_call("fullinit", keys, vals, n, "fullinit-response", 0)) != TN_OK) {
        return st;
    }
    /* the reply's rank if it gives one, else PMI_RANK's */
    if (!tn_pmi2_msg_int(&tn_pmi2.reply, "size", 1, INT_MAX, &size) ||
        (tn_pmi2_msg_get(&tn_pmi2.reply, "rank") != NULL ?
         !tn_pmi2_msg_int(&tn_pmi2.reply, "rank", 0, size - 1, &rank) : rank >= size || rank < 0)) {
        tn_log_error("rt", "PMI-2: fullinit-response without a valid rank and size");
        return TN_ERR_PROTO;
    }
    info_p->rank = (int)rank;
    info_p->size = (int)size;
    /* Slurm answers appnum=-1: no attribute */
    info_p->appnum = tn_pmi2_msg_int(&tn_pmi2.reply, "appnum", -1, INT_MAX, &v) ? (int)v : -1;
    if ((st = tn_pmi2_call("job-getid", NULL, NULL, 0, "job-getid-response", 0)) != TN_OK) {
        return st;
    }
    const char *id = tn_pmi2_msg_get(&tn_pmi2.reply, "jobid");
    if (id == NULL || *id == '\0' || strlen(id) >= sizeof(tn_pmi2.jobid)) {
        tn_log_error("rt", "PMI-2: job-getid-response without a usable jobid");
        return TN_ERR_PROTO;
    }
    memcpy(tn_pmi2.jobid, id, strlen(id) + 1);
    snprintf(info_p->kvsname, sizeof(info_p->kvsname), "%s", tn_pmi2.jobid);
    char us[32];
    info_p->universe_size = info_p->size;
    if (tn_pmi2_jobattr("universeSize", us, sizeof(us)) && tn_pmi_int(us, 1, INT_MAX, &v)) {
        info_p->universe_size = (int)v;
    }
    tn_pmi2_node_map(info_p);
    return TN_OK;
}

static tn_status_t tn_pmi2_put(const char *key, const char *value)
{
    static const char *const k[] = { "key", "value" };
    const char *v[] = { key, value };
    return tn_pmi2_call("kvs-put", k, v, 2, "kvs-put-response", 0);
}

/* Slurm answers kvs-fence when every rank has entered it: a barrier.
 * Hydra answers it at once and holds back a kvs-get of a key it does not
 * have while some rank of the job has fenced fewer times: the get of a
 * key nobody has put makes the fence a barrier there too (Tern's start-up
 * needs one: local rank 0 makes the node's segment, the others open it
 * after the fence).  Hydra 4.0 looks at the gets it holds back again only
 * when a fence count kept across all the jobs of the mpiexec is a
 * multiple of this job's size, or when a get's key is put: once a spawn
 * has added a job, a get may be held forever.  So the key is new at each
 * fence ("tern-fence-<n>"), and a rank whose get came back without it
 * (every rank has fenced) puts it, which releases the gets held back.
 * Under Slurm the get and the put cost two more round trips to
 * slurmstepd. */
static tn_status_t tn_pmi2_fence(void)
{
    static const char *const k[] = { "jobid", "srcid", "key" };
    static const char *const pk[] = { "key", "value" };
    char key[32];
    size_t len;
    snprintf(key, sizeof(key), "tern-fence-%u", ++tn_pmi2.nfence);
    const char *v[] = { tn_pmi2.jobid, "-1", key };
    const char *pv[] = { key, "1" };
    tn_status_t st = tn_pmi2_call("kvs-fence", NULL, NULL, 0, "kvs-fence-response", 1);
    if (st != TN_OK || (st = tn_pmi2_call("kvs-get", k, v, 3, "kvs-get-response", 1)) != TN_OK) {
        return st;
    }
    const char *found = tn_pmi2_msg_get(&tn_pmi2.reply, "found");
    if (found != NULL && strcmp(found, "TRUE") == 0) {
        return TN_OK;                     /* released by another rank's put */
    }
    /* several ranks may put it: a server that refuses a key twice answers
     * rc != 0, which is fine here */
    if ((st = tn_pmi2_msg_build(tn_pmi2.req, sizeof(tn_pmi2.req), "kvs-put", pk, pv, 2, &len)) !=
        TN_OK) {
        return st;
    }
    return tn_pmi2_xchg("kvs-put", tn_pmi2.req, len, "kvs-put-response", 1);
}

static tn_status_t tn_pmi2_get(int rank, const char *key, char *value, int len)
{
    static const char *const k[] = { "jobid", "srcid", "key" };
    const char *v[] = { tn_pmi2.jobid, "-1", key };
    (void)rank;                       /* the key names it */
    tn_status_t st = tn_pmi2_call("kvs-get", k, v, 3, "kvs-get-response", 0);
    if (st != TN_OK) {
        return st;
    }
    const char *found = tn_pmi2_msg_get(&tn_pmi2.reply, "found");
    const char *val = tn_pmi2_msg_get(&tn_pmi2.reply, "value");
    if (found == NULL || strcmp(found, "TRUE") != 0) {
        return TN_ERR_NOTFOUND;
    }
    if (val == NULL || strlen(val) >= (size_t)len) {
        tn_log_error("rt", "PMI-2: the value of %s is missing or longer than %d bytes", key,
                     len - 1);
        return val == NULL ? TN_ERR_PROTO : TN_ERR_TRUNCATE;
    }
    memcpy(value, val, strlen(val) + 1);
    return TN_OK;
}

static tn_status_t tn_pmi2_finalize(void)
{
    tn_status_t st = tn_pmi2_call("finalize", NULL, NULL, 0, "finalize-response", 0);
    tn_pmi_conn_close();
    return st;
}

/* No reply: the server ends the job (Slurm kills the step). */
static void tn_pmi2_abort(int code, const char *msg, int user)
{
    static const char *const k[] = { "isworld", "msg" };
    char m[512];
    size_t len;
    snprintf(m, sizeof(m), "%s (exit code %d)%s", msg ? msg : "aborted", code,
             user ? "" : " [tern]");
    const char *v[] = { "TRUE", m };
    if (tn_pmi2_msg_build(tn_pmi2.req, sizeof(tn_pmi2.req), "abort", k, v, 2, &len) == TN_OK &&
        tn_pmi_conn_write(tn_pmi2.req, len) == TN_OK) {
        tn_pmi_conn_linger();
    }
}

/* A spawn request under construction: the pairs, and room for the keys
 * and numbers made up here (the strings of the caller are pointed at). */
typedef struct {
    const char **keys, **vals;
    char (*txt)[24];
    int n, ntxt;
} tn_pmi2_req_t;

static void tn_pmi2_req_add(tn_pmi2_req_t *r, const char *key, const char *val)
{
    r->keys[r->n] = key;
    r->vals[r->n++] = val;
}

/* A key or a number written into the request's own room. */
static const char *tn_pmi2_req_txt(tn_pmi2_req_t *r, const char *fmt, int i)
    __attribute__((format(printf, 2, 0)));
static const char *tn_pmi2_req_txt(tn_pmi2_req_t *r, const char *fmt, int i)
{
    char *t = r->txt[r->ntxt++];
    snprintf(t, sizeof(r->txt[0]), fmt, i);
    return t;
}

/* "spawn", as MPICH's Hydra serves it: ncmds, preputcount and the
 * ppkey<i>/ppval<i> pairs (the new job's key/value space starts with
 * them), then per command subcmd (which starts the command's pairs),
 * maxprocs, argc, argv<i>, infokeycount, infokey<i>/infoval<i>.  The
 * reply spawn-response carries rc and maybe errcodes, a comma list with
 * one code per process. */
static tn_status_t tn_pmi2_spawn(int count, const tn_pmi_spawn_cmd_t *cmds, int npre,
                                 const char *const *pre_key, const char *const *pre_val,
                                 int *errcodes)
{
    tn_pmi2_req_t r = { 0 };
    int npairs = 2 + 2 * npre, total = 0;
    size_t len, cap = TN_PMI2_HDR + 64;
    char *buf = NULL;
    const char *why;
    tn_status_t st = TN_ERR_NOMEM;

    for (int c = 0; c < count; c++) {
        npairs += 4 + 2 * cmds[c].ninfo;
        for (int a = 0; cmds[c].argv != NULL && cmds[c].argv[a] != NULL; a++) {
            npairs++;
        }
        total += cmds[c].maxprocs;
    }
    r.keys = malloc(sizeof(*r.keys) * (size_t)npairs);
    r.vals = malloc(sizeof(*r.vals) * (size_t)npairs);
    r.txt = malloc(sizeof(*r.txt) * 2 * (size_t)npairs);
    if (r.keys == NULL || r.vals == NULL || r.txt == NULL) {
        goto err_free;
    }
    tn_pmi2_req_add(&r, "ncmds", tn_pmi2_req_txt(&r, "%d", count));
    tn_pmi2_req_add(&r, "preputcount", tn_pmi2_req_txt(&r, "%d", npre));
    for (int i = 0; i < npre; i++) {
        tn_pmi2_req_add(&r, tn_pmi2_req_txt(&r, "ppkey%d", i), pre_key[i]);
        tn_pmi2_req_add(&r, tn_pmi2_req_txt(&r, "ppval%d", i), pre_val[i]);
    }
    for (int c = 0; c < count; c++) {
        int argc = 0;
        while (cmds[c].argv != NULL && cmds[c].argv[argc] != NULL) {
            argc++;
        }
        tn_pmi2_req_add(&r, "subcmd", cmds[c].cmd);
        tn_pmi2_req_add(&r, "maxprocs", tn_pmi2_req_txt(&r, "%d", cmds[c].maxprocs));
        tn_pmi2_req_add(&r, "argc", tn_pmi2_req_txt(&r, "%d", argc));
        for (int a = 0; a < argc; a++) {
            tn_pmi2_req_add(&r, tn_pmi2_req_txt(&r, "argv%d", a), cmds[c].argv[a]);
        }
        tn_pmi2_req_add(&r, "infokeycount", tn_pmi2_req_txt(&r, "%d", cmds[c].ninfo));
        for (int i = 0; i < cmds[c].ninfo; i++) {
            tn_pmi2_req_add(&r, tn_pmi2_req_txt(&r, "infokey%d", i), cmds[c].info_key[i]);
            tn_pmi2_req_add(&r, tn_pmi2_req_txt(&r, "infoval%d", i), cmds[c].info_val[i]);
        }
    }
    for (int i = 0; i < r.n; i++) {
        cap += strlen(r.keys[i]) + 2 * strlen(r.vals[i]) + 2;   /* every ';' doubled at most */
    }
    if ((buf = malloc(cap)) == NULL) {
        goto err_free;
    }
    if ((st = tn_pmi2_msg_build(buf, cap, "spawn", r.keys, r.vals, r.n, &len)) != TN_OK) {
        tn_log_error("rt", "PMI-2 spawn: a command, argument or info value the wire cannot "
                     "carry (over %d bytes)", TN_PMI2_VAL_MAX);
        goto err_free;
    }
    if ((st = tn_pmi2_xchg("spawn", buf, len, "spawn-response", 0)) != TN_OK) {
        goto err_free;
    }
    if (!tn_pmi2_rc_ok(&why)) {
        tn_log_error("rt", "PMI-2: the launcher refused to spawn: rc=%s%s%s",
                     tn_pmi2_msg_get(&tn_pmi2.reply, "rc"), *why ? ", " : "", why);
        st = TN_ERR_NOTFOUND;
        goto err_free;
    }
    for (int i = 0; i < total; i++) {
        errcodes[i] = 0;
    }
    const char *codes = tn_pmi2_msg_get(&tn_pmi2.reply, "errcodes");
    if (codes != NULL && tn_pmi2_errcodes_parse(codes, errcodes, total) != TN_OK) {
        tn_log_error("rt", "PMI-2: spawn-response with bad errcodes \"%.200s\"", codes);
        st = TN_ERR_PROTO;
        goto err_free;
    }
    st = TN_OK;
err_free:
    free(buf);
    free(r.txt);
    free(r.vals);
    free(r.keys);
    return st;
}

/* The name service (Hydra keeps it for the whole mpiexec): name-publish,
 * name-lookup, name-unpublish with name= (and port=); rc != 0 in the
 * reply means the name is taken (publish) or not there (the others). */
static tn_status_t tn_pmi2_name(const char *cmd, const char *service, const char *port,
                                const char *expect)
{
    static const char *const k[] = { "name", "port" };
    const char *v[] = { service, port };
    size_t len;
    const char *why;
    tn_status_t st = tn_pmi2_msg_build(tn_pmi2.req, sizeof(tn_pmi2.req), cmd, k, v,
                                       port != NULL ? 2 : 1, &len);
    if (st != TN_OK) {
        return TN_ERR_INVAL;                /* too long for the wire */
    }
    if ((st = tn_pmi2_xchg(cmd, tn_pmi2.req, len, expect, 0)) != TN_OK) {
        return st;
    }
    if (!tn_pmi2_rc_ok(&why)) {
        tn_log_debug("rt", "PMI-2: %s %s: rc=%s %s", cmd, service,
                     tn_pmi2_msg_get(&tn_pmi2.reply, "rc"), why);
        return TN_ERR_NOTFOUND;
    }
    return TN_OK;
}

static tn_status_t tn_pmi2_publish(const char *service, const char *port)
{
    return tn_pmi2_name("name-publish", service, port, "name-publish-response");
}

static tn_status_t tn_pmi2_lookup(const char *service, char *port, int len)
{
    tn_status_t st = tn_pmi2_name("name-lookup", service, NULL, "name-lookup-response");
    if (st != TN_OK) {
        return st;
    }
    const char *found = tn_pmi2_msg_get(&tn_pmi2.reply, "found");
    const char *val = tn_pmi2_msg_get(&tn_pmi2.reply, "port");
    if ((found != NULL && strcmp(found, "TRUE") != 0) || val == NULL) {
        return TN_ERR_NOTFOUND;
    }
    if (strlen(val) >= (size_t)len) {
        tn_log_error("rt", "PMI-2: the port of %s is longer than %d bytes", service, len - 1);
        return TN_ERR_TRUNCATE;
    }
    memcpy(port, val, strlen(val) + 1);
    return TN_OK;
}

static tn_status_t tn_pmi2_unpublish(const char *service)
{
    return tn_pmi2_name("name-unpublish", service, NULL, "name-unpublish-response");
}

const tn_pmi_ops_t tn_pmi2_ops = {
    .name = "PMI-2",
    .init = tn_pmi2_init,
    .put = tn_pmi2_put,
    .fence = tn_pmi2_fence,
    .get = tn_pmi2_get,
    .finalize = tn_pmi2_finalize,
    .abort = tn_pmi2_abort,
    .spawn = tn_pmi2_spawn,
    .publish = tn_pmi2_publish,
    .lookup = tn_pmi2_lookup,
    .unpublish = tn_pmi2_unpublish,
};
