/* tern-sim's configuration: one table of keys (sim_conf.c) read from a
 * file ("key = value" lines, [job] sections) or from the command line
 * (--key=value, --key value, --job), and written back whole, resolved
 * (defaults and "auto" replaced by what the run used, seed included), so
 * that `tern-sim --config FILE` repeats a run exactly.
 *
 * Both inputs are hostile: every key must be in the table and in the
 * right scope, every value well-formed and inside its range, or the input
 * is refused with where and why (sizes and counts are bounded, so nothing
 * a file says can make tern-sim allocate without limit before the
 * builders' own checks).  Jobs: a run has job 0, not open yet; [job]
 * (or --job) opens job 0 if no job is open, else a new one; a job key
 * applies to the job last opened, and opens job 0 if none is.  So
 * `--pattern a --job --pattern b` and "[job] pattern = a [job] pattern =
 * b" both make two jobs. */
#ifndef TN_SIM_CONF_H
#define TN_SIM_CONF_H

#include <stdint.h>
#include <stdio.h>

#include "sim_route.h"
#include "sim_topo.h"
#include "sim_work.h"

#define TN_SIM_MAX_JOBS  16
#define TN_SIM_MAX_SWEEP 64
#define TN_SIM_PATH_MAX  1024

typedef enum { TN_SIM_MODE_BATCH, TN_SIM_MODE_OPEN } tn_sim_mode_t;

typedef struct {
    /* fabric */
    int topo;                     /* tn_sim_topo_kind_t */
    int32_t k, n, down, up;       /* fat-tree */
    int32_t a, p, h, g, s;        /* dragonfly, megafly */
    int arrange;                  /* tn_sim_df_arrange_t */
    int nd;                       /* torus, mesh */
    int32_t dims[TN_SIM_MAX_DIMS];
    int32_t c;
    char graph[TN_SIM_PATH_MAX];  /* graph file */
    double bw, lat, host_bw, host_lat, global_bw, global_lat;  /* Gbit/s, ns */
    /* run */
    int route;                    /* tn_sim_route_alg_t */
    uint64_t seed;
    int mode;                     /* tn_sim_mode_t */
    double time, warmup;          /* open loop, ns */
    int arrival;                  /* 0 poisson, 1 fixed */
    int nsweep;
    double sweep[TN_SIM_MAX_SWEEP];
    int32_t bins;
    int maxmin;                   /* 0 incremental, 1 from scratch */
    int heatmap;                  /* 0 off, 1 on: link_util and queue heatmaps */
    /* trace replay (sim_replay.h) */
    char replay[TN_SIM_PATH_MAX]; /* a Tern trace directory or a .vef file; "": none */
    int replay_slots;             /* tn_sim_slot_mode_t */
    uint64_t eager;               /* rendezvous above, bytes */
    double shm_lat, shm_bw;       /* intra-node messages: ns, Gbit/s */
    char coll_plan[TN_SIM_PATH_MAX]; /* "auto", "off" or tern-coll-plan's path */
    int32_t coll_plan_max;
    uint64_t coll_plan_ops;
    double coll_op_bw;            /* Gbit/s; 0: reductions free */
    double coll_copy_bw;          /* Gbit/s; 0: local copies free */
    double cpu_o;                /* replay: ns of core time per message end; 0: off */
    int32_t cpu_cores;
    int cpu_share;               /* 0 a traced node, 1 every rank */
    int cpu_charge;              /* 0 time: the work delays its message; 1 wait: only the wait for a core */
    double cpu_fwd;              /* replay: ns of core time per frame per switch-to-switch link crossed */
    double cpu_frame;            /* bytes per frame for cpu_fwd */
    int bcast_mcast;              /* replay: 1: each broadcast one multicast */
    int fidelity;                 /* 0 flow, 1 packet */
    double store_fwd;             /* flow: store-and-forward unit, bytes; 0 cut-through */
    int share;                    /* flow: 0 max-min, 1 first come first served */
    int32_t mtu, hdr, buf;        /* packet: payload and header bytes, buffer per port and VC */
    int cc;                       /* packet: tn_sim_cc_t */
    double ecn_kmin, ecn_kmax, ecn_pmax;  /* packet, dcqcn: marking ramp (bytes, probability) */
    int pfc;                      /* packet: 0 credits, 1 PFC (credits off) */
    double pfc_xoff, pfc_xon;     /* packet, pfc: ingress queue thresholds, bytes */
    /* jobs */
    int njobs, job_open;
    tn_sim_job_conf_t job[TN_SIM_MAX_JOBS];
} tn_sim_conf_t;

/* Every key at its default, one job. */
void tn_sim_conf_defaults(tn_sim_conf_t *c);
/* One key = value (scope checked: a job key goes to the open job). */
tn_sim_status_t tn_sim_conf_set(tn_sim_conf_t *c, const char *key, const char *value, char *why,
                                size_t whylen);
/* "[job]" / --job. */
tn_sim_status_t tn_sim_conf_job(tn_sim_conf_t *c, char *why, size_t whylen);
/* A configuration file's text (len bytes, need not be NUL-terminated);
 * origin names it in messages. */
tn_sim_status_t tn_sim_conf_parse(tn_sim_conf_t *c, const char *text, size_t len, const char *origin,
                                  char *why, size_t whylen);

/* The command line: --config FILE (read through load, applied where it
 * stands), --out DIR (out_p; NULL if absent), --job, --KEY=VALUE,
 * --KEY VALUE.  load returns 0 and a malloc'd text, or -1 with why set. */
typedef int (*tn_sim_read_fn_t)(const char *path, char **text_p, size_t *len_p, char *why,
                                size_t whylen);
tn_sim_status_t tn_sim_conf_args(tn_sim_conf_t *c, int argc, char **argv, tn_sim_read_fn_t load,
                                 const char **out_p, char *why, size_t whylen);

/* The builders' parameters (Gbit/s -> bytes/ns, 0 / -1 -> the switch
 * link's values). */
void tn_sim_conf_topo_params(const tn_sim_conf_t *c, tn_sim_topo_params_t *p);
/* After building and placing: what the run really used goes back into c
 * (groups, spines, routing, ranks, phases, grids, link values). */
void tn_sim_conf_resolve(tn_sim_conf_t *c, const tn_sim_topo_t *t, const tn_sim_router_t *rt,
                         const tn_sim_job_t *jobs);
/* Writes every key (resolved) in the file format; 0 or -1. */
int tn_sim_conf_write(const tn_sim_conf_t *c, FILE *f);
/* Lists the keys with their defaults and help (tern-sim --keys). */
void tn_sim_conf_help(FILE *f);

#endif
