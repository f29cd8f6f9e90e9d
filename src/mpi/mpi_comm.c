/* MPI communicator functions and communicator handle conversion.
 *
 * Constructors run the core's collective construction and then the MPI
 * layer's part: attribute copy callbacks (mpi_attr.c) and info hints.
 * MPI_Comm_free runs the attribute delete callbacks (newest first) before
 * dropping the user's reference; the core frees the hints and whatever is
 * left when the last reference goes (pending operations hold their own).
 * MPI_Comm_disconnect first waits for the communication pending on the
 * communicator (comm->pending) and meets the other members in a barrier. */
#include <string.h>
#include "coll/coll.h"
#include "coll/inter/coll_inter.h"
#include "mpi/mpi_impl.h"
#include "mpi/mpi_trace.h"
#include "mpi/mpi_info.h"
#include "mpi/mpi_p2p_impl.h"

tn_comm_t *tn_mpi_comm_get(MPI_Comm h)
{
    uintptr_t v = tn_mpi_hval(h);
    tn_comm_t *c = NULL;

    /* the world model's communicators exist between MPI_Init and
     * MPI_Finalize only, whatever sessions are open */
    if (v == tn_mpi_hval(MPI_COMM_WORLD)) {
        return tn_mpi_world_active() ? &tn_comm_world : NULL;
    }
    if (v == tn_mpi_hval(MPI_COMM_SELF)) {
        return tn_mpi_world_active() ? &tn_comm_self : NULL;
    }
    if (v < TN_MPI_HANDLE_MAX_PREDEF) {
        return NULL;                    /* MPI_COMM_NULL and other small values */
    }
    c = (tn_comm_t *)h;
    if (!tn_objreg_has(c, TN_OBJ_COMM)) {
        return NULL;                    /* garbage, freed, or another kind */
    }
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
    TN_MPI_TRACE(tn_mpi_trace_newcomm_(nc));
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

/* The info object behind h for fn's argument arg; MPI_INFO_NULL gives
 * *info_p = NULL. */
static int info_arg(const char *fn, tn_comm_t *c, MPI_Info h, const char *arg,
                    tn_info_t **info_p)
{
    *info_p = NULL;
    if (h == MPI_INFO_NULL) {
        return MPI_SUCCESS;
    }
    if ((*info_p = tn_mpi_info_get(h)) == NULL) {
        return tn_mpi_err(c, MPI_ERR_INFO, fn, arg, "invalid info handle");
    }
    return MPI_SUCCESS;
}

/* A private copy of src (NULL: an empty object). */
static tn_status_t info_copy(const tn_info_t *src, tn_info_t **info_p)
{
    return src != NULL ? tn_info_dup(src, info_p) : tn_info_new(info_p);
}

/* The MPI layer's part of a duplicate nc of c: the hints ni (owned, when
 * set_hints) replace the inherited ones, then the attribute copy
 * callbacks.  On failure the caller releases nc. */
static int dup_finish(const char *fn, tn_comm_t *c, tn_comm_t *nc, int set_hints,
                      tn_info_t *ni)
{
    if (set_hints) {
        if (nc->info != NULL) {
            tn_info_release(nc->info);
        }
        nc->info = ni;
    }
    return tn_mpi_comm_attr_copy(fn, c, nc);
}

/* Every duplicating constructor: the core's collective dup, then the
 * attribute copy callbacks.  The duplicate keeps comm's hints, unless
 * set_hints, in which case it gets a copy of hints (NULL: none) instead. */
static int comm_dup_common(const char *fn, tn_comm_t *c, int set_hints, tn_info_t *hints,
                           tn_comm_t **nc_p)
{
    tn_comm_t *nc = NULL;
    tn_info_t *ni = NULL;
    tn_status_t st;
    int rc;

    tn_mpi_enter();
    st = tn_comm_dup(c, &nc);
    if (st == TN_OK && set_hints && hints != NULL) {
        st = tn_info_dup(hints, &ni);
        if (st != TN_OK) {
            tn_comm_release(nc);
        }
    }
    if (st != TN_OK) {
        tn_mpi_leave();
        return tn_mpi_err_status(c, st, fn);
    }
    rc = dup_finish(fn, c, nc, set_hints, ni);
    if (rc != MPI_SUCCESS) {
        tn_comm_release(nc);
        tn_mpi_leave();
        return rc;
    }
    tn_mpi_leave();
    *nc_p = nc;
    return MPI_SUCCESS;
}

int tn_mpi_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_dup";
    tn_comm_t *c = NULL, *nc = NULL;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) ||
        (rc = out_arg(fn, c, newcomm, "newcomm")) ||
        (rc = comm_dup_common(fn, c, 0, NULL, &nc))) {
        return rc;
    }
    *newcomm = tn_mpi_comm_handle(nc);
    TN_MPI_TRACE(tn_mpi_trace_newcomm_(nc));
    return MPI_SUCCESS;
}

