/* tern-monitor serve's alerts (docs/monitor.md): one table of rules that
 * the server evaluates every second on its live state, and that
 * `tern-monitor rules` writes out as Prometheus alerting rules with the
 * same names, thresholds and hold times (so a site that moves to
 * Prometheus and Alertmanager keeps its alerts).
 *
 * R(id, alertname, severity, target, kind, window_s, hold_s, threshold,
 *   promql, summary)
 *   target  what an alert is about: LINK (job, node pair, rail), JOB, NIC
 *           (node, interface), IBPORT (node, device, port), NODE, RANK
 *           (job, rank)
 *   kind    RATIO: the increase of a over the increase of b in the window
 *           (b must have moved); INCREASE: the increase of a in the window;
 *           GAUGE: a now
 *   the condition is "above threshold"; it must hold for hold_s before
 *   the alert fires, and the alert resolves when it stops holding.  A
 *   RATIO rule judges only windows where b grew by TN_MON_RULE_MIN_B or
 *   more (a few packets prove nothing either way): an idle link keeps its
 *   state, neither firing nor resolving.
 *   promql  the same value in PromQL; the Prometheus rule is
 *           "(promql) > threshold" with `for:` hold_s. */
#ifndef TN_MON_RULES_H
#define TN_MON_RULES_H

#include <stdint.h>
#include "mon_buf.h"
#include "mon_state.h"

#define TN_MON_RULES(R)                                                        \
    R(RETRANS, "TernRetransmissions", "warning", LINK, RATIO, 30, 30, 0.01,    \
      "sum by (jobid, src, dst, rail) (increase(tern_link_lost_packets_total[30s])) / " \
      "(sum by (jobid, src, dst, rail) (increase(tern_link_sent_packets_total[30s])) >= 100)", \
      "More than 1 % of the packets on a rail are retransmitted")              \
    R(INTEGRITY, "TernIntegrityErrors", "critical", JOB, INCREASE, 60, 0, 0,   \
      "sum by (jobid) (increase(tern_udp_bad_packets_total[1m]) + increase(tern_udp_bad_auth_total[1m]))", \
      "Datagrams of the job fail their integrity or authentication checks")    \
    R(RAIL_DOWN, "TernRailDown", "critical", JOB, INCREASE, 60, 0, 0,          \
      "increase(tern_job_rail_failures_total[1m])",                            \
      "A rail of the job was taken out of use")                                \
    R(RANK_DIED, "TernRankDied", "critical", JOB, GAUGE, 0, 0, 0,              \
      "tern_job_dead_ranks", "A rank of the job died")                         \
    R(RANK_STUCK, "TernRankStuck", "warning", RANK, GAUGE, 0, 0, 300,          \
      "tern_job_longest_call_seconds",                                         \
      "A rank has been inside one MPI call for more than 5 minutes")           \
    R(LINK_UTIL, "TernLinkSaturated", "warning", NIC, GAUGE, 0, 60, 0.95,      \
      "tern_node_network_utilization_ratio",                                   \
      "A network interface is more than 95 % busy")                            \
    R(NIC_ERRORS, "TernInterfaceErrors", "warning", NIC, INCREASE, 60, 0, 0,   \
      "increase(tern_node_network_receive_errors_total[1m]) + " \
      "increase(tern_node_network_receive_crc_errors_total[1m])",              \
      "A network interface receives frames in error")                          \
    R(IB_ERRORS, "TernInfinibandErrors", "warning", IBPORT, INCREASE, 60, 0, 0, \
      "sum by (node, device, port) (increase(tern_node_infiniband_symbol_error_total[1m]) + " \
      "increase(tern_node_infiniband_link_error_recovery_total[1m]) + " \
      "increase(tern_node_infiniband_link_downed_total[1m]) + " \
      "increase(tern_node_infiniband_port_rcv_errors_total[1m]) + " \
      "increase(tern_node_infiniband_local_link_integrity_errors_total[1m]))", \
      "An InfiniBand port counts symbol, link or receive errors")              \
    R(RCVBUF, "TernUdpReceiveBufferDrops", "warning", NODE, INCREASE, 60, 0, 0, \
      "increase(tern_node_udp_receive_buffer_errors_total[1m])",               \
      "The kernel drops UDP datagrams because a socket's receive buffer is full") \
    R(AGENT_DOWN, "TernAgentDown", "warning", NODE, GAUGE, 0, 30, 0,           \
      "1 - tern_node_agent_up", "A node's agent stopped sending")

#define TN_MON_RULE_MIN_B 100

typedef enum {
#define TN_MON_RULE_ENUM(id, ...) TN_MON_RULE_##id,
    TN_MON_RULES(TN_MON_RULE_ENUM)
#undef TN_MON_RULE_ENUM
    TN_MON_NRULES
} tn_mon_rule_id_t;

typedef struct {
    const char *name, *severity, *promql, *summary;
    int         target, kind;
    int         window_s, hold_s;   /* may be changed (tn_mon_rules_tune) */
    double      threshold;
    int         enabled;
} tn_mon_rule_t;

enum { TN_MON_ALERT_FIRING = 1, TN_MON_ALERT_RESOLVED = 2 };

/* One alert as the page, the log and the notifications see it. */
typedef struct {
    uint64_t id;
    int      rule;
    int      state;                 /* TN_MON_ALERT_* */
    uint64_t since_ms, resolved_ms;
    double   value;
    char     target[160];           /* "n0 -> n1 rail 0 (job tern-1-x)" */
    int      nlabels;               /* what it is about, as labels */
    char     lk[4][16];             /* "jobid", "src", "dst", "rail" */
    char     lv[4][100];
} tn_mon_alert_t;

/* Called on each firing and each resolution (the notifications). */
typedef void (*tn_mon_alert_fn_t)(void *arg, const tn_mon_alert_t *a, const tn_mon_rule_t *r);

typedef struct tn_mon_rules tn_mon_rules_t;

tn_mon_rules_t *tn_mon_rules_new(tn_mon_alert_fn_t cb, void *arg);
void tn_mon_rules_free(tn_mon_rules_t *rs);
/* Change a rule from a line "alertname key=value..." (window, hold,
 * threshold, enabled=0/1).  0, or -1 with a reason. */
int tn_mon_rules_tune(tn_mon_rules_t *rs, const char *line, char *why, size_t whylen);
const tn_mon_rule_t *tn_mon_rules_get(const tn_mon_rules_t *rs, int i);

/* Evaluate every rule on the state (once a second). */
void tn_mon_rules_eval(tn_mon_rules_t *rs, const tn_mon_state_t *s, uint64_t now_ms);

/* The alert log, newest first, as JSON {"alerts":[...]}. */
void tn_mon_rules_json(const tn_mon_rules_t *rs, tn_mon_buf_t *out);
int tn_mon_rules_firing(const tn_mon_rules_t *rs);

/* Prometheus alerting rules (YAML) for the table as tuned. */
void tn_mon_rules_prometheus(const tn_mon_rules_t *rs, tn_mon_buf_t *out);

#endif
