/* MPI group functions and group handle conversion. */
#include <stdlib.h>
#include "mpi/mpi_impl.h"

tn_group_t *tn_mpi_group_get(MPI_Group h)
{
    uintptr_t v = tn_mpi_hval(h);
    tn_group_t *g = NULL;

    if (v == tn_mpi_hval(MPI_GROUP_EMPTY)) {
        return &tn_group_empty;
    }
    if (v < TN_MPI_HANDLE_MAX_PREDEF) {
        return NULL;
    }
    g = (tn_group_t *)h;
    if (!tn_objreg_has(g, TN_OBJ_GROUP)) {
        return NULL;                    /* garbage, freed, or another kind */
    }
    return g->magic == TN_GROUP_MAGIC ? g : NULL;
}

MPI_Group tn_mpi_group_handle(tn_group_t *g)
{
    return g->predefined ? MPI_GROUP_EMPTY : (MPI_Group)(void *)g;
}

/* Convert a group argument, reporting MPI_ERR_GROUP. */
static int group_arg(const char *fn, MPI_Group h, const char *arg, tn_group_t **g_p)
{
    tn_group_t *g = NULL;

    if (h == MPI_GROUP_NULL) {
        return tn_mpi_err(NULL, MPI_ERR_GROUP, fn, arg, "MPI_GROUP_NULL is not a valid group");
    }
    g = tn_mpi_group_get(h);
    if (g == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_GROUP, fn, arg, "invalid group handle %p", (void *)h);
    }
    *g_p = g;
    return MPI_SUCCESS;
}

static int out_arg(const char *fn, const void *p, const char *arg)
{
    if (p == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, arg, "output argument is NULL");
    }
    return MPI_SUCCESS;
}

/* Hand a new group to the user, or report the failure. */
static int group_out(const char *fn, tn_status_t st, tn_group_t *g, MPI_Group *newgroup)
{
    if (st != TN_OK) {
        return tn_mpi_err_status(NULL, st, fn);
    }
    *newgroup = tn_mpi_group_handle(g);
    return MPI_SUCCESS;
}

int tn_mpi_Group_size(MPI_Group group, int *size)
{
    static const char fn[] = "MPI_Group_size";
    tn_group_t *g = NULL;
    int rc;

    if ((rc = tn_mpi_check_init(fn)) || (rc = group_arg(fn, group, "group", &g)) ||
        (rc = out_arg(fn, size, "size"))) {
        return rc;
    }
    *size = g->size;
    return MPI_SUCCESS;
}

int tn_mpi_Group_rank(MPI_Group group, int *rank)
{
    static const char fn[] = "MPI_Group_rank";
    tn_group_t *g = NULL;
    int rc;

    if ((rc = tn_mpi_check_init(fn)) || (rc = group_arg(fn, group, "group", &g)) ||
        (rc = out_arg(fn, rank, "rank"))) {
        return rc;
    }
    *rank = g->rank;
    return MPI_SUCCESS;
}

int tn_mpi_Group_free(MPI_Group *group)
{
    static const char fn[] = "MPI_Group_free";
    tn_group_t *g = NULL;
    int rc;

    if ((rc = tn_mpi_check_init(fn)) || (rc = out_arg(fn, group, "group")) ||
        (rc = group_arg(fn, *group, "group", &g))) {
        return rc;
    }
    /* Freeing MPI_GROUP_EMPTY is allowed (group constructors return it) and
     * does nothing but reset the handle. */
    tn_mpi_enter();
    tn_group_release(g);
    tn_mpi_leave();
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

/* Check a rank list for incl/excl. */
static int ranks_arg(const char *fn, tn_group_t *g, int n, const int ranks[])
{
    int bad = 0;

    if (n < 0) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "n", "%d is negative", n);
    }
    if (n > 0 && ranks == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "ranks", "NULL with n = %d", n);
    }
    switch (tn_group_check_ranks(g, n, ranks, &bad)) {
    case TN_GROUP_RANKS_RANGE:
        return tn_mpi_err(NULL, MPI_ERR_RANK, fn, "ranks",
                          "ranks[%d] = %d is out of range [0, %d)", bad, ranks[bad], g->size);
    case TN_GROUP_RANKS_DUP:
        return tn_mpi_err(NULL, MPI_ERR_RANK, fn, "ranks",
                          "ranks[%d] = %d appears more than once", bad, ranks[bad]);
    default:
        return MPI_SUCCESS;
    }
}

int tn_mpi_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    static const char fn[] = "MPI_Group_incl";
    tn_group_t *g = NULL, *ng = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_init(fn)) || (rc = group_arg(fn, group, "group", &g)) ||
        (rc = ranks_arg(fn, g, n, ranks)) || (rc = out_arg(fn, newgroup, "newgroup"))) {
        return rc;
    }
    tn_mpi_enter();
    st = tn_group_incl(g, n, ranks, &ng);
    tn_mpi_leave();
    return group_out(fn, st, ng, newgroup);
}

