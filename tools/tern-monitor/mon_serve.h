/* tern-monitor serve (docs/monitor.md): one process that takes the node
 * agents' frames (POST /api/v1/ingest, with the bearer token when one is
 * set), keeps the live state (mon_state.h) and serves the web page, its
 * JSON (mon_api.h) and /metrics for Prometheus, all on one port. */
#ifndef TN_MON_SERVE_H
#define TN_MON_SERVE_H

#include "mon_http.h"
#include "mon_resp.h"

typedef struct {
    const char *addr;           /* "127.0.0.1" */
    int         port;           /* 0: any (written to port_file) */
    char        token[256];     /* "" : frames need none */
    const char *switch_map;     /* the site's host -> switch map, or NULL */
    const char *port_file;      /* where to write the port, or NULL */
    const char *rules;          /* rule tuning lines (mon_rules.h), or NULL */
    const char *db;             /* the history's SQLite file, "none", or NULL (none) */
    const char *webhook, *smtp, *mail_from, *mail_to, *alert_log;   /* mon_notify.h */
} tn_mon_serve_opts_t;

/* Load rule tuning lines from path into rs; 0, or -1 (said on stderr). */
struct tn_mon_rules;
int tn_mon_serve_load_rules(struct tn_mon_rules *rs, const char *path);

int tn_mon_serve_run(const tn_mon_serve_opts_t *o);

/* The web page's files (GET of anything but the API). */
int tn_mon_serve_static(const tn_mon_http_req_t *req, tn_mon_http_resp_t *resp);

#endif
