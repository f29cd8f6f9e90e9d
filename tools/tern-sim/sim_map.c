/* Placement of jobs on endpoints (sim_work.h): the mapping policies and
 * what each pattern needs resolved once (permutations, shifts, grids). */
#include "sim_work.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tn_sim_map_name(tn_sim_map_t m)
{
    static const char *const names[] = {"linear", "alt-switch", "alt-node", "random"};
    return (unsigned)m < TN_SIM_MAP_COUNT ? names[m] : "?";
}

/* Free endpoints in id order into list; returns how many. */
static int32_t map_free_list(const tn_sim_topo_t *t, const uint8_t *taken, int32_t *list)
{
    int32_t n = 0;
    for (int32_t e = 0; e < t->n_ep; e++) {
        if (!taken[e]) {
            list[n++] = e;
        }
    }
    return n;
}

/* Round-robin over switches: endpoints grouped by switch (stable), then
 * the first free one of each switch, the second of each, ... */
static void map_alt_switch(const tn_sim_topo_t *t, const int32_t *fl, int32_t nf, int32_t n,
                           int32_t *ep, int32_t *scratch)
{
    int32_t *cnt = calloc((size_t)t->n_sw + 1, sizeof(int32_t));
    int32_t *byswitch = scratch;
    for (int32_t i = 0; i < nf; i++) {
        cnt[tn_sim_ep_switch(t, fl[i]) + 1]++;
    }
    for (int32_t s = 0; s < t->n_sw; s++) {
        cnt[s + 1] += cnt[s];
    }
    int32_t *fill = malloc(sizeof(int32_t) * ((size_t)t->n_sw + 1));
    memcpy(fill, cnt, sizeof(int32_t) * ((size_t)t->n_sw + 1));
    for (int32_t i = 0; i < nf; i++) {
        byswitch[fill[tn_sim_ep_switch(t, fl[i])]++] = fl[i];
    }
    int32_t got = 0;
    for (int32_t round = 0; got < n; round++) {
        for (int32_t s = 0; s < t->n_sw && got < n; s++) {
            if (cnt[s + 1] - cnt[s] > round) {
                ep[got++] = byswitch[cnt[s] + round];
            }
        }
    }
    free(cnt);
    free(fill);
}

/* MPI_Dims_create's idea: prime factors, largest first, onto the smallest
 * dimension; sizes come out non-increasing. */
static void map_dims(int32_t n, int nd, int32_t *dims)
{
    for (int d = 0; d < nd; d++) {
        dims[d] = 1;
    }
    int32_t f[32], nf = 0;
    for (int32_t x = n, p = 2; x > 1;) {
        if ((int64_t)p * p > x) {
            f[nf++] = x;
            break;
        }
        if (x % p == 0) {
            f[nf++] = p;
            x /= p;
        } else {
            p++;
        }
    }
    for (int i = nf - 1; i >= 0; i--) {
        int small = 0;
        for (int d = 1; d < nd; d++) {
            if (dims[d] < dims[small]) {
                small = d;
            }
        }
        dims[small] *= f[i];
    }
    /* non-increasing */
    for (int i = 0; i < nd; i++) {
        for (int k = i + 1; k < nd; k++) {
            if (dims[k] > dims[i]) {
                int32_t x = dims[i];
                dims[i] = dims[k];
                dims[k] = x;
            }
        }
    }
}

static tn_sim_status_t map_resolve(const tn_sim_topo_t *t, tn_sim_job_t *j, uint64_t seed, int jobno,
                                   char *why, size_t whylen)
{
    int32_t n = j->n;
    switch (j->c.pattern) {
    case TN_SIM_PAT_PERM: {
        j->perm = malloc(sizeof(int32_t) * (size_t)n);
        if (j->perm == NULL) {
            snprintf(why, whylen, "out of memory");
            return TN_SIM_ERR_NOMEM;
        }
        for (int32_t i = 0; i < n; i++) {
            j->perm[i] = i;
        }
        /* Sattolo: one cycle through all ranks, so nobody sends to itself */
        tn_sim_rng_t r;
        tn_sim_rng_seed(&r, seed ^ tn_sim_mix64(0x9e11 + (uint64_t)jobno));
        for (int32_t i = n - 1; i > 0; i--) {
            int32_t k = (int32_t)tn_sim_rng_below(&r, (uint64_t)i);
            int32_t x = j->perm[i];
            j->perm[i] = j->perm[k];
            j->perm[k] = x;
        }
        break;
    }
    case TN_SIM_PAT_TORNADO:
        if ((t->kind == TN_SIM_TOPO_TORUS || t->kind == TN_SIM_TOPO_MESH) && n == t->n_ep) {
            j->tor_grid = 1;
            j->perm = malloc(sizeof(int32_t) * (size_t)n);
            if (j->perm == NULL) {
                snprintf(why, whylen, "out of memory");
                return TN_SIM_ERR_NOMEM;
            }
            for (int32_t r = 0; r < n; r++) {
                j->perm[r] = tn_sim_tornado_torus(&t->tor, r);
            }
        } else if ((t->kind == TN_SIM_TOPO_DRAGONFLY || t->kind == TN_SIM_TOPO_MEGAFLY) &&
                   n > t->df.a * t->df.p) {
            j->shift = t->df.a * t->df.p;  /* a group's worth: group i -> group i+1 */
        } else {
            j->shift = (n + 1) / 2 - 1 > 1 ? (n + 1) / 2 - 1 : 1;
        }
        break;
    case TN_SIM_PAT_HALO: {
        int nd = j->c.grid_nd;
        int64_t prod = 1;
        if (j->c.grid[0] > 0) {
            for (int d = 0; d < nd; d++) {
                j->grid[d] = j->c.grid[d];
                prod *= j->grid[d];
            }
        } else {
            map_dims(n, nd, j->grid);
            prod = n;
        }
        for (int d = nd; d < 3; d++) {
            j->grid[d] = 1;
        }
        if (prod != n) {
            snprintf(why, whylen, "job %d: halo grid %dx%dx%d does not hold its %d ranks", jobno,
                     j->grid[0], j->grid[1], j->grid[2], n);
            return TN_SIM_ERR_INVAL;
        }
        break;
    }
    case TN_SIM_PAT_INCAST:
        if (j->c.incast == 0) {
            j->c.incast = n - 1;
        }
        if (j->c.incast < 1 || j->c.incast + 1 > n) {
            snprintf(why, whylen, "job %d: incast of %d senders needs more than %d ranks", jobno,
                     j->c.incast, n);
            return TN_SIM_ERR_INVAL;
        }
        break;
    default:
        break;
    }
    if (j->c.pattern == TN_SIM_PAT_ALLTOALL) {
        if (j->c.phases == 0) {
            j->c.phases = n - 1;
        }
        if (j->c.phases > n - 1) {
            snprintf(why, whylen, "job %d: %d all-to-all phases, but %d ranks have %d others", jobno,
                     j->c.phases, n, n - 1);
            return TN_SIM_ERR_INVAL;
        }
    }
    return TN_SIM_OK;
}

