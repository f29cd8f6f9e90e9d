/* MPI process topologies: Cartesian grids, graphs, distributed graphs
 * (MPI-5.0 chapter "Virtual Topologies for MPI Processes").  Argument
 * checks and error classes here; storage, arithmetic and the collective
 * constructors in comm/topo.c.
 *
 * Error classes: MPI_ERR_TOPOLOGY when the communicator lacks the topology
 * the call needs; MPI_ERR_DIMS for a negative ndims, a non-positive grid
 * dimension, or an MPI_Dims_create problem with no solution; MPI_ERR_RANK
 * for a rank out of range (including Cartesian coordinates off a
 * non-periodic dimension and graph edge endpoints); MPI_ERR_ARG for the
 * other bad arguments (NULL arrays, grids or graphs larger than the
 * communicator, bad index arrays, negative degrees or weights).
 *
 * reorder is accepted and ignored: ranks keep their order. */
#include <limits.h>
#include <string.h>
#include "mpi/mpi_impl.h"
#include "mpi/mpi_trace.h"
#include "mpi/mpi_info.h"
#include "comm/topo.h"

static int out_arg(const char *fn, tn_comm_t *c, const void *p, const char *arg)
{
    if (p == NULL) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, arg, "output argument is NULL");
    }
    return MPI_SUCCESS;
}

/* An array argument that must be there when it has n > 0 entries. */
static int array_arg(const char *fn, tn_comm_t *c, const void *p, int64_t n, const char *arg)
{
    if (p == NULL && n > 0) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, arg, "NULL array with %lld entries",
                          (long long)n);
    }
    return MPI_SUCCESS;
}

static int nonneg_arg(const char *fn, tn_comm_t *c, int v, const char *arg)
{
    if (v < 0) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, arg, "%d is negative", v);
    }
    return MPI_SUCCESS;
}

static const char *kind_name(const tn_topo_t *t)
{
    if (t == NULL) {
        return "no topology";
    }
    switch (t->kind) {
    case TN_TOPO_CART:
        return "a Cartesian topology";
    case TN_TOPO_GRAPH:
        return "a graph topology";
    default:
        return "a distributed graph topology";
    }
}

/* The communicator behind comm and its topology, which must be of kind. */
static int topo_arg(const char *fn, MPI_Comm comm, tn_topo_kind_t kind, tn_comm_t **c_p,
                    const tn_topo_t **t_p)
{
    static const char *const want[] = {
        [TN_TOPO_CART] = "a Cartesian topology",
        [TN_TOPO_GRAPH] = "a graph topology",
        [TN_TOPO_DIST_GRAPH] = "a distributed graph topology",
    };
    tn_comm_t *c = NULL;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c))) {
        return rc;
    }
    if (c->topo == NULL || c->topo->kind != kind) {
        return tn_mpi_err(c, MPI_ERR_TOPOLOGY, fn, "comm", "the communicator has %s, not %s",
                          kind_name(c->topo), want[kind]);
    }
    *c_p = c;
    *t_p = c->topo;
    return MPI_SUCCESS;
}

static int info_arg(const char *fn, tn_comm_t *c, MPI_Info info)
{
    if (info != MPI_INFO_NULL && tn_mpi_info_get(info) == NULL) {
        return tn_mpi_err(c, MPI_ERR_INFO, fn, "info", "invalid info handle");
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

/* ---- Cartesian ------------------------------------------------------------ */

/* Checks shared by MPI_Cart_create and MPI_Cart_map: ndims, dims[], the
 * grid no larger than the communicator; *n_p = the grid size. */
static int grid_args(const char *fn, tn_comm_t *c, int ndims, const int dims[],
                     int64_t *n_p)
{
    int64_t n;
    int i, rc;

    if (ndims < 0) {
        return tn_mpi_err(c, MPI_ERR_DIMS, fn, "ndims", "%d is negative", ndims);
    }
    if ((rc = array_arg(fn, c, dims, ndims, "dims"))) {
        return rc;
    }
    for (i = 0; i < ndims; i++) {
        if (dims[i] <= 0) {
            return tn_mpi_err(c, MPI_ERR_DIMS, fn, "dims", "dims[%d] = %d is not positive", i,
                              dims[i]);
        }
    }
    n = tn_topo_grid_size(ndims, dims);
    if (n < 0 || n > c->size) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, "dims",
                          "the grid has more processes than the communicator's %d",
                          c->size);
    }
    *n_p = n;
    return MPI_SUCCESS;
}

