/* Link-utilisation and switch-queue heatmaps (sim_heat.h). */
#include "sim_heat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Link class codes for the per-class rows (sorted by code). */
enum {
    HC_EP_UP = 0,
    HC_EP_DOWN = 1,
    HC_TREE = 2,                                 /* + 2 * level + (up) */
    HC_LOCAL = HC_TREE + 2 * (TN_SIM_FT_LEVELS + 1),
    HC_GLOBAL,
    HC_DIM,                                      /* + 2 * dim + (minus) */
    HC_LINK = HC_DIM + 2 * TN_SIM_MAX_DIMS,
    HC_OTHER,
    HC_N
};

static void heat_node_name(const tn_sim_topo_t *t, int32_t v, char *buf, size_t len)
{
    if (t->names != NULL) {
        snprintf(buf, len, "%.18s", t->names + t->name_off[v]);
    } else if (v < t->n_ep) {
        snprintf(buf, len, "e%d", v);
    } else {
        snprintf(buf, len, "s%d", v - t->n_ep);
    }
}

/* The class code and its row name of port p of node v. */
static int heat_class(const tn_sim_topo_t *t, int32_t v, int32_t p, char *name, size_t len)
{
    int32_t sw = v - t->n_ep, i = p - t->port_off[v];
    switch (t->pclass[p]) {
    case TN_SIM_PORT_HOST:
        snprintf(name, len, v < t->n_ep ? "endpoint up" : "endpoint down");
        return v < t->n_ep ? HC_EP_UP : HC_EP_DOWN;
    case TN_SIM_PORT_UP:
    case TN_SIM_PORT_DOWN: {
        int up = t->pclass[p] == TN_SIM_PORT_UP, lvl = 0;
        if (t->kind == TN_SIM_TOPO_FATTREE) {
            for (int l = 1; l <= t->ft.n; l++) {
                if (sw >= t->ft.off[l - 1]) {
                    lvl = l;
                }
            }
            snprintf(name, len, "level %d %s", lvl, up ? "up" : "down");
        } else {
            snprintf(name, len, up ? "leaf up" : "spine down");
        }
        return HC_TREE + 2 * lvl + up;
    }
    case TN_SIM_PORT_LOCAL:
        snprintf(name, len, "local");
        return HC_LOCAL;
    case TN_SIM_PORT_GLOBAL:
        snprintf(name, len, "global");
        return HC_GLOBAL;
    case TN_SIM_PORT_DIM: {
        int d = (i - t->tor.c) / 2, minus = (i - t->tor.c) % 2;
        if (d < 0 || d >= TN_SIM_MAX_DIMS) {
            break;
        }
        snprintf(name, len, "dim %d %c", d, minus ? '-' : '+');
        return HC_DIM + 2 * d + minus;
    }
    case TN_SIM_PORT_LINK:
        snprintf(name, len, "switch to switch");
        return HC_LINK;
    default:
        break;
    }
    snprintf(name, len, "other");
    return HC_OTHER;
}

