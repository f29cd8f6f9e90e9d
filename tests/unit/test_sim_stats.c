/* tern-sim's sorted copies of samples (tn_sim_sorted, sim_stats.c): a
 * radix sort of the values' bits, qsort where a value is NaN or -0.
 * Checked against qsort on random values of every sign and size,
 * infinities, zeros, repeats and runs of equal high bits, and on inputs
 * with -0 and NaN (where qsort's own order is the answer). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "sim_stats.h"

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* tn_sim_sorted(v) holds the same bits as qsort's copy. */
static void check_sorted(const double *v, size_t n)
{
    double *want = malloc(n * sizeof(double));
    memcpy(want, v, n * sizeof(double));
    qsort(want, n, sizeof(double), cmp);
    double *got = tn_sim_sorted(v, n);
    CHECK(got != NULL && memcmp(got, want, n * sizeof(double)) == 0);
    free(got);
    free(want);
}

int main(void)
{
    enum { N = 20000 };
    static double v[N];
    CHECK(tn_sim_sorted(v, 0) == NULL);
    for (int round = 0; round < 40; round++) {
        size_t n = 1 + next() % N;
        for (size_t i = 0; i < n; i++) {
            uint64_t r = next();
            switch (round % 5) {
            case 0: /* completion times: positive, a wide range */
                v[i] = (double)(r % 1000000) * 1.37 + 50;
                break;
            case 1: /* any bits but NaN */
                memcpy(&v[i], &r, sizeof(r));
                if (isnan(v[i])) {
                    v[i] = (double)(int64_t)r;
                }
                break;
            case 2: /* few distinct values, zeros and infinities among them */
                v[i] = (double[]){0.0, 1.0, -1.0, 2.5, INFINITY, -INFINITY, 1e-300, 3.0}[r % 8];
                break;
            case 3: /* slowdowns: near 1, many equal high bytes */
                v[i] = 1 + (double)(r % 4096) / 8192;
                break;
            default: /* one value */
                v[i] = 42;
                break;
            }
        }
        check_sorted(v, n);
    }
    /* -0 and NaN go to qsort: the same answer as qsort by definition */
    for (size_t i = 0; i < 100; i++) {
        v[i] = (double)(next() % 7) - 3;
    }
    v[10] = -0.0;
    check_sorted(v, 100);
    v[10] = NAN;
    double *got = tn_sim_sorted(v, 100);
    CHECK(got != NULL);
    free(got);
    return tn_check_report("test_sim_stats");
}
