/* The report's charts (trace_charts.h): bar charts, histograms, heat maps
 * and the timeline, drawn with trace_svg.c's shapes. */
#include "trace_charts.h"

#include <stdlib.h>
#include <string.h>

#include "trace_svg.h"

#define TV_W      760                   /* chart width */
#define TV_LEFT   120                   /* room for row labels */
#define TV_RIGHT  20

typedef const char *(*tv_fmt_fn)(char *buf, size_t n, double v);

void tv_group(uint32_t size, uint32_t rows, uint32_t i, uint32_t *lo, uint32_t *hi)
{
    *lo = (uint32_t)((uint64_t)i * size / rows);
    *hi = (uint32_t)((uint64_t)(i + 1) * size / rows);
}

static void tv_group_label(char *buf, size_t n, uint32_t lo, uint32_t hi)
{
    if (hi - lo <= 1) {
        snprintf(buf, n, "rank %u", lo);
    } else {
        snprintf(buf, n, "ranks %u-%u", lo, hi - 1);
    }
}

/* The legend's lines from y = 28 down, wrapped at the chart's width; with
 * o == NULL only counted.  Returns the lines. */
static unsigned tv_legend(FILE *o, const char *const *names, unsigned n, const char *const *colors)
{
    double x = TV_LEFT;
    unsigned line = 0;
    for (unsigned k = 0; k < n; k++) {
        double w = 22 + 6.2 * (double)strlen(names[k]);
        if (x + w > TV_W - TV_RIGHT && x > TV_LEFT) {
            x = TV_LEFT;
            line++;
        }
        if (o != NULL) {
            sv_rect(o, x, 28 + 14 * line, 10, 10, colors[k], NULL);
            sv_text(o, x + 14, 37 + 14 * line, "start", 11, "%s", names[k]);
        }
        x += w;
    }
    return line + 1;
}

/* Horizontal stacked bars: nrows rows of nser values (v[row * nser + k]). */
static void tv_hbars(FILE *o, const char *title, unsigned nrows, const char *const *labels,
                     unsigned nser, const char *const *series, const char *const *colors,
                     const double *v, tv_fmt_fn fmt)
{
    double rh = nrows > 0 && 440.0 / nrows < 18 ? 440.0 / nrows : 18;
    rh = rh < 6 ? 6 : rh;
    double top = nser > 1 ? 20 + 14.0 * tv_legend(NULL, series, nser, colors) + 6 : 34;
    int h = (int)(top + rh * nrows) + 40;
    sv_begin(o, TV_W, h, title);
    if (nser > 1) {
        tv_legend(o, series, nser, colors);
    }
    double max = 0;
    for (unsigned i = 0; i < nrows; i++) {
        double sum = 0;
        for (unsigned k = 0; k < nser; k++) {
            sum += v[i * nser + k] > 0 ? v[i * nser + k] : 0;
        }
        max = sum > max ? sum : max;
    }
    double cw = TV_W - TV_LEFT - TV_RIGHT - 70;
    char a[64], tip[256];
    for (unsigned i = 0; i < nrows; i++) {
        double y = top + i * rh, x = TV_LEFT, sum = 0;
        if (rh >= 8) {
            sv_text(o, TV_LEFT - 6, y + rh * 0.75, "end", rh >= 12 ? 11 : 8, "%s", labels[i]);
        }
        for (unsigned k = 0; k < nser; k++) {
            double w = max > 0 && v[i * nser + k] > 0 ? v[i * nser + k] / max * cw : 0;
            snprintf(tip, sizeof(tip), "%s: %s%s%s", labels[i], nser > 1 ? series[k] : "",
                     nser > 1 ? " " : "", fmt(a, sizeof(a), v[i * nser + k]));
            if (w > 0) {
                sv_rect(o, x, y + 1, w, rh - 2, colors[k], tip);
            }
            x += w;
            sum += v[i * nser + k] > 0 ? v[i * nser + k] : 0;
        }
        if (rh >= 8) {
            sv_text(o, x + 4, y + rh * 0.75, "start", rh >= 12 ? 10 : 8, "%s", fmt(a, sizeof(a), sum));
        }
    }
    sv_line(o, TV_LEFT, top, TV_LEFT, top + rh * nrows, "#444444", 1);
    sv_text(o, TV_LEFT, h - 12, "start", 10, "0");
    sv_text(o, TV_LEFT + cw, h - 12, "end", 10, "%s", fmt(a, sizeof(a), max));
    sv_end(o);
}

