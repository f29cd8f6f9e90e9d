/* PMI-1 client ("simple PMI": tern-run, Hydra, Slurm's mpi/pmi2 plugin
 * also serves it).  Lines go through pmi_conn.c, replies are read with
 * tn_pmi1_field (pmi1_wire.c). */
#include "runtime/pmi_ops.h"
#include "runtime/pmi_conn.h"
#include "runtime/pmi_wire.h"
#include "base/log.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TN_PMI1_LINE 2048

static char tn_pmi1_kvsname[256];

/* Send a command, read the reply whose cmd is expect (other lines are
 * skipped), within TERN_PMI_TIMEOUT (TERN_PMI_FENCE_TIMEOUT for the
 * barrier).  "cmd=error" (a server that could not parse the request)
 * gives TN_ERR_PROTO; a reply with rc != 0 TN_ERR_NOTFOUND. */
static tn_status_t tn_pmi1_call(const char *cmd, const char *expect, char *reply, size_t len)
{
    int fence = strcmp(expect, "barrier_out") == 0;
    int64_t deadline = tn_pmi_conn_deadline(fence);
    tn_status_t st = tn_pmi_conn_write(cmd, strlen(cmd));
    if (st != TN_OK) {
        return st;
    }
    for (;;) {
        st = tn_pmi_conn_read_line(reply, len, deadline);
        if (st == TN_ERR_TIMEOUT) {
            tn_pmi_conn_timed_out(expect, fence);
        }
        if (st != TN_OK) {
            return st;
        }
        char c[64] = "";
        if (tn_pmi1_field(reply, "cmd", c, sizeof(c)) && strcmp(c, expect) == 0) {
            break;
        }
        if (strcmp(c, "error") == 0) {
            tn_log_error("rt", "the PMI server rejected a request: %s", reply);
            return TN_ERR_PROTO;
        }
        tn_log_debug("rt", "PMI: ignoring \"%s\" while waiting for %s", reply, expect);
    }
    char rc[32];
    long v;
    if (tn_pmi1_field(reply, "rc", rc, sizeof(rc)) && (!tn_pmi_int(rc, LONG_MIN, LONG_MAX, &v) ||
                                                      v != 0)) {
        return TN_ERR_NOTFOUND;
    }
    return TN_OK;
}

tn_status_t tn_pmi1_handshake(int version, int subversion)
{
    char line[128], reply[TN_PMI1_LINE], v[32];
    long got;
    snprintf(line, sizeof(line), "cmd=init pmi_version=%d pmi_subversion=%d\n", version,
             subversion);
    tn_status_t st = tn_pmi1_call(line, "response_to_init", reply, sizeof(reply));
    if (st == TN_ERR_NOTFOUND) {
        tn_log_debug("rt", "PMI server declined version %d.%d: %s", version, subversion, reply);
        return TN_ERR_UNSUPPORTED;
    }
    if (st != TN_OK) {
        return st;
    }
    /* a server that says nothing of the version agrees (old tern-run) */
    if (tn_pmi1_field(reply, "pmi_version", v, sizeof(v)) &&
        (!tn_pmi_int(v, 0, 1000, &got) || got != version)) {
        tn_log_debug("rt", "PMI server answered version %s to %d: %s", v, version, reply);
        return TN_ERR_UNSUPPORTED;
    }
    return TN_OK;
}

static tn_status_t tn_pmi1_init(tn_pmi_info_t *info_p)
{
    char reply[TN_PMI1_LINE], v[256];
    long rank = 0, size = 1, n;
    tn_status_t st;
    if (tn_pmi_conn_port()) {
        char line[128];
        const char *id = getenv("PMI_ID");
        long pmiid = 0;
        if (id != NULL && !tn_pmi_int(id, 0, INT_MAX, &pmiid)) {
            tn_log_error("rt", "PMI_ID=%s is not a number", id);
            return TN_ERR_INVAL;
        }
        snprintf(line, sizeof(line), "cmd=initack pmiid=%ld\n", pmiid);
        if ((st = tn_pmi1_call(line, "initack", reply, sizeof(reply))) != TN_OK) {
            return st;
        }
    }
    st = tn_pmi1_handshake(1, 1);
    if (st == TN_ERR_UNSUPPORTED) {
        tn_log_error("rt", "PMI server refused PMI-1.1 (TERN_LOG_LEVEL=debug shows its answer)");
        return TN_ERR_PROTO;
    }
    if (st != TN_OK) {
        return st;                  /* said why */
    }
    const char *es = getenv("PMI_SIZE"), *er = getenv("PMI_RANK");
    if ((es != NULL && !tn_pmi_int(es, 1, INT_MAX, &size)) ||
        (er != NULL && !tn_pmi_int(er, 0, size - 1, &rank))) {
        tn_log_error("rt", "PMI_RANK=%s, PMI_SIZE=%s: not a rank in a job of that size",
                     er ? er : "(unset)", es ? es : "(unset)");
        return TN_ERR_PROTO;
    }
    info_p->rank = (int)rank;
    info_p->size = (int)size;
    if (tn_pmi1_call("cmd=get_my_kvsname\n", "my_kvsname", reply, sizeof(reply)) != TN_OK ||
        !tn_pmi1_field(reply, "kvsname", tn_pmi1_kvsname, sizeof(tn_pmi1_kvsname)) ||
        tn_pmi1_kvsname[0] == '\0') {
        tn_log_error("rt", "PMI server did not give a kvsname");
        return TN_ERR_PROTO;
    }
    snprintf(info_p->kvsname, sizeof(info_p->kvsname), "%s", tn_pmi1_kvsname);
    /* Slurm answers appnum=-1: no attribute */
    info_p->appnum = -1;
    if (tn_pmi1_call("cmd=get_appnum\n", "appnum", reply, sizeof(reply)) == TN_OK &&
        tn_pmi1_field(reply, "appnum", v, sizeof(v)) && tn_pmi_int(v, -1, INT_MAX, &n)) {
        info_p->appnum = (int)n;
    }
    info_p->universe_size = info_p->size;
    if (tn_pmi1_call("cmd=get_universe_size\n", "universe_size", reply, sizeof(reply)) == TN_OK &&
        tn_pmi1_field(reply, "size", v, sizeof(v)) && tn_pmi_int(v, 1, INT_MAX, &n)) {
        info_p->universe_size = (int)n;
    }
    return TN_OK;
}