int tn_mpi_Dims_create(int nnodes, int ndims, int dims[])
{
    static const char fn[] = "MPI_Dims_create";
    tn_status_t st;
    int i, rc;

    if ((rc = tn_mpi_check_init(fn))) {
        return rc;
    }
    if (nnodes <= 0) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "nnodes", "%d is not positive", nnodes);
    }
    if (ndims < 0) {
        return tn_mpi_err(NULL, MPI_ERR_DIMS, fn, "ndims", "%d is negative", ndims);
    }
    if ((rc = array_arg(fn, NULL, dims, ndims, "dims"))) {
        return rc;
    }
    for (i = 0; i < ndims; i++) {
        if (dims[i] < 0) {
            return tn_mpi_err(NULL, MPI_ERR_DIMS, fn, "dims", "dims[%d] = %d is negative", i,
                              dims[i]);
        }
    }
    st = tn_topo_dims_create(nnodes, ndims, dims);
    if (st == TN_ERR_INVAL) {
        return tn_mpi_err(NULL, MPI_ERR_DIMS, fn, "dims",
                          "no grid of %d processes has the fixed (non-zero) dimensions given",
                          nnodes);
    }
    if (st != TN_OK) {
        return tn_mpi_err_status(NULL, st, fn);
    }
    return MPI_SUCCESS;
}

int tn_mpi_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                       int reorder, MPI_Comm *comm_cart)
{
    static const char fn[] = "MPI_Cart_create";
    tn_comm_t *c = NULL, *nc = NULL;
    tn_status_t st;
    int64_t n;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm_old, &c)) ||
        (rc = tn_mpi_check_intra(fn, c, "comm_old")) ||
        (rc = out_arg(fn, c, comm_cart, "comm_cart")) ||
        (rc = grid_args(fn, c, ndims, dims, &n)) ||
        (rc = array_arg(fn, c, periods, ndims, "periods"))) {
        return rc;
    }
    tn_mpi_enter();
    st = tn_topo_cart_create(c, ndims, dims, periods, &nc);
    tn_mpi_leave();
    return comm_out(fn, c, st, nc, comm_cart);
}

int tn_mpi_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                    int *newrank)
{
    static const char fn[] = "MPI_Cart_map";
    tn_comm_t *c = NULL;
    int64_t n;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = out_arg(fn, c, newrank, "newrank")) ||
        (rc = grid_args(fn, c, ndims, dims, &n))) {
        return rc;
    }
    *newrank = c->rank < n ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int tn_mpi_Cartdim_get(MPI_Comm comm, int *ndims)
{
    static const char fn[] = "MPI_Cartdim_get";
    tn_comm_t *c = NULL;
    const tn_topo_t *t = NULL;
    int rc;

    if ((rc = topo_arg(fn, comm, TN_TOPO_CART, &c, &t)) ||
        (rc = out_arg(fn, c, ndims, "ndims"))) {
        return rc;
    }
    *ndims = t->u.cart.ndims;
    return MPI_SUCCESS;
}

