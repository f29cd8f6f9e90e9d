/* tern-sim's routers (tools/tern-sim/sim_route*.c): every route of every
 * algorithm reaches its destination within the router's bound; minimal
 * algorithms take shortest paths; D-mod-k meets no contention on a shift
 * permutation of a k-ary n-tree; dimension order corrects dimensions in
 * order and switches VC exactly at the datelines; Valiant goes through
 * its intermediate group and takes one more VC per global link; UGAL
 * stays minimal on an idle fabric and leaves a loaded minimal path. */
#include "sim_route.h"

#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "sim_rng.h"
#include "sim_test_util.h"

static double no_load(void *ctx, int32_t port)
{
    (void)ctx;
    (void)port;
    return 0;
}

/* Load oracle from an array of per-port counts. */
static double arr_load(void *ctx, int32_t port)
{
    return ((const double *)ctx)[port];
}

static tn_sim_topo_t build(tn_sim_topo_params_t p)
{
    tn_sim_topo_t t;
    char why[256] = "";
    CHECK(tn_sim_topo_build(&t, &p, why, sizeof(why)) == TN_SIM_OK);
    return t;
}

/* Every pair routes, within max_hops; minimal ones on shortest paths
 * (minimal = 1), or for a dragonfly's minimal routing (minimal = 2) with
 * one global link between groups and none inside one: a path through a
 * third group can be shorter (two global hops, no local one), and that is
 * not what a dragonfly calls minimal. */
static void all_pairs(const tn_sim_topo_t *t, tn_sim_route_alg_t alg, int minimal, const char *what)
{
    tn_sim_router_t rt;
    char why[256];
    CHECK(tn_sim_route_init(&rt, t, alg, why, sizeof(why)) == TN_SIM_OK);
    int32_t *dist = malloc(sizeof(int32_t) * (size_t)t->n_node);
    int32_t ports[64];
    int bad = 0;
    for (int32_t s = 0; s < t->n_ep; s++) {
        sim_test_bfs(t, s, dist);
        for (int32_t d = 0; d < t->n_ep; d++) {
            tn_sim_rhdr_t h;
            tn_sim_route_begin(&rt, &h, s, d, tn_sim_mix64((uint64_t)s * 7919 + (uint64_t)d), no_load,
                               NULL);
            int n = tn_sim_route_path(&rt, &h, no_load, NULL, ports, NULL, 64);
            int ok = s == d ? n == 0 : n > 0 && n <= rt.max_hops && (minimal != 1 || n == dist[d]);
            if (ok && minimal == 2 && s != d) {
                int32_t per = t->df.a * t->df.p, globals = 0;
                for (int i = 0; i < n; i++) {
                    globals += t->pclass[ports[i]] == TN_SIM_PORT_GLOBAL;
                }
                ok = globals == (s / per != d / per) && (s / t->df.p != d / t->df.p || n == 2);
            }
            if (!ok && bad++ < 3) {
                fprintf(stderr, "%s: %d -> %d: %d ports (shortest %d, bound %d)\n", what, s, d, n,
                        dist[d], rt.max_hops);
            }
        }
    }
    CHECK(bad == 0);
    free(dist);
    tn_sim_route_fini(&rt);
}

