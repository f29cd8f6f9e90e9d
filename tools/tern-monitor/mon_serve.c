/* tern-monitor serve: the server (mon_serve.h). */
#include "mon_serve.h"
#include "mon_api.h"
#include "mon_http.h"
#include "mon_query.h"
#include "mon_resp.h"
#include "mon_hist.h"
#include "mon_notify.h"
#include "mon_rules.h"
#include "mon_srv.h"
#include "mon_state.h"
#include "mon_web.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct {
    const tn_mon_serve_opts_t *o;
    tn_mon_state_t       state;
    tn_mon_switch_map_t  map;
    int                  have_map;
    tn_mon_srv_t        *srv;
    tn_mon_rules_t      *rules;
    tn_mon_notify_t     *notify;
    tn_mon_hist_t        hist;
} sv;

static uint64_t serve_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* The request's path is exactly p (no decoding needed for our names). */
static int path_is(const tn_mon_http_req_t *req, const char *p)
{
    return req->path_len == strlen(p) && memcmp(req->path, p, req->path_len) == 0;
}

/* Does the request carry the ingest token?  Compared in constant time. */
static int serve_authorized(const tn_mon_http_req_t *req)
{
    const char *tok = sv.o->token;
    if (tok[0] == '\0') {
        return 1;
    }
    const tn_mon_http_hdr_t *h = tn_mon_http_header(req, "Authorization");
    size_t n = strlen(tok);
    if (h == NULL || h->value_len != n + 7 || memcmp(h->value, "Bearer ", 7) != 0) {
        return 0;
    }
    unsigned char diff = 0;
    for (size_t i = 0; i < n; i++) {
        diff |= (unsigned char)(h->value[7 + i] ^ tok[i]);
    }
    return diff == 0;
}

static void serve_json(tn_mon_http_resp_t *resp)
{
    resp->content_type = "application/json";
}

static int serve_param_int(const tn_mon_http_req_t *req, const char *name, int lo, int hi, int def)
{
    char v[32];
    size_t len;
    if (tn_mon_query_get(req, name, v, sizeof(v), &len) != 0) {
        return def;
    }
    char *end;
    long x = strtol(v, &end, 10);
    return *end == '\0' && end != v && x >= lo && x <= hi ? (int)x : def;
}

static void serve_stored_jobs(void *arg, tn_mon_json_t *j)
{
    (void)arg;
    tn_mon_hist_jobs(&sv.hist, &sv.state, j);
}

