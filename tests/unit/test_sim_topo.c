/* tern-sim's fabrics (tools/tern-sim/sim_topo*.c): counts of endpoints,
 * switches, ports and links, port degrees, diameters and the links across
 * known cuts of each builder; the global-link arrangements of a dragonfly
 * join every pair of groups; a 100 000-endpoint dragonfly builds fast and
 * small; graph files are read, and bad ones refused with a reason. */
#include "sim_topo.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "../check.h"
#include "sim_test_util.h"

static tn_sim_topo_t build(tn_sim_topo_params_t p)
{
    tn_sim_topo_t t;
    char why[256] = "";
    tn_sim_status_t st = tn_sim_topo_build(&t, &p, why, sizeof(why));
    if (st != TN_SIM_OK) {
        fprintf(stderr, "build failed: %s\n", why);
    }
    CHECK(st == TN_SIM_OK);
    return t;
}

/* Largest shortest distance (ports) between two endpoints. */
static int32_t diameter(const tn_sim_topo_t *t)
{
    int32_t *d = malloc(sizeof(int32_t) * (size_t)t->n_node), best = 0;
    for (int32_t e = 0; e < t->n_ep; e++) {
        sim_test_bfs(t, e, d);
        for (int32_t f = 0; f < t->n_ep; f++) {
            CHECK(d[f] >= 0);
            best = d[f] > best ? d[f] : best;
        }
    }
    free(d);
    return best;
}

static void test_fattree(void)
{
    tn_sim_topo_params_t p = sim_test_params(TN_SIM_TOPO_FATTREE);
    p.ft_k = 4;
    p.ft_n = 3;
    tn_sim_topo_t t = build(p);
    /* k-ary n-tree: k^n endpoints, n k^(n-1) switches, k^n cables between
     * adjacent levels (full bisection at every level) */
    CHECK(t.n_ep == 64 && t.n_sw == 48);
    CHECK(t.n_link == 2 * (64 + 64 + 64));
    for (int32_t s = 0; s < t.n_sw; s++) {
        CHECK(tn_sim_sw_deg(&t, s) == (s < 32 ? 8 : 4));
    }
    int32_t up[3] = {0, 0, 0};
    for (int32_t p2 = 0; p2 < t.n_port; p2++) {
        if (t.pclass[p2] == TN_SIM_PORT_UP) {
            int32_t sw = 0;
            while (t.port_off[t.n_ep + sw + 1] <= p2) {
                sw++;
            }
            up[sw / 16]++;
        }
    }
    CHECK(up[0] == 64 && up[1] == 64 && up[2] == 0);
    CHECK(diameter(&t) == 6);
    tn_sim_topo_free(&t);

    /* 2 levels, leaves with 6 endpoints and 2 up-links (3:1) */
    p.ft_k = 4;
    p.ft_n = 2;
    p.ft_down = 6;
    p.ft_up = 2;
    t = build(p);
    CHECK(t.n_ep == 24 && t.n_sw == 4 + 2);
    CHECK(t.n_link == 2 * (24 + 4 * 2));
    CHECK(tn_sim_sw_deg(&t, 0) == 8 && tn_sim_sw_deg(&t, 4) == 4);
    CHECK(diameter(&t) == 4);
    tn_sim_topo_free(&t);

    /* 3 levels, 2:1 at the leaves: k=4, down 4, up 2 */
    p.ft_n = 3;
    p.ft_down = 4;
    p.ft_up = 2;
    t = build(p);
    CHECK(t.n_ep == 64);
    CHECK(t.n_sw == 16 + 8 + 8);  /* leaves, then (M3/M2) W2 = 4*2, then W3 = 2*4 */
    CHECK(t.n_link == 2 * (64 + 32 + 32));
    CHECK(diameter(&t) == 6);
    tn_sim_topo_free(&t);
}

