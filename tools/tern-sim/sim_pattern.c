/* Who sends to whom (sim_work.h).
 * tornado: on a torus or mesh job that covers the whole fabric, each
 *   rank's router coordinates are shifted by ceil(k/2) - 1 in every
 *   dimension (the farthest shift with a single shortest way round, the
 *   classic adversary of dimension-order routing), the endpoint within the
 *   router kept; on a dragonfly or megafly, a shift by one group's
 *   endpoints (a*p ranks): with the linear mapping every endpoint of group
 *   i sends to group i+1, the classic adversary of minimal routing; on
 *   anything else (and jobs smaller than the fabric), a shift by
 *   ceil(n/2) - 1 ranks.  Rank numbers are what the mapping makes of them:
 *   another mapping shifts ranks, not endpoints. */
#include "sim_work.h"

const char *tn_sim_pattern_name(tn_sim_pattern_t p)
{
    static const char *const names[] = {"uniform", "perm", "tornado", "incast", "alltoall", "halo", "coll"};
    return (unsigned)p < TN_SIM_PAT_COUNT ? names[p] : "?";
}

int tn_sim_halo_peers(const tn_sim_job_t *j, int32_t r, int32_t *peers)
{
    int32_t x[3] = {r % j->grid[0], r / j->grid[0] % j->grid[1], r / (j->grid[0] * j->grid[1])};
    int32_t stride[3] = {1, j->grid[0], j->grid[0] * j->grid[1]};
    int n = 0;
    for (int d = 0; d < 3; d++) {
        int32_t k = j->grid[d];
        if (k < 2) {
            continue;
        }
        peers[n++] = r + ((x[d] + 1) % k - x[d]) * stride[d];
        peers[n++] = r + ((x[d] + k - 1) % k - x[d]) * stride[d];
    }
    return n;
}

int32_t tn_sim_tornado_torus(const tn_sim_torus_t *tor, int32_t r)
{
    int32_t e = r % tor->c, router = r / tor->c, out = 0;
    for (int d = tor->nd - 1; d >= 0; d--) {
        int32_t k = tor->k[d];
        int32_t x = (int32_t)(router / tor->stride[d] % k);
        out = out * k + (x + (k + 1) / 2 - 1) % k;
    }
    return e + tor->c * out;
}

int32_t tn_sim_pattern_dst(const tn_sim_job_t *j, int32_t r, uint64_t k, tn_sim_rng_t *rng)
{
    int32_t n = j->n;
    switch (j->c.pattern) {
    case TN_SIM_PAT_UNIFORM: {
        int32_t d = (int32_t)tn_sim_rng_below(rng, (uint64_t)(n - 1));
        return d >= r ? d + 1 : d;
    }
    case TN_SIM_PAT_PERM:
        return j->perm[r];
    case TN_SIM_PAT_TORNADO:
        /* the torus grid form is resolved into perm by sim_map.c */
        return j->perm != NULL ? j->perm[r] : (r + j->shift) % n;
    case TN_SIM_PAT_INCAST: {
        int32_t gsz = j->c.incast + 1, g = r / gsz;
        if (r % gsz == 0 || (int64_t)(g + 1) * gsz > n) {
            return -1;
        }
        return g * gsz;
    }
    case TN_SIM_PAT_ALLTOALL:
        return (int32_t)((r + 1 + (int64_t)(k % (uint64_t)(n - 1))) % n);
    case TN_SIM_PAT_HALO: {
        int32_t peers[6];
        int np = tn_sim_halo_peers(j, r, peers);
        return np > 0 ? peers[k % (uint64_t)np] : -1;
    }
    default:
        return -1;
    }
}
