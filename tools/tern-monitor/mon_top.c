/* tern-monitor top and dump: the jobs of this node from their stats
 * segments alone (docs/monitor.md). */
#include "mon_top.h"
#include "mon_scan.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const tn_top_state[] = { "running", "finalized", "exited", "DEAD" };

static uint64_t top_sum(const tn_mon_seg_t *seg, const char *name, int rec)
{
    int i = tn_mon_seg_find(seg, name);
    uint64_t v = 0;
    for (uint32_t e = 0; i >= 0 && e < seg->ctr[i].count; e++) {
        v += tn_mon_seg_value(seg, i, rec, (int)e);
    }
    return v;
}

static const char *top_axis_name(const tn_mon_seg_t *seg, const tn_mon_ctr_t *c, uint32_t e)
{
    return c->axis >= 0 && e < seg->axis[c->axis].count ? seg->axis[c->axis].names[e] : NULL;
}

/* One counter's nonzero elements: "<lead> name[label] value". */
static void dump_ctr(FILE *out, const tn_mon_seg_t *seg, int i, int rec, const char *lead)
{
    const tn_mon_ctr_t *c = &seg->ctr[i];
    for (uint32_t e = 0; e < c->count; e++) {
        uint64_t v = tn_mon_seg_value(seg, i, rec, (int)e);
        const char *label = top_axis_name(seg, c, e);
        if (v == 0) {
            continue;
        }
        if (label != NULL) {
            fprintf(out, "%s %s[%s] %llu\n", lead, c->name, label, (unsigned long long)v);
        } else {
            fprintf(out, "%s %s %llu\n", lead, c->name, (unsigned long long)v);
        }
    }
}

int tn_mon_dump(FILE *out, const char *dir)
{
    tn_mon_scan_t scan;
    if (tn_mon_scan(dir, &scan) != 0) {
        fprintf(stderr, "tern-monitor: cannot read %s: %m\n", dir);
        return 1;
    }
    for (int k = 0; k < scan.n; k++) {
        const tn_mon_rank_t *r = &scan.ranks[k];
        const tern_stats_hdr_t *h = &r->seg.hdr;
        const char *call = r->has_call ? tn_mon_call_name(&r->seg, r->call.call) : NULL;
        fprintf(out, "rank job=%s rank=%d size=%d node=%d nodes=%d pid=%d uid=%u host=%s "
                "program=%s state=%s call=%s in_call=%d\n",
                h->job, h->world_rank, h->world_size, h->node_id, h->nnodes, h->pid, r->uid,
                h->host, h->program, tn_top_state[r->state], call != NULL ? call : "-",
                r->in_call);
        char lead[160];
        snprintf(lead, sizeof(lead), "ctr %s %d", h->job, h->world_rank);
        for (int i = 0; i < r->seg.nctr; i++) {
            if (r->seg.ctr[i].region == TERN_STATS_PROCESS) {
                dump_ctr(out, &r->seg, i, -1, lead);
            }
        }
        /* peer records by world rank, then node records ("node<i>") */
        for (uint32_t rec = 0; rec < tn_mon_seg_nrecs(&r->seg); rec++) {
            if (rec < h->peer_count) {
                snprintf(lead, sizeof(lead), "peer %s %d %u", h->job, h->world_rank, rec);
            } else if (rec + 1 < tn_mon_seg_nrecs(&r->seg)) {
                snprintf(lead, sizeof(lead), "peer %s %d node%u", h->job, h->world_rank,
                         rec - h->peer_count);
            } else {
                snprintf(lead, sizeof(lead), "peer %s %d other", h->job, h->world_rank);
            }
            for (int i = 0; i < r->seg.nctr; i++) {
                if (r->seg.ctr[i].region == TERN_STATS_PEER) {
                    dump_ctr(out, &r->seg, i, (int)rec, lead);
                }
            }
        }
    }
    if (scan.skipped > 0) {
        fprintf(out, "skipped %d\n", scan.skipped);
    }
    tn_mon_scan_free(&scan);
    return 0;
}

/* ---- top ---------------------------------------------------------------- */

/* What the previous refresh saw of a rank, to tell rates and how long a
 * call has lasted (segments without a clock: the ranks read none). */
typedef struct {
    char     job[96];
    int      rank;
    uint64_t bytes;
    uint32_t seq;
    double   since;             /* when seq was first seen */
} top_prev_t;

static top_prev_t *tn_top_prev;
static int tn_top_nprev;

static top_prev_t *top_find(const char *job, int rank)
{
    for (int i = 0; i < tn_top_nprev; i++) {
        if (tn_top_prev[i].rank == rank && strcmp(tn_top_prev[i].job, job) == 0) {
            return &tn_top_prev[i];
        }
    }
    return NULL;
}

