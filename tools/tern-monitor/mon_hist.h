/* tern-monitor serve's history (docs/monitor.md): each second the live
 * state (mon_state.h) writes its series to the database (mon_store.h) —
 * per node the interfaces' byte rates and UDP receive-buffer drops, per
 * running job its byte and message rates, per link and rail its loss
 * ratio and packet rate — keeps the jobs' rows current, and once a job
 * has ended, its final communication matrices.  Alerts are kept as they
 * fire and resolve.  The API reads past jobs, their matrices and any
 * series back from here. */
#ifndef TN_MON_HIST_H
#define TN_MON_HIST_H

#include <stdint.h>
#include "mon_buf.h"
#include "mon_json.h"
#include "mon_rules.h"
#include "mon_state.h"
#include "mon_store.h"

typedef struct {
    tn_mon_store_t *store;          /* NULL: no history */
    uint64_t        epoch_ms;       /* when the server started */
    uint64_t        maintained_ms;
} tn_mon_hist_t;

void tn_mon_hist_tick(tn_mon_hist_t *h, const tn_mon_state_t *s, uint64_t now_ms);
void tn_mon_hist_alert(tn_mon_hist_t *h, const tn_mon_alert_t *a, const tn_mon_rule_t *r);

/* The jobs of the database that are not in memory, as entries of the
 * /api/jobs array j is inside. */
void tn_mon_hist_jobs(tn_mon_hist_t *h, const tn_mon_state_t *s, tn_mon_json_t *j);
/* /api/job of a job only the database knows: its row and final matrix.
 * -1: not there either. */
int tn_mon_hist_job(tn_mon_hist_t *h, const char *id, int cls, int what, tn_mon_buf_t *out);
/* /api/series: {"key":..,"points":[[t,avg,min,max]...]}; -1 for a key
 * that is not one. */
int tn_mon_hist_series(tn_mon_hist_t *h, const char *key, int64_t from_ms, int64_t to_ms,
                       int64_t step_ms, tn_mon_buf_t *out);

#endif
