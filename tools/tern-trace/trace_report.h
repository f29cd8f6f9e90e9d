/* tern-trace report (docs/trace.md): a job's traces loaded, matched and
 * summed up as text on stdout, an HTML page (-o) and SVG files
 * (--svg-dir). */
#ifndef TT_TRACE_REPORT_H
#define TT_TRACE_REPORT_H

#include <stdio.h>

#include "trace_charts.h"

/* The command, argv after "report".  0, 1 on an error (said on stderr),
 * 2 on a usage error. */
int tr_main(int argc, char **argv);

/* The text summary (trace_text.c). */
void tr_text(FILE *o, const tv_report_t *r);

/* The self-contained HTML page (trace_html.c): every string from the
 * traces escaped, charts inline, no script. */
void tr_html(FILE *o, const tv_report_t *r);

#endif
