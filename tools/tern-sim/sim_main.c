/* tern-sim: Tern's deterministic discrete-event fabric simulator, flow
 * level (docs/sim.md).
 *
 *   tern-sim [--config FILE] [--out DIR] [--KEY=VALUE | --KEY VALUE]...
 *            [--job [--KEY=VALUE]...]...
 *   tern-sim --keys        every key, its default and what it does
 *
 * Writes DIR/config.txt (every value as used; --config repeats the run),
 * summary.txt, fct.csv, throughput.csv and their SVG plots, the link and
 * (packet level) queue heatmaps (link_util.csv, queue.csv), or with
 * --sweep the accepted-versus-offered and latency-versus-load curves;
 * prints the summary and what the run cost (events/s) on stdout. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "sim_run.h"

#define MAIN_MAX_CONFIG (1 << 20)
#define MAIN_MAX_GRAPH  (256 << 20)

/* Reads a whole file of at most max bytes. */
static int main_read(const char *path, size_t max, char **text_p, size_t *len_p, char *why,
                     size_t whylen)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(why, whylen, "cannot open: %s", strerror(errno));
        return -1;
    }
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (buf == NULL) {
            fclose(f);
            snprintf(why, whylen, "out of memory");
            return -1;
        }
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap) {
            break;
        }
        if (cap > max) {
            free(buf);
            fclose(f);
            snprintf(why, whylen, "larger than %zu bytes", max);
            return -1;
        }
        char *nb = realloc(buf, cap * 2);
        if (nb == NULL) {
            free(buf);
        }
        buf = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad || len > max) {
        free(buf);
        snprintf(why, whylen, bad ? "read error" : "larger than %zu bytes", max);
        return -1;
    }
    *text_p = buf;
    *len_p = len;
    return 0;
}

static int main_load_config(const char *path, char **text_p, size_t *len_p, char *why, size_t whylen)
{
    return main_read(path, MAIN_MAX_CONFIG, text_p, len_p, why, whylen);
}

/* A replay's program, read before the fabric is built: job 0 gets as
 * many ranks as the program has endpoint slots. */
static int main_replay_load(tn_sim_conf_t *c, tn_sim_prog_t *p, char *why, size_t whylen)
{
    struct stat sb;
    char abs[PATH_MAX];
    if (c->mode != TN_SIM_MODE_BATCH || c->njobs != 1) {
        snprintf(why, whylen, "replay needs mode = batch and one job");
        return -1;
    }
    if (stat(c->replay, &sb) != 0) {
        snprintf(why, whylen, "%.400s: %s", c->replay, strerror(errno));
        return -1;
    }
    if (strcmp(c->coll_plan, "auto") != 0 && strcmp(c->coll_plan, "off") != 0 && access(c->coll_plan, X_OK) != 0) {
        snprintf(why, whylen, "coll_plan: %.400s: %s (auto: the tern-coll-plan beside tern-sim; off: the models)",
                 c->coll_plan, strerror(errno));
        return -1;
    }
    tn_sim_replay_conf_t rc;
    tn_sim_replay_conf(c, &rc);
    tn_sim_status_t st = S_ISDIR(sb.st_mode) ? tn_sim_replay_from_trace(p, c->replay, &rc, why, whylen)
                                             : tn_sim_replay_from_vef(p, c->replay, &rc, why, whylen);
    if (st != TN_SIM_OK) {
        return -1;
    }
    c->job[0].ranks = tn_sim_prog_slots(p, c->replay_slots);
    if (realpath(c->replay, abs) != NULL && strlen(abs) < sizeof(c->replay)) {
        snprintf(c->replay, sizeof(c->replay), "%s", abs);
    }
    return 0;
}

static void main_usage(FILE *f)
{
    fprintf(f, "usage: tern-sim [--config FILE] [--out DIR] [--KEY=VALUE]... [--job [--KEY=VALUE]...]...\n"
               "       tern-sim --keys\n"
               "Flow-level fabric simulator (docs/sim.md).  Keys, with their defaults:\n");
    tn_sim_conf_help(f);
}

static void main_perf(const tn_sim_eng_t *e, const char *label)
{
    uint64_t ev = e->flow_starts + e->flow_ends;
    printf("%s%sevents: %llu flow starts + %llu flow ends in %.3f s wall, %.3f s CPU: "
           "%.3g events/s wall, %.3g per CPU second (queue pops %llu, time steps %llu, "
           "rate updates %llu, flows refilled %llu)\n",
           label ? label : "", label ? ": " : "", (unsigned long long)e->flow_starts,
           (unsigned long long)e->flow_ends, e->wall_s, e->cpu_s,
           e->wall_s > 0 ? (double)ev / e->wall_s : 0, e->cpu_s > 0 ? (double)ev / e->cpu_s : 0,
           (unsigned long long)e->pops, (unsigned long long)e->batches,
           (unsigned long long)e->mm.solves, (unsigned long long)e->mm.touched);
    if (e->pkt != NULL) {
        const tn_sim_pkt_t *p = e->pkt;
        printf("%s%spackets: %llu packets, %llu hop events in %.3f s wall: %.3g hop events/s "
               "(ECN marks %llu, CNPs %llu, PFC pauses %llu, fullest ingress queue %.0f B, "
               "over buf %llu)\n",
               label ? label : "", label ? ": " : "", (unsigned long long)p->pkts,
               (unsigned long long)p->hops, e->wall_s,
               e->wall_s > 0 ? (double)p->hops / e->wall_s : 0, (unsigned long long)p->marks,
               (unsigned long long)p->cnps, (unsigned long long)p->pauses, p->occ_max,
               (unsigned long long)p->overflows);
    }
}

