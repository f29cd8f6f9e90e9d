/* Workloads: jobs placed on the fabric, what their ranks send, and the
 * sources that feed those messages to an engine.
 *
 * A job has ranks 0..n-1 placed on endpoints by a mapping policy, a
 * pattern (who sends to whom) and a message size.  Two kinds of source:
 *  - open loop (sim_open.c): every rank injects messages as a Poisson
 *    (or evenly spaced) process at an offered load, a fraction of its
 *    endpoint link's bandwidth, destinations drawn from the pattern;
 *  - batch (sim_dag.c): a fixed set of messages with dependencies, a
 *    DAG: a node starts when all the nodes it depends on have completed
 *    (a message completes when its last byte is at the destination), plus
 *    its own delay (compute time).  A node is a message (src -> dst
 *    ranks, bytes) or a join (no traffic: a rank waiting for several
 *    things).  The job's time is when its last node completes.  The
 *    synthetic patterns build such DAGs; a trace replay will build them
 *    from per-rank message lists (each message after the earlier ones
 *    plus the compute time between) and feed the same engine.
 * Several jobs share a fabric: each has its own pattern, ranks and
 * mapping, placed in order on the endpoints the earlier ones left. */
#ifndef TN_SIM_WORK_H
#define TN_SIM_WORK_H

#include <stdint.h>

#include "sim_rng.h"
#include "sim_topo.h"

typedef enum {
    TN_SIM_PAT_UNIFORM,   /* each message to a random other rank */
    TN_SIM_PAT_PERM,      /* a fixed random permutation without fixed points */
    TN_SIM_PAT_TORNADO,   /* a fixed shift (sim_pattern.c says which, per fabric) */
    TN_SIM_PAT_INCAST,    /* groups of N+1 ranks: N senders to the group's first rank */
    TN_SIM_PAT_ALLTOALL,  /* batch: pairwise exchange phases; open: round-robin destinations */
    TN_SIM_PAT_HALO,      /* neighbours on a 2-D / 3-D periodic rank grid */
    TN_SIM_PAT_COLL,      /* batch: a collective, iters times (sim_coll_job.c) */
    TN_SIM_PAT_COUNT
} tn_sim_pattern_t;

typedef enum {
    TN_SIM_MAP_LINEAR,     /* the first free endpoints, in id order */
    TN_SIM_MAP_ALT_SWITCH, /* round-robin over switches: one endpoint of each in turn */
    TN_SIM_MAP_ALT_NODE,   /* every other free endpoint (then the skipped ones) */
    TN_SIM_MAP_RANDOM,     /* a seeded random choice of free endpoints */
    TN_SIM_MAP_COUNT
} tn_sim_map_t;

/* A job as configured (sim_conf.c decodes it). */
typedef struct {
    tn_sim_pattern_t pattern;
    tn_sim_map_t map;
    int32_t ranks;       /* 0: every endpoint the earlier jobs left */
    uint64_t size;       /* bytes per message */
    double load;         /* open: offered load, fraction of the endpoint link */
    int32_t count;       /* batch: messages per sending rank (uniform, perm, tornado, incast) */
    int32_t window;      /* batch: of those, how many may be in flight at once */
    int32_t phases;      /* batch all-to-all: phases (0: ranks - 1) */
    int32_t iters;       /* batch halo: iterations */
    int grid_nd;         /* halo: grid dimensions (2, 3) */
    int32_t grid[3];     /* halo: grid sizes (0: chosen from ranks) */
    int32_t incast;      /* incast: senders per receiver (0: ranks - 1) */
    int coll;            /* coll: the kind (tn_sim_ckind_t order, sim_replay_coll.h) */
    int coll_algo;       /* coll: index in tn_sim_coll_algo_names (sim_coll_job.h) */
    int32_t root;        /* coll: the root of a rooted kind */
    double delay;        /* batch: compute time before each dependent step, ns */
    double start;        /* ns */
} tn_sim_job_conf_t;

/* A placed job. */
typedef struct {
    tn_sim_job_conf_t c;
    int32_t n;           /* ranks */
    int32_t *ep;         /* [n] rank -> endpoint */
    int32_t *perm;       /* [n] perm, torus tornado: rank -> destination rank */
    int32_t shift;       /* tornado (1-D), or the torus grid shift below */
    int tor_grid;        /* tornado on the torus grid (c, k_0, k_1, ...) */
    int32_t grid[3];     /* halo grid, resolved */
} tn_sim_job_t;

/* Places njobs jobs on t's endpoints (in order) and resolves what the
 * patterns need; c->ranks == 0 takes what is left.  Fails (why) when the
 * fabric is too small or a pattern cannot apply (a halo grid that does not
 * fit the ranks, ...).  On failure nothing stays allocated. */
tn_sim_status_t tn_sim_jobs_place(const tn_sim_topo_t *t, const tn_sim_job_conf_t *conf, int njobs,
                                  uint64_t seed, tn_sim_job_t *jobs, char *why, size_t whylen);
void tn_sim_jobs_free(tn_sim_job_t *jobs, int njobs);

/* Open-loop destination of a message from rank r (k: the rank's message
 * counter, for round-robin patterns); -1 when r sends nothing (incast's
 * receivers). */
int32_t tn_sim_pattern_dst(const tn_sim_job_t *j, int32_t r, uint64_t k, tn_sim_rng_t *rng);
/* The torus tornado of a whole-fabric rank r (rank = endpoint-in-router +
 * c * router): every coordinate shifted by ceil(k/2) - 1. */
int32_t tn_sim_tornado_torus(const tn_sim_torus_t *tor, int32_t r);
/* Ranks r sends to in one halo iteration (up to 6, duplicates kept: a
 * dimension of size 2 has the same neighbour on both sides, two faces). */
int tn_sim_halo_peers(const tn_sim_job_t *j, int32_t r, int32_t *peers);

const char *tn_sim_pattern_name(tn_sim_pattern_t p);
const char *tn_sim_map_name(tn_sim_map_t m);

#endif
