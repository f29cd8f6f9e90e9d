/* tern-sim's max-min solver (tools/tern-sim/sim_maxmin.c): the incremental
 * solve gives the same rates as a naive from-scratch progressive filling
 * (sim_maxmin_ref.c) after every batch of starts and ends, on random
 * fabrics and flows of several shapes, long flows (multicast trees, held
 * in the solver's pool) among them; the links' lists map back to their
 * flows through every pool compaction; and canonical cases have their
 * textbook values (a single bottleneck, the parking lot, a tree sharing
 * one link with a route). */
#include "sim_maxmin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_rng.h"
#include "../check.h"

#define MAXH 6   /* the solver's fixed slots */
#define MAXL 40  /* the longest flow of the random cases (a tree) */

/* how much of the work was incremental (printed, not asserted) */
static uint64_t stat_touched, stat_expansions, stat_solves, stat_active;
static uint64_t stat_compactions;  /* asserted: the trees' cases must reach them */
static uint64_t stat_wraps;        /* asserted: the cases started near the stamps' end wrap */

static int close_enough(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(a) > fabs(b) ? fabs(a) : fabs(b)) + 1e-12;
}

/* Compares the solver's rates of every active flow with the reference. */
static int compare(const tn_sim_mm_t *mm, int32_t nl, const double *cap, const int32_t *paths,
                   const int *plen, int32_t nflows, const char *what)
{
    int32_t *off = malloc(sizeof(int32_t) * ((size_t)nflows + 1));
    int32_t *links = malloc(sizeof(int32_t) * (size_t)nflows * MAXL + 1);
    int32_t *ids = malloc(sizeof(int32_t) * (size_t)nflows + 1);
    double *ref = malloc(sizeof(double) * (size_t)nflows + 1);
    int32_t n = 0, k = 0;
    off[0] = 0;
    for (int32_t f = 0; f < nflows; f++) {
        if (mm->fl[f].state != TN_SIM_MM_ACTIVE) {
            continue;
        }
        for (int i = 0; i < plen[f]; i++) {
            links[k++] = paths[f * MAXL + i];
        }
        ids[n++] = f;
        off[n] = k;
    }
    CHECK(tn_sim_mm_reference(nl, cap, n, off, links, ref) == TN_SIM_OK);
    int bad = 0;
    for (int32_t i = 0; i < n; i++) {
        if (!close_enough(ref[i], mm->fl[ids[i]].rate)) {
            if (bad < 5) {
                fprintf(stderr, "%s: flow %d: %.17g, reference %.17g\n", what, ids[i],
                        mm->fl[ids[i]].rate, ref[i]);
            }
            bad++;
        }
    }
    CHECK(bad == 0);
    free(off);
    free(links);
    free(ids);
    free(ref);
    return bad;
}

/* Every slot on a link's list names a hop of that link which points
 * back at it, and the flow it belongs to is on the solver's books. */
static void check_lists(const tn_sim_mm_t *mm)
{
    int bad = 0;
    int64_t xheld = 0;
    for (int32_t l = 0; l < mm->n_link; l++) {
        for (int32_t i = 0; i < tn_sim_mm_nflows(mm, l); i++) {
            int32_t s = tn_sim_mm_slots(mm, l)[i], f = tn_sim_mm_slot_flow(mm, s);
            if (s >= 0) {
                bad += mm->hop_link[s] != l || mm->hop_pos[s] != i || mm->fl[f].nhop == 0;
            } else {
                int32_t p = -1 - s;
                bad += p >= mm->xend || mm->xlink[p] != l || mm->xpos[p] != i || mm->fl[f].nhop != 0 ||
                       p < mm->fl[f].xoff || p >= mm->fl[f].xoff + mm->fl[f].xn;
                xheld++;
            }
            bad += mm->fl[f].state == TN_SIM_MM_FREE;
        }
    }
    CHECK(bad == 0 && xheld == mm->xlive);
}

/* Random batches on a random fabric.  shape 0: uniform random paths;
 * 1: paths from a few "hot" links (many ties, deep coupling); 2: equal
 * capacities (exact ties everywhere); 3: clusters of links, paths inside
 * one cluster but for a rare crossing (where locality pays); 4: one flow
 * in four a long one (7 to 40 links, a multicast tree: the pool), many
 * starts and ends (its compactions); 5: the same with equal capacities. */
/* First come, first served (tn_sim_mm_solve_fifo) against a naive
 * greedy pass over the active flows in the order they were added (added:
 * each flow's add number); 0 when every rate agrees. */
