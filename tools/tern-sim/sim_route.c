/* Routing set-up, the algorithm table and the path walk (sim_route.h). */
#include "sim_route.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const rt_names[TN_SIM_RT_COUNT] = {
    "auto", "dmodk", "ecmp", "adaptive", "minimal", "valiant", "ugal", "ugal-g", "dor", "shortest",
};

const char *tn_sim_route_name(tn_sim_route_alg_t alg)
{
    return (unsigned)alg < TN_SIM_RT_COUNT ? rt_names[alg] : "?";
}

int tn_sim_route_parse(const char *name)
{
    for (int i = 0; i < TN_SIM_RT_COUNT; i++) {
        if (strcmp(name, rt_names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

/* Which algorithms each kind has; the first is its default. */
static int rt_allowed(tn_sim_topo_kind_t kind, tn_sim_route_alg_t alg)
{
    switch (kind) {
    case TN_SIM_TOPO_FATTREE:
        return alg == TN_SIM_RT_DMODK || alg == TN_SIM_RT_ECMP || alg == TN_SIM_RT_ADAPTIVE;
    case TN_SIM_TOPO_DRAGONFLY:
    case TN_SIM_TOPO_MEGAFLY:
        return alg == TN_SIM_RT_MINIMAL || alg == TN_SIM_RT_VALIANT || alg == TN_SIM_RT_UGAL ||
               alg == TN_SIM_RT_UGAL_G;
    case TN_SIM_TOPO_TORUS:
    case TN_SIM_TOPO_MESH:
        return alg == TN_SIM_RT_DOR;
    case TN_SIM_TOPO_GRAPH:
        return alg == TN_SIM_RT_SHORTEST || alg == TN_SIM_RT_ECMP || alg == TN_SIM_RT_ADAPTIVE;
    }
    return 0;
}

static tn_sim_route_alg_t rt_default(tn_sim_topo_kind_t kind)
{
    switch (kind) {
    case TN_SIM_TOPO_FATTREE:
        return TN_SIM_RT_DMODK;
    case TN_SIM_TOPO_DRAGONFLY:
    case TN_SIM_TOPO_MEGAFLY:
        return TN_SIM_RT_MINIMAL;
    case TN_SIM_TOPO_TORUS:
    case TN_SIM_TOPO_MESH:
        return TN_SIM_RT_DOR;
    case TN_SIM_TOPO_GRAPH:
        return TN_SIM_RT_SHORTEST;
    }
    return TN_SIM_RT_AUTO;
}

tn_sim_status_t tn_sim_route_init(tn_sim_router_t *rt, const tn_sim_topo_t *topo,
                                  tn_sim_route_alg_t alg, char *why, size_t whylen)
{
    memset(rt, 0, sizeof(*rt));
    if (alg == TN_SIM_RT_AUTO) {
        alg = rt_default(topo->kind);
    }
    if (!rt_allowed(topo->kind, alg)) {
        snprintf(why, whylen, "routing %s does not apply to a %s", tn_sim_route_name(alg),
                 tn_sim_topo_kind_name(topo->kind));
        return TN_SIM_ERR_INVAL;
    }
    rt->topo = topo;
    rt->alg = alg;
    rt->n_vc = 1;
    switch (topo->kind) {
    case TN_SIM_TOPO_FATTREE:
        rt->ops = &tn_sim_route_fattree_ops;
        rt->max_hops = 2 * topo->ft.n;
        break;
    case TN_SIM_TOPO_DRAGONFLY:
    case TN_SIM_TOPO_MEGAFLY:
        rt->ops = topo->kind == TN_SIM_TOPO_DRAGONFLY ? &tn_sim_route_dfly_ops : &tn_sim_route_mfly_ops;
        rt->n_vc = alg == TN_SIM_RT_MINIMAL ? 2 : 3;
        rt->max_hops = tn_sim_route_dfly_max_hops(rt);
        break;
    case TN_SIM_TOPO_TORUS:
    case TN_SIM_TOPO_MESH:
        rt->ops = &tn_sim_route_torus_ops;
        rt->n_vc = topo->tor.wrap ? 2 : 1;
        rt->max_hops = 2;
        for (int d = 0; d < topo->tor.nd; d++) {
            rt->max_hops += topo->tor.wrap ? topo->tor.k[d] / 2 : topo->tor.k[d] - 1;
        }
        break;
    case TN_SIM_TOPO_GRAPH: {
        rt->ops = &tn_sim_route_table_ops;
        tn_sim_status_t st = tn_sim_route_table_build(rt, why, whylen);
        if (st != TN_SIM_OK) {
            return st;
        }
        rt->max_hops = rt->diameter + 2;
        break;
    }
    }
    return TN_SIM_OK;
}

void tn_sim_route_fini(tn_sim_router_t *rt)
{
    free(rt->dist);
    memset(rt, 0, sizeof(*rt));
}

void tn_sim_route_begin(const tn_sim_router_t *rt, tn_sim_rhdr_t *h, int32_t src, int32_t dst,
                        uint64_t hash, tn_sim_load_fn_t load, void *ctx)
{
    memset(h, 0, sizeof(*h));
    h->src = src;
    h->dst = dst;
    h->inter = -1;
    h->phase = 1;
    h->hash = hash;
    if (rt->ops->begin != NULL && src != dst) {
        rt->ops->begin(rt, h, load, ctx);
    }
}

int tn_sim_route_path(const tn_sim_router_t *rt, tn_sim_rhdr_t *h, tn_sim_load_fn_t load, void *ctx,
                      int32_t *ports, uint8_t *vcs, int max)
{
    const tn_sim_topo_t *t = rt->topo;
    if (h->src == h->dst) {
        return 0;
    }
    if (max < 1) {
        return -1;
    }
    int n = 0;
    ports[n] = h->src;
    if (vcs != NULL) {
        vcs[n] = 0;
    }
    n++;
    int32_t node = t->peer[h->src];
    while (node != h->dst) {
        if (node < t->n_ep || n == max) {
            return -1;  /* delivered to the wrong endpoint, or lost in a loop */
        }
        int32_t p = tn_sim_route_next(rt, node - t->n_ep, h, load, ctx);
        if (p < t->port_off[node] || p >= t->port_off[node + 1] || t->peer[p] < 0) {
            return -1;
        }
        ports[n] = p;
        if (vcs != NULL) {
            vcs[n] = h->vc;
        }
        n++;
        node = t->peer[p];
    }
    return n;
}
