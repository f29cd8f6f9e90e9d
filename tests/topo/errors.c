/* Error classes of the topology functions under MPI_ERRORS_RETURN, and the
 * library keeps working afterwards:
 *   MPI_ERR_TOPOLOGY  a communicator without the topology the call needs;
 *   MPI_ERR_DIMS      negative ndims, a non-positive grid dimension;
 *   MPI_ERR_RANK      ranks out of range (Cart_coords, graph queries, edge
 *                     endpoints), coordinates off a non-periodic dimension;
 *   MPI_ERR_ARG       NULL arrays, grids / graphs larger than the
 *                     communicator, bad index arrays, negative degrees or
 *                     weights, a bad shift direction, mixed MPI_UNWEIGHTED;
 *   MPI_ERR_COMM      MPI_COMM_NULL. */
#include "tt.h"

int main(int argc, char **argv)
{
    MPI_Comm w = MPI_COMM_WORLD, cart = MPI_COMM_NULL, graph = MPI_COMM_NULL,
             dist = MPI_COMM_NULL, nc = MPI_COMM_NULL;
    int np, me, x, y, z, a[8] = { 0 }, b[8] = { 0 }, c[8] = { 0 };

    tt_init(&argc, &argv);
    np = tt_size;
    me = tt_rank;

    /* one communicator of each kind */
    {
        int dims[1] = { np }, periods[1] = { 0 };
        TT_CALL(MPI_Cart_create(w, 1, dims, periods, 0, &cart));
        int index[1] = { 1 }, edges[1] = { 0 };
        TT_CALL(MPI_Graph_create(w, 1, index, edges, 0, &graph));
        int peer = (me + 1) % np, from = (me - 1 + np) % np;
        TT_CALL(MPI_Dist_graph_create_adjacent(w, 1, &from, MPI_UNWEIGHTED, 1, &peer,
                                               MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dist));
    }

    /* --- MPI_ERR_COMM */
    TT_EXPECT_CLASS(MPI_Topo_test(MPI_COMM_NULL, &x), MPI_ERR_COMM);
    TT_EXPECT_CLASS(MPI_Cartdim_get(MPI_COMM_NULL, &x), MPI_ERR_COMM);
    TT_EXPECT_CLASS(MPI_Cart_create(MPI_COMM_NULL, 1, a, b, 0, &nc), MPI_ERR_COMM);
    TT_EXPECT_CLASS(MPI_Graph_create(MPI_COMM_NULL, 0, a, b, 0, &nc), MPI_ERR_COMM);
    TT_EXPECT_CLASS(MPI_Dist_graph_neighbors_count(MPI_COMM_NULL, &x, &y, &z), MPI_ERR_COMM);

    /* --- MPI_ERR_TOPOLOGY: the wrong kind, or none */
    TT_EXPECT_CLASS(MPI_Cartdim_get(w, &x), MPI_ERR_TOPOLOGY);
    TT_EXPECT_CLASS(MPI_Cart_get(w, 1, a, b, c), MPI_ERR_TOPOLOGY);
    TT_EXPECT_CLASS(MPI_Cart_rank(w, a, &x), MPI_ERR_TOPOLOGY);
    TT_EXPECT_CLASS(MPI_Cart_coords(w, 0, 1, a), MPI_ERR_TOPOLOGY);
    TT_EXPECT_CLASS(MPI_Cart_shift(w, 0, 1, &x, &y), MPI_ERR_TOPOLOGY);
    TT_EXPECT_CLASS(MPI_Cart_sub(w, a, &nc), MPI_ERR_TOPOLOGY);
    TT_EXPECT_CLASS(MPI_Graphdims_get(w, &x, &y), MPI_ERR_TOPOLOGY);
    TT_EXPECT_CLASS(MPI_Graph_get(w, 1, 1, a, b), MPI_ERR_TOPOLOGY);
    TT_EXPECT_CLASS(MPI_Graph_neighbors_count(w, 0, &x), MPI_ERR_TOPOLOGY);
    TT_EXPECT_CLASS(MPI_Graph_neighbors(w, 0, 1, a), MPI_ERR_TOPOLOGY);
    TT_EXPECT_CLASS(MPI_Dist_graph_neighbors_count(w, &x, &y, &z), MPI_ERR_TOPOLOGY);
    TT_EXPECT_CLASS(MPI_Dist_graph_neighbors(w, 1, a, MPI_UNWEIGHTED, 1, b, MPI_UNWEIGHTED),
                    MPI_ERR_TOPOLOGY);
    TT_EXPECT_CLASS(MPI_Graphdims_get(cart, &x, &y), MPI_ERR_TOPOLOGY);
    TT_EXPECT_CLASS(MPI_Dist_graph_neighbors_count(cart, &x, &y, &z), MPI_ERR_TOPOLOGY);
    TT_EXPECT_CLASS(MPI_Cart_shift(dist, 0, 1, &x, &y), MPI_ERR_TOPOLOGY);
    TT_EXPECT_CLASS(MPI_Graph_neighbors_count(dist, 0, &x), MPI_ERR_TOPOLOGY);
    if (graph != MPI_COMM_NULL) {
        TT_EXPECT_CLASS(MPI_Cartdim_get(graph, &x), MPI_ERR_TOPOLOGY);
        TT_EXPECT_CLASS(MPI_Dist_graph_neighbors_count(graph, &x, &y, &z), MPI_ERR_TOPOLOGY);
    }

    /* --- MPI_Cart_create / MPI_Cart_map arguments */
    {
        int dims[2] = { np, 1 }, periods[2] = { 0, 0 }, big[1] = { np + 1 }, zero[2] = { 0, 1 },
            neg[2] = { np, -2 };
        nc = MPI_COMM_NULL;
        TT_EXPECT_CLASS(MPI_Cart_create(w, -1, dims, periods, 0, &nc), MPI_ERR_DIMS);
        TT_EXPECT_CLASS(MPI_Cart_create(w, 2, zero, periods, 0, &nc), MPI_ERR_DIMS);
        TT_EXPECT_CLASS(MPI_Cart_create(w, 2, neg, periods, 0, &nc), MPI_ERR_DIMS);
        TT_EXPECT_CLASS(MPI_Cart_create(w, 1, big, periods, 0, &nc), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Cart_create(w, 2, NULL, periods, 0, &nc), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Cart_create(w, 2, dims, NULL, 0, &nc), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Cart_create(w, 2, dims, periods, 0, NULL), MPI_ERR_ARG);
        TT_CHECK(nc == MPI_COMM_NULL, "a failed Cart_create set the new communicator");
        TT_EXPECT_CLASS(MPI_Cart_map(w, -1, dims, periods, &x), MPI_ERR_DIMS);
        TT_EXPECT_CLASS(MPI_Cart_map(w, 1, big, periods, &x), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Cart_map(w, 2, zero, periods, &x), MPI_ERR_DIMS);
    }

    /* --- queries on a Cartesian communicator */
    {
        int co[2] = { np, 0 }, neg[1] = { -1 };
        TT_EXPECT_CLASS(MPI_Cart_rank(cart, co, &x), MPI_ERR_RANK);
        TT_EXPECT_CLASS(MPI_Cart_rank(cart, neg, &x), MPI_ERR_RANK);
        TT_EXPECT_CLASS(MPI_Cart_rank(cart, NULL, &x), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Cart_coords(cart, np, 1, a), MPI_ERR_RANK);
        TT_EXPECT_CLASS(MPI_Cart_coords(cart, -1, 1, a), MPI_ERR_RANK);
        TT_EXPECT_CLASS(MPI_Cart_coords(cart, 0, -1, a), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Cart_coords(cart, 0, 1, NULL), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Cart_get(cart, -1, a, b, c), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Cart_get(cart, 1, NULL, b, c), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Cart_shift(cart, 1, 1, &x, &y), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Cart_shift(cart, -1, 1, &x, &y), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Cart_shift(cart, 0, 1, NULL, &y), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Cart_sub(cart, NULL, &nc), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Cartdim_get(cart, NULL), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Topo_test(cart, NULL), MPI_ERR_ARG);
    }

    /* --- MPI_Graph_create / MPI_Graph_map arguments */
    {
        int index[3] = { 1, 2, 2 }, edges[2] = { 1, 0 }, bad_index[2] = { 2, 1 },
            bad_edges[2] = { 1, 7 }, neg_edges[2] = { -1, 0 }, neg_index[1] = { -1 };
        int n2 = np >= 2 ? 2 : 1;
        if (n2 == 1) {
            index[0] = 1;
            edges[0] = 0;
            bad_edges[0] = 1;
        } else {
            bad_edges[1] = np;
        }
        TT_EXPECT_CLASS(MPI_Graph_create(w, -1, index, edges, 0, &nc), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Graph_create(w, np + 1, index, edges, 0, &nc), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Graph_create(w, n2, NULL, edges, 0, &nc), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Graph_create(w, n2, index, NULL, 0, &nc), MPI_ERR_ARG);
        if (n2 == 2)
            TT_EXPECT_CLASS(MPI_Graph_create(w, 2, bad_index, edges, 0, &nc), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Graph_create(w, 1, neg_index, edges, 0, &nc), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Graph_create(w, n2, index, bad_edges, 0, &nc), MPI_ERR_RANK);
        TT_EXPECT_CLASS(MPI_Graph_create(w, n2, index, neg_edges, 0, &nc), MPI_ERR_RANK);
        TT_EXPECT_CLASS(MPI_Graph_map(w, np + 1, index, edges, &x), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Graph_map(w, n2, index, bad_edges, &x), MPI_ERR_RANK);
    }

    /* --- queries on a graph communicator (rank 0 holds the 1-node graph) */
    if (graph != MPI_COMM_NULL) {
        TT_EXPECT_CLASS(MPI_Graph_neighbors_count(graph, 1, &x), MPI_ERR_RANK);
        TT_EXPECT_CLASS(MPI_Graph_neighbors_count(graph, -1, &x), MPI_ERR_RANK);
        TT_EXPECT_CLASS(MPI_Graph_neighbors(graph, 1, 1, a), MPI_ERR_RANK);
        TT_EXPECT_CLASS(MPI_Graph_neighbors(graph, 0, -1, a), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Graph_neighbors(graph, 0, 1, NULL), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Graph_get(graph, -1, 1, a, b), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Graphdims_get(graph, NULL, &y), MPI_ERR_ARG);
    }

    /* --- MPI_Dist_graph_create_adjacent arguments */
    {
        int ok[1] = { 0 }, out[1] = { np }, neg[1] = { -1 }, wt[1] = { 5 }, negw[1] = { -5 };
        TT_EXPECT_CLASS(MPI_Dist_graph_create_adjacent(w, -1, ok, MPI_UNWEIGHTED, 1, ok,
                                                       MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &nc),
                        MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Dist_graph_create_adjacent(w, 1, ok, MPI_UNWEIGHTED, -1, ok,
                                                       MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &nc),
                        MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Dist_graph_create_adjacent(w, 1, out, MPI_UNWEIGHTED, 1, ok,
                                                       MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &nc),
                        MPI_ERR_RANK);
        TT_EXPECT_CLASS(MPI_Dist_graph_create_adjacent(w, 1, ok, MPI_UNWEIGHTED, 1, neg,
                                                       MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &nc),
                        MPI_ERR_RANK);
        TT_EXPECT_CLASS(MPI_Dist_graph_create_adjacent(w, 1, NULL, MPI_UNWEIGHTED, 0, ok,
                                                       MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &nc),
                        MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Dist_graph_create_adjacent(w, 1, ok, negw, 1, ok, wt, MPI_INFO_NULL,
                                                       0, &nc),
                        MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Dist_graph_create_adjacent(w, 1, ok, MPI_UNWEIGHTED, 1, ok, wt,
                                                       MPI_INFO_NULL, 0, &nc),
                        MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Dist_graph_create_adjacent(w, 1, ok, MPI_WEIGHTS_EMPTY, 1, ok, wt,
                                                       MPI_INFO_NULL, 0, &nc),
                        MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Dist_graph_create_adjacent(w, 1, ok, MPI_UNWEIGHTED, 1, ok,
                                                       MPI_UNWEIGHTED, MPI_INFO_NULL, 0, NULL),
                        MPI_ERR_ARG);
    }

    /* --- MPI_Dist_graph_create arguments */
    {
        int src[1] = { 0 }, deg[1] = { 1 }, negdeg[1] = { -1 }, dst[1] = { 0 },
            baddst[1] = { np }, badsrc[1] = { -3 }, negw[1] = { -1 };
        TT_EXPECT_CLASS(MPI_Dist_graph_create(w, -1, src, deg, dst, MPI_UNWEIGHTED,
                                              MPI_INFO_NULL, 0, &nc), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Dist_graph_create(w, 1, src, negdeg, dst, MPI_UNWEIGHTED,
                                              MPI_INFO_NULL, 0, &nc), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Dist_graph_create(w, 1, badsrc, deg, dst, MPI_UNWEIGHTED,
                                              MPI_INFO_NULL, 0, &nc), MPI_ERR_RANK);
        TT_EXPECT_CLASS(MPI_Dist_graph_create(w, 1, src, deg, baddst, MPI_UNWEIGHTED,
                                              MPI_INFO_NULL, 0, &nc), MPI_ERR_RANK);
        TT_EXPECT_CLASS(MPI_Dist_graph_create(w, 1, src, deg, NULL, MPI_UNWEIGHTED,
                                              MPI_INFO_NULL, 0, &nc), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Dist_graph_create(w, 1, src, deg, dst, negw, MPI_INFO_NULL, 0, &nc),
                        MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Dist_graph_create(w, 1, src, deg, dst, MPI_WEIGHTS_EMPTY,
                                              MPI_INFO_NULL, 0, &nc), MPI_ERR_ARG);
    }

    /* --- queries on a distributed graph communicator */
    TT_EXPECT_CLASS(MPI_Dist_graph_neighbors(dist, -1, a, MPI_UNWEIGHTED, 1, b, MPI_UNWEIGHTED),
                    MPI_ERR_ARG);
    TT_EXPECT_CLASS(MPI_Dist_graph_neighbors(dist, 1, NULL, MPI_UNWEIGHTED, 1, b,
                                             MPI_UNWEIGHTED), MPI_ERR_ARG);
    TT_EXPECT_CLASS(MPI_Dist_graph_neighbors_count(dist, NULL, &y, &z), MPI_ERR_ARG);

    /* --- everything still works */
    {
        int src = -1, dst = -1;
        TT_CALL(MPI_Cart_shift(cart, 0, 1, &src, &dst));
        TT_CHECK(src == (me > 0 ? me - 1 : MPI_PROC_NULL) &&
                 dst == (me < np - 1 ? me + 1 : MPI_PROC_NULL), "Cart_shift after errors: %d %d",
                 src, dst);
        int sum = 0;
        TT_CALL(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, dist));
        TT_CHECK(sum == np * (np - 1) / 2, "Allreduce on the dist graph communicator: %d", sum);
    }
    MPI_Comm_free(&cart);
    MPI_Comm_free(&dist);
    if (graph != MPI_COMM_NULL)
        MPI_Comm_free(&graph);
    return tt_finalize();
}
