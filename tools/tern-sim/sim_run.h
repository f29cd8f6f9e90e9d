/* A whole simulation from a decoded configuration: the fabric, the
 * router, the jobs placed, their sources, the engine; what tern-sim's
 * main and the validation tests both drive. */
#ifndef TN_SIM_RUN_H
#define TN_SIM_RUN_H

#include "sim_conf.h"
#include "sim_dag.h"
#include "sim_flow.h"
#include "sim_open.h"
#include "sim_out.h"
#include "sim_replay.h"

typedef struct {
    tn_sim_topo_t topo;
    tn_sim_router_t rt;
    int njobs;
    tn_sim_job_t jobs[TN_SIM_MAX_JOBS];
    /* one run's */
    tn_sim_dag_t dag[TN_SIM_MAX_JOBS];
    tn_sim_dag_src_t dsrc[TN_SIM_MAX_JOBS];
    tn_sim_open_src_t osrc[TN_SIM_MAX_JOBS];
    tn_sim_src_t *src[TN_SIM_MAX_JOBS];
    tn_sim_eng_t eng;
    int have_eng;
    tn_sim_pkt_t pkt;
    int have_pkt;
    tn_sim_jres_t res[TN_SIM_MAX_JOBS];
    /* a trace replay: job 0 runs this program instead of its pattern
     * (set by the caller, owned by it; its t_done is filled by a run) */
    tn_sim_prog_t *prog;
} tn_sim_run_t;

/* Builds the fabric and router and places the jobs; c is resolved (what
 * the run uses goes back into it).  graph_text: a graph file's bytes
 * when c->topo is graph. */
tn_sim_status_t tn_sim_setup(tn_sim_run_t *r, tn_sim_conf_t *c, const char *graph_text, size_t glen,
                             char *why, size_t whylen);
/* One run; load >= 0 replaces every job's offered load (a sweep's point).
 * r->res holds the figures, r->eng stays for the outputs until
 * tn_sim_run_clear. */
tn_sim_status_t tn_sim_run_once(tn_sim_run_t *r, const tn_sim_conf_t *c, double load, char *why,
                                size_t whylen);
void tn_sim_run_clear(tn_sim_run_t *r);
/* The replay parameters of a configuration. */
void tn_sim_replay_conf(const tn_sim_conf_t *c, tn_sim_replay_conf_t *rc);
void tn_sim_teardown(tn_sim_run_t *r);

#endif