static void heat_link_rows(tn_sim_heat_t *h, const tn_sim_topo_t *t)
{
    char a[24], b[24];
    if (t->n_link <= TN_SIM_HEAT_ROWS) {
        h->lgroup = TN_SIM_HEAT_PER_LINK;
        snprintf(h->ldesc, sizeof(h->ldesc), "one row per link (sender>receiver)");
        for (int32_t v = 0; v < t->n_node; v++) {
            for (int32_t p = t->port_off[v]; p < t->port_off[v + 1]; p++) {
                if (t->peer[p] < 0) {
                    continue;
                }
                heat_node_name(t, v, a, sizeof(a));
                heat_node_name(t, t->peer[p], b, sizeof(b));
                snprintf(h->lrow_name[h->nlrow], TN_SIM_HEAT_NAME, "%.18s>%.18s", a, b);
                h->port_row[p] = h->nlrow++;
            }
        }
    } else if (t->n_sw + 1 <= TN_SIM_HEAT_ROWS) {
        h->lgroup = TN_SIM_HEAT_PER_SWITCH;
        snprintf(h->ldesc, sizeof(h->ldesc), "one row per switch (its output links), one for the endpoints' links");
        snprintf(h->lrow_name[0], TN_SIM_HEAT_NAME, "endpoint up");
        for (int32_t s = 0; s < t->n_sw; s++) {
            heat_node_name(t, t->n_ep + s, a, sizeof(a));
            snprintf(h->lrow_name[1 + s], TN_SIM_HEAT_NAME, "%s out", a);
        }
        h->nlrow = 1 + t->n_sw;
        for (int32_t v = 0; v < t->n_node; v++) {
            for (int32_t p = t->port_off[v]; p < t->port_off[v + 1]; p++) {
                h->port_row[p] = t->peer[p] < 0 ? -1 : v < t->n_ep ? 0 : 1 + v - t->n_ep;
            }
        }
    } else {
        h->lgroup = TN_SIM_HEAT_PER_CLASS;
        snprintf(h->ldesc, sizeof(h->ldesc), "one row per link class and level");
        int32_t row_of[HC_N];
        char names[HC_N][TN_SIM_HEAT_NAME];
        for (int c = 0; c < HC_N; c++) {
            row_of[c] = -1;
        }
        /* which classes there are, then rows in class order */
        for (int32_t v = 0; v < t->n_node; v++) {
            for (int32_t p = t->port_off[v]; p < t->port_off[v + 1]; p++) {
                if (t->peer[p] >= 0) {
                    int c = heat_class(t, v, p, a, sizeof(a));
                    if (row_of[c] < 0) {
                        row_of[c] = 0;
                        snprintf(names[c], TN_SIM_HEAT_NAME, "%s", a);
                    }
                }
            }
        }
        for (int c = 0; c < HC_N; c++) {
            if (row_of[c] == 0) {
                row_of[c] = h->nlrow;
                snprintf(h->lrow_name[h->nlrow++], TN_SIM_HEAT_NAME, "%s", names[c]);
            }
        }
        for (int32_t v = 0; v < t->n_node; v++) {
            for (int32_t p = t->port_off[v]; p < t->port_off[v + 1]; p++) {
                h->port_row[p] = t->peer[p] < 0 ? -1 : row_of[heat_class(t, v, p, a, sizeof(a))];
            }
        }
    }
    for (int32_t p = 0; p < t->n_port; p++) {
        if (h->port_row[p] >= 0) {
            h->lrow_n[h->port_row[p]]++;
            h->lrow_cap[h->port_row[p]] += t->bw[p];
        }
    }
}

static void heat_switch_rows(tn_sim_heat_t *h, const tn_sim_topo_t *t)
{
    char a[24], b[24];
    if (t->n_sw <= TN_SIM_HEAT_ROWS) {
        h->qgroup = TN_SIM_HEAT_PER_SWITCH;
        snprintf(h->qdesc, sizeof(h->qdesc), "one row per switch");
        for (int32_t s = 0; s < t->n_sw; s++) {
            heat_node_name(t, t->n_ep + s, h->qrow_name[s], TN_SIM_HEAT_NAME);
            h->sw_row[s] = s;
        }
        h->nqrow = t->n_sw;
    } else {
        int32_t per = (t->n_sw + TN_SIM_HEAT_ROWS - 1) / TN_SIM_HEAT_ROWS;
        h->qgroup = TN_SIM_HEAT_PER_RANGE;
        snprintf(h->qdesc, sizeof(h->qdesc), "rows: %d consecutive switches each, the fullest of them", per);
        h->nqrow = (t->n_sw + per - 1) / per;
        for (int32_t r = 0; r < h->nqrow; r++) {
            int32_t hi = (r + 1) * per < t->n_sw ? (r + 1) * per : t->n_sw;
            heat_node_name(t, t->n_ep + r * per, a, sizeof(a));
            heat_node_name(t, t->n_ep + hi - 1, b, sizeof(b));
            snprintf(h->qrow_name[r], TN_SIM_HEAT_NAME, "%.18s-%.18s", a, b);
        }
        for (int32_t s = 0; s < t->n_sw; s++) {
            h->sw_row[s] = s / per;
        }
    }
    for (int32_t s = 0; s < t->n_sw; s++) {
        h->qrow_n[h->sw_row[s]]++;
    }
}

