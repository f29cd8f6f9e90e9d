/* MPI communicator functions and communicator handle conversion. */
#include <string.h>
#include "mpi/mpi_impl.h"

/* mpi/mpi_err.c: the last error code in use (MPI_LASTUSEDCODE). */
int tn_mpi_lastusedcode(void);

tn_comm_t *tn_mpi_comm_get(MPI_Comm h)
{
    uintptr_t v = tn_mpi_hval(h);
    tn_comm_t *c = NULL;

    if (v == tn_mpi_hval(MPI_COMM_WORLD)) {
        return &tn_comm_world;
    }
    if (v == tn_mpi_hval(MPI_COMM_SELF)) {
        return &tn_comm_self;
    }
    if (v < TN_MPI_HANDLE_MAX_PREDEF) {
        return NULL;                    /* MPI_COMM_NULL and other small values */
    }
    c = (tn_comm_t *)h;
    return c->magic == TN_COMM_MAGIC ? c : NULL;
}

static int out_arg(const char *fn, tn_comm_t *c, const void *p, const char *arg)
{
    if (p == NULL) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, arg, "output argument is NULL");
    }
    return MPI_SUCCESS;
}

/* Hand a new communicator (or none) to the user. */
static int comm_out(const char *fn, tn_comm_t *parent, tn_status_t st, tn_comm_t *nc,
                    MPI_Comm *newcomm)
{
    if (st != TN_OK) {
        return tn_mpi_err_status(parent, st, fn);
    }
    *newcomm = nc != NULL ? tn_mpi_comm_handle(nc) : MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int tn_mpi_Comm_size(MPI_Comm comm, int *size)
{
    static const char fn[] = "MPI_Comm_size";
    tn_comm_t *c = NULL;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = out_arg(fn, c, size, "size"))) {
        return rc;
    }
    *size = c->size;
    return MPI_SUCCESS;
}

int tn_mpi_Comm_rank(MPI_Comm comm, int *rank)
{
    static const char fn[] = "MPI_Comm_rank";
    tn_comm_t *c = NULL;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = out_arg(fn, c, rank, "rank"))) {
        return rc;
    }
    *rank = c->rank;
    return MPI_SUCCESS;
}

int tn_mpi_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_dup";
    tn_comm_t *c = NULL, *nc = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) ||
        (rc = out_arg(fn, c, newcomm, "newcomm"))) {
        return rc;
    }
    tn_mpi_enter();
    st = tn_comm_dup(c, &nc);
    tn_mpi_leave();
    return comm_out(fn, c, st, nc, newcomm);
}

int tn_mpi_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_split";
    tn_comm_t *c = NULL, *nc = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) ||
        (rc = out_arg(fn, c, newcomm, "newcomm"))) {
        return rc;
    }
    if (color < 0 && color != MPI_UNDEFINED) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, "color",
                          "%d is negative and not MPI_UNDEFINED", color);
    }
    tn_mpi_enter();
    st = tn_comm_split(c, color, key, &nc);
    tn_mpi_leave();
    return comm_out(fn, c, st, nc, newcomm);
}

int tn_mpi_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_create";
    tn_comm_t *c = NULL, *nc = NULL;
    tn_group_t *g = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) ||
        (rc = out_arg(fn, c, newcomm, "newcomm"))) {
        return rc;
    }
    if (group == MPI_GROUP_NULL || (g = tn_mpi_group_get(group)) == NULL) {
        return tn_mpi_err(c, MPI_ERR_GROUP, fn, "group", "invalid group handle %p",
                          (void *)group);
    }
    if (!tn_group_is_subset(g, c->group)) {
        return tn_mpi_err(c, MPI_ERR_GROUP, fn, "group",
                          "the group is not a subset of the communicator's group");
    }
    tn_mpi_enter();
    st = tn_comm_create_from_group(c, g, &nc);
    tn_mpi_leave();
    return comm_out(fn, c, st, nc, newcomm);
}

