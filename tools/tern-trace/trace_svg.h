/* SVG drawing for tern-trace's reports: the few shapes the charts need,
 * written to a stream, every text escaped for XML and HTML (a trace's
 * strings are printable ASCII but may hold <, & or quotes).  An <svg>
 * element made here is both a stand-alone file (with sv_file_head) and a
 * valid inline element of an HTML page; it needs no script, font or
 * anything from outside. */
#ifndef TT_TRACE_SVG_H
#define TT_TRACE_SVG_H

#include <stdint.h>
#include <stdio.h>

/* Write s escaped (&, <, >, ", '). */
void sv_esc(FILE *o, const char *s);

/* The XML declaration of a stand-alone .svg file. */
void sv_file_head(FILE *o);
/* Open an <svg> of w x h user units with a <title>; sv_end closes it. */
void sv_begin(FILE *o, int w, int h, const char *title);
void sv_end(FILE *o);

/* Text at (x, y); anchor "start", "middle" or "end"; size in px; the
 * printf-formatted text is escaped. */
void sv_text(FILE *o, double x, double y, const char *anchor, int size, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* Text rotated -90 degrees around (x, y). */
void sv_vtext(FILE *o, double x, double y, int size, const char *s);
/* A filled rectangle; tip (may be NULL): a tooltip, escaped. */
void sv_rect(FILE *o, double x, double y, double w, double h, const char *fill, const char *tip);
void sv_line(FILE *o, double x1, double y1, double x2, double y2, const char *stroke, double width);

/* The i-th colour of a categorical palette ("#rrggbb"). */
const char *sv_color(unsigned i);
/* A colour for f in [0, 1] on a white-to-dark-red scale, into out[8]. */
void sv_heat(double f, char out[8]);
/* The same on a white-to-dark-blue scale (under a red line). */
void sv_blue(double f, char out[8]);

/* Human-readable values into buf: ns as time ("12.3 ms"), bytes ("4.0 KiB"),
 * counts ("1.2 M"). */
const char *sv_fmt_ns(char *buf, size_t n, double ns);
const char *sv_fmt_bytes(char *buf, size_t n, double bytes);
const char *sv_fmt_count(char *buf, size_t n, double v);

#endif
