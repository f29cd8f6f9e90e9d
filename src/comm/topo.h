/* Process topologies: Cartesian grids, graphs and distributed graphs
 * attached to a communicator (tn_comm_t.topo).
 *
 * A topology is one immutable block (struct + its int arrays in a single
 * allocation), owned by exactly one communicator: tn_topo_free releases it
 * with the communicator, tn_topo_dup gives a communicator duplicate its own
 * copy (MPI_Comm_dup keeps the topology).
 *
 * Ranks.  Reordering is never done: rank r of the topology communicator is
 * rank r of the parent.  A Cartesian grid numbers its processes in row-major
 * order (the last dimension varies fastest); a graph's node i is rank i.
 *
 * Constructors (tn_topo_*_create, tn_topo_cart_sub) are collective over the
 * parent, like the communicator constructors of comm.h, and take their
 * arguments already checked by the MPI layer: ranks in range, degrees and
 * dimensions non-negative, the grid or graph no larger than the parent.
 * They return TN_OK with *comm_p = the new communicator (with its topology),
 * or NULL on a process that is not part of it; TN_ERR_NOMEM or the error of
 * the underlying messages otherwise.  Called with the progress lock held.
 *
 * Nothing here knows MPI constants: no MPI_PROC_NULL / MPI_UNDEFINED leak in
 * except through TN_TOPO_PROC_NULL (== MPI_PROC_NULL's ABI value). */
#ifndef TN_COMM_TOPO_H
#define TN_COMM_TOPO_H

#include <stddef.h>
#include <stdint.h>
#include "base/status.h"
#include "comm/comm.h"

/* MPI_PROC_NULL of the standard ABI: the "no neighbour" of a Cartesian shift. */
#define TN_TOPO_PROC_NULL (-3)

typedef enum {
    TN_TOPO_CART = 1,
    TN_TOPO_GRAPH = 2,
    TN_TOPO_DIST_GRAPH = 3,
} tn_topo_kind_t;

typedef struct tn_topo {
    tn_topo_kind_t kind;
    union {
        struct {
            int  ndims;          /* 0 allowed: a one-process grid */
            int *dims;           /* [ndims] */
            int *periods;        /* [ndims], 0 or 1 */
            int *coords;         /* [ndims], of the calling process */
        } cart;
        struct {
            int  nnodes;
            int *index;          /* [nnodes], cumulative degrees (MPI's layout) */
            int *edges;          /* [index[nnodes-1]] */
        } graph;
        struct {
            int  indegree, outdegree;
            int  weighted;       /* 0 when created with MPI_UNWEIGHTED */
            int *sources;        /* [indegree] */
            int *sweights;       /* [indegree]; all 1 when unweighted */
            int *dests;          /* [outdegree] */
            int *dweights;       /* [outdegree]; all 1 when unweighted */
        } dist;
    } u;
    size_t nints;                /* length of data */
    int  data[];                 /* every array above points in here */
} tn_topo_t;

/* A topology of kind with its arrays laid out for a, b (cart: ndims;
 * graph: nnodes, nedges; dist: indegree, outdegree), zeroed header, the
 * arrays unset; NULL when out of memory. */
tn_topo_t *tn_topo_alloc(tn_topo_kind_t kind, int a, int b);
/* Copy n ints; from may be NULL when n is 0 (MPI allows empty lists). */
void tn_topo_ints(int *to, const int *from, int n);
/* Free a topology (NULL is fine). */
void tn_topo_free(struct tn_topo *t);
/* A copy of t, or NULL when t is NULL or memory is short. */
struct tn_topo *tn_topo_dup(const struct tn_topo *t);

/* ---- Cartesian arithmetic: no communication ----------------------------- */

/* MPI_Dims_create: fill the zero entries of dims[ndims] so that the product
 * of all entries is nnodes and the filled entries are as close to each other
 * as possible (smallest max - min, then smallest largest entry), written in
 * non-increasing order.  Non-zero entries are kept.  The caller has checked
 * nnodes > 0, ndims >= 0 and no negative entry.  TN_ERR_INVAL (dims
 * untouched) when nnodes is not a multiple of the product of the fixed
 * entries, or no entry is free and that product is not nnodes. */
tn_status_t tn_topo_dims_create(int nnodes, int ndims, int *dims);

/* Number of processes of a grid (product of dims, 1 for ndims == 0), or -1
 * when it exceeds INT32_MAX. */
int64_t tn_topo_grid_size(int ndims, const int *dims);

