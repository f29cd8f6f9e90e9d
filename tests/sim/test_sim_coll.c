/* tern-sim's synthetic collectives (pattern = coll, sim_coll_job.c):
 *   ring-hand   Tern's ring allreduce (tern-coll-plan, argv[1]) and the
 *               ring's model on one switch, worked out by hand;
 *   llf-glf     LLF and GLF allreduce, allgather and alltoall on a
 *               dragonfly: the bytes each puts on local and on global
 *               links, exactly, and the one that crosses less the faster
 *               where global links are few;
 *   refused     what does not apply is refused with a reason;
 *   mcast-hand  a hardware-multicast broadcast on a 4-ary 2-tree, by
 *               hand: B / bw + 4 link latencies, exactly B bytes on each
 *               of the tree's 20 links and none elsewhere, faster than
 *               Tern's binomial broadcast (and the binomial model);
 *   mcast-share a multicast and a route sharing one link get half of it
 *               each (max-min), to the nanosecond, and the multicast
 *               takes the whole link when the route is gone; multicasts
 *               among routes on a fat-tree give the same figures with
 *               rates updated incrementally and from scratch;
 *   mcast-packet the multicast of mcast-hand at packet level, by hand:
 *               replicated at the switches, every tree link carries each
 *               packet once (the root's up-link too), none elsewhere, the
 *               last packet's cut-through to the nanosecond; the same
 *               under PFC; mcast-share's multicast and route sharing a
 *               link at packet level; broadcast jobs among a uniform one;
 *   mcast-refused  a multicast with congestion control at packet level,
 *               for a kind other than bcast, with no destination, to an
 *               endpoint that is not there, from a root that is not a
 *               member: clear errors.
 * Usage: test_sim_coll SCENARIO TERN_COLL_PLAN */
#include <math.h>

#include "check.h"
#include "sim/sim_hand.h"

#include "sim_coll_job.h"
#include "sim_replay_coll.h"

static char plan_kv[4200];

static void done(tn_sim_run_t *r)
{
    tn_sim_run_clear(r);
    tn_sim_teardown(r);
}

/* One switch, 4 endpoints, 1 us per link, 1 byte/ns; allreduce of 4000
 * bytes on the ring: 6 steps, in each every rank sends 1000 bytes to its
 * neighbour, on links no one else uses: 1000 ns + 2 x 1000 ns per step,
 * 18000 ns in all.  Tern's ring (each rank goes on when what it receives
 * has arrived) and the model (sendrecv rounds) agree here. */
static void ring_hand(void)
{
    const char *kv[] = {"topo=fattree", "k=4", "n=1", "lat=1000", "bw=8", "host_lat=1000", "host_bw=8",
                        "pattern=coll", "coll=allreduce", "coll_algo=ring", "size=4000", plan_kv, NULL};
    tn_sim_run_t *r = sim_run_words(kv, "ring-hand (Tern's ring)");
    printf("ring-hand: Tern's ring %.1f ns (hand: 18000)\n", r->res[0].job_time);
    CHECK(r->res[0].job_time == 18000);
    done(r);
    const char *kv2[] = {"topo=fattree", "k=4", "n=1", "lat=1000", "bw=8", "host_lat=1000", "host_bw=8",
                         "pattern=coll", "coll=allreduce", "coll_algo=ring", "size=4000", "coll_plan=off", NULL};
    r = sim_run_words(kv2, "ring-hand (the model)");
    printf("ring-hand: the model %.1f ns (hand: 18000)\n", r->res[0].job_time);
    CHECK(r->res[0].job_time == 18000);
    done(r);
    /* three back to back, 500 ns of compute between them */
    const char *kv3[] = {"topo=fattree", "k=4", "n=1", "lat=1000", "bw=8", "host_lat=1000", "host_bw=8",
                         "pattern=coll", "coll=allreduce", "coll_algo=ring", "size=4000", "iters=3", "delay=500",
                         plan_kv, NULL};
    r = sim_run_words(kv3, "ring-hand (3 iterations)");
    CHECK(r->res[0].job_time == 3 * 18000 + 2 * 500);
    done(r);
}

