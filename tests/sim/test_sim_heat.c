/* tern-sim's heatmaps (sim_heat.h, docs/sim.md "Heatmaps"), one scenario
 * per ctest entry (label "sim"):
 *
 *   heat-one-flow   one flow alone at the line rate: utilisation 1 on
 *                   exactly the links of its path in the bins it was
 *                   active, the bytes of the partial bin exact, 0 on
 *                   every other link; again with bins merged
 *   heat-shared     two flows sharing a link, one half as long: 1 on the
 *                   shared link, 1/2 on the private ones, 3/4 in the bin
 *                   where the short one ends, then 1 for the long one
 *   heat-sums       fat-trees at flow and packet level: the endpoint
 *                   up- and down-link rows carry every byte delivered
 *                   (packet: plus the headers), utilisation within
 *                   [0, 1]; rows per switch, per link class
 *   heat-pkt-incast 4:1 incast at packet level: a queue at the incast's
 *                   switch, none at the idle one; the receiver's link
 *                   full while it lasts; nothing on idle links */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sim_run.h"
#include "sim_hand.h"

typedef struct {
    tn_sim_topo_t t;
    tn_sim_router_t rt;
    tn_sim_job_t job;
    int32_t *ep;
    hand_src_t hs;
    tn_sim_src_t *srcs[1];
    tn_sim_eng_t e;
    tn_sim_pkt_t pk;
    int pkt;
} heat_case_t;

/* Flows src[i] -> dst[i] of bytes[i] from t = 0 on a graph fabric, to
 * the end, heatmaps on with nbins bins of 1 us; the engine is left for
 * the checks (heat_done frees it). */
static void heat_run(heat_case_t *c, const char *graph, int nf, const int32_t *src,
                     const int32_t *dst, const uint64_t *bytes, int32_t nbins, int pkt)
{
    memset(c, 0, sizeof(*c));
    sim_graph_fabric(graph, &c->t, &c->rt);
    c->ep = malloc(sizeof(int32_t) * (size_t)c->t.n_ep);
    for (int32_t i = 0; i < c->t.n_ep; i++) {
        c->ep[i] = i;
    }
    c->job.n = c->t.n_ep;
    c->job.ep = c->ep;
    c->hs = (hand_src_t){.base = {.ops = &hand_ops, .job = 0}, .nf = nf, .src = src, .dst = dst,
                         .bytes = bytes};
    c->srcs[0] = &c->hs.base;
    tn_sim_eng_conf_t ec = {.t_end = INFINITY, .w0 = 0, .bins = 10, .bin_w = 1000, .seed = 1,
                            .heat = 1, .heat_queues = pkt, .heat_bins = nbins, .heat_bin_w = 1000};
    if (tn_sim_eng_init(&c->e, &c->t, &c->rt, &c->job, c->srcs, 1, &ec) != TN_SIM_OK) {
        fprintf(stderr, "engine: %s\n", c->e.why);
        exit(2);
    }
    if (pkt) {
        tn_sim_pkt_conf_t pc = {.mtu = 4096, .hdr = 64, .buf = 65536, .kmin = 5000, .kmax = 200000,
                                .pmax = 0.01, .xoff = 32768, .xon = 16384};
        CHECK(tn_sim_pkt_init(&c->pk, &c->t, &c->rt, &pc, 1) == TN_SIM_OK);
        c->e.pkt = &c->pk;
        c->pkt = 1;
    }
    CHECK(tn_sim_eng_run(&c->e) == TN_SIM_OK);
}

static void heat_done(heat_case_t *c)
{
    if (c->pkt) {
        tn_sim_pkt_fini(&c->pk);
    }
    tn_sim_eng_fini(&c->e);
    tn_sim_route_fini(&c->rt);
    tn_sim_topo_free(&c->t);
    free(c->ep);
}

/* The link row named name; ends the test if there is none. */
static int32_t lrow(const tn_sim_heat_t *h, const char *name)
{
    for (int32_t r = 0; r < h->nlrow; r++) {
        if (strcmp(h->lrow_name[r], name) == 0) {
            return r;
        }
    }
    fprintf(stderr, "no link row %s\n", name);
    exit(2);
}

static int32_t qrow(const tn_sim_heat_t *h, const char *name)
{
    for (int32_t r = 0; r < h->nqrow; r++) {
        if (strcmp(h->qrow_name[r], name) == 0) {
            return r;
        }
    }
    fprintf(stderr, "no switch row %s\n", name);
    exit(2);
}

