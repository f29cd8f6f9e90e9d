/* Unit test of the group algebra (src/comm/group.c): construction, rank of
 * the caller, incl/excl, ranges, union/intersection/difference, compare,
 * translate, subset, and rank-list checks.  No job needed: links group.c
 * alone.  Exit status: 0 when every check holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "comm/comm.h"

#define UNDEF (-32766)
#define PROC_NULL (-3)

static int failures;

#define CHECK(cond, ...)                                                           \
    do {                                                                           \
        if (!(cond)) {                                                             \
            failures++;                                                            \
            fprintf(stderr, "test_group:%d: check failed: %s: ", __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                          \
            fputc('\n', stderr);                                                   \
        }                                                                          \
    } while (0)

/* A group of the n world ranks listed. */
static tn_group_t *mk(int n, const int *w)
{
    tn_group_t *g = NULL;
    tn_status_t st = tn_group_from_world_list(n, w, &g);

    if (st != TN_OK || g == NULL) {
        fprintf(stderr, "test_group: cannot build a group (%d)\n", (int)st);
        exit(2);
    }
    return g;
}

/* Does g hold exactly the n world ranks of w, in order? */
static int is(const tn_group_t *g, int n, const int *w)
{
    return g->magic == TN_GROUP_MAGIC && g->size == n &&
           (n == 0 || memcmp(g->world, w, (size_t)n * sizeof(int)) == 0);
}

static void dump(const char *what, const tn_group_t *g)
{
    int i;

    fprintf(stderr, "  %s = {", what);
    for (i = 0; i < g->size; i++) {
        fprintf(stderr, "%s%d", i ? ", " : "", g->world[i]);
    }
    fprintf(stderr, "}\n");
}

static void test_basics(void)
{
    int w[] = { 7, 3, 5, 1 };
    tn_group_t *g = mk(4, w);

    CHECK(is(g, 4, w), "group from list");
    CHECK(g->rank == 2, "my world rank 5 is rank 2, got %d", g->rank);
    CHECK(g->refcount == 1 && !g->predefined, "fresh group");
    CHECK(tn_group_rank_of_world(g, 1) == 3, "rank of world 1");
    CHECK(tn_group_rank_of_world(g, 4) == UNDEF, "world 4 is not a member");
    tn_group_retain(g);
    CHECK(g->refcount == 2, "retain");
    tn_group_release(g);
    CHECK(g->refcount == 1, "release");
    tn_group_release(g);

    {
        int v[] = { 0, 1 };
        tn_group_t *h = mk(2, v);

        CHECK(h->rank == UNDEF, "not a member: rank %d", h->rank);
        tn_group_release(h);
    }

    /* empty groups are the predefined one; retain/release leave it alone */
    g = mk(0, NULL);
    CHECK(g == &tn_group_empty, "an empty list gives MPI_GROUP_EMPTY");
    tn_group_retain(g);
    tn_group_release(g);
    tn_group_release(g);
    CHECK(tn_group_empty.magic == TN_GROUP_MAGIC && tn_group_empty.size == 0 &&
          tn_group_empty.predefined && tn_group_empty.rank == UNDEF,
          "MPI_GROUP_EMPTY intact");
    {
        int *wl = malloc(sizeof(int));
        tn_group_t *e = NULL;

        CHECK(tn_group_new(0, wl, &e) == TN_OK && e == &tn_group_empty,
              "tn_group_new(0) gives MPI_GROUP_EMPTY and frees the list");
    }
}

static void test_incl_excl(void)
{
    int w[] = { 10, 11, 12, 13, 14, 15 };
    tn_group_t *g = mk(6, w), *r = NULL;
    int bad = -1;

    {
        int ranks[] = { 4, 0, 2 };
        int want[] = { 14, 10, 12 };

        CHECK(tn_group_incl(g, 3, ranks, &r) == TN_OK && is(r, 3, want), "incl order");
        CHECK(r->rank == 0, "my world rank 14 is first: %d", r->rank);
        tn_group_release(r);
    }
    {
        int ranks[] = { 4, 0, 2 };
        int want[] = { 11, 13, 15 };

        CHECK(tn_group_excl(g, 3, ranks, &r) == TN_OK && is(r, 3, want), "excl keeps order");
        CHECK(r->rank == UNDEF, "14 excluded: %d", r->rank);
        tn_group_release(r);
    }
    CHECK(tn_group_incl(g, 0, NULL, &r) == TN_OK && r == &tn_group_empty, "incl none");
    CHECK(tn_group_excl(g, 0, NULL, &r) == TN_OK && is(r, 6, w), "excl none");
    tn_group_release(r);
    {
        int all[] = { 5, 4, 3, 2, 1, 0 };

        CHECK(tn_group_excl(g, 6, all, &r) == TN_OK && r == &tn_group_empty, "excl all");
    }
    CHECK(tn_group_excl(&tn_group_empty, 0, NULL, &r) == TN_OK && r == &tn_group_empty,
          "excl from empty");

    /* rank-list checks */
    {
        int ok[] = { 5, 0, 3 };
        int range[] = { 0, 6 };
        int neg[] = { -1 };
        int dup[] = { 1, 2, 1 };

        CHECK(tn_group_check_ranks(g, 3, ok, &bad) == TN_GROUP_RANKS_OK, "valid ranks");
        CHECK(tn_group_check_ranks(g, 2, range, &bad) == TN_GROUP_RANKS_RANGE && bad == 1,
              "rank 6 out of range (bad %d)", bad);
        CHECK(tn_group_check_ranks(g, 1, neg, &bad) == TN_GROUP_RANKS_RANGE && bad == 0,
              "negative rank");
        CHECK(tn_group_check_ranks(g, 3, dup, &bad) == TN_GROUP_RANKS_DUP && bad == 2,
              "duplicate rank (bad %d)", bad);
        CHECK(tn_group_check_ranks(&tn_group_empty, 1, ok, &bad) == TN_GROUP_RANKS_RANGE,
              "no rank is valid in the empty group");
        CHECK(tn_group_check_ranks(&tn_group_empty, 0, NULL, &bad) == TN_GROUP_RANKS_OK,
              "empty list in the empty group");
    }
    tn_group_release(g);
}