/* Rank of coords[ndims] in the Cartesian topology t: periodic dimensions
 * wrap.  TN_ERR_INVAL with *bad_dim_p = the dimension when a coordinate of
 * a non-periodic dimension is outside [0, dims[i]). */
tn_status_t tn_topo_cart_rank(const tn_topo_t *t, const int *coords, int *rank_p,
                              int *bad_dim_p);
/* Coordinates of rank (in [0, grid size)); writes min(maxdims, ndims). */
void tn_topo_cart_coords(const tn_topo_t *t, int rank, int maxdims, int *coords);
/* MPI_Cart_shift for the calling process: TN_TOPO_PROC_NULL past the edge
 * of a non-periodic dimension.  0 <= dir < ndims. */
void tn_topo_cart_shift(const tn_topo_t *t, int dir, int disp, int *src_p, int *dst_p);

/* Neighbours of graph node rank (0 <= rank < nnodes). */
static inline int tn_topo_graph_degree(const tn_topo_t *t, int rank)
{
    return t->u.graph.index[rank] - (rank > 0 ? t->u.graph.index[rank - 1] : 0);
}
static inline const int *tn_topo_graph_adj(const tn_topo_t *t, int rank)
{
    return t->u.graph.edges + (rank > 0 ? t->u.graph.index[rank - 1] : 0);
}

/* Neighbourhood of the calling process in the order the neighbourhood
 * collectives use: Cartesian, for each dimension the source then the
 * destination of a shift by 1 (TN_TOPO_PROC_NULL at a non-periodic edge),
 * for in- and out-neighbours alike; graph, the adjacency list of the node
 * both ways; distributed graph, sources and destinations.  Counts only when
 * the arrays are NULL; otherwise they must hold *indeg_p / *outdeg_p. */
void tn_topo_neighbors(const tn_topo_t *t, int rank, int *indeg_p, int *outdeg_p,
                       int *sources, int *dests);

/* ---- constructors: collective over the parent ---------------------------- */

/* MPI_Cart_create without reordering: ranks [0, product of dims) of parent
 * form the grid.  periods may be NULL when ndims == 0. */
tn_status_t tn_topo_cart_create(tn_comm_t *parent, int ndims, const int *dims,
                                const int *periods, tn_comm_t **comm_p);
/* MPI_Cart_sub: cart has a Cartesian topology; remain[i] != 0 keeps
 * dimension i.  Every process gets a communicator (ndims 0 when nothing
 * remains). */
tn_status_t tn_topo_cart_sub(tn_comm_t *cart, const int *remain, tn_comm_t **comm_p);
/* MPI_Graph_create without reordering: ranks [0, nnodes) form the graph;
 * nnodes == 0 gives NULL everywhere without communicating.  index and
 * edges describe a valid graph (non-decreasing index, edges in range). */
tn_status_t tn_topo_graph_create(tn_comm_t *parent, int nnodes, const int *index,
                                 const int *edges, tn_comm_t **comm_p);
/* MPI_Dist_graph_create_adjacent: every process of parent gets the new
 * communicator.  weighted == 0: the weight arrays are ignored; otherwise
 * they hold indegree / outdegree non-negative weights (NULL when the degree
 * is 0).  Lists are kept in the order given. */
tn_status_t tn_topo_dist_adjacent_create(tn_comm_t *parent, int indegree,
                                         const int *sources, const int *sweights,
                                         int outdegree, const int *dests,
                                         const int *dweights, int weighted,
                                         tn_comm_t **comm_p);
/* MPI_Dist_graph_create: this process contributes, for each i < n, the
 * edges sources[i] -> dests[k] (degrees[i] consecutive entries of dests and
 * weights).  unweighted != 0: this process gave MPI_UNWEIGHTED (weights is
 * ignored); otherwise weights holds one non-negative weight per edge (NULL
 * when it contributes no edge).  The graph is weighted when a process that
 * contributes edges gives weights, unweighted when none does and some
 * process says MPI_UNWEIGHTED (mixing the two is erroneous in MPI; the
 * unweighted edges then weigh 1).  One allgather of (largest block, vote)
 * and one all-to-all of fixed-size blocks move each edge to both of its
 * ends.  A process's neighbours are ordered by the rank that contributed
 * the edge, then by that rank's order. */
tn_status_t tn_topo_dist_create(tn_comm_t *parent, int n, const int *sources,
                                const int *degrees, const int *dests,
                                const int *weights, int unweighted, tn_comm_t **comm_p);

#endif
