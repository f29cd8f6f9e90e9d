/* Process topologies (see topo.h): storage, Cartesian arithmetic, the
 * balanced factorization of MPI_Dims_create and the neighbour lists: what
 * needs no communicator (tern-coll-plan builds its topologies with it).
 * The collective constructors are in topo.c. */
#include <stdlib.h>
#include <string.h>
#include "comm/topo.h"


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

tn_topo_t *tn_topo_alloc(tn_topo_kind_t kind, int a, int b)
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
void tn_topo_ints(int *to, const int *from, int n)
{
    if (n > 0) {
        memcpy(to, from, (size_t)n * sizeof(int));
    }
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
            tn_topo_ints(sources, tn_topo_graph_adj(t, rank), *indeg_p);
            tn_topo_ints(dests, tn_topo_graph_adj(t, rank), *indeg_p);
        }
        break;
    case TN_TOPO_DIST_GRAPH:
        *indeg_p = t->u.dist.indegree;
        *outdeg_p = t->u.dist.outdegree;
        if (sources != NULL) {
            tn_topo_ints(sources, t->u.dist.sources, *indeg_p);
            tn_topo_ints(dests, t->u.dist.dests, *outdeg_p);
        }
        break;
    }
}

