/* Results as text, CSV and SVG (sim_out.h). */
#include "sim_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_svg.h"

#define OUT_CDF_POINTS 1000

tn_sim_status_t tn_sim_result(const tn_sim_eng_t *e, const tn_sim_conf_t *c, int j, tn_sim_jres_t *r)
{
    const tn_sim_job_t *job = &e->jobs[j];
    const tn_sim_jstats_t *js = &e->stats.job[j];
    memset(r, 0, sizeof(*r));
    for (int32_t i = 0; i < job->n; i++) {
        r->cap += e->topo->bw[job->ep[i]];
    }
    r->posted = js->posted;
    r->done = js->done;
    r->n = js->n;
    if (c->mode == TN_SIM_MODE_OPEN) {
        double win = e->conf.t_end - e->conf.w0;
        r->offered = job->c.load;
        r->offered_meas = (double)js->bytes_posted_win / (r->cap * win);
        r->accepted = js->bytes_win / (r->cap * win);
    } else {
        r->job_time = js->done > 0 ? js->last_done - job->c.start : 0;
        r->accepted = r->job_time > 0 ? js->bytes_win / (r->cap * r->job_time) : 0;
    }
    if (js->n == 0) {
        r->fct_mean = r->fct_p50 = r->fct_p99 = r->fct_p999 = r->fct_max = NAN;
        r->sd_mean = r->sd_p50 = r->sd_p99 = r->sd_p999 = NAN;
        return TN_SIM_OK;
    }
    double *f = tn_sim_sorted(js->fct, js->n), *s = tn_sim_sorted(js->slow, js->n);
    if (f == NULL || s == NULL) {
        free(f);
        free(s);
        return TN_SIM_ERR_NOMEM;
    }
    double sf = 0, ss = 0;
    for (size_t i = 0; i < js->n; i++) {
        sf += f[i];
        ss += s[i];
    }
    r->fct_mean = sf / (double)js->n;
    r->sd_mean = ss / (double)js->n;
    r->fct_p50 = tn_sim_quantile(f, js->n, 0.5);
    r->fct_p99 = tn_sim_quantile(f, js->n, 0.99);
    r->fct_p999 = tn_sim_quantile(f, js->n, 0.999);
    r->fct_max = f[js->n - 1];
    r->sd_p50 = tn_sim_quantile(s, js->n, 0.5);
    r->sd_p99 = tn_sim_quantile(s, js->n, 0.99);
    r->sd_p999 = tn_sim_quantile(s, js->n, 0.999);
    free(f);
    free(s);
    return TN_SIM_OK;
}

void tn_sim_out_summary(FILE *f, const tn_sim_conf_t *c, const tn_sim_topo_t *t,
                        const tn_sim_jres_t *r, const char *label)
{
    if (label != NULL) {
        fprintf(f, "[%s]\n", label);
    }
    fprintf(f, "fabric = %s, %d endpoints, %d switches, %d links\n", tn_sim_topo_kind_name(t->kind),
            t->n_ep, t->n_sw, t->n_link);
    for (int j = 0; j < c->njobs; j++) {
        const tn_sim_job_conf_t *jc = &c->job[j];
        const tn_sim_jres_t *x = &r[j];
        fprintf(f, "job %d: %s, %d ranks, %s mapping, %llu-byte messages\n", j,
                tn_sim_pattern_name(jc->pattern), jc->ranks, tn_sim_map_name(jc->map),
                (unsigned long long)jc->size);
        fprintf(f, "  messages posted %llu, delivered %llu, measured %zu\n", (unsigned long long)x->posted,
                (unsigned long long)x->done, x->n);
        if (c->mode == TN_SIM_MODE_OPEN) {
            fprintf(f, "  offered load %.6g (measured %.6g), accepted load %.6g\n", x->offered,
                    x->offered_meas, x->accepted);
        } else {
            fprintf(f, "  job time %.6g ns, achieved load %.6g\n", x->job_time, x->accepted);
        }
        fprintf(f, "  completion time ns: mean %.6g p50 %.6g p99 %.6g p99.9 %.6g max %.6g\n", x->fct_mean,
                x->fct_p50, x->fct_p99, x->fct_p999, x->fct_max);
        fprintf(f, "  slowdown: mean %.6g p50 %.6g p99 %.6g p99.9 %.6g\n", x->sd_mean, x->sd_p50,
                x->sd_p99, x->sd_p999);
    }
}

static FILE *out_open(const char *dir, const char *name, char *path, size_t plen, char *why,
                      size_t whylen)
{
    snprintf(path, plen, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        snprintf(why, whylen, "%s: cannot write", path);
    }
    return f;
}

