/* tern-trace report's text summary (trace_report.h).  Its layout is read
 * by tests/trace/check_report.py: keep the headings and the matrix rows. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "trace_report.h"
#include "trace_svg.h"

#define TR_RANK_ROWS   64               /* ranks listed one by one up to this */
#define TR_MATRIX_FULL 16               /* full matrix up to this many ranks */
#define TR_LONE_ROWS   20

static double tr_pct(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0;
}

static void tr_ranks(FILE *o, const tv_report_t *r)
{
    const ts_stats_t *s = r->s;
    char a[32], b[32], c[32], d[32], e[32], f[32], g[32];
    fprintf(o, "\nper rank (from its first call's entry to its last exit):\n");
    fprintf(o, "  %6s %11s %11s %11s %6s %9s %7s %11s %11s %11s %11s\n", "rank", "total",
            "in MPI", "outside", "MPI%", "calls", "errors", "p2p sent", "p2p recvd",
            "coll sent", "coll recvd");
    for (uint32_t i = 0; i < s->size; i++) {
        const ts_rank_t *x = &s->ranks[i];
        if (s->size > TR_RANK_ROWS && i >= TR_RANK_ROWS / 2 && i < s->size - TR_RANK_ROWS / 2) {
            if (i == TR_RANK_ROWS / 2) {
                fprintf(o, "  ... %u ranks more (the HTML report draws them all)\n",
                        s->size - TR_RANK_ROWS);
            }
            continue;
        }
        int64_t tot = x->end - x->begin;
        fprintf(o, "  %6u %11s %11s %11s %5.1f%% %9" PRIu64 " %7" PRIu64 " %11s %11s %11s %11s\n",
                i, sv_fmt_ns(a, sizeof(a), (double)tot), sv_fmt_ns(b, sizeof(b), (double)x->mpi),
                sv_fmt_ns(c, sizeof(c), (double)(tot - x->mpi)), tr_pct(x->mpi, tot), x->calls,
                x->errors, sv_fmt_bytes(d, sizeof(d), (double)x->p2p_sent),
                sv_fmt_bytes(e, sizeof(e), (double)x->p2p_recvd),
                sv_fmt_bytes(f, sizeof(f), (double)x->coll_sent),
                sv_fmt_bytes(g, sizeof(g), (double)x->coll_recvd));
    }
}

static void tr_calls(FILE *o, const tv_report_t *r)
{
    const ts_stats_t *s = r->s;
    double mpi = 0;
    for (uint32_t i = 0; i < s->size; i++) {
        mpi += (double)s->ranks[i].mpi;
    }
    char a[32], b[32], c[32];
    fprintf(o, "\ncalls by total time over all ranks:\n");
    fprintf(o, "  %-28s %10s %11s %11s %11s %6s\n", "call", "count", "total", "mean", "max",
            "%MPI");
    for (uint32_t i = 0; i < s->ncalls && i < 20; i++) {
        const ts_call_t *x = &s->calls[i];
        fprintf(o, "  %-28s %10" PRIu64 " %11s %11s %11s %5.1f%%\n", tl_call_name(r->j, x->call),
                x->count, sv_fmt_ns(a, sizeof(a), (double)x->total),
                sv_fmt_ns(b, sizeof(b), (double)x->total / (double)x->count),
                sv_fmt_ns(c, sizeof(c), (double)x->max),
                mpi > 0 ? 100.0 * (double)x->total / mpi : 0.0);
    }
    if (s->ncalls > 20) {
        fprintf(o, "  ... %u calls more\n", s->ncalls - 20);
    }
}

