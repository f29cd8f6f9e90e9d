/* Dragonfly and megafly (dragonfly+) builders, and the global-link
 * arrangements they share (sim_topo.h).
 *
 * Group G has gpg global ports; with g groups each group has g-1 others,
 * so port gp talks to "other" o = gp % (g-1) in its copy c = gp / (g-1)
 * (copies exist when gpg > g-1: several cables between a pair).
 *  absolute: other o is group o, skipping G (o < G ? o : o+1); the peer
 *            port is c*(g-1) + (G < G2 ? G : G-1).
 *  relative: other o is group G + o + 1 (mod g); the peer port is
 *            c*(g-1) + (g-2-o), the same offset backwards.
 * A cable exists when both ends are below gpg; g <= gpg + 1 so every pair
 * of groups has at least one. */
#include "sim_topo.h"

#include <stdio.h>
#include <stdlib.h>

int tn_sim_df_gpeer(const tn_sim_df_t *df, int32_t G, int32_t gp, int32_t *G2_p, int32_t *gp2_p)
{
    int32_t g1 = df->g - 1;
    if (g1 < 1 || gp < 0 || gp >= df->gpg) {
        return -1;
    }
    int32_t o = gp % g1, c = gp / g1, G2, o2;
    if (df->arrange == TN_SIM_DF_ABSOLUTE) {
        G2 = o < G ? o : o + 1;
        o2 = G < G2 ? G : G - 1;
    } else {
        G2 = (G + o + 1) % df->g;
        o2 = g1 - 1 - o;
    }
    int32_t gp2 = c * g1 + o2;
    if (gp2 >= df->gpg) {
        return -1;
    }
    *G2_p = G2;
    *gp2_p = gp2;
    return 0;
}

int tn_sim_df_gports(const tn_sim_df_t *df, int32_t G, int32_t G2, int32_t *gps, int max)
{
    int32_t g1 = df->g - 1;
    if (g1 < 1 || G == G2) {
        return 0;
    }
    int32_t o = df->arrange == TN_SIM_DF_ABSOLUTE ? (G2 < G ? G2 : G2 - 1)
                                                  : (G2 - G - 1 + df->g) % df->g;
    int n = 0;
    for (int32_t gp = o; gp < df->gpg; gp += g1) {
        int32_t x, y;
        if (tn_sim_df_gpeer(df, G, gp, &x, &y) == 0) {
            if (n < max) {
                gps[n] = gp;
            }
            n++;
        }
    }
    return n;
}

/* Checks shared by both kinds; fills df. */
static tn_sim_status_t df_check(tn_sim_df_t *df, int32_t a, int32_t p, int32_t h, int32_t g,
                                int32_t s, tn_sim_df_arrange_t arrange, char *why, size_t whylen)
{
    int32_t owners = s > 0 ? s : a;
    if (a < 1 || a > 4096 || p < 1 || p > 4096 || h < 0 || h > 4096 || s < 0 || s > 4096) {
        snprintf(why, whylen, "dragonfly: want a, p in 1..4096, h, s in 0..4096");
        return TN_SIM_ERR_INVAL;
    }
    int64_t gpg = (int64_t)owners * h;
    if (g == 0) {
        g = (int32_t)(gpg + 1 < TN_SIM_MAX_EP ? gpg + 1 : TN_SIM_MAX_EP);
    }
    if (g < 1 || g - 1 > gpg) {
        snprintf(why, whylen, "dragonfly: %d groups but %lld global ports per group (want g <= %lld)",
                 g, (long long)gpg, (long long)gpg + 1);
        return TN_SIM_ERR_INVAL;
    }
    int64_t eps = (int64_t)g * a * p, sws = (int64_t)g * (a + (s > 0 ? s : 0));
    if (eps > TN_SIM_MAX_EP || sws > TN_SIM_MAX_EP) {
        snprintf(why, whylen, "dragonfly: %lld endpoints, more than %d", (long long)eps,
                 TN_SIM_MAX_EP);
        return TN_SIM_ERR_LIMIT;
    }
    df->a = a;
    df->p = p;
    df->h = h;
    df->g = g;
    df->s = s;
    df->gpg = (int32_t)gpg;
    df->per_group = a + s;
    df->arrange = arrange;
    return TN_SIM_OK;
}

/* Cable every global port of every group to its peer (each cable once:
 * from the lower (G, gp)). */
static tn_sim_status_t df_wire_global(tn_sim_topo_t *t, const tn_sim_df_t *df, int32_t first_port,
                                      int32_t owner_off)
{
    for (int32_t G = 0; G < df->g; G++) {
        for (int32_t gp = 0; gp < df->gpg; gp++) {
            int32_t G2, gp2;
            if (tn_sim_df_gpeer(df, G, gp, &G2, &gp2) != 0) {
                continue;
            }
            if ((int64_t)G2 * df->gpg + gp2 < (int64_t)G * df->gpg + gp) {
                continue;
            }
            int32_t sa = G * df->per_group + owner_off + gp / df->h;
            int32_t sb = G2 * df->per_group + owner_off + gp2 / df->h;
            tn_sim_status_t st = tn_sim_topo_connect(
                t, tn_sim_sw_port(t, sa, first_port + gp % df->h),
                tn_sim_sw_port(t, sb, first_port + gp2 % df->h), t->link.bw_global,
                t->link.lat_global, TN_SIM_PORT_GLOBAL, TN_SIM_PORT_GLOBAL);
            if (st != TN_SIM_OK) {
                return st;
            }
        }
    }
    return TN_SIM_OK;
}

