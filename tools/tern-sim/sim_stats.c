/* Per-job measurements (sim_stats.h). */
#include "sim_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

tn_sim_status_t tn_sim_stats_init(tn_sim_stats_t *s, int njobs, int32_t nbins, double bin_w,
                                  double w0, double w1)
{
    memset(s, 0, sizeof(*s));
    if (nbins < 2) {
        nbins = 2;
    }
    nbins += nbins % 2;  /* pairs merge */
    s->job = calloc((size_t)njobs, sizeof(tn_sim_jstats_t));
    if (s->job == NULL) {
        return TN_SIM_ERR_NOMEM;
    }
    s->njobs = njobs;
    for (int j = 0; j < njobs; j++) {
        s->job[j].bins = calloc((size_t)nbins, sizeof(double));
        s->job[j].first_post = INFINITY;
        if (s->job[j].bins == NULL) {
            tn_sim_stats_fini(s);
            return TN_SIM_ERR_NOMEM;
        }
    }
    s->nbins_max = nbins;
    s->nbins = 1;
    s->bin_w = bin_w > 0 ? bin_w : 1000;
    s->w0 = w0;
    s->w1 = w1;
    return TN_SIM_OK;
}

void tn_sim_stats_fini(tn_sim_stats_t *s)
{
    for (int j = 0; j < s->njobs; j++) {
        free(s->job[j].fct);
        free(s->job[j].slow);
        free(s->job[j].bins);
    }
    free(s->job);
    memset(s, 0, sizeof(*s));
}

/* Twice as wide bins, half as many. */
static void stats_merge(tn_sim_stats_t *s)
{
    for (int j = 0; j < s->njobs; j++) {
        double *b = s->job[j].bins;
        for (int32_t i = 0; i < s->nbins_max / 2; i++) {
            b[i] = b[2 * i] + b[2 * i + 1];
        }
        memset(b + s->nbins_max / 2, 0, sizeof(double) * (size_t)(s->nbins_max / 2));
    }
    s->bin_w *= 2;
    s->nbins = (s->nbins + 1) / 2;
}

void tn_sim_stats_advance(tn_sim_stats_t *s, double t)
{
    double t0 = s->t_prev;
    if (!(t > t0)) {
        return;
    }
    while (t > s->bin_w * s->nbins_max) {
        stats_merge(s);
    }
    double lo = t0 > s->w0 ? t0 : s->w0, hi = t < s->w1 ? t : s->w1;
    int32_t b0 = (int32_t)(t0 / s->bin_w), b1 = (int32_t)(t / s->bin_w);
    if (b1 >= s->nbins_max) {
        b1 = s->nbins_max - 1;
    }
    for (int j = 0; j < s->njobs; j++) {
        tn_sim_jstats_t *js = &s->job[j];
        if (js->rate == 0) {
            continue;
        }
        if (hi > lo) {
            js->bytes_win += js->rate * (hi - lo);
        }
        for (int32_t b = b0; b <= b1; b++) {
            double bl = b * s->bin_w, bh = bl + s->bin_w;
            double x0 = t0 > bl ? t0 : bl, x1 = t < bh ? t : bh;
            if (x1 > x0) {
                js->bins[b] += js->rate * (x1 - x0);
            }
        }
    }
    if (b1 + 1 > s->nbins) {
        s->nbins = b1 + 1;
    }
    s->t_prev = t;
}

void tn_sim_stats_add(tn_sim_stats_t *s, int job, double t, double bytes)
{
    tn_sim_jstats_t *js = &s->job[job];
    if (t >= s->w0 && t < s->w1) {
        js->bytes_win += bytes;
    }
    while (t >= s->bin_w * s->nbins_max) {
        stats_merge(s);
    }
    int32_t b = (int32_t)(t / s->bin_w);
    js->bins[b] += bytes;
    if (b + 1 > s->nbins) {
        s->nbins = b + 1;
    }
}