/* Bytes a run put inside groups and across them. */
static void split(const tn_sim_run_t *r, uint64_t *in, uint64_t *across)
{
    const tn_sim_job_t *j = &r->jobs[0];
    const tn_sim_dag_t *g = &r->dag[0];
    *in = *across = 0;
    for (int32_t k = 0; k < g->n; k++) {
        if (g->nd[k].dst < 0) {
            continue;
        }
        int32_t a = tn_sim_ep_switch(&r->topo, j->ep[g->nd[k].src]) / r->topo.df.per_group;
        int32_t b = tn_sim_ep_switch(&r->topo, j->ep[g->nd[k].dst]) / r->topo.df.per_group;
        *(a == b ? in : across) += g->bytes[k];
    }
}

/* A dragonfly of 9 groups (g) of 4 routers with 2 endpoints each: 8
 * ranks per group (m).  Per rank:
 *   allreduce of B = 72000: LLF 2 (m-1) B/m = 126000 inside its group,
 *     2 (g-1) B/(m g) = 16000 across; GLF 2 (g-1) B/g = 128000 across,
 *     2 (m-1) B/(g m) = 14000 inside;
 *   allgather of b = 1000: LLF (m-1) b = 7000 inside, (g-1) m b = 64000
 *     across; GLF (g-1) b = 8000 across, (m-1) g b = 63000 inside;
 *   alltoall of b = 1000: either (m-1) g b = 63000 inside and
 *     (g-1) m b = 64000 across. */
static void llf_glf(void)
{
    static const struct {
        const char *kind, *size;
        uint64_t llf_in, llf_across, glf_in, glf_across;
    } cases[] = {
        {"coll=allreduce", "size=72000", 126000, 16000, 14000, 128000},
        {"coll=allgather", "size=1000", 7000, 64000, 63000, 8000},
        {"coll=alltoall", "size=1000", 63000, 64000, 63000, 64000},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        double t[2];
        for (int glf = 0; glf < 2; glf++) {
            const char *kv[] = {"topo=dragonfly", "a=4", "p=2", "h=2", "pattern=coll", cases[c].kind,
                                glf ? "coll_algo=glf" : "coll_algo=llf", cases[c].size, NULL};
            tn_sim_run_t *r = sim_run_words(kv, cases[c].kind);
            uint64_t in, across;
            t[glf] = r->res[0].job_time;
            split(r, &in, &across);
            printf("%s %s: %.6g ns, %llu bytes inside groups, %llu across\n", cases[c].kind, glf ? "glf" : "llf",
                   t[glf], (unsigned long long)in, (unsigned long long)across);
            CHECK(r->jobs[0].n == 72);
            CHECK(in == (uint64_t)72 * (glf ? cases[c].glf_in : cases[c].llf_in));
            CHECK(across == (uint64_t)72 * (glf ? cases[c].glf_across : cases[c].llf_across));
            done(r);
        }
        /* where global links are few, the one that crosses them with less goes faster */
        if (cases[c].llf_across < cases[c].glf_across) {
            CHECK(t[0] < t[1]);
        } else if (cases[c].llf_across > cases[c].glf_across) {
            CHECK(t[1] < t[0]);
        }
    }
}

static void expect_refused(const char *const *kv, const char *word)
{
    static tn_sim_conf_t c;
    static tn_sim_run_t r;
    char why[512] = "";
    tn_sim_status_t st = TN_SIM_OK;
    tn_sim_conf_defaults(&c);
    st = sim_conf_words(&c, kv, why, sizeof(why));
    if (st == TN_SIM_OK) {
        st = tn_sim_setup(&r, &c, NULL, 0, why, sizeof(why));
        if (st == TN_SIM_OK) {
            st = tn_sim_run_once(&r, &c, -1, why, sizeof(why));
            tn_sim_run_clear(&r);
            tn_sim_teardown(&r);
        }
    }
    printf("refused: %s\n", why);
    CHECK(st != TN_SIM_OK && strstr(why, word) != NULL);
}

