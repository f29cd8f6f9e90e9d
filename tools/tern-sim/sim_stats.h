/* What the engine measures per job: message completion times and their
 * slowdown against an idle fabric, bytes delivered (integrated from the
 * flows' rates, so a window counts partial messages exactly), throughput
 * over time in bins that double their width when a run outgrows them (a
 * run of any length keeps between bins/2 and bins of them, in the same
 * way every time). */
#ifndef TN_SIM_STATS_H
#define TN_SIM_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "sim_status.h"

typedef struct {
    /* messages */
    uint64_t posted, started, done;      /* all of them */
    uint64_t bytes_posted_win;           /* posted inside the window (offered) */
    double first_post, last_done;        /* batch: the job's span */
    /* per message, for those posted in the window and delivered in it */
    double *fct;                         /* completion time, ns (post -> last byte at dst) */
    double *slow;                        /* fct / (bytes / path bottleneck bw + path latency) */
    size_t n, cap;
    /* bytes */
    double rate;                         /* bytes/ns on the fabric now */
    int64_t active;                      /* flows on the fabric now */
    double bytes_win;                    /* delivered inside the window */
    double *bins;                        /* bytes per bin */
} tn_sim_jstats_t;

typedef struct {
    int njobs;
    tn_sim_jstats_t *job;
    double bin_w;                        /* ns per bin */
    int32_t nbins_max, nbins;            /* bins in use (last one partial) */
    double w0, w1;                       /* measurement window [w0, w1) */
    double t_prev;                       /* integrated up to */
} tn_sim_stats_t;

tn_sim_status_t tn_sim_stats_init(tn_sim_stats_t *s, int njobs, int32_t nbins, double bin_w,
                                  double w0, double w1);
void tn_sim_stats_fini(tn_sim_stats_t *s);
/* Integrates every job's rate from t_prev to t. */
void tn_sim_stats_advance(tn_sim_stats_t *s, double t);
/* Bytes of job delivered at t (>= the time advanced to): the packet
 * engine counts what arrives instead of integrating rates. */
void tn_sim_stats_add(tn_sim_stats_t *s, int job, double t, double bytes);
/* A delivered message's sample (only kept inside the window). */
tn_sim_status_t tn_sim_stats_sample(tn_sim_stats_t *s, int job, double t_post, double t_done,
                                    double ideal);

/* The q-quantile (0..1) of sorted values, nearest rank. */
double tn_sim_quantile(const double *sorted, size_t n, double q);
/* Sorts a copy of v (n values); NULL when out of memory (or n == 0). */
double *tn_sim_sorted(const double *v, size_t n);

#endif
