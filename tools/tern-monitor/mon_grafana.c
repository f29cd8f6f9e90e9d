/* The Grafana dashboard (mon_grafana.h). */
#include "mon_grafana.h"
#include "mon_json.h"
#include "mon_rules.h"

#include <string.h>

/* P(title, unit, expr, legend, rule): rule is the alert whose threshold
 * the panel draws, or -1. */
#define TN_MON_PANELS(P)                                                       \
    P("Messages sent per second, by class", "ops",                            \
      "sum by (jobid, class) (rate(tern_mpi_msgs_sent_total{jobid=~\"$jobid\"}[1m]))", \
      "{{jobid}} {{class}}", -1)                                               \
    P("Bytes sent per second, by class", "Bps",                               \
      "sum by (jobid, class) (rate(tern_mpi_bytes_sent_total{jobid=~\"$jobid\"}[1m]))", \
      "{{jobid}} {{class}}", -1)                                               \
    P("Message sizes (95th percentile)", "bytes",                             \
      "histogram_quantile(0.95, sum by (jobid, le) (rate(tern_mpi_message_size_bytes_bucket{jobid=~\"$jobid\"}[5m])))", \
      "{{jobid}}", -1)                                                         \
    P("MPI calls per second (top 10)", "ops",                                 \
      "topk(10, sum by (jobid, function) (rate(tern_mpi_calls_total{jobid=~\"$jobid\"}[1m])))", \
      "{{jobid}} {{function}}", -1)                                            \
    P("Longest time in one MPI call", "s",                                    \
      "tern_job_longest_call_seconds{jobid=~\"$jobid\"}", "{{jobid}}", TN_MON_RULE_RANK_STUCK) \
    P("Dead ranks", "none", "tern_job_dead_ranks{jobid=~\"$jobid\"}", "{{jobid}}",  \
      TN_MON_RULE_RANK_DIED)                                                   \
    P("Retransmitted share of packets, by rail", "percentunit",               \
      "sum by (jobid, src, dst, rail) (rate(tern_link_lost_packets_total{jobid=~\"$jobid\"}[30s])) / " \
      "sum by (jobid, src, dst, rail) (rate(tern_link_sent_packets_total{jobid=~\"$jobid\"}[30s]))", \
      "{{src}} -> {{dst}} rail {{rail}}", TN_MON_RULE_RETRANS)                 \
    P("Packets per second, by rail", "pps",                                   \
      "sum by (src, dst, rail) (rate(tern_link_sent_packets_total{jobid=~\"$jobid\"}[1m]))", \
      "{{src}} -> {{dst}} rail {{rail}}", -1)                                  \
    P("Interface throughput", "Bps",                                          \
      "rate(tern_node_network_receive_bytes_total{node=~\"$node\"}[1m])",     \
      "{{node}} {{device}} in", -1)                                            \
    P("Interface utilisation", "percentunit",                                 \
      "tern_node_network_utilization_ratio{node=~\"$node\"}", "{{node}} {{device}}", \
      TN_MON_RULE_LINK_UTIL)                                                   \
    P("UDP receive-buffer drops per second", "pps",                           \
      "rate(tern_node_udp_receive_buffer_errors_total{node=~\"$node\"}[1m])", "{{node}}", -1) \
    P("Integrity and authentication failures per second", "pps",              \
      "sum by (jobid) (rate(tern_udp_bad_packets_total{jobid=~\"$jobid\"}[1m]) + " \
      "rate(tern_udp_bad_auth_total{jobid=~\"$jobid\"}[1m]))", "{{jobid}}", -1)

static void grafana_var(tn_mon_json_t *j, const char *name, const char *query)
{
    tn_mon_json_obj(j);
    tn_mon_json_kstr(j, "name", name);
    tn_mon_json_kstr(j, "type", "query");
    tn_mon_json_kstr(j, "query", query);
    tn_mon_json_kbool(j, "includeAll", 1);
    tn_mon_json_kbool(j, "multi", 1);
    tn_mon_json_kint(j, "refresh", 2);
    tn_mon_json_key(j, "datasource");
    tn_mon_json_obj(j);
    tn_mon_json_kstr(j, "type", "prometheus");
    tn_mon_json_kstr(j, "uid", "${DS_PROMETHEUS}");
    tn_mon_json_obj_end(j);
    tn_mon_json_obj_end(j);
}