static int fifo_compare(const tn_sim_mm_t *mm, int32_t nl, const double *cap, const int32_t *paths,
                        const int *plen, int32_t nflows, const uint64_t *added, const char *what)
{
    double *res = malloc(sizeof(double) * (size_t)nl);
    int32_t *ord = malloc(sizeof(int32_t) * (size_t)nflows);
    int32_t n = 0, bad = 0;
    memcpy(res, cap, sizeof(double) * (size_t)nl);
    for (int32_t f = 0; f < nflows; f++) {
        if (mm->fl[f].state == TN_SIM_MM_ACTIVE) {
            int32_t j = n++;
            while (j > 0 && added[ord[j - 1]] > added[f]) {
                ord[j] = ord[j - 1];
                j--;
            }
            ord[j] = f;
        }
    }
    for (int32_t i = 0; i < n; i++) {
        int32_t f = ord[i], b = paths[f * MAXL];
        double r = INFINITY;
        for (int k = 0; k < plen[f]; k++) {
            if (res[paths[f * MAXL + k]] < r) {
                r = res[paths[f * MAXL + k]];
                b = paths[f * MAXL + k];
            }
        }
        r = r > 1e-9 * cap[b] ? r : 0;
        for (int k = 0; k < plen[f]; k++) {
            res[paths[f * MAXL + k]] -= r;
        }
        if (!close_enough(mm->fl[f].rate, r) && !(r == 0 && mm->fl[f].rate == 0)) {
            if (bad++ == 0) {
                fprintf(stderr, "%s: flow %d rate %.12g, greedy %.12g\n", what, f, mm->fl[f].rate, r);
            }
        }
    }
    free(res);
    free(ord);
    CHECK(bad == 0);
    return bad;
}

/* full: 0 incremental, 1 from scratch, 2 first come, first served */
static void random_case(uint64_t seed, int shape, int full)
{
    tn_sim_rng_t r;
    tn_sim_rng_seed(&r, seed);
    int trees = shape >= 4;
    int32_t nl = shape == 3 ? 200 : trees ? 45 + (int32_t)tn_sim_rng_below(&r, 60) : 4 + (int32_t)tn_sim_rng_below(&r, 40);
    int32_t nflows = shape == 3 ? 400 : 10 + (int32_t)tn_sim_rng_below(&r, 120);
    double *cap = malloc(sizeof(double) * (size_t)nl);
    for (int32_t l = 0; l < nl; l++) {
        cap[l] = shape == 2 || shape == 5 ? 12.5 : 0.5 + (double)tn_sim_rng_below(&r, 1000) / 37.0;
    }
    int32_t *paths = malloc(sizeof(int32_t) * (size_t)nflows * MAXL);
    uint64_t *added = calloc((size_t)nflows, sizeof(uint64_t)), nadd = 0;
    int *plen = malloc(sizeof(int) * (size_t)nflows);
    for (int32_t f = 0; f < nflows; f++) {
        plen[f] = 1 + (int)tn_sim_rng_below(&r, MAXH);
        if (trees && tn_sim_rng_below(&r, 4) == 0) {
            plen[f] = MAXH + 1 + (int)tn_sim_rng_below(&r, MAXL - MAXH);
        }
        plen[f] = plen[f] > nl ? nl : plen[f];  /* distinct links */
        for (int i = 0; i < plen[f]; i++) {
            int32_t l;
            int dup;
            do {
                if (shape == 3) {
                    int32_t cl = f % 10;
                    if (tn_sim_rng_below(&r, 50) == 0) {
                        cl = (int32_t)tn_sim_rng_below(&r, 10);
                    }
                    l = cl * 20 + (int32_t)tn_sim_rng_below(&r, 20);
                } else if (shape == 1 && i == 0) {
                    l = (int32_t)tn_sim_rng_below(&r, 3);
                } else {
                    l = (int32_t)tn_sim_rng_below(&r, (uint64_t)nl);
                }
                dup = 0;
                for (int j = 0; j < i; j++) {
                    dup |= paths[f * MAXL + j] == l;
                }
            } while (dup);
            paths[f * MAXL + i] = l;
        }
    }
    tn_sim_mm_t mm;
    CHECK(tn_sim_mm_init(&mm, nl, cap, MAXH) == TN_SIM_OK);
    CHECK(tn_sim_mm_reserve(&mm, nflows) == TN_SIM_OK);
    /* one case in five starts the links' stamps a few passes before they
     * wrap (and restart: every mark cleared) */
    uint32_t stamp0 = seed % 5 == 2 ? UINT32_MAX - 300 : mm.stamp;
    mm.stamp = stamp0;
    for (int batch = 0; batch < 60; batch++) {
        int adds = (int)tn_sim_rng_below(&r, shape == 3 ? 30 : trees ? 12 : 6);
        int rems = (int)tn_sim_rng_below(&r, shape == 3 ? 25 : trees ? 11 : 5);
        for (int i = 0; i < adds; i++) {
            int32_t f = (int32_t)tn_sim_rng_below(&r, (uint64_t)nflows);
            if (mm.fl[f].state == TN_SIM_MM_FREE) {
                CHECK(tn_sim_mm_add(&mm, f, paths + f * MAXL, plen[f]) == TN_SIM_OK);
                added[f] = nadd++;
            }
        }
        for (int i = 0; i < rems; i++) {
            int32_t f = (int32_t)tn_sim_rng_below(&r, (uint64_t)nflows);
            if (mm.fl[f].state == TN_SIM_MM_ACTIVE) {
                CHECK(tn_sim_mm_remove(&mm, f) == TN_SIM_OK);
            }
        }
        CHECK((full == 2 ? tn_sim_mm_solve_fifo(&mm) : full ? tn_sim_mm_solve_full(&mm) : tn_sim_mm_solve(&mm)) ==
              TN_SIM_OK);
        stat_active += (uint64_t)mm.nactive;
        char what[64];
        snprintf(what, sizeof(what), "seed %llu shape %d batch %d", (unsigned long long)seed, shape,
                 batch);
        if ((full == 2 ? fifo_compare(&mm, nl, cap, paths, plen, nflows, added, what)
                       : compare(&mm, nl, cap, paths, plen, nflows, what)) != 0) {
            break;
        }
        /* loads follow the rates */
        for (int32_t l = 0; l < nl; l++) {
            double sum = 0;
            for (int32_t i = 0; i < tn_sim_mm_nflows(&mm, l); i++) {
                sum += mm.fl[tn_sim_mm_slot_flow(&mm, tn_sim_mm_slots(&mm, l)[i])].rate;
            }
            CHECK(fabs(sum - tn_sim_mm_load(&mm, l)) <= 1e-9 * cap[l]);
            CHECK(tn_sim_mm_load(&mm, l) <= cap[l] * (1 + 1e-9));
        }
        check_lists(&mm);
    }
    stat_wraps += mm.stamp < stamp0;
    stat_touched += mm.touched;
    stat_expansions += mm.expansions;
    stat_solves += mm.solves;
    stat_compactions += mm.compactions;
    tn_sim_mm_fini(&mm);
    free(cap);
    free(paths);
    free(plen);
    free(added);
}

