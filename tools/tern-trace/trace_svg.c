/* SVG shapes (trace_svg.h). */
#include "trace_svg.h"

#include <stdarg.h>
#include <string.h>

void sv_esc(FILE *o, const char *s)
{
    for (; *s != '\0'; s++) {
        switch (*s) {
        case '&': fputs("&amp;", o); break;
        case '<': fputs("&lt;", o); break;
        case '>': fputs("&gt;", o); break;
        case '"': fputs("&quot;", o); break;
        case '\'': fputs("&#39;", o); break;
        default: fputc(*s, o); break;
        }
    }
}

void sv_file_head(FILE *o)
{
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", o);
}

void sv_begin(FILE *o, int w, int h, const char *title)
{
    fprintf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" role=\"img\" font-family=\"sans-serif\">\n<title>", w, h, w, h);
    sv_esc(o, title);
    fputs("</title>\n<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n", o);
    sv_text(o, 8, 18, "start", 14, "%s", title);
}

void sv_end(FILE *o)
{
    fputs("</svg>\n", o);
}

void sv_text(FILE *o, double x, double y, const char *anchor, int size, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\">", x, y, anchor,
            size);
    sv_esc(o, buf);
    fputs("</text>\n", o);
}

void sv_vtext(FILE *o, double x, double y, int size, const char *s)
{
    fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"%d\" "
            "transform=\"rotate(-90 %.1f %.1f)\">", x, y, size, x, y);
    sv_esc(o, s);
    fputs("</text>\n", o);
}

void sv_rect(FILE *o, double x, double y, double w, double h, const char *fill, const char *tip)
{
    fprintf(o, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"", x, y,
            w > 0 ? w : 0, h > 0 ? h : 0, fill);
    if (tip == NULL) {
        fputs("/>\n", o);
        return;
    }
    fputs("><title>", o);
    sv_esc(o, tip);
    fputs("</title></rect>\n", o);
}

void sv_line(FILE *o, double x1, double y1, double x2, double y2, const char *stroke, double width)
{
    fprintf(o, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" "
            "stroke-width=\"%.2f\"/>\n", x1, y1, x2, y2, stroke, width);
}

const char *sv_color(unsigned i)
{
    static const char *const pal[] = {
        "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
        "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
    };
    return pal[i % (sizeof(pal) / sizeof(pal[0]))];
}

void sv_heat(double f, char out[8])
{
    if (!(f > 0)) {
        f = 0;
    }
    f = f > 1 ? 1 : f;
    /* white -> orange -> dark red */
    double r = f < 0.5 ? 255 : 255 - (f - 0.5) * 2 * 120;
    double g = f < 0.5 ? 255 - f * 2 * 115 : 140 - (f - 0.5) * 2 * 140;
    double b = f < 0.5 ? 255 - f * 2 * 215 : 40 - (f - 0.5) * 2 * 40;
    snprintf(out, 8, "#%02x%02x%02x", (unsigned)(r + 0.5) & 0xff, (unsigned)(g + 0.5) & 0xff,
             (unsigned)(b + 0.5) & 0xff);
}

void sv_blue(double f, char out[8])
{
    if (!(f > 0)) {
        f = 0;
    }
    f = f > 1 ? 1 : f;
    double r = 255 - f * (255 - 31), g = 255 - f * (255 - 73), b = 255 - f * (255 - 140);
    snprintf(out, 8, "#%02x%02x%02x", (unsigned)(r + 0.5) & 0xff, (unsigned)(g + 0.5) & 0xff,
             (unsigned)(b + 0.5) & 0xff);
}

const char *sv_fmt_ns(char *buf, size_t n, double ns)
{
    if (ns < 1e3) {
        snprintf(buf, n, "%.0f ns", ns);
    } else if (ns < 1e6) {
        snprintf(buf, n, "%.3g us", ns / 1e3);
    } else if (ns < 1e9) {
        snprintf(buf, n, "%.3g ms", ns / 1e6);
    } else {
        snprintf(buf, n, "%.4g s", ns / 1e9);
    }
    return buf;
}

const char *sv_fmt_bytes(char *buf, size_t n, double v)
{
    static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    unsigned u = 0;
    while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
        v /= 1024;
        u++;
    }
    snprintf(buf, n, u == 0 ? "%.0f %s" : "%.3g %s", v, units[u]);
    return buf;
}

const char *sv_fmt_count(char *buf, size_t n, double v)
{
    if (v < 1e4) {
        snprintf(buf, n, "%.0f", v);
    } else if (v < 1e6) {
        snprintf(buf, n, "%.3gk", v / 1e3);
    } else if (v < 1e9) {
        snprintf(buf, n, "%.3gM", v / 1e6);
    } else {
        snprintf(buf, n, "%.3gG", v / 1e9);
    }
    return buf;
}