static void test_ranges(void)
{
    int w[10];
    tn_group_t *g;
    int *list = NULL;
    int n = 0, bad = -1, i;

    for (i = 0; i < 10; i++) {
        w[i] = 100 + i;
    }
    g = mk(10, w);
    {
        int ranges[][3] = { { 0, 8, 3 }, { 9, 5, -2 }, { 4, 4, 1 } };
        int want[] = { 0, 3, 6, 9, 7, 5, 4 };

        CHECK(tn_group_range_expand(g, 3, ranges, &list, &n, &bad) == TN_OK && n == 7 &&
              memcmp(list, want, sizeof(want)) == 0, "expand strided ranges (n %d)", n);
        free(list);
    }
    {
        /* last need not be reached exactly: 1, 4, 7 (last 8) */
        int ranges[][3] = { { 1, 8, 3 } };
        int want[] = { 1, 4, 7 };

        CHECK(tn_group_range_expand(g, 1, ranges, &list, &n, &bad) == TN_OK && n == 3 &&
              memcmp(list, want, sizeof(want)) == 0, "stride past last");
        free(list);
    }
    {
        int ranges[][3] = { { 0, 9, 1 } };
        tn_group_t *r = NULL;

        CHECK(tn_group_range_expand(g, 1, ranges, &list, &n, &bad) == TN_OK && n == 10,
              "whole group");
        CHECK(tn_group_excl(g, n, list, &r) == TN_OK && r == &tn_group_empty,
              "range_excl of everything");
        free(list);
    }
    {
        int zero_stride[][3] = { { 0, 3, 1 }, { 2, 2, 0 } };
        int wrong_dir[][3] = { { 5, 2, 1 } };
        int wrong_dir2[][3] = { { 2, 5, -1 } };
        int out[][3] = { { 0, 10, 1 } };
        int neg[][3] = { { -1, 3, 1 } };
        int overlap[][3] = { { 0, 4, 2 }, { 1, 3, 1 }, { 6, 9, 1 } };

        CHECK(tn_group_range_expand(g, 2, zero_stride, &list, &n, &bad) == TN_ERR_INVAL &&
              bad == 1, "stride 0 (bad %d)", bad);
        CHECK(tn_group_range_expand(g, 1, wrong_dir, &list, &n, &bad) == TN_ERR_INVAL,
              "first > last with positive stride");
        CHECK(tn_group_range_expand(g, 1, wrong_dir2, &list, &n, &bad) == TN_ERR_INVAL,
              "first < last with negative stride");
        CHECK(tn_group_range_expand(g, 1, out, &list, &n, &bad) == TN_ERR_INVAL,
              "last out of range");
        CHECK(tn_group_range_expand(g, 1, neg, &list, &n, &bad) == TN_ERR_INVAL,
              "negative first");
        CHECK(tn_group_range_expand(g, 3, overlap, &list, &n, &bad) == TN_ERR_INVAL &&
              bad == 1, "rank 2 twice (bad %d)", bad);
    }
    CHECK(tn_group_range_expand(g, 0, NULL, &list, &n, &bad) == TN_OK && n == 0,
          "no ranges");
    free(list);
    tn_group_release(g);
}