/* Parking lot: links 0..n-1 in a row, capacity 1; one long flow over all
 * of them and one short flow on each: everybody gets 1/2.  Then a second
 * short flow on link 0: the long flow gets 1/3 and the short flows on the
 * other links get 2/3 (max-min, not proportional fairness). */
static void parking_lot(void)
{
    enum { N = 5 };
    double cap[N] = {1, 1, 1, 1, 1};
    int32_t all[N] = {0, 1, 2, 3, 4};
    tn_sim_mm_t mm;
    CHECK(tn_sim_mm_init(&mm, N, cap, N) == TN_SIM_OK);
    CHECK(tn_sim_mm_add(&mm, 0, all, N) == TN_SIM_OK);
    for (int32_t i = 0; i < N; i++) {
        CHECK(tn_sim_mm_add(&mm, 1 + i, &all[i], 1) == TN_SIM_OK);
    }
    CHECK(tn_sim_mm_solve(&mm) == TN_SIM_OK);
    for (int32_t f = 0; f <= N; f++) {
        CHECK(mm.fl[f].rate == 0.5);
    }
    CHECK(tn_sim_mm_add(&mm, 10, &all[0], 1) == TN_SIM_OK);
    CHECK(tn_sim_mm_solve(&mm) == TN_SIM_OK);
    CHECK(close_enough(mm.fl[0].rate, 1.0 / 3));
    CHECK(close_enough(mm.fl[1].rate, 1.0 / 3) && close_enough(mm.fl[10].rate, 1.0 / 3));
    for (int32_t i = 1; i < N; i++) {
        CHECK(close_enough(mm.fl[1 + i].rate, 2.0 / 3));
    }
    /* the long flow ends: every short flow has its link to share */
    CHECK(tn_sim_mm_remove(&mm, 0) == TN_SIM_OK);
    CHECK(tn_sim_mm_solve(&mm) == TN_SIM_OK);
    CHECK(mm.fl[1].rate == 0.5 && mm.fl[10].rate == 0.5);
    for (int32_t i = 1; i < N; i++) {
        CHECK(mm.fl[1 + i].rate == 1.0);
    }
    tn_sim_mm_fini(&mm);
}