int tn_mpi_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    static const char fn[] = "MPI_Cart_get";
    tn_comm_t *c = NULL;
    const tn_topo_t *t = NULL;
    int n, rc;

    if ((rc = topo_arg(fn, comm, TN_TOPO_CART, &c, &t)) ||
        (rc = nonneg_arg(fn, c, maxdims, "maxdims"))) {
        return rc;
    }
    n = maxdims < t->u.cart.ndims ? maxdims : t->u.cart.ndims;
    if ((rc = array_arg(fn, c, dims, n, "dims")) ||
        (rc = array_arg(fn, c, periods, n, "periods")) ||
        (rc = array_arg(fn, c, coords, n, "coords"))) {
        return rc;
    }
    if (n > 0) {
        memcpy(dims, t->u.cart.dims, (size_t)n * sizeof(int));
        memcpy(periods, t->u.cart.periods, (size_t)n * sizeof(int));
        memcpy(coords, t->u.cart.coords, (size_t)n * sizeof(int));
    }
    return MPI_SUCCESS;
}

int tn_mpi_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    static const char fn[] = "MPI_Cart_rank";
    tn_comm_t *c = NULL;
    const tn_topo_t *t = NULL;
    int r = 0, bad = 0, rc;

    if ((rc = topo_arg(fn, comm, TN_TOPO_CART, &c, &t)) ||
        (rc = out_arg(fn, c, rank, "rank")) ||
        (rc = array_arg(fn, c, coords, t->u.cart.ndims, "coords"))) {
        return rc;
    }
    if (tn_topo_cart_rank(t, coords, &r, &bad) != TN_OK) {
        return tn_mpi_err(c, MPI_ERR_RANK, fn, "coords",
                          "coords[%d] = %d is outside [0, %d) of a non-periodic dimension",
                          bad, coords[bad], t->u.cart.dims[bad]);
    }
    *rank = r;
    return MPI_SUCCESS;
}

int tn_mpi_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    static const char fn[] = "MPI_Cart_coords";
    tn_comm_t *c = NULL;
    const tn_topo_t *t = NULL;
    int rc;

    if ((rc = topo_arg(fn, comm, TN_TOPO_CART, &c, &t)) ||
        (rc = tn_mpi_check_rank(fn, c, rank, "rank", 0)) ||
        (rc = nonneg_arg(fn, c, maxdims, "maxdims")) ||
        (rc = array_arg(fn, c, coords, maxdims < t->u.cart.ndims ? maxdims : t->u.cart.ndims,
                        "coords"))) {
        return rc;
    }
    tn_topo_cart_coords(t, rank, maxdims, coords);
    return MPI_SUCCESS;
}

int tn_mpi_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source,
                      int *rank_dest)
{
    static const char fn[] = "MPI_Cart_shift";
    tn_comm_t *c = NULL;
    const tn_topo_t *t = NULL;
    int src, dst, rc;

    if ((rc = topo_arg(fn, comm, TN_TOPO_CART, &c, &t)) ||
        (rc = out_arg(fn, c, rank_source, "rank_source")) ||
        (rc = out_arg(fn, c, rank_dest, "rank_dest"))) {
        return rc;
    }
    if (direction < 0 || direction >= t->u.cart.ndims) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, "direction",
                          "%d is not a dimension of the %d-dimensional grid", direction,
                          t->u.cart.ndims);
    }
    tn_topo_cart_shift(t, direction, disp, &src, &dst);
    *rank_source = src;
    *rank_dest = dst;
    return MPI_SUCCESS;
}

int tn_mpi_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Cart_sub";
    tn_comm_t *c = NULL, *nc = NULL;
    const tn_topo_t *t = NULL;
    tn_status_t st;
    int rc;

    if ((rc = topo_arg(fn, comm, TN_TOPO_CART, &c, &t)) ||
        (rc = out_arg(fn, c, newcomm, "newcomm")) ||
        (rc = array_arg(fn, c, remain_dims, t->u.cart.ndims, "remain_dims"))) {
        return rc;
    }
    tn_mpi_enter();
    st = tn_topo_cart_sub(c, remain_dims, &nc);
    tn_mpi_leave();
    return comm_out(fn, c, st, nc, newcomm);
}

