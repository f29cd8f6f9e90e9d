/* Unit test of the topology core (src/comm/topo.c) without a job:
 * tn_topo_dims_create against an exhaustive search (every nnodes <= 600 in
 * 1..5 free dimensions, with and without fixed entries) and on hard inputs
 * (large primes, many dimensions, highly composite numbers) within a time
 * bound; Cartesian rank/coords/shift arithmetic; tn_topo_dup / free.
 * Exit status 0 when every check holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "comm/topo.h"

static int failures;

#define CHECK(cond, ...)                                                           \
    do {                                                                           \
        if (!(cond)) {                                                             \
            if (++failures <= 40) {                                                \
                fprintf(stderr, "test_topo_unit:%d: check failed: %s: ", __LINE__, \
                        #cond);                                                    \
                fprintf(stderr, __VA_ARGS__);                                      \
                fputc('\n', stderr);                                               \
            }                                                                      \
        }                                                                          \
    } while (0)

/* Best (spread, largest) over non-increasing splits of m into k factors. */
static void brute(int m, int k, int prev, int first, int *best_spread, int *best_first)
{
    if (k == 1) {
        if (m <= prev) {
            int f = first ? first : m, sp = f - m;
            if (sp < *best_spread || (sp == *best_spread && f < *best_first)) {
                *best_spread = sp;
                *best_first = f;
            }
        }
        return;
    }
    for (int a = 1; a <= m && a <= prev; a++)
        if (m % a == 0)
            brute(m / a, k - 1, a, first ? first : a, best_spread, best_first);
}