static double top_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void top_bytes(char *buf, size_t len, double v)
{
    static const char *const unit[] = { "B", "KB", "MB", "GB", "TB", "PB" };
    int u = 0;
    while (v >= 1000.0 && u < 5) {
        v /= 1000.0;
        u++;
    }
    snprintf(buf, len, u == 0 ? "%.0f %s" : "%.1f %s", v, unit[u]);
}

static void top_frame(FILE *out, const char *dir, double dt)
{
    tn_mon_scan_t scan;
    if (tn_mon_scan(dir, &scan) != 0) {
        fprintf(out, "cannot read %s\n", dir);
        return;
    }
    double now = top_now();
    top_prev_t *prev = calloc((size_t)scan.n + 1, sizeof(*prev));
    const char *job = NULL;
    for (int k = 0; k < scan.n; k++) {
        const tn_mon_rank_t *r = &scan.ranks[k];
        const tern_stats_hdr_t *h = &r->seg.hdr;
        if (job == NULL || strcmp(job, h->job) != 0) {
            int alive = 0, n = 0;
            for (int j = k; j < scan.n && strcmp(scan.ranks[j].seg.hdr.job, h->job) == 0; j++) {
                n++;
                alive += scan.ranks[j].state <= TN_MON_RANK_FINALIZED;
            }
            job = h->job;
            fprintf(out, "\njob %s  %s  uid %u  %d of %d ranks here (%d alive), %d node%s\n", h->job,
                    h->program, r->uid, n, h->world_size, alive, h->nnodes,
                    h->nnodes == 1 ? "" : "s");
            fprintf(out, "%6s %8s %-10s %-26s %10s %10s %12s %7s %7s\n", "rank", "pid", "state",
                    "MPI call", "messages", "sent", "rate", "unexp", "posted");
        }
        uint64_t msgs = top_sum(&r->seg, "mpi_msgs_sent", -1);
        uint64_t bytes = top_sum(&r->seg, "mpi_bytes_sent", -1);
        top_prev_t *p = top_find(h->job, h->world_rank);
        top_prev_t *q = &prev[k];
        snprintf(q->job, sizeof(q->job), "%s", h->job);
        q->rank = h->world_rank;
        q->bytes = bytes;
        q->seq = r->call.seq;
        q->since = p != NULL && p->seq == r->call.seq ? p->since : now;
        char call[64] = "-", sent[32], rate[32] = "";
        const char *name = r->has_call ? tn_mon_call_name(&r->seg, r->call.call) : NULL;
        if (name != NULL && r->in_call) {
            snprintf(call, sizeof(call), "%s %.0fs", name,
                     r->call_ms >= 0 ? (double)r->call_ms / 1000.0 : now - q->since);
        } else if (name != NULL) {
            snprintf(call, sizeof(call), "(after %s)", name);
        }
        top_bytes(sent, sizeof(sent), (double)bytes);
        if (p != NULL && dt > 0 && bytes >= p->bytes) {
            top_bytes(rate, sizeof(rate) - 2, (double)(bytes - p->bytes) / dt);
            strcat(rate, "/s");
        }
        fprintf(out, "%6d %8d %-10s %-26s %10llu %10s %12s %7llu %7llu\n", h->world_rank, h->pid,
                tn_top_state[r->state], call, (unsigned long long)msgs, sent, rate,
                (unsigned long long)top_sum(&r->seg, "p2p_unexp_depth", -1),
                (unsigned long long)top_sum(&r->seg, "p2p_posted_depth", -1));
    }
    if (scan.n == 0) {
        fprintf(out, "no Tern job publishes in %s (run with TERN_MONITOR=1 or tern-run --monitor)\n",
                dir);
    }
    free(tn_top_prev);
    tn_top_prev = prev;
    tn_top_nprev = scan.n;
    tn_mon_scan_free(&scan);
}

static volatile sig_atomic_t tn_top_stop;

static void top_on_signal(int sig)
{
    (void)sig;
    tn_top_stop = 1;
}

int tn_mon_top(FILE *out, const char *dir, double interval, int frames)
{
    int tty = isatty(fileno(out));
    signal(SIGINT, top_on_signal);
    signal(SIGTERM, top_on_signal);
    double last = 0;
    for (int f = 0; !tn_top_stop && (frames <= 0 || f < frames); f++) {
        double now = top_now();
        if (tty) {
            fputs("\033[H\033[2J", out);
        }
        time_t wall = time(NULL);
        char stamp[64];
        strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", localtime(&wall));
        fprintf(out, "tern-monitor top  %s  (%s)\n", stamp, dir);
        top_frame(out, dir, last > 0 ? now - last : 0);
        fflush(out);
        last = now;
        if (frames <= 0 || f + 1 < frames) {
            struct timespec ts = { (time_t)interval,
                                   (long)((interval - (double)(time_t)interval) * 1e9) };
            nanosleep(&ts, NULL);
        }
    }
    free(tn_top_prev);
    tn_top_prev = NULL;
    tn_top_nprev = 0;
    return 0;
}