/* ---- graphs ----------------------------------------------------------------- */

/* Checks shared by MPI_Graph_create and MPI_Graph_map. */
static int graph_args(const char *fn, tn_comm_t *c, int nnodes, const int indx[],
                      const int edges[])
{
    int nedges, i, rc;

    if (nnodes < 0 || nnodes > c->size) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, "nnodes", "%d is not in [0, %d]", nnodes,
                          c->size);
    }
    if ((rc = array_arg(fn, c, indx, nnodes, "indx"))) {
        return rc;
    }
    for (i = 0; i < nnodes; i++) {
        if (indx[i] < (i > 0 ? indx[i - 1] : 0)) {
            return tn_mpi_err(c, MPI_ERR_ARG, fn, "indx",
                              "indx[%d] = %d is below %s (%d): degrees cannot be negative", i,
                              indx[i], i > 0 ? "indx[i-1]" : "0", i > 0 ? indx[i - 1] : 0);
        }
    }
    nedges = nnodes > 0 ? indx[nnodes - 1] : 0;
    if ((rc = array_arg(fn, c, edges, nedges, "edges"))) {
        return rc;
    }
    for (i = 0; i < nedges; i++) {
        if (edges[i] < 0 || edges[i] >= nnodes) {
            return tn_mpi_err(c, MPI_ERR_RANK, fn, "edges",
                              "edges[%d] = %d is not a node of [0, %d)", i, edges[i], nnodes);
        }
    }
    return MPI_SUCCESS;
}

int tn_mpi_Graph_create(MPI_Comm comm_old, int nnodes, const int indx[], const int edges[],
                        int reorder, MPI_Comm *comm_graph)
{
    static const char fn[] = "MPI_Graph_create";
    tn_comm_t *c = NULL, *nc = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm_old, &c)) ||
        (rc = tn_mpi_check_intra(fn, c, "comm_old")) ||
        (rc = out_arg(fn, c, comm_graph, "comm_graph")) ||
        (rc = graph_args(fn, c, nnodes, indx, edges))) {
        return rc;
    }
    tn_mpi_enter();
    st = tn_topo_graph_create(c, nnodes, indx, edges, &nc);
    tn_mpi_leave();
    return comm_out(fn, c, st, nc, comm_graph);
}

int tn_mpi_Graph_map(MPI_Comm comm, int nnodes, const int indx[], const int edges[],
                     int *newrank)
{
    static const char fn[] = "MPI_Graph_map";
    tn_comm_t *c = NULL;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = out_arg(fn, c, newrank, "newrank")) ||
        (rc = graph_args(fn, c, nnodes, indx, edges))) {
        return rc;
    }
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int tn_mpi_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    static const char fn[] = "MPI_Graphdims_get";
    tn_comm_t *c = NULL;
    const tn_topo_t *t = NULL;
    int rc;

    if ((rc = topo_arg(fn, comm, TN_TOPO_GRAPH, &c, &t)) ||
        (rc = out_arg(fn, c, nnodes, "nnodes")) || (rc = out_arg(fn, c, nedges, "nedges"))) {
        return rc;
    }
    *nnodes = t->u.graph.nnodes;
    *nedges = t->u.graph.index[t->u.graph.nnodes - 1];
    return MPI_SUCCESS;
}

int tn_mpi_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int indx[], int edges[])
{
    static const char fn[] = "MPI_Graph_get";
    tn_comm_t *c = NULL;
    const tn_topo_t *t = NULL;
    int ni, ne, rc;

    if ((rc = topo_arg(fn, comm, TN_TOPO_GRAPH, &c, &t)) ||
        (rc = nonneg_arg(fn, c, maxindex, "maxindex")) ||
        (rc = nonneg_arg(fn, c, maxedges, "maxedges"))) {
        return rc;
    }
    ni = maxindex < t->u.graph.nnodes ? maxindex : t->u.graph.nnodes;
    ne = t->u.graph.index[t->u.graph.nnodes - 1];
    ne = maxedges < ne ? maxedges : ne;
    if ((rc = array_arg(fn, c, indx, ni, "indx")) || (rc = array_arg(fn, c, edges, ne, "edges"))) {
        return rc;
    }
    if (ni > 0) {
        memcpy(indx, t->u.graph.index, (size_t)ni * sizeof(int));
    }
    if (ne > 0) {
        memcpy(edges, t->u.graph.edges, (size_t)ne * sizeof(int));
    }
    return MPI_SUCCESS;
}