/* Per-rank rows (grouped above TS_TL_ROWS): nser values per rank from
 * get(), means over a group when mean is set, else sums. */
typedef void (*tv_rank_fn)(const tv_report_t *r, uint32_t rank, double *v);

static void tv_rank_bars(FILE *o, const tv_report_t *r, const char *title, unsigned nser,
                         const char *const *series, const char *const *colors, tv_rank_fn get,
                         int mean, tv_fmt_fn fmt)
{
    uint32_t size = r->j->size, rows = size < TS_TL_ROWS ? size : TS_TL_ROWS;
    double *v = calloc((size_t)rows * nser + nser, sizeof(double));
    double *one = calloc(nser + 1, sizeof(double));
    char (*lab)[32] = calloc(rows + 1, sizeof(*lab));
    const char **labels = calloc(rows + 1, sizeof(*labels));
    if (v != NULL && one != NULL && lab != NULL && labels != NULL) {
        for (uint32_t i = 0; i < rows; i++) {
            uint32_t lo, hi;
            tv_group(size, rows, i, &lo, &hi);
            for (uint32_t k = lo; k < hi; k++) {
                get(r, k, one);
                for (unsigned s = 0; s < nser; s++) {
                    v[i * nser + s] += one[s] / (mean ? hi - lo : 1);
                }
            }
            tv_group_label(lab[i], sizeof(lab[i]), lo, hi);
            labels[i] = lab[i];
        }
        tv_hbars(o, title, rows, labels, nser, series, colors, v, fmt);
    } else {
        sv_begin(o, TV_W, 60, title);
        sv_text(o, 8, 40, "start", 12, "(out of memory)");
        sv_end(o);
    }
    free(v);
    free(one);
    free(lab);
    free(labels);
}

static const char *tv_ns(char *b, size_t n, double v) { return sv_fmt_ns(b, n, v); }
static const char *tv_bytes(char *b, size_t n, double v) { return sv_fmt_bytes(b, n, v); }

/* ------------------------------------------------------------ the charts */

static void tv_rank_time_get(const tv_report_t *r, uint32_t rank, double *v)
{
    const ts_rank_t *x = &r->s->ranks[rank];
    double top = 0;
    v[0] = (double)(x->end - x->begin - x->mpi);
    for (uint32_t i = 0; i < r->s->ntop; i++) {
        v[1 + i] = (double)x->top[i];
        top += v[1 + i];
    }
    v[1 + r->s->ntop] = (double)x->mpi - top;
}

static void tv_rank_time(FILE *o, const tv_report_t *r)
{
    const char *series[TS_TOPCALLS + 2], *colors[TS_TOPCALLS + 2];
    unsigned n = 0;
    series[n] = "outside MPI";
    colors[n++] = "#c7c7c7";
    for (uint32_t i = 0; i < r->s->ntop; i++) {
        series[n] = tl_call_name(r->j, r->s->top[i]);
        colors[n++] = sv_color(i);
    }
    series[n] = "other MPI";
    colors[n++] = "#555555";
    tv_rank_bars(o, r, "Time per rank: outside MPI and in the calls that take longest", n,
                 series, colors, tv_rank_time_get, 1, tv_ns);
}

static void tv_calls(FILE *o, const tv_report_t *r)
{
    unsigned n = r->s->ncalls < 15 ? r->s->ncalls : 15;
    const char *labels[15];
    double v[15];
    const char *series[1] = { "time" }, *colors[1] = { sv_color(0) };
    for (unsigned i = 0; i < n; i++) {
        labels[i] = tl_call_name(r->j, r->s->calls[i].call);
        v[i] = (double)r->s->calls[i].total;
    }
    tv_hbars(o, "MPI calls by total time over all ranks", n, labels, 1, series, colors, v, tv_ns);
}

