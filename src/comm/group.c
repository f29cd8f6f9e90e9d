/* Groups: ordered lists of world ranks, and the group algebra of MPI
 * (incl, excl, ranges, union, intersection, difference, compare,
 * translate).  Nothing here communicates, so it is unit-tested without a job
 * (tests/unit/test_group.c).
 *
 * Membership lookups scan the list: groups are built rarely and a scan of a
 * few thousand ints is cheap next to the collective that usually follows. */
#include <stdlib.h>
#include <string.h>
#include "base/objreg.h"
#include "comm/comm.h"

#define TN_UNDEFINED (-32766)
#define TN_PROC_NULL_RANK (-3)

tn_group_t tn_group_empty = {
    .magic = TN_GROUP_MAGIC,
    .refcount = 1,
    .predefined = 1,
    .size = 0,
    .rank = TN_UNDEFINED,
    .world = NULL,
};

/* My world rank, to compute group->rank of new groups. */
static int group_my_world = -1;

void tn_group_init(int my_world_rank)
{
    group_my_world = my_world_rank;
}

tn_status_t tn_group_new(int size, int *world, tn_group_t **group_p)
{
    tn_group_t *g;
    int i;

    if (size == 0) {
        free(world);
        *group_p = &tn_group_empty;
        return TN_OK;
    }
    g = malloc(sizeof(*g));
    if (g == NULL) {
        free(world);
        return TN_ERR_NOMEM;
    }
    g->magic = TN_GROUP_MAGIC;
    g->refcount = 1;
    g->predefined = 0;
    g->size = size;
    g->world = world;
    g->rank = TN_UNDEFINED;
    for (i = 0; i < size; i++) {
        if (world[i] == group_my_world) {
            g->rank = i;
            break;
        }
    }
    if (tn_objreg_add(g, TN_OBJ_GROUP) != TN_OK) {
        free(g);
        free(world);
        return TN_ERR_NOMEM;
    }
    *group_p = g;
    return TN_OK;
}

void tn_group_retain(tn_group_t *group)
{
    if (!group->predefined) {
        group->refcount++;
    }
}

void tn_group_release(tn_group_t *group)
{
    if (group == NULL || group->predefined) {
        return;
    }
    if (--group->refcount == 0) {
        group->magic = 0;
        tn_objreg_del(group);
        free(group->world);
        free(group);
    }
}

int tn_group_rank_of_world(const tn_group_t *group, int w)
{
    int i;

    for (i = 0; i < group->size; i++) {
        if (group->world[i] == w) {
            return i;
        }
    }
    return TN_UNDEFINED;
}

/* A group from n world ranks copied out of list. */
static tn_status_t group_from_list(int n, const int *list, tn_group_t **group_p)
{
    int *world;

    if (n == 0) {
        *group_p = &tn_group_empty;
        return TN_OK;
    }
    world = malloc((size_t)n * sizeof(int));
    if (world == NULL) {
        return TN_ERR_NOMEM;
    }
    memcpy(world, list, (size_t)n * sizeof(int));
    return tn_group_new(n, world, group_p);
}

int tn_group_check_ranks(const tn_group_t *group, int n, const int *ranks, int *bad_p)
{
    unsigned char *seen;
    int i, rc = TN_GROUP_RANKS_OK;

    for (i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= group->size) {
            *bad_p = i;
            return TN_GROUP_RANKS_RANGE;
        }
    }
    if (n <= 1) {
        return TN_GROUP_RANKS_OK;
    }
    seen = calloc((size_t)group->size, 1);
    if (seen == NULL) {
        return TN_GROUP_RANKS_OK;      /* cannot tell; the algebra copes */
    }
    for (i = 0; i < n; i++) {
        if (seen[ranks[i]]) {
            *bad_p = i;
            rc = TN_GROUP_RANKS_DUP;
            break;
        }
        seen[ranks[i]] = 1;
    }
    free(seen);
    return rc;
}

tn_status_t tn_group_incl(const tn_group_t *group, int n, const int *ranks,
                          tn_group_t **group_p)
{
    int *world;
    int i;

    if (n == 0) {
        *group_p = &tn_group_empty;
        return TN_OK;
    }
    world = malloc((size_t)n * sizeof(int));
    if (world == NULL) {
        return TN_ERR_NOMEM;
    }
    for (i = 0; i < n; i++) {
        world[i] = group->world[ranks[i]];
    }
    return tn_group_new(n, world, group_p);
}

tn_status_t tn_group_excl(const tn_group_t *group, int n, const int *ranks,
                          tn_group_t **group_p)
{
    unsigned char *drop;
    int *world;
    int i, k = 0;

    if (group->size == 0) {
        *group_p = &tn_group_empty;
        return TN_OK;
    }
    drop = calloc((size_t)group->size, 1);
    world = malloc((size_t)group->size * sizeof(int));
    if (drop == NULL || world == NULL) {
        free(drop);
        free(world);
        return TN_ERR_NOMEM;
    }
    for (i = 0; i < n; i++) {
        drop[ranks[i]] = 1;
    }
    for (i = 0; i < group->size; i++) {
        if (!drop[i]) {
            world[k++] = group->world[i];
        }
    }
    free(drop);
    if (k == 0) {
        free(world);
        *group_p = &tn_group_empty;
        return TN_OK;
    }
    return tn_group_new(k, world, group_p);
}