static int serve_handler(void *ctx, const tn_mon_http_req_t *req, tn_mon_http_resp_t *resp)
{
    (void)ctx;
    uint64_t now = serve_now();
    char arg[256];
    size_t len;
    if (path_is(req, "/api/v1/ingest")) {
        if (req->method != TN_MON_HTTP_POST) {
            tn_mon_http_resp_text(resp, 405, "POST frames here");
            return 0;
        }
        if (!serve_authorized(req)) {
            tn_mon_http_resp_text(resp, 401, "a frame needs the server's token");
            return 0;
        }
        char why[160];
        int rc = tn_mon_state_apply(&sv.state, req->body, req->body_len, now, why, sizeof(why));
        if (rc == TN_MON_STATE_NEED_FULL) {
            tn_mon_http_resp_text(resp, 409, why);
        } else if (rc != 0) {
            tn_mon_http_resp_text(resp, 400, why);
        } else {
            tn_mon_http_resp_text(resp, 200, "ok");
        }
        return 0;
    }
    if (req->method == TN_MON_HTTP_POST) {
        tn_mon_http_resp_text(resp, 405, "only /api/v1/ingest takes POST");
        return 0;
    }
    if (path_is(req, "/metrics")) {
        resp->content_type = "text/plain; version=0.0.4; charset=utf-8";
        tn_mon_prom_write(&sv.state, now, &resp->body);
        return 0;
    }
    if (path_is(req, "/api/jobs")) {
        serve_json(resp);
        tn_mon_api_jobs(&sv.state, now, &resp->body, serve_stored_jobs, NULL);
        return 0;
    }
    if (path_is(req, "/api/series")) {
        char key[600];
        if (tn_mon_query_get(req, "key", key, sizeof(key), &len) != 0) {
            tn_mon_http_resp_text(resp, 400, "which series? (?key=)");
            return 0;
        }
        int64_t to = (int64_t)now, from = to - 3600 * 1000;
        int64_t step = 0;
        char v[32];
        if (tn_mon_query_get(req, "from", v, sizeof(v), &len) == 0) {
            from = strtoll(v, NULL, 10);
        }
        if (tn_mon_query_get(req, "to", v, sizeof(v), &len) == 0) {
            to = strtoll(v, NULL, 10);
        }
        if (tn_mon_query_get(req, "step", v, sizeof(v), &len) == 0) {
            step = strtoll(v, NULL, 10);
        }
        serve_json(resp);
        if (from < 0 || to < from || step < 0 ||
            tn_mon_hist_series(&sv.hist, key, from, to, step, &resp->body) != 0) {
            tn_mon_http_resp_text(resp, 400, "no such series, or no history kept");
        }
        return 0;
    }
    if (path_is(req, "/api/job")) {
        if (tn_mon_query_get(req, "id", arg, sizeof(arg), &len) != 0) {
            tn_mon_http_resp_text(resp, 400, "which job? (?id=)");
            return 0;
        }
        char c[16] = "all", w[16] = "bytes";
        (void)tn_mon_query_get(req, "class", c, sizeof(c), &len);
        (void)tn_mon_query_get(req, "what", w, sizeof(w), &len);
        int cls = strcmp(c, "p2p") == 0 ? TN_MON_CLS_P2P : strcmp(c, "coll") == 0 ? TN_MON_CLS_COLL
                : strcmp(c, "rma") == 0 ? TN_MON_CLS_RMA : -1;
        int what = strcmp(w, "msgs") == 0 ? 1 : strcmp(w, "avg") == 0 ? 2 : 0;
        int window = serve_param_int(req, "window", 0, 3600, 0);
        serve_json(resp);
        if (tn_mon_api_job(&sv.state, arg, cls, what, window, now, &resp->body) != 0 &&
            tn_mon_hist_job(&sv.hist, arg, cls, what, &resp->body) != 0) {
            tn_mon_http_resp_text(resp, 404, "no such job");
        }
        return 0;
    }
    if (path_is(req, "/api/nodes")) {
        serve_json(resp);
        tn_mon_api_nodes(&sv.state, now, &resp->body);
        return 0;
    }
    if (path_is(req, "/api/node")) {
        if (tn_mon_query_get(req, "name", arg, sizeof(arg), &len) != 0) {
            tn_mon_http_resp_text(resp, 400, "which node? (?name=)");
            return 0;
        }
        serve_json(resp);
        if (tn_mon_api_node(&sv.state, arg, now, &resp->body) != 0) {
            tn_mon_http_resp_text(resp, 404, "no such node");
        }
        return 0;
    }
    if (path_is(req, "/api/network")) {
        serve_json(resp);
        tn_mon_api_network(&sv.state, sv.have_map ? &sv.map : NULL, &resp->body);
        return 0;
    }
    if (path_is(req, "/api/alerts")) {
        serve_json(resp);
        tn_mon_rules_json(sv.rules, &resp->body);
        return 0;
    }
    return tn_mon_serve_static(req, resp);
}

static void serve_tick(void *arg, int64_t now_ms)
{
    (void)arg;
    (void)now_ms;
    uint64_t now = serve_now();
    tn_mon_state_tick(&sv.state, now);
    tn_mon_rules_eval(sv.rules, &sv.state, now);
    tn_mon_hist_tick(&sv.hist, &sv.state, now);
}

static void serve_alert(void *arg, const tn_mon_alert_t *a, const tn_mon_rule_t *r)
{
    (void)arg;
    tn_mon_notify_alert(sv.notify, a, r);
    tn_mon_hist_alert(&sv.hist, a, r);
}

int tn_mon_serve_load_rules(struct tn_mon_rules *rs, const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "tern-monitor: cannot open %s: %m\n", path);
        return -1;
    }
    char line[512], why[256];
    int n = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
        n++;
        if (tn_mon_rules_tune(rs, line, why, sizeof(why)) != 0) {
            fprintf(stderr, "tern-monitor: %s:%d: %s\n", path, n, why);
            rc = -1;
        }
    }
    fclose(f);
    return rc;
}

static void serve_log(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "tern-monitor serve: %s\n", msg);
}

static void serve_on_signal(int sig)
{
    (void)sig;
    if (sv.srv != NULL) {
        tn_mon_srv_stop(sv.srv);
    }
}

