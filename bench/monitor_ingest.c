/* How many nodes one tern-monitor server keeps up with (docs/monitor.md):
 * simulated agents' frames, one a node a second, applied to the server's
 * live state (mon_state.c) with its work of each second (rates, snapshots,
 * alert rules), and what a page refresh costs at that size (/api/jobs, one
 * job's JSON with its matrix, /metrics).  In one process: HTTP is not
 * counted (tern-monitor's poll loop adds a parse and a copy per frame).
 *
 *   monitor_ingest [-n NODES] [-r RANKS_PER_NODE] [-p PEERS] [-j NODES_PER_JOB] [-s SECONDS]
 *
 * Each rank reports, every second, 30 changed process counters and, for
 * each of PEERS peers (a 3-D stencil: 26), its messages and bytes and,
 * for the peers on other nodes, its udp counters (8 values).  Prints the
 * server's seconds of work per simulated second, the frame size, the
 * memory, and the page's times. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "mon_api.h"
#include "mon_rules.h"
#include "mon_state.h"
#include "mon_wire.h"
#include "tern/stats.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* the metrics a frame names: process counters, then per-peer ones */
#define NPROC 30
static const char *const peer_metrics[] = {
    "peer_msgs", "peer_bytes", "udp_peer_data_sent", "udp_peer_data_bytes_sent",
    "udp_peer_acks_recv", "udp_peer_rail_sent", "udp_peer_rail_lost", "udp_peer_srtt_ns",
};
#define NPEERM 8

static void dict(tn_mon_buf_t *f)
{
    tn_mon_buf_t d = { 0 };
    tn_mon_wire_uint(&d, NPROC + NPEERM);
    for (int i = 0; i < NPROC + NPEERM; i++) {
        char name[40];
        if (i < NPROC) {
            snprintf(name, sizeof(name), i == 0 ? "mpi_msgs_sent" : i == 1 ? "mpi_bytes_sent"
                                                                 : "proc_counter_%d", i);
        } else {
            snprintf(name, sizeof(name), "%s", peer_metrics[i - NPROC]);
        }
        tn_mon_wire_uint(&d, (uint64_t)i);
        tn_mon_wire_str(&d, name);
        tn_mon_wire_uint(&d, TERN_STATS_COUNTER);
        tn_mon_wire_str(&d, "events");
        tn_mon_wire_str(&d, "a counter of the benchmark");
        int arr = i < 2 || i == NPROC || i == NPROC + 1 || i == NPROC + 5 || i == NPROC + 6;
        tn_mon_wire_str(&d, arr ? "k" : "");
        tn_mon_wire_uint(&d, arr ? 9 : 0);
        for (int e = 0; arr && e < 9; e++) {
            char en[8];
            snprintf(en, sizeof(en), "%d", e);
            tn_mon_wire_str(&d, en);
        }
    }
    tn_mon_wire_section(f, TN_MON_WIRE_DICT, &d);
    tn_mon_buf_free(&d);
}

/* node's frame at second t (t == 0: full, with the dictionary) */
static void frame(tn_mon_buf_t *f, int node, int t, int rpn, int peers, int npj)
{
    char name[32];
    snprintf(name, sizeof(name), "node%05d", node);
    tn_mon_buf_reset(f);
    tn_mon_wire_begin(f, t == 0 ? TN_MON_WIRE_FULL : 0, (uint64_t)t + 1, 1000u * (uint64_t)t, name,
                      "bench");
    if (t == 0) {
        dict(f);
    }
    int job = node / npj, node_in_job = node % npj, world = npj * rpn;
    tn_mon_buf_t j = { 0 };
    char jid[32];
    snprintf(jid, sizeof(jid), "job%05d", job);
    tn_mon_wire_str(&j, jid);
    tn_mon_wire_str(&j, "app");
    tn_mon_wire_uint(&j, 1000);
    tn_mon_wire_uint(&j, (uint64_t)world);
    tn_mon_wire_uint(&j, (uint64_t)npj);
    tn_mon_wire_uint(&j, 1);
    tn_mon_wire_uint(&j, (uint64_t)rpn);
    uint32_t peer_count = world < 1024 ? (uint32_t)world : 1024;
    for (int r = 0; r < rpn; r++) {
        int rank = node_in_job * rpn + r;
        tn_mon_wire_uint(&j, (uint64_t)rank);
        tn_mon_wire_uint(&j, 0);
        tn_mon_wire_uint(&j, 1000 + (uint64_t)r);
        tn_mon_wire_uint(&j, (uint64_t)node_in_job);
        tn_mon_wire_str(&j, "MPI_Waitall");
        tn_mon_wire_uint(&j, 1);
        tn_mon_wire_uint(&j, 1);
        tn_mon_wire_uint(&j, peer_count);
        int remote = 0;
        for (int k = 0; k < peers; k++) {
            int p = (rank + (k - peers / 2) * 97 + world) % world;
            remote += p / rpn != node_in_job;
        }
        tn_mon_wire_uint(&j, (uint64_t)(NPROC + peers * 2 + remote * 6));
        for (int m = 0; m < NPROC; m++) {
            tn_mon_wire_uint(&j, 0);
            tn_mon_wire_uint(&j, (uint64_t)m);
            tn_mon_wire_uint(&j, 0);
            tn_mon_wire_sint(&j, 10 + m);
        }
        for (int k = 0; k < peers; k++) {
            int p = (rank + (k - peers / 2) * 97 + world) % world;
            uint32_t rec = (uint32_t)p < peer_count ? (uint32_t)p
                                                    : peer_count + (uint32_t)(p / rpn);
            int is_remote = p / rpn != node_in_job;
            for (int m = 0; m < (is_remote ? NPEERM : 2); m++) {
                tn_mon_wire_uint(&j, rec + 1);
                tn_mon_wire_uint(&j, (uint64_t)(NPROC + m));
                tn_mon_wire_uint(&j, 0);
                tn_mon_wire_sint(&j, m == 7 ? (t == 0 ? 20000 : 0) : 100 + m);
            }
        }
    }
    tn_mon_wire_section(f, TN_MON_WIRE_JOB, &j);
    tn_mon_wire_end(f);
    tn_mon_buf_free(&j);
}

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = 0;
    while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
        if (strncmp(line, "VmRSS:", 6) == 0) {
            kb = strtol(line + 6, NULL, 10);
        }
    }
    if (f != NULL) {
        fclose(f);
    }
    return kb;
}