static void refused(void)
{
    const char *llf_ft[] = {"topo=fattree", "k=4", "n=2", "pattern=coll", "coll_algo=llf", NULL};
    expect_refused(llf_ft, "dragonfly");
    const char *llf_bcast[] = {"topo=dragonfly", "a=4", "p=2", "h=2", "pattern=coll", "coll=bcast",
                               "coll_algo=glf", NULL};
    expect_refused(llf_bcast, "alltoall");
    const char *uneven[] = {"topo=dragonfly", "a=4", "p=2", "h=2", "ranks=20", "pattern=coll",
                            "coll_algo=llf", NULL};
    expect_refused(uneven, "every group");
    const char *open[] = {"topo=fattree", "k=4", "n=2", "mode=open", "pattern=coll", NULL};
    expect_refused(open, "batch");
    const char *nomodel[] = {"topo=fattree", "k=4", "n=2", "pattern=coll", "coll=gather", "coll_algo=linear",
                             "coll_plan=off", NULL};
    expect_refused(nomodel, "no model");
    const char *root[] = {"topo=fattree", "k=4", "n=2", "pattern=coll", "coll=bcast", "root=99", plan_kv, NULL};
    expect_refused(root, "root");
    const char *bad[] = {"topo=fattree", "k=4", "n=2", "pattern=coll", "coll_algo=nosuch", NULL};
    expect_refused(bad, "coll_algo");
}

/* Bytes the run carried on each link, from the heatmap (one row per
 * link on a fabric of at most 64), into bytes[port] (0: none). */
static void link_bytes(const tn_sim_run_t *r, double *bytes)
{
    const tn_sim_heat_t *h = &r->eng.heat;
    CHECK(h->on && h->lgroup == TN_SIM_HEAT_PER_LINK);
    for (int32_t p = 0; p < r->topo.n_port; p++) {
        bytes[p] = 0;
        int32_t row = h->port_row[p];
        for (int32_t b = 0; row >= 0 && b < h->nbins; b++) {
            bytes[p] += h->lbytes[(size_t)row * (size_t)h->nbins_max + b];
        }
    }
}

/* A 4-ary 2-tree (16 endpoints on 4 leaves, 4 spines), every link 1
 * byte/ns and 100 ns: a broadcast of B = 10^6 bytes from rank 0 as one
 * multicast.  The tree: the root's up-link, its leaf's 3 other endpoint
 * links, one leaf-to-spine link (D-mod-k sends the first destination
 * off the leaf through one spine; the others graft onto it there), the
 * spine's links to the 3 other leaves and their 12 endpoint links: 20
 * links, B bytes each, the other 44 idle.  Time: B / 1 + 4 x 100 ns =
 * 1 000 400 ns.  The binomial model takes 4 rounds of B (4 001 200 ns);
 * Tern's own binomial broadcast (tern-coll-plan) is slower still. */
/* The bytes each link of r carried (its heatmap), and how many links
 * carried `want` bytes (on; bad: off by more than 1e-6) or none (off). */
static void tree_links(tn_sim_run_t *r, double want, double *bytes, int *on, int *off, int *bad)
{
    CHECK(r->topo.n_port <= 256);
    link_bytes(r, bytes);
    *on = *off = *bad = 0;
    for (int32_t p = 0; p < r->topo.n_port; p++) {
        if (r->topo.peer[p] < 0) {
            continue;
        }
        if (bytes[p] > 0) {
            (*on)++;
            *bad += fabs(bytes[p] - want) > 1e-6 * want;
        } else {
            (*off)++;
        }
    }
}