tn_sim_status_t tn_sim_heat_init(tn_sim_heat_t *h, const tn_sim_topo_t *t, int on, int32_t nbins,
                                 double bin_w, int queues, double t_max)
{
    memset(h, 0, sizeof(*h));
    if (!on) {
        return TN_SIM_OK;
    }
    nbins = nbins < 2 ? 2 : nbins > TN_SIM_HEAT_BINS ? TN_SIM_HEAT_BINS : nbins;
    nbins += nbins % 2;  /* pairs merge */
    h->on = 1;
    h->queues = queues && t->n_sw > 0;
    h->nbins_max = nbins;
    h->nbins = 1;
    h->bin_w = bin_w > 0 ? bin_w : 1000;
    h->t_max = t_max;
    h->cur_lo = INFINITY;  /* no current bin yet */
    h->cur_hi = -INFINITY;
    h->port_row = malloc(sizeof(int32_t) * (size_t)t->n_port);
    h->lbytes = calloc((size_t)TN_SIM_HEAT_ROWS * (size_t)nbins, sizeof(double));
    if (h->port_row == NULL || h->lbytes == NULL) {
        goto err_nomem;
    }
    heat_link_rows(h, t);
    if (h->queues) {
        h->sw_row = malloc(sizeof(int32_t) * (size_t)t->n_sw);
        h->sw_q = calloc((size_t)t->n_sw, sizeof(double));
        h->sw_t = calloc((size_t)t->n_sw, sizeof(double));
        h->qmax = calloc((size_t)TN_SIM_HEAT_ROWS * (size_t)nbins, sizeof(double));
        if (h->sw_row == NULL || h->sw_q == NULL || h->sw_t == NULL || h->qmax == NULL) {
            goto err_nomem;
        }
        h->n_sw = t->n_sw;
        heat_switch_rows(h, t);
    }
    return TN_SIM_OK;
err_nomem:
    tn_sim_heat_fini(h);
    return TN_SIM_ERR_NOMEM;
}

void tn_sim_heat_fini(tn_sim_heat_t *h)
{
    free(h->port_row);
    free(h->lbytes);
    free(h->sw_row);
    free(h->sw_q);
    free(h->sw_t);
    free(h->qmax);
    memset(h, 0, sizeof(*h));
}

/* Twice as wide bins, half as many: bytes add, maxima take the larger. */
static void heat_merge(tn_sim_heat_t *h)
{
    int32_t nb = h->nbins_max, half = nb / 2;
    for (int32_t r = 0; r < h->nlrow; r++) {
        double *b = h->lbytes + (size_t)r * (size_t)nb;
        for (int32_t i = 0; i < half; i++) {
            b[i] = b[2 * i] + b[2 * i + 1];
        }
        memset(b + half, 0, sizeof(double) * (size_t)half);
    }
    for (int32_t r = 0; r < h->nqrow; r++) {
        double *b = h->qmax + (size_t)r * (size_t)nb;
        for (int32_t i = 0; i < half; i++) {
            b[i] = b[2 * i] > b[2 * i + 1] ? b[2 * i] : b[2 * i + 1];
        }
        memset(b + half, 0, sizeof(double) * (size_t)half);
    }
    h->bin_w *= 2;
    h->nbins = (h->nbins + 1) / 2;
    h->cur_lo = INFINITY;
    h->cur_hi = -INFINITY;
}

/* The bins reach t. */
static void heat_reach(tn_sim_heat_t *h, double t)
{
    while (t > h->bin_w * h->nbins_max) {
        heat_merge(h);
    }
}

/* The bin holding time t (t itself: its start belongs to it). */
static int32_t heat_bin(const tn_sim_heat_t *h, double t)
{
    int32_t b = (int32_t)(t / h->bin_w);
    return b < 0 ? 0 : b >= h->nbins_max ? h->nbins_max - 1 : b;
}

/* The last bin that (t0, t1) overlaps for a positive time. */
static int32_t heat_bin_end(const tn_sim_heat_t *h, double t1)
{
    int32_t b = (int32_t)ceil(t1 / h->bin_w) - 1;
    return b < 0 ? 0 : b >= h->nbins_max ? h->nbins_max - 1 : b;
}

static void heat_used(tn_sim_heat_t *h, int32_t b)
{
    if (b + 1 > h->nbins) {
        h->nbins = b + 1;
    }
}

