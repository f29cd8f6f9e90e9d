/* Graph topologies (MPI_Graph_create) on any number of processes: a ring
 * with chords, a self-loop and a repeated edge; MPI_Graphdims_get,
 * MPI_Graph_get (also into short arrays), MPI_Graph_neighbors_count and
 * MPI_Graph_neighbors for every node, MPI_Graph_map, graphs smaller than the
 * communicator (MPI_COMM_NULL beyond them), the empty graph, and messages to
 * the neighbours. */
#include "tt.h"

/* The graph of n nodes: i -- i+1 and i -- i-1 (ring), i -- i+n/2 when
 * n >= 4 is even (chord), and node 0 also has a self-loop and a second edge to 1. */
static int build(int n, int *index, int *edges)
{
    int e = 0;

    for (int i = 0; i < n; i++) {
        if (n > 1) {
            edges[e++] = (i + 1) % n;
            edges[e++] = (i - 1 + n) % n;
        }
        if (n >= 4 && n % 2 == 0)
            edges[e++] = (i + n / 2) % n;
        if (i == 0) {
            edges[e++] = 0;
            if (n > 1)
                edges[e++] = 1;
        }
        if (i == 1 && n > 1)
            edges[e++] = 0;   /* keep the repeated edge 0 -- 1 symmetric */
        index[i] = e;
    }
    return e;
}

static void check_graph(int n)
{
    int *index = malloc((size_t)(n + 1) * sizeof(int));
    int *edges = malloc((size_t)(6 * n + 4) * sizeof(int));
    int ne = build(n, index, edges);
    MPI_Comm g = MPI_COMM_NULL;
    int newrank = -5;

    TT_CALL(MPI_Graph_map(MPI_COMM_WORLD, n, index, edges, &newrank));
    TT_CHECK(newrank == (tt_rank < n ? tt_rank : MPI_UNDEFINED), "Graph_map(%d nodes) = %d", n,
             newrank);
    TT_CALL(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &g));
    if (tt_rank >= n) {
        TT_CHECK(g == MPI_COMM_NULL, "rank %d beyond a %d-node graph got a communicator",
                 tt_rank, n);
        goto out;
    }
    if (g == MPI_COMM_NULL) {
        tt_fail(__FILE__, __LINE__, "rank %d of a %d-node graph got MPI_COMM_NULL", tt_rank, n);
        goto out;
    }
    TT_TOPO_IS(g, MPI_GRAPH);
    int size = -1, rank = -1, nn = -1, nedges = -1;
    MPI_Comm_size(g, &size);
    MPI_Comm_rank(g, &rank);
    TT_CHECK(size == n && rank == tt_rank, "graph: size %d rank %d", size, rank);
    TT_CALL(MPI_Graphdims_get(g, &nn, &nedges));
    TT_CHECK(nn == n && nedges == ne, "Graphdims_get = (%d, %d), expected (%d, %d)", nn,
             nedges, n, ne);

    int *gi = malloc((size_t)(n + 1) * sizeof(int)), *ge = malloc((size_t)(ne + 1) * sizeof(int));
    for (int i = 0; i <= n; i++)
        gi[i] = -77;
    for (int i = 0; i <= ne; i++)
        ge[i] = -77;
    TT_CALL(MPI_Graph_get(g, n + 1, ne + 1, gi, ge));
    TT_CHECK(memcmp(gi, index, (size_t)n * sizeof(int)) == 0 && gi[n] == -77,
             "Graph_get: index differs");
    TT_CHECK(memcmp(ge, edges, (size_t)ne * sizeof(int)) == 0 && ge[ne] == -77,
             "Graph_get: edges differ");
    /* short arrays: only maxindex / maxedges entries */
    for (int i = 0; i <= n; i++)
        gi[i] = -77;
    for (int i = 0; i <= ne; i++)
        ge[i] = -77;
    TT_CALL(MPI_Graph_get(g, 1, 2, gi, ge));
    TT_CHECK(gi[0] == index[0] && gi[1] == -77 && ge[0] == edges[0] &&
             ge[1] == (ne >= 2 ? edges[1] : -77) && (ne < 2 || ge[2] == -77),
             "Graph_get(1, 2) wrote the wrong entries");
    free(gi);
    free(ge);

    for (int r = 0; r < n; r++) {
        int cnt = -1, start = r ? index[r - 1] : 0, deg = index[r] - start;
        int nb[16];
        char b1[96], b2[96];

        TT_CALL(MPI_Graph_neighbors_count(g, r, &cnt));
        TT_CHECK(cnt == deg, "Graph_neighbors_count(%d) = %d, expected %d", r, cnt, deg);
        for (int i = 0; i < 16; i++)
            nb[i] = -77;
        TT_CALL(MPI_Graph_neighbors(g, r, 16, nb));
        TT_CHECK(memcmp(nb, edges + start, (size_t)deg * sizeof(int)) == 0 && nb[deg] == -77,
                 "Graph_neighbors(%d) = {%s}, expected {%s}", r, tt_ints(b1, sizeof b1, nb, deg),
                 tt_ints(b2, sizeof b2, edges + start, deg));
        if (deg >= 2) {
            nb[1] = -77;
            TT_CALL(MPI_Graph_neighbors(g, r, 1, nb));
            TT_CHECK(nb[0] == edges[start] && nb[1] == -77, "Graph_neighbors(maxneighbors 1)");
        }
    }

    /* messages to every neighbour (the graph is symmetric, so each edge
     * carries one message each way) */
    {
        int start = rank ? index[rank - 1] : 0, deg = index[rank] - start;
        MPI_Request *rq = malloc((size_t)(2 * deg + 1) * sizeof(MPI_Request));
        int *in = malloc((size_t)(deg + 1) * sizeof(int));

        for (int i = 0; i < deg; i++) {
            in[i] = -9;
            MPI_Irecv(&in[i], 1, MPI_INT, edges[start + i], 3, g, &rq[i]);
        }
        for (int i = 0; i < deg; i++)
            MPI_Isend(&rank, 1, MPI_INT, edges[start + i], 3, g, &rq[deg + i]);
        TT_CALL(MPI_Waitall(2 * deg, rq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < deg; i++)
            TT_CHECK(in[i] == edges[start + i], "message from neighbour %d carried %d",
                     edges[start + i], in[i]);
        free(rq);
        free(in);
    }
    TT_CALL(MPI_Comm_free(&g));
out:
    free(index);
    free(edges);
}

