/* Distributed graph topologies on any number of processes.
 *   - MPI_Dist_graph_create_adjacent, weighted and MPI_UNWEIGHTED, with
 *     self-loops and repeated edges: the lists come back as given.
 *   - MPI_Dist_graph_create with the same edge set contributed four ways
 *     (round-robin, all by rank 0, by each edge's source, by each edge's
 *     destination), weighted, MPI_UNWEIGHTED, and weighted with
 *     MPI_WEIGHTS_EMPTY on the ranks that contribute nothing: every rank's
 *     in- and out-lists equal the edges that end / start at it.
 *   - Across ranks: the in-list of each rank equals what the others' out-lists
 *     say about it, with the same weights; a message sent along every edge
 *     arrives.
 *   - MPI_Dist_graph_neighbors_count's weighted flag, short arrays, and
 *     MPI_Topo_test. */
#include "tt.h"

typedef struct {
    int s, d, w;
} edge_t;

typedef struct {
    int peer, w;
} nb_t;

static int nb_cmp(const void *a, const void *b)
{
    const nb_t *x = a, *y = b;

    if (x->peer != y->peer)
        return x->peer < y->peer ? -1 : 1;
    return (x->w > y->w) - (x->w < y->w);
}

/* The test graph: 3n + 1 edges, every fourth a self-loop. */
static int gen_edges(int n, edge_t *e)
{
    int m = 3 * n + 1;

    for (int i = 0; i < m; i++) {
        e[i].s = (i * 7 + 1) % n;
        e[i].d = i % 4 == 0 ? e[i].s : (i * 5 + 3) % n;
        e[i].w = 100 + i;
    }
    return m;
}

/* Compare a neighbour list (peers, weights or NULL) with the expected
 * multiset (sorted here). */
static void same_multiset(const char *what, const int *peers, const int *w, int n, nb_t *want,
                          int nwant)
{
    nb_t *got = malloc((size_t)(n + 1) * sizeof(nb_t));

    TT_CHECK(n == nwant, "%s: %d neighbours, expected %d", what, n, nwant);
    if (n != nwant) {
        free(got);
        return;
    }
    for (int i = 0; i < n; i++) {
        got[i].peer = peers[i];
        got[i].w = w ? w[i] : 0;
        if (!w)
            want[i].w = 0;
    }
    qsort(got, (size_t)n, sizeof(nb_t), nb_cmp);
    qsort(want, (size_t)n, sizeof(nb_t), nb_cmp);
    for (int i = 0; i < n; i++)
        TT_CHECK(got[i].peer == want[i].peer && got[i].w == want[i].w,
                 "%s: sorted entry %d is (%d, %d), expected (%d, %d)", what, i, got[i].peer,
                 got[i].w, want[i].peer, want[i].w);
    free(got);
}

/* The checks that hold for any distributed graph communicator: the in-list
 * of each rank matches the out-lists of the others, and messages along every
 * edge arrive.  weighted: compare weights too. */