int tn_mpi_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    static const char fn[] = "MPI_Graph_neighbors_count";
    tn_comm_t *c = NULL;
    const tn_topo_t *t = NULL;
    int rc;

    if ((rc = topo_arg(fn, comm, TN_TOPO_GRAPH, &c, &t)) ||
        (rc = tn_mpi_check_rank(fn, c, rank, "rank", 0)) ||
        (rc = out_arg(fn, c, nneighbors, "nneighbors"))) {
        return rc;
    }
    *nneighbors = tn_topo_graph_degree(t, rank);
    return MPI_SUCCESS;
}

int tn_mpi_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    static const char fn[] = "MPI_Graph_neighbors";
    tn_comm_t *c = NULL;
    const tn_topo_t *t = NULL;
    int n, rc;

    if ((rc = topo_arg(fn, comm, TN_TOPO_GRAPH, &c, &t)) ||
        (rc = tn_mpi_check_rank(fn, c, rank, "rank", 0)) ||
        (rc = nonneg_arg(fn, c, maxneighbors, "maxneighbors"))) {
        return rc;
    }
    n = tn_topo_graph_degree(t, rank);
    n = maxneighbors < n ? maxneighbors : n;
    if ((rc = array_arg(fn, c, neighbors, n, "neighbors"))) {
        return rc;
    }
    if (n > 0) {
        memcpy(neighbors, tn_topo_graph_adj(t, rank), (size_t)n * sizeof(int));
    }
    return MPI_SUCCESS;
}

/* ---- distributed graphs ----------------------------------------------------- */

/* Process ranks of a distributed graph edge list. */
static int ranks_arg(const char *fn, tn_comm_t *c, const int *r, int64_t n, const char *arg)
{
    int64_t i;

    for (i = 0; i < n; i++) {
        if (r[i] < 0 || r[i] >= c->size) {
            return tn_mpi_err(c, MPI_ERR_RANK, fn, arg, "%s[%lld] = %d is not in [0, %d)", arg,
                              (long long)i, r[i], c->size);
        }
    }
    return MPI_SUCCESS;
}

/* A weight argument for n edges: *kind_p = 1 for MPI_UNWEIGHTED, 0 for
 * weights given, -1 for none at all (MPI_WEIGHTS_EMPTY, or NULL, with no
 * edge). */
static int weights_arg(const char *fn, tn_comm_t *c, const int *w, int64_t n, const char *arg,
                       int *kind_p)
{
    int64_t i;

    if (w == MPI_UNWEIGHTED) {
        *kind_p = 1;
        return MPI_SUCCESS;
    }
    if (w == MPI_WEIGHTS_EMPTY || w == NULL) {
        if (n > 0) {
            return tn_mpi_err(c, MPI_ERR_ARG, fn, arg, "%s with %lld edges",
                              w == NULL ? "NULL" : "MPI_WEIGHTS_EMPTY", (long long)n);
        }
        *kind_p = -1;
        return MPI_SUCCESS;
    }
    for (i = 0; i < n; i++) {
        if (w[i] < 0) {
            return tn_mpi_err(c, MPI_ERR_ARG, fn, arg, "%s[%lld] = %d is negative", arg,
                              (long long)i, w[i]);
        }
    }
    *kind_p = 0;
    return MPI_SUCCESS;
}