static void mcast_hand(void)
{
    enum { B = 1000000 };
    const char *kv[] = {"topo=fattree", "k=4", "n=2", "lat=100", "bw=8", "pattern=coll", "coll=bcast",
                        "coll_algo=mcast", "size=1000000", "heatmap=on", "bins=200", NULL};
    tn_sim_run_t *r = sim_run_words(kv, "mcast-hand");
    double t_mc = r->res[0].job_time;
    printf("mcast-hand: multicast %.1f ns (hand: 1000400)\n", t_mc);
    CHECK(t_mc == B + 400);
    double bytes[256];
    int on, off, bad;
    tree_links(r, B, bytes, &on, &off, &bad);
    printf("mcast-hand: %d links carried %d bytes each (%d off by more than 1e-6), %d idle\n", on, B, bad, off);
    CHECK(on == 20 && off == 44 && bad == 0);
    CHECK(bytes[0] == B || fabs(bytes[0] - B) <= 1e-6 * B);  /* the root's up-link */
    done(r);
    const char *kb[] = {"topo=fattree", "k=4", "n=2", "lat=100", "bw=8", "pattern=coll", "coll=bcast",
                        "coll_algo=binomial", "size=1000000", plan_kv, NULL};
    r = sim_run_words(kb, "mcast-hand (Tern's binomial)");
    double t_bin = r->res[0].job_time;
    done(r);
    const char *km[] = {"topo=fattree", "k=4", "n=2", "lat=100", "bw=8", "pattern=coll", "coll=bcast",
                        "coll_algo=binomial", "size=1000000", "coll_plan=off", NULL};
    r = sim_run_words(km, "mcast-hand (the binomial model)");
    double t_model = r->res[0].job_time;
    done(r);
    printf("mcast-hand: Tern's binomial %.1f ns, the binomial model %.1f ns\n", t_bin, t_model);
    /* 4 rounds of B on links of their own: masks 8 and 4 cross the spines
     * (4 links, 400 ns), 2 and 1 stay on a leaf (200 ns) */
    CHECK(t_model == 4.0 * B + 400 + 400 + 200 + 200);
    CHECK(t_mc < t_bin && t_mc < t_model);
}

/* Posts what a case lists at t = 0: a multicast from mc_src to mc_dst
 * (mc_n of them, the root and a repeat among them), then routes. */
typedef struct {
    tn_sim_src_t base;
    int32_t mc_src, mc_n;
    const int32_t *mc_dst;
    uint64_t mc_bytes;
    int nf;
    const int32_t *src, *dst;
    const uint64_t *bytes;
    double done[8];
} mc_src_t;

static tn_sim_status_t mc_start(tn_sim_src_t *s, tn_sim_eng_t *e)
{
    mc_src_t *m = (mc_src_t *)s;
    tn_sim_status_t st = tn_sim_eng_post_mcast(e, 0, 0, m->mc_src, m->mc_dst, m->mc_n, m->mc_bytes, 0);
    for (int i = 0; i < m->nf && st == TN_SIM_OK; i++) {
        st = tn_sim_eng_post(e, 0, 0, m->src[i], m->dst[i], m->bytes[i], 1 + i);
    }
    return st;
}

static tn_sim_status_t mc_delivered(tn_sim_src_t *s, tn_sim_eng_t *e, int64_t cookie, double t)
{
    (void)e;
    ((mc_src_t *)s)->done[cookie] = t;
    return TN_SIM_OK;
}

static const tn_sim_src_ops_t mc_ops = {.start = mc_start, .delivered = mc_delivered};

/* Runs m on a graph fabric (at packet level when pk is not NULL);
 * returns the engine's status, why in e->why. */
static tn_sim_status_t mc_run_on(mc_src_t *m, const char *graph, tn_sim_eng_t *e, tn_sim_topo_t *t,
                                 tn_sim_router_t *rt, tn_sim_pkt_t *pk)
{
    sim_graph_fabric(graph, t, rt);
    static int32_t ep[64];
    for (int32_t i = 0; i < t->n_ep && i < 64; i++) {
        ep[i] = i;
    }
    static tn_sim_job_t job;
    job.n = t->n_ep;
    job.ep = ep;
    m->base = (tn_sim_src_t){.ops = &mc_ops, .job = 0};
    tn_sim_src_t *srcs[1] = {&m->base};
    tn_sim_eng_conf_t ec = {.t_end = INFINITY, .bins = 10, .bin_w = 1000, .seed = 1};
    if (tn_sim_eng_init(e, t, rt, &job, srcs, 1, &ec) != TN_SIM_OK) {
        fprintf(stderr, "engine: %s\n", e->why);
        exit(2);
    }
    if (pk != NULL) {
        tn_sim_pkt_conf_t pc = {.mtu = 4096, .hdr = 64, .buf = 65536};
        if (tn_sim_pkt_init(pk, t, rt, &pc, 1) != TN_SIM_OK) {
            exit(2);
        }
        e->pkt = pk;
    }
    return tn_sim_eng_run(e);
}