int tn_mpi_Comm_free(MPI_Comm *comm)
{
    static const char fn[] = "MPI_Comm_free";
    tn_comm_t *c = NULL;
    int rc;

    if ((rc = tn_mpi_check_init(fn)) || (rc = out_arg(fn, NULL, comm, "comm"))) {
        return rc;
    }
    if (*comm == MPI_COMM_NULL) {
        return tn_mpi_err(NULL, MPI_ERR_COMM, fn, "comm", "MPI_COMM_NULL cannot be freed");
    }
    if ((rc = tn_mpi_check_comm(fn, *comm, &c))) {
        return rc;
    }
    if (c->predefined) {
        return tn_mpi_err(c, MPI_ERR_COMM, fn, "comm", "%s is predefined and cannot be freed",
                          c == &tn_comm_world ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
    }
    tn_mpi_enter();
    tn_comm_release(c);
    tn_mpi_leave();
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int tn_mpi_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    static const char fn[] = "MPI_Comm_compare";
    tn_comm_t *a = NULL, *b = NULL;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm1, &a)) || (rc = tn_mpi_check_comm(fn, comm2, &b)) ||
        (rc = out_arg(fn, a, result, "result"))) {
        return rc;
    }
    if (a == b) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    switch (tn_group_compare(a->group, b->group)) {
    case TN_GROUP_IDENT:
        *result = MPI_CONGRUENT;
        break;
    case TN_GROUP_SIMILAR:
        *result = MPI_SIMILAR;
        break;
    default:
        *result = MPI_UNEQUAL;
        break;
    }
    return MPI_SUCCESS;
}

int tn_mpi_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    static const char fn[] = "MPI_Comm_group";
    tn_comm_t *c = NULL;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = out_arg(fn, c, group, "group"))) {
        return rc;
    }
    tn_mpi_enter();
    tn_group_retain(c->group);
    tn_mpi_leave();
    *group = tn_mpi_group_handle(c->group);
    return MPI_SUCCESS;
}

int tn_mpi_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    static const char fn[] = "MPI_Comm_set_name";
    tn_comm_t *c = NULL;
    size_t len;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c))) {
        return rc;
    }
    if (comm_name == NULL) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, "comm_name", "NULL name");
    }
    /* trailing spaces are not significant; longer names are truncated */
    len = strnlen(comm_name, sizeof(c->name) - 1);
    while (len > 0 && comm_name[len - 1] == ' ') {
        len--;
    }
    tn_mpi_enter();
    memcpy(c->name, comm_name, len);
    c->name[len] = '\0';
    tn_mpi_leave();
    return MPI_SUCCESS;
}

int tn_mpi_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    static const char fn[] = "MPI_Comm_get_name";
    tn_comm_t *c = NULL;
    size_t len;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) ||
        (rc = out_arg(fn, c, comm_name, "comm_name")) ||
        (rc = out_arg(fn, c, resultlen, "resultlen"))) {
        return rc;
    }
    tn_mpi_enter();
    len = strnlen(c->name, sizeof(c->name) - 1);
    memcpy(comm_name, c->name, len);
    comm_name[len] = '\0';
    tn_mpi_leave();
    *resultlen = (int)len;
    return MPI_SUCCESS;
}

int tn_mpi_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    static const char fn[] = "MPI_Comm_get_attr";
    /* Values of the predefined attributes: the user gets pointers to them. */
    static int tag_ub = 0x7fffffff;
    static int host = MPI_PROC_NULL;
    static int io = MPI_ANY_SOURCE;
    static int wtime_is_global = 0;
    static int lastusedcode, appnum, universe_size;
    tn_comm_t *c = NULL;
    int *val = NULL;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) ||
        (rc = out_arg(fn, c, attribute_val, "attribute_val")) ||
        (rc = out_arg(fn, c, flag, "flag"))) {
        return rc;
    }
    switch (comm_keyval) {
    case MPI_KEYVAL_INVALID:
        return tn_mpi_err(c, MPI_ERR_KEYVAL, fn, "comm_keyval", "MPI_KEYVAL_INVALID");
    case MPI_TAG_UB:
        val = &tag_ub;
        break;
    case MPI_HOST:
        val = &host;
        break;
    case MPI_IO:
        val = &io;
        break;
    case MPI_WTIME_IS_GLOBAL:
        val = &wtime_is_global;
        break;
    case MPI_LASTUSEDCODE:
        lastusedcode = tn_mpi_lastusedcode();
        val = &lastusedcode;
        break;
    case MPI_APPNUM:
        if (tn_rt.appnum >= 0) {
            appnum = tn_rt.appnum;
            val = &appnum;
        }
        break;
    case MPI_UNIVERSE_SIZE:
        if (tn_rt.universe_size > 0) {
            universe_size = tn_rt.universe_size;
            val = &universe_size;
        }
        break;
    default:
        /* user keyvals: attribute caching is a later issue */
        break;
    }
    if (val == NULL) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    *(void **)attribute_val = val;
    *flag = 1;
    return MPI_SUCCESS;
}

int tn_mpi_Comm_test_inter(MPI_Comm comm, int *flag)
{
    static const char fn[] = "MPI_Comm_test_inter";
    tn_comm_t *c = NULL;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = out_arg(fn, c, flag, "flag"))) {
        return rc;
    }
    *flag = 0;       /* no intercommunicators yet */
    return MPI_SUCCESS;
}