tn_status_t tn_group_range_expand(const tn_group_t *group, int n, int (*ranges)[3],
                                  int **ranks_p, int *count_p, int *bad_p)
{
    unsigned char *seen;
    int *ranks;
    int i, k = 0;

    for (i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];

        if (first < 0 || first >= group->size || last < 0 || last >= group->size ||
            stride == 0 || (stride > 0 && first > last) || (stride < 0 && first < last)) {
            *bad_p = i;
            return TN_ERR_INVAL;
        }
    }
    /* distinct ranks of group: never more than group->size of them */
    seen = calloc((size_t)group->size + 1, 1);
    ranks = malloc(((size_t)group->size + 1) * sizeof(int));
    if (seen == NULL || ranks == NULL) {
        free(seen);
        free(ranks);
        return TN_ERR_NOMEM;
    }
    for (i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        int64_t r;

        for (r = first; stride > 0 ? r <= last : r >= last; r += stride) {
            if (seen[r]) {
                free(seen);
                free(ranks);
                *bad_p = i;
                return TN_ERR_INVAL;
            }
            seen[r] = 1;
            ranks[k++] = (int)r;
        }
    }
    free(seen);
    *ranks_p = ranks;
    *count_p = k;
    return TN_OK;
}

tn_status_t tn_group_union(const tn_group_t *a, const tn_group_t *b, tn_group_t **group_p)
{
    int *world;
    int i, k;

    if (a->size + b->size == 0) {
        *group_p = &tn_group_empty;
        return TN_OK;
    }
    world = malloc(((size_t)a->size + (size_t)b->size) * sizeof(int));
    if (world == NULL) {
        return TN_ERR_NOMEM;
    }
    if (a->size > 0) {
        memcpy(world, a->world, (size_t)a->size * sizeof(int));
    }
    k = a->size;
    for (i = 0; i < b->size; i++) {
        if (tn_group_rank_of_world(a, b->world[i]) == TN_UNDEFINED) {
            world[k++] = b->world[i];
        }
    }
    return tn_group_new(k, world, group_p);
}

/* Members of a that are (keep_common) or are not (!keep_common) in b, in
 * a's order. */
static tn_status_t group_filter(const tn_group_t *a, const tn_group_t *b, int keep_common,
                                tn_group_t **group_p)
{
    int *world;
    int i, k = 0;

    if (a->size == 0) {
        *group_p = &tn_group_empty;
        return TN_OK;
    }
    world = malloc((size_t)a->size * sizeof(int));
    if (world == NULL) {
        return TN_ERR_NOMEM;
    }
    for (i = 0; i < a->size; i++) {
        int in_b = tn_group_rank_of_world(b, a->world[i]) != TN_UNDEFINED;

        if (in_b == !!keep_common) {
            world[k++] = a->world[i];
        }
    }
    return tn_group_new(k, world, group_p);
}

tn_status_t tn_group_intersection(const tn_group_t *a, const tn_group_t *b,
                                  tn_group_t **group_p)
{
    return group_filter(a, b, 1, group_p);
}

tn_status_t tn_group_difference(const tn_group_t *a, const tn_group_t *b,
                                tn_group_t **group_p)
{
    return group_filter(a, b, 0, group_p);
}

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;

    return (a > b) - (a < b);
}

int tn_group_compare(const tn_group_t *a, const tn_group_t *b)
{
    int *sa, *sb;
    int i, rc;

    if (a == b) {
        return TN_GROUP_IDENT;
    }
    if (a->size != b->size) {
        return TN_GROUP_UNEQUAL;
    }
    if (a->size == 0 ||
        memcmp(a->world, b->world, (size_t)a->size * sizeof(int)) == 0) {
        return TN_GROUP_IDENT;
    }
    sa = malloc((size_t)a->size * sizeof(int));
    sb = malloc((size_t)b->size * sizeof(int));
    if (sa == NULL || sb == NULL) {
        /* fall back to the quadratic test */
        free(sa);
        free(sb);
        for (i = 0; i < a->size; i++) {
            if (tn_group_rank_of_world(b, a->world[i]) == TN_UNDEFINED) {
                return TN_GROUP_UNEQUAL;
            }
        }
        return TN_GROUP_SIMILAR;
    }
    memcpy(sa, a->world, (size_t)a->size * sizeof(int));
    memcpy(sb, b->world, (size_t)b->size * sizeof(int));
    qsort(sa, (size_t)a->size, sizeof(int), cmp_int);
    qsort(sb, (size_t)b->size, sizeof(int), cmp_int);
    rc = memcmp(sa, sb, (size_t)a->size * sizeof(int)) == 0 ? TN_GROUP_SIMILAR
                                                            : TN_GROUP_UNEQUAL;
    free(sa);
    free(sb);
    return rc;
}

void tn_group_translate_ranks(const tn_group_t *a, int n, const int *ranks_a,
                              const tn_group_t *b, int *ranks_b)
{
    int i;

    for (i = 0; i < n; i++) {
        if (ranks_a[i] == TN_PROC_NULL_RANK) {
            ranks_b[i] = TN_PROC_NULL_RANK;
        } else {
            ranks_b[i] = tn_group_rank_of_world(b, a->world[ranks_a[i]]);
        }
    }
}

int tn_group_is_subset(const tn_group_t *sub, const tn_group_t *of)
{
    int i;

    for (i = 0; i < sub->size; i++) {
        if (tn_group_rank_of_world(of, sub->world[i]) == TN_UNDEFINED) {
            return 0;
        }
    }
    return 1;
}

tn_status_t tn_group_from_world_list(int n, const int *world, tn_group_t **group_p)
{
    return group_from_list(n, world, group_p);
}