static void check_dims_exhaustive(void)
{
    for (int m = 1; m <= 600; m++) {
        for (int k = 1; k <= 5; k++) {
            int dims[5] = { 0 }, sp = 1 << 30, f = 1 << 30, prod = 1;

            CHECK(tn_topo_dims_create(m, k, dims) == TN_OK, "m %d k %d", m, k);
            brute(m, k, m, 0, &sp, &f);
            for (int i = 0; i < k; i++) {
                prod *= dims[i];
                CHECK(i == 0 || dims[i] <= dims[i - 1], "m %d k %d: not non-increasing", m, k);
            }
            CHECK(prod == m, "m %d k %d: product %d", m, k, prod);
            CHECK(dims[0] - dims[k - 1] == sp && dims[0] == f,
                  "m %d k %d: spread %d largest %d, best %d %d", m, k, dims[0] - dims[k - 1],
                  dims[0], sp, f);
        }
    }
    /* fixed entries: the free ones split nnodes / fixed */
    for (int m = 1; m <= 200; m++) {
        for (int fix = 1; fix <= 6; fix++) {
            int dims[4] = { 0, fix, 0, 0 }, ref[3] = { 0, 0, 0 };
            tn_status_t st = tn_topo_dims_create(m, 4, dims);

            if (m % fix != 0) {
                CHECK(st == TN_ERR_INVAL && dims[0] == 0 && dims[1] == fix,
                      "m %d fixed %d: st %d", m, fix, (int)st);
                continue;
            }
            CHECK(st == TN_OK && tn_topo_dims_create(m / fix, 3, ref) == TN_OK &&
                  dims[1] == fix && dims[0] == ref[0] && dims[2] == ref[1] && dims[3] == ref[2],
                  "m %d fixed %d: %d %d %d %d", m, fix, dims[0], dims[1], dims[2], dims[3]);
        }
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void check_dims_hard(void)
{
    static const struct { int m, k; } hard[] = {
        { 2147483647, 2 }, { 2147483647, 8 }, { 2147483629, 3 },
        { 1 << 30, 30 }, { 1 << 30, 7 }, { 735134400, 2 }, { 735134400, 3 },
        { 735134400, 4 }, { 735134400, 6 }, { 735134400, 10 }, { 735134400, 16 },
        { 2 * 3 * 5 * 7 * 11 * 13 * 17 * 19, 5 }, { 2 * 3 * 5 * 7 * 11 * 13 * 17 * 19, 9 },
        { 1, 64 }, { 4096, 64 },
    };
    for (size_t i = 0; i < sizeof hard / sizeof hard[0]; i++) {
        int dims[64] = { 0 }, k = hard[i].k;
        long long prod = 1;
        double t0 = now();
        tn_status_t st = tn_topo_dims_create(hard[i].m, k, dims);
        double dt = now() - t0;

        for (int j = 0; j < k; j++)
            prod *= dims[j];
        CHECK(st == TN_OK && prod == hard[i].m, "m %d k %d: st %d product %lld", hard[i].m, k,
              (int)st, prod);
        CHECK(dt < 2.0, "m %d k %d took %.2f s", hard[i].m, k, dt);
    }
    /* known answers */
    int d[4] = { 0, 0, 0, 0 };
    tn_topo_dims_create(735134400, 2, d);   /* 2^6 3^3 5^2 7 11 13 17 */
    CHECK(d[0] == 27200 && d[1] == 27027, "735134400 in 2: %d x %d", d[0], d[1]);
    memset(d, 0, sizeof d);
    tn_topo_dims_create(2147483647, 3, d);
    CHECK(d[0] == 2147483647 && d[1] == 1 && d[2] == 1, "prime in 3: %d %d %d", d[0], d[1], d[2]);
    memset(d, 0, sizeof d);
    CHECK(tn_topo_dims_create(6, 0, d) == TN_ERR_INVAL, "6 in 0 dims");
    CHECK(tn_topo_dims_create(1, 0, d) == TN_OK, "1 in 0 dims");
}

/* A Cartesian topology built by hand (tn_topo_dup gives a real block). */
static tn_topo_t *mk_cart(int nd, const int *dims, const int *periods, int rank)
{
    tn_topo_t *t = calloc(1, sizeof(*t) + 3 * (size_t)nd * sizeof(int)), *c;

    t->kind = TN_TOPO_CART;
    t->nints = 3 * (size_t)nd;
    t->u.cart.ndims = nd;
    t->u.cart.dims = t->data;
    t->u.cart.periods = t->data + nd;
    t->u.cart.coords = t->data + 2 * nd;
    memcpy(t->u.cart.dims, dims, (size_t)nd * sizeof(int));
    memcpy(t->u.cart.periods, periods, (size_t)nd * sizeof(int));
    tn_topo_cart_coords(t, rank, nd, t->u.cart.coords);
    c = tn_topo_dup(t);
    memset(t, 0xa5, sizeof(*t) + 3 * (size_t)nd * sizeof(int));   /* the copy must not point here */
    free(t);
    return c;
}

static void check_cart(void)
{
    int dims[3] = { 3, 4, 5 }, periods[3] = { 1, 0, 1 };

    CHECK(tn_topo_grid_size(3, dims) == 60, "grid size");
    CHECK(tn_topo_grid_size(0, NULL) == 1, "grid size of 0 dims");
    int big[3] = { 65536, 65536, 2 };
    CHECK(tn_topo_grid_size(3, big) == -1, "grid size overflow");

    for (int r = 0; r < 60; r++) {
        tn_topo_t *t = mk_cart(3, dims, periods, r);
        int c[3], back = -1, bad = -1;

        CHECK(t->u.cart.coords[0] == r / 20 && t->u.cart.coords[1] == (r / 5) % 4 &&
              t->u.cart.coords[2] == r % 5, "coords of %d", r);
        memcpy(c, t->u.cart.coords, sizeof c);
        CHECK(tn_topo_cart_rank(t, c, &back, &bad) == TN_OK && back == r, "rank of %d", r);
        /* periodic dims wrap, the non-periodic one does not */
        c[0] += 3;
        c[2] -= 5;
        CHECK(tn_topo_cart_rank(t, c, &back, &bad) == TN_OK && back == r, "wrap of %d", r);
        c[1] = 4;
        CHECK(tn_topo_cart_rank(t, c, &back, &bad) == TN_ERR_INVAL && bad == 1, "off dim 1");
        /* shifts */
        int s, d;
        tn_topo_cart_shift(t, 0, 1, &s, &d);
        CHECK(s == (r - 20 + 60) % 60 && d == (r + 20) % 60, "shift dim 0 of %d: %d %d", r, s, d);
        tn_topo_cart_shift(t, 1, 1, &s, &d);
        CHECK(s == ((r / 5) % 4 == 0 ? TN_TOPO_PROC_NULL : r - 5) &&
              d == ((r / 5) % 4 == 3 ? TN_TOPO_PROC_NULL : r + 5), "shift dim 1 of %d", r);
        tn_topo_cart_shift(t, 2, -7, &s, &d);
        CHECK(s == r - r % 5 + (r % 5 + 7) % 5 && d == r - r % 5 + (r % 5 + 3) % 5,
              "shift dim 2 by -7 of %d: %d %d", r, s, d);
        /* neighbourhood order: per dimension, source then destination */
        int in, out, srcs[6], dsts[6];
        tn_topo_neighbors(t, r, &in, &out, NULL, NULL);
        CHECK(in == 6 && out == 6, "neighbour counts");
        tn_topo_neighbors(t, r, &in, &out, srcs, dsts);
        tn_topo_cart_shift(t, 1, 1, &s, &d);
        CHECK(srcs[2] == s && srcs[3] == d && dsts[2] == s && dsts[3] == d, "neighbours dim 1");
        tn_topo_free(t);
    }
    tn_topo_free(NULL);
    CHECK(tn_topo_dup(NULL) == NULL, "dup of NULL");
}

int main(void)
{
    check_dims_exhaustive();
    check_dims_hard();
    check_cart();
    if (failures) {
        fprintf(stderr, "test_topo_unit: %d failures\n", failures);
        return 1;
    }
    printf("test_topo_unit: ok\n");
    return 0;
}