static tn_sim_status_t mc_run(mc_src_t *m, const char *graph, tn_sim_eng_t *e, tn_sim_topo_t *t,
                              tn_sim_router_t *rt)
{
    return mc_run_on(m, graph, e, t, rt, NULL);
}

static void mc_free(tn_sim_eng_t *e, tn_sim_topo_t *t, tn_sim_router_t *rt)
{
    tn_sim_eng_fini(e);
    tn_sim_route_fini(rt);
    tn_sim_topo_free(t);
}

/* One switch, A 0, B 1, C 2, X 3, Y 4, links of 100 Gb/s (12.5 B/ns)
 * and 50 ns.  A multicasts 125 000 bytes to B and C (its list also
 * names A and B again: they count once); X sends to B.  The tree is
 * A>sw, sw>B, sw>C; sw>B is shared: 6.25 B/ns each.  Equal bytes: both
 * drain at 20 000 ns and arrive at 20 100 (two 50 ns links).  The route
 * with half the bytes: it drains at 10 000 ns; the multicast's other
 * 62 500 bytes then go at 12.5 B/ns in 5 000 ns, arriving at 15 100. */
static void mcast_share(void)
{
    static const int32_t mc_dst[4] = {1, 0, 2, 1}, src[1] = {3}, dst[1] = {1};
    for (int half = 0; half < 2; half++) {
        const uint64_t bytes[1] = {half ? 62500 : 125000};
        mc_src_t m = {.mc_src = 0, .mc_n = 4, .mc_dst = mc_dst, .mc_bytes = 125000, .nf = 1, .src = src,
                      .dst = dst, .bytes = bytes};
        tn_sim_eng_t e;
        tn_sim_topo_t t;
        tn_sim_router_t rt;
        CHECK(mc_run(&m, SIM_HAND_VICTIM, &e, &t, &rt) == TN_SIM_OK);
        printf("mcast-share: multicast %.1f ns, route %.1f ns (hand: %s)\n", m.done[0], m.done[1],
               half ? "15100, 10100" : "20100, 20100");
        CHECK(m.done[0] == (half ? 15100 : 20100));
        CHECK(m.done[1] == (half ? 10100 : 20100));
        CHECK(e.flow_starts == 2 && e.flow_ends == 2);
        mc_free(&e, &t, &rt);
    }
    /* two broadcast jobs as multicasts (trees of up to 28 links, longer
     * than a route's slots) and a uniform job, their links shared */
    tn_sim_jres_t res[2][3];
    for (int full = 0; full < 2; full++) {
        const char *kv[] = {"topo=fattree", "k=4", "n=3", "lat=100", "bw=8", full ? "maxmin=full" : "maxmin=incr",
                            "pattern=coll", "coll=bcast", "coll_algo=mcast", "ranks=24", "map=random",
                            "iters=6", "size=50000", "job", "pattern=coll", "coll=bcast", "coll_algo=mcast",
                            "ranks=20", "root=5", "map=random", "iters=9", "size=20000", "job", "pattern=uniform",
                            "count=30", "window=3", "size=30000", NULL};
        static tn_sim_conf_t c;
        static tn_sim_run_t r;
        char why[512] = "";
        tn_sim_status_t st = TN_SIM_OK;
        tn_sim_conf_defaults(&c);
        st = sim_conf_words(&c, kv, why, sizeof(why));
        CHECK(st == TN_SIM_OK);
        CHECK(tn_sim_setup(&r, &c, NULL, 0, why, sizeof(why)) == TN_SIM_OK);
        CHECK(tn_sim_run_once(&r, &c, -1, why, sizeof(why)) == TN_SIM_OK);
        for (int j = 0; j < 3; j++) {
            res[full][j] = r.res[j];
        }
        printf("mcast-share: %s: job times %.1f %.1f %.1f ns\n", full ? "from scratch" : "incremental",
               res[full][0].job_time, res[full][1].job_time, res[full][2].job_time);
        done(&r);
    }
    for (int j = 0; j < 3; j++) {
        CHECK(fabs(res[0][j].job_time - res[1][j].job_time) <= 1e-9 * res[1][j].job_time);
        CHECK(fabs(res[0][j].fct_mean - res[1][j].fct_mean) <= 1e-9 * res[1][j].fct_mean);
        CHECK(res[0][j].done == res[1][j].done && res[0][j].done > 0);
    }
    /* the multicasts met other traffic: slower than alone (50000 bytes at
     * 1 byte/ns and at most 6 links of 100 ns, 6 times) */
    CHECK(res[0][0].job_time > 6 * (50000 + 600.0));
}

