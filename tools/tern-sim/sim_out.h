/* What a run reports (docs/sim.md, "Outputs"): per job the offered and
 * accepted load, the job time, message completion times and slowdowns
 * (mean, p50, p99, p99.9), as text, CSV and SVG.  Everything written is a
 * function of the configuration alone (no wall-clock figure), so a rerun
 * from the written config.txt gives the same files byte for byte. */
#ifndef TN_SIM_OUT_H
#define TN_SIM_OUT_H

#include <stdio.h>

#include "sim_conf.h"
#include "sim_flow.h"

typedef struct {
    double cap;            /* bytes/ns: sum of the ranks' endpoint links */
    double offered;        /* configured offered load (open loop) */
    double offered_meas;   /* bytes posted in the window / (cap * window) */
    double accepted;       /* bytes delivered in the window / (cap * window); batch: over the job time */
    double job_time;       /* batch: last delivery - start, ns */
    uint64_t posted, done;
    size_t n;              /* messages measured */
    double fct_mean, fct_p50, fct_p99, fct_p999, fct_max;
    double sd_mean, sd_p50, sd_p99, sd_p999;
} tn_sim_jres_t;

/* Job j's figures from a finished run (open: window [w0, t_end)). */
tn_sim_status_t tn_sim_result(const tn_sim_eng_t *e, const tn_sim_conf_t *c, int j, tn_sim_jres_t *r);

/* summary.txt's sections: the fabric, then one block per job. */
void tn_sim_out_summary(FILE *f, const tn_sim_conf_t *c, const tn_sim_topo_t *t,
                        const tn_sim_jres_t *r, const char *label);
/* fct.csv, fct_cdf.svg, slowdown_cdf.svg, throughput.csv, throughput.svg
 * in dir; 0 or -1 (why). */
int tn_sim_out_run(const char *dir, const tn_sim_eng_t *e, const tn_sim_conf_t *c,
                   const tn_sim_jres_t *r, char *why, size_t whylen);
/* link_util.csv, link_util_heatmap.svg and (packet level) queue.csv,
 * queue_heatmap.svg in dir when the run kept heatmaps (sim_heat.h);
 * 0 or -1 (why). */
int tn_sim_out_heat(const char *dir, const tn_sim_eng_t *e, char *why, size_t whylen);
/* sweep.csv, sweep_accepted.svg, sweep_latency.svg: r[i * njobs + j] is
 * job j at load c->sweep[i]. */
int tn_sim_out_sweep(const char *dir, const tn_sim_conf_t *c, const tn_sim_jres_t *r, char *why,
                     size_t whylen);

#endif