static void tr_hist(FILE *o, const char *title, const uint64_t *h)
{
    fprintf(o, "%s\n", title);
    int any = 0;
    char a[32], b[32];
    for (unsigned i = 0; i < TS_HBINS; i++) {
        if (h[i] == 0) {
            continue;
        }
        any = 1;
        if (i == 0) {
            fprintf(o, "  %24s %12" PRIu64 "\n", "0 B", h[i]);
        } else {
            char range[64];
            snprintf(range, sizeof(range), "[%s, %s)", sv_fmt_bytes(a, sizeof(a), (double)ts_bin_low(i)),
                     sv_fmt_bytes(b, sizeof(b), 2.0 * (double)ts_bin_low(i)));
            fprintf(o, "  %24s %12" PRIu64 "\n", range, h[i]);
        }
    }
    if (!any) {
        fprintf(o, "  (none)\n");
    }
}

static void tr_messages(FILE *o, const tv_report_t *r)
{
    const tm_match_t *m = r->m;
    size_t unresolved = 0;
    for (size_t i = 0; i < m->nlone_recvs; i++) {
        unresolved += m->lone_recvs[i].why == TM_LONE_UNRESOLVED;
    }
    fprintf(o, "\npoint-to-point: %zu messages matched, %zu sends unmatched, %zu receives "
            "unmatched (%zu wildcard receives never completed), %" PRIu64 " cancelled\n",
            m->nmsgs, m->nlone_sends, m->nlone_recvs, unresolved, m->cancelled);
    tr_hist(o, "message sizes (bytes, messages):", r->s->p2p_hist);
    tr_hist(o, "collective call sizes (larger of sent and received per call; bytes, calls):",
            r->s->coll_hist);
}

static void tr_matrix(FILE *o, const tv_report_t *r)
{
    const ts_stats_t *s = r->s;
    uint32_t n = s->size;
    if (s->npairs == 0) {
        fprintf(o, "\nmatrix: no point-to-point messages\n");
        return;
    }
    if (n <= TR_MATRIX_FULL) {
        for (int msgs = 0; msgs < 2; msgs++) {
            fprintf(o, "\nmatrix %s (rows send, columns receive):\n", msgs ? "messages" : "bytes");
            fprintf(o, "  %6s", "");
            for (uint32_t b = 0; b < n; b++) {
                fprintf(o, " %10u", b);
            }
            fputc('\n', o);
            size_t p = 0;
            for (uint32_t a = 0; a < n; a++) {
                fprintf(o, "  %6u", a);
                for (uint32_t b = 0; b < n; b++) {
                    uint64_t v = 0;
                    if (p < s->npairs && s->pairs[p].src == a && s->pairs[p].dst == b) {
                        v = msgs ? s->pairs[p].msgs : s->pairs[p].bytes;
                        p++;
                    }
                    fprintf(o, " %10" PRIu64, v);
                }
                fputc('\n', o);
            }
        }
        return;
    }
    /* large jobs: the pairs that carry the most bytes */
    fprintf(o, "\nmatrix: %zu pairs of ranks exchange messages; the 20 with the most bytes:\n",
            s->npairs);
    size_t *ix = malloc((s->npairs + 1) * sizeof(*ix));
    if (ix == NULL) {
        return;
    }
    size_t k = s->npairs < 20 ? s->npairs : 20;
    for (size_t i = 0; i < s->npairs; i++) {
        ix[i] = i;
    }
    for (size_t i = 0; i < k; i++) {           /* partial selection: k is small */
        for (size_t j = i + 1; j < s->npairs; j++) {
            if (s->pairs[ix[j]].bytes > s->pairs[ix[i]].bytes) {
                size_t t = ix[i];
                ix[i] = ix[j];
                ix[j] = t;
            }
        }
        const ts_pair_t *p = &s->pairs[ix[i]];
        fprintf(o, "  %6u -> %-6u %14" PRIu64 " bytes %10" PRIu64 " messages\n", p->src, p->dst,
                p->bytes, p->msgs);
    }
    free(ix);
}

