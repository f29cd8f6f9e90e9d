/* Slurm's hostlist expressions and per-node counts; see run_slurm.h. */
#include "run_slurm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Most bracket groups in one entry (Slurm's own limit is its dimensions). */
#define SLURM_GROUPS_MAX 8
/* Most digits of a number in a range: values stay below 10^9. */
#define SLURM_DIGITS_MAX 9
/* How much of an expression an error message quotes. */
#define SLURM_QUOTE      64

/* One bracket group while it is expanded: its text [start, end) between
 * the brackets, the range being walked (at cur) and its current value. */
typedef struct {
    const char   *start, *end;
    const char   *cur;          /* the current range's text */
    const char   *next;         /* the text after it */
    unsigned long val, hi;
    int           width;
} slurm_group_t;

/* An entry of the expression cut into literals and groups:
 * lit[0] group[0] lit[1] ... group[ngroups-1] lit[ngroups]. */
typedef struct {
    const char   *lit[SLURM_GROUPS_MAX + 1];
    size_t        litlen[SLURM_GROUPS_MAX + 1];
    slurm_group_t group[SLURM_GROUPS_MAX];
    int           ngroups;
} slurm_entry_t;

static void slurm_err(char *err, size_t errlen, const char *expr,
                      const char *why)
{
    size_t len = strlen(expr);

    snprintf(err, errlen, "bad hostlist '%.*s%s': %s",
             (int)(len > SLURM_QUOTE ? SLURM_QUOTE : len), expr,
             len > SLURM_QUOTE ? "..." : "", why);
}

/* A decimal number of 1..SLURM_DIGITS_MAX digits at [*p, end); advances
 * *p past it.  *ndigits_p gets its digits.  Returns 0 or -1. */
static int slurm_number(const char **p, const char *end, unsigned long *val_p,
                        int *ndigits_p)
{
    unsigned long v = 0;
    int           n = 0;

    while (*p < end && **p >= '0' && **p <= '9') {
        if (++n > SLURM_DIGITS_MAX) {
            return -1;
        }
        v = v * 10 + (unsigned long)(**p - '0');
        (*p)++;
    }
    if (n == 0) {
        return -1;
    }
    *val_p     = v;
    *ndigits_p = n;
    return 0;
}

/* One range "lo" or "lo-hi" at *p inside a group ending at end, followed by
 * ',' or the end; *p moves past the ','.  Returns 0, or -1 with *why. */
static int slurm_range(const char **p, const char *end, unsigned long *lo_p,
                       unsigned long *hi_p, int *width_p, const char **why)
{
    unsigned long lo, hi;
    int           width, nd;

    if (slurm_number(p, end, &lo, &width) != 0) {
        *why = "want a number of 1 to 9 digits in brackets";
        return -1;
    }
    hi = lo;
    if (*p < end && **p == '-') {
        (*p)++;
        if (slurm_number(p, end, &hi, &nd) != 0) {
            *why = "want a number of 1 to 9 digits after '-'";
            return -1;
        }
        if (hi < lo) {
            *why = "a range runs backwards";
            return -1;
        }
    }
    if (*p < end) {
        if (**p != ',' || *p + 1 == end) {
            *why = "want 'N' or 'N-M' ranges separated by ','";
            return -1;
        }
        (*p)++;
    }
    *lo_p    = lo;
    *hi_p    = hi;
    *width_p = width;
    return 0;
}

/* Cut the entry [s, e) into literals and groups and count its names
 * (at most max).  Returns the count, or -1 with *why. */