static tn_status_t tn_pmi1_put(const char *key, const char *value)
{
    char line[TN_PMI1_LINE], reply[TN_PMI1_LINE];
    int n = snprintf(line, sizeof(line), "cmd=put kvsname=%s key=%s value=%s\n", tn_pmi1_kvsname,
                     key, value);
    if (n < 0 || (size_t)n >= sizeof(line)) {
        tn_log_error("rt", "PMI-1: the value of %s is too long (%zu bytes)", key, strlen(value));
        return TN_ERR_INVAL;
    }
    return tn_pmi1_call(line, "put_result", reply, sizeof(reply));
}

static tn_status_t tn_pmi1_fence(void)
{
    char reply[TN_PMI1_LINE];
    return tn_pmi1_call("cmd=barrier_in\n", "barrier_out", reply, sizeof(reply));
}

static tn_status_t tn_pmi1_get(int rank, const char *key, char *value, int len)
{
    char line[TN_PMI1_LINE], reply[TN_PMI1_LINE];
    (void)rank;                       /* the key names it */
    snprintf(line, sizeof(line), "cmd=get kvsname=%s key=%s\n", tn_pmi1_kvsname, key);
    tn_status_t st = tn_pmi1_call(line, "get_result", reply, sizeof(reply));
    if (st != TN_OK) {
        return st;
    }
    if (!tn_pmi1_field(reply, "value", value, (size_t)len)) {
        return TN_ERR_PROTO;
    }
    return TN_OK;
}

static tn_status_t tn_pmi1_finalize(void)
{
    char reply[TN_PMI1_LINE];
    tn_status_t st = tn_pmi1_call("cmd=finalize\n", "finalize_ack", reply, sizeof(reply));
    tn_pmi_conn_close();
    return st;
}

/* "abort": the server ends the job; no reply.  internal=1 tells tern-run
 * that Tern itself, not MPI_Abort, ends the job (others ignore it). */
static void tn_pmi1_abort(int code, const char *msg, int user)
{
    char line[128];
    (void)msg;
    snprintf(line, sizeof(line), "cmd=abort exitcode=%d%s\n", code, user ? "" : " internal=1");
    if (tn_pmi_conn_write(line, strlen(line)) == TN_OK) {
        tn_pmi_conn_linger();
    }
}

/* Append to buf (cap bytes, *used so far); 0 when it does not fit. */
static int pmi1_app(char *buf, size_t cap, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int pmi1_app(char *buf, size_t cap, size_t *used, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, cap - *used, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap - *used) {
        return 0;
    }
    *used += (size_t)n;
    return 1;
}

static int pmi1_wire_ok(const char *s)
{
    return s != NULL && strchr(s, '\n') == NULL && strlen(s) < 1024;
}

/* PMI_Spawn_multiple's wire: one "mcmd=spawn" block per command, lines
 * key=value, ended by "endcmd"; the server answers once, after the last
 * block, with spawn_result (rc, and errcodes as a comma list). */
