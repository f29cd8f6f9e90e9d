/* Process topologies (see topo.h): the collective constructors (storage,
 * arithmetic and neighbour lists are in topo_grid.c).
 *
 * A topology communicator is made like any other communicator (comm.h)
 * and gets its topology attached afterwards.  The constructors create the
 * communicator over the parent's group or a prefix of it, never with
 * tn_comm_dup, so that they do not depend on whether dup copies topologies. */
#include <stdlib.h>
#include <string.h>
#include "comm/topo.h"
#include "coll/coll.h"
#include "dt/dt.h"

/* Give comm its topology, replacing any it has. */
static void topo_attach(tn_comm_t *comm, tn_topo_t *t)
{
    tn_topo_free(comm->topo);
    comm->topo = t;
}

/* ---- constructors --------------------------------------------------------- */

/* The communicator of parent's ranks [0, n): *comm_p NULL on the others. */
static tn_status_t comm_prefix(tn_comm_t *parent, int n, tn_comm_t **comm_p)
{
    tn_group_t *g = NULL;
    tn_status_t st;

    if (n == parent->size) {
        return tn_comm_create_from_group(parent, parent->group, comm_p);
    }
    st = tn_group_from_world_list(n, parent->group->world, &g);
    if (st != TN_OK) {
        return st;
    }
    st = tn_comm_create_from_group(parent, g, comm_p);
    tn_group_release(g);
    return st;
}

/* Attach t to *comm_p, or when t is NULL (out of memory) drop the
 * communicator: the collective part is over, so failing is safe here. */
static tn_status_t attach_or_drop(tn_comm_t **comm_p, tn_topo_t *t)
{
    if (t == NULL) {
        tn_comm_release(*comm_p);
        *comm_p = NULL;
        return TN_ERR_NOMEM;
    }
    topo_attach(*comm_p, t);
    return TN_OK;
}

tn_status_t tn_topo_cart_create(tn_comm_t *parent, int ndims, const int *dims,
                                const int *periods, tn_comm_t **comm_p)
{
    int64_t n = tn_topo_grid_size(ndims, dims);
    tn_comm_t *nc = NULL;
    tn_topo_t *t;
    tn_status_t st;
    int i;

    st = comm_prefix(parent, (int)n, &nc);
    if (st != TN_OK || nc == NULL) {
        *comm_p = NULL;
        return st;
    }
    t = tn_topo_alloc(TN_TOPO_CART, ndims, 0);
    if (t != NULL) {
        for (i = 0; i < ndims; i++) {
            t->u.cart.dims[i] = dims[i];
            t->u.cart.periods[i] = periods[i] != 0;
        }
        tn_topo_cart_coords(t, nc->rank, ndims, t->u.cart.coords);
    }
    st = attach_or_drop(&nc, t);
    *comm_p = nc;
    return st;
}

tn_status_t tn_topo_cart_sub(tn_comm_t *cart, const int *remain, tn_comm_t **comm_p)
{
    const tn_topo_t *t = cart->topo;
    int ndims = t->u.cart.ndims;
    tn_comm_t *nc = NULL;
    tn_topo_t *nt;
    int64_t color = 0;
    int i, k = 0;
    tn_status_t st;

    /* processes that agree on every dropped coordinate share a subgrid;
     * ordering by parent rank keeps the kept coordinates row-major */
    for (i = 0; i < ndims; i++) {
        if (!remain[i]) {
            color = color * t->u.cart.dims[i] + t->u.cart.coords[i];
        } else {
            k++;
        }
    }
    st = tn_comm_split(cart, (int)color, cart->rank, &nc);
    if (st != TN_OK || nc == NULL) {
        *comm_p = NULL;
        return st;
    }
    nt = tn_topo_alloc(TN_TOPO_CART, k, 0);
    if (nt != NULL) {
        for (i = 0, k = 0; i < ndims; i++) {
            if (remain[i]) {
                nt->u.cart.dims[k] = t->u.cart.dims[i];
                nt->u.cart.periods[k] = t->u.cart.periods[i];
                nt->u.cart.coords[k] = t->u.cart.coords[i];
                k++;
            }
        }
    }
    st = attach_or_drop(&nc, nt);
    *comm_p = nc;
    return st;
}

tn_status_t tn_topo_graph_create(tn_comm_t *parent, int nnodes, const int *index,
                                 const int *edges, tn_comm_t **comm_p)
{
    int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
    tn_comm_t *nc = NULL;
    tn_topo_t *t;
    tn_status_t st;

    *comm_p = NULL;
    if (nnodes == 0) {
        return TN_OK;     /* MPI: MPI_COMM_NULL everywhere */
    }
    st = comm_prefix(parent, nnodes, &nc);
    if (st != TN_OK || nc == NULL) {
        return st;
    }
    t = tn_topo_alloc(TN_TOPO_GRAPH, nnodes, nedges);
    if (t != NULL) {
        tn_topo_ints(t->u.graph.index, index, nnodes);
        tn_topo_ints(t->u.graph.edges, edges, nedges);
    }
    st = attach_or_drop(&nc, t);
    *comm_p = nc;
    return st;
}

static void copy_or_ones(int *to, const int *from, int n)
{
    int i;

    for (i = 0; i < n; i++) {
        to[i] = from != NULL ? from[i] : 1;
    }
}

