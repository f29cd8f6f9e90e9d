/* tern-monitor serve's notifications of alerts (docs/monitor.md): each
 * firing and each resolution goes to stderr, to the alert log (JSON lines,
 * --alert-log), to a webhook (--webhook http://...: Alertmanager's webhook
 * payload, with Slack's "text" field) and by e-mail through an SMTP relay
 * (--smtp HOST[:PORT], --mail-from, --mail-to; plain SMTP, no TLS or login:
 * a site's local relay).  Delivery runs in a thread of its own with a
 * bounded queue; a delivery that fails is reported, not retried. */
#ifndef TN_MON_NOTIFY_H
#define TN_MON_NOTIFY_H

#include "mon_rules.h"

typedef struct {
    const char *webhook;
    const char *smtp;
    const char *mail_from, *mail_to;
    const char *alert_log;
} tn_mon_notify_opts_t;

typedef struct tn_mon_notify tn_mon_notify_t;

tn_mon_notify_t *tn_mon_notify_new(const tn_mon_notify_opts_t *o, char *why, size_t whylen);
/* Deliver what is queued, then stop. */
void tn_mon_notify_free(tn_mon_notify_t *nt);
void tn_mon_notify_alert(tn_mon_notify_t *nt, const tn_mon_alert_t *a, const tn_mon_rule_t *r);

#endif