static void test_set_ops(void)
{
    int wa[] = { 1, 5, 3, 9 };
    int wb[] = { 9, 2, 1, 8 };
    tn_group_t *a = mk(4, wa), *b = mk(4, wb), *r = NULL;

    {
        int want[] = { 1, 5, 3, 9, 2, 8 };

        CHECK(tn_group_union(a, b, &r) == TN_OK && is(r, 6, want), "union");
        if (!is(r, 6, want)) {
            dump("union", r);
        }
        CHECK(r->rank == 1, "rank in union %d", r->rank);
        tn_group_release(r);
    }
    {
        int want[] = { 1, 9 };

        CHECK(tn_group_intersection(a, b, &r) == TN_OK && is(r, 2, want),
              "intersection in a's order");
        tn_group_release(r);
    }
    {
        int want[] = { 9, 1 };

        CHECK(tn_group_intersection(b, a, &r) == TN_OK && is(r, 2, want),
              "intersection in b's order");
        tn_group_release(r);
    }
    {
        int want[] = { 5, 3 };

        CHECK(tn_group_difference(a, b, &r) == TN_OK && is(r, 2, want), "difference");
        tn_group_release(r);
    }
    CHECK(tn_group_difference(a, a, &r) == TN_OK && r == &tn_group_empty, "a - a is empty");
    CHECK(tn_group_union(&tn_group_empty, &tn_group_empty, &r) == TN_OK &&
          r == &tn_group_empty, "empty union empty");
    CHECK(tn_group_union(&tn_group_empty, a, &r) == TN_OK && is(r, 4, wa),
          "empty union a");
    tn_group_release(r);
    CHECK(tn_group_intersection(a, &tn_group_empty, &r) == TN_OK && r == &tn_group_empty,
          "a and empty");
    CHECK(tn_group_difference(a, &tn_group_empty, &r) == TN_OK && is(r, 4, wa),
          "a minus empty");
    tn_group_release(r);
    {
        int wc[] = { 4, 6 };
        tn_group_t *c = mk(2, wc);

        CHECK(tn_group_intersection(a, c, &r) == TN_OK && r == &tn_group_empty,
              "disjoint intersection");
        tn_group_release(c);
    }
    tn_group_release(a);
    tn_group_release(b);
}

static void test_compare_translate(void)
{
    int wa[] = { 4, 2, 7 };
    int wb[] = { 4, 2, 7 };
    int wc[] = { 7, 4, 2 };
    int wd[] = { 7, 4, 3 };
    int we[] = { 4, 2 };
    tn_group_t *a = mk(3, wa), *b = mk(3, wb), *c = mk(3, wc), *d = mk(3, wd), *e = mk(2, we);

    CHECK(tn_group_compare(a, a) == TN_GROUP_IDENT, "same object");
    CHECK(tn_group_compare(a, b) == TN_GROUP_IDENT, "same members and order");
    CHECK(tn_group_compare(a, c) == TN_GROUP_SIMILAR, "same members, other order");
    CHECK(tn_group_compare(a, d) == TN_GROUP_UNEQUAL, "different members");
    CHECK(tn_group_compare(a, e) == TN_GROUP_UNEQUAL, "different sizes");
    CHECK(tn_group_compare(&tn_group_empty, &tn_group_empty) == TN_GROUP_IDENT,
          "empty vs empty");
    CHECK(tn_group_compare(a, &tn_group_empty) == TN_GROUP_UNEQUAL, "a vs empty");

    {
        int r1[] = { 0, 1, 2, PROC_NULL };
        int r2[4];
        int want[] = { 1, 2, 0, PROC_NULL };
        int want_d[] = { 1, UNDEF, 0, PROC_NULL };

        tn_group_translate_ranks(a, 4, r1, c, r2);
        CHECK(memcmp(r2, want, sizeof(want)) == 0, "translate a -> c: %d %d %d %d",
              r2[0], r2[1], r2[2], r2[3]);
        tn_group_translate_ranks(a, 4, r1, d, r2);
        CHECK(memcmp(r2, want_d, sizeof(want_d)) == 0, "translate a -> d: %d %d %d %d",
              r2[0], r2[1], r2[2], r2[3]);
        tn_group_translate_ranks(a, 3, r1, &tn_group_empty, r2);
        CHECK(r2[0] == UNDEF && r2[1] == UNDEF && r2[2] == UNDEF, "translate to empty");
    }

    CHECK(tn_group_is_subset(e, a), "e within a");
    CHECK(!tn_group_is_subset(a, e), "a not within e");
    CHECK(!tn_group_is_subset(d, a), "d not within a");
    CHECK(tn_group_is_subset(&tn_group_empty, e), "empty within anything");

    tn_group_release(a);
    tn_group_release(b);
    tn_group_release(c);
    tn_group_release(d);
    tn_group_release(e);
}

int main(void)
{
    tn_group_init(5);
    test_basics();
    tn_group_init(14);
    test_incl_excl();
    test_ranges();
    tn_group_init(5);
    test_set_ops();
    test_compare_translate();
    if (failures) {
        fprintf(stderr, "test_group: %d check(s) failed\n", failures);
        return 1;
    }
    printf("test_group: all checks passed\n");
    return 0;
}