static tn_status_t tn_pmi1_spawn(int count, const tn_pmi_spawn_cmd_t *cmds, int npre,
                                 const char *const *pre_key, const char *const *pre_val,
                                 int *errcodes)
{
    size_t cap = 65536, used = 0;
    char *buf = malloc(cap), reply[TN_PMI1_LINE * 4], codes[TN_PMI1_LINE * 4];
    int total = 0, ok = buf != NULL;
    if (buf != NULL) {
        buf[0] = '\0';
    }
    for (int c = 0; ok && c < count; c++) {
        int argc = 0;
        total += cmds[c].maxprocs;
        ok = pmi1_wire_ok(cmds[c].cmd) &&
             pmi1_app(buf, cap, &used, "mcmd=spawn\nnprocs=%d\nexecname=%s\ntotspawns=%d\n"
                      "spawnssofar=%d\n", cmds[c].maxprocs, cmds[c].cmd, count, c + 1);
        while (ok && cmds[c].argv != NULL && cmds[c].argv[argc] != NULL) {
            ok = pmi1_wire_ok(cmds[c].argv[argc]) &&
                 pmi1_app(buf, cap, &used, "arg%d=%s\n", argc + 1, cmds[c].argv[argc]);
            argc++;
        }
        ok = ok && pmi1_app(buf, cap, &used, "argcnt=%d\npreput_num=%d\n", argc, npre);
        for (int i = 0; ok && i < npre; i++) {
            ok = pmi1_wire_ok(pre_key[i]) && pmi1_wire_ok(pre_val[i]) &&
                 pmi1_app(buf, cap, &used, "preput_key_%d=%s\npreput_val_%d=%s\n", i,
                          pre_key[i], i, pre_val[i]);
        }
        ok = ok && pmi1_app(buf, cap, &used, "info_num=%d\n", cmds[c].ninfo);
        for (int i = 0; ok && i < cmds[c].ninfo; i++) {
            ok = pmi1_wire_ok(cmds[c].info_key[i]) && pmi1_wire_ok(cmds[c].info_val[i]) &&
                 pmi1_app(buf, cap, &used, "info_key_%d=%s\ninfo_val_%d=%s\n", i,
                          cmds[c].info_key[i], i, cmds[c].info_val[i]);
        }
        ok = ok && pmi1_app(buf, cap, &used, "endcmd\n");
    }
    if (!ok) {
        free(buf);
        tn_log_error("rt", "PMI-1 spawn: an argument or info value the wire cannot carry "
                     "(a newline, or over 1023 bytes), or too many");
        return TN_ERR_INVAL;
    }
    tn_status_t st = tn_pmi1_call(buf, "spawn_result", reply, sizeof(reply));
    free(buf);
    for (int i = 0; i < total; i++) {
        errcodes[i] = st == TN_OK ? 0 : -1;
    }
    if (st == TN_OK && tn_pmi1_field(reply, "errcodes", codes, sizeof(codes))) {
        char *save = NULL, *t = strtok_r(codes, ",", &save);
        for (int i = 0; i < total && t != NULL; i++, t = strtok_r(NULL, ",", &save)) {
            long v;
            errcodes[i] = tn_pmi_int(t, INT_MIN, INT_MAX, &v) ? (int)v : -1;
        }
    }
    return st;
}

static tn_status_t tn_pmi1_publish(const char *service, const char *port)
{
    char line[2 * TN_PMI1_LINE + 64], reply[TN_PMI1_LINE];
    if (!pmi1_wire_ok(service) || !pmi1_wire_ok(port) || strchr(service, ' ') != NULL ||
        strchr(port, ' ') != NULL) {
        return TN_ERR_INVAL;
    }
    snprintf(line, sizeof(line), "cmd=publish_name service=%s port=%s\n", service, port);
    return tn_pmi1_call(line, "publish_result", reply, sizeof(reply));
}

static tn_status_t tn_pmi1_lookup(const char *service, char *port, int len)
{
    char line[TN_PMI1_LINE], reply[TN_PMI1_LINE];
    if (!pmi1_wire_ok(service) || strchr(service, ' ') != NULL) {
        return TN_ERR_INVAL;
    }
    snprintf(line, sizeof(line), "cmd=lookup_name service=%s\n", service);
    tn_status_t st = tn_pmi1_call(line, "lookup_result", reply, sizeof(reply));
    if (st == TN_OK && !tn_pmi1_field(reply, "port", port, (size_t)len)) {
        st = TN_ERR_NOTFOUND;
    }
    return st;
}

static tn_status_t tn_pmi1_unpublish(const char *service)
{
    char line[TN_PMI1_LINE], reply[TN_PMI1_LINE];
    if (!pmi1_wire_ok(service) || strchr(service, ' ') != NULL) {
        return TN_ERR_INVAL;
    }
    snprintf(line, sizeof(line), "cmd=unpublish_name service=%s\n", service);
    return tn_pmi1_call(line, "unpublish_result", reply, sizeof(reply));
}

const tn_pmi_ops_t tn_pmi1_ops = {
    .name = "PMI-1",
    .init = tn_pmi1_init,
    .put = tn_pmi1_put,
    .fence = tn_pmi1_fence,
    .get = tn_pmi1_get,
    .finalize = tn_pmi1_finalize,
    .abort = tn_pmi1_abort,
    .spawn = tn_pmi1_spawn,
    .publish = tn_pmi1_publish,
    .lookup = tn_pmi1_lookup,
    .unpublish = tn_pmi1_unpublish,
};
