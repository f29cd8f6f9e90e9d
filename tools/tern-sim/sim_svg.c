/* SVG line plots (sim_svg.h).  Numbers are printed with %g, so the same
 * data gives the same file byte for byte. */
#include "sim_svg.h"

#include <math.h>
#include <stdio.h>

#define W 720
#define H 440
#define ML 80
#define MR 20
#define MT 40
#define MB 60

static const char *const svg_colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                         "#9467bd", "#8c564b", "#e377c2", "#17becf"};

/* A "nice" step near range/n: 1, 2 or 5 times a power of ten. */
static double svg_step(double range, int n)
{
    double raw = range / n, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static void svg_text_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<') {
            fputs("&lt;", f);
        } else if (*s == '>') {
            fputs("&gt;", f);
        } else if (*s == '&') {
            fputs("&amp;", f);
        } else {
            fputc(*s, f);
        }
    }
}

int tn_sim_svg_plot(const char *path, const char *title, const char *xlabel, const char *ylabel,
                    const tn_sim_series_t *s, int ns, int logx)
{
    double x0 = INFINITY, x1 = -INFINITY, y0 = 0, y1 = -INFINITY;
    for (int i = 0; i < ns; i++) {
        for (size_t k = 0; k < s[i].n; k++) {
            double x = s[i].x[k], y = s[i].y[k];
            if (!isfinite(x) || !isfinite(y) || (logx && x <= 0)) {
                continue;
            }
            x = logx ? log10(x) : x;
            x0 = x < x0 ? x : x0;
            x1 = x > x1 ? x : x1;
            y0 = y < y0 ? y : y0;
            y1 = y > y1 ? y : y1;
        }
    }
    if (!(x1 >= x0)) {
        x0 = 0;
        x1 = 1;
    }
    if (!(y1 > y0)) {
        y1 = y0 + 1;
    }
    if (x1 == x0) {
        x0 -= 0.5;
        x1 += 0.5;
    }
    y1 += (y1 - y0) * 0.05;
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        return -1;
    }
    double pw = W - ML - MR, ph = H - MT - MB;
#define PX(x) (ML + ((x) - x0) / (x1 - x0) * pw)
#define PY(y) (MT + ph - ((y) - y0) / (y1 - y0) * ph)
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n", W, H);
    fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H);
    fprintf(f, "<text x=\"%d\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">", W / 2);
    svg_text_escape(f, title);
    fprintf(f, "</text>\n");
    /* grid and ticks */
    double ys = svg_step(y1 - y0, 6);
    for (double y = ceil(y0 / ys) * ys; y <= y1 + ys * 1e-9; y += ys) {
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", ML, PY(y),
                W - MR, PY(y));
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", ML - 6, PY(y) + 4,
                fabs(y) < ys * 1e-6 ? 0.0 : y);
    }
    if (logx) {
        for (double e = floor(x0); e <= ceil(x1); e += 1) {
            if (e < x0 - 1e-9 || e > x1 + 1e-9) {
                continue;
            }
            fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n", PX(e), MT,
                    PX(e), H - MB);
            fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n", PX(e), H - MB + 16,
                    pow(10, e));
        }
    } else {
        double xs = svg_step(x1 - x0, 8);
        for (double x = ceil(x0 / xs) * xs; x <= x1 + xs * 1e-9; x += xs) {
            fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n", PX(x), MT,
                    PX(x), H - MB);
            fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n", PX(x), H - MB + 16,
                    fabs(x) < xs * 1e-6 ? 0.0 : x);
        }
    }
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"black\"/>\n",
            ML, MT, pw, ph);
    fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", ML + pw / 2, H - 18);
    svg_text_escape(f, xlabel);
    fprintf(f, "%s</text>\n", logx ? " (log scale)" : "");
    fprintf(f, "<text transform=\"translate(18,%.1f) rotate(-90)\" text-anchor=\"middle\">", MT + ph / 2);
    svg_text_escape(f, ylabel);
    fprintf(f, "</text>\n");
    for (int i = 0; i < ns; i++) {
        const char *col = svg_colors[i % 8];
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\" points=\"", col);
        for (size_t k = 0; k < s[i].n; k++) {
            double x = s[i].x[k], y = s[i].y[k];
            if (!isfinite(x) || !isfinite(y) || (logx && x <= 0)) {
                continue;
            }
            fprintf(f, "%.1f,%.1f ", PX(logx ? log10(x) : x), PY(y));
        }
        fprintf(f, "\"/>\n");
        if (s[i].n <= 40) {
            for (size_t k = 0; k < s[i].n; k++) {
                double x = s[i].x[k], y = s[i].y[k];
                if (isfinite(x) && isfinite(y) && !(logx && x <= 0)) {
                    fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
                            PX(logx ? log10(x) : x), PY(y), col);
                }
            }
        }
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"3\" fill=\"%s\"/>\n", ML + 10,
                MT + 12 + 16 * i, col);
        fprintf(f, "<text x=\"%d\" y=\"%d\">", ML + 30, MT + 17 + 16 * i);
        svg_text_escape(f, s[i].name);
        fprintf(f, "</text>\n");
    }
    fprintf(f, "</svg>\n");
