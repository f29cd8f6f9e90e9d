/* Type signatures: the sequence of predefined types of one element, run-
 * length encoded and repeated (runs[0..nruns) run_rep times), so that a
 * vector of a million doubles is one run and a vector of a million
 * {int, double} structs is two runs repeated a million times.
 *
 * They answer three questions: is the type homogeneous (reductions with
 * predefined ops), how many basic elements are in a partial message
 * (MPI_Get_elements), and what is converted how (external32). */
#include <stdlib.h>
#include <string.h>
#include "dt/dt_impl.h"

typedef struct {
    tn_dt_run_t *runs;
    size_t       n, cap;
} runs_t;

static tn_status_t runs_push(runs_t *r, const tn_dt_t *type, size_t n)
{
    if (n == 0) {
        return TN_OK;
    }
    if (r->n > 0 && r->runs[r->n - 1].type == type) {
        if (__builtin_add_overflow(r->runs[r->n - 1].n, n, &r->runs[r->n - 1].n)) {
            return TN_ERR_INVAL;
        }
        return TN_OK;
    }
    if (r->n == r->cap) {
        size_t cap = r->cap < 4 ? 4 : 2 * r->cap;
        tn_dt_run_t *p;

        if (cap > TN_DT_MAX_SEGS) {
            return TN_ERR_NOMEM;
        }
        p = realloc(r->runs, cap * sizeof(*p));
        if (p == NULL) {
            return TN_ERR_NOMEM;
        }
        r->runs = p;
        r->cap = cap;
    }
    r->runs[r->n].type = type;
    r->runs[r->n].n = n;
    r->n++;
    return TN_OK;
}

/* Install runs (taken over) as dt's signature repeated rep times. */
static void sig_set(tn_dt_t *dt, runs_t *r, size_t rep, uint64_t nbasic)
{
    if (r->n <= 1) {
        if (r->n == 1) {
            dt->run_inline[0] = r->runs[0];
        }
        free(r->runs);
        dt->runs = dt->run_inline;
    } else {
        dt->runs = r->runs;
    }
    dt->nruns = r->n;
    dt->run_rep = r->n == 0 ? 1 : rep;
    dt->nbasic = nbasic;
    dt->basic = r->n == 1 ? dt->runs[0].type : NULL;
    r->runs = NULL;
    r->n = r->cap = 0;
}

void tn_dt_sig_free(tn_dt_t *dt)
{
    if (dt->runs != dt->run_inline) {
        free((void *)dt->runs);
    }
    dt->runs = NULL;
    dt->nruns = 0;
}

static int same_runs(const tn_dt_t *a, const tn_dt_t *b)
{
    return a->nruns == b->nruns &&
           (a->runs == b->runs ||
            memcmp(a->runs, b->runs, a->nruns * sizeof(a->runs[0])) == 0);
}

tn_status_t tn_dt_sig_repeat(tn_dt_t *dt, const tn_dt_t *old, size_t mult)
{
    tn_dt_block_t b = { 0, mult, old };

    return tn_dt_sig_blocks(dt, 1, &b);
}

tn_status_t tn_dt_sig_blocks(tn_dt_t *dt, size_t nblocks, const tn_dt_block_t *blocks)
{
    runs_t r = { 0 };
    const tn_dt_t *first = NULL;
    int same = 1;
    size_t reps = 0;
    uint64_t nbasic = 0;
    tn_status_t st = TN_OK;

    for (size_t i = 0; i < nblocks; i++) {
        const tn_dt_t *t = blocks[i].type;
        uint64_t nb;
        size_t rp;

        if (blocks[i].count == 0 || t->nruns == 0) {
            continue;
        }
        if (first == NULL) {
            first = t;
        } else if (!same_runs(first, t)) {
            same = 0;
        }
        if (__builtin_mul_overflow((uint64_t)blocks[i].count, t->nbasic, &nb) ||
            __builtin_add_overflow(nbasic, nb, &nbasic) ||
            tn_dt_mul_ovf(blocks[i].count, t->run_rep, &rp) ||
            __builtin_add_overflow(reps, rp, &reps)) {
            return TN_ERR_INVAL;
        }
    }
    if (first == NULL) {
        sig_set(dt, &r, 1, 0);
        return TN_OK;
    }
    if (same && first->nruns == 1) {
        size_t n;

        if (tn_dt_mul_ovf(reps, first->runs[0].n, &n)) {
            return TN_ERR_INVAL;
        }
        st = runs_push(&r, first->runs[0].type, n);
        reps = 1;
    } else if (same) {
        for (size_t k = 0; k < first->nruns && st == TN_OK; k++) {
            st = runs_push(&r, first->runs[k].type, first->runs[k].n);
        }
    } else {
        /* different signatures one after the other: write them out */
        for (size_t i = 0; i < nblocks && st == TN_OK; i++) {
            const tn_dt_t *t = blocks[i].type;
            size_t rep;

            if (blocks[i].count == 0 || t->nruns == 0) {
                continue;
            }
            rep = blocks[i].count * t->run_rep;       /* no overflow: checked above */
            if (t->nruns == 1) {
                size_t n;
                if (tn_dt_mul_ovf(rep, t->runs[0].n, &n)) {
                    st = TN_ERR_INVAL;
                    break;
                }
                st = runs_push(&r, t->runs[0].type, n);
                continue;
            }
            for (size_t j = 0; j < rep && st == TN_OK; j++) {
                for (size_t k = 0; k < t->nruns && st == TN_OK; k++) {
                    st = runs_push(&r, t->runs[k].type, t->runs[k].n);
                }
            }
        }
        reps = 1;
    }
    if (st != TN_OK) {
        free(r.runs);
        return st;
    }
    sig_set(dt, &r, reps, nbasic);
    return TN_OK;
}

/* Bytes of the value of a pair type (what arrives before the index). */
static size_t pair_value_size(const tn_dt_t *t)
{
    switch (t->kind) {
    case TN_DK_2FLOAT:
    case TN_DK_2DOUBLE:
    case TN_DK_2INT32F:
        return t->size / 2;
    default:
        return t->size - sizeof(int);
    }
}

int64_t tn_dt_count_elements(const tn_dt_t *dt, uint64_t bytes)
{
    uint64_t n, rem, list_size, list_basic;

    if (dt->size == 0 || dt->nruns == 0) {
        return 0;
    }
    n = bytes / dt->size * dt->nbasic;
    rem = bytes % dt->size;
    if (rem == 0) {
        return (int64_t)n;
    }
    list_size = dt->size / dt->run_rep;
    list_basic = dt->nbasic / dt->run_rep;
    n += rem / list_size * list_basic;
    rem %= list_size;
    for (size_t k = 0; k < dt->nruns && rem > 0; k++) {
        const tn_dt_t *t = dt->runs[k].type;
        uint64_t whole = rem / t->size;

        if (whole >= dt->runs[k].n) {
            n += dt->runs[k].n * t->nbasic;
            rem -= dt->runs[k].n * t->size;
            continue;
        }
        n += whole * t->nbasic;
        rem -= whole * t->size;
        if (rem == 0) {
            break;
        }
        if (t->nbasic == 2 && rem == pair_value_size(t)) {
            return (int64_t)(n + 1);
        }
        return -1;
    }
    return (int64_t)n;
}