static long slurm_entry(const char *s, const char *e, slurm_entry_t *en,
                        long max, const char **why)
{
    const char *p     = s;
    long        count = 1;

    en->ngroups = 0;
    while (1) {
        const char *open = p;
        const char *close;
        long        size = 0;

        while (open < e && *open != '[' && *open != ']') {
            open++;
        }
        en->lit[en->ngroups]    = p;
        en->litlen[en->ngroups] = (size_t)(open - p);
        if (open == e) {
            break;
        }
        if (*open == ']') {
            *why = "']' without '['";
            return -1;
        }
        if (en->ngroups == SLURM_GROUPS_MAX) {
            *why = "more than 8 bracket groups in one name";
            return -1;
        }
        close = open + 1;
        while (close < e && *close != ']' && *close != '[') {
            close++;
        }
        if (close == e || *close == '[') {
            *why = "'[' without ']'";
            return -1;
        }
        slurm_group_t *g = &en->group[en->ngroups++];

        g->start = open + 1;
        g->end   = close;
        for (const char *q = g->start; q < g->end || q == g->start;) {
            unsigned long lo, hi;
            int           width;

            if (slurm_range(&q, g->end, &lo, &hi, &width, why) != 0) {
                return -1;
            }
            size += (long)(hi - lo + 1);
            if (size > max) {
                *why = "more nodes than tern-run takes (65536)";
                return -1;
            }
        }
        if (count > max / size) {
            *why = "more nodes than tern-run takes (65536)";
            return -1;
        }
        count *= size;
        p = close + 1;
    }
    if (count > max) {
        *why = "more nodes than tern-run takes (65536)";
        return -1;
    }
    return count;
}

/* Put group g on its first value (its ranges were checked). */
static void slurm_group_first(slurm_group_t *g)
{
    unsigned long lo;
    const char   *why;

    g->cur  = g->start;
    g->next = g->start;
    slurm_range(&g->next, g->end, &lo, &g->hi, &g->width, &why);
    g->val = lo;
}

/* Step group g on; returns 1 when it wrapped round to its first value. */
static int slurm_group_step(slurm_group_t *g)
{
    unsigned long lo;
    const char   *why;

    if (g->val < g->hi) {
        g->val++;
        return 0;
    }
    if (g->next >= g->end) {
        slurm_group_first(g);
        return 1;
    }
    g->cur = g->next;
    slurm_range(&g->next, g->end, &lo, &g->hi, &g->width, &why);
    g->val = lo;
    return 0;
}

/* Append the count names of a checked entry to names.  Returns 0, or -1
 * with *why when a name is too long. */
static int slurm_expand(slurm_entry_t *en, long count, tn_run_buf_t *names,
                        const char **why)
{
    for (int i = 0; i < en->ngroups; i++) {
        slurm_group_first(&en->group[i]);
    }
    for (long k = 0; k < count; k++) {
        size_t start = names->len;

        for (int i = 0; i <= en->ngroups; i++) {
            tn_run_buf_append(names, en->lit[i], en->litlen[i]);
            if (i < en->ngroups) {
                tn_run_buf_printf(names, "%0*lu", en->group[i].width,
                                  en->group[i].val);
            }
        }
        if (names->len - start > TN_RUN_HOST_NAME_MAX) {
            *why = "a name longer than 255 bytes";
            return -1;
        }
        if (names->len == start) {
            *why = "an empty name";
            return -1;
        }
        tn_run_buf_append(names, "", 1);
        /* the last group turns fastest */
        for (int i = en->ngroups - 1; i >= 0; i--) {
            if (!slurm_group_step(&en->group[i])) {
                break;
            }
        }
    }
    return 0;
}

int tn_run_slurm_nodelist(const char *expr, tn_run_buf_t *names, int *n_p,
                          char *err, size_t errlen)
{
    const char   *p     = expr;
    long          total = 0;
    const char   *why   = NULL;
    slurm_entry_t en;

    /* Count everything first: nothing is expanded unless all of it fits. */
    for (int pass = 0; pass < 2; pass++) {
        p = expr;
        while (*p != '\0') {
            const char *e     = p;
            int         depth = 0;
            long        count;

            /* an entry ends at a ',' outside brackets */
            while (*e != '\0' && (*e != ',' || depth > 0)) {
                depth += *e == '[' ? 1 : *e == ']' ? -1 : 0;
                e++;
            }
            if (e > p) {
                /* pass 1: total is already known to fit */
                count = slurm_entry(p, e, &en, TN_RUN_HOSTS_MAX -
                                    (pass == 0 ? total : 0), &why);
                if (count < 0) {
                    goto err_bad;
                }
                if (pass == 1 && slurm_expand(&en, count, names, &why) != 0) {
                    goto err_bad;
                }
                total += pass == 0 ? count : 0;
            }
            p = *e == ',' ? e + 1 : e;
        }
        if (total == 0) {
            why = "no nodes";
            goto err_bad;
        }
    }
    *n_p = (int)total;
    return 0;

err_bad:
    slurm_err(err, errlen, expr, why);
    return -1;
}

