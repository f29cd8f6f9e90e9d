/* Topologies and communicator duplication.  MPI_Comm_dup keeps the
 * topology (an independent copy: the duplicate outlives the original);
 * MPI_Comm_split and MPI_Comm_create do not; a topology communicator made
 * from a topology communicator has only its own topology. */
#include "tt.h"

int main(int argc, char **argv)
{
    int np, me;

    tt_init(&argc, &argv);
    np = tt_size;
    me = tt_rank;

    /* Cartesian */
    {
        int dims[2] = { 0, 0 }, periods[2] = { 1, 0 };
        MPI_Comm cart, d, s, c2;
        MPI_Group grp;
        MPI_Dims_create(np, 2, dims);
        TT_CALL(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
        TT_CALL(MPI_Comm_dup(cart, &d));
        TT_CALL(MPI_Comm_free(&cart));
        TT_TOPO_IS(d, MPI_CART);
        int gd[2] = { -1, -1 }, gp[2] = { -1, -1 }, gc[2] = { -1, -1 }, nd = -1;
        TT_CALL(MPI_Cartdim_get(d, &nd));
        TT_CALL(MPI_Cart_get(d, 2, gd, gp, gc));
        TT_CHECK(nd == 2 && gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1 && gp[1] == 0 &&
                 gc[0] == me / dims[1] && gc[1] == me % dims[1],
                 "dup of a cart: ndims %d dims %d,%d periods %d,%d coords %d,%d", nd, gd[0],
                 gd[1], gp[0], gp[1], gc[0], gc[1]);
        int src = -5, dst = -5;
        TT_CALL(MPI_Cart_shift(d, 0, 1, &src, &dst));
        TT_CHECK(dst == ((gc[0] + 1) % dims[0]) * dims[1] + gc[1], "dup of a cart: shift %d",
                 dst);

        /* split and create give plain communicators */
        TT_CALL(MPI_Comm_split(d, 0, me, &s));
        TT_TOPO_IS(s, MPI_UNDEFINED);
        MPI_Comm_group(d, &grp);
        TT_CALL(MPI_Comm_create(d, grp, &c2));
        TT_TOPO_IS(c2, MPI_UNDEFINED);
        MPI_Group_free(&grp);
        MPI_Comm_free(&s);
        MPI_Comm_free(&c2);

        /* a graph made from the cart has only the graph */
        int index[1] = { 0 };
        MPI_Comm g = MPI_COMM_NULL;
        TT_CALL(MPI_Graph_create(d, 1, index, NULL, 0, &g));
        if (me == 0) {
            TT_TOPO_IS(g, MPI_GRAPH);
            MPI_Comm_free(&g);
        }
        /* a dup of a dup */
        MPI_Comm dd;
        TT_CALL(MPI_Comm_dup(d, &dd));
        TT_CALL(MPI_Comm_free(&d));
        TT_CALL(MPI_Cartdim_get(dd, &nd));
        TT_CHECK(nd == 2, "dup of a dup of a cart: ndims %d", nd);
        MPI_Comm_free(&dd);
    }

    /* graph */
    {
        int index[2] = { 1, 2 }, edges[2] = { 1, 0 }, n = np >= 2 ? 2 : 1;
        MPI_Comm g = MPI_COMM_NULL, d;
        if (n == 1)
            edges[0] = 0;
        TT_CALL(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &g));
        if (g != MPI_COMM_NULL) {
            TT_CALL(MPI_Comm_dup(g, &d));
            TT_CALL(MPI_Comm_free(&g));
            TT_TOPO_IS(d, MPI_GRAPH);
            int nn = -1, ne = -1, nb[2] = { -1, -1 };
            TT_CALL(MPI_Graphdims_get(d, &nn, &ne));
            TT_CALL(MPI_Graph_neighbors(d, 0, 2, nb));
            TT_CHECK(nn == n && ne == n && nb[0] == edges[0], "dup of a graph: %d %d %d", nn, ne,
                     nb[0]);
            MPI_Comm_free(&d);
        }
    }

    /* distributed graph */
    {
        int to = (me + 1) % np, from = (me - 1 + np) % np, wt = 7 + me, wf = 7 + from;
        MPI_Comm g, d;
        TT_CALL(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &from, &wf, 1, &to, &wt,
                                               MPI_INFO_NULL, 0, &g));
        TT_CALL(MPI_Comm_dup(g, &d));
        TT_CALL(MPI_Comm_free(&g));
        TT_TOPO_IS(d, MPI_DIST_GRAPH);
        int in = -1, out = -1, w = -1, s = -1, sw = -1, t = -1, tw = -1;
        TT_CALL(MPI_Dist_graph_neighbors_count(d, &in, &out, &w));
        TT_CHECK(in == 1 && out == 1 && w == 1, "dup of a dist graph: count %d %d %d", in, out,
                 w);
        if (in == 1 && out == 1) {
            TT_CALL(MPI_Dist_graph_neighbors(d, 1, &s, &sw, 1, &t, &tw));
            TT_CHECK(s == from && sw == wf && t == to && tw == wt,
                     "dup of a dist graph: (%d, %d) (%d, %d)", s, sw, t, tw);
        }
        MPI_Comm_free(&d);
    }
    return tt_finalize();
}
