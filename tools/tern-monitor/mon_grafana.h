/* `tern-monitor grafana`: a Grafana dashboard over the metrics /metrics
 * exports (mon_prom.c), from one table of panels, with the alert rules'
 * conditions (mon_rules.h) drawn as thresholds where a panel shows the
 * same quantity.  Import it in Grafana with a Prometheus data source. */
#ifndef TN_MON_GRAFANA_H
#define TN_MON_GRAFANA_H

#include "mon_buf.h"

void tn_mon_grafana(tn_mon_buf_t *out);

#endif