/* mcast-hand's broadcast at packet level (4096-byte payloads, 64-byte
 * headers): 245 packets, 1 015 680 bytes on the wire.  The root's NIC
 * sends them back to back; every tree link carries each packet once at
 * the same 1 byte/ns, so the last one (576 + 64 bytes, leaving the NIC at
 * t0 = 1 015 040) goes through by cut-through: its head is at the first
 * switch at t0 + 100 + 64, its tail at t0 + 740; each switch sends it on
 * as soon as its head is in, and ends when its tail is through (640 ns
 * after it started, or 100 ns after the tail arrived): done at t0 + 804,
 * t0 + 968, and at the farthest endpoint its last byte is in at t0 + 492
 * + 100 + 640 = 1 016 272 ns. */
static void mcast_packet(void)
{
    enum { WIRE = 1000000 + 245 * 64 };
    for (int pfc = 0; pfc < 2; pfc++) {
        const char *kv[] = {"topo=fattree", "k=4", "n=2", "lat=100", "bw=8", "pattern=coll", "coll=bcast",
                            "coll_algo=mcast", "size=1000000", "fidelity=packet", pfc ? "pfc=on" : "pfc=off",
                            "heatmap=on", "bins=200", NULL};
        tn_sim_run_t *r = sim_run_words(kv, "mcast-packet");
        double t_mc = r->res[0].job_time;
        printf("mcast-packet: %s: multicast %.3f ns (hand: 1016272), %llu packets made, %llu hops\n",
               pfc ? "pfc" : "credits", t_mc, (unsigned long long)r->pkt.pkts, (unsigned long long)r->pkt.hops);
        CHECK(fabs(t_mc - 1016272) < 1e-6);
        /* 245 from the NIC, 14 more copies of each at the switches; one
         * hop per tree link per packet */
        CHECK(r->pkt.pkts == 245 * 15 && r->pkt.hops == 245 * 20);
        double bytes[256];
        int on, off, bad;
        tree_links(r, WIRE, bytes, &on, &off, &bad);
        printf("mcast-packet: %d links carried %d bytes each (%d off), %d idle\n", on, WIRE, bad, off);
        CHECK(on == 20 && off == 44 && bad == 0);
        done(r);
    }
    /* mcast-share's one switch at packet level: the multicast and the
     * route, 31 packets each (30 of 4160 wire bytes, one of 2184: 126 984
     * bytes), alternate on sw>B (round-robin over its inputs), which is
     * busy from the first head's arrival (50 + 64 / 12.5 = 55.12 ns) until
     * all 253 968 bytes have left at 12.5 B/ns (20 372.56 ns): the route's
     * last packet, the last out, is in at B at 20 422.56 ns; the
     * multicast's, out just before it, 2184 / 12.5 ns earlier, at
     * 20 247.84 ns (its copies to C are in before) */
    static const int32_t mc_dst[4] = {1, 0, 2, 1}, src[1] = {3}, dst[1] = {1};
    const uint64_t bytes[1] = {125000};
    mc_src_t m = {.mc_src = 0, .mc_n = 4, .mc_dst = mc_dst, .mc_bytes = 125000, .nf = 1, .src = src,
                  .dst = dst, .bytes = bytes};
    tn_sim_eng_t e;
    tn_sim_topo_t t;
    tn_sim_router_t rt;
    tn_sim_pkt_t pk;
    CHECK(mc_run_on(&m, SIM_HAND_VICTIM, &e, &t, &rt, &pk) == TN_SIM_OK);
    printf("mcast-packet: share: multicast %.2f ns, route %.2f ns (hand: 20247.84, 20422.56)\n", m.done[0],
           m.done[1]);
    CHECK(fabs(m.done[0] - 20247.84) < 1e-6 && fabs(m.done[1] - 20422.56) < 1e-6);
    CHECK(e.flow_starts == 2 && e.flow_ends == 2 && pk.pkts == 31 * 3);
    tn_sim_pkt_fini(&pk);
    mc_free(&e, &t, &rt);
    /* mcast-share's broadcast jobs as multicasts among a uniform job, at
     * both levels: every message delivered at each, the job times within
     * a quarter of each other (max-min against round-robin; were the
     * multicasts sent as a unicast per destination they would take up to
     * 23 and 19 times longer) */
    tn_sim_jres_t res[2][3];
    for (int pkt = 0; pkt < 2; pkt++) {
        const char *kv[] = {"topo=fattree", "k=4", "n=3", "lat=100", "bw=8", pkt ? "fidelity=packet" : "fidelity=flow",
                            "pattern=coll", "coll=bcast", "coll_algo=mcast", "ranks=24", "map=random",
                            "iters=6", "size=50000", "job", "pattern=coll", "coll=bcast", "coll_algo=mcast",
                            "ranks=20", "root=5", "map=random", "iters=9", "size=20000", "job", "pattern=uniform",
                            "count=30", "window=3", "size=30000", NULL};
        tn_sim_run_t *r = sim_run_words(kv, "mcast-packet (jobs)");
        for (int j = 0; j < 3; j++) {
            res[pkt][j] = r->res[j];
        }
        printf("mcast-packet: jobs at %s level: %.1f %.1f %.1f ns, %llu %llu %llu messages\n",
               pkt ? "packet" : "flow", r->res[0].job_time, r->res[1].job_time, r->res[2].job_time,
               (unsigned long long)r->res[0].done, (unsigned long long)r->res[1].done,
               (unsigned long long)r->res[2].done);
        done(r);
    }
    for (int j = 0; j < 3; j++) {
        CHECK(res[1][j].done == res[0][j].done && res[0][j].done > 0);
        CHECK(res[1][j].job_time > 0.75 * res[0][j].job_time && res[1][j].job_time < 1.25 * res[0][j].job_time);
    }
}

