/* Fat-tree routing (XGFT labels, sim_topo.h): up until the switch whose
 * subtree holds the destination (the nearest common ancestor), then down
 * on the destination's digits.  Only the up port is a choice:
 *  - dmodk: parent b_{i+1} = floor(dst / W_i) mod w_{i+1} (Zahavi's
 *    D-mod-k: destinations spread evenly, a shift permutation on a full
 *    k-ary n-tree meets no contention);
 *  - ecmp: from a hash of the message's random bits and the level;
 *  - adaptive: the least-loaded up port, ties broken from a
 *    hash-chosen start so that equal ports share. */
#include "sim_route.h"

#include "sim_rng.h"

static int32_t ft_next(const tn_sim_router_t *rt, int32_t sw, tn_sim_rhdr_t *h,
                       tn_sim_load_fn_t load, void *ctx)
{
    const tn_sim_ft_t *ft = &rt->topo->ft;
    int i = 1;
    while (sw >= ft->off[i]) {
        i++;
    }
    int64_t idx = sw - ft->off[i - 1];
    int64_t A = idx / ft->W[i];
    h->vc = 0;
    if (A == h->dst / ft->M[i]) {
        /* the destination is below: its digit a_i */
        return tn_sim_sw_port(rt->topo, sw, (int32_t)(h->dst / ft->M[i - 1] % ft->m[i - 1]));
    }
    int32_t mi = ft->m[i - 1], wu = ft->w[i];
    int32_t u;
    switch (rt->alg) {
    case TN_SIM_RT_ECMP:
        u = (int32_t)(tn_sim_mix64(h->hash + (uint64_t)i) % (uint64_t)wu);
        break;
    case TN_SIM_RT_ADAPTIVE: {
        int32_t start = (int32_t)(tn_sim_mix64(h->hash + (uint64_t)i) % (uint64_t)wu);
        double best = 0;
        u = start;
        for (int32_t j = 0; j < wu; j++) {
            int32_t c = (start + j) % wu;
            double q = load(ctx, tn_sim_sw_port(rt->topo, sw, mi + c));
            if (j == 0 || q < best) {
                best = q;
                u = c;
            }
        }
        break;
    }
    default:
        u = (int32_t)(h->dst / ft->W[i] % wu);
        break;
    }
    return tn_sim_sw_port(rt->topo, sw, mi + u);
}

const tn_sim_route_ops_t tn_sim_route_fattree_ops = {
    .name = "fattree",
    .begin = NULL,
    .next = ft_next,
};