int tn_mpi_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                      const int *sourceweights, int outdegree,
                                      const int destinations[], const int *destweights,
                                      MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    static const char fn[] = "MPI_Dist_graph_create_adjacent";
    tn_comm_t *c = NULL, *nc = NULL;
    int sk = 0, dk = 0, rc;
    tn_status_t st;

    if ((rc = tn_mpi_check_comm(fn, comm_old, &c)) ||
        (rc = tn_mpi_check_intra(fn, c, "comm_old")) ||
        (rc = out_arg(fn, c, comm_dist_graph, "comm_dist_graph")) ||
        (rc = nonneg_arg(fn, c, indegree, "indegree")) ||
        (rc = nonneg_arg(fn, c, outdegree, "outdegree")) ||
        (rc = array_arg(fn, c, sources, indegree, "sources")) ||
        (rc = array_arg(fn, c, destinations, outdegree, "destinations")) ||
        (rc = ranks_arg(fn, c, sources, indegree, "sources")) ||
        (rc = ranks_arg(fn, c, destinations, outdegree, "destinations")) ||
        (rc = weights_arg(fn, c, sourceweights, indegree, "sourceweights", &sk)) ||
        (rc = weights_arg(fn, c, destweights, outdegree, "destweights", &dk)) ||
        (rc = info_arg(fn, c, info))) {
        return rc;
    }
    if ((sk == 1 && dk == 0) || (sk == 0 && dk == 1)) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, sk == 1 ? "sourceweights" : "destweights",
                          "MPI_UNWEIGHTED for one direction and weights for the other");
    }
    tn_mpi_enter();
    st = tn_topo_dist_adjacent_create(c, indegree, sources, sk == 0 ? sourceweights : NULL,
                                      outdegree, destinations, dk == 0 ? destweights : NULL,
                                      sk != 1 && dk != 1, &nc);
    tn_mpi_leave();
    return comm_out(fn, c, st, nc, comm_dist_graph);
}

int tn_mpi_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                             const int destinations[], const int *weights, MPI_Info info,
                             int reorder, MPI_Comm *comm_dist_graph)
{
    static const char fn[] = "MPI_Dist_graph_create";
    tn_comm_t *c = NULL, *nc = NULL;
    int64_t nedges = 0;
    int i, wk = 0, rc;
    tn_status_t st;

    if ((rc = tn_mpi_check_comm(fn, comm_old, &c)) ||
        (rc = tn_mpi_check_intra(fn, c, "comm_old")) ||
        (rc = out_arg(fn, c, comm_dist_graph, "comm_dist_graph")) ||
        (rc = nonneg_arg(fn, c, n, "n")) || (rc = array_arg(fn, c, sources, n, "sources")) ||
        (rc = array_arg(fn, c, degrees, n, "degrees")) ||
        (rc = ranks_arg(fn, c, sources, n, "sources"))) {
        return rc;
    }
    for (i = 0; i < n; i++) {
        if (degrees[i] < 0) {
            return tn_mpi_err(c, MPI_ERR_ARG, fn, "degrees", "degrees[%d] = %d is negative", i,
                              degrees[i]);
        }
        nedges += degrees[i];
    }
    if (nedges > INT_MAX) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, "degrees", "%lld edges in all: more than %d",
                          (long long)nedges, INT_MAX);
    }
    if ((rc = array_arg(fn, c, destinations, nedges, "destinations")) ||
        (rc = ranks_arg(fn, c, destinations, nedges, "destinations")) ||
        (rc = weights_arg(fn, c, weights, nedges, "weights", &wk)) ||
        (rc = info_arg(fn, c, info))) {
        return rc;
    }
    tn_mpi_enter();
    st = tn_topo_dist_create(c, n, sources, degrees, destinations, wk == 0 ? weights : NULL,
                             wk == 1, &nc);
    tn_mpi_leave();
    return comm_out(fn, c, st, nc, comm_dist_graph);
}