static void tv_hist(FILE *o, const char *title, const uint64_t *h, const char *what)
{
    unsigned lo = TS_HBINS, hi = 0;
    uint64_t max = 0;
    for (unsigned b = 0; b < TS_HBINS; b++) {
        if (h[b] != 0) {
            lo = b < lo ? b : lo;
            hi = b > hi ? b : hi;
            max = h[b] > max ? h[b] : max;
        }
    }
    int ht = 300;
    sv_begin(o, TV_W, ht, title);
    if (lo > hi) {
        sv_text(o, TV_W / 2.0, ht / 2.0, "middle", 12, "no %s", what);
        sv_end(o);
        return;
    }
    unsigned nb = hi - lo + 1;
    double x0 = 60, cw = TV_W - x0 - TV_RIGHT, bw = cw / nb, y0 = 40, chh = ht - y0 - 60;
    char a[32], c[32], tip[128];
    for (unsigned b = lo; b <= hi; b++) {
        double x = x0 + (b - lo) * bw, hgt = (double)h[b] / (double)max * chh;
        if (b == 0) {
            snprintf(a, sizeof(a), "0 B");
        } else {
            sv_fmt_bytes(a, sizeof(a), (double)ts_bin_low(b));
        }
        snprintf(tip, sizeof(tip), "%s%s: %llu %s", b == 0 ? "" : "from ", a,
                 (unsigned long long)h[b], what);
        sv_rect(o, x + 1, y0 + chh - hgt, bw - 2, hgt, sv_color(0), tip);
        if (h[b] != 0 && bw >= 22) {
            sv_text(o, x + bw / 2, y0 + chh - hgt - 3, "middle", 9, "%s",
                    sv_fmt_count(c, sizeof(c), (double)h[b]));
        }
        sv_vtext(o, x + bw / 2 + 3, y0 + chh + 6, 9, a);
    }
    sv_line(o, x0, y0 + chh, x0 + cw, y0 + chh, "#444444", 1);
    sv_text(o, x0 - 4, y0 + 8, "end", 10, "%s", sv_fmt_count(c, sizeof(c), (double)max));
    sv_text(o, x0 - 4, y0 + chh, "end", 10, "0");
    sv_end(o);
}

static void tv_p2p_sizes(FILE *o, const tv_report_t *r)
{
    tv_hist(o, "Point-to-point message sizes", r->s->p2p_hist, "messages");
}

static void tv_coll_sizes(FILE *o, const tv_report_t *r)
{
    tv_hist(o, "Collective call sizes (larger of bytes sent and received, per call)",
            r->s->coll_hist, "calls");
}

