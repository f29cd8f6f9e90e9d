/* Dragonfly and megafly routing (port layouts in sim_topo.h).
 *
 * Minimal: inside the group to the router (spine) that owns a global link
 * to the destination group, across it, then to the destination's router
 * (leaf).  Between a pair of groups with several cables, the message's
 * random bits pick one.  Megafly: a leaf reaches any spine in one hop; a
 * spine that does not own the link it needs goes down to a leaf (picked
 * by the random bits) and up again.
 * Valiant: minimal to a random intermediate group (not the source's, not
 * the destination's), then minimal to the destination.  Traffic inside
 * one group stays minimal.
 * UGAL: at the source, the minimal path and one Valiant path (its
 * intermediate group drawn as Valiant draws it) are compared by
 * (load + 1) * hops, the load being that of the path's first port out of
 * the source's router (UGAL-L: what a router sees of its own queues), or
 * for UGAL-G the highest load on the path (global knowledge); ties go
 * minimal.  "+1" counts the message itself, so an idle fabric routes
 * minimally.  Hops are the ports on the path, host ports included. */
#include "sim_route.h"

#include "sim_rng.h"

/* The global port of group G towards group T (G != T): among the cables
 * of the pair, the one the random bits pick. */
static int32_t df_pick(const tn_sim_df_t *df, int32_t G, int32_t T, uint64_t hash)
{
    int32_t one;
    int n = tn_sim_df_gports(df, G, T, &one, 1);
    if (n <= 1) {
        return n == 1 ? one : -1;
    }
    int32_t g1 = df->g - 1;
    int32_t o = df->arrange == TN_SIM_DF_ABSOLUTE ? (T < G ? T : T - 1) : (T - G - 1 + df->g) % df->g;
    /* valid copies are a prefix (both ends grow with the copy number) */
    return o + (int32_t)(tn_sim_mix64(hash ^ (0x9e37u * (uint64_t)(G + 1))) % (uint64_t)n) * g1;
}

static int32_t df_next(const tn_sim_router_t *rt, int32_t sw, tn_sim_rhdr_t *h,
                       tn_sim_load_fn_t load, void *ctx)
{
    const tn_sim_topo_t *t = rt->topo;
    const tn_sim_df_t *df = &t->df;
    int32_t a = df->a, p = df->p;
    int32_t G = sw / a, r = sw % a;
    int32_t Rd = h->dst / p, Gd = Rd / a, rd = Rd % a;
    (void)load;
    (void)ctx;
    if (h->phase == 0 && G == h->inter) {
        h->phase = 1;
    }
    int32_t T = h->phase == 0 ? h->inter : Gd;
    h->vc = h->ghops;
    if (G == T) {
        if (r == rd) {
            return tn_sim_sw_port(t, sw, h->dst % p);
        }
        return tn_sim_sw_port(t, sw, p + (rd < r ? rd : rd - 1));
    }
    int32_t gp = df_pick(df, G, T, h->hash);
    int32_t owner = gp / df->h;
    if (owner == r) {
        h->ghops++;
        return tn_sim_sw_port(t, sw, p + a - 1 + gp % df->h);
    }
    return tn_sim_sw_port(t, sw, p + (owner < r ? owner : owner - 1));
}

static int32_t mf_next(const tn_sim_router_t *rt, int32_t sw, tn_sim_rhdr_t *h,
                       tn_sim_load_fn_t load, void *ctx)
{
    const tn_sim_topo_t *t = rt->topo;
    const tn_sim_df_t *df = &t->df;
    int32_t a = df->a, p = df->p, s = df->s, pg = df->per_group;
    int32_t G = sw / pg, r = sw % pg;
    int32_t Ld = h->dst / p, Gd = Ld / a, ld = Ld % a;
    (void)load;
    (void)ctx;
    if (h->phase == 0 && G == h->inter) {
        h->phase = 1;
    }
    int32_t T = h->phase == 0 ? h->inter : Gd;
    h->vc = h->ghops;
    if (r < a) {  /* leaf */
        if (G == T) {
            if (r == ld) {
                return tn_sim_sw_port(t, sw, h->dst % p);
            }
            return tn_sim_sw_port(t, sw, p + (int32_t)(tn_sim_mix64(h->hash ^ 0x51u) % (uint64_t)s));
        }
        return tn_sim_sw_port(t, sw, p + df_pick(df, G, T, h->hash) / df->h);
    }
    int32_t j = r - a;  /* spine */
    if (G == T) {
        return tn_sim_sw_port(t, sw, ld);
    }
    int32_t gp = df_pick(df, G, T, h->hash);
    if (gp / df->h == j) {
        h->ghops++;
        return tn_sim_sw_port(t, sw, a + gp % df->h);
    }
    return tn_sim_sw_port(t, sw, (int32_t)(tn_sim_mix64(h->hash ^ 0xa7u) % (uint64_t)a));
}

static int32_t df_group_of(const tn_sim_topo_t *t, int32_t ep)
{
    return ep / (t->df.a * t->df.p);
}

/* UGAL's cost of the path h would take. */
static double df_cost(const tn_sim_router_t *rt, const tn_sim_rhdr_t *h0, tn_sim_load_fn_t load,
                      void *ctx)
{
    tn_sim_rhdr_t h = *h0;
    int32_t ports[16];
    int n = tn_sim_route_path(rt, &h, load, ctx, ports, NULL, 16);
    if (n < 2) {
        return 1e300;
    }
    double q = 0;
    if (rt->alg == TN_SIM_RT_UGAL_G) {
        for (int i = 1; i < n; i++) {
            double l = load(ctx, ports[i]);
            q = l > q ? l : q;
        }
    } else {
        q = load(ctx, ports[1]);
    }
    return (q + 1) * n;
}

static void df_begin(const tn_sim_router_t *rt, tn_sim_rhdr_t *h, tn_sim_load_fn_t load, void *ctx)
{
    const tn_sim_topo_t *t = rt->topo;
    int32_t Gs = df_group_of(t, h->src), Gd = df_group_of(t, h->dst), g = t->df.g;
    if (rt->alg == TN_SIM_RT_MINIMAL || Gs == Gd || g < 3) {
        return;
    }
    /* a group other than Gs and Gd, uniformly */
    int32_t lo = Gs < Gd ? Gs : Gd, hi = Gs < Gd ? Gd : Gs;
    int32_t inter = (int32_t)(tn_sim_mix64(h->hash ^ 0x3cu) % (uint64_t)(g - 2));
    inter += inter >= lo;
    inter += inter >= hi;
    if (rt->alg == TN_SIM_RT_VALIANT) {
        h->inter = inter;
        h->phase = 0;
        return;
    }
    tn_sim_rhdr_t hn = *h;
    hn.inter = inter;
    hn.phase = 0;
    if (df_cost(rt, &hn, load, ctx) < df_cost(rt, h, load, ctx)) {
        h->inter = inter;
        h->phase = 0;
        h->nonmin = 1;
    }
}

int tn_sim_route_dfly_max_hops(const tn_sim_router_t *rt)
{
    int mega = rt->topo->kind == TN_SIM_TOPO_MEGAFLY;
    return rt->alg == TN_SIM_RT_MINIMAL ? 5 : mega ? 8 : 7;
}

const tn_sim_route_ops_t tn_sim_route_dfly_ops = {
    .name = "dragonfly",
    .begin = df_begin,
    .next = df_next,
};

const tn_sim_route_ops_t tn_sim_route_mfly_ops = {
    .name = "megafly",
    .begin = df_begin,
    .next = mf_next,
};