static void cross_check(MPI_Comm g, const char *what, int weighted)
{
    int indeg = -1, outdeg = -1, wflag = -1, maxout = 0, size, rank;
    char msg[160];

    MPI_Comm_size(g, &size);
    MPI_Comm_rank(g, &rank);
    TT_CALL(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &wflag));
    TT_CHECK(wflag == weighted, "%s: weighted = %d, expected %d", what, wflag, weighted);
    if (indeg < 0 || outdeg < 0)
        return;
    int *src = malloc((size_t)(indeg + 1) * sizeof(int)), *sw = malloc((size_t)(indeg + 1) * sizeof(int));
    int *dst = malloc((size_t)(outdeg + 1) * sizeof(int)), *dw = malloc((size_t)(outdeg + 1) * sizeof(int));
    TT_CALL(MPI_Dist_graph_neighbors(g, indeg, src, weighted ? sw : MPI_UNWEIGHTED, outdeg, dst,
                                     weighted ? dw : MPI_UNWEIGHTED));

    /* everyone's out-lists, padded to the longest */
    MPI_Allreduce(&outdeg, &maxout, 1, MPI_INT, MPI_MAX, g);
    int blk = 1 + 2 * maxout;
    int *mine = calloc((size_t)blk, sizeof(int)), *all = malloc((size_t)size * (size_t)blk * sizeof(int));
    mine[0] = outdeg;
    for (int i = 0; i < outdeg; i++) {
        mine[1 + 2 * i] = dst[i];
        mine[2 + 2 * i] = weighted ? dw[i] : 0;
    }
    MPI_Allgather(mine, blk, MPI_INT, all, blk, MPI_INT, g);
    nb_t *want = malloc((size_t)(size * maxout + 1) * sizeof(nb_t));
    int nwant = 0;
    for (int j = 0; j < size; j++)
        for (int i = 0; i < all[j * blk]; i++)
            if (all[j * blk + 1 + 2 * i] == rank) {
                want[nwant].peer = j;
                want[nwant].w = all[j * blk + 2 + 2 * i];
                nwant++;
            }
    snprintf(msg, sizeof msg, "%s: in-list of rank %d vs the out-lists", what, rank);
    same_multiset(msg, src, weighted ? sw : NULL, indeg, want, nwant);

    /* one message along every edge */
    MPI_Request *rq = malloc((size_t)(indeg + outdeg + 1) * sizeof(MPI_Request));
    int *in = malloc((size_t)(indeg + 1) * sizeof(int));
    for (int i = 0; i < indeg; i++) {
        in[i] = -9;
        MPI_Irecv(&in[i], 1, MPI_INT, src[i], 4, g, &rq[i]);
    }
    for (int i = 0; i < outdeg; i++)
        MPI_Isend(&rank, 1, MPI_INT, dst[i], 4, g, &rq[indeg + i]);
    TT_CALL(MPI_Waitall(indeg + outdeg, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < indeg; i++)
        TT_CHECK(in[i] == src[i], "%s: message from in-neighbour %d carried %d", what, src[i],
                 in[i]);
    free(rq);
    free(in);
    free(want);
    free(all);
    free(mine);
    free(src);
    free(sw);
    free(dst);
    free(dw);
}

/* ---- the adjacent form ------------------------------------------------------ */

static void check_adjacent(int weighted)
{
    int n = tt_size, me = tt_rank;
    /* out: me+1, me+2, me (self-loop), me+1 again; in: the mirror image */
    int dst[4] = { (me + 1) % n, (me + 2) % n, me, (me + 1) % n };
    int src[4] = { (me - 1 + n) % n, (me - 2 + 2 * n) % n, me, (me - 1 + n) % n };
    int dw[4], sw[4];
    MPI_Comm g = MPI_COMM_NULL;
    const char *what = weighted ? "adjacent weighted" : "adjacent unweighted";

    for (int i = 0; i < 4; i++) {
        dw[i] = 1000 * me + 10 * dst[i] + i;      /* the weight of edge (me -> dst[i], #i) */
        sw[i] = 1000 * src[i] + 10 * me + i;      /* the same edge seen from its end */
    }
    TT_CALL(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 4, src, weighted ? sw : MPI_UNWEIGHTED,
                                           4, dst, weighted ? dw : MPI_UNWEIGHTED, MPI_INFO_NULL,
                                           0, &g));
    if (g == MPI_COMM_NULL) {
        tt_fail(__FILE__, __LINE__, "%s: no communicator", what);
        return;
    }
    TT_TOPO_IS(g, MPI_DIST_GRAPH);
    int size = -1, rank = -1;
    MPI_Comm_size(g, &size);
    MPI_Comm_rank(g, &rank);
    TT_CHECK(size == n && rank == me, "%s: size %d rank %d", what, size, rank);

    int indeg, outdeg, wf, gs[6], gsw[6], gd[6], gdw[6];
    char b1[64], b2[64];
    TT_CALL(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &wf));
    TT_CHECK(indeg == 4 && outdeg == 4 && wf == weighted, "%s: count (%d, %d, %d)", what, indeg,
             outdeg, wf);
    for (int i = 0; i < 6; i++)
        gs[i] = gsw[i] = gd[i] = gdw[i] = -77;
    TT_CALL(MPI_Dist_graph_neighbors(g, 6, gs, gsw, 6, gd, gdw));
    TT_CHECK(memcmp(gs, src, sizeof src) == 0 && gs[4] == -77, "%s: sources {%s}, expected {%s}",
             what, tt_ints(b1, sizeof b1, gs, 5), tt_ints(b2, sizeof b2, src, 4));
    TT_CHECK(memcmp(gd, dst, sizeof dst) == 0 && gd[4] == -77,
             "%s: destinations {%s}, expected {%s}", what, tt_ints(b1, sizeof b1, gd, 5),
             tt_ints(b2, sizeof b2, dst, 4));
    if (weighted) {
        TT_CHECK(memcmp(gsw, sw, sizeof sw) == 0 && memcmp(gdw, dw, sizeof dw) == 0 &&
                 gsw[4] == -77 && gdw[4] == -77, "%s: weights {%s} / {%s}", what,
                 tt_ints(b1, sizeof b1, gsw, 5), tt_ints(b2, sizeof b2, gdw, 5));
    } else {
        TT_CHECK(gsw[0] == -77 && gdw[0] == -77, "%s: weights written for an unweighted graph",
                 what);
    }
    /* short arrays */
    for (int i = 0; i < 6; i++)
        gs[i] = gsw[i] = gd[i] = gdw[i] = -77;
    TT_CALL(MPI_Dist_graph_neighbors(g, 1, gs, gsw, 2, gd, gdw));
    TT_CHECK(gs[0] == src[0] && gs[1] == -77 && gd[0] == dst[0] && gd[1] == dst[1] &&
             gd[2] == -77, "%s: short arrays", what);
    cross_check(g, what, weighted);
    TT_CALL(MPI_Comm_free(&g));
}