/* The matrix in at most TS_TL_ROWS x TS_TL_ROWS cells of rank groups. */
static void tv_matrix(FILE *o, const tv_report_t *r, int msgs)
{
    const char *title = msgs ? "Messages sent, rank to rank (rows send, columns receive)"
                             : "Bytes sent, rank to rank (rows send, columns receive)";
    uint32_t size = r->j->size, n = size < TS_TL_ROWS ? size : TS_TL_ROWS;
    double *g = calloc((size_t)n * n + 1, sizeof(double));
    double cell = 560.0 / n < 64 ? 560.0 / n : 64, x0 = 110, y0 = 60;
    int h = (int)(y0 + cell * n + 50);
    sv_begin(o, TV_W, h, title);
    if (g == NULL) {
        sv_end(o);
        return;
    }
    double max = 0;
    for (size_t i = 0; i < r->s->npairs; i++) {
        const ts_pair_t *p = &r->s->pairs[i];
        size_t a = (size_t)((uint64_t)p->src * n / size), b = (size_t)((uint64_t)p->dst * n / size);
        g[a * n + b] += msgs ? (double)p->msgs : (double)p->bytes;
        max = g[a * n + b] > max ? g[a * n + b] : max;
    }
    char col[8], v[32], tip[160], la[32], lb[32];
    for (uint32_t a = 0; a < n; a++) {
        uint32_t alo, ahi;
        tv_group(size, n, a, &alo, &ahi);
        tv_group_label(la, sizeof(la), alo, ahi);
        if (cell >= 8) {
            sv_text(o, x0 - 4, y0 + (a + 0.7) * cell, "end", cell >= 12 ? 10 : 7, "%s", la);
        }
        for (uint32_t b = 0; b < n; b++) {
            uint32_t blo, bhi;
            tv_group(size, n, b, &blo, &bhi);
            tv_group_label(lb, sizeof(lb), blo, bhi);
            double x = g[(size_t)a * n + b];
            sv_heat(max > 0 ? x / max : 0, col);
            if (msgs) {
                sv_fmt_count(v, sizeof(v), x);
            } else {
                sv_fmt_bytes(v, sizeof(v), x);
            }
            snprintf(tip, sizeof(tip), "%s to %s: %s", la, lb, v);
            sv_rect(o, x0 + b * cell, y0 + a * cell, cell - (cell > 4), cell - (cell > 4), col, tip);
            if (cell >= 40 && x > 0) {
                fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\" "
                        "fill=\"%s\">", x0 + (b + 0.5) * cell, y0 + (a + 0.55) * cell,
                        x > 0.6 * max ? "#ffffff" : "#000000");
                sv_esc(o, v);
                fputs("</text>\n", o);
            }
        }
    }
    for (uint32_t b = 0; b < n && cell >= 8; b++) {
        uint32_t blo, bhi;
        tv_group(size, n, b, &blo, &bhi);
        tv_group_label(lb, sizeof(lb), blo, bhi);
        if (n <= 16) {
            sv_text(o, x0 + (b + 0.5) * cell, y0 - 6, "middle", 10, "%s", lb);
        }
    }
    if (msgs) {
        sv_fmt_count(v, sizeof(v), max);
    } else {
        sv_fmt_bytes(v, sizeof(v), max);
    }
    sv_text(o, x0, h - 16, "start", 10, "darkest: %s%s", v,
            n < size ? " (cells are groups of ranks)" : "");
    free(g);
    sv_end(o);
}

static void tv_matrix_bytes(FILE *o, const tv_report_t *r)
{
    tv_matrix(o, r, 0);
}

static void tv_matrix_msgs(FILE *o, const tv_report_t *r)
{
    tv_matrix(o, r, 1);
}

static void tv_coll_bytes_get(const tv_report_t *r, uint32_t rank, double *v)
{
    v[0] = (double)r->s->ranks[rank].coll_sent;
    v[1] = (double)r->s->ranks[rank].coll_recvd;
}

static void tv_coll_bytes(FILE *o, const tv_report_t *r)
{
    const char *series[2] = { "sent", "received" }, *colors[2] = { sv_color(0), sv_color(1) };
    tv_rank_bars(o, r, "Collective bytes per rank (what its calls contribute and receive)", 2,
                 series, colors, tv_coll_bytes_get, 0, tv_bytes);
}

/* Rows of ranks, columns of time, shaded by the share of time in MPI;
 * the critical path drawn over them. */