int main(int argc, char **argv)
{
    MPI_Comm g = (MPI_Comm)0;
    int nr = -5;

    tt_init(&argc, &argv);
    check_graph(tt_size);
    if (tt_size > 1)
        check_graph(tt_size - 1);
    check_graph(1);

    /* the empty graph: MPI_COMM_NULL everywhere */
    TT_CALL(MPI_Graph_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &g));
    TT_CHECK(g == MPI_COMM_NULL, "a graph of 0 nodes gave a communicator");
    TT_CALL(MPI_Graph_map(MPI_COMM_WORLD, 0, NULL, NULL, &nr));
    TT_CHECK(nr == MPI_UNDEFINED, "Graph_map(0 nodes) = %d", nr);

    /* a node without edges */
    {
        int index[1] = { 0 }, nn = -1, ne = -1, cnt = -1;
        TT_CALL(MPI_Graph_create(MPI_COMM_WORLD, 1, index, NULL, 0, &g));
        if (tt_rank == 0 && g != MPI_COMM_NULL) {
            TT_CALL(MPI_Graphdims_get(g, &nn, &ne));
            TT_CALL(MPI_Graph_neighbors_count(g, 0, &cnt));
            TT_CHECK(nn == 1 && ne == 0 && cnt == 0, "edgeless graph: %d %d %d", nn, ne, cnt);
            MPI_Comm_free(&g);
        } else {
            TT_CHECK(g == MPI_COMM_NULL, "edgeless 1-node graph: rank %d has a communicator",
                     tt_rank);
        }
    }
    return tt_finalize();
}
