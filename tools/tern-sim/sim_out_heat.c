/* The heatmaps as CSV and SVG (sim_out.h, sim_heat.h). */
#include "sim_out.h"

#include <stdlib.h>

#include "sim_svg.h"

/* link_util.csv (long: one line per row and bin) and its picture. */
static int out_heat_links(const char *dir, const tn_sim_heat_t *h, char *why, size_t whylen)
{
    char path[TN_SIM_PATH_MAX + 64], note[160];
    int32_t nr = h->nlrow, nb = h->nbins;
    snprintf(path, sizeof(path), "%s/link_util.csv", dir);
    FILE *f = fopen(path, "w");
    double *v = malloc(sizeof(double) * (size_t)nr * (size_t)nb + 1);
    const char *names[TN_SIM_HEAT_ROWS];
    if (f == NULL || v == NULL) {
        goto err;
    }
    fprintf(f, "row,name,links,capacity_Bpns,bin,t0_ns,t1_ns,bytes,util\n");
    for (int32_t r = 0; r < nr; r++) {
        names[r] = h->lrow_name[r];
        for (int32_t b = 0; b < nb; b++) {
            double t0 = b * h->bin_w, w = tn_sim_heat_bin_width(h, b);
            v[(size_t)r * (size_t)nb + b] = tn_sim_heat_util(h, r, b);
            fprintf(f, "%d,%s,%d,%.9g,%d,%.9g,%.9g,%.9g,%.6g\n", r, h->lrow_name[r], h->lrow_n[r],
                    h->lrow_cap[r], b, t0, t0 + w, h->lbytes[(size_t)r * (size_t)h->nbins_max + b],
                    v[(size_t)r * (size_t)nb + b]);
        }
    }
    if (fclose(f) != 0) {
        f = NULL;
        goto err;
    }
    f = NULL;
    snprintf(note, sizeof(note), "%s; colour: bytes carried / (capacity x bin)", h->ldesc);
    snprintf(path, sizeof(path), "%s/link_util_heatmap.svg", dir);
    if (tn_sim_svg_heatmap(path, "Link utilisation over time", note, "time (ns)",
                           "fraction of capacity", names, nr, v, nb, h->bin_w, h->t_end, 1) != 0) {
        goto err;
    }
    free(v);
    return 0;
err:
    snprintf(why, whylen, "%s: cannot write", path);
    if (f != NULL) {
        fclose(f);
    }
    free(v);
    return -1;
}

/* queue.csv (long) and its picture. */
static int out_heat_queues(const char *dir, const tn_sim_heat_t *h, char *why, size_t whylen)
{
    char path[TN_SIM_PATH_MAX + 64], note[160];
    int32_t nr = h->nqrow, nb = h->nbins;
    snprintf(path, sizeof(path), "%s/queue.csv", dir);
    FILE *f = fopen(path, "w");
    double *v = malloc(sizeof(double) * (size_t)nr * (size_t)nb + 1), vmax = 0;
    const char *names[TN_SIM_HEAT_ROWS];
    if (f == NULL || v == NULL) {
        goto err;
    }
    fprintf(f, "row,name,switches,bin,t0_ns,t1_ns,max_bytes\n");
    for (int32_t r = 0; r < nr; r++) {
        names[r] = h->qrow_name[r];
        for (int32_t b = 0; b < nb; b++) {
            double t0 = b * h->bin_w, q = h->qmax[(size_t)r * (size_t)h->nbins_max + b];
            v[(size_t)r * (size_t)nb + b] = q;
            vmax = q > vmax ? q : vmax;
            fprintf(f, "%d,%s,%d,%d,%.9g,%.9g,%.9g\n", r, h->qrow_name[r], h->qrow_n[r], b, t0,
                    t0 + tn_sim_heat_bin_width(h, b), q);
        }
    }
    if (fclose(f) != 0) {
        f = NULL;
        goto err;
    }
    f = NULL;
    snprintf(note, sizeof(note), "%s; colour: most bytes queued at a switch's inputs in the bin",
             h->qdesc);
    snprintf(path, sizeof(path), "%s/queue_heatmap.svg", dir);
    if (tn_sim_svg_heatmap(path, "Switch input queues over time", note, "time (ns)",
                           "bytes queued (max)", names, nr, v, nb, h->bin_w, h->t_end, vmax) != 0) {
        goto err;
    }
    free(v);
    return 0;
err:
    snprintf(why, whylen, "%s: cannot write", path);
    if (f != NULL) {
        fclose(f);
    }
    free(v);
    return -1;
}

int tn_sim_out_heat(const char *dir, const tn_sim_eng_t *e, char *why, size_t whylen)
{
    const tn_sim_heat_t *h = &e->heat;
    if (!h->on) {
        return 0;
    }
    if (out_heat_links(dir, h, why, whylen) != 0) {
        return -1;
    }
    return h->queues ? out_heat_queues(dir, h, why, whylen) : 0;
}
