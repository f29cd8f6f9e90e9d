/* tern-coll-plan's --counts and --neighbors decode steps (plan_counts.h). */
#include "plan_counts.h"

#include <stdlib.h>

static int pl_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The next number from buf[*i..len): 1 with *x, 0 at the end, -1 with *why. */
static int pl_num(const char *buf, size_t len, size_t *i, int64_t *x, const char **why)
{
    while (*i < len && pl_blank(buf[*i])) {
        (*i)++;
    }
    if (*i == len) {
        return 0;
    }
    if (buf[*i] < '0' || buf[*i] > '9') {
        *why = "want decimal numbers separated by blanks";
        return -1;
    }
    int64_t v = 0;
    while (*i < len && buf[*i] >= '0' && buf[*i] <= '9') {
        v = v * 10 + (buf[*i] - '0');
        if (v > PL_COUNT_MAX) {
            *why = "a number above 2^40";
            return -1;
        }
        (*i)++;
    }
    if (*i < len && !pl_blank(buf[*i])) {
        *why = "want decimal numbers separated by blanks";
        return -1;
    }
    *x = v;
    return 1;
}

int pl_counts_parse(const char *buf, size_t len, size_t want, int64_t *out, const char **why)
{
    size_t i = 0, k = 0;
    int64_t x;
    int r;
    while ((r = pl_num(buf, len, &i, &x, why)) == 1) {
        if (k == want) {
            *why = "more numbers than blocks";
            return -1;
        }
        out[k++] = x;
    }
    if (r < 0) {
        return -1;
    }
    if (k != want) {
        *why = "fewer numbers than blocks";
        return -1;
    }
    return 0;
}

int pl_nbrs_parse(const char *buf, size_t len, int n, pl_nbrs_t *nb, const char **why)
{
    /* a number and its blank take two characters at least */
    size_t cap = len / 2 + 2, k = 0, i = 0;
    int64_t x;
    int r;
    nb->v = malloc(sizeof(int64_t) * cap);
    nb->first = malloc(sizeof(size_t) * ((size_t)n + 1));
    if (nb->v == NULL || nb->first == NULL) {
        *why = "out of memory";
        goto fail;
    }
    while ((r = pl_num(buf, len, &i, &x, why)) == 1) {
        nb->v[k++] = x;          /* k < cap: see above */
    }
    if (r < 0) {
        goto fail;
    }
    size_t p = 0;
    for (int me = 0; me < n; me++) {
        if (k - p < 2) {
            *why = "fewer ranks than --ranks";
            goto fail;
        }
        int64_t in = nb->v[p], out = nb->v[p + 1];
        if (in > PL_NBR_MAX || out > PL_NBR_MAX) {
            *why = "a degree above 2^20";
            goto fail;
        }
        if ((size_t)(2 * (in + out)) > k - p - 2) {
            *why = "a rank's lists are cut short";
            goto fail;
        }
        nb->first[me] = p;
        for (int64_t q = 0; q < in + out; q++) {
            if (nb->v[p + 2 + (size_t)q] >= n) {
                *why = "a neighbour that is not a rank";
                goto fail;
            }
            if (nb->v[p + 2 + (size_t)q] == me) {
                *why = "a rank among its own neighbours (a message to itself is a local copy: "
                       "leave it out)";
                goto fail;
            }
        }
        p += 2 + 2 * (size_t)(in + out);
    }
    if (p != k) {
        *why = "more numbers than the ranks' lists";
        goto fail;
    }
    nb->first[n] = p;
    return 0;
fail:
    free(nb->v);
    free(nb->first);
    nb->v = NULL;
    nb->first = NULL;
    return -1;
}