static void test_fattree(void)
{
    tn_sim_topo_params_t p = sim_test_params(TN_SIM_TOPO_FATTREE);
    p.ft_k = 4;
    p.ft_n = 3;
    tn_sim_topo_t t = build(p);
    all_pairs(&t, TN_SIM_RT_DMODK, 1, "fattree dmodk");
    all_pairs(&t, TN_SIM_RT_ECMP, 1, "fattree ecmp");
    all_pairs(&t, TN_SIM_RT_ADAPTIVE, 1, "fattree adaptive");
    /* D-mod-k: on every shift permutation no directed channel carries two
     * routes (Zahavi) */
    tn_sim_router_t rt;
    char why[256];
    CHECK(tn_sim_route_init(&rt, &t, TN_SIM_RT_DMODK, why, sizeof(why)) == TN_SIM_OK);
    int32_t *use = malloc(sizeof(int32_t) * (size_t)t.n_port);
    int32_t ports[16];
    for (int32_t shift = 1; shift < t.n_ep; shift++) {
        memset(use, 0, sizeof(int32_t) * (size_t)t.n_port);
        int32_t most = 0;
        for (int32_t s = 0; s < t.n_ep; s++) {
            tn_sim_rhdr_t h;
            tn_sim_route_begin(&rt, &h, s, (s + shift) % t.n_ep, 0, no_load, NULL);
            int n = tn_sim_route_path(&rt, &h, no_load, NULL, ports, NULL, 16);
            for (int i = 0; i < n; i++) {
                most = ++use[ports[i]] > most ? use[ports[i]] : most;
            }
        }
        CHECK(most == 1);
    }
    /* adaptive takes the least-loaded up port */
    double *load = calloc((size_t)t.n_port, sizeof(double));
    tn_sim_route_fini(&rt);
    CHECK(tn_sim_route_init(&rt, &t, TN_SIM_RT_ADAPTIVE, why, sizeof(why)) == TN_SIM_OK);
    int32_t leaf = tn_sim_ep_switch(&t, 0);
    for (int u = 0; u < 4; u++) {
        load[tn_sim_sw_port(&t, leaf, 4 + u)] = u == 2 ? 0 : 5;
    }
    tn_sim_rhdr_t h;
    tn_sim_route_begin(&rt, &h, 0, 63, 12345, arr_load, load);
    CHECK(tn_sim_route_next(&rt, leaf, &h, arr_load, load) == tn_sim_sw_port(&t, leaf, 6));
    free(load);
    free(use);
    tn_sim_route_fini(&rt);
    tn_sim_topo_free(&t);

    p.ft_n = 2;
    p.ft_down = 6;
    p.ft_up = 2;
    t = build(p);
    all_pairs(&t, TN_SIM_RT_DMODK, 1, "fattree 3:1 dmodk");
    all_pairs(&t, TN_SIM_RT_ECMP, 1, "fattree 3:1 ecmp");
    tn_sim_topo_free(&t);
}

/* Group of a switch / an endpoint. */
static int32_t grp(const tn_sim_topo_t *t, int32_t node)
{
    return node < t->n_ep ? node / (t->df.a * t->df.p) : (node - t->n_ep) / t->df.per_group;
}

static void check_valiant(const tn_sim_topo_t *t, tn_sim_route_alg_t alg, const char *what)
{
    tn_sim_router_t rt;
    char why[256];
    CHECK(tn_sim_route_init(&rt, t, alg, why, sizeof(why)) == TN_SIM_OK);
    int32_t ports[16];
    uint8_t vcs[16];
    int visits = 0, bad = 0;
    for (int32_t s = 0; s < t->n_ep; s += 3) {
        for (int32_t d = 0; d < t->n_ep; d += 5) {
            if (grp(t, s) == grp(t, d)) {
                continue;
            }
            tn_sim_rhdr_t h;
            tn_sim_route_begin(&rt, &h, s, d, tn_sim_mix64((uint64_t)(s * 1000 + d)), no_load, NULL);
            int32_t inter = h.inter;
            int n = tn_sim_route_path(&rt, &h, no_load, NULL, ports, vcs, 16);
            CHECK(n > 0 && n <= rt.max_hops);
            CHECK(inter >= 0 && inter != grp(t, s) && inter != grp(t, d));
            int seen = 0, globals = 0;
            for (int i = 0; i < n; i++) {
                int32_t to = t->peer[ports[i]];
                seen |= to >= t->n_ep && grp(t, to) == inter;
                /* VC = global links taken before this port */
                bad += vcs[i] != (i == 0 ? 0 : globals);
                globals += t->pclass[ports[i]] == TN_SIM_PORT_GLOBAL;
            }
            CHECK(globals == 2);
            visits += seen;
            CHECK(seen);
        }
    }
    CHECK(bad == 0);
    CHECK(visits > 100);
    tn_sim_route_fini(&rt);
    (void)what;
}