int tn_mpi_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree,
                                      int *weighted)
{
    static const char fn[] = "MPI_Dist_graph_neighbors_count";
    tn_comm_t *c = NULL;
    const tn_topo_t *t = NULL;
    int rc;

    if ((rc = topo_arg(fn, comm, TN_TOPO_DIST_GRAPH, &c, &t)) ||
        (rc = out_arg(fn, c, indegree, "indegree")) ||
        (rc = out_arg(fn, c, outdegree, "outdegree")) ||
        (rc = out_arg(fn, c, weighted, "weighted"))) {
        return rc;
    }
    *indegree = t->u.dist.indegree;
    *outdegree = t->u.dist.outdegree;
    *weighted = t->u.dist.weighted;
    return MPI_SUCCESS;
}

/* Is w an array to write n weights into?  The sentinels mean "no". */
static int weights_out(const char *fn, tn_comm_t *c, const int *w, int n, const char *arg,
                       int *write_p)
{
    *write_p = 0;
    if (w == MPI_UNWEIGHTED || w == MPI_WEIGHTS_EMPTY || n == 0) {
        return MPI_SUCCESS;
    }
    if (w == NULL) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, arg, "NULL array for %d weights of a weighted "
                          "graph (MPI_UNWEIGHTED skips them)", n);
    }
    *write_p = 1;
    return MPI_SUCCESS;
}

int tn_mpi_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
                                int *sourceweights, int maxoutdegree, int destinations[],
                                int *destweights)
{
    static const char fn[] = "MPI_Dist_graph_neighbors";
    tn_comm_t *c = NULL;
    const tn_topo_t *t = NULL;
    int ni, no, ws = 0, wd = 0, rc;

    if ((rc = topo_arg(fn, comm, TN_TOPO_DIST_GRAPH, &c, &t)) ||
        (rc = nonneg_arg(fn, c, maxindegree, "maxindegree")) ||
        (rc = nonneg_arg(fn, c, maxoutdegree, "maxoutdegree"))) {
        return rc;
    }
    ni = maxindegree < t->u.dist.indegree ? maxindegree : t->u.dist.indegree;
    no = maxoutdegree < t->u.dist.outdegree ? maxoutdegree : t->u.dist.outdegree;
    if ((rc = array_arg(fn, c, sources, ni, "sources")) ||
        (rc = array_arg(fn, c, destinations, no, "destinations"))) {
        return rc;
    }
    /* an unweighted graph leaves the weight arrays alone */
    if (t->u.dist.weighted &&
        ((rc = weights_out(fn, c, sourceweights, ni, "sourceweights", &ws)) ||
         (rc = weights_out(fn, c, destweights, no, "destweights", &wd)))) {
        return rc;
    }
    if (ni > 0) {
        memcpy(sources, t->u.dist.sources, (size_t)ni * sizeof(int));
    }
    if (no > 0) {
        memcpy(destinations, t->u.dist.dests, (size_t)no * sizeof(int));
    }
    if (ws && ni > 0) {
        memcpy(sourceweights, t->u.dist.sweights, (size_t)ni * sizeof(int));
    }
    if (wd && no > 0) {
        memcpy(destweights, t->u.dist.dweights, (size_t)no * sizeof(int));
    }
    return MPI_SUCCESS;
}

/* ---- any topology ------------------------------------------------------------ */

int tn_mpi_Topo_test(MPI_Comm comm, int *status)
{
    static const char fn[] = "MPI_Topo_test";
    tn_comm_t *c = NULL;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = out_arg(fn, c, status, "status"))) {
        return rc;
    }
    if (c->topo == NULL) {
        *status = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    switch (c->topo->kind) {
    case TN_TOPO_CART:
        *status = MPI_CART;
        break;
    case TN_TOPO_GRAPH:
        *status = MPI_GRAPH;
        break;
    default:
        *status = MPI_DIST_GRAPH;
        break;
    }
    return MPI_SUCCESS;
}
