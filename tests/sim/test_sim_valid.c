/* tern-sim flow-level validations (docs/sim.md, "Validation"): canonical
 * results the engine must reproduce, one scenario per ctest entry
 * (label "sim"):
 *
 *   fattree-uniform  4-ary 2-tree, uniform random, open loop at offered 1.0:
 *                    accepted 1.0 +- 0.02
 *   parking-lot      rates of a parking lot are exactly the max-min ones
 *   victim           a flow beside an incast gets exactly what is left
 *   store-forward    store_forward's last-frame term, worked out by hand
 *   fifo             share = fifo on the parking lot, by hand
 *   torus-tornado    8x8 torus, dimension order, tornado: accepted 1/3 +- 0.02
 *   torus-uniform    8x8 torus, uniform random: accepted >= 0.8 x the
 *                    bisection bound
 *   dfly-minimal     dragonfly, every node of group i to group i+1, minimal:
 *                    accepted <= 1.2 / (a p)
 *   dfly-valiant     the same with Valiant: 0.45 .. 0.5
 *   dfly-ugal        the same with UGAL: >= 0.9 x the better of the two
 *
 * Accepted load (open loop): bytes delivered during the measurement
 * window (after the warm-up), integrated from the flows' rates, divided by
 * (ranks x endpoint link bandwidth x window). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sim_run.h"
#include "sim_hand.h"

/* Runs a configuration given as "key=value" words; returns job 0's
 * accepted load (open loop) and prints the summary line. */
static double run_conf(const char *const *kv, const char *what)
{
    tn_sim_run_t *r = sim_run_words(kv, what);
    double acc = r->res[0].accepted;
    printf("%s: offered %.4f (measured %.4f), accepted %.4f; %llu flow events in %.2f s\n", what,
           r->res[0].offered, r->res[0].offered_meas, acc,
           (unsigned long long)(r->eng.flow_starts + r->eng.flow_ends), r->eng.wall_s);
    tn_sim_teardown(r);
    return acc;
}

static void fattree_uniform(void)
{
    /* Open loop at exactly the line rate is a critically loaded queue:
     * what is lost while an endpoint's backlog is empty, or while all its
     * flows are held back at their destinations, is never made up, and
     * the backlog that hides it grows like sqrt(t).  The accepted load
     * creeps up to 1 with the length of the run (docs/sim.md has the
     * figures: 0.95-0.96 for a 1 ms warm-up and window, 0.98-0.99 for
     * 8 ms), so the warm-up is long (8 ms, ~1500 message times) and the
     * window as long again. */
    const char *kv[] = {"topo=fattree", "k=4", "n=2", "mode=open", "pattern=uniform", "load=1.0",
                        "size=65536", "warmup=8000000", "time=16000000", "seed=1", NULL};
    double acc = run_conf(kv, "fattree-uniform");
    CHECK(fabs(acc - 1.0) <= 0.02);
}

static void torus_tornado(void)
{
    /* every flow of a row shares each + channel with the flows of the 2
     * sources behind it: 1/3 each, then the same in y */
    const char *kv[] = {"topo=torus", "dims=8x8", "mode=open", "pattern=tornado", "load=1.0",
                        "size=1048576", "warmup=1000000", "time=5000000", NULL};
    double acc = run_conf(kv, "torus-tornado");
    CHECK(fabs(acc - 1.0 / 3) <= 0.02);
}