static void test_dragonfly(void)
{
    for (int kind = 0; kind < 2; kind++) {
        for (int arr = 0; arr < 2; arr++) {
            tn_sim_topo_params_t p = sim_test_params(kind ? TN_SIM_TOPO_MEGAFLY : TN_SIM_TOPO_DRAGONFLY);
            p.df_a = 4;
            p.df_p = 2;
            p.df_h = 2;
            p.df_arrange = (tn_sim_df_arrange_t)arr;
            tn_sim_topo_t t = build(p);
            /* megafly: leaf-spine-global-spine-leaf is shortest between groups,
             * and leaf-spine-leaf inside one */
            all_pairs(&t, TN_SIM_RT_MINIMAL, kind ? 1 : 2, kind ? "megafly minimal" : "dragonfly minimal");
            all_pairs(&t, TN_SIM_RT_VALIANT, 0, "valiant");
            all_pairs(&t, TN_SIM_RT_UGAL, 0, "ugal");
            all_pairs(&t, TN_SIM_RT_UGAL_G, 0, "ugal-g");
            check_valiant(&t, TN_SIM_RT_VALIANT, "valiant");
            tn_sim_topo_free(&t);
        }
    }
    /* several cables between a pair of groups: minimal still shortest */
    tn_sim_topo_params_t p = sim_test_params(TN_SIM_TOPO_DRAGONFLY);
    p.df_a = 4;
    p.df_p = 2;
    p.df_h = 2;
    p.df_g = 5;
    tn_sim_topo_t t = build(p);
    all_pairs(&t, TN_SIM_RT_MINIMAL, 2, "dragonfly g=5 minimal");
    all_pairs(&t, TN_SIM_RT_VALIANT, 0, "dragonfly g=5 valiant");

    /* UGAL: idle -> minimal; the minimal first port loaded -> Valiant */
    tn_sim_topo_free(&t);
    p.df_g = 0;
    t = build(p);
    tn_sim_router_t rt;
    char why[256];
    double *load = calloc((size_t)t.n_port, sizeof(double));
    CHECK(tn_sim_route_init(&rt, &t, TN_SIM_RT_UGAL, why, sizeof(why)) == TN_SIM_OK);
    tn_sim_rhdr_t h;
    int32_t src = 0, dst = 8 * 5;  /* group 0 -> group 5 */
    tn_sim_route_begin(&rt, &h, src, dst, 99, arr_load, load);
    CHECK(h.inter < 0 && !h.nonmin);
    tn_sim_rhdr_t hm = h;
    int32_t ports[16];
    int n = tn_sim_route_path(&rt, &hm, arr_load, load, ports, NULL, 16);
    CHECK(n > 0);
    load[ports[1]] = 50;
    tn_sim_route_begin(&rt, &h, src, dst, 99, arr_load, load);
    CHECK(h.inter >= 0 && h.nonmin);
    tn_sim_route_fini(&rt);
    /* UGAL-G sees a loaded global link further down the path */
    load[ports[1]] = 0;
    int g = 1;
    while (t.pclass[ports[g]] != TN_SIM_PORT_GLOBAL) {
        g++;
    }
    load[ports[g]] = 50;
    CHECK(tn_sim_route_init(&rt, &t, TN_SIM_RT_UGAL_G, why, sizeof(why)) == TN_SIM_OK);
    tn_sim_route_begin(&rt, &h, src, dst, 99, arr_load, load);
    CHECK(h.nonmin);
    tn_sim_route_fini(&rt);
    free(load);
    /* an algorithm of another kind is refused */
    CHECK(tn_sim_route_init(&rt, &t, TN_SIM_RT_DOR, why, sizeof(why)) == TN_SIM_ERR_INVAL);
    tn_sim_topo_free(&t);
}

/* DOR: dimensions in order, shortest, VC 1 exactly from the wrap link on
 * within a dimension. */
static void check_dor(const tn_sim_topo_t *t)
{
    const tn_sim_torus_t *tor = &t->tor;
    tn_sim_router_t rt;
    char why[256];
    CHECK(tn_sim_route_init(&rt, t, TN_SIM_RT_DOR, why, sizeof(why)) == TN_SIM_OK);
    CHECK(rt.n_vc == (tor->wrap ? 2 : 1));
    int32_t ports[64];
    uint8_t vcs[64];
    int bad = 0, wraps = 0;
    for (int32_t s = 0; s < t->n_ep; s++) {
        for (int32_t d = 0; d < t->n_ep; d++) {
            tn_sim_rhdr_t h;
            tn_sim_route_begin(&rt, &h, s, d, 0, no_load, NULL);
            int n = tn_sim_route_path(&rt, &h, no_load, NULL, ports, vcs, 64);
            int last_dim = -1, crossed = 0;
            for (int i = 1; i < n - 1; i++) {
                int32_t sw = t->peer[ports[i - 1]] - t->n_ep;
                int idx = ports[i] - tn_sim_sw_port(t, sw, 0) - tor->c;
                int dim = idx / 2, plus = idx % 2 == 0;
                if (dim < last_dim) {
                    bad++;
                }
                if (dim != last_dim) {
                    crossed = 0;
                }
                last_dim = dim;
                int32_t x = (int32_t)(sw / tor->stride[dim] % tor->k[dim]);
                if ((plus && x == tor->k[dim] - 1) || (!plus && x == 0)) {
                    crossed = 1;
                    wraps++;
                }
                bad += vcs[i] != crossed;
            }
        }
    }
    CHECK(bad == 0);
    CHECK(tor->wrap ? wraps > 0 : wraps == 0);
    tn_sim_route_fini(&rt);
}