#undef PX
#undef PY
    return fclose(f) == 0 ? 0 : -1;
}

/* The heatmap's colour of x in [0, 1]: white, yellow, orange, red, black. */
static void svg_heat_color(double x, char *buf, size_t len)
{
    static const double stops[5][3] = {
        {255, 255, 255}, {255, 230, 80}, {245, 130, 30}, {190, 20, 20}, {30, 0, 0}};
    x = !(x > 0) ? 0 : x > 1 ? 1 : x;
    double s = x * 4;
    int i = s >= 4 ? 3 : (int)s;
    double f = s - i, c[3];
    for (int k = 0; k < 3; k++) {
        c[k] = stops[i][k] + (stops[i + 1][k] - stops[i][k]) * f;
    }
    snprintf(buf, len, "#%02x%02x%02x", (unsigned)lround(c[0]), (unsigned)lround(c[1]),
             (unsigned)lround(c[2]));
}

#define HM_ML 150   /* row names */
#define HM_MR 110   /* colour scale */
#define HM_MT 58

int tn_sim_svg_heatmap(const char *path, const char *title, const char *note, const char *xlabel,
                       const char *vlabel, const char *const *rows, int nrows, const double *v,
                       int ncols, double dx, double xend, double vmax)
{
    if (nrows < 1 || ncols < 1) {
        return -1;
    }
    double ch = nrows <= 8 ? 36 : nrows <= 24 ? 18 : 9;  /* cell height */
    double ph = ch * nrows, pw = W - HM_ML - HM_MR;
    int hgt = (int)(HM_MT + ph + MB);
    double x1 = xend > 0 ? xend : ncols * dx;
    if (!(vmax > 0)) {
        vmax = 1;
    }
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        return -1;
    }
#define HX(x) (HM_ML + (x) / x1 * pw)
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n", W, hgt);
    fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, hgt);
    fprintf(f, "<text x=\"%d\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">", W / 2);
    svg_text_escape(f, title);
    fprintf(f, "</text>\n<text x=\"%d\" y=\"40\" text-anchor=\"middle\" fill=\"#444\">", W / 2);
    svg_text_escape(f, note);
    fprintf(f, "</text>\n");
    char col[8];
    fprintf(f, "<g shape-rendering=\"crispEdges\" stroke=\"none\">\n");
    for (int r = 0; r < nrows; r++) {
        double y = HM_MT + r * ch;
        for (int c = 0; c < ncols; c++) {
            double a = c * dx, b = (c + 1) * dx < x1 ? (c + 1) * dx : x1;
            if (!(b > a)) {
                continue;
            }
            svg_heat_color(v[(size_t)r * (size_t)ncols + c] / vmax, col, sizeof(col));
            fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"/>\n",
                    HX(a), y, HX(b) - HX(a), ch, col);
        }
    }
    fprintf(f, "</g>\n");
    for (int r = 0; r < nrows; r++) {
        double y = HM_MT + r * ch;
        if (ch >= 9) {
            fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"%d\">", HM_ML - 6,
                    y + ch / 2 + (ch >= 18 ? 4 : 3), ch >= 18 ? 12 : 8);
            svg_text_escape(f, rows[r]);
            fprintf(f, "</text>\n");
        }
    }
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"black\"/>\n",
            HM_ML, HM_MT, pw, ph);
    double xs = svg_step(x1, 6);
    for (double x = 0; x <= x1 + xs * 1e-9; x += xs) {
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", HX(x),
                HM_MT + ph, HX(x), HM_MT + ph + 5);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n", HX(x),
                HM_MT + ph + 18, x);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", HM_ML + pw / 2, HM_MT + ph + 38);
    svg_text_escape(f, xlabel);
    fprintf(f, "</text>\n");
    /* the colour scale: 20 steps, bottom 0, top vmax */
    double sx = W - HM_MR + 20, sh = ph < 120 ? ph : 120;
    for (int i = 0; i < 20; i++) {
        svg_heat_color((i + 0.5) / 20, col, sizeof(col));
        fprintf(f, "<rect x=\"%.1f\" y=\"%.2f\" width=\"14\" height=\"%.2f\" fill=\"%s\"/>\n", sx,
                HM_MT + sh - (i + 1) * sh / 20, sh / 20, col);
    }
    fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"14\" height=\"%.1f\" fill=\"none\" stroke=\"black\"/>\n",
            sx, HM_MT, sh);
    double vs = svg_step(vmax, 4);
    for (double x = 0; x <= vmax * (1 + 1e-9); x += vs) {
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%g</text>\n", sx + 18, HM_MT + sh - x / vmax * sh + 4, x);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", sx - 6, HM_MT + sh + 18);
    svg_text_escape(f, vlabel);
    fprintf(f, "</text>\n</svg>\n");
#undef HX
    return fclose(f) == 0 ? 0 : -1;
}