tn_status_t tn_topo_dist_adjacent_create(tn_comm_t *parent, int indegree,
                                         const int *sources, const int *sweights,
                                         int outdegree, const int *dests,
                                         const int *dweights, int weighted,
                                         tn_comm_t **comm_p)
{
    tn_comm_t *nc = NULL;
    tn_topo_t *t;
    tn_status_t st;

    st = tn_comm_create_from_group(parent, parent->group, &nc);
    if (st != TN_OK) {
        *comm_p = NULL;
        return st;
    }
    t = tn_topo_alloc(TN_TOPO_DIST_GRAPH, indegree, outdegree);
    if (t != NULL) {
        t->u.dist.weighted = weighted != 0;
        tn_topo_ints(t->u.dist.sources, sources, indegree);
        tn_topo_ints(t->u.dist.dests, dests, outdegree);
        copy_or_ones(t->u.dist.sweights, weighted ? sweights : NULL, indegree);
        copy_or_ones(t->u.dist.dweights, weighted ? dweights : NULL, outdegree);
    }
    st = attach_or_drop(&nc, t);
    *comm_p = nc;
    return st;
}

/* The all-to-all of MPI_Dist_graph_create carries, from every process to
 * every process, one block of 1 + 3 * max ints: the number of entries, then
 * (direction, peer, weight) triples.  An edge s -> d of weight w becomes
 * (DIST_OUT, d, w) for s and (DIST_IN, s, w) for d. */
enum { DIST_IN = 0, DIST_OUT = 1 };
/* Weight votes exchanged by the allgather. */
enum { VOTE_UNWEIGHTED = 0, VOTE_WEIGHTED = 1, VOTE_NONE = 2 };

tn_status_t tn_topo_dist_create(tn_comm_t *parent, int n, const int *sources,
                                const int *degrees, const int *dests,
                                const int *weights, int unweighted, tn_comm_t **comm_p)
{
    const tn_dt_t *byte = tn_dt_byte();
    int size = parent->size;
    int *cnt = NULL, *all = NULL, *sbuf = NULL, *rbuf = NULL;
    int mine[2], maxcnt = 0, gmax = 0, any_w = 0, any_u = 0;
    int64_t nedges = 0;
    size_t block;
    int indeg = 0, outdeg = 0, i, j, e;
    tn_comm_t *nc = NULL;
    tn_topo_t *t = NULL;
    tn_status_t st;

    *comm_p = NULL;
    cnt = calloc((size_t)size, sizeof(int));
    all = malloc(2 * (size_t)size * sizeof(int));
    if (cnt == NULL || all == NULL) {
        st = TN_ERR_NOMEM;
        goto out;
    }
    for (i = 0, e = 0; i < n; i++) {
        for (j = 0; j < degrees[i]; j++, e++) {
            cnt[sources[i]]++;
            cnt[dests[e]]++;
        }
    }
    nedges = e;
    for (i = 0; i < size; i++) {
        maxcnt = cnt[i] > maxcnt ? cnt[i] : maxcnt;
    }
    mine[0] = maxcnt;
    mine[1] = unweighted ? VOTE_UNWEIGHTED : nedges > 0 ? VOTE_WEIGHTED : VOTE_NONE;
    st = tn_coll_allgather(mine, sizeof(mine), byte, all, sizeof(mine), byte, parent);
    if (st != TN_OK) {
        goto out;
    }
    for (i = 0; i < size; i++) {
        gmax = all[2 * i] > gmax ? all[2 * i] : gmax;
        any_w |= all[2 * i + 1] == VOTE_WEIGHTED;
        any_u |= all[2 * i + 1] == VOTE_UNWEIGHTED;
    }

    block = 1 + 3 * (size_t)gmax;
    sbuf = malloc((size_t)size * block * sizeof(int));
    rbuf = malloc((size_t)size * block * sizeof(int));
    if (sbuf == NULL || rbuf == NULL) {
        st = TN_ERR_NOMEM;
        goto out;
    }
    for (i = 0; i < size; i++) {
        sbuf[(size_t)i * block] = 0;
    }
    for (i = 0, e = 0; i < n; i++) {
        for (j = 0; j < degrees[i]; j++, e++) {
            int s = sources[i], d = dests[e];
            int w = unweighted ? 1 : weights[e];
            int *bs = sbuf + (size_t)s * block, *bd = sbuf + (size_t)d * block;
            int *ps = bs + 1 + 3 * (size_t)bs[0]++;
            int *pd = bd + 1 + 3 * (size_t)bd[0]++;

            ps[0] = DIST_OUT;
            ps[1] = d;
            ps[2] = w;
            pd[0] = DIST_IN;
            pd[1] = s;
            pd[2] = w;
        }
    }
    st = tn_coll_alltoall(sbuf, block * sizeof(int), byte, rbuf, block * sizeof(int), byte,
                          parent);
    if (st != TN_OK) {
        goto out;
    }
    st = tn_comm_create_from_group(parent, parent->group, &nc);
    if (st != TN_OK) {
        goto out;
    }

    for (i = 0; i < size; i++) {
        const int *b = rbuf + (size_t)i * block;

        for (j = 0; j < b[0]; j++) {
            if (b[1 + 3 * j] == DIST_OUT) {
                outdeg++;
            } else {
                indeg++;
            }
        }
    }
    t = tn_topo_alloc(TN_TOPO_DIST_GRAPH, indeg, outdeg);
    if (t != NULL) {
        t->u.dist.weighted = any_w || !any_u;
        indeg = outdeg = 0;
        for (i = 0; i < size; i++) {
            const int *b = rbuf + (size_t)i * block;

            for (j = 0; j < b[0]; j++) {
                const int *p = b + 1 + 3 * j;

                if (p[0] == DIST_OUT) {
                    t->u.dist.dests[outdeg] = p[1];
                    t->u.dist.dweights[outdeg++] = p[2];
                } else {
                    t->u.dist.sources[indeg] = p[1];
                    t->u.dist.sweights[indeg++] = p[2];
                }
            }
        }
    }
    st = attach_or_drop(&nc, t);
    *comm_p = nc;

out:
    free(rbuf);
    free(sbuf);
    free(all);
    free(cnt);
    return st;
}
