/* tern-trace report's HTML page (trace_report.h).  Self-contained: the
 * style is inline, the charts are inline SVG, there is no script and no
 * URL.  Every string that comes from a trace (job, hosts, call and
 * algorithm names, file names in warnings) goes through sv_esc. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "trace_report.h"
#include "trace_svg.h"

#define TH_RANK_ROWS 256
#define TH_CALL_ROWS 40
#define TH_PAIR_ROWS 30
#define TH_LONE_ROWS 50

static const char th_style[] =
    "body{font-family:sans-serif;margin:2em;color:#222;max-width:1100px}"
    "h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:2em}"
    "table{border-collapse:collapse;margin:.5em 0;font-size:.85em}"
    "td,th{border:1px solid #ddd;padding:2px 8px}td.n{text-align:right}"
    "th{background:#f3f3f3}figure{margin:1em 0}nav a{margin-right:1em}"
    ".warn{color:#a00}.sub{color:#555}";

static void th_cell(FILE *o, const char *s, int num)
{
    fputs(num ? "<td class=\"n\">" : "<td>", o);
    sv_esc(o, s);
    fputs("</td>", o);
}

static void th_cellf(FILE *o, int num, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void th_cellf(FILE *o, int num, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    th_cell(o, buf, num);
}

static void th_head(FILE *o, const char *const *cols, unsigned n)
{
    fputs("<table><tr>", o);
    for (unsigned i = 0; i < n; i++) {
        fputs("<th>", o);
        sv_esc(o, cols[i]);
        fputs("</th>", o);
    }
    fputs("</tr>\n", o);
}

static void th_chart(FILE *o, const tv_report_t *r, const char *name)
{
    const tv_chart_t *c = tv_chart(name);
    if (c == NULL) {
        return;
    }
    fprintf(o, "<figure id=\"chart-%s\">\n", c->name);
    c->draw(o, r);
    fputs("</figure>\n", o);
}

static double th_pct(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0;
}

static void th_summary(FILE *o, const tv_report_t *r)
{
    const tl_job_t *j = r->j;
    const tm_match_t *m = r->m;
    char a[32], b[32];
    fputs("<h2 id=\"summary\">Summary</h2>\n<table>\n", o);
    fputs("<tr><th>job</th>", o);
    th_cell(o, j->job, 0);
    fputs("</tr>\n<tr><th>ranks, nodes</th>", o);
    th_cellf(o, 0, "%u ranks on %u nodes", j->size, j->nnodes);
    fputs("</tr>\n<tr><th>hosts</th><td>", o);
    /* the distinct host names, in rank order, the first 16 */
    unsigned shown = 0;
    for (uint32_t i = 0; i < j->nranks && shown < 16; i++) {
        int seen = 0;
        for (uint32_t k = 0; k < i && !seen; k++) {
            seen = strcmp(j->ranks[k].host, j->ranks[i].host) == 0;
        }
        if (!seen) {
            fputs(shown++ ? ", " : "", o);
            sv_esc(o, j->ranks[i].host);
        }
        if (i > 4096) {
            break;                      /* quadratic: enough of it */
        }
    }
    fputs("</td></tr>\n<tr><th>duration</th>", o);
    th_cellf(o, 0, "%s from the first call's entry to the last exit",
             sv_fmt_ns(a, sizeof(a), (double)j->t_end));
    fputs("</tr>\n<tr><th>records</th>", o);
    th_cellf(o, 0, "%" PRIu64 " calls, %" PRIu64 " items", j->nrecs, j->nitems);
    fputs("</tr>\n<tr><th>point-to-point</th>", o);
    th_cellf(o, 0, "%zu messages matched, %zu sends and %zu receives unmatched, %" PRIu64
             " cancelled", m->nmsgs, m->nlone_sends, m->nlone_recvs, m->cancelled);
    fputs("</tr>\n<tr><th>collectives</th>", o);
    th_cellf(o, 0, "%" PRIu64 " (%" PRIu64 " with members missing)", r->s->coll_instances,
             r->s->coll_partial);
    int64_t len = r->p->end - r->p->start;
    fputs("</tr>\n<tr><th>critical path</th>", o);
    th_cellf(o, 0, "%s: compute %.1f%%, MPI %.1f%%, transfer %.1f%%",
             sv_fmt_ns(b, sizeof(b), (double)len), th_pct(r->p->compute, len),
             th_pct(r->p->mpi, len), th_pct(r->p->transfer, len));
    fputs("</tr>\n</table>\n", o);
    for (uint32_t i = 0; i < j->nranks; i++) {
        if (j->ranks[i].warning != NULL) {
            fprintf(o, "<p class=\"warn\">rank %u's trace stops early: ", i);
            sv_esc(o, j->ranks[i].warning);
            fputs("</p>\n", o);
        }
    }
}