static double lbytes(const tn_sim_heat_t *h, int32_t r, int32_t b)
{
    return h->lbytes[(size_t)r * (size_t)h->nbins_max + b];
}

static double lsum(const tn_sim_heat_t *h, int32_t r)
{
    double s = 0;
    for (int32_t b = 0; b < h->nbins; b++) {
        s += lbytes(h, r, b);
    }
    return s;
}

static int same(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1);
}

/* Two switches in a row, two endpoints on each, 100 Gbit/s (12.5 B/ns),
 * 100 ns links.  Endpoint ids: A 0, B 1, C 2, D 3. */
static const char *const g_two =
    "graph 1\nswitch s0\nswitch s1\nendpoint A\nendpoint B\nendpoint C\nendpoint D\n"
    "link A s0 100 100\nlink C s0 100 100\nlink s0 s1 100 100\nlink B s1 100 100\n"
    "link D s1 100 100\n";

static void one_flow(void)
{
    /* A -> B, 68 750 bytes at 12.5 B/ns: [0, 5500) on its three links,
     * where the run ends (the flow's end is its last event; the delivery
     * a path latency later is reported with it) */
    const char *path[3] = {"A>s0", "s0>s1", "s1>B"};
    int32_t src[1] = {0}, dst[1] = {1};
    uint64_t bytes[1] = {68750};
    heat_case_t c;
    heat_run(&c, g_two, 1, src, dst, bytes, 10, 0);
    const tn_sim_heat_t *h = &c.e.heat;
    CHECK(h->on && h->lgroup == TN_SIM_HEAT_PER_LINK && h->nlrow == 10);
    CHECK(h->bin_w == 1000 && h->nbins == 6 && h->t_end == 5500);
    int on_path[TN_SIM_HEAT_ROWS] = {0};
    for (int i = 0; i < 3; i++) {
        int32_t r = lrow(h, path[i]);
        on_path[r] = 1;
        for (int32_t b = 0; b < 5; b++) {
            CHECK(same(tn_sim_heat_util(h, r, b), 1.0));
        }
        CHECK(same(lbytes(h, r, 5), 12.5 * 500));
        CHECK(tn_sim_heat_bin_width(h, 5) == 500 && same(tn_sim_heat_util(h, r, 5), 1.0));
        CHECK(same(lsum(h, r), 68750));
    }
    for (int32_t r = 0; r < h->nlrow; r++) {
        for (int32_t b = 0; b < h->nbins_max && !on_path[r]; b++) {
            CHECK(lbytes(h, r, b) == 0);
        }
    }
    heat_done(&c);
    /* four bins: twice merged to 2000 ns ones */
    heat_run(&c, g_two, 1, src, dst, bytes, 4, 0);
    h = &c.e.heat;
    CHECK(h->bin_w == 2000 && h->nbins == 3);
    for (int i = 0; i < 3; i++) {
        int32_t r = lrow(h, path[i]);
        CHECK(same(tn_sim_heat_util(h, r, 0), 1.0) && same(tn_sim_heat_util(h, r, 1), 1.0));
        CHECK(same(lbytes(h, r, 2), 12.5 * 1500) && same(lsum(h, r), 68750));
    }
    CHECK(lsum(h, lrow(h, "s1>s0")) == 0 && lsum(h, lrow(h, "C>s0")) == 0);
    printf("heat-one-flow: path links at %.6f %.6f %.6f, partial bin %.6f\n",
           tn_sim_heat_util(h, lrow(h, "A>s0"), 0), tn_sim_heat_util(h, lrow(h, "s0>s1"), 0),
           tn_sim_heat_util(h, lrow(h, "s1>B"), 0), tn_sim_heat_util(h, lrow(h, "s1>B"), 2));
    heat_done(&c);
}

