/* The DAGs of the synthetic batch patterns (sim_dag.h says what each
 * is). */
#include "sim_dag.h"

#include <stdio.h>
#include <stdlib.h>

#define GEN_MAX_NODES (1 << 30)

static tn_sim_status_t gen_count(const tn_sim_job_t *j, uint64_t seed, int jobno, tn_sim_dag_t *g)
{
    int32_t n = j->n, count = j->c.count, win = j->c.window > 0 ? j->c.window : 1;
    tn_sim_rng_t rng;
    tn_sim_rng_seed(&rng, seed ^ tn_sim_mix64(0xda9 + (uint64_t)jobno));
    /* message k of rank r is node base[r] + k; ranks that send nothing
     * (incast receivers) get none */
    for (int32_t r = 0; r < n; r++) {
        int32_t first = -1;
        for (int32_t k = 0; k < count; k++) {
            int32_t d = tn_sim_pattern_dst(j, r, (uint64_t)k, &rng);
            if (d < 0) {
                break;
            }
            int32_t i = tn_sim_dag_node(g, r, d, j->c.size, k >= win ? j->c.delay : 0);
            if (i < 0) {
                return TN_SIM_ERR_NOMEM;
            }
            if (first < 0) {
                first = i;
            }
            if (k >= win) {
                tn_sim_status_t st = tn_sim_dag_edge(g, first + k - win, i);
                if (st != TN_SIM_OK) {
                    return st;
                }
            }
        }
    }
    return TN_SIM_OK;
}

static tn_sim_status_t gen_alltoall(const tn_sim_job_t *j, tn_sim_dag_t *g)
{
    int32_t n = j->n, P = j->c.phases;
    /* node (k, r) = (k - 1) * n + r for phase k = 1 .. P */
    for (int32_t k = 1; k <= P; k++) {
        for (int32_t r = 0; r < n; r++) {
            int32_t i = tn_sim_dag_node(g, r, (int32_t)(((int64_t)r + k) % n), j->c.size,
                                        k > 1 ? j->c.delay : 0);
            if (i < 0) {
                return TN_SIM_ERR_NOMEM;
            }
            if (k > 1) {
                int32_t prev = (k - 2) * n;
                int32_t from = (int32_t)(((int64_t)r - (k - 1) + (int64_t)n * 2) % n);
                tn_sim_status_t st = tn_sim_dag_edge(g, prev + r, i);
                if (st == TN_SIM_OK && from != r) {
                    st = tn_sim_dag_edge(g, prev + from, i);
                }
                if (st != TN_SIM_OK) {
                    return st;
                }
            }
        }
    }
    return TN_SIM_OK;
}

static tn_sim_status_t gen_halo(const tn_sim_job_t *j, tn_sim_dag_t *g)
{
    int32_t n = j->n, peers[6];
    int np = tn_sim_halo_peers(j, 0, peers);
    /* iteration it: rank r's sends are nodes base + r * np + q, then the
     * joins base + n * np + r */
    int64_t per_iter = (int64_t)n * (np + 1);
    for (int32_t it = 0; it < j->c.iters; it++) {
        int64_t base = per_iter * it, prev_join = base - n;
        for (int32_t r = 0; r < n; r++) {
            int m = tn_sim_halo_peers(j, r, peers);
            for (int q = 0; q < m; q++) {
                int32_t i = tn_sim_dag_node(g, r, peers[q], j->c.size, it > 0 ? j->c.delay : 0);
                if (i < 0) {
                    return TN_SIM_ERR_NOMEM;
                }
                if (it > 0) {
                    tn_sim_status_t st = tn_sim_dag_edge(g, (int32_t)(prev_join + r), i);
                    if (st != TN_SIM_OK) {
                        return st;
                    }
                }
            }
        }
        for (int32_t r = 0; r < n; r++) {
            int32_t jn = tn_sim_dag_node(g, r, -1, 0, 0);
            if (jn < 0) {
                return TN_SIM_ERR_NOMEM;
            }
            /* its sends, and what its neighbours send it: the neighbour on
             * the other side of each face sends the same slot q ^ 1 */
            int m = tn_sim_halo_peers(j, r, peers);
            for (int q = 0; q < m; q++) {
                tn_sim_status_t st = tn_sim_dag_edge(g, (int32_t)(base + (int64_t)r * np + q), jn);
                if (st == TN_SIM_OK) {
                    st = tn_sim_dag_edge(g, (int32_t)(base + (int64_t)peers[q] * np + (q ^ 1)), jn);
                }
                if (st != TN_SIM_OK) {
                    return st;
                }
            }
        }
    }
    return TN_SIM_OK;
}

tn_sim_status_t tn_sim_dag_generate(const tn_sim_job_t *j, uint64_t seed, int jobno, tn_sim_dag_t *g,
                                    char *why, size_t whylen)
{
    tn_sim_dag_init(g);
    int64_t nodes;
    int32_t peers[6];
    switch (j->c.pattern) {
    case TN_SIM_PAT_ALLTOALL:
        nodes = (int64_t)j->n * j->c.phases;
        break;
    case TN_SIM_PAT_HALO:
        nodes = (int64_t)j->n * (tn_sim_halo_peers(j, 0, peers) + 1) * j->c.iters;
        break;
    default:
        nodes = (int64_t)j->n * j->c.count;
        break;
    }
    if (nodes > GEN_MAX_NODES) {
        snprintf(why, whylen, "job %d: %lld messages, more than %d", jobno, (long long)nodes,
                 GEN_MAX_NODES);
        return TN_SIM_ERR_LIMIT;
    }
    tn_sim_status_t st;
    switch (j->c.pattern) {
    case TN_SIM_PAT_ALLTOALL:
        st = gen_alltoall(j, g);
        break;
    case TN_SIM_PAT_HALO:
        st = gen_halo(j, g);
        break;
    default:
        st = gen_count(j, seed, jobno, g);
        break;
    }
    if (st == TN_SIM_OK) {
        st = tn_sim_dag_seal(g);
    }
    if (st != TN_SIM_OK) {
        snprintf(why, whylen, "job %d: building its messages: %s", jobno, tn_sim_status_str(st));
        tn_sim_dag_free(g);
    }
    return st;
}