static void test_dragonfly(void)
{
    for (int arr = 0; arr < 2; arr++) {
        tn_sim_topo_params_t p = sim_test_params(TN_SIM_TOPO_DRAGONFLY);
        p.df_a = 4;
        p.df_p = 2;
        p.df_h = 2;
        p.df_arrange = (tn_sim_df_arrange_t)arr;
        tn_sim_topo_t t = build(p);
        CHECK(t.df.g == 9 && t.n_ep == 72 && t.n_sw == 36);
        /* host + local + global cables, both directions */
        CHECK(t.n_link == 2 * (72 + 9 * 6 + 9 * 8 / 2));
        /* exactly one cable between every pair of groups */
        int cnt[9][9];
        memset(cnt, 0, sizeof(cnt));
        for (int32_t pp = 0; pp < t.n_port; pp++) {
            if (t.pclass[pp] == TN_SIM_PORT_GLOBAL) {
                int32_t sw = (pp - t.n_ep) / 7, sw2 = t.peer[pp] - t.n_ep;
                cnt[sw / 4][sw2 / 4]++;
            }
        }
        for (int G = 0; G < 9; G++) {
            for (int H = 0; H < 9; H++) {
                CHECK(cnt[G][H] == (G != H));
            }
        }
        CHECK(diameter(&t) == 5);
        tn_sim_topo_free(&t);
    }
    /* fewer groups than a*h+1: several cables per pair, all ports used
     * when a*h is a multiple of g-1 */
    tn_sim_topo_params_t p = sim_test_params(TN_SIM_TOPO_DRAGONFLY);
    p.df_a = 4;
    p.df_p = 2;
    p.df_h = 2;
    p.df_g = 5;
    tn_sim_topo_t t = build(p);
    int32_t gl = 0;
    for (int32_t pp = 0; pp < t.n_port; pp++) {
        gl += t.pclass[pp] == TN_SIM_PORT_GLOBAL && t.peer[pp] >= 0;
    }
    CHECK(gl == 5 * 8);
    int32_t gps[4];
    CHECK(tn_sim_df_gports(&t.df, 0, 3, gps, 4) == 2);
    tn_sim_topo_free(&t);
    /* too many groups for the global ports */
    p.df_g = 10;
    char why[256];
    CHECK(tn_sim_topo_build(&t, &p, why, sizeof(why)) == TN_SIM_ERR_INVAL);

    /* megafly: 4 leaves x 4 endpoints, 4 spines x 2 global links, 9 groups */
    p = sim_test_params(TN_SIM_TOPO_MEGAFLY);
    p.df_a = 4;
    p.df_p = 4;
    p.df_h = 2;
    t = build(p);
    CHECK(t.df.g == 9 && t.df.s == 4 && t.n_ep == 9 * 16 && t.n_sw == 9 * 8);
    CHECK(t.n_link == 2 * (144 + 9 * 16 + 9 * 8 / 2));
    CHECK(tn_sim_sw_deg(&t, 0) == 8 && tn_sim_sw_deg(&t, 4) == 6);
    CHECK(diameter(&t) == 5);
    tn_sim_topo_free(&t);
}

static void test_torus(void)
{
    tn_sim_topo_params_t p = sim_test_params(TN_SIM_TOPO_TORUS);
    p.nd = 2;
    p.dims[0] = p.dims[1] = 8;
    tn_sim_topo_t t = build(p);
    CHECK(t.n_ep == 64 && t.n_sw == 64 && t.n_link == 2 * 64 + 4 * 64);
    CHECK(diameter(&t) == 8 + 2);
    /* bisection: the cut between x < 4 and x >= 4 is crossed by 2 k
     * channels each way (the wrap-around doubles it) */
    int32_t cross = 0;
    for (int32_t sw = 0; sw < 64; sw++) {
        for (int32_t i = 1; i < tn_sim_sw_deg(&t, sw); i++) {
            int32_t pp = tn_sim_sw_port(&t, sw, i), sw2 = t.peer[pp] - t.n_ep;
            cross += (sw % 8 < 4) && (sw2 % 8 >= 4);
        }
    }
    CHECK(cross == 16);
    tn_sim_topo_free(&t);

    p.kind = TN_SIM_TOPO_MESH;
    p.nd = 3;
    p.dims[0] = p.dims[1] = p.dims[2] = 4;
    p.tor_c = 2;
    t = build(p);
    CHECK(t.n_ep == 128 && t.n_sw == 64);
    CHECK(t.n_link == 2 * 128 + 2 * 3 * 3 * 16);
    CHECK(diameter(&t) == 9 + 2);
    tn_sim_topo_free(&t);

    p.kind = TN_SIM_TOPO_TORUS;
    p.nd = 3;
    p.dims[0] = p.dims[1] = p.dims[2] = 16;
    p.tor_c = 1;
    t = build(p);
    CHECK(t.n_ep == 4096 && t.n_link == 2 * 4096 + 6 * 4096);
    tn_sim_topo_free(&t);
}