static void th_ranks(FILE *o, const tv_report_t *r)
{
    const ts_stats_t *s = r->s;
    static const char *const cols[] = { "rank", "host", "total", "in MPI", "outside",
                                        "MPI %", "calls", "errors", "messages sent",
                                        "p2p bytes sent", "p2p bytes received",
                                        "coll bytes sent", "coll bytes received" };
    char a[32];
    fputs("<h2 id=\"ranks\">Time per rank</h2>\n", o);
    th_chart(o, r, "rank_time");
    th_head(o, cols, sizeof(cols) / sizeof(cols[0]));
    for (uint32_t i = 0; i < s->size; i++) {
        if (s->size > TH_RANK_ROWS && i >= TH_RANK_ROWS / 2 && i < s->size - TH_RANK_ROWS / 2) {
            if (i == TH_RANK_ROWS / 2) {
                fprintf(o, "<tr><td colspan=\"13\">... %u ranks more</td></tr>\n",
                        s->size - TH_RANK_ROWS);
            }
            continue;
        }
        const ts_rank_t *x = &s->ranks[i];
        int64_t tot = x->end - x->begin;
        fputs("<tr>", o);
        th_cellf(o, 1, "%u", i);
        th_cell(o, r->j->ranks[i].host, 0);
        th_cell(o, sv_fmt_ns(a, sizeof(a), (double)tot), 1);
        th_cell(o, sv_fmt_ns(a, sizeof(a), (double)x->mpi), 1);
        th_cell(o, sv_fmt_ns(a, sizeof(a), (double)(tot - x->mpi)), 1);
        th_cellf(o, 1, "%.1f", th_pct(x->mpi, tot));
        th_cellf(o, 1, "%" PRIu64, x->calls);
        th_cellf(o, 1, "%" PRIu64, x->errors);
        th_cellf(o, 1, "%" PRIu64, x->msgs_sent);
        th_cellf(o, 1, "%" PRIu64, x->p2p_sent);
        th_cellf(o, 1, "%" PRIu64, x->p2p_recvd);
        th_cellf(o, 1, "%" PRIu64, x->coll_sent);
        th_cellf(o, 1, "%" PRIu64, x->coll_recvd);
        fputs("</tr>\n", o);
    }
    fputs("</table>\n", o);
}

static void th_calls(FILE *o, const tv_report_t *r)
{
    const ts_stats_t *s = r->s;
    static const char *const cols[] = { "call", "count", "total", "mean", "max" };
    char a[32];
    fputs("<h2 id=\"calls\">Calls</h2>\n<p>Time inside each MPI function, over all ranks "
          "(calls made from inside other calls are not counted twice).</p>\n", o);
    th_chart(o, r, "calls");
    th_head(o, cols, 5);
    for (uint32_t i = 0; i < s->ncalls && i < TH_CALL_ROWS; i++) {
        const ts_call_t *x = &s->calls[i];
        fputs("<tr>", o);
        th_cell(o, tl_call_name(r->j, x->call), 0);
        th_cellf(o, 1, "%" PRIu64, x->count);
        th_cell(o, sv_fmt_ns(a, sizeof(a), (double)x->total), 1);
        th_cell(o, sv_fmt_ns(a, sizeof(a), (double)x->total / (double)x->count), 1);
        th_cell(o, sv_fmt_ns(a, sizeof(a), (double)x->max), 1);
        fputs("</tr>\n", o);
    }
    fputs("</table>\n", o);
}