/* amount spread evenly over [t0, t1] into row (reached already). */
static void heat_spread(tn_sim_heat_t *h, double *row, double t0, double t1, double amount)
{
    int32_t b0 = heat_bin(h, t0);
    if (t1 <= (b0 + 1) * h->bin_w) {  /* the usual case: one bin */
        row[b0] += amount;
        heat_used(h, b0);
        return;
    }
    int32_t b1 = heat_bin_end(h, t1);
    if (b1 <= b0 || !(t1 > t0)) {
        row[b0] += amount;
        heat_used(h, b0);
        return;
    }
    double per_ns = amount / (t1 - t0);
    for (int32_t b = b0; b <= b1; b++) {
        double lo = b * h->bin_w, hi = lo + h->bin_w;
        double x0 = t0 > lo ? t0 : lo, x1 = t1 < hi ? t1 : hi;
        if (x1 > x0) {
            row[b] += per_ns * (x1 - x0);
        }
    }
    heat_used(h, b1);
}

void tn_sim_heat_flush(tn_sim_heat_t *h, int32_t r, double now)
{
    if (!(now > h->lt[r])) {
        return;
    }
    if (h->lrate[r] > 0) {
        heat_reach(h, now);
        heat_spread(h, h->lbytes + (size_t)r * (size_t)h->nbins_max, h->lt[r], now,
                    h->lrate[r] * (now - h->lt[r]));
        /* now's bin is the current one (time only grows at flow level) */
        h->cur_b = heat_bin_end(h, now);
        h->cur_lo = h->cur_b * h->bin_w;
        h->cur_hi = h->cur_lo + h->bin_w;
    }
    h->lt[r] = now;
}

void tn_sim_heat_carry(tn_sim_heat_t *h, int32_t port, double t0, double t1, double bytes)
{
    int32_t r = h->port_row[port];
    if (r < 0 || !(t0 < h->t_max)) {
        return;
    }
    if (t1 > h->t_max) {
        bytes *= (h->t_max - t0) / (t1 - t0);  /* the part serialized before the end */
        t1 = h->t_max;
    }
    heat_reach(h, t1);
    heat_spread(h, h->lbytes + (size_t)r * (size_t)h->nbins_max, t0, t1, bytes);
}

/* Switch sw held its level from sw_t to now: every bin of that time
 * gets it (a level that lasts no time, a packet passing a free output,
 * counts nowhere). */
static void heat_hold(tn_sim_heat_t *h, int32_t sw, double now)
{
    double q = h->sw_q[sw];
    if (!(q > 0) || !(now > h->sw_t[sw])) {
        return;
    }
    double *row = h->qmax + (size_t)h->sw_row[sw] * (size_t)h->nbins_max;
    int32_t b0 = heat_bin(h, h->sw_t[sw]);
    if (now <= (b0 + 1) * h->bin_w) {  /* the usual case: one bin */
        row[b0] = q > row[b0] ? q : row[b0];
        heat_used(h, b0);
        return;
    }
    int32_t b1 = heat_bin_end(h, now);
    for (int32_t b = b0; b <= b1; b++) {
        row[b] = q > row[b] ? q : row[b];
    }
    heat_used(h, b1);
}

void tn_sim_heat_queue(tn_sim_heat_t *h, int32_t sw, double now, double dbytes)
{
    heat_reach(h, now);
    heat_hold(h, sw, now);
    double q = h->sw_q[sw] + dbytes;
    h->sw_q[sw] = q > 0.5 ? q : 0;  /* whole bytes: no rounding left over */
    h->sw_t[sw] = now;
}

void tn_sim_heat_finish(tn_sim_heat_t *h, double t)
{
    if (!h->on) {
        return;
    }
    heat_reach(h, t);
    for (int32_t r = 0; r < h->nlrow; r++) {
        tn_sim_heat_flush(h, r, t);
    }
    for (int32_t s = 0; h->queues && s < h->n_sw; s++) {
        heat_hold(h, s, t);
        h->sw_t[s] = t;
    }
    if (t > 0) {
        heat_used(h, heat_bin_end(h, t));
    }
    h->t_end = t;
}

double tn_sim_heat_bin_width(const tn_sim_heat_t *h, int32_t b)
{
    double lo = b * h->bin_w, w = h->t_end - lo;
    return w > 0 && w < h->bin_w ? w : h->bin_w;
}

double tn_sim_heat_util(const tn_sim_heat_t *h, int32_t r, int32_t b)
{
    double cap = h->lrow_cap[r] * tn_sim_heat_bin_width(h, b);
    return cap > 0 ? h->lbytes[(size_t)r * (size_t)h->nbins_max + b] / cap : 0;
}
