/* tern-sim's synthetic collectives (pattern = coll, sim_coll_job.c):
 *   ring-hand   Tern's ring allreduce (tern-coll-plan, argv[1]) and the
 *               ring's model on one switch, worked out by hand;
 *   llf-glf     LLF and GLF allreduce, allgather and alltoall on a
 *               dragonfly: the bytes each puts on local and on global
 *               links, exactly, and the one that crosses less the faster
 *               where global links are few;
 *   refused     what does not apply is refused with a reason.
 * Usage: test_sim_coll SCENARIO TERN_COLL_PLAN */
#include <math.h>

#include "check.h"
#include "sim/sim_hand.h"

#include "sim_coll_job.h"

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
        if (g->dst[k] < 0) {
            continue;
        }
        int32_t a = tn_sim_ep_switch(&r->topo, j->ep[g->src[k]]) / r->topo.df.per_group;
        int32_t b = tn_sim_ep_switch(&r->topo, j->ep[g->dst[k]]) / r->topo.df.per_group;
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
    for (int i = 0; kv[i] != NULL && st == TN_SIM_OK; i++) {
        char key[64];
        const char *eq = strchr(kv[i], '=');
        snprintf(key, sizeof(key), "%.*s", (int)(eq - kv[i]), kv[i]);
        st = tn_sim_conf_set(&c, key, eq + 1, why, sizeof(why));
    }
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

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_sim_coll ring-hand|llf-glf|refused TERN_COLL_PLAN\n");
        return 2;
    }
    snprintf(plan_kv, sizeof(plan_kv), "coll_plan=%s", argv[2]);
    if (strcmp(argv[1], "ring-hand") == 0) {
        ring_hand();
    } else if (strcmp(argv[1], "llf-glf") == 0) {
        llf_glf();
    } else if (strcmp(argv[1], "refused") == 0) {
        refused();
    } else {
        fprintf(stderr, "no scenario %s\n", argv[1]);
        return 2;
    }
    char name[64];
    snprintf(name, sizeof(name), "sim coll %s", argv[1]);
    return tn_check_report(name);
}
