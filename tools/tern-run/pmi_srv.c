/* PMI-1 server; the protocol is described in pmi_srv.h. */
#include "pmi_srv.h"
#include "run_proto.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PMI_MAX_PAIRS 16

/* One request line split into key=value pairs (pointers into the line). */
typedef struct {
    int         npairs;
    const char *key[PMI_MAX_PAIRS];
    const char *val[PMI_MAX_PAIRS];
} pmi_req_t;

/* Split line into pairs.  Returns NULL, or why the line is malformed
 * (one word, used in the error reply). */
static const char *pmi_parse(char *line, pmi_req_t *req)
{
    char *save = NULL;
    char *tok;

    req->npairs = 0;
    for (const unsigned char *c = (const unsigned char *)line; *c != '\0'; c++) {
        if ((*c < 0x20 && *c != '\t' && *c != '\r') || *c >= 0x7f) {
            return "non_printable_bytes";
        }
    }
    for (tok = strtok_r(line, " \t\r", &save); tok != NULL;
         tok = strtok_r(NULL, " \t\r", &save)) {
        char *eq = strchr(tok, '=');

        if (req->npairs == PMI_MAX_PAIRS) {
            return "too_many_fields";
        }
        if (eq == NULL || eq == tok) {
            return "field_without_equals";
        }
        *eq = '\0';
        req->val[req->npairs] = eq + 1;
        req->key[req->npairs++] = tok;
    }
    return NULL;
}

/* Record rank's protocol error (the first one of the job is what the
 * launcher reports) and stop serving the rank. */