int main(int argc, char **argv)
{
    int nodes = 100, rpn = 64, peers = 26, npj = 16, secs = 5, opt;
    while ((opt = getopt(argc, argv, "n:r:p:j:s:")) != -1) {
        int v = atoi(optarg);
        switch (opt) {
        case 'n': nodes = v; break;
        case 'r': rpn = v; break;
        case 'p': peers = v; break;
        case 'j': npj = v; break;
        case 's': secs = v; break;
        default:
            fprintf(stderr, "usage: %s [-n NODES] [-r RANKS_PER_NODE] [-p PEERS] [-j NODES_PER_JOB] "
                    "[-s SECONDS]\n", argv[0]);
            return 2;
        }
    }
    if (nodes < 1 || rpn < 1 || peers < 0 || npj < 1 || secs < 1 || nodes % npj != 0) {
        fprintf(stderr, "monitor_ingest: NODES must be a multiple of NODES_PER_JOB\n");
        return 2;
    }
    tn_mon_state_t s;
    tn_mon_state_init(&s);
    tn_mon_rules_t *rules = tn_mon_rules_new(NULL, NULL);
    tn_mon_buf_t f = { 0 };
    char why[160];
    double apply = 0, tick = 0, bytes = 0;
    int frames = 0;
    for (int t = 0; t <= secs; t++) {
        for (int n = 0; n < nodes; n++) {
            frame(&f, n, t, rpn, peers, npj);
            double t0 = now_s();
            if (tn_mon_state_apply(&s, f.data, f.len, 1000u * (uint64_t)t, why, sizeof(why)) != 0) {
                fprintf(stderr, "monitor_ingest: a frame was refused: %s\n", why);
                return 1;
            }
            if (t > 0) {
                apply += now_s() - t0;
                bytes += (double)f.len;
                frames++;
            }
        }
        double t0 = now_s();
        tn_mon_state_tick(&s, 1000u * (uint64_t)t);
        tn_mon_rules_eval(rules, &s, 1000u * (uint64_t)t);
        if (t > 0) {
            tick += now_s() - t0;
        }
    }
    /* a page refresh: the jobs, one job with its matrix, and a scrape */
    tn_mon_buf_t out = { 0 };
    double t0 = now_s();
    tn_mon_api_jobs(&s, 1000u * (uint64_t)secs, &out, NULL, NULL);
    double t_jobs = now_s() - t0;
    size_t jobs_len = out.len;
    tn_mon_buf_reset(&out);
    t0 = now_s();
    (void)tn_mon_api_job(&s, "job00000", -1, 0, 0, 1000u * (uint64_t)secs, &out);
    double t_job = now_s() - t0;
    size_t job_len = out.len;
    tn_mon_buf_reset(&out);
    t0 = now_s();
    tn_mon_prom_write(&s, 1000u * (uint64_t)secs, &out);
    double t_prom = now_s() - t0;
    printf("nodes %d, %d ranks each (%d ranks), %d peers a rank, jobs of %d nodes\n", nodes, rpn,
           nodes * rpn, peers, npj);
    printf("frames: %.1f KB each; server work per second: apply %.3f s + tick and rules %.3f s = "
           "%.3f s (%s)\n", bytes / frames / 1024.0, apply / secs, tick / secs,
           (apply + tick) / secs, (apply + tick) / secs < 1.0 ? "keeps up" : "falls behind");
    printf("page: /api/jobs %.1f ms (%zu KB), /api/job %.1f ms (%zu KB), /metrics %.1f ms (%zu KB)\n",
           t_jobs * 1e3, jobs_len / 1024, t_job * 1e3, job_len / 1024, t_prom * 1e3, out.len / 1024);
    printf("memory: %.1f MB resident\n", (double)rss_kb() / 1024.0);
    tn_mon_buf_free(&out);
    tn_mon_buf_free(&f);
    tn_mon_rules_free(rules);
    tn_mon_state_fini(&s);
    return 0;
}