/* ---- the general form ------------------------------------------------------ */

enum { BY_ROUND_ROBIN, BY_RANK0, BY_SOURCE, BY_DEST, NMODES };
enum { W_WEIGHTS, W_UNWEIGHTED, W_EMPTY_WHEN_NONE, NWMODES };
static const char *const mode_name[] = { "round-robin", "all by rank 0", "by source",
                                         "by destination" };
static const char *const wmode_name[] = { "weighted", "MPI_UNWEIGHTED", "MPI_WEIGHTS_EMPTY" };

static void check_general(int mode, int wmode)
{
    int n = tt_size, me = tt_rank;
    edge_t *e = malloc((size_t)(3 * n + 1) * sizeof(edge_t));
    int m = gen_edges(n, e);
    int *sources = malloc((size_t)m * sizeof(int)), *degrees = malloc((size_t)m * sizeof(int));
    int *dests = malloc((size_t)m * sizeof(int)), *weights = malloc((size_t)m * sizeof(int));
    int k = 0, nd = 0;
    char what[96];

    snprintf(what, sizeof what, "Dist_graph_create %s %s", mode_name[mode], wmode_name[wmode]);
    /* my contribution: each edge its own (source, degree 1) entry, except
     * that the by-source and by-rank-0 modes group the edges by source */
    for (int i = 0; i < m; i++) {
        int mine = mode == BY_ROUND_ROBIN ? i % n == me
                 : mode == BY_RANK0      ? me == 0
                 : mode == BY_SOURCE     ? e[i].s == me
                                         : e[i].d == me;
        if (!mine)
            continue;
        if ((mode == BY_SOURCE || mode == BY_RANK0) && k > 0 && sources[k - 1] == e[i].s) {
            degrees[k - 1]++;
        } else {
            sources[k] = e[i].s;
            degrees[k] = 1;
            k++;
        }
        dests[nd] = e[i].d;
        weights[nd] = e[i].w;
        nd++;
    }
    const int *w = weights;
    if (wmode == W_UNWEIGHTED)
        w = MPI_UNWEIGHTED;
    else if (wmode == W_EMPTY_WHEN_NONE && nd == 0)
        w = MPI_WEIGHTS_EMPTY;

    MPI_Comm g = MPI_COMM_NULL;
    TT_CALL(MPI_Dist_graph_create(MPI_COMM_WORLD, k, sources, degrees, dests, w, MPI_INFO_NULL,
                                  mode & 1, &g));
    if (g == MPI_COMM_NULL) {
        tt_fail(__FILE__, __LINE__, "%s: no communicator", what);
        goto out;
    }
    TT_TOPO_IS(g, MPI_DIST_GRAPH);
    int weighted = wmode != W_UNWEIGHTED, indeg = -1, outdeg = -1, wf = -1;
    TT_CALL(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &wf));
    TT_CHECK(wf == weighted, "%s: weighted = %d", what, wf);
    if (indeg >= 0 && outdeg >= 0) {
        int *gs = malloc((size_t)(indeg + 1) * sizeof(int)), *gsw = malloc((size_t)(indeg + 1) * sizeof(int));
        int *gd = malloc((size_t)(outdeg + 1) * sizeof(int)), *gdw = malloc((size_t)(outdeg + 1) * sizeof(int));
        nb_t *want_in = malloc((size_t)(m + 1) * sizeof(nb_t)), *want_out = malloc((size_t)(m + 1) * sizeof(nb_t));
        int nin = 0, nout = 0;
        char msg[160];

        gsw[0] = gdw[0] = -77;
        TT_CALL(MPI_Dist_graph_neighbors(g, indeg, gs, gsw, outdeg, gd, gdw));
        if (!weighted)
            TT_CHECK(gsw[0] == -77 && gdw[0] == -77, "%s: weights written for an unweighted "
                     "graph", what);
        for (int i = 0; i < m; i++) {
            if (e[i].d == me)
                want_in[nin++] = (nb_t){ e[i].s, e[i].w };
            if (e[i].s == me)
                want_out[nout++] = (nb_t){ e[i].d, e[i].w };
        }
        snprintf(msg, sizeof msg, "%s: sources of rank %d", what, me);
        same_multiset(msg, gs, weighted ? gsw : NULL, indeg, want_in, nin);
        snprintf(msg, sizeof msg, "%s: destinations of rank %d", what, me);
        same_multiset(msg, gd, weighted ? gdw : NULL, outdeg, want_out, nout);

        /* the order is the library's, but it must not change between calls */
        if (indeg > 0 && outdeg > 0) {
            int *gs2 = malloc((size_t)indeg * sizeof(int)), *gd2 = malloc((size_t)outdeg * sizeof(int));
            TT_CALL(MPI_Dist_graph_neighbors(g, indeg, gs2, MPI_UNWEIGHTED, outdeg, gd2,
                                             MPI_UNWEIGHTED));
            TT_CHECK(memcmp(gs, gs2, (size_t)indeg * sizeof(int)) == 0 &&
                     memcmp(gd, gd2, (size_t)outdeg * sizeof(int)) == 0,
                     "%s: a second call gave another order", what);
            free(gs2);
            free(gd2);
        }
        free(gs);
        free(gsw);
        free(gd);
        free(gdw);
        free(want_in);
        free(want_out);
    }
    cross_check(g, what, weighted);
    TT_CALL(MPI_Comm_free(&g));
out:
    free(e);
    free(sources);
    free(degrees);
    free(dests);
    free(weights);
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv);
    check_adjacent(1);
    check_adjacent(0);
    for (int mode = 0; mode < NMODES; mode++)
        for (int wmode = 0; wmode < NWMODES; wmode++)
            check_general(mode, wmode);

    /* no edges at all */
    {
        MPI_Comm g = MPI_COMM_NULL;
        int indeg = -1, outdeg = -1, wf = -1;
        TT_CALL(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, MPI_WEIGHTS_EMPTY,
                                      MPI_INFO_NULL, 0, &g));
        TT_CALL(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &wf));
        TT_CHECK(indeg == 0 && outdeg == 0 && wf == 1, "edgeless (weights empty): %d %d %d",
                 indeg, outdeg, wf);
        MPI_Comm_free(&g);
        TT_CALL(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, 0, NULL,
                                               MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
        TT_CALL(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &wf));
        TT_CHECK(indeg == 0 && outdeg == 0 && wf == 0, "edgeless adjacent unweighted: %d %d %d",
                 indeg, outdeg, wf);
        MPI_Comm_free(&g);
    }
    return tt_finalize();
}