/* The transport's events (TERN_TRACE_EVENTS): nothing when there were none. */
static void tr_events(FILE *o, const ts_stats_t *s)
{
    if (s->retx_bursts == 0 && s->rails_down == 0 && s->rails_up == 0 && s->peers_failed == 0) {
        return;
    }
    fprintf(o, "\ntransport events: %" PRIu64 " retransmission bursts (packets resent: %" PRIu64
            " fast, %" PRIu64 " after timeouts, %" PRIu64 " probes); rails %" PRIu64 " down, %" PRIu64
            " up; %" PRIu64 " peers failed\n", s->retx_bursts, s->retx_packets[0], s->retx_packets[1],
            s->retx_packets[2], s->rails_down, s->rails_up, s->peers_failed);
    for (size_t i = 0; i < s->nretx && i < 20; i++) {
        fprintf(o, "  %6u -> %-6u %10" PRIu64 " packets resent in %" PRIu64 " bursts\n", s->retx[i].src,
                s->retx[i].dst, s->retx[i].bytes, s->retx[i].msgs);
    }
    if (s->nretx > 20) {
        fprintf(o, "  (%zu more pairs)\n", s->nretx - 20);
    }
}

static void tr_colls(FILE *o, const tv_report_t *r)
{
    const ts_stats_t *s = r->s;
    char a[32], b[32], c[32], d[32];
    fprintf(o, "\ncollectives: %" PRIu64 " (%" PRIu64 " with members missing from the traces)\n",
            s->coll_instances, s->coll_partial);
    if (s->ncolls == 0) {
        return;
    }
    fprintf(o, "  %-18s %-26s %8s %8s %11s %11s %11s %11s\n", "kind", "algorithm", "count",
            "calls", "time", "mean span", "mean skew", "bytes");
    for (uint32_t i = 0; i < s->ncolls; i++) {
        const ts_coll_t *x = &s->colls[i];
        double n = x->instances ? (double)x->instances : 1;
        fprintf(o, "  %-18s %-26s %8" PRIu64 " %8" PRIu64 " %11s %11s %11s %11s\n",
                tt_coll_kind_name(x->kind),
                x->algo == TERN_TRACE_ALGO_UNKNOWN ? "-" : tl_algo_name(r->j, x->algo),
                x->instances, x->calls, sv_fmt_ns(a, sizeof(a), (double)x->time),
                sv_fmt_ns(b, sizeof(b), (double)x->span / n),
                sv_fmt_ns(c, sizeof(c), (double)x->skew / n),
                sv_fmt_bytes(d, sizeof(d), (double)x->bytes));
    }
}