static void th_matrix(FILE *o, const tv_report_t *r)
{
    const ts_stats_t *s = r->s;
    static const char *const cols[] = { "from", "to", "bytes", "messages" };
    fputs("<h2 id=\"sizes\">Message sizes</h2>\n", o);
    th_chart(o, r, "p2p_sizes");
    th_chart(o, r, "coll_sizes");
    fputs("<h2 id=\"matrix\">Communication matrix</h2>\n<p>Matched point-to-point messages "
          "and the edges of neighbourhood collectives (from their recorded neighbours); other "
          "collectives' bytes are per rank below.</p>\n", o);
    th_chart(o, r, "matrix_bytes");
    th_chart(o, r, "matrix_msgs");
    /* the pairs with the most bytes */
    size_t n = s->npairs < TH_PAIR_ROWS ? s->npairs : TH_PAIR_ROWS;
    size_t *ix = malloc((s->npairs + 1) * sizeof(*ix));
    if (ix == NULL || n == 0) {
        free(ix);
        return;
    }
    for (size_t i = 0; i < s->npairs; i++) {
        ix[i] = i;
    }
    th_head(o, cols, 4);
    for (size_t i = 0; i < n; i++) {
        for (size_t k = i + 1; k < s->npairs; k++) {
            if (s->pairs[ix[k]].bytes > s->pairs[ix[i]].bytes) {
                size_t t = ix[i];
                ix[i] = ix[k];
                ix[k] = t;
            }
        }
        const ts_pair_t *p = &s->pairs[ix[i]];
        fputs("<tr>", o);
        th_cellf(o, 1, "%u", p->src);
        th_cellf(o, 1, "%u", p->dst);
        th_cellf(o, 1, "%" PRIu64, p->bytes);
        th_cellf(o, 1, "%" PRIu64, p->msgs);
        fputs("</tr>\n", o);
    }
    fputs("</table>\n", o);
    free(ix);
}

static void th_colls(FILE *o, const tv_report_t *r)
{
    const ts_stats_t *s = r->s;
    static const char *const cols[] = { "kind", "algorithm", "count", "calls", "time in calls",
                                        "mean span", "mean entry skew", "bytes" };
    char a[32];
    fputs("<h2 id=\"coll\">Collectives</h2>\n<p>Span: from the first member's entry to the "
          "last member's exit; skew: from the first entry to the last.</p>\n", o);
    th_head(o, cols, 8);
    for (uint32_t i = 0; i < s->ncolls; i++) {
        const ts_coll_t *x = &s->colls[i];
        double n = x->instances ? (double)x->instances : 1;
        fputs("<tr>", o);
        th_cell(o, tt_coll_kind_name(x->kind), 0);
        th_cell(o, x->algo == TERN_TRACE_ALGO_UNKNOWN ? "-" : tl_algo_name(r->j, x->algo), 0);
        th_cellf(o, 1, "%" PRIu64, x->instances);
        th_cellf(o, 1, "%" PRIu64, x->calls);
        th_cell(o, sv_fmt_ns(a, sizeof(a), (double)x->time), 1);
        th_cell(o, sv_fmt_ns(a, sizeof(a), (double)x->span / n), 1);
        th_cell(o, sv_fmt_ns(a, sizeof(a), (double)x->skew / n), 1);
        th_cellf(o, 1, "%" PRIu64, x->bytes);
        fputs("</tr>\n", o);
    }
    fputs("</table>\n", o);
    th_chart(o, r, "coll_bytes");
}

/* The transport's events, when there were any. */
static void th_events(FILE *o, const tv_report_t *r)
{
    const ts_stats_t *s = r->s;
    static const char *const cols[] = { "rank", "peer", "packets resent", "bursts" };
    if (s->retx_bursts == 0 && s->rails_down == 0 && s->rails_up == 0 && s->peers_failed == 0) {
        return;
    }
    fprintf(o, "<h2 id=\"events\">Transport events</h2>\n<p>%" PRIu64 " retransmission bursts "
            "(packets resent: %" PRIu64 " fast, %" PRIu64 " after timeouts, %" PRIu64 " probes); "
            "rails %" PRIu64 " down, %" PRIu64 " up; %" PRIu64 " peers failed.</p>\n", s->retx_bursts,
            s->retx_packets[0], s->retx_packets[1], s->retx_packets[2], s->rails_down, s->rails_up,
            s->peers_failed);
    if (s->nretx == 0) {
        return;
    }
    th_head(o, cols, 4);
    for (size_t i = 0; i < s->nretx && i < 100; i++) {
        fputs("<tr>", o);
        th_cellf(o, 1, "%u", s->retx[i].src);
        th_cellf(o, 1, "%u", s->retx[i].dst);
        th_cellf(o, 1, "%" PRIu64, s->retx[i].bytes);
        th_cellf(o, 1, "%" PRIu64, s->retx[i].msgs);
        fputs("</tr>\n", o);
    }
    fputs("</table>\n", o);
}