/* A 114 582-endpoint balanced dragonfly (a = 2p = 2h = 26, 339 groups):
 * well under a second and a few tens of MB. */
static void test_big(void)
{
    tn_sim_topo_params_t p = sim_test_params(TN_SIM_TOPO_DRAGONFLY);
    p.df_a = 26;
    p.df_p = 13;
    p.df_h = 13;
    struct timespec t0, t1;
    struct rusage ru0, ru1;
    getrusage(RUSAGE_SELF, &ru0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    tn_sim_topo_t t = build(p);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    getrusage(RUSAGE_SELF, &ru1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    size_t bytes = (size_t)(t.n_node + 1) * 4 + (size_t)t.n_port * (4 + 4 + 8 + 8 + 1);
    printf("dragonfly a=26 p=13 h=13 g=%d: %d endpoints, %d switches, %d ports in %.3f s, "
           "%.1f MB of arrays (max RSS %ld MB)\n",
           t.df.g, t.n_ep, t.n_sw, t.n_port, s, (double)bytes / 1e6, ru1.ru_maxrss / 1024);
    CHECK(t.n_ep == 114582 && t.n_sw == 8814);
    CHECK(s < 1.0);
    CHECK(bytes < 100u * 1000 * 1000);
    tn_sim_topo_free(&t);
}

static tn_sim_status_t graph(const char *text, char *why, size_t whylen, tn_sim_topo_t *t)
{
    tn_sim_topo_params_t p = sim_test_params(TN_SIM_TOPO_GRAPH);
    p.graph_text = text;
    p.graph_len = strlen(text);
    return tn_sim_topo_build(t, &p, why, whylen);
}

static void test_graph(void)
{
    const char *good =
        "# two switches, three hosts\n"
        "graph 1\n"
        "switch s0\n"
        "switch s1\n"
        "endpoint h0   # a comment\n"
        "endpoint h1\n"
        "endpoint h2\r\n"
        "link h0 s0 100 50\n"
        "link h1 s0 100 50\n"
        "link s1 h2 200.5 50\n"
        "link s0 s1 400 120.25\n"
        "link s0 s1 400 120\n";
    tn_sim_topo_t t;
    char why[256] = "";
    CHECK(graph(good, why, sizeof(why), &t) == TN_SIM_OK);
    CHECK(t.n_ep == 3 && t.n_sw == 2 && t.n_link == 2 * 5);
    CHECK(strcmp(t.names + t.name_off[3], "s0") == 0 && strcmp(t.names + t.name_off[2], "h2") == 0);
    CHECK(t.bw[2] == 200.5 / 8 && t.peer[2] == 4);
    CHECK(tn_sim_sw_deg(&t, 0) == 4 && tn_sim_sw_deg(&t, 1) == 3);
    CHECK(t.lat[tn_sim_sw_port(&t, 0, 2)] == 120.25);
    tn_sim_topo_free(&t);

    static const struct {
        const char *text, *why;
    } bad[] = {
        {"", "no \"graph 1\""},
        {"# nothing\n\n", "no \"graph 1\""},
        {"switch s0\n", "want \"graph 1\" first"},
        {"graph 2\n", "want \"graph 1\" first"},
        {"graph 1\nswitch s0\nendpoint h0\nlink h0 s0 100 50\nrouter r0\n", "unknown directive"},
        {"graph 1\nswitch s0\nendpoint h0\nswitch s0\n", "declared twice"},
        {"graph 1\nswitch s0\nendpoint h0\nlink h0 s9 100 50\n", "s9 not declared"},
        {"graph 1\nswitch s0\nendpoint h0\nlink h0 s0 100 50\nlink s0 s0 100 50\n", "to itself"},
        {"graph 1\nswitch s0\nendpoint h0\nlink h0 s0 1e5 50\n", "want \"link"},
        {"graph 1\nswitch s0\nendpoint h0\nlink h0 s0 -1 50\n", "want \"link"},
        {"graph 1\nswitch s0\nendpoint h0\nlink h0 s0 0 50\n", "want \"link"},
        {"graph 1\nswitch s0\nendpoint h0\nlink h0 s0 nan 50\n", "want \"link"},
        {"graph 1\nswitch s0\nendpoint h0\nlink h0 s0 1..2 50\n", "want \"link"},
        {"graph 1\nswitch s0\nendpoint h0\nlink h0 s0 100 2000000000\n", "want \"link"},
        {"graph 1\nswitch s0\nendpoint h0\nlink h0 s0 100\n", "want \"link"},
        {"graph 1\nswitch s0 extra\n", "want \"switch NAME\""},
        {"graph 1\nswitch s$0\n", "want \"switch NAME\""},
        {"graph 1\nswitch "
         "s0123456789012345678901234567890123456789012345678901234567890123\n",
         "want \"switch NAME\""},
        {"graph 1\nswitch s0\nendpoint h0\nendpoint h1\nlink h0 s0 1 1\nlink h1 s0 1 1\nlink h0 s0 1 1\n",
         "endpoint h0 has 2 links"},
        {"graph 1\nswitch s0\nendpoint h0\nendpoint h1\nlink h0 h1 1 1\n", "joins two endpoints"},
        {"graph 1\nswitch s0\nswitch s1\nendpoint h0\nlink h0 s0 1 1\n", "switch s1 has 0 links"},
        {"graph 1\nswitch s0\nswitch s1\nendpoint h0\nendpoint h1\nlink h0 s0 1 1\nlink h1 s1 1 1\n",
         "not connected"},
        {"graph 1\nswitch s0\nswitch s1\n", "0 endpoints"},
        {"graph 1\nendpoint h0\n", "1 endpoints and 0 switches"},
        {"graph 1\nswitch a b c d e f g h i\n", "too many fields"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        why[0] = '\0';
        tn_sim_status_t st = graph(bad[i].text, why, sizeof(why), &t);
        if (st == TN_SIM_OK || strstr(why, bad[i].why) == NULL) {
            fprintf(stderr, "bad graph %zu: status %d, why \"%s\", want \"%s\"\n", i, (int)st, why,
                    bad[i].why);
        }
        CHECK(st != TN_SIM_OK && strstr(why, bad[i].why) != NULL);
        if (st == TN_SIM_OK) {
            tn_sim_topo_free(&t);
        }
    }
    /* a NUL byte and an over-long line */
    static const char nul[] = "graph 1\nswitch s\0\n";
    tn_sim_topo_params_t p = sim_test_params(TN_SIM_TOPO_GRAPH);
    p.graph_text = nul;
    p.graph_len = sizeof(nul) - 1;
    CHECK(tn_sim_topo_build(&t, &p, why, sizeof(why)) == TN_SIM_ERR_PARSE && strstr(why, "NUL"));
    char *longl = malloc(3000);
    memset(longl, ' ', 3000);
    memcpy(longl, "graph 1\n", 8);
    longl[2999] = '\0';
    CHECK(graph(longl, why, sizeof(why), &t) == TN_SIM_ERR_PARSE && strstr(why, "longer"));
    free(longl);
}

int main(void)
{
    test_fattree();
    test_dragonfly();
    test_torus();
    test_big();
    test_graph();
    return tn_check_report("test_sim_topo");
}