static void tr_cpath(FILE *o, const tv_report_t *r)
{
    const tc_path_t *p = r->p;
    int64_t len = p->end - p->start;
    char a[32], b[32], c[32], d[32];
    uint32_t shown_calls[5];
    fprintf(o, "\ncritical path: %s, from rank %u at %s to rank %u at %s%s%s\n",
            sv_fmt_ns(a, sizeof(a), (double)len), p->start_rank,
            sv_fmt_ns(b, sizeof(b), (double)p->start), p->end_rank,
            sv_fmt_ns(c, sizeof(c), (double)p->end),
            p->finalize ? " (its entry into MPI_Finalize)" : " (the last exit; no MPI_Finalize)",
            p->cut ? "; the walk stopped at its step limit" : "");
    fprintf(o, "  compute %s (%.1f%%), MPI %s (%.1f%%), transfer %s (%.1f%%)\n",
            sv_fmt_ns(a, sizeof(a), (double)p->compute), tr_pct(p->compute, len),
            sv_fmt_ns(b, sizeof(b), (double)p->mpi), tr_pct(p->mpi, len),
            sv_fmt_ns(c, sizeof(c), (double)p->transfer), tr_pct(p->transfer, len));
    fprintf(o, "  hops: %" PRIu64 " messages received, %" PRIu64 " synchronous sends, %" PRIu64
            " collectives; model: latency %s, %.3g GB/s, rendezvous above %" PRIu64 " bytes\n",
            p->hops_recv, p->hops_send, p->hops_coll,
            sv_fmt_ns(a, sizeof(a), r->mod->latency_ns),
            r->mod->ns_per_byte > 0 ? 1.0 / r->mod->ns_per_byte : 0.0, r->mod->eager);
    /* the calls that hold the path longest */
    fputs("  MPI time on the path by call:", o);
    for (unsigned k = 0; k < 5; k++) {
        uint32_t best = TL_NONE;
        for (uint32_t x = 0; x < r->j->ncalls; x++) {
            if (p->call_mpi[x] > 0 && (best == TL_NONE || p->call_mpi[x] > p->call_mpi[best])) {
                int taken = 0;
                for (unsigned q = 0; q < k; q++) {
                    taken |= shown_calls[q] == x;
                }
                best = taken ? best : x;
            }
        }
        if (best == TL_NONE) {
            break;
        }
        shown_calls[k] = best;
        fprintf(o, "%s %s %s (%.1f%%)", k ? "," : "", tl_call_name(r->j, best),
                sv_fmt_ns(a, sizeof(a), (double)p->call_mpi[best]), tr_pct(p->call_mpi[best], len));
    }
    fputc('\n', o);
    fprintf(o, "  %6s %11s %11s %11s %6s\n", "rank", "compute", "MPI", "transfer", "share");
    for (uint32_t i = 0, shown = 0; i < r->j->size && shown < TR_RANK_ROWS; i++) {
        int64_t t = p->rank_compute[i] + p->rank_mpi[i] + p->rank_transfer[i];
        if (t == 0) {
            continue;
        }
        shown++;
        fprintf(o, "  %6u %11s %11s %11s %5.1f%%\n", i,
                sv_fmt_ns(a, sizeof(a), (double)p->rank_compute[i]),
                sv_fmt_ns(b, sizeof(b), (double)p->rank_mpi[i]),
                sv_fmt_ns(d, sizeof(d), (double)p->rank_transfer[i]), tr_pct(t, len));
    }
}

static void tr_lone(FILE *o, const tv_report_t *r, const tm_lone_t *l, size_t n, int send)
{
    if (n == 0) {
        return;
    }
    fprintf(o, "\nunmatched %s (%zu; the first %d):\n", send ? "sends" : "receives", n,
            TR_LONE_ROWS);
    for (size_t i = 0; i < n && i < TR_LONE_ROWS; i++) {
        const tm_lone_t *x = &l[i];
        char peer[16] = "any", tag[16] = "any";
        if (x->peer >= 0) {
            snprintf(peer, sizeof(peer), "%d", x->peer);
        }
        if (x->tag >= 0) {
            snprintf(tag, sizeof(tag), "%d", x->tag);
        }
        fprintf(o, "  rank %u record %u %s: %s %s tag %s, %" PRIu64 " bytes%s\n", x->rank, x->rec,
                tl_call_name(r->j, r->j->ranks[x->rank].recs[x->rec].call), send ? "to" : "from",
                peer, tag, x->bytes,
                x->why == TM_LONE_UNRESOLVED ? " (a wildcard receive that never completed)" : "");
    }
}

void tr_text(FILE *o, const tv_report_t *r)
{
    const tl_job_t *j = r->j;
    char a[32];
    fprintf(o, "job %s: %u ranks on %u nodes, %" PRIu64 " records, %" PRIu64 " items, %s from "
            "the first call's entry to the last exit\n", j->job, j->size, j->nnodes, j->nrecs,
            j->nitems, sv_fmt_ns(a, sizeof(a), (double)j->t_end));
    for (uint32_t i = 0; i < j->nranks; i++) {
        if (j->ranks[i].warning != NULL) {
            fprintf(o, "warning: rank %u's trace stops early: %s\n", i, j->ranks[i].warning);
        }
    }
    tr_ranks(o, r);
    tr_calls(o, r);
    tr_messages(o, r);
    tr_matrix(o, r);
    tr_colls(o, r);
    tr_events(o, r->s);
    tr_cpath(o, r);
    tr_lone(o, r, r->m->lone_sends, r->m->nlone_sends, 1);
    tr_lone(o, r, r->m->lone_recvs, r->m->nlone_recvs, 0);
}