static void test_torus(void)
{
    tn_sim_topo_params_t p = sim_test_params(TN_SIM_TOPO_TORUS);
    p.nd = 2;
    p.dims[0] = p.dims[1] = 8;
    tn_sim_topo_t t = build(p);
    all_pairs(&t, TN_SIM_RT_DOR, 1, "torus 8x8 dor");
    check_dor(&t);
    tn_sim_topo_free(&t);
    p.nd = 3;
    p.dims[0] = 4;
    p.dims[1] = 3;
    p.dims[2] = 5;
    p.tor_c = 2;
    t = build(p);
    all_pairs(&t, TN_SIM_RT_DOR, 1, "torus 4x3x5 dor");
    check_dor(&t);
    tn_sim_topo_free(&t);
    p.kind = TN_SIM_TOPO_MESH;
    t = build(p);
    all_pairs(&t, TN_SIM_RT_DOR, 1, "mesh 4x3x5 dor");
    check_dor(&t);
    tn_sim_topo_free(&t);
}

static void test_graph(void)
{
    /* a ring of 6 switches with a chord, 2 hosts each */
    char text[4096];
    int n = snprintf(text, sizeof(text), "graph 1\n");
    for (int s = 0; s < 6; s++) {
        n += snprintf(text + n, sizeof(text) - (size_t)n, "switch s%d\nendpoint a%d\nendpoint b%d\n", s, s,
                      s);
    }
    for (int s = 0; s < 6; s++) {
        n += snprintf(text + n, sizeof(text) - (size_t)n, "link a%d s%d 100 10\nlink b%d s%d 100 10\n"
                      "link s%d s%d 100 100\n", s, s, s, s, s, (s + 1) % 6);
    }
    n += snprintf(text + n, sizeof(text) - (size_t)n, "link s0 s3 50 100\n");
    tn_sim_topo_params_t p = sim_test_params(TN_SIM_TOPO_GRAPH);
    p.graph_text = text;
    p.graph_len = (size_t)n;
    tn_sim_topo_t t = build(p);
    all_pairs(&t, TN_SIM_RT_SHORTEST, 1, "graph shortest");
    all_pairs(&t, TN_SIM_RT_ADAPTIVE, 1, "graph adaptive");
    tn_sim_router_t rt;
    char why[256];
    CHECK(tn_sim_route_init(&rt, &t, TN_SIM_RT_SHORTEST, why, sizeof(why)) == TN_SIM_OK);
    CHECK(rt.diameter == 3);
    /* s1 -> s4 is 3 hops via s0 or via s2: ECMP uses both first hops over
     * many hashes */
    int32_t ports[16];
    int first[16] = {0};
    for (uint64_t hsh = 0; hsh < 64; hsh++) {
        tn_sim_rhdr_t h;
        tn_sim_route_begin(&rt, &h, 2, 8, tn_sim_mix64(hsh), no_load, NULL);
        int m = tn_sim_route_path(&rt, &h, no_load, NULL, ports, NULL, 16);
        CHECK(m == 5);
        first[(ports[1] - tn_sim_sw_port(&t, 1, 0)) & 15]++;
    }
    int used = 0;
    for (int i = 0; i < 16; i++) {
        used += first[i] > 0;
    }
    CHECK(used == 2);
    tn_sim_route_fini(&rt);
    tn_sim_topo_free(&t);
}

int main(void)
{
    test_fattree();
    test_dragonfly();
    test_torus();
    test_graph();
    return tn_check_report("test_sim_route");
}