static void mcast_refused(void)
{
    const char *pkt[] = {"topo=fattree", "k=4", "n=2", "pattern=coll", "coll=bcast", "coll_algo=mcast",
                         "fidelity=packet", "cc=dcqcn", NULL};
    expect_refused(pkt, "cc = none");
    expect_refused(pkt, "coll_algo = mcast");
    const char *pkt_replay[] = {"topo=fattree", "k=4", "n=2", "replay=x.vef", "bcast_mcast=on",
                                "fidelity=packet", "cc=acc", NULL};
    expect_refused(pkt_replay, "bcast_mcast = on");
    const char *kind[] = {"topo=fattree", "k=4", "n=2", "pattern=coll", "coll=allreduce", "coll_algo=mcast",
                          NULL};
    expect_refused(kind, "a bcast only");
    const char *root[] = {"topo=fattree", "k=4", "n=2", "pattern=coll", "coll=bcast", "coll_algo=mcast",
                          "root=16", NULL};
    expect_refused(root, "root 16 is not one of its 16 ranks");
    /* the engine: no destination, one outside the fabric */
    static const int32_t none[1] = {0}, outside[2] = {1, 5};
    const int32_t *lists[2] = {none, outside};
    const int32_t counts[2] = {0, 2};
    const char *words[2] = {"no destination", "endpoint 5 (of 5)"};
    for (int k = 0; k < 2; k++) {
        mc_src_t m = {.mc_src = 0, .mc_n = counts[k], .mc_dst = lists[k], .mc_bytes = 1000};
        tn_sim_eng_t e;
        tn_sim_topo_t t;
        tn_sim_router_t rt;
        CHECK(mc_run(&m, SIM_HAND_VICTIM, &e, &t, &rt) == TN_SIM_ERR_INVAL);
        printf("refused: %s\n", e.why);
        CHECK(strstr(e.why, words[k]) != NULL);
        mc_free(&e, &t, &rt);
    }
    /* a broadcast whose root is not a member, or with no members: nothing added */
    tn_sim_prog_t p;
    tn_sim_prog_init(&p);
    int32_t world[3] = {0, 1, 2}, state[3];
    uint64_t sb[3] = {100, 100, 100}, rb[3] = {100, 100, 100};
    CHECK(tn_sim_prog_ranks(&p, 3) == TN_SIM_OK);
    for (int i = 0; i < 3; i++) {
        state[i] = tn_sim_prog_node(&p, i, -1, 0, 0);
    }
    const int32_t roots[3] = {-1, 3, 0}, ns[3] = {3, 3, 0};
    for (int k = 0; k < 3; k++) {
        tn_sim_coll_t c = {.n = ns[k], .world = world, .state = state, .sbytes = sb, .rbytes = rb, .root = roots[k]};
        CHECK(tn_sim_coll_mcast(&p, &c) == TN_SIM_ERR_INVAL);
    }
    CHECK(p.n == 3 && p.mc.n == 0);
    tn_sim_coll_t c = {.n = 3, .world = world, .state = state, .sbytes = sb, .rbytes = rb, .root = 1};
    CHECK(tn_sim_coll_mcast(&p, &c) == TN_SIM_OK);
    CHECK(p.mc.n == 1 && p.mc.off[1] == 2 && p.mc.v[0] == 0 && p.mc.v[1] == 2 && p.src[3] == 1);
    CHECK(p.dst[3] == TN_SIM_PROG_MCAST);  /* not a join, not CPU work */
    /* into a DAG beside a rank's own work: one multicast to slots 0 and 2,
     * the work a join of its delay (no host model) */
    int32_t w = tn_sim_prog_node(&p, 2, TN_SIM_PROG_CPU, 0, 100);
    CHECK(w >= 0 && tn_sim_prog_edge(&p, p.n - 2, w) == TN_SIM_OK);
    tn_sim_replay_conf_t rc = {.eager = 1, .shm_lat = 1, .shm_bw = 1, .slot_mode = TN_SIM_SLOT_RANK};
    tn_sim_dag_t g;
    char why[128];
    CHECK(tn_sim_prog_dag(&p, &rc, &g, why, sizeof(why)) == TN_SIM_OK);
    int32_t x = p.to_dag[3], y = p.to_dag[w];
    CHECK(g.mc.n == 1 && g.nd[x].dst == TN_SIM_DAG_MCAST && g.mc.off[1] == 2 && g.mc.v[0] == 0 && g.mc.v[1] == 2);
    CHECK(g.nd[y].dst == TN_SIM_DAG_JOIN && g.nd[y].delay == 100);
    tn_sim_dag_free(&g);
    CHECK(tn_sim_prog_mcast(&p, 0, world, 0, 100, 0) == -1);
    tn_sim_prog_free(&p);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_sim_coll ring-hand|llf-glf|refused|mcast-hand|mcast-share|mcast-packet|"
                        "mcast-refused "
                        "TERN_COLL_PLAN\n");
        return 2;
    }
    snprintf(plan_kv, sizeof(plan_kv), "coll_plan=%s", argv[2]);
    if (strcmp(argv[1], "ring-hand") == 0) {
        ring_hand();
    } else if (strcmp(argv[1], "llf-glf") == 0) {
        llf_glf();
    } else if (strcmp(argv[1], "refused") == 0) {
        refused();
    } else if (strcmp(argv[1], "mcast-hand") == 0) {
        mcast_hand();
    } else if (strcmp(argv[1], "mcast-share") == 0) {
        mcast_share();
    } else if (strcmp(argv[1], "mcast-packet") == 0) {
        mcast_packet();
    } else if (strcmp(argv[1], "mcast-refused") == 0) {
        mcast_refused();
    } else {
        fprintf(stderr, "no scenario %s\n", argv[1]);
        return 2;
    }
    char name[64];
    snprintf(name, sizeof(name), "sim coll %s", argv[1]);
    return tn_check_report(name);
}