int tn_run_slurm_counts(const char *expr, int **counts_p, int *n_p, char *err,
                        size_t errlen)
{
    int        *counts = NULL;
    long        total  = 0;
    const char *why    = NULL;
    size_t      len    = strlen(expr);

    for (int pass = 0; pass < 2; pass++) {
        const char *p = expr;
        long        k = 0;

        if (pass == 1) {
            counts = tn_run_xmalloc((size_t)total * sizeof(*counts));
        }
        while (1) {
            unsigned long n, rep = 1;
            int           nd;

            if (slurm_number(&p, expr + len, &n, &nd) != 0 || n < 1 ||
                n > TN_RUN_HOST_SLOTS_MAX) {
                why = "want counts from 1 to 65536";
                goto err_bad;
            }
            if (strncmp(p, "(x", 2) == 0) {
                p += 2;
                if (slurm_number(&p, expr + len, &rep, &nd) != 0 || *p != ')' ||
                    rep < 1) {
                    why = "want 'N(xM)' with M a number of nodes";
                    goto err_bad;
                }
                p++;
            }
            if (pass == 0) {
                if (rep > (unsigned long)(TN_RUN_HOSTS_MAX - total)) {
                    why = "more nodes than tern-run takes (65536)";
                    goto err_bad;
                }
                total += (long)rep;
            } else {
                for (unsigned long r = 0; r < rep; r++) {
                    counts[k++] = (int)n;
                }
            }
            if (*p == '\0') {
                break;
            }
            if (*p != ',') {
                why = "want 'N' or 'N(xM)' separated by ','";
                goto err_bad;
            }
            p++;
        }
    }
    *counts_p = counts;
    *n_p      = (int)total;
    return 0;

err_bad:
    free(counts);
    snprintf(err, errlen, "bad count list '%.*s%s': %s",
             (int)(len > SLURM_QUOTE ? SLURM_QUOTE : len), expr,
             len > SLURM_QUOTE ? "..." : "", why);
    return -1;
}

int tn_run_slurm_hosts(tn_run_hostlist_t *hl, const char *nodelist,
                       const char *counts, char *err, size_t errlen)
{
    tn_run_buf_t names  = { 0 };
    int         *count  = NULL;
    int          nnodes = 0, ncounts = 0;
    size_t       off    = 0;
    int          rc     = -1;

    if (tn_run_slurm_nodelist(nodelist, &names, &nnodes, err, errlen) != 0 ||
        tn_run_slurm_counts(counts, &count, &ncounts, err, errlen) != 0) {
        goto out;
    }
    if (ncounts != nnodes) {
        snprintf(err, errlen, "%d node%s in '%.*s%s' but %d count%s in "
                 "'%.*s%s'", nnodes, nnodes == 1 ? "" : "s",
                 SLURM_QUOTE, nodelist, strlen(nodelist) > SLURM_QUOTE ?
                 "..." : "", ncounts, ncounts == 1 ? "" : "s", SLURM_QUOTE,
                 counts, strlen(counts) > SLURM_QUOTE ? "..." : "");
        goto out;
    }
    for (int i = 0; i < nnodes; i++) {
        size_t len = strlen(names.data + off);

        if (tn_run_hosts_add(hl, names.data + off, len, count[i], err,
                             errlen) != 0) {
            goto out;
        }
        off += len + 1;
    }
    rc = 0;
out:
    free(count);
    tn_run_buf_free(&names);
    return rc;
}
