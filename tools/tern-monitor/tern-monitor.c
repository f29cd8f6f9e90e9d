/* tern-monitor: monitoring of Tern jobs and the network (docs/monitor.md).
 *   tern-monitor top   [--dir D] [--interval S] [--once]
 *   tern-monitor dump  [--dir D]
 *   tern-monitor agent --server HOST:PORT [--token-file F] [--node NAME]
 *                      [--dir D] [--interval S] [--frames N] [--reap]
 *   tern-monitor serve [--listen ADDR:PORT] [--token-file F]
 *                      [--switch-map F] [--port-file F]
 * A stand-alone program: it reads the ranks' stats segments and never
 * links the MPI library. */
#include "mon_agent.h"
#include "mon_grafana.h"
#include "mon_listen.h"
#include "mon_rules.h"
#include "mon_serve.h"
#include "mon_top.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TN_MON_PORT 9410            /* the server's default port */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: tern-monitor top [--dir DIR] [--interval SECONDS] [--once]\n"
            "       tern-monitor dump [--dir DIR]\n"
            "       tern-monitor agent --server HOST[:PORT] [--token-file FILE] [--node NAME]\n"
            "                          [--dir DIR] [--interval SECONDS] [--frames N] [--reap]\n"
            "                          [--lock] [--exit-when-idle [--parent PID]] [--same-netns]\n"
            "                          [--sysroot DIR]\n"
            "       tern-monitor serve [--listen ADDR[:PORT]] [--token-file FILE]\n"
            "                          [--switch-map FILE] [--port-file FILE] [--rules FILE]\n"
            "                          [--db FILE|none]   (history; default ./tern-monitor.db)\n"
            "                          [--alert-log FILE] [--webhook http://HOST[:PORT]/PATH]\n"
            "                          [--smtp HOST[:PORT] --mail-from ADDR --mail-to ADDR]\n"
            "       tern-monitor rules [--rules FILE]   (Prometheus alerting rules)\n"
            "       tern-monitor grafana                (a Grafana dashboard)\n"
            "  top    the Tern jobs of this node, redrawn every second\n"
            "  dump   every counter of every rank of this node, one per line\n"
            "  agent  send this node's ranks and network counters to a server every second\n"
            "  serve  the server: web page, JSON, Prometheus /metrics (default port %d)\n"
            "  --dir DIR  where the ranks publish (TERN_MONITOR_DIR; default /dev/shm)\n",
            TN_MON_PORT);
}

/* The first line of path, the token agents and the server share. */
static int read_token(const char *path, char *tok, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (f == NULL || fgets(tok, (int)cap, f) == NULL) {
        fprintf(stderr, "tern-monitor: cannot read a token from %s\n", path);
        if (f != NULL) {
            fclose(f);
        }
        return -1;
    }
    fclose(f);
    tok[strcspn(tok, "\r\n")] = '\0';
    for (const char *c = tok; *c != '\0'; c++) {
        if ((unsigned char)*c <= 0x20 || (unsigned char)*c >= 0x7f) {
            fprintf(stderr, "tern-monitor: the token in %s has a character that is not "
                    "printable\n", path);
            return -1;
        }
    }
    return tok[0] != '\0' ? 0 : -1;
}