int tn_mpi_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_dup_with_info";
    tn_comm_t *c = NULL, *nc = NULL;
    tn_info_t *i = NULL;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = info_arg(fn, c, info, "info", &i)) ||
        (rc = out_arg(fn, c, newcomm, "newcomm")) ||
        (rc = comm_dup_common(fn, c, 1, i, &nc))) {
        return rc;
    }
    *newcomm = tn_mpi_comm_handle(nc);
    TN_MPI_TRACE(tn_mpi_trace_newcomm_(nc));
    return MPI_SUCCESS;
}

/* The nonblocking dups: the duplicate exists at once (handle, hints,
 * attributes copied now, as MPI_Comm_dup would), its context id agreement
 * runs as a schedule that the request completes (tn_comm_idup); the
 * duplicate may be used once the request has completed. */
static int comm_idup_common(const char *fn, MPI_Comm comm, int set_hints, MPI_Info info,
                            MPI_Comm *newcomm, MPI_Request *request)
{
    tn_comm_t *c = NULL, *nc = NULL;
    tn_info_t *i = NULL, *ni = NULL;
    tn_req_t *req = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) ||
        (set_hints && (rc = info_arg(fn, c, info, "info", &i))) ||
        (rc = out_arg(fn, c, newcomm, "newcomm")) ||
        (rc = out_arg(fn, c, request, "request"))) {
        return rc;
    }
    tn_mpi_enter();
    st = set_hints && i != NULL ? tn_info_dup(i, &ni) : TN_OK;
    if (st == TN_OK) {
        st = tn_comm_idup(c, &nc, &req);
    }
    if (st != TN_OK) {
        if (ni != NULL) {
            tn_info_release(ni);
        }
        tn_mpi_leave();
        return tn_mpi_err_status(c, st, fn);
    }
    rc = dup_finish(fn, c, nc, set_hints, ni);
    if (rc != MPI_SUCCESS) {
        /* the agreement is under way with the other members: let it end,
         * the duplicate goes when the schedule lets it go */
        tn_req_free(req);
        tn_comm_release(nc);
        tn_mpi_leave();
        return rc;
    }
    tn_mpi_leave();
    /* no NEWCOMM item: the duplicate has no context id until the agreement
     * the request runs ends, so it is defined in the trace when first named
     * after that (another thread's progress may be setting it now) */
    *newcomm = tn_mpi_comm_handle(nc);
    *request = tn_mpi_req_handle(req);
    return MPI_SUCCESS;
}

int tn_mpi_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    return comm_idup_common("MPI_Comm_idup", comm, 0, MPI_INFO_NULL, newcomm, request);
}

int tn_mpi_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                               MPI_Request *request)
{
    return comm_idup_common("MPI_Comm_idup_with_info", comm, 1, info, newcomm, request);
}

/* Hints are merged: keys of info replace or add to the communicator's,
 * the others stay (MPI-4.0 7.4.4).  comm->info is shared with duplicates,
 * so it is replaced by an updated copy, never changed in place. */
int tn_mpi_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    static const char fn[] = "MPI_Comm_set_info";
    tn_comm_t *c = NULL;
    tn_info_t *i = NULL, *ni = NULL;
    tn_status_t st;
    int k, rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = info_arg(fn, c, info, "info", &i))) {
        return rc;
    }
    if (i == NULL || tn_info_nkeys(i) == 0) {
        return MPI_SUCCESS;
    }
    tn_mpi_enter();
    st = info_copy(c->info, &ni);
    for (k = 0; st == TN_OK && k < tn_info_nkeys(i); k++) {
        const char *key = tn_info_nthkey(i, k);

        st = tn_info_set(ni, key, tn_info_get(i, key));
    }
    if (st != TN_OK) {
        if (ni != NULL) {
            tn_info_release(ni);
        }
        tn_mpi_leave();
        return tn_mpi_err_status(c, st, fn);
    }
    if (c->info != NULL) {
        tn_info_release(c->info);
    }
    c->info = ni;
    tn_mpi_leave();
    return MPI_SUCCESS;
}

/* A new object with every hint the communicator holds: Tern keeps all the
 * hints it was given (it acts on none yet), so those are the ones in use. */
