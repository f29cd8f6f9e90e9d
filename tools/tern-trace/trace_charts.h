/* The charts of tern-trace report (docs/trace.md): one table, drawn into
 * the HTML page inline and, with --svg-dir, each into its own file. */
#ifndef TT_TRACE_CHARTS_H
#define TT_TRACE_CHARTS_H

#include <stddef.h>
#include <stdio.h>

#include "trace_cpath.h"
#include "trace_load.h"
#include "trace_match.h"
#include "trace_stats.h"

/* What a report is made of. */
typedef struct {
    const tl_job_t   *j;
    const tm_match_t *m;
    const ts_stats_t *s;
    const tc_path_t  *p;
    const tc_model_t *mod;
} tv_report_t;

typedef struct {
    const char *name;                   /* file name without .svg, HTML anchor */
    const char *title;
    void      (*draw)(FILE *o, const tv_report_t *r);
} tv_chart_t;

extern const tv_chart_t tv_charts[];
extern const size_t     tv_ncharts;

/* The chart named name, or NULL. */
const tv_chart_t *tv_chart(const char *name);

/* Ranks are drawn one per row up to TS_TL_ROWS, in groups above: the
 * ranks of row i of n, [lo, hi). */
void tv_group(uint32_t size, uint32_t rows, uint32_t i, uint32_t *lo, uint32_t *hi);

#endif