tn_sim_status_t tn_sim_jobs_place(const tn_sim_topo_t *t, const tn_sim_job_conf_t *conf, int njobs,
                                  uint64_t seed, tn_sim_job_t *jobs, char *why, size_t whylen)
{
    uint8_t *taken = calloc((size_t)t->n_ep, 1);
    int32_t *fl = malloc(sizeof(int32_t) * (size_t)t->n_ep);
    int32_t *scratch = malloc(sizeof(int32_t) * (size_t)t->n_ep);
    tn_sim_status_t st = TN_SIM_OK;
    memset(jobs, 0, sizeof(*jobs) * (size_t)njobs);
    if (taken == NULL || fl == NULL || scratch == NULL) {
        snprintf(why, whylen, "out of memory");
        st = TN_SIM_ERR_NOMEM;
        goto out;
    }
    for (int jn = 0; jn < njobs && st == TN_SIM_OK; jn++) {
        tn_sim_job_t *j = &jobs[jn];
        j->c = conf[jn];
        int32_t nf = map_free_list(t, taken, fl);
        int32_t n = j->c.ranks > 0 ? j->c.ranks : nf;
        if (n < 2 || n > nf) {
            snprintf(why, whylen, "job %d wants %d ranks, %d endpoints are free (and 2 at least)", jn,
                     n, nf);
            st = TN_SIM_ERR_INVAL;
            break;
        }
        j->n = n;
        j->c.ranks = n;
        j->ep = malloc(sizeof(int32_t) * (size_t)n);
        if (j->ep == NULL) {
            snprintf(why, whylen, "out of memory");
            st = TN_SIM_ERR_NOMEM;
            break;
        }
        switch (j->c.map) {
        case TN_SIM_MAP_ALT_SWITCH:
            map_alt_switch(t, fl, nf, n, j->ep, scratch);
            break;
        case TN_SIM_MAP_ALT_NODE:
            for (int32_t i = 0, got = 0; got < n; i++) {
                int32_t pos = 2 * i < nf ? 2 * i : 2 * (i - (nf + 1) / 2) + 1;
                j->ep[got++] = fl[pos];
            }
            break;
        case TN_SIM_MAP_RANDOM: {
            tn_sim_rng_t r;
            tn_sim_rng_seed(&r, seed ^ tn_sim_mix64(0x3a9 + (uint64_t)jn));
            for (int32_t i = 0; i < n; i++) {
                int32_t k = i + (int32_t)tn_sim_rng_below(&r, (uint64_t)(nf - i));
                int32_t x = fl[i];
                fl[i] = fl[k];
                fl[k] = x;
                j->ep[i] = fl[i];
            }
            break;
        }
        default:
            memcpy(j->ep, fl, sizeof(int32_t) * (size_t)n);
            break;
        }
        for (int32_t i = 0; i < n; i++) {
            taken[j->ep[i]] = 1;
        }
        st = map_resolve(t, j, seed, jn, why, whylen);
    }
out:
    if (st != TN_SIM_OK) {
        tn_sim_jobs_free(jobs, njobs);
    }
    free(taken);
    free(fl);
    free(scratch);
    return st;
}

void tn_sim_jobs_free(tn_sim_job_t *jobs, int njobs)
{
    for (int i = 0; i < njobs; i++) {
        free(jobs[i].ep);
        free(jobs[i].perm);
        jobs[i].ep = jobs[i].perm = NULL;
    }
}