int tn_mpi_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    static const char fn[] = "MPI_Comm_get_info";
    tn_comm_t *c = NULL;
    tn_info_t *ni = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) ||
        (rc = out_arg(fn, c, info_used, "info_used"))) {
        return rc;
    }
    tn_mpi_enter();
    st = info_copy(c->info, &ni);
    tn_mpi_leave();
    if (st != TN_OK) {
        return tn_mpi_err_status(c, st, fn);
    }
    *info_used = tn_mpi_info_handle(ni);
    return MPI_SUCCESS;
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
    st = c->remote != NULL ? tn_comm_inter_split(c, color, key, &nc)
                           : tn_comm_split(c, color, key, &nc);
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
    if (c->remote != NULL) {
        /* the members of group, in its order, with the remote side's */
        st = tn_comm_inter_split(c, g->rank != MPI_UNDEFINED ? 0 : MPI_UNDEFINED, g->rank,
                                 &nc);
    } else {
        st = tn_comm_create_from_group(c, g, &nc);
    }
    tn_mpi_leave();
    return comm_out(fn, c, st, nc, newcomm);
}

int tn_mpi_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_create_group";
    tn_comm_t *c = NULL, *nc = NULL;
    tn_group_t *g = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = tn_mpi_check_intra(fn, c, "comm")) ||
        (rc = out_arg(fn, c, newcomm, "newcomm")) ||
        (rc = tn_mpi_check_tag(fn, c, tag, 0))) {
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
    st = tn_comm_create_group(c, g, tag, &nc);
    tn_mpi_leave();
    return comm_out(fn, c, st, nc, newcomm);
}

/* The hardware resource Tern can split by: the node (shared memory). */
#define TN_HW_RESOURCE_NODE "mpi_shared_memory"

/* Color for a split by hardware resource type hw (NULL: not given). */
static int split_hw_color(const char *hw, const char **restype_p)
{
    if (hw != NULL && strcmp(hw, TN_HW_RESOURCE_NODE) == 0) {
        *restype_p = TN_HW_RESOURCE_NODE;
        return tn_rt.node_id;
    }
    return MPI_UNDEFINED;           /* no key, or a resource Tern does not know */
}

/* Color of this process for MPI_Comm_split_type, and the resource type or
 * process set to record in the new communicator's hints (NULL: none). */
static int split_type_color(int split_type, tn_comm_t *c, tn_info_t *info,
                            const char **restype_p, const char **pset_p)
{
    const char *hw = info != NULL ? tn_info_get(info, "mpi_hw_resource_type") : NULL;
    const char *pset = info != NULL ? tn_info_get(info, "mpi_pset_name") : NULL;

    *restype_p = NULL;
    *pset_p = NULL;
    switch (split_type) {
    case MPI_COMM_TYPE_SHARED:
        return tn_rt.node_id;
    case MPI_COMM_TYPE_HW_UNGUIDED:
        *restype_p = TN_HW_RESOURCE_NODE;
        return tn_rt.node_id;
    case MPI_COMM_TYPE_HW_GUIDED:
        return split_hw_color(hw, restype_p);
    case MPI_COMM_TYPE_RESOURCE_GUIDED:
        if (hw != NULL || pset == NULL) {
            return split_hw_color(hw, restype_p);
        }
        /* the process sets every MPI process knows */
        if (strcmp(pset, "mpi://WORLD") == 0) {
            *pset_p = pset;
            return 0;
        }
        if (strcmp(pset, "mpi://SELF") == 0) {
            *pset_p = pset;
            return c->rank;
        }
        return MPI_UNDEFINED;
    default:
        return MPI_UNDEFINED;
    }
}