static void tv_timeline(FILE *o, const tv_report_t *r)
{
    const ts_stats_t *s = r->s;
    double x0 = 110, cw = TV_W - x0 - TV_RIGHT, y0 = 50;
    double rh = s->tl_rows && 400.0 / s->tl_rows < 20 ? 400.0 / s->tl_rows : 20;
    int h = (int)(y0 + rh * s->tl_rows + 50);
    sv_begin(o, TV_W, h, "Timeline: share of time inside MPI per rank (red line: critical path)");
    char col[8], tip[128], a[32], b[32], la[32];
    double bw = cw / TS_TL_BINS, tend = s->t_end > 0 ? (double)s->t_end : 1;
    fputs("<g shape-rendering=\"crispEdges\">\n", o);
    for (uint32_t i = 0; i < s->tl_rows; i++) {
        uint32_t lo, hi;
        tv_group(s->size, s->tl_rows, i, &lo, &hi);
        tv_group_label(la, sizeof(la), lo, hi);
        if (rh >= 8) {
            sv_text(o, x0 - 4, y0 + (i + 0.75) * rh, "end", rh >= 12 ? 10 : 7, "%s", la);
        }
        for (uint32_t c = 0; c < TS_TL_BINS; c++) {
            double f = s->tl[(size_t)i * TS_TL_BINS + c];
            if (f <= 0.005) {
                continue;
            }
            sv_blue(f, col);
            snprintf(tip, sizeof(tip), "%s, %s: %.0f%% in MPI", la,
                     sv_fmt_ns(a, sizeof(a), tend * c / TS_TL_BINS), f * 100);
            sv_rect(o, x0 + c * bw, y0 + i * rh + 1, bw + 0.3, rh - 2, col, tip);
        }
    }
    fputs("</g>\n", o);
    sv_line(o, x0, y0 + rh * s->tl_rows, x0 + cw, y0 + rh * s->tl_rows, "#444444", 1);
    sv_text(o, x0, h - 28, "start", 10, "0");
    sv_text(o, x0 + cw, h - 28, "end", 10, "%s", sv_fmt_ns(b, sizeof(b), tend));
    /* the path: the rank it is on in each column, joined */
    const tc_path_t *p = r->p;
    double pw = cw / TC_COLS;
    uint32_t prev = TL_NONE;
    for (unsigned c = 0; p != NULL && c < TC_COLS; c++) {
        uint32_t k = p->cols[c];
        if (k == TL_NONE || k >= s->size) {
            prev = TL_NONE;
            continue;
        }
        double y = y0 + ((double)((uint64_t)k * s->tl_rows / s->size) + 0.5) * rh;
        sv_line(o, x0 + c * pw, y, x0 + (c + 1) * pw, y, "#d62728", 2);
        if (prev != TL_NONE && prev != k) {
            double yp = y0 + ((double)((uint64_t)prev * s->tl_rows / s->size) + 0.5) * rh;
            sv_line(o, x0 + c * pw, yp, x0 + c * pw, y, "#d62728", 1);
        }
        prev = k;
    }
    sv_text(o, x0, h - 12, "start", 10, "darker: more of the time inside MPI; %u columns of %s",
            TS_TL_BINS, sv_fmt_ns(a, sizeof(a), tend / TS_TL_BINS));
    sv_end(o);
}

static void tv_cpath_get(const tv_report_t *r, uint32_t rank, double *v)
{
    v[0] = (double)r->p->rank_compute[rank];
    v[1] = (double)r->p->rank_mpi[rank];
    v[2] = (double)r->p->rank_transfer[rank];
}

static void tv_cpath(FILE *o, const tv_report_t *r)
{
    const char *series[3] = { "compute", "MPI", "transfer" };
    const char *colors[3] = { sv_color(4), sv_color(0), sv_color(2) };
    tv_rank_bars(o, r, "Critical path: its time on each rank", 3, series, colors, tv_cpath_get,
                 0, tv_ns);
}

const tv_chart_t tv_charts[] = {
    { "rank_time", "Time per rank", tv_rank_time },
    { "calls", "MPI calls by time", tv_calls },
    { "p2p_sizes", "Point-to-point message sizes", tv_p2p_sizes },
    { "coll_sizes", "Collective call sizes", tv_coll_sizes },
    { "matrix_bytes", "Communication matrix (bytes)", tv_matrix_bytes },
    { "matrix_msgs", "Communication matrix (messages)", tv_matrix_msgs },
    { "coll_bytes", "Collective bytes per rank", tv_coll_bytes },
    { "timeline", "Timeline", tv_timeline },
    { "cpath", "Critical path by rank", tv_cpath },
};
const size_t tv_ncharts = sizeof(tv_charts) / sizeof(tv_charts[0]);

const tv_chart_t *tv_chart(const char *name)
{
    for (size_t i = 0; i < tv_ncharts; i++) {
        if (strcmp(tv_charts[i].name, name) == 0) {
            return &tv_charts[i];
        }
    }
    return NULL;
}