static void th_cpath(FILE *o, const tv_report_t *r)
{
    const tc_path_t *p = r->p;
    int64_t len = p->end - p->start;
    char a[32], b[32], c[32];
    fputs("<h2 id=\"timeline\">Timeline</h2>\n", o);
    th_chart(o, r, "timeline");
    fputs("<h2 id=\"cpath\">Critical path</h2>\n<p>", o);
    fprintf(o, "%s long, from rank %u at %s to rank %u at %s (%s). ",
            sv_fmt_ns(a, sizeof(a), (double)len), p->start_rank,
            sv_fmt_ns(b, sizeof(b), (double)p->start), p->end_rank,
            sv_fmt_ns(c, sizeof(c), (double)p->end),
            p->finalize ? "its entry into MPI_Finalize" : "the last exit of a call");
    fprintf(o, "Compute %s (%.1f%%), MPI %s (%.1f%%), transfer %s (%.1f%%); ",
            sv_fmt_ns(a, sizeof(a), (double)p->compute), th_pct(p->compute, len),
            sv_fmt_ns(b, sizeof(b), (double)p->mpi), th_pct(p->mpi, len),
            sv_fmt_ns(c, sizeof(c), (double)p->transfer), th_pct(p->transfer, len));
    fprintf(o, "%" PRIu64 " hops through received messages, %" PRIu64 " through synchronous "
            "sends, %" PRIu64 " through collectives.", p->hops_recv, p->hops_send, p->hops_coll);
    if (p->cut) {
        fputs(" The walk stopped at its step limit (a damaged trace).", o);
    }
    fprintf(o, "</p>\n<p class=\"sub\">Model: a message arrives %s after its send started plus "
            "%.3g ns per byte; sends above %" PRIu64 " bytes and synchronous sends wait for "
            "their receive; a collective waits for its last member (docs/trace.md).</p>\n",
            sv_fmt_ns(a, sizeof(a), r->mod->latency_ns), r->mod->ns_per_byte, r->mod->eager);
    th_chart(o, r, "cpath");
}

static void th_lone(FILE *o, const tv_report_t *r, const tm_lone_t *l, size_t n, int send)
{
    static const char *const cols[] = { "rank", "record", "call", "peer", "tag", "bytes",
                                        "why" };
    fprintf(o, "<h3>Unmatched %s: %zu</h3>\n", send ? "sends" : "receives", n);
    if (n == 0) {
        return;
    }
    th_head(o, cols, 7);
    for (size_t i = 0; i < n && i < TH_LONE_ROWS; i++) {
        const tm_lone_t *x = &l[i];
        fputs("<tr>", o);
        th_cellf(o, 1, "%u", x->rank);
        th_cellf(o, 1, "%u", x->rec);
        th_cell(o, tl_call_name(r->j, r->j->ranks[x->rank].recs[x->rec].call), 0);
        if (x->peer < 0) {
            th_cell(o, "any", 1);
        } else {
            th_cellf(o, 1, "%d", x->peer);
        }
        if (x->tag < 0) {
            th_cell(o, "any", 1);
        } else {
            th_cellf(o, 1, "%d", x->tag);
        }
        th_cellf(o, 1, "%" PRIu64, x->bytes);
        th_cell(o, x->why == TM_LONE_UNRESOLVED ? "wildcard never completed" : "no partner", 0);
        fputs("</tr>\n", o);
    }
    fputs("</table>\n", o);
}

void tr_html(FILE *o, const tv_report_t *r)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<title>tern-trace report: ", o);
    sv_esc(o, r->j->job);
    fprintf(o, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>tern-trace report: ",
            th_style);
    sv_esc(o, r->j->job);
    fputs("</h1>\n<nav><a href=\"#summary\">summary</a><a href=\"#ranks\">ranks</a>"
          "<a href=\"#calls\">calls</a><a href=\"#sizes\">sizes</a>"
          "<a href=\"#matrix\">matrix</a><a href=\"#coll\">collectives</a>"
          "<a href=\"#timeline\">timeline</a><a href=\"#cpath\">critical path</a>"
          "<a href=\"#unmatched\">unmatched</a></nav>\n", o);
    th_summary(o, r);
    th_ranks(o, r);
    th_calls(o, r);
    th_matrix(o, r);
    th_colls(o, r);
    th_events(o, r);
    th_cpath(o, r);
    fputs("<h2 id=\"unmatched\">Unmatched sends and receives</h2>\n", o);
    th_lone(o, r, r->m->lone_sends, r->m->nlone_sends, 1);
    th_lone(o, r, r->m->lone_recvs, r->m->nlone_recvs, 0);
    fputs("</body>\n</html>\n", o);
}
