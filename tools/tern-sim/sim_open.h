/* The open-loop source (sim_open.c). */
#ifndef TN_SIM_OPEN_H
#define TN_SIM_OPEN_H

#include "sim_flow.h"

typedef struct {
    tn_sim_src_t base;
    const tn_sim_job_t *job;
    tn_sim_rng_t rng;
    int fixed;           /* evenly spaced arrivals, not Poisson */
    double t_stop;       /* no arrival at or after */
    double *mean_gap;    /* [ranks] ns between a rank's messages */
    uint64_t *sent;      /* [ranks] messages so far (round-robin patterns) */
} tn_sim_open_src_t;

/* A source for job j (which outlives it) on fabric t. */
tn_sim_status_t tn_sim_open_src_init(tn_sim_open_src_t *s, int jobno, const tn_sim_job_t *j,
                                     const tn_sim_topo_t *t, int fixed, double t_stop, uint64_t seed);
void tn_sim_open_src_fini(tn_sim_open_src_t *s);

#endif
