/* Process topologies (see topo.h): storage, Cartesian arithmetic, the
 * balanced factorization of MPI_Dims_create, and the collective
 * constructors.
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


/* ---- storage -------------------------------------------------------------- */

/* Point the arrays of t into t->data; a, b are the counts of the kind
 * (cart: ndims; graph: nnodes, nedges; dist: indegree, outdegree). */
static void topo_layout(tn_topo_t *t, int a, int b)
{
    int *p = t->data;

    switch (t->kind) {
    case TN_TOPO_CART:
        t->u.cart.ndims = a;
        t->u.cart.dims = p;
        t->u.cart.periods = p + a;
        t->u.cart.coords = p + 2 * (size_t)a;
        break;
    case TN_TOPO_GRAPH:
        t->u.graph.nnodes = a;
        t->u.graph.index = p;
        t->u.graph.edges = p + a;
        break;
    case TN_TOPO_DIST_GRAPH:
        t->u.dist.indegree = a;
        t->u.dist.outdegree = b;
        t->u.dist.sources = p;
        t->u.dist.sweights = p + a;
        t->u.dist.dests = p + 2 * (size_t)a;
        t->u.dist.dweights = p + 2 * (size_t)a + b;
        break;
    }
}

static size_t topo_nints(tn_topo_kind_t kind, int a, int b)
{
    switch (kind) {
    case TN_TOPO_CART:
        return 3 * (size_t)a;
    case TN_TOPO_GRAPH:
        return (size_t)a + (size_t)b;
    default:
        return 2 * ((size_t)a + (size_t)b);
    }
}

static tn_topo_t *topo_alloc(tn_topo_kind_t kind, int a, int b)
{
    size_t nints = topo_nints(kind, a, b);
    tn_topo_t *t = malloc(sizeof(*t) + nints * sizeof(int));

    if (t == NULL) {
        return NULL;
    }
    memset(t, 0, sizeof(*t));
    t->kind = kind;
    t->nints = nints;
    topo_layout(t, a, b);
    return t;
}

void tn_topo_free(struct tn_topo *t)
{
    free(t);
}

struct tn_topo *tn_topo_dup(const struct tn_topo *t)
{
    tn_topo_t *n;
    int a = 0, b = 0;

    if (t == NULL) {
        return NULL;
    }
    switch (t->kind) {
    case TN_TOPO_CART:
        a = t->u.cart.ndims;
        break;
    case TN_TOPO_GRAPH:
        a = t->u.graph.nnodes;
        b = (int)(t->nints - (size_t)a);
        break;
    case TN_TOPO_DIST_GRAPH:
        a = t->u.dist.indegree;
        b = t->u.dist.outdegree;
        break;
    }
    n = malloc(sizeof(*t) + t->nints * sizeof(int));
    if (n == NULL) {
        return NULL;
    }
    memcpy(n, t, sizeof(*t) + t->nints * sizeof(int));
    topo_layout(n, a, b);
    return n;
}

/* Copy n ints; from may be NULL when n is 0 (MPI allows empty lists). */
static void copy_ints(int *to, const int *from, int n)
{
    if (n > 0) {
        memcpy(to, from, (size_t)n * sizeof(int));
    }
}

/* Give comm its topology, replacing any it has. */
static void topo_attach(tn_comm_t *comm, tn_topo_t *t)
{
    tn_topo_free(comm->topo);
    comm->topo = t;
}

/* ---- MPI_Dims_create ------------------------------------------------------ */

/* x^j, or cap + 1 as soon as it exceeds cap. */
static int64_t pow_capped(int64_t x, int j, int64_t cap)
{
    int64_t p = 1;

    while (j-- > 0) {
        if (x != 0 && p > cap / x) {
            return cap + 1;
        }
        p *= x;
    }
    return p;
}