int tn_sim_out_run(const char *dir, const tn_sim_eng_t *e, const tn_sim_conf_t *c,
                   const tn_sim_jres_t *r, char *why, size_t whylen)
{
    char path[TN_SIM_PATH_MAX + 64], name[64];
    int nj = c->njobs, rc = 0;
    FILE *f = out_open(dir, "fct.csv", path, sizeof(path), why, whylen);
    if (f == NULL) {
        return -1;
    }
    /* CDFs: up to OUT_CDF_POINTS quantiles per job */
    double *cx[TN_SIM_MAX_JOBS] = {0}, *sx[TN_SIM_MAX_JOBS] = {0}, *cy[TN_SIM_MAX_JOBS] = {0};
    size_t cn[TN_SIM_MAX_JOBS] = {0};
    char names[TN_SIM_MAX_JOBS][48];
    fprintf(f, "job,fraction,fct_ns,slowdown\n");
    for (int j = 0; j < nj; j++) {
        const tn_sim_jstats_t *js = &e->stats.job[j];
        snprintf(names[j], sizeof(names[j]), "job %d (%s)", j, tn_sim_pattern_name(c->job[j].pattern));
        if (js->n == 0) {
            continue;
        }
        double *fs = tn_sim_sorted(js->fct, js->n), *ss = tn_sim_sorted(js->slow, js->n);
        size_t np = js->n < OUT_CDF_POINTS ? js->n : OUT_CDF_POINTS;
        cx[j] = malloc(sizeof(double) * np);
        sx[j] = malloc(sizeof(double) * np);
        cy[j] = malloc(sizeof(double) * np);
        if (fs == NULL || ss == NULL || cx[j] == NULL || sx[j] == NULL || cy[j] == NULL) {
            free(fs);
            free(ss);
            rc = -1;
            snprintf(why, whylen, "out of memory");
            break;
        }
        for (size_t i = 0; i < np; i++) {
            double q = (double)(i + 1) / (double)np;
            cx[j][i] = tn_sim_quantile(fs, js->n, q);
            sx[j][i] = tn_sim_quantile(ss, js->n, q);
            cy[j][i] = q;
            fprintf(f, "%d,%.6g,%.9g,%.9g\n", j, q, cx[j][i], sx[j][i]);
        }
        cn[j] = np;
        free(fs);
        free(ss);
    }
    if (fclose(f) != 0 && rc == 0) {
        snprintf(why, whylen, "%s: write failed", path);
        rc = -1;
    }
    tn_sim_series_t ser[TN_SIM_MAX_JOBS];
    if (rc == 0) {
        for (int j = 0; j < nj; j++) {
            ser[j] = (tn_sim_series_t){names[j], cx[j], cy[j], cn[j]};
        }
        snprintf(path, sizeof(path), "%s/fct_cdf.svg", dir);
        rc |= tn_sim_svg_plot(path, "Message completion time CDF", "completion time (ns)",
                              "fraction of messages", ser, nj, 1);
        for (int j = 0; j < nj; j++) {
            ser[j] = (tn_sim_series_t){names[j], sx[j], cy[j], cn[j]};
        }
        snprintf(path, sizeof(path), "%s/slowdown_cdf.svg", dir);
        rc |= tn_sim_svg_plot(path, "Slowdown against an idle fabric (CDF)", "slowdown",
                              "fraction of messages", ser, nj, 1);
        if (rc != 0) {
            snprintf(why, whylen, "%s: cannot write", path);
        }
    }
    for (int j = 0; j < nj; j++) {
        free(cx[j]);
        free(sx[j]);
        free(cy[j]);
    }
    if (rc != 0) {
        return -1;
    }
    /* throughput over time, as load (fraction of the job's endpoint links) */
    const tn_sim_stats_t *st = &e->stats;
    f = out_open(dir, "throughput.csv", path, sizeof(path), why, whylen);
    if (f == NULL) {
        return -1;
    }
    fprintf(f, "t_ns,bin_ns");
    for (int j = 0; j < nj; j++) {
        fprintf(f, ",job%d_load,job%d_GBps", j, j);
    }
    fprintf(f, "\n");
    int32_t nb = st->nbins;
    double *tx = malloc(sizeof(double) * (size_t)nb + 1), *ty[TN_SIM_MAX_JOBS] = {0};
    for (int j = 0; j < nj && tx != NULL; j++) {
        ty[j] = malloc(sizeof(double) * (size_t)nb + 1);
    }
    for (int32_t b = 0; b < nb && tx != NULL; b++) {
        tx[b] = (b + 0.5) * st->bin_w;
        fprintf(f, "%.9g,%.9g", b * st->bin_w, st->bin_w);
        for (int j = 0; j < nj; j++) {
            double bytes = st->job[j].bins[b];
            double load = bytes / (r[j].cap * st->bin_w);
            if (ty[j] != NULL) {
                ty[j][b] = load;
            }
            fprintf(f, ",%.6g,%.6g", load, bytes / st->bin_w);
        }
        fprintf(f, "\n");
    }
    if (fclose(f) != 0) {
        rc = -1;
    }
    for (int j = 0; j < nj; j++) {
        ser[j] = (tn_sim_series_t){names[j], tx, ty[j], ty[j] != NULL ? (size_t)nb : 0};
    }
    snprintf(name, sizeof(name), "throughput.svg");
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (tx == NULL || tn_sim_svg_plot(path, "Delivered load over time", "time (ns)",
                                      "load (fraction of the job's endpoint links)", ser, nj, 0) != 0) {
        rc = -1;
    }
    free(tx);
    for (int j = 0; j < nj; j++) {
        free(ty[j]);
    }
    if (rc != 0) {
        snprintf(why, whylen, "%s: cannot write", path);
    }
    return rc;
}