int main(int argc, char **argv)
{
    static tn_sim_conf_t conf;
    static tn_sim_run_t run;
    char why[512] = "";
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--keys") == 0) {
            main_usage(stdout);
            return 0;
        }
    }
    tn_sim_conf_defaults(&conf);
    if (tn_sim_conf_args(&conf, argc, argv, main_load_config, &out, why, sizeof(why)) != TN_SIM_OK) {
        fprintf(stderr, "tern-sim: %s\n", why);
        return 2;
    }
    if (out == NULL) {
        out = "tern-sim-out";
    }
    char *gtext = NULL;
    size_t glen = 0;
    if (conf.topo == TN_SIM_TOPO_GRAPH) {
        char abs[PATH_MAX];
        if (conf.graph[0] == '\0') {
            fprintf(stderr, "tern-sim: topo = graph needs --graph FILE\n");
            return 2;
        }
        if (main_read(conf.graph, MAIN_MAX_GRAPH, &gtext, &glen, why, sizeof(why)) != 0) {
            fprintf(stderr, "tern-sim: %s: %s\n", conf.graph, why);
            return 2;
        }
        /* the written configuration names the file wherever it is rerun from */
        if (realpath(conf.graph, abs) != NULL && strlen(abs) < sizeof(conf.graph)) {
            snprintf(conf.graph, sizeof(conf.graph), "%s", abs);
        }
    }
    static tn_sim_prog_t prog;
    if (conf.replay[0] != '\0') {
        if (main_replay_load(&conf, &prog, why, sizeof(why)) != 0) {
            fprintf(stderr, "tern-sim: %s\n", why);
            free(gtext);
            return 2;
        }
        run.prog = &prog;
    }
    tn_sim_status_t st = tn_sim_setup(&run, &conf, gtext, glen, why, sizeof(why));
    run.prog = conf.replay[0] != '\0' ? &prog : NULL;  /* setup cleared it */
    free(gtext);
    if (st != TN_SIM_OK) {
        fprintf(stderr, "tern-sim: %s\n", why);
        tn_sim_prog_free(&prog);
        return 2;
    }
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "tern-sim: %s: %s\n", out, strerror(errno));
        tn_sim_teardown(&run);
        return 1;
    }
    char path[TN_SIM_PATH_MAX + 64];
    snprintf(path, sizeof(path), "%s/config.txt", out);
    FILE *f = fopen(path, "w");
    if (f == NULL || tn_sim_conf_write(&conf, f) != 0 || fclose(f) != 0) {
        fprintf(stderr, "tern-sim: %s: cannot write\n", path);
        tn_sim_teardown(&run);
        return 1;
    }
    snprintf(path, sizeof(path), "%s/summary.txt", out);
    FILE *sum = fopen(path, "w");
    if (sum == NULL) {
        fprintf(stderr, "tern-sim: %s: cannot write\n", path);
        tn_sim_teardown(&run);
        return 1;
    }
    int rc = 0;
    if (conf.mode == TN_SIM_MODE_OPEN && conf.nsweep > 0) {
        static tn_sim_jres_t res[TN_SIM_MAX_SWEEP * TN_SIM_MAX_JOBS];
        for (int i = 0; i < conf.nsweep && rc == 0; i++) {
            char label[64];
            snprintf(label, sizeof(label), "offered load %g", conf.sweep[i]);
            if (tn_sim_run_once(&run, &conf, conf.sweep[i], why, sizeof(why)) != TN_SIM_OK) {
                fprintf(stderr, "tern-sim: %s: %s\n", label, why);
                rc = 1;
                break;
            }
            memcpy(&res[i * conf.njobs], run.res, sizeof(tn_sim_jres_t) * (size_t)conf.njobs);
            tn_sim_out_summary(sum, &conf, &run.topo, run.res, label);
            tn_sim_out_summary(stdout, &conf, &run.topo, run.res, label);
            main_perf(&run.eng, label);
            tn_sim_run_clear(&run);
        }
        if (rc == 0 && tn_sim_out_sweep(out, &conf, res, why, sizeof(why)) != 0) {
            fprintf(stderr, "tern-sim: %s\n", why);
            rc = 1;
        }
    } else if (tn_sim_run_once(&run, &conf, -1, why, sizeof(why)) != TN_SIM_OK) {
        fprintf(stderr, "tern-sim: %s\n", why);
        rc = 1;
    } else {
        tn_sim_out_summary(sum, &conf, &run.topo, run.res, NULL);
        tn_sim_out_summary(stdout, &conf, &run.topo, run.res, NULL);
        main_perf(&run.eng, NULL);
        if (tn_sim_out_run(out, &run.eng, &conf, run.res, why, sizeof(why)) != 0 ||
            tn_sim_out_heat(out, &run.eng, why, sizeof(why)) != 0 ||
            (run.prog != NULL && tn_sim_replay_out(run.prog, out, stdout, why, sizeof(why)) != 0)) {
            fprintf(stderr, "tern-sim: %s\n", why);
            rc = 1;
        }
    }
    if (fclose(sum) != 0) {
        rc = 1;
    }
    if (rc == 0) {
        printf("results in %s/\n", out);
    }
    tn_sim_teardown(&run);
    tn_sim_prog_free(&prog);
    return rc;
}
