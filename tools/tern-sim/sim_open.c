/* The open-loop source (sim_work.h): every sending rank injects messages
 * of the job's size at the offered load, a fraction of its endpoint
 * link's bandwidth: mean gap = size / (load * bw).  Poisson arrivals
 * (exponential gaps) or evenly spaced ones (each rank starting at a
 * random phase of its gap, so that ranks do not fire together).  A rank
 * that the pattern gives no destination (incast's receivers) sends
 * nothing.  Arrivals stop at the end of the run. */
#include "sim_open.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double open_gap(tn_sim_open_src_t *s, int32_t r)
{
    double mean = s->mean_gap[r];
    return s->fixed ? mean : -log(tn_sim_rng_unit(&s->rng)) * mean;
}

static tn_sim_status_t open_start(tn_sim_src_t *src, tn_sim_eng_t *e)
{
    tn_sim_open_src_t *s = (tn_sim_open_src_t *)src;
    const tn_sim_job_t *j = s->job;
    for (int32_t r = 0; r < j->n; r++) {
        if (s->mean_gap[r] <= 0 || tn_sim_pattern_dst(j, r, 0, &s->rng) < 0) {
            continue;
        }
        double t0 = j->c.start + (s->fixed ? tn_sim_rng_unit(&s->rng) * s->mean_gap[r] : open_gap(s, r));
        if (t0 < s->t_stop) {
            tn_sim_status_t st = tn_sim_eng_timer(e, t0, src->job, r);
            if (st != TN_SIM_OK) {
                return st;
            }
        }
    }
    return TN_SIM_OK;
}

static tn_sim_status_t open_timer(tn_sim_src_t *src, tn_sim_eng_t *e, int32_t r, double t)
{
    tn_sim_open_src_t *s = (tn_sim_open_src_t *)src;
    const tn_sim_job_t *j = s->job;
    int32_t d = tn_sim_pattern_dst(j, r, s->sent[r]++, &s->rng);
    tn_sim_status_t st = tn_sim_eng_post(e, t, src->job, j->ep[r], j->ep[d], j->c.size, r);
    double next = t + open_gap(s, r);
    if (st == TN_SIM_OK && next < s->t_stop) {
        st = tn_sim_eng_timer(e, next, src->job, r);
    }
    return st;
}

static const tn_sim_src_ops_t open_ops = {
    .start = open_start,
    .timer = open_timer,
    .delivered = NULL,
};

tn_sim_status_t tn_sim_open_src_init(tn_sim_open_src_t *s, int jobno, const tn_sim_job_t *j,
                                     const tn_sim_topo_t *t, int fixed, double t_stop, uint64_t seed)
{
    memset(s, 0, sizeof(*s));
    s->base.ops = &open_ops;
    s->base.job = jobno;
    s->job = j;
    s->fixed = fixed;
    s->t_stop = t_stop;
    tn_sim_rng_seed(&s->rng, seed ^ tn_sim_mix64(0x09e + (uint64_t)jobno));
    s->mean_gap = malloc(sizeof(double) * (size_t)j->n);
    s->sent = calloc((size_t)j->n, sizeof(uint64_t));
    if (s->mean_gap == NULL || s->sent == NULL) {
        tn_sim_open_src_fini(s);
        return TN_SIM_ERR_NOMEM;
    }
    for (int32_t r = 0; r < j->n; r++) {
        double bw = t->bw[j->ep[r]];
        s->mean_gap[r] = j->c.load > 0 ? (double)j->c.size / (j->c.load * bw) : 0;
    }
    return TN_SIM_OK;
}

void tn_sim_open_src_fini(tn_sim_open_src_t *s)
{
    free(s->mean_gap);
    free(s->sent);
    s->mean_gap = NULL;
    s->sent = NULL;
}