int tn_sim_out_sweep(const char *dir, const tn_sim_conf_t *c, const tn_sim_jres_t *r, char *why,
                     size_t whylen)
{
    char path[TN_SIM_PATH_MAX + 64];
    int nj = c->njobs, ns = c->nsweep, rc = 0;
    FILE *f = out_open(dir, "sweep.csv", path, sizeof(path), why, whylen);
    if (f == NULL) {
        return -1;
    }
    fprintf(f, "offered,job,offered_measured,accepted,fct_mean_ns,fct_p50_ns,fct_p99_ns,fct_p999_ns,"
               "slowdown_p50,slowdown_p99\n");
    double x[TN_SIM_MAX_SWEEP], acc[TN_SIM_MAX_JOBS][TN_SIM_MAX_SWEEP];
    double p50[TN_SIM_MAX_JOBS][TN_SIM_MAX_SWEEP], p99[TN_SIM_MAX_JOBS][TN_SIM_MAX_SWEEP];
    for (int i = 0; i < ns; i++) {
        x[i] = c->sweep[i];
        for (int j = 0; j < nj; j++) {
            const tn_sim_jres_t *q = &r[i * nj + j];
            fprintf(f, "%.6g,%d,%.6g,%.6g,%.9g,%.9g,%.9g,%.9g,%.6g,%.6g\n", c->sweep[i], j, q->offered_meas,
                    q->accepted, q->fct_mean, q->fct_p50, q->fct_p99, q->fct_p999, q->sd_p50, q->sd_p99);
            acc[j][i] = q->accepted;
            p50[j][i] = q->fct_p50;
            p99[j][i] = q->fct_p99;
        }
    }
    if (fclose(f) != 0) {
        rc = -1;
    }
    char names[2 * TN_SIM_MAX_JOBS][48];
    tn_sim_series_t ser[2 * TN_SIM_MAX_JOBS + 1];
    for (int j = 0; j < nj; j++) {
        snprintf(names[j], sizeof(names[j]), "job %d (%s)", j, tn_sim_pattern_name(c->job[j].pattern));
        ser[j] = (tn_sim_series_t){names[j], x, acc[j], (size_t)ns};
    }
    ser[nj] = (tn_sim_series_t){"offered = accepted", x, x, (size_t)ns};
    snprintf(path, sizeof(path), "%s/sweep_accepted.svg", dir);
    rc |= tn_sim_svg_plot(path, "Accepted versus offered load", "offered load", "accepted load", ser,
                          nj + 1, 0);
    for (int j = 0; j < nj; j++) {
        snprintf(names[2 * j], sizeof(names[0]), "job %d p50", j);
        snprintf(names[2 * j + 1], sizeof(names[0]), "job %d p99", j);
        ser[2 * j] = (tn_sim_series_t){names[2 * j], x, p50[j], (size_t)ns};
        ser[2 * j + 1] = (tn_sim_series_t){names[2 * j + 1], x, p99[j], (size_t)ns};
    }
    snprintf(path, sizeof(path), "%s/sweep_latency.svg", dir);
    rc |= tn_sim_svg_plot(path, "Message completion time versus offered load", "offered load",
                          "completion time (ns)", ser, 2 * nj, 0);
    if (rc != 0) {
        snprintf(why, whylen, "%s: cannot write", path);
    }
    return rc;
}