tn_sim_status_t tn_sim_topo_dragonfly(tn_sim_topo_t *t, const tn_sim_topo_params_t *prm, char *why,
                                      size_t whylen)
{
    tn_sim_df_t df;
    tn_sim_status_t st = df_check(&df, prm->df_a, prm->df_p, prm->df_h, prm->df_g, 0,
                                  prm->df_arrange, why, whylen);
    if (st != TN_SIM_OK) {
        return st;
    }
    int32_t a = df.a, p = df.p, h = df.h, deg = p + (a - 1) + h;
    st = tn_sim_topo_alloc(t, TN_SIM_TOPO_DRAGONFLY, (int64_t)df.g * a * p, (int64_t)df.g * a, NULL,
                           deg, why, whylen);
    if (st != TN_SIM_OK) {
        return st;
    }
    t->df = df;
    t->link = prm->link;
    const tn_sim_linkp_t *lk = &prm->link;
    for (int32_t e = 0; e < t->n_ep && st == TN_SIM_OK; e++) {
        st = tn_sim_topo_connect(t, e, tn_sim_sw_port(t, e / p, e % p), lk->bw_host, lk->lat_host,
                                 TN_SIM_PORT_HOST, TN_SIM_PORT_HOST);
    }
    for (int32_t G = 0; G < df.g && st == TN_SIM_OK; G++) {
        for (int32_t r = 0; r < a && st == TN_SIM_OK; r++) {
            for (int32_t q = r + 1; q < a && st == TN_SIM_OK; q++) {
                /* router r's port to q is p + q - 1; q's port to r is p + r */
                st = tn_sim_topo_connect(t, tn_sim_sw_port(t, G * a + r, p + q - 1),
                                         tn_sim_sw_port(t, G * a + q, p + r), lk->bw, lk->lat,
                                         TN_SIM_PORT_LOCAL, TN_SIM_PORT_LOCAL);
            }
        }
    }
    if (st == TN_SIM_OK) {
        st = df_wire_global(t, &df, p + a - 1, 0);
    }
    if (st != TN_SIM_OK) {
        snprintf(why, whylen, "dragonfly: inconsistent wiring");
        tn_sim_topo_free(t);
    }
    return st;
}

tn_sim_status_t tn_sim_topo_megafly(tn_sim_topo_t *t, const tn_sim_topo_params_t *prm, char *why,
                                    size_t whylen)
{
    tn_sim_df_t df;
    int32_t s = prm->df_s > 0 ? prm->df_s : prm->df_a;
    tn_sim_status_t st = df_check(&df, prm->df_a, prm->df_p, prm->df_h, prm->df_g, s,
                                  prm->df_arrange, why, whylen);
    if (st != TN_SIM_OK) {
        return st;
    }
    int32_t a = df.a, p = df.p, h = df.h, pg = df.per_group;
    int32_t *deg = malloc(sizeof(int32_t) * (size_t)df.g * (size_t)pg);
    if (deg == NULL) {
        snprintf(why, whylen, "out of memory");
        return TN_SIM_ERR_NOMEM;
    }
    for (int64_t i = 0; i < (int64_t)df.g * pg; i++) {
        deg[i] = i % pg < a ? p + s : a + h;
    }
    st = tn_sim_topo_alloc(t, TN_SIM_TOPO_MEGAFLY, (int64_t)df.g * a * p, (int64_t)df.g * pg, deg, 0,
                           why, whylen);
    free(deg);
    if (st != TN_SIM_OK) {
        return st;
    }
    t->df = df;
    t->link = prm->link;
    const tn_sim_linkp_t *lk = &prm->link;
    for (int32_t e = 0; e < t->n_ep && st == TN_SIM_OK; e++) {
        int32_t leaf = e / p, G = leaf / a;
        st = tn_sim_topo_connect(t, e, tn_sim_sw_port(t, G * pg + leaf % a, e % p), lk->bw_host,
                                 lk->lat_host, TN_SIM_PORT_HOST, TN_SIM_PORT_HOST);
    }
    for (int32_t G = 0; G < df.g && st == TN_SIM_OK; G++) {
        for (int32_t l = 0; l < a && st == TN_SIM_OK; l++) {
            for (int32_t j = 0; j < s && st == TN_SIM_OK; j++) {
                st = tn_sim_topo_connect(t, tn_sim_sw_port(t, G * pg + l, p + j),
                                         tn_sim_sw_port(t, G * pg + a + j, l), lk->bw, lk->lat,
                                         TN_SIM_PORT_UP, TN_SIM_PORT_DOWN);
            }
        }
    }
    if (st == TN_SIM_OK) {
        st = df_wire_global(t, &df, a, a);
    }
    if (st != TN_SIM_OK) {
        snprintf(why, whylen, "megafly: inconsistent wiring");
        tn_sim_topo_free(t);
    }
    return st;
}