void tn_mon_grafana(tn_mon_buf_t *out)
{
    static const struct { const char *title, *unit, *expr, *legend; int rule; } panels[] = {
#define TN_MON_PANEL(t, u, e, l, r) { t, u, e, l, r },
        TN_MON_PANELS(TN_MON_PANEL)
#undef TN_MON_PANEL
    };
    tn_mon_rules_t *rs = tn_mon_rules_new(NULL, NULL);
    tn_mon_json_t j;
    tn_mon_json_init(&j, out);
    tn_mon_json_obj(&j);
    tn_mon_json_kstr(&j, "title", "Tern jobs and network");
    tn_mon_json_kstr(&j, "uid", "tern-monitor");
    tn_mon_json_kint(&j, "schemaVersion", 39);
    tn_mon_json_kstr(&j, "refresh", "10s");
    tn_mon_json_key(&j, "time");
    tn_mon_json_obj(&j);
    tn_mon_json_kstr(&j, "from", "now-1h");
    tn_mon_json_kstr(&j, "to", "now");
    tn_mon_json_obj_end(&j);
    tn_mon_json_key(&j, "templating");
    tn_mon_json_obj(&j);
    tn_mon_json_key(&j, "list");
    tn_mon_json_arr(&j);
    grafana_var(&j, "jobid", "label_values(tern_job_info, jobid)");
    grafana_var(&j, "node", "label_values(tern_node_agent_up, node)");
    tn_mon_json_arr_end(&j);
    tn_mon_json_obj_end(&j);
    tn_mon_json_key(&j, "panels");
    tn_mon_json_arr(&j);
    for (size_t i = 0; i < sizeof(panels) / sizeof(panels[0]); i++) {
        tn_mon_json_obj(&j);
        tn_mon_json_kint(&j, "id", (int64_t)i + 1);
        tn_mon_json_kstr(&j, "type", "timeseries");
        tn_mon_json_kstr(&j, "title", panels[i].title);
        tn_mon_json_key(&j, "gridPos");
        tn_mon_json_obj(&j);
        tn_mon_json_kint(&j, "h", 8);
        tn_mon_json_kint(&j, "w", 12);
        tn_mon_json_kint(&j, "x", (int64_t)(i % 2) * 12);
        tn_mon_json_kint(&j, "y", (int64_t)(i / 2) * 8);
        tn_mon_json_obj_end(&j);
        tn_mon_json_key(&j, "datasource");
        tn_mon_json_obj(&j);
        tn_mon_json_kstr(&j, "type", "prometheus");
        tn_mon_json_kstr(&j, "uid", "${DS_PROMETHEUS}");
        tn_mon_json_obj_end(&j);
        tn_mon_json_key(&j, "targets");
        tn_mon_json_arr(&j);
        tn_mon_json_obj(&j);
        tn_mon_json_kstr(&j, "refId", "A");
        tn_mon_json_kstr(&j, "expr", panels[i].expr);
        tn_mon_json_kstr(&j, "legendFormat", panels[i].legend);
        tn_mon_json_obj_end(&j);
        tn_mon_json_arr_end(&j);
        tn_mon_json_key(&j, "fieldConfig");
        tn_mon_json_obj(&j);
        tn_mon_json_key(&j, "defaults");
        tn_mon_json_obj(&j);
        tn_mon_json_kstr(&j, "unit", panels[i].unit);
        const tn_mon_rule_t *r = rs != NULL ? tn_mon_rules_get(rs, panels[i].rule) : NULL;
        if (r != NULL) {
            /* the alert's threshold, drawn on the panel */
            tn_mon_json_key(&j, "thresholds");
            tn_mon_json_obj(&j);
            tn_mon_json_kstr(&j, "mode", "absolute");
            tn_mon_json_key(&j, "steps");
            tn_mon_json_arr(&j);
            tn_mon_json_obj(&j);
            tn_mon_json_kstr(&j, "color", "green");
            tn_mon_json_key(&j, "value");
            tn_mon_json_null(&j);
            tn_mon_json_obj_end(&j);
            tn_mon_json_obj(&j);
            tn_mon_json_kstr(&j, "color", strcmp(r->severity, "critical") == 0 ? "red" : "orange");
            tn_mon_json_kdouble(&j, "value", r->threshold);
            tn_mon_json_obj_end(&j);
            tn_mon_json_arr_end(&j);
            tn_mon_json_obj_end(&j);
            tn_mon_json_key(&j, "custom");
            tn_mon_json_obj(&j);
            tn_mon_json_key(&j, "thresholdsStyle");
            tn_mon_json_obj(&j);
            tn_mon_json_kstr(&j, "mode", "line");
            tn_mon_json_obj_end(&j);
            tn_mon_json_obj_end(&j);
        }
        tn_mon_json_obj_end(&j);
        tn_mon_json_obj_end(&j);
        tn_mon_json_obj_end(&j);
    }
    tn_mon_json_arr_end(&j);
    tn_mon_json_obj_end(&j);
    tn_mon_rules_free(rs);
    tn_mon_buf_str(out, "\n");
}