static void pmi_reply(tn_pmi_srv_t *srv, int rank, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void pmi_error(tn_pmi_srv_t *srv, int rank, const char *why,
                      const char *line, size_t len)
{
    tn_pmi_conn_t *conn = &srv->conns[rank];
    char           shown[48];
    size_t         n = 0;

    /* a printable excerpt of what it sent */
    for (size_t i = 0; i < len && n < sizeof(shown) - 4; i++) {
        unsigned char c = (unsigned char)line[i];

        shown[n++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    if (n < len) {
        memcpy(shown + n, "...", 3);
        n += 3;
    }
    shown[n] = '\0';
    pmi_reply(srv, rank, "cmd=error rc=-1 msg=%s", why);
    conn->broken = 1;
    if (srv->error_rank < 0) {
        srv->error_rank = rank;
        snprintf(srv->error_msg, sizeof(srv->error_msg),
                 "bad PMI request: %s ('%s', %zu bytes)", why, shown, len);
    }
}

static const char *pmi_arg(const pmi_req_t *req, const char *key)
{
    for (int i = 1; i < req->npairs; i++) {
        if (strcmp(req->key[i], key) == 0) {
            return req->val[i];
        }
    }
    return NULL;
}

static void pmi_reply(tn_pmi_srv_t *srv, int rank, const char *fmt, ...)
{
    tn_pmi_conn_t *conn = &srv->conns[rank];
    char           line[TN_PMI_VALLEN_MAX + TN_PMI_KEYLEN_MAX + 128];
    va_list        ap;
    int            n;

    va_start(ap, fmt);
    n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
    va_end(ap);
    if (n < 0) {
        return;
    }
    if (n > (int)sizeof(line) - 2) {
        n = (int)sizeof(line) - 2;
    }
    tn_run_debug(2, "pmi rank %d <- %.*s", rank, n, line);
    line[n++] = '\n';
    if (conn->closed || conn->overflow) {
        return;
    }
    if (conn->out.len + (size_t)n > srv->backlog_max) {
        /* a rank that asks and never reads: drop its replies, end the job */
        conn->overflow = 1;
        tn_run_buf_free(&conn->out);
        if (srv->error_rank < 0) {
            srv->error_rank = rank;
            snprintf(srv->error_msg, sizeof(srv->error_msg),
                     "left more than %zu bytes of PMI replies unread "
                     "(limit TERN_RUN_PMI_BACKLOG)", srv->backlog_max);
        }
        return;
    }
    tn_run_buf_append(&conn->out, line, (size_t)n);
}

/* Integer argument; def when absent or malformed. */
static long pmi_arg_long(const pmi_req_t *req, const char *key, long def)
{
    const char *s = pmi_arg(req, key);
    char       *end;
    long        v;

    if (s == NULL || *s == '\0') {
        return def;
    }
    errno = 0;
    v     = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0') {
        return def;
    }
    return v;
}

static void pmi_barrier_in(tn_pmi_srv_t *srv, int rank)
{
    if (srv->conns[rank].in_barrier) {
        tn_run_debug(1, "pmi rank %d: barrier_in while already in the barrier",
                     rank);
        return;
    }
    srv->conns[rank].in_barrier = 1;
    if (++srv->nbarrier < srv->nconns) {
        return;
    }
    if (srv->part) {
        srv->fence_ready = 1;           /* the rest of the job decides */
        return;
    }
    tn_pmi_srv_fence_release(srv);
}

void tn_pmi_srv_fence_release(tn_pmi_srv_t *srv)
{
    srv->nbarrier    = 0;
    srv->fence_ready = 0;
    srv->delta.len   = 0;
    srv->ndelta      = 0;
    for (int r = 0; r < srv->nconns; r++) {
        srv->conns[r].in_barrier = 0;
        pmi_reply(srv, r, "cmd=barrier_out");
    }
}

void tn_pmi_srv_fence_apply(tn_pmi_srv_t *srv, const char *pairs, size_t len)
{
    size_t      off = 0;
    const char *key, *val;

    while (tn_run_proto_next_pair(pairs, len, &off, &key, &val)) {
        tn_pmi_kvs_put(srv->kvs, key, val);
    }
}

void tn_pmi_srv_put(tn_pmi_srv_t *srv, const char *key, const char *value)
{
    tn_pmi_kvs_put(srv->kvs, key, value);
}

static void pmi_put(tn_pmi_srv_t *srv, int rank, const pmi_req_t *req)
{
    const char *key = pmi_arg(req, "key");
    const char *val = pmi_arg(req, "value");

    if (key == NULL || *key == '\0' || val == NULL) {
        pmi_reply(srv, rank, "cmd=put_result rc=-1 msg=missing_key_or_value");
    } else if (strlen(key) >= TN_PMI_KEYLEN_MAX) {
        pmi_reply(srv, rank, "cmd=put_result rc=-1 msg=key_too_long");
    } else if (strlen(val) >= TN_PMI_VALLEN_MAX) {
        pmi_reply(srv, rank, "cmd=put_result rc=-1 msg=value_too_long");
    } else if (tn_pmi_kvs_fits(srv->kvs, key, val, srv->kvs_max_keys,
                               srv->kvs_max_bytes) != 0) {
        pmi_reply(srv, rank, "cmd=put_result rc=-1 msg=kvs_full");
        if (srv->error_rank < 0) {
            srv->error_rank = rank;
            snprintf(srv->error_msg, sizeof(srv->error_msg),
                     "PMI put of key '%.40s' does not fit in the job's "
                     "key-value space (%zu keys, %zu bytes held; limits "
                     "TERN_RUN_KVS_KEYS=%zu, TERN_RUN_KVS_BYTES=%zu)",
                     key, tn_pmi_kvs_count(srv->kvs), tn_pmi_kvs_bytes(srv->kvs),
                     srv->kvs_max_keys, srv->kvs_max_bytes);
        }
    } else {
        tn_pmi_kvs_put(srv->kvs, key, val);
        if (srv->part) {
            tn_run_proto_pair(&srv->delta, key, val);
            srv->ndelta++;
        }
        pmi_reply(srv, rank, "cmd=put_result rc=0 msg=success");
    }
}

static void pmi_get(tn_pmi_srv_t *srv, int rank, const pmi_req_t *req)
{
    const char *key = pmi_arg(req, "key");
    const char *val = key != NULL ? tn_pmi_kvs_get(srv->kvs, key) : NULL;

    if (val != NULL) {
        pmi_reply(srv, rank, "cmd=get_result rc=0 msg=success value=%s", val);
    } else {
        /* keys are shorter than TN_PMI_KEYLEN_MAX by the put check; clip
         * whatever a client asks for so the reply stays one line */
        pmi_reply(srv, rank, "cmd=get_result rc=-1 msg=key_%.*s_not_found "
                  "value=unknown", TN_PMI_KEYLEN_MAX, key != NULL ? key : "");
    }
}

static void pmi_abort(tn_pmi_srv_t *srv, int rank, const pmi_req_t *req)
{
    tn_pmi_conn_t *conn = &srv->conns[rank];
    long           code = pmi_arg_long(req, "exitcode", 1);

    if (code < INT_MIN || code > INT_MAX) {
        code = 1;
    }
    if (!conn->aborted) {
        conn->aborted        = 1;
        conn->abort_code     = (int)code;
        conn->abort_internal = pmi_arg_long(req, "internal", 0) != 0;
    }
    if (srv->abort_rank < 0) {
        srv->abort_rank = rank;
    }
}

static void spawn_free(tn_pmi_spawn_t *sp)
{
    for (int a = 0; a < sp->napps; a++) {
        tn_pmi_spawn_app_t *app = &sp->apps[a];
        free(app->exec);
        for (int i = 0; i < app->argc; i++) {
            free(app->argv[i]);
        }
        for (int i = 0; i < app->ninfo; i++) {
            free(app->info_key[i]);
            free(app->info_val[i]);
        }
        free(app->argv);
        free(app->info_key);
        free(app->info_val);
    }
    for (int i = 0; i < sp->npre; i++) {
        free(sp->pre_key[i]);
        free(sp->pre_val[i]);
    }
    free(sp->apps);
    free(sp->pre_key);
    free(sp->pre_val);
    memset(sp, 0, sizeof(*sp));
    sp->rank = -1;
}

/* Index n of key "<prefix><n>" (n < limit), or -1. */
static long spawn_index(const char *key, const char *prefix, long base, long limit)
{
    size_t pl = strlen(prefix);
    char *end = NULL;
    if (strncmp(key, prefix, pl) != 0 || key[pl] < '0' || key[pl] > '9') {
        return -1;
    }
    long n = strtol(key + pl, &end, 10) - base;
    return *end == '\0' && n >= 0 && n < limit ? n : -1;
}

#define PMI_SPAWN_MAX_ITEMS 4096

/* *slot = a copy of val, counted against TN_PMI_SPAWN_BYTES_MAX (bytes
 * replaced stay counted: the bound holds however a rank repeats lines).
 * NULL, or why not. */
static const char *spawn_dup(tn_pmi_spawn_t *sp, char **slot, const char *val)
{
    size_t n = strlen(val) + 1;
    if (n > TN_PMI_SPAWN_BYTES_MAX - sp->bytes) {
        return "spawn_too_big";
    }
    char *c = strdup(val);
    if (c == NULL) {
        return "out_of_memory";
    }
    sp->bytes += n;
    free(*slot);
    *slot = c;
    return NULL;
}

/* One line of an mcmd=spawn block: key=value (the value may hold spaces).
 * Returns NULL, or why the block is malformed. */
static const char *spawn_line(tn_pmi_srv_t *srv, char *line)
{
    tn_pmi_spawn_t *sp = &srv->spawn;
    tn_pmi_spawn_app_t *app = &sp->apps[sp->napps - 1];
    char *eq = strchr(line, '=');
    long n;
    if (eq == NULL || eq == line) {
        return "spawn_field_without_equals";
    }
    *eq = '\0';
    const char *key = line, *val = eq + 1;
    char *end = NULL;
    long num = strtol(val, &end, 10);
    int isnum = *val != '\0' && *end == '\0';
    if (strcmp(key, "nprocs") == 0) {
        if (!isnum || num <= 0 || num > 1 << 20) {
            return "bad_nprocs";
        }
        app->nprocs = (int)num;
    } else if (strcmp(key, "execname") == 0) {
        return spawn_dup(sp, &app->exec, val);
    } else if (strcmp(key, "totspawns") == 0) {
        /* every block says the same */
        if (!isnum || num <= 0 || num > 1024 || (sp->total != 0 && num != sp->total)) {
            return "bad_totspawns";
        }
        sp->total = (int)num;
    } else if (strcmp(key, "spawnssofar") == 0) {
        if (!isnum || num != sp->napps) {
            return "bad_spawnssofar";
        }
    } else if (strcmp(key, "argcnt") == 0) {
        if (!isnum || num < 0 || num > PMI_SPAWN_MAX_ITEMS || app->argcnt_sent) {
            return "bad_argcnt";
        }
        if (num < app->argc) {
            return "bad_argcnt";            /* fewer than the args sent */
        }
        char **a = realloc(app->argv, sizeof(char *) * (size_t)(num + 1));
        if (a == NULL) {
            return "out_of_memory";
        }
        for (long i = app->argc; i <= num; i++) {
            a[i] = NULL;
        }
        app->argv = a;
        app->argc = (int)num;
        app->argcnt_sent = 1;
    } else if ((n = spawn_index(key, "arg", 1, PMI_SPAWN_MAX_ITEMS)) >= 0) {
        /* args may come before argcnt: keep them in a list grown here;
         * after it, none beyond what it said */
        if (n >= app->argc && app->argcnt_sent) {
            return "arg_past_argcnt";
        }
        if (n >= app->argc) {
            char **a = realloc(app->argv, sizeof(char *) * (size_t)(n + 2));
            if (a == NULL) {
                return "out_of_memory";
            }
            for (long i = app->argc; i <= n + 1; i++) {
                a[i] = NULL;
            }
            app->argv = a;
            app->argc = (int)n + 1;
        }
        return spawn_dup(sp, &app->argv[n], val);
    } else if (strcmp(key, "preput_num") == 0) {
        /* said once, in the first block (later blocks repeat it: ignored) */
        if (!isnum || num < 0 || num > 64 || (sp->napps == 1 && sp->pre_key != NULL)) {
            return "bad_preput_num";
        }
        if (sp->napps == 1) {
            sp->pre_key = calloc((size_t)num + 1, sizeof(char *));
            sp->pre_val = calloc((size_t)num + 1, sizeof(char *));
            if (sp->pre_key == NULL || sp->pre_val == NULL) {
                return "out_of_memory";
            }
            sp->npre = (int)num;
        }
    } else if ((n = spawn_index(key, "preput_key_", 0, sp->npre)) >= 0) {
        if (sp->napps == 1) {
            return spawn_dup(sp, &sp->pre_key[n], val);
        }
    } else if ((n = spawn_index(key, "preput_val_", 0, sp->npre)) >= 0) {
        if (sp->napps == 1) {
            return spawn_dup(sp, &sp->pre_val[n], val);
        }
    } else if (strcmp(key, "info_num") == 0) {
        if (!isnum || num < 0 || num > 64 || app->info_key != NULL) {
            return "bad_info_num";
        }
        app->info_key = calloc((size_t)num + 1, sizeof(char *));
        app->info_val = calloc((size_t)num + 1, sizeof(char *));
        if (app->info_key == NULL || app->info_val == NULL) {
            return "out_of_memory";
        }
        app->ninfo = (int)num;
    } else if ((n = spawn_index(key, "info_key_", 0, app->ninfo)) >= 0) {
        return spawn_dup(sp, &app->info_key[n], val);
    } else if ((n = spawn_index(key, "info_val_", 0, app->ninfo)) >= 0) {
        return spawn_dup(sp, &app->info_val[n], val);
    } else {
        tn_run_debug(1, "pmi spawn: ignoring %s", key);
    }
    return NULL;
}

/* A block ended: is the request whole and sound? */
static const char *spawn_block_end(tn_pmi_srv_t *srv)
{
    tn_pmi_spawn_t *sp = &srv->spawn;
    tn_pmi_spawn_app_t *app = &sp->apps[sp->napps - 1];
    if (app->exec == NULL || app->nprocs <= 0 || sp->total <= 0) {
        return "spawn_without_execname_or_nprocs";
    }
    if (sp->napps > sp->total) {
        return "spawn_blocks_beyond_totspawns";
    }
    for (int i = 0; i < app->argc; i++) {
        if (app->argv == NULL || app->argv[i] == NULL) {
            return "spawn_args_missing";
        }
    }
    for (int i = 0; i < app->ninfo; i++) {
        if (app->info_key[i] == NULL || app->info_val[i] == NULL) {
            return "spawn_info_missing";
        }
    }
    for (int i = 0; i < sp->npre; i++) {
        if (sp->pre_key[i] == NULL || sp->pre_val[i] == NULL) {
            return "spawn_preput_missing";
        }
    }
    if (sp->napps == sp->total) {
        sp->ready = 1;
    }
    return NULL;
}

void tn_pmi_srv_spawn_done(tn_pmi_srv_t *srv, int rc)
{
    tn_pmi_spawn_t *sp = &srv->spawn;
    tn_run_buf_t codes = { 0 };
    int total = 0;
    for (int a = 0; a < sp->napps; a++) {
        total += sp->apps[a].nprocs;
    }
    for (int i = 0; i < total && total <= 4096; i++) {
        tn_run_buf_append(&codes, i ? ",0" : "0", i ? 2 : 1);
    }
    tn_run_buf_append(&codes, "", 1);
    if (sp->rank >= 0) {
        if (rc == 0 && total <= 4096) {
            pmi_reply(srv, sp->rank, "cmd=spawn_result rc=0 errcodes=%s", codes.data);
        } else {
            pmi_reply(srv, sp->rank, "cmd=spawn_result rc=%d", rc == 0 ? 0 : -1);
        }
    }
    tn_run_buf_free(&codes);
    spawn_free(sp);
}

static int name_find(const tn_pmi_srv_t *srv, const char *service)
{
    for (int i = 0; i < srv->nnames; i++) {
        if (strcmp(srv->names[i], service) == 0) {
            return i;
        }
    }
    return -1;
}

/* The name service: publish_name, lookup_name, unpublish_name. */
static void pmi_names(tn_pmi_srv_t *srv, int rank, const char *cmd, const pmi_req_t *req)
{
    const char *service = pmi_arg(req, "service");
    const char *port = pmi_arg(req, "port");
    int i = service != NULL ? name_find(srv, service) : -1;
    if (strcmp(cmd, "publish_name") == 0) {
        if (service == NULL || port == NULL || i >= 0 || srv->nnames >= 4096) {
            pmi_reply(srv, rank, "cmd=publish_result rc=-1 msg=%s",
                      i >= 0 ? "already_published" : "bad_request");
            return;
        }
        srv->names = realloc(srv->names, sizeof(char *) * (size_t)(srv->nnames + 1));
        srv->ports = realloc(srv->ports, sizeof(char *) * (size_t)(srv->nnames + 1));
        if (srv->names == NULL || srv->ports == NULL) {
            tn_run_log("out of memory");
            exit(1);
        }
        srv->names[srv->nnames] = strdup(service);
        srv->ports[srv->nnames++] = strdup(port);
        pmi_reply(srv, rank, "cmd=publish_result rc=0");
    } else if (strcmp(cmd, "lookup_name") == 0) {
        if (i < 0) {
            pmi_reply(srv, rank, "cmd=lookup_result rc=-1 msg=not_found");
        } else {
            pmi_reply(srv, rank, "cmd=lookup_result rc=0 port=%s", srv->ports[i]);
        }
    } else {
        if (i < 0) {
            pmi_reply(srv, rank, "cmd=unpublish_result rc=-1 msg=not_found");
            return;
        }
        free(srv->names[i]);
        free(srv->ports[i]);
        srv->names[i] = srv->names[srv->nnames - 1];
        srv->ports[i] = srv->ports[--srv->nnames];
        pmi_reply(srv, rank, "cmd=unpublish_result rc=0");
    }
}

static void pmi_serve(tn_pmi_srv_t *srv, int rank, char *line, size_t len)
{
    tn_pmi_conn_t *conn = &srv->conns[rank];
    pmi_req_t      req;
    const char    *cmd;
    const char    *bad;
    char           copy[64];

    if (conn->broken) {
        return;
    }
    if (memchr(line, '\0', len) != NULL) {
        pmi_error(srv, rank, "non_printable_bytes", line, len);
        return;
    }
    tn_run_debug(2, "pmi rank %d -> %s", rank, line);
    if (conn->in_mcmd) {
        /* the lines of a multi-line command (spawn) up to "endcmd" */
        const char *why = NULL;
        if (!conn->spawning) {
            /* a block refused (a proxy, another rank's spawn first, one
             * ready and not yet carried out, a request dropped) */
            if (strcmp(line, "endcmd") == 0) {
                conn->in_mcmd = 0;
                pmi_reply(srv, rank, "cmd=spawn_result rc=-1");
            }
            return;
        }
        if (strcmp(line, "endcmd") == 0) {
            conn->in_mcmd = 0;
            conn->spawning = 0;
            why = spawn_block_end(srv);
        } else {
            why = spawn_line(srv, line);
        }
        if (why != NULL) {
            /* a spawn the launcher cannot carry out: it fails, the
             * connection stays (the rest of the block is skipped) */
            tn_run_debug(1, "pmi rank %d: spawn refused: %s", rank, why);
            spawn_free(&srv->spawn);
            conn->spawning = 0;
            if (!conn->in_mcmd) {
                pmi_reply(srv, rank, "cmd=spawn_result rc=-1");
            }
        }
        return;
    }
    snprintf(copy, sizeof(copy), "%s", line);    /* strtok_r cuts it up */
    bad = pmi_parse(line, &req);
    if (bad != NULL) {
        pmi_error(srv, rank, bad, copy, len);
        return;
    }
    if (req.npairs == 0) {
        return;                              /* blank line */
    }
    if (strcmp(req.key[0], "mcmd") == 0) {
        conn->in_mcmd = 1;
        if (strcmp(req.val[0], "spawn") != 0 || srv->part ||
            (srv->spawn.rank >= 0 && srv->spawn.rank != rank) || srv->spawn.ready) {
            /* only the head of a one-host job starts processes */
            tn_run_debug(1, "pmi rank %d: mcmd=%s refused", rank, req.val[0]);
            return;
        }
        tn_pmi_spawn_t *sp = &srv->spawn;
        tn_pmi_spawn_app_t *apps = NULL;
        if (sp->napps >= 1024 ||
            (apps = realloc(sp->apps, sizeof(*apps) * (size_t)(sp->napps + 1))) == NULL) {
            /* more commands than totspawns can say: the request is dropped,
             * the block skipped and answered rc=-1 */
            tn_run_debug(1, "pmi rank %d: spawn refused: too many blocks", rank);
            spawn_free(sp);
            return;
        }
        memset(&apps[sp->napps], 0, sizeof(apps[0]));
        sp->apps = apps;
        sp->napps++;
        sp->rank = rank;
        conn->spawning = 1;
        return;
    }
    cmd = req.val[0];
    if (strcmp(req.key[0], "cmd") != 0) {
        pmi_error(srv, rank, "no_cmd", copy, len);
        return;
    }

    if (strcmp(cmd, "init") == 0) {
        long ver = pmi_arg_long(&req, "pmi_version", 1);

        conn->inited = 1;
        pmi_reply(srv, rank, "cmd=response_to_init pmi_version=1 "
                  "pmi_subversion=1 rc=%d", ver == 1 ? 0 : -1);
    } else if (strcmp(cmd, "initack") == 0) {
        pmi_reply(srv, rank, "cmd=initack");
        pmi_reply(srv, rank, "cmd=set size=%d", srv->size);
        pmi_reply(srv, rank, "cmd=set rank=%d", conn->rank);
        pmi_reply(srv, rank, "cmd=set debug=0");
    } else if (strcmp(cmd, "get_maxes") == 0) {
        pmi_reply(srv, rank, "cmd=maxes kvsname_max=%d keylen_max=%d "
                  "vallen_max=%d", TN_PMI_KVSNAME_MAX, TN_PMI_KEYLEN_MAX,
                  TN_PMI_VALLEN_MAX);
    } else if (strcmp(cmd, "get_appnum") == 0) {
        pmi_reply(srv, rank, "cmd=appnum appnum=%d", conn->appnum);
    } else if (strcmp(cmd, "get_universe_size") == 0) {
        pmi_reply(srv, rank, "cmd=universe_size size=%d", srv->size);
    } else if (strcmp(cmd, "get_my_kvsname") == 0) {
        pmi_reply(srv, rank, "cmd=my_kvsname kvsname=%s", srv->kvsname);
    } else if (strcmp(cmd, "put") == 0) {
        pmi_put(srv, rank, &req);
    } else if (strcmp(cmd, "get") == 0) {
        pmi_get(srv, rank, &req);
    } else if (strcmp(cmd, "barrier_in") == 0) {
        pmi_barrier_in(srv, rank);
    } else if (strcmp(cmd, "finalize") == 0) {
        conn->finalized = 1;
        pmi_reply(srv, rank, "cmd=finalize_ack");
    } else if (strcmp(cmd, "abort") == 0) {
        pmi_abort(srv, rank, &req);
    } else if (strcmp(cmd, "publish_name") == 0 || strcmp(cmd, "lookup_name") == 0 ||
               strcmp(cmd, "unpublish_name") == 0) {
        pmi_names(srv, rank, cmd, &req);
    } else {
        tn_run_debug(1, "pmi rank %d: unknown command cmd=%.64s", rank, cmd);
        pmi_reply(srv, rank, "cmd=%.64s_result rc=-1", cmd);
    }
}

void tn_pmi_srv_init_part(tn_pmi_srv_t *srv, int size, int nconns,
                          const int *ranks, const char *kvsname)
{
    char map[64];

    memset(srv, 0, sizeof(*srv));
    srv->size          = size;
    srv->nconns        = nconns;
    srv->abort_rank    = -1;
    srv->error_rank    = -1;
    srv->kvs_max_keys  = TN_PMI_KVS_KEYS_DEF;
    srv->kvs_max_bytes = TN_PMI_KVS_BYTES_DEF;
    srv->backlog_max   = TN_PMI_BACKLOG_DEF;
    snprintf(srv->kvsname, sizeof(srv->kvsname), "%s", kvsname);
    srv->kvs   = tn_pmi_kvs_create();
    srv->conns = tn_run_xmalloc((size_t)(nconns > 0 ? nconns : 1) *
                                sizeof(*srv->conns));
    memset(srv->conns, 0, (size_t)(nconns > 0 ? nconns : 1) *
                          sizeof(*srv->conns));
    for (int i = 0; i < nconns; i++) {
        srv->conns[i].rank = ranks != NULL ? ranks[i] : i;
    }
    srv->spawn.rank = -1;
    snprintf(map, sizeof(map), "(vector,(0,1,%d))", size);
    tn_pmi_kvs_put(srv->kvs, "PMI_process_mapping", map);
}

void tn_pmi_srv_init(tn_pmi_srv_t *srv, int size, const char *kvsname)
{
    tn_pmi_srv_init_part(srv, size, size, NULL, kvsname);
}

void tn_pmi_srv_fini(tn_pmi_srv_t *srv)
{
    for (int r = 0; r < srv->nconns; r++) {
        tn_run_buf_free(&srv->conns[r].in);
        tn_run_buf_free(&srv->conns[r].out);
    }
    tn_run_buf_free(&srv->delta);
    spawn_free(&srv->spawn);
    for (int i = 0; i < srv->nnames; i++) {
        free(srv->names[i]);
        free(srv->ports[i]);
    }
    free(srv->names);
    free(srv->ports);
    srv->names = srv->ports = NULL;
    srv->nnames = 0;
    free(srv->conns);
    tn_pmi_kvs_destroy(srv->kvs);
    srv->conns = NULL;
    srv->kvs   = NULL;
}

int tn_pmi_srv_input(tn_pmi_srv_t *srv, int rank, const char *data, size_t len)
{
    tn_pmi_conn_t *conn = &srv->conns[rank];
    size_t         scanned = conn->in.len;  /* bytes known to hold no '\n' */
    size_t         done    = 0;             /* bytes of whole lines served */
    char          *nl;

    if (conn->broken || conn->closed || len == 0) {
        return 0;                   /* ignored: the job is ending */
    }
    conn->contacted = 1;
    tn_run_buf_append(&conn->in, data, len);
    while ((nl = memchr(conn->in.data + scanned, '\n',
                        conn->in.len - scanned)) != NULL) {
        *nl = '\0';
        pmi_serve(srv, rank, conn->in.data + done,
                  (size_t)(nl - conn->in.data) - done);
        done = scanned = (size_t)(nl - conn->in.data) + 1;
    }
    tn_run_buf_consume(&conn->in, done);
    if (conn->in.len > TN_PMI_LINE_MAX) {
        pmi_error(srv, rank, "line_too_long", conn->in.data, conn->in.len);
        tn_run_buf_free(&conn->in);
        return -1;
    }
    return 0;
}

void tn_pmi_srv_eof(tn_pmi_srv_t *srv, int rank)
{
    tn_pmi_conn_t *conn = &srv->conns[rank];

    if (conn->in.len > 0 && !conn->broken && !conn->closed) {
        pmi_error(srv, rank, "request_cut_off_by_end_of_connection",
                  conn->in.data, conn->in.len);
    }
    tn_run_buf_free(&conn->in);
}

void tn_pmi_srv_gone(tn_pmi_srv_t *srv, int rank)
{
    srv->conns[rank].gone = 1;
}

int tn_pmi_srv_stuck(const tn_pmi_srv_t *srv)
{
    if (srv->nbarrier == 0) {
        return -1;
    }
    for (int r = 0; r < srv->nconns; r++) {
        if (srv->conns[r].gone && !srv->conns[r].in_barrier) {
            return r;
        }
    }
    return -1;
}

void tn_pmi_srv_closed(tn_pmi_srv_t *srv, int rank)
{
    tn_pmi_conn_t *conn = &srv->conns[rank];

    conn->closed = 1;
    tn_run_buf_free(&conn->in);
    tn_run_buf_free(&conn->out);
    if (srv->spawn.rank == rank && !srv->spawn.ready) {
        spawn_free(&srv->spawn);        /* half a request: no one to answer */
        conn->spawning = 0;
    }
}