static void torus_uniform(void)
{
    /* bisection bound of uniform traffic: 4 C / N (C channels across the
     * middle each way, a half of each half's traffic crossing), at most 1 */
    tn_sim_topo_params_t p;
    memset(&p, 0, sizeof(p));
    p.kind = TN_SIM_TOPO_TORUS;
    p.nd = 2;
    p.dims[0] = p.dims[1] = 8;
    p.tor_c = 1;
    p.link = (tn_sim_linkp_t){12.5, 100, 12.5, 100, 12.5, 100};
    tn_sim_topo_t t;
    char why[256];
    CHECK(tn_sim_topo_build(&t, &p, why, sizeof(why)) == TN_SIM_OK);
    int cross = 0;
    for (int32_t sw = 0; sw < t.n_sw; sw++) {
        for (int32_t i = t.tor.c; i < tn_sim_sw_deg(&t, sw); i++) {
            int32_t sw2 = t.peer[tn_sim_sw_port(&t, sw, i)] - t.n_ep;
            cross += sw % 8 < 4 && sw2 % 8 >= 4;
        }
    }
    double bound = 4.0 * cross / t.n_ep;
    bound = bound < 1 ? bound : 1;
    tn_sim_topo_free(&t);
    /* offered 1.0 is above what the torus accepts: backlogs build up and
     * the accepted load grows with the run's length as they do (0.79 for
     * 25 message times, 0.84 for 50, 0.91 for 200; docs/sim.md) */
    const char *kv[] = {"topo=torus", "dims=8x8", "mode=open", "pattern=uniform", "load=1.0",
                        "size=1048576", "warmup=1000000", "time=5000000", NULL};
    double acc = run_conf(kv, "torus-uniform");
    printf("torus-uniform: bisection bound %.3f (%d channels across)\n", bound, cross);
    CHECK(acc >= 0.8 * bound);
}

/* group i -> group i+1 on a balanced dragonfly (a = 2p = 2h = 6, 19
 * groups, 342 endpoints): minimal puts a p endpoints on one global link.
 * Valiant's own bound here is (g-2) / (2 a p) = 0.472 (half of the links
 * out of a group carry transit traffic, and the link to the destination
 * group is never used): it tends to h / 2p = 0.5 as groups grow. */
static double dfly(const char *route)
{
    char r[64];
    snprintf(r, sizeof(r), "route=%s", route);
    const char *kv[] = {"topo=dragonfly", "a=6", "p=3", "h=3", r, "mode=open", "pattern=tornado",
                        "load=1.0", "size=1048576", "warmup=500000", "time=2000000", NULL};
    char what[64];
    snprintf(what, sizeof(what), "dfly-%s", route);
    return run_conf(kv, what);
}

/* ---- exact max-min checks on small graph fabrics, flows posted by hand */


/* store_forward of the runs below (0: cut-through), and share = fifo */
static double hand_store_fwd;
static int hand_fifo;

/* Runs flows i: src[i] -> dst[i] (endpoint ids) of bytes[i] on a graph
 * fabric, all from t = 0; done[i] their delivery times. */
static void hand_run(const char *graph, int nf, const int32_t *src, const int32_t *dst,
                     const uint64_t *bytes, double *done, tn_sim_topo_t *t)
{
    tn_sim_router_t rt;
    sim_graph_fabric(graph, t, &rt);
    int32_t *ep = malloc(sizeof(int32_t) * (size_t)t->n_ep);
    for (int32_t i = 0; i < t->n_ep; i++) {
        ep[i] = i;
    }
    tn_sim_job_t job;
    memset(&job, 0, sizeof(job));
    job.n = t->n_ep;
    job.ep = ep;
    hand_src_t hs = {.base = {.ops = &hand_ops, .job = 0}, .nf = nf, .src = src, .dst = dst, .bytes = bytes};
    tn_sim_src_t *srcs[1] = {&hs.base};
    tn_sim_eng_conf_t ec = {.t_end = INFINITY, .w0 = 0, .bins = 10, .bin_w = 1000, .seed = 1,
                            .store_fwd = hand_store_fwd, .fifo = hand_fifo};
    tn_sim_eng_t e;
    CHECK(tn_sim_eng_init(&e, t, &rt, &job, srcs, 1, &ec) == TN_SIM_OK);
    CHECK(tn_sim_eng_run(&e) == TN_SIM_OK);
    memcpy(done, hs.done, sizeof(double) * (size_t)nf);
    tn_sim_eng_fini(&e);
    tn_sim_route_fini(&rt);
    free(ep);
}

static int same(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fabs(b);
}

/* Parking lot: switches s0-s1-s2-s3 in a row, 80 Gbit/s (10 B/ns) links
 * of 100 ns, hosts on 800 Gbit/s links of 0 ns so that only the row
 * counts.  A long flow s0 -> s3 and a short flow on each of the three
 * links: all get 5 B/ns.  With a second short flow on the first link,
 * that link's three flows get 10/3 and the other shorts 20/3 until they
 * end; nothing else changes (the long flow stays at 10/3). */