int tn_mpi_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                           MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_split_type";
    tn_comm_t *c = NULL, *nc = NULL;
    tn_info_t *i = NULL, *ni = NULL;
    const char *restype, *pset;
    tn_status_t st;
    int color, rc;

    /* an intercommunicator splits as MPI_Comm_split does one: the local
     * members of a type with the remote members of that type (as MPICH and
     * Open MPI do; MPI-4 does not rule it out) */
    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = info_arg(fn, c, info, "info", &i)) ||
        (rc = out_arg(fn, c, newcomm, "newcomm"))) {
        return rc;
    }
    switch (split_type) {
    case MPI_UNDEFINED:
    case MPI_COMM_TYPE_SHARED:
    case MPI_COMM_TYPE_HW_UNGUIDED:
    case MPI_COMM_TYPE_HW_GUIDED:
    case MPI_COMM_TYPE_RESOURCE_GUIDED:
        break;
    default:
        return tn_mpi_err(c, MPI_ERR_ARG, fn, "split_type",
                          "%d is not an MPI_COMM_TYPE_* value nor MPI_UNDEFINED", split_type);
    }
    tn_mpi_enter();
    color = split_type_color(split_type, c, i, &restype, &pset);
    st = c->remote != NULL ? tn_comm_inter_split(c, color, key, &nc)
                           : tn_comm_split(c, color, key, &nc);
    if (st == TN_OK && nc != NULL && split_type == MPI_COMM_TYPE_HW_UNGUIDED &&
        c->remote == NULL && nc->size == c->size) {
        /* Every member agrees (same node ids): the node does not split comm
         * and Tern knows no finer level, so there is no strict subset.  (Not
         * decided on an intercommunicator: the other group could not know.) */
        tn_comm_release(nc);
        nc = NULL;
    }
    if (st == TN_OK && nc != NULL && (restype != NULL || pset != NULL)) {
        st = tn_info_new(&ni);
        if (st == TN_OK) {
            st = restype != NULL ? tn_info_set(ni, "mpi_hw_resource_type", restype)
                                 : tn_info_set(ni, "mpi_pset_name", pset);
        }
        if (st == TN_OK) {
            nc->info = ni;
        } else {
            if (ni != NULL) {
                tn_info_release(ni);
            }
            tn_comm_release(nc);
            nc = NULL;
        }
    }
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
    rc = tn_mpi_comm_attr_delete_all(fn, c);
    if (rc != MPI_SUCCESS) {
        tn_mpi_leave();
        return rc;          /* the communicator stays, with what is left */
    }
    tn_mpi_comm_buffer_release(c);
    tn_comm_release(c);
    tn_mpi_leave();
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

static int disconnect_quiet(void *arg)
{
    return ((const tn_comm_t *)arg)->pending == 0;
}

/* MPI_Comm_free after the communication still going on on comm has
 * finished: sends and receives that have started and not completed,
 * requests the user freed included (not inactive persistent requests, which
 * also hold references), and sends buffered from comm's own buffer; then a
 * barrier, since it is collective. */
int tn_mpi_Comm_disconnect(MPI_Comm *comm)
{
    static const char fn[] = "MPI_Comm_disconnect";
    tn_comm_t *c = NULL;
    int rc;

    if ((rc = tn_mpi_check_init(fn)) || (rc = out_arg(fn, NULL, comm, "comm"))) {
        return rc;
    }
    if (*comm == MPI_COMM_NULL) {
        return tn_mpi_err(NULL, MPI_ERR_COMM, fn, "comm",
                          "MPI_COMM_NULL cannot be disconnected");
    }
    if ((rc = tn_mpi_check_comm(fn, *comm, &c))) {
        return rc;
    }
    if (c->predefined) {
        return tn_mpi_err(c, MPI_ERR_COMM, fn, "comm",
                          "%s is predefined and cannot be disconnected",
                          c == &tn_comm_world ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
    }
    tn_mpi_enter();
    tn_mpi_comm_buffer_release(c);
    if (!disconnect_quiet(c)) {
        tn_rt_wait(disconnect_quiet, c);
    }
    tn_status_t st = c->remote != NULL ? tn_coll_inter_barrier(c) : tn_coll_barrier(c);
    if (st != TN_OK) {
        tn_mpi_leave();
        return tn_mpi_err_status(c, st, fn);
    }
    rc = tn_mpi_comm_attr_delete_all(fn, c);
    if (rc != MPI_SUCCESS) {
        tn_mpi_leave();
        return rc;          /* the communicator stays, with what is left */
    }
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
    if ((a->remote == NULL) != (b->remote == NULL)) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    /* intercommunicators: the local groups and the remote groups both; with
     * IDENT 0, SIMILAR 1, UNEQUAL 2 the OR is the weaker of the two */
    switch (tn_group_compare(a->group, b->group) |
            (a->remote != NULL ? tn_group_compare(a->remote, b->remote) : 0)) {
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

    /* MPI_COMM_NULL has a name, as in MPICH and Open MPI */
    if (comm == MPI_COMM_NULL && comm_name != NULL && resultlen != NULL) {
        len = strlen("MPI_COMM_NULL");
        memcpy(comm_name, "MPI_COMM_NULL", len + 1);
        *resultlen = (int)len;
        return MPI_SUCCESS;
    }
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

int tn_mpi_Comm_test_inter(MPI_Comm comm, int *flag)
{
    static const char fn[] = "MPI_Comm_test_inter";
    tn_comm_t *c = NULL;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = out_arg(fn, c, flag, "flag"))) {
        return rc;
    }
    *flag = c->remote != NULL;
    return MPI_SUCCESS;
}