int tn_mon_serve_run(const tn_mon_serve_opts_t *o)
{
    sv.o = o;
    tn_mon_state_init(&sv.state);
    char why[256];
    tn_mon_notify_opts_t no = { .webhook = o->webhook, .smtp = o->smtp, .mail_from = o->mail_from,
                                .mail_to = o->mail_to, .alert_log = o->alert_log };
    if ((sv.notify = tn_mon_notify_new(&no, why, sizeof(why))) == NULL) {
        fprintf(stderr, "tern-monitor serve: %s\n", why);
        return 1;
    }
    sv.hist.epoch_ms = serve_now();
    if (o->db != NULL && strcmp(o->db, "none") != 0) {
        tn_mon_store_policy_t policy;
        tn_mon_store_policy_default(&policy);
        if (tn_mon_store_open(o->db, &policy, &sv.hist.store) != 0) {
            fprintf(stderr, "tern-monitor serve: cannot use the database %s (--db none: no "
                    "history)\n", o->db);
            return 1;
        }
    }
    sv.rules = tn_mon_rules_new(serve_alert, NULL);
    if (sv.rules == NULL || (o->rules != NULL && tn_mon_serve_load_rules(sv.rules, o->rules) != 0)) {
        return 1;
    }
    if (o->switch_map != NULL) {
        if (tn_mon_switch_map_load(o->switch_map, &sv.map, why, sizeof(why)) != 0) {
            fprintf(stderr, "tern-monitor serve: %s: %s\n", o->switch_map, why);
            return 1;
        }
        sv.have_map = 1;
    }
    /* frames change what the page and the alerts say: from other hosts,
     * only with a token */
    int loopback = strncmp(o->addr, "127.", 4) == 0 || strcmp(o->addr, "::1") == 0 ||
                   strcmp(o->addr, "[::1]") == 0 || strcmp(o->addr, "localhost") == 0;
    if (!loopback && o->token[0] == '\0') {
        fprintf(stderr, "tern-monitor serve: listening on %s takes frames from other hosts: give "
                "--token-file (the agents give the same one)\n", o->addr);
        return 1;
    }
    tn_mon_srv_cfg_t cfg = {
        .addr = o->addr, .port = (uint16_t)o->port, .max_body = 64u << 20,
        .max_conns = 4096, .handler = serve_handler, .log = serve_log,
    };
    int rc = tn_mon_srv_open(&cfg, &sv.srv);
    if (rc != 0) {
        fprintf(stderr, "tern-monitor serve: cannot listen on %s:%d: %s\n", o->addr, o->port,
                strerror(-rc));
        return 1;
    }
    tn_mon_srv_set_tick(sv.srv, 1000, serve_tick, NULL);
    signal(SIGINT, serve_on_signal);
    signal(SIGTERM, serve_on_signal);
    signal(SIGPIPE, SIG_IGN);
    if (o->port_file != NULL) {
        FILE *f = fopen(o->port_file, "w");
        if (f != NULL) {
            fprintf(f, "%u\n", (unsigned)tn_mon_srv_port(sv.srv));
            fclose(f);
        }
    }
    fprintf(stderr, "tern-monitor serve: listening on %s:%u\n", o->addr,
            (unsigned)tn_mon_srv_port(sv.srv));
    rc = tn_mon_srv_run(sv.srv);
    tn_mon_srv_close(sv.srv);
    sv.srv = NULL;
    tn_mon_state_fini(&sv.state);
    tn_mon_rules_free(sv.rules);
    tn_mon_notify_free(sv.notify);
    if (sv.hist.store != NULL) {
        tn_mon_store_close(sv.hist.store);      /* writes the minutes in memory */
        sv.hist.store = NULL;
    }
    if (sv.have_map) {
        tn_mon_switch_map_free(&sv.map);
    }
    return rc < 0 ? 1 : 0;
}

/* The page's files, embedded at build time (mon_web.h), with the policy
 * that keeps the page to its own origin. */
int tn_mon_serve_static(const tn_mon_http_req_t *req, tn_mon_http_resp_t *resp)
{
    char path[256];
    size_t len, n;
    const char *ctype;
    const unsigned char *data;
    if (tn_mon_query_path(req, path, sizeof(path), &len) != 0 ||
        tn_mon_web_find(path, &ctype, &data, &n) != 0) {
        tn_mon_http_resp_text(resp, 404, "no such page");
        return 0;
    }
    resp->content_type = ctype;
    if (tn_mon_http_resp_header(resp, "Content-Security-Policy", TN_MON_WEB_CSP) != 0 ||
        tn_mon_http_resp_append(resp, data, n) != 0) {
        return -1;
    }
    return 0;
}