int tn_mpi_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    static const char fn[] = "MPI_Group_excl";
    tn_group_t *g = NULL, *ng = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_init(fn)) || (rc = group_arg(fn, group, "group", &g)) ||
        (rc = ranks_arg(fn, g, n, ranks)) || (rc = out_arg(fn, newgroup, "newgroup"))) {
        return rc;
    }
    tn_mpi_enter();
    st = tn_group_excl(g, n, ranks, &ng);
    tn_mpi_leave();
    return group_out(fn, st, ng, newgroup);
}

/* range_incl (excl == 0) and range_excl (excl == 1). */
static int group_range(const char *fn, MPI_Group group, int n, int ranges[][3],
                       MPI_Group *newgroup, int excl)
{
    tn_group_t *g = NULL, *ng = NULL;
    int *list = NULL;
    int count = 0, bad = 0, rc;
    tn_status_t st;

    if ((rc = tn_mpi_check_init(fn)) || (rc = group_arg(fn, group, "group", &g)) ||
        (rc = out_arg(fn, newgroup, "newgroup"))) {
        return rc;
    }
    if (n < 0) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "n", "%d is negative", n);
    }
    if (n > 0 && ranges == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "ranges", "NULL with n = %d", n);
    }
    tn_mpi_enter();
    st = tn_group_range_expand(g, n, ranges, &list, &count, &bad);
    if (st == TN_OK) {
        st = excl ? tn_group_excl(g, count, list, &ng) : tn_group_incl(g, count, list, &ng);
        free(list);
    }
    tn_mpi_leave();
    if (st == TN_ERR_INVAL) {
        return tn_mpi_err(NULL, MPI_ERR_RANK, fn, "ranges",
                          "ranges[%d] = (%d, %d, %d) is invalid for a group of size %d "
                          "or repeats a rank", bad, ranges[bad][0], ranges[bad][1],
                          ranges[bad][2], g->size);
    }
    return group_out(fn, st, ng, newgroup);
}

int tn_mpi_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return group_range("MPI_Group_range_incl", group, n, ranges, newgroup, 0);
}

int tn_mpi_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return group_range("MPI_Group_range_excl", group, n, ranges, newgroup, 1);
}

/* union (0), intersection (1), difference (2) */
static int group_setop(const char *fn, MPI_Group group1, MPI_Group group2,
                       MPI_Group *newgroup, int which)
{
    tn_group_t *a = NULL, *b = NULL, *ng = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_init(fn)) || (rc = group_arg(fn, group1, "group1", &a)) ||
        (rc = group_arg(fn, group2, "group2", &b)) ||
        (rc = out_arg(fn, newgroup, "newgroup"))) {
        return rc;
    }
    tn_mpi_enter();
    switch (which) {
    case 0:
        st = tn_group_union(a, b, &ng);
        break;
    case 1:
        st = tn_group_intersection(a, b, &ng);
        break;
    default:
        st = tn_group_difference(a, b, &ng);
        break;
    }
    tn_mpi_leave();
    return group_out(fn, st, ng, newgroup);
}

int tn_mpi_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return group_setop("MPI_Group_union", group1, group2, newgroup, 0);
}

int tn_mpi_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return group_setop("MPI_Group_intersection", group1, group2, newgroup, 1);
}

int tn_mpi_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return group_setop("MPI_Group_difference", group1, group2, newgroup, 2);
}

int tn_mpi_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    static const char fn[] = "MPI_Group_compare";
    tn_group_t *a = NULL, *b = NULL;
    int rc, c;

    if ((rc = tn_mpi_check_init(fn)) || (rc = group_arg(fn, group1, "group1", &a)) ||
        (rc = group_arg(fn, group2, "group2", &b)) || (rc = out_arg(fn, result, "result"))) {
        return rc;
    }
    c = tn_group_compare(a, b);
    *result = c == TN_GROUP_IDENT ? MPI_IDENT : c == TN_GROUP_SIMILAR ? MPI_SIMILAR
                                                                      : MPI_UNEQUAL;
    return MPI_SUCCESS;
}

int tn_mpi_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[],
                                 MPI_Group group2, int ranks2[])
{
    static const char fn[] = "MPI_Group_translate_ranks";
    tn_group_t *a = NULL, *b = NULL;
    int rc, i;

    if ((rc = tn_mpi_check_init(fn)) || (rc = group_arg(fn, group1, "group1", &a)) ||
        (rc = group_arg(fn, group2, "group2", &b))) {
        return rc;
    }
    if (n < 0) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "n", "%d is negative", n);
    }
    if (n > 0 && ranks1 == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "ranks1", "NULL with n = %d", n);
    }
    if (n > 0 && ranks2 == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "ranks2", "NULL with n = %d", n);
    }
    for (i = 0; i < n; i++) {
        if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= a->size)) {
            return tn_mpi_err(NULL, MPI_ERR_RANK, fn, "ranks1",
                              "ranks1[%d] = %d is out of range [0, %d)", i, ranks1[i],
                              a->size);
        }
    }
    tn_group_translate_ranks(a, n, ranks1, b, ranks2);
    return MPI_SUCCESS;
}