static void parking_lot(void)
{
    const char *g = SIM_HAND_PARKING_LOT;
    /* endpoint ids in declared order: L0 D1 a0 2 b0 3 a1 4 b1 5 a2 6 b2 7 c0 8 e0 9 */
    const uint64_t S = 1000000;
    int32_t src[5] = {0, 2, 4, 6, 8}, dst[5] = {1, 3, 5, 7, 9};
    uint64_t bytes[5] = {S, S, S, S, S};
    double done[5];
    tn_sim_topo_t t;
    hand_run(g, 4, src, dst, bytes, done, &t);
    tn_sim_topo_free(&t);
    CHECK(same(done[0], S / 5.0 + 300));           /* long: 5 B/ns, three 100 ns links */
    for (int i = 1; i < 4; i++) {
        CHECK(same(done[i], S / 5.0 + 100));
    }
    hand_run(g, 5, src, dst, bytes, done, &t);
    tn_sim_topo_free(&t);
    CHECK(same(done[0], S / (10.0 / 3) + 300));
    CHECK(same(done[1], S / (10.0 / 3) + 100) && same(done[4], S / (10.0 / 3) + 100));
    CHECK(same(done[2], S / (20.0 / 3) + 100) && same(done[3], S / (20.0 / 3) + 100));
    printf("parking-lot: long flow %.1f ns, shorts %.1f / %.1f ns (max-min: 1/2, then 1/3 and 2/3)\n",
           done[0], done[1], done[2]);
}

/* Store and forward (store_forward = 1500 bytes) on the parking lot's
 * row: L -> D crosses L's link (100 B/ns), three 10 B/ns links and D's
 * link.  A 1000-byte message is one frame that every switch holds whole:
 * 10 + 3 x 100 + 10 ns of serialisation, plus 300 ns of latency: 620 ns.
 * A 1 MB message in 1500-byte frames drains in 100 000 ns at 10 B/ns; its
 * last frame then waits 150 ns on each of the other two slow links and
 * 15 on each host link: 100 630 ns with the latency.  Two 1 MB flows from
 * a0 and c0 sharing s0-s1 (5 B/ns each): 200 000 ns, plus 100 of latency,
 * plus the last frame on their host links (15 + 15): 200 130 ns; shorter
 * than the frame, nothing changes for an empty message's 0 bytes. */
static void store_forward(void)
{
    const char *g = SIM_HAND_PARKING_LOT;
    int32_t src[1] = {0}, dst[1] = {1};
    uint64_t bytes[2] = {1000, 1000000};
    double one, big, two[2], cut;
    tn_sim_topo_t t;
    hand_store_fwd = 1500;
    hand_run(g, 1, src, dst, bytes, &one, &t);
    tn_sim_topo_free(&t);
    CHECK(same(one, 620));
    hand_run(g, 1, src, dst, bytes + 1, &big, &t);
    tn_sim_topo_free(&t);
    CHECK(same(big, 100630));
    int32_t s2[2] = {2, 8}, d2[2] = {4, 9};
    uint64_t b2[2] = {1000000, 1000000};
    hand_run(g, 2, s2, d2, b2, two, &t);
    tn_sim_topo_free(&t);
    CHECK(same(two[0], 200130) && same(two[1], 200130));
    /* cut-through: the same 1000 bytes pay their serialisation once */
    hand_store_fwd = 0;
    hand_run(g, 1, src, dst, bytes, &cut, &t);
    tn_sim_topo_free(&t);
    CHECK(same(cut, 400));
    printf("store-forward: one frame %.1f ns (cut-through %.1f), 1 MB %.1f ns, two sharing %.1f ns\n",
           one, cut, big, two[0]);
}

/* First come, first served (share = fifo) on the parking lot: the long
 * flow L -> D posted first gets the row's 10 B/ns whole and ends at
 * 100 000 ns (delivered 300 later); the three short ones, one a link,
 * wait at rate 0, then get 10 B/ns each: 200 000 + 100.  Posted the other
 * way round the shorts go first (100 100) and the long flow waits
 * (200 300).  Max-min would give everyone 5 B/ns (parking-lot above). */