/* Largest x >= 1 with x^j <= r (r >= 1, j >= 1). */
static int64_t root_floor(int64_t r, int j)
{
    int64_t lo = 1, hi = r;

    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;

        if (pow_capped(mid, j, r) <= r) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

/* Smallest x >= 1 with x^j >= r. */
static int64_t root_ceil(int64_t r, int j)
{
    int64_t x = root_floor(r, j);

    return pow_capped(x, j, r) < r ? x + 1 : x;
}

typedef struct {
    int      k;            /* number of free dimensions */
    int64_t *div;          /* divisors of the number to split, ascending */
    int      ndiv;
    int64_t *cur, *best;   /* [k], non-increasing */
    int64_t  best_spread;
} dims_search_t;

/* Choose cur[pos..k-1], non-increasing, each <= prev, with product r.
 * Each level tries its factor from small to large, so the first solution
 * of a given spread found has the smallest largest entry (then the
 * lexicographically smallest rest); only strictly better spreads replace
 * it.  cur[pos] is the largest of the remaining factors, so it is at least
 * the (k-pos)-th root of r; the smallest final entry is at most the
 * (k-pos-1)-th root of r / cur[pos], which bounds the spread from below and
 * grows with cur[pos]: past the bound the loop stops. */
static void dims_search(dims_search_t *s, int pos, int64_t r, int64_t prev)
{
    int j = s->k - pos;
    int64_t lo, hi, first;
    int i;

    if (j == 1 || r == 1) {
        int64_t spread;

        if (r > prev) {
            return;
        }
        for (i = pos; i < s->k; i++) {
            s->cur[i] = i == pos ? r : 1;
        }
        spread = s->cur[0] - s->cur[s->k - 1];
        if (spread < s->best_spread) {
            s->best_spread = spread;
            memcpy(s->best, s->cur, (size_t)s->k * sizeof(int64_t));
        }
        return;
    }
    lo = root_ceil(r, j);
    hi = prev < r ? prev : r;
    for (i = 0; i < s->ndiv; i++) {
        int64_t a = s->div[i];

        if (a > hi) {
            break;
        }
        if (a < lo || r % a != 0) {
            continue;
        }
        first = pos == 0 ? a : s->cur[0];
        if (first - root_floor(r / a, j - 1) >= s->best_spread) {
            break;
        }
        s->cur[pos] = a;
        dims_search(s, pos + 1, r / a, a);
    }
}

tn_status_t tn_topo_dims_create(int nnodes, int ndims, int *dims)
{
    dims_search_t s;
    int64_t fixed = 1, m, d;
    int i, k = 0, n = 0;

    for (i = 0; i < ndims; i++) {
        if (dims[i] > 0) {
            fixed *= dims[i];
            if (fixed > nnodes) {
                return TN_ERR_INVAL;
            }
        } else {
            k++;
        }
    }
    if (nnodes % fixed != 0 || (k == 0 && fixed != nnodes)) {
        return TN_ERR_INVAL;
    }
    if (k == 0) {
        return TN_OK;
    }
    m = nnodes / fixed;

    memset(&s, 0, sizeof(s));
    s.k = k;
    s.best_spread = INT64_MAX;
    for (d = 1; d * d <= m; d++) {
        if (m % d == 0) {
            n += d * d == m ? 1 : 2;
        }
    }
    s.div = malloc((size_t)n * sizeof(int64_t));
    s.cur = malloc((size_t)k * sizeof(int64_t));
    s.best = malloc((size_t)k * sizeof(int64_t));
    if (s.div == NULL || s.cur == NULL || s.best == NULL) {
        free(s.div);
        free(s.cur);
        free(s.best);
        return TN_ERR_NOMEM;
    }
    /* ascending: the small divisors forward, their cofactors backward */
    for (d = 1; d * d <= m; d++) {
        if (m % d == 0) {
            s.div[s.ndiv] = d;
            if (d * d != m) {
                s.div[n - 1 - s.ndiv] = m / d;
            }
            s.ndiv++;
        }
    }
    s.ndiv = n;
    dims_search(&s, 0, m, m);
    /* k == 1 or m == 1 always has a solution, and so does every other case
     * (m, 1, ..., 1 is one), so best is set */
    for (i = 0, k = 0; i < ndims; i++) {
        if (dims[i] == 0) {
            dims[i] = (int)s.best[k++];
        }
    }
    free(s.div);
    free(s.cur);
    free(s.best);
    return TN_OK;
}

/* ---- Cartesian arithmetic ------------------------------------------------- */

int64_t tn_topo_grid_size(int ndims, const int *dims)
{
    int64_t n = 1;
    int i;

    for (i = 0; i < ndims; i++) {
        n *= dims[i];
        if (n > INT32_MAX) {
            return -1;
        }
    }
    return n;
}

tn_status_t tn_topo_cart_rank(const tn_topo_t *t, const int *coords, int *rank_p,
                              int *bad_dim_p)
{
    int64_t r = 0;
    int i;

    for (i = 0; i < t->u.cart.ndims; i++) {
        int d = t->u.cart.dims[i];
        int c = coords[i];

        if (t->u.cart.periods[i]) {
            c %= d;
            if (c < 0) {
                c += d;
            }
        } else if (c < 0 || c >= d) {
            *bad_dim_p = i;
            return TN_ERR_INVAL;
        }
        r = r * d + c;
    }
    *rank_p = (int)r;
    return TN_OK;
}

void tn_topo_cart_coords(const tn_topo_t *t, int rank, int maxdims, int *coords)
{
    int64_t stride = tn_topo_grid_size(t->u.cart.ndims, t->u.cart.dims);
    int i;

    for (i = 0; i < t->u.cart.ndims && i < maxdims; i++) {
        stride /= t->u.cart.dims[i];
        coords[i] = (int)((rank / stride) % t->u.cart.dims[i]);
    }
}

/* Rank of the calling process moved by delta along dir, or PROC_NULL. */
static int cart_move(const tn_topo_t *t, int dir, int64_t delta)
{
    int64_t d = t->u.cart.dims[dir], c = t->u.cart.coords[dir], nc = c + delta;
    int64_t stride = 1;
    int rank = 0, bad, i;

    if (t->u.cart.periods[dir]) {
        nc %= d;
        if (nc < 0) {
            nc += d;
        }
    } else if (nc < 0 || nc >= d) {
        return TN_TOPO_PROC_NULL;
    }
    for (i = dir + 1; i < t->u.cart.ndims; i++) {
        stride *= t->u.cart.dims[i];
    }
    (void)tn_topo_cart_rank(t, t->u.cart.coords, &rank, &bad);   /* own coords: valid */
    return (int)(rank + (nc - c) * stride);
}

void tn_topo_cart_shift(const tn_topo_t *t, int dir, int disp, int *src_p, int *dst_p)
{
    *src_p = cart_move(t, dir, -(int64_t)disp);
    *dst_p = cart_move(t, dir, (int64_t)disp);
}

void tn_topo_neighbors(const tn_topo_t *t, int rank, int *indeg_p, int *outdeg_p,
                       int *sources, int *dests)
{
    int i;

    switch (t->kind) {
    case TN_TOPO_CART:
        *indeg_p = *outdeg_p = 2 * t->u.cart.ndims;
        for (i = 0; sources != NULL && i < t->u.cart.ndims; i++) {
            tn_topo_cart_shift(t, i, 1, &sources[2 * i], &sources[2 * i + 1]);
            dests[2 * i] = sources[2 * i];
            dests[2 * i + 1] = sources[2 * i + 1];
        }
        break;
    case TN_TOPO_GRAPH:
        *indeg_p = *outdeg_p = tn_topo_graph_degree(t, rank);
        if (sources != NULL) {
            copy_ints(sources, tn_topo_graph_adj(t, rank), *indeg_p);
            copy_ints(dests, tn_topo_graph_adj(t, rank), *indeg_p);
        }
        break;
    case TN_TOPO_DIST_GRAPH:
        *indeg_p = t->u.dist.indegree;
        *outdeg_p = t->u.dist.outdegree;
        if (sources != NULL) {
            copy_ints(sources, t->u.dist.sources, *indeg_p);
            copy_ints(dests, t->u.dist.dests, *outdeg_p);
        }
        break;
    }
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
    t = topo_alloc(TN_TOPO_CART, ndims, 0);
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
    nt = topo_alloc(TN_TOPO_CART, k, 0);
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
    t = topo_alloc(TN_TOPO_GRAPH, nnodes, nedges);
    if (t != NULL) {
        copy_ints(t->u.graph.index, index, nnodes);
        copy_ints(t->u.graph.edges, edges, nedges);
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
    t = topo_alloc(TN_TOPO_DIST_GRAPH, indegree, outdegree);
    if (t != NULL) {
        t->u.dist.weighted = weighted != 0;
        copy_ints(t->u.dist.sources, sources, indegree);
        copy_ints(t->u.dist.dests, dests, outdegree);
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
    t = topo_alloc(TN_TOPO_DIST_GRAPH, indeg, outdeg);
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