static void shared(void)
{
    /* A -> B (S) and C -> D (S/2) share s0>s1: 6.25 B/ns each until C -> D
     * ends at 5500, then A -> B alone at 12.5 until 8250, the end.  The bin [5000, 6000) of A's link: (500 x 6.25 + 500 x 12.5)
     * / 12 500 = 3/4. */
    const uint64_t S = 68750;
    int32_t src[2] = {0, 2}, dst[2] = {1, 3};
    uint64_t bytes[2] = {S, S / 2};
    heat_case_t c;
    heat_run(&c, g_two, 2, src, dst, bytes, 10, 0);
    const tn_sim_heat_t *h = &c.e.heat;
    CHECK(h->bin_w == 1000 && h->nbins == 9 && h->t_end == 8250);
    int32_t sh = lrow(h, "s0>s1"), a = lrow(h, "A>s0"), b = lrow(h, "s1>B");
    int32_t cc = lrow(h, "C>s0"), d = lrow(h, "s1>D");
    for (int32_t k = 0; k < 8; k++) {
        CHECK(same(tn_sim_heat_util(h, sh, k), 1.0));
    }
    for (int32_t k = 0; k < 5; k++) {
        CHECK(same(tn_sim_heat_util(h, a, k), 0.5) && same(tn_sim_heat_util(h, b, k), 0.5));
        CHECK(same(tn_sim_heat_util(h, cc, k), 0.5) && same(tn_sim_heat_util(h, d, k), 0.5));
    }
    CHECK(same(tn_sim_heat_util(h, a, 5), 0.75) && same(tn_sim_heat_util(h, b, 5), 0.75));
    CHECK(same(lbytes(h, cc, 5), 6.25 * 500) && same(lbytes(h, d, 5), 6.25 * 500));
    for (int32_t k = 6; k < 8; k++) {
        CHECK(same(tn_sim_heat_util(h, a, k), 1.0) && lbytes(h, cc, k) == 0);
    }
    CHECK(same(lbytes(h, sh, 8), 12.5 * 250));
    CHECK(same(lsum(h, sh), 1.5 * S) && same(lsum(h, a), S) && same(lsum(h, cc), S / 2));
    CHECK(lsum(h, lrow(h, "s1>s0")) == 0 && lsum(h, lrow(h, "B>s1")) == 0);
    printf("heat-shared: shared %.6f, private %.6f, A's link %.6f then %.6f\n",
           tn_sim_heat_util(h, sh, 0), tn_sim_heat_util(h, cc, 0), tn_sim_heat_util(h, a, 5),
           tn_sim_heat_util(h, a, 6));
    heat_done(&c);
}

/* The sums of rows named name over every bin and row; utilisation in
 * [0, 1] everywhere. */
static double named_sum(const tn_sim_heat_t *h, const char *name)
{
    double s = 0;
    for (int32_t r = 0; r < h->nlrow; r++) {
        for (int32_t b = 0; b < h->nbins; b++) {
            double u = tn_sim_heat_util(h, r, b);
            CHECK(u >= 0 && u <= 1 + 1e-9);
        }
        if (strcmp(h->lrow_name[r], name) == 0) {
            s += lsum(h, r);
        }
    }
    return s;
}

static void sums(void)
{
    /* 4-ary 3-tree (48 switches, 256 links): rows per switch; a pairwise
     * all-to-all of 16 ranks, 1 MiB (bins merge) */
    const char *kv[] = {"topo=fattree", "k=4", "n=3", "pattern=alltoall", "ranks=16", "size=1048576",
                        "heatmap=on", NULL};
    const char *kvp[] = {"topo=fattree", "k=4", "n=3", "pattern=alltoall", "ranks=16",
                         "size=1048576", "fidelity=packet", "heatmap=on", NULL};
    double total = 16.0 * 15 * 1048576, hdr = 16.0 * 15 * 256 * 64;
    for (int pkt = 0; pkt < 2; pkt++) {
        tn_sim_run_t *r = sim_run_words(pkt ? kvp : kv, "heat-sums");
        const tn_sim_heat_t *h = &r->eng.heat;
        CHECK(h->on && h->lgroup == TN_SIM_HEAT_PER_SWITCH && h->nlrow == 49);
        CHECK(h->queues == pkt && (!pkt || (h->qgroup == TN_SIM_HEAT_PER_SWITCH && h->nqrow == 48)));
        CHECK(h->bin_w > 1000 && h->nbins > h->nbins_max / 2 && h->nbins <= h->nbins_max);
        double up = named_sum(h, "endpoint up"), all = 0;
        for (int32_t k = 1; k < h->nlrow; k++) {
            all += lsum(h, k);
        }
        CHECK(same(up, total + pkt * hdr));
        printf("heat-sums: %s, 4-ary 3-tree: endpoint up-links %.0f bytes (want %.0f), switch outputs "
               "%.0f, %d bins of %.0f ns\n", pkt ? "packet" : "flow", up, total + pkt * hdr, all,
               h->nbins, h->bin_w);
        tn_sim_teardown(r);
    }
    /* 8-ary 3-tree (192 switches): rows per link class and level */
    const char *kv8[] = {"topo=fattree", "k=8", "n=3", "pattern=alltoall", "phases=3", "size=65536",
                         "heatmap=on", NULL};
    tn_sim_run_t *r = sim_run_words(kv8, "heat-sums");
    const tn_sim_heat_t *h = &r->eng.heat;
    const char *want[] = {"endpoint up", "endpoint down", "level 1 up", "level 2 down", "level 2 up",
                          "level 3 down"};
    CHECK(h->lgroup == TN_SIM_HEAT_PER_CLASS && h->nlrow == 6);
    for (int i = 0; i < 6 && i < h->nlrow; i++) {
        CHECK(strcmp(h->lrow_name[i], want[i]) == 0);
    }
    CHECK(h->lrow_n[0] == 512 && h->lrow_n[1] == 512 && h->lrow_n[5] == 512);
    total = 512.0 * 3 * 65536;
    double up = named_sum(h, "endpoint up"), down = named_sum(h, "endpoint down");
    CHECK(same(up, total) && same(down, total));
    printf("heat-sums: flow, 8-ary 3-tree, rows by class: up %.0f, down %.0f (want %.0f)\n", up, down,
           total);
    tn_sim_teardown(r);
}