static void fifo(void)
{
    const char *g = SIM_HAND_PARKING_LOT;
    const uint64_t S = 1000000;
    int32_t src[4] = {0, 2, 4, 6}, dst[4] = {1, 3, 5, 7};
    int32_t rsrc[4] = {2, 4, 6, 0}, rdst[4] = {3, 5, 7, 1};
    uint64_t bytes[4] = {S, S, S, S};
    double done[4], rdone[4];
    tn_sim_topo_t t;
    hand_fifo = 1;
    hand_run(g, 4, src, dst, bytes, done, &t);
    tn_sim_topo_free(&t);
    CHECK(same(done[0], 100300));
    for (int i = 1; i < 4; i++) {
        CHECK(same(done[i], 200100));
    }
    hand_run(g, 4, rsrc, rdst, bytes, rdone, &t);
    tn_sim_topo_free(&t);
    CHECK(same(rdone[3], 200300));
    for (int i = 0; i < 3; i++) {
        CHECK(same(rdone[i], 100100));
    }
    hand_fifo = 0;
    printf("fifo: long first %.1f ns, shorts %.1f ns; shorts first %.1f ns, long %.1f ns\n", done[0],
           done[1], rdone[0], rdone[3]);
}

/* Victim: one switch, 100 Gbit/s host links (12.5 B/ns, 50 ns).  A, B, C
 * send to X (incast: 12.5/3 each at X); A also sends to Y, the victim,
 * whose share is what A's link has left: 2 x 12.5/3.  When the incast
 * ends the victim is done already. */
static void victim(void)
{
    const char *g = SIM_HAND_VICTIM;
    const uint64_t S = 1000000;
    int32_t src[4] = {0, 1, 2, 0}, dst[4] = {3, 3, 3, 4};
    uint64_t bytes[4] = {S, S, S, S};
    double done[4];
    tn_sim_topo_t t;
    hand_run(g, 4, src, dst, bytes, done, &t);
    tn_sim_topo_free(&t);
    double third = 12.5 / 3;
    CHECK(same(done[3], S / (2 * third) + 100));
    for (int i = 0; i < 3; i++) {
        CHECK(same(done[i], S / third + 100));
    }
    printf("victim: incast flows %.1f ns, victim %.1f ns (max-min: 1/3 and 2/3 of a link)\n", done[0],
           done[3]);
}

int main(int argc, char **argv)
{
    const char *w = argc > 1 ? argv[1] : "";
    if (strcmp(w, "fattree-uniform") == 0) {
        fattree_uniform();
    } else if (strcmp(w, "parking-lot") == 0) {
        parking_lot();
    } else if (strcmp(w, "fifo") == 0) {
        fifo();
    } else if (strcmp(w, "store-forward") == 0) {
        store_forward();
    } else if (strcmp(w, "victim") == 0) {
        victim();
    } else if (strcmp(w, "torus-tornado") == 0) {
        torus_tornado();
    } else if (strcmp(w, "torus-uniform") == 0) {
        torus_uniform();
    } else if (strcmp(w, "dfly-minimal") == 0) {
        double acc = dfly("minimal");
        CHECK(acc <= 1.2 / (6 * 3) && acc >= 0.8 / (6 * 3));
    } else if (strcmp(w, "dfly-valiant") == 0) {
        double acc = dfly("valiant");
        CHECK(acc >= 0.45 && acc <= 0.5);
    } else if (strcmp(w, "dfly-ugal") == 0) {
        double mn = dfly("minimal"), val = dfly("valiant"), ug = dfly("ugal");
        CHECK(ug >= 0.9 * (mn > val ? mn : val));
    } else {
        fprintf(stderr, "usage: test_sim_valid SCENARIO (see the file's header)\n");
        return 2;
    }
    if (failures) {
        fprintf(stderr, "test_sim_valid %s: %d failures\n", w, failures);
        return 1;
    }
    printf("test_sim_valid %s: ok\n", w);
    return 0;
}
