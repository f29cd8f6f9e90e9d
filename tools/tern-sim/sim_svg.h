/* Line plots and heatmaps as SVG files, written by hand (no library):
 * axes with rounded ticks, one polyline per series and a legend, or one
 * cell per (row, bin) and a colour scale. */
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

/* A heatmap: nrows rows (names, top to bottom) of ncols cells, v[r *
 * ncols + c], column c covering [c * dx, (c + 1) * dx) on the x axis
 * (the last one ends at xend); colours from white (0) through yellow and
 * red to black (vmax and above).  note: a line under the title (how the
 * rows were made); vlabel names the colour scale.  0 or -1. */
int tn_sim_svg_heatmap(const char *path, const char *title, const char *note, const char *xlabel,
                       const char *vlabel, const char *const *rows, int nrows, const double *v,
                       int ncols, double dx, double xend, double vmax);

#endif
