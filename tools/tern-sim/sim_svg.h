/* Line plots as SVG files, written by hand (no library): axes with
 * rounded ticks, one polyline per series, a legend. */
#ifndef TN_SIM_SVG_H
#define TN_SIM_SVG_H

#include <stddef.h>

typedef struct {
    const char *name;
    const double *x, *y;
    size_t n;
} tn_sim_series_t;

/* Writes the plot to path; logx: a log-scale x axis (x > 0 only).
 * 0 or -1 (the file could not be written). */
int tn_sim_svg_plot(const char *path, const char *title, const char *xlabel, const char *ylabel,
                    const tn_sim_series_t *s, int ns, int logx);

#endif