static int parse_seconds(const char *v, double *out)
{
    char *end;
    double x = strtod(v, &end);
    if (*end != '\0' || !(x >= 0.1 && x <= 3600)) {
        fprintf(stderr, "tern-monitor: an interval is 0.1 to 3600 seconds\n");
        return -1;
    }
    *out = x;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *cmd = argv[1];
    const char *dir = "/dev/shm";
    double interval = 1.0;
    int frames = 0;
    tn_mon_agent_opts_t ao = { .port = TN_MON_PORT, .root = "/", .interval = 1.0 };
    tn_mon_serve_opts_t so = { .addr = "127.0.0.1", .port = TN_MON_PORT, .db = "tern-monitor.db" };
    char listen_host[256] = "127.0.0.1";
    int have_server = 0;
    const char *frame_out = NULL;
    gethostname(ao.node, sizeof(ao.node) - 1);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint16_t port;
        if (strcmp(a, "--dir") == 0 && v != NULL) {
            dir = v;
            i++;
        } else if (strcmp(a, "--interval") == 0 && v != NULL) {
            if (parse_seconds(v, &interval) != 0) {
                return 2;
            }
            i++;
        } else if (strcmp(a, "--once") == 0) {
            frames = 1;
        } else if (strcmp(a, "--frames") == 0 && v != NULL) {
            frames = atoi(v);
            i++;
        } else if (strcmp(a, "--frame-out") == 0 && v != NULL) {
            frame_out = v;              /* one full frame to a file, no server */
            i++;
        } else if (strcmp(a, "--reap") == 0) {
            ao.reap = 1;
        } else if (strcmp(a, "--sysroot") == 0 && v != NULL) {
            ao.root = v;                /* a tree with sys/ and proc/ (tests) */
            i++;
        } else if (strcmp(a, "--same-netns") == 0) {
            ao.same_netns = 1;
        } else if (strcmp(a, "--lock") == 0) {
            ao.lock = 1;
        } else if (strcmp(a, "--exit-when-idle") == 0) {
            ao.exit_when_idle = 1;
        } else if (strcmp(a, "--parent") == 0 && v != NULL) {
            ao.parent = atoi(v);
            i++;
        } else if (strcmp(a, "--node") == 0 && v != NULL) {
            snprintf(ao.node, sizeof(ao.node), "%s", v);
            i++;
        } else if (strcmp(a, "--server") == 0 && v != NULL) {
            if (tn_mon_listen_parse(v, NULL, TN_MON_PORT, ao.host, sizeof(ao.host), &port) != 0 ||
                ao.host[0] == '\0' || port == 0) {
                fprintf(stderr, "tern-monitor: --server takes HOST[:PORT]\n");
                return 2;
            }
            ao.port = port;
            have_server = 1;
            i++;
        } else if (strcmp(a, "--listen") == 0 && v != NULL) {
            if (tn_mon_listen_parse(v, "127.0.0.1", TN_MON_PORT, listen_host, sizeof(listen_host),
                                    &port) != 0) {
                fprintf(stderr, "tern-monitor: --listen takes ADDR[:PORT]\n");
                return 2;
            }
            so.addr = listen_host;
            so.port = port;
            i++;
        } else if (strcmp(a, "--token-file") == 0 && v != NULL) {
            if (read_token(v, ao.token, sizeof(ao.token)) != 0) {
                return 2;
            }
            memcpy(so.token, ao.token, sizeof(so.token));
            i++;
        } else if (strcmp(a, "--switch-map") == 0 && v != NULL) {
            so.switch_map = v;
            i++;
        } else if (strcmp(a, "--db") == 0 && v != NULL) {
            so.db = v;
            i++;
        } else if (strcmp(a, "--rules") == 0 && v != NULL) {
            so.rules = v;
            i++;
        } else if (strcmp(a, "--webhook") == 0 && v != NULL) {
            so.webhook = v;
            i++;
        } else if (strcmp(a, "--smtp") == 0 && v != NULL) {
            so.smtp = v;
            i++;
        } else if (strcmp(a, "--mail-from") == 0 && v != NULL) {
            so.mail_from = v;
            i++;
        } else if (strcmp(a, "--mail-to") == 0 && v != NULL) {
            so.mail_to = v;
            i++;
        } else if (strcmp(a, "--alert-log") == 0 && v != NULL) {
            so.alert_log = v;
            i++;
        } else if (strcmp(a, "--port-file") == 0 && v != NULL) {
            so.port_file = v;
            i++;
        } else {
            fprintf(stderr, "tern-monitor %s: unknown argument '%s'\n", cmd, a);
            usage(stderr);
            return 2;
        }
    }
    if (strcmp(cmd, "top") == 0) {
        return tn_mon_top(stdout, dir, interval, frames);
    }
    if (strcmp(cmd, "dump") == 0) {
        return tn_mon_dump(stdout, dir);
    }
    if (strcmp(cmd, "agent") == 0 && frame_out != NULL) {
        ao.dir = dir;
        tn_mon_buf_t buf = { 0 };
        FILE *f = fopen(frame_out, "wb");
        int rc = tn_mon_agent_frame(&ao, &buf, 1) == 0 && f != NULL &&
                 fwrite(buf.data, 1, buf.len, f) == buf.len ? 0 : 1;
        if (f != NULL) {
            fclose(f);
        }
        tn_mon_buf_free(&buf);
        return rc;
    }
    if (strcmp(cmd, "agent") == 0) {
        if (!have_server) {
            fprintf(stderr, "tern-monitor agent: which server? (--server HOST[:PORT])\n");
            return 2;
        }
        ao.dir = dir;
        ao.interval = interval;
        ao.frames = frames;
        return tn_mon_agent_run(&ao);
    }
    if (strcmp(cmd, "serve") == 0) {
        return tn_mon_serve_run(&so);
    }
    if (strcmp(cmd, "rules") == 0) {
        /* the alert rules for Prometheus, as this server would evaluate them */
        tn_mon_rules_t *rs = tn_mon_rules_new(NULL, NULL);
        if (rs == NULL || (so.rules != NULL && tn_mon_serve_load_rules(rs, so.rules) != 0)) {
            return 1;
        }
        tn_mon_buf_t out = { 0 };
        tn_mon_rules_prometheus(rs, &out);
        fwrite(out.data, 1, out.len, stdout);
        tn_mon_buf_free(&out);
        tn_mon_rules_free(rs);
        return 0;
    }
    if (strcmp(cmd, "grafana") == 0) {
        tn_mon_buf_t out = { 0 };
        tn_mon_grafana(&out);
        fwrite(out.data, 1, out.len, stdout);
        tn_mon_buf_free(&out);
        return 0;
    }
    fprintf(stderr, "tern-monitor: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