/* A multicast tree of 9 links (a root's up-link, two switches, six
 * down-links) and a route sharing its first link, capacity 1 each: both
 * get 1/2 (max-min: the shared link is the bottleneck of both).  A second
 * route on one of the tree's down-links: the tree stays at 1/2 (it is
 * held by its first link), the two routes there get 1/2 each.  The tree
 * ends: the route on its first link gets all of it.  Forged adds are
 * refused: a link twice in a tree, a link out of range, more links than
 * there are. */
static void tree_shares_link(void)
{
    enum { N = 12 };
    double cap[N];
    for (int i = 0; i < N; i++) {
        cap[i] = 1;
    }
    int32_t tree[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    int32_t up = 0, down = 5, other = 10;
    tn_sim_mm_t mm;
    CHECK(tn_sim_mm_init(&mm, N, cap, 4) == TN_SIM_OK);
    CHECK(tn_sim_mm_add(&mm, 0, tree, 9) == TN_SIM_OK);
    CHECK(mm.fl[0].nhop == 0 && mm.fl[0].xn == 9);  /* in the pool */
    int32_t route1[2] = {up, other};
    CHECK(tn_sim_mm_add(&mm, 1, route1, 2) == TN_SIM_OK);
    CHECK(tn_sim_mm_solve(&mm) == TN_SIM_OK);
    CHECK(mm.fl[0].rate == 0.5 && mm.fl[1].rate == 0.5);
    CHECK(tn_sim_mm_load(&mm, up) == 1.0 && tn_sim_mm_load(&mm, down) == 0.5 && tn_sim_mm_load(&mm, other) == 0.5);
    int32_t route2[1] = {down};
    CHECK(tn_sim_mm_add(&mm, 2, route2, 1) == TN_SIM_OK);
    CHECK(tn_sim_mm_solve(&mm) == TN_SIM_OK);
    CHECK(mm.fl[0].rate == 0.5 && mm.fl[1].rate == 0.5 && mm.fl[2].rate == 0.5);
    CHECK(tn_sim_mm_remove(&mm, 0) == TN_SIM_OK);
    CHECK(tn_sim_mm_solve(&mm) == TN_SIM_OK);
    CHECK(mm.fl[1].rate == 1.0 && mm.fl[2].rate == 1.0 && mm.xlive == 0);
    check_lists(&mm);
    int32_t twice[8] = {0, 1, 2, 3, 4, 5, 6, 0};
    CHECK(tn_sim_mm_add(&mm, 3, twice, 8) == TN_SIM_ERR_INVAL);
    int32_t outside[6] = {0, 1, 2, 3, 4, N};
    CHECK(tn_sim_mm_add(&mm, 3, outside, 6) == TN_SIM_ERR_INVAL);
    int32_t many[N + 1];
    for (int i = 0; i <= N; i++) {
        many[i] = i % N;
    }
    CHECK(tn_sim_mm_add(&mm, 3, many, N + 1) == TN_SIM_ERR_INVAL);
    CHECK(mm.fl[3].state == TN_SIM_MM_FREE && tn_sim_mm_nflows(&mm, 0) == 1);
    tn_sim_mm_fini(&mm);
}

int main(void)
{
    parking_lot();
    tree_shares_link();
    for (uint64_t seed = 1; seed <= 300; seed++) {
        random_case(seed, (int)(seed % 4), 0);
    }
    for (uint64_t seed = 301; seed <= 420; seed++) {
        random_case(seed, 4 + (int)(seed % 2), 0);
    }
    printf("incremental: %llu solves touched %llu flows of %llu active (%.0f%%), %llu expansions\n",
           (unsigned long long)stat_solves, (unsigned long long)stat_touched,
           (unsigned long long)stat_active, 100.0 * (double)stat_touched / (double)stat_active,
           (unsigned long long)stat_expansions);
    printf("pool: %llu compactions\n", (unsigned long long)stat_compactions);
    CHECK(stat_compactions > 0);
    printf("stamps: %llu cases wrapped\n", (unsigned long long)stat_wraps);
    CHECK(stat_wraps > 0);
    for (uint64_t seed = 1; seed <= 30; seed++) {
        random_case(seed, (int)(seed % 3), 1);
    }
    for (uint64_t seed = 421; seed <= 430; seed++) {
        random_case(seed, 4 + (int)(seed % 2), 1);
    }
    /* first come, first served, with routes and trees */
    for (uint64_t seed = 431; seed <= 490; seed++) {
        random_case(seed, (int)(seed % 6), 2);
    }
    return tn_check_report("test_sim_maxmin");
}