tn_sim_status_t tn_sim_stats_sample(tn_sim_stats_t *s, int job, double t_post, double t_done,
                                    double ideal)
{
    if (t_post < s->w0 || t_done > s->w1) {
        return TN_SIM_OK;
    }
    tn_sim_jstats_t *js = &s->job[job];
    if (js->n == js->cap) {
        size_t cap = js->cap ? js->cap * 2 : 1024;
        double *a = realloc(js->fct, cap * sizeof(double));
        if (a == NULL) {
            return TN_SIM_ERR_NOMEM;
        }
        js->fct = a;
        a = realloc(js->slow, cap * sizeof(double));
        if (a == NULL) {
            return TN_SIM_ERR_NOMEM;
        }
        js->slow = a;
        js->cap = cap;
    }
    double fct = t_done - t_post;
    js->fct[js->n] = fct;
    js->slow[js->n] = ideal > 0 ? fct / ideal : 1;
    js->n++;
    return TN_SIM_OK;
}

double tn_sim_quantile(const double *sorted, size_t n, double q)
{
    if (n == 0) {
        return NAN;
    }
    double r = ceil(q * (double)n);
    size_t i = r < 1 ? 0 : (size_t)r - 1;
    return sorted[i < n ? i : n - 1];
}

static int stats_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* An order-preserving map of a double's bits onto an unsigned integer
 * (negative values flipped whole, the others' sign bit set): for values
 * that are not NaN and not -0 it is one to one, and x < y iff the keys
 * are. */
static inline uint64_t stats_key(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof(u));
    return (u >> 63) != 0 ? ~u : u | (UINT64_C(1) << 63);
}

static inline double stats_unkey(uint64_t k)
{
    uint64_t u = (k >> 63) != 0 ? k & ~(UINT64_C(1) << 63) : ~k;
    double x;
    memcpy(&x, &u, sizeof(x));
    return x;
}

/* Least-significant-digit radix sort of the keys of v into c, 8 bits a
 * pass (a pass where every key has the same digit is skipped).  Returns
 * 0, or -1: a value is NaN or -0 (left to qsort, which orders those its
 * own way) or no memory. */
static int stats_radix(const double *v, double *c, size_t n)
{
    uint64_t *a = malloc(n * sizeof(uint64_t)), *b = malloc(n * sizeof(uint64_t));
    size_t(*cnt)[256] = calloc(8, sizeof(*cnt));
    int rc = -1;
    if (a == NULL || b == NULL || cnt == NULL) {
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        if (isnan(v[i]) || (v[i] == 0 && signbit(v[i]))) {
            goto out;
        }
        a[i] = stats_key(v[i]);
        for (int d = 0; d < 8; d++) {
            cnt[d][(a[i] >> (8 * d)) & 0xff]++;
        }
    }
    for (int d = 0; d < 8; d++) {
        if (cnt[d][(a[0] >> (8 * d)) & 0xff] == n) {
            continue;
        }
        size_t pos = 0;
        for (int x = 0; x < 256; x++) {
            size_t k = cnt[d][x];
            cnt[d][x] = pos;
            pos += k;
        }
        for (size_t i = 0; i < n; i++) {
            b[cnt[d][(a[i] >> (8 * d)) & 0xff]++] = a[i];
        }
        uint64_t *t = a;
        a = b;
        b = t;
    }
    for (size_t i = 0; i < n; i++) {
        c[i] = stats_unkey(a[i]);
    }
    rc = 0;
out:
    free(cnt);
    free(b);
    free(a);
    return rc;
}

double *tn_sim_sorted(const double *v, size_t n)
{
    if (n == 0) {
        return NULL;
    }
    double *c = malloc(n * sizeof(double));
    if (c != NULL && stats_radix(v, c, n) != 0) {
        memcpy(c, v, n * sizeof(double));
        qsort(c, n, sizeof(double), stats_cmp);
    }
    return c;
}