static void pkt_incast(void)
{
    /* A, B, C, D -> X on s0, 256 KiB each; s1 (E, F) idle.  Ids: A 0 B 1
     * C 2 D 3 X 4 E 5 F 6. */
    const char *g = "graph 1\nswitch s0\nswitch s1\nendpoint A\nendpoint B\nendpoint C\nendpoint D\n"
                    "endpoint X\nendpoint E\nendpoint F\n"
                    "link A s0 100 100\nlink B s0 100 100\nlink C s0 100 100\nlink D s0 100 100\n"
                    "link X s0 100 100\nlink s0 s1 100 100\nlink E s1 100 100\nlink F s1 100 100\n";
    const uint64_t S = 262144;
    int32_t src[4] = {0, 1, 2, 3}, dst[4] = {4, 4, 4, 4};
    uint64_t bytes[4] = {S, S, S, S};
    heat_case_t c;
    heat_run(&c, g, 4, src, dst, bytes, 100, 1);
    const tn_sim_heat_t *h = &c.e.heat;
    CHECK(h->queues && h->nqrow == 2);
    int32_t q0 = qrow(h, "s0"), q1 = qrow(h, "s1");
    double peak0 = 0, peak1 = 0;
    for (int32_t b = 0; b < h->nbins; b++) {
        double v0 = h->qmax[(size_t)q0 * (size_t)h->nbins_max + b];
        double v1 = h->qmax[(size_t)q1 * (size_t)h->nbins_max + b];
        peak0 = v0 > peak0 ? v0 : peak0;
        peak1 = v1 > peak1 ? v1 : peak1;
    }
    CHECK(peak0 >= 3 * 4160);  /* three senders' packets wait while one goes */
    CHECK(peak1 == 0);
    CHECK(h->sw_q[0] == 0 && h->sw_q[1] == 0);  /* all drained */
    /* the receiver's link: every byte and header, full while the incast
     * lasts (4 x 256 KiB at 12.5 B/ns: 85 us and more) */
    double wire = S + 64.0 * 64;
    int32_t x = lrow(h, "s0>X");
    CHECK(same(lsum(h, x), 4 * wire) && same(lsum(h, lrow(h, "A>s0")), wire));
    double busy = 4 * wire / 12.5;
    int32_t full = 0, nfull = 0;
    for (int32_t b = 1; (b + 1) * h->bin_w < busy; b++) {
        nfull++;
        full += tn_sim_heat_util(h, x, b) >= 0.99;
    }
    CHECK(nfull >= 10 && full == nfull);
    const char *idle[] = {"s0>s1", "s1>s0", "E>s1", "s1>E", "F>s1", "s1>F", "X>s0", "s0>A"};
    for (int i = 0; i < 8; i++) {
        CHECK(lsum(h, lrow(h, idle[i])) == 0);
    }
    printf("heat-pkt-incast: s0 queue peak %.0f B, s1 %.0f B; receiver's link full in %d of %d bins of "
           "%.0f ns\n", peak0, peak1, full, nfull, h->bin_w);
    heat_done(&c);
}

int main(int argc, char **argv)
{
    const char *w = argc > 1 ? argv[1] : "";
    if (strcmp(w, "heat-one-flow") == 0) {
        one_flow();
    } else if (strcmp(w, "heat-shared") == 0) {
        shared();
    } else if (strcmp(w, "heat-sums") == 0) {
        sums();
    } else if (strcmp(w, "heat-pkt-incast") == 0) {
        pkt_incast();
    } else {
        fprintf(stderr, "usage: test_sim_heat SCENARIO (see the file's header)\n");
        return 2;
    }
    return tn_check_report(w);
}
