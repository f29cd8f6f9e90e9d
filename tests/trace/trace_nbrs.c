/* Neighbourhood collectives and an alltoallw with known blocks, for the
 * trace and replay tests (check_nbrs.py): every neighbour list and block
 * here is one the checker computes on its own.  Needs exactly 4 ranks.
 *
 *   1. a periodic ring (Cartesian, 1 dimension): MPI_Neighbor_alltoall,
 *      16 ints to each side;
 *   2. a 2 x 2 grid, periodic in its first dimension only:
 *      MPI_Neighbor_allgather of 3 doubles (both first-dimension
 *      neighbours are the same rank; one of the second dimension's is
 *      MPI_PROC_NULL);
 *   3. a distributed graph, r -> r+1 and r -> r+2: MPI_Neighbor_alltoallv,
 *      (r + 1) * (j + 1) ints to destination j;
 *   4. the same graph: MPI_Ineighbor_alltoallw, destination 0 gets r + 1
 *      doubles, destination 1 r + 2 ints;
 *   5. MPI_Alltoallw on the world: to rank p, r + p + 1 elements, doubles
 *      to even ranks and ints to odd ones;
 *   6. a communicator in the reverse order of the world (rank 3 - r):
 *      MPI_Allreduce of 4 ints, and on a periodic ring over it
 *      MPI_Ineighbor_alltoall, 8 ints to each side. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        fprintf(stderr, "trace_nbrs needs 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    static double sbuf[1024], rbuf[1024];
    memset(sbuf, 0, sizeof(sbuf));

    int dims1[1] = {4}, per1[1] = {1};
    MPI_Comm ring;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims1, per1, 0, &ring);
    MPI_Neighbor_alltoall(sbuf, 16, MPI_INT, rbuf, 16, MPI_INT, ring);

    int dims2[2] = {2, 2}, per2[2] = {1, 0};
    MPI_Comm grid;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims2, per2, 0, &grid);
    MPI_Neighbor_allgather(sbuf, 3, MPI_DOUBLE, rbuf, 3, MPI_DOUBLE, grid);

    int src[2] = {(rank + 3) % 4, (rank + 2) % 4}, dst[2] = {(rank + 1) % 4, (rank + 2) % 4};
    MPI_Comm graph;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
    int sc[2], sd[2], rc[2], rd[2];
    for (int j = 0; j < 2; j++) {
        sc[j] = (rank + 1) * (j + 1);
        sd[j] = 64 * j;
        rc[j] = (src[j] + 1) * (j + 1);   /* source j sends me its destination j block */
        rd[j] = 64 * j;
    }
    MPI_Neighbor_alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, graph);

    MPI_Datatype wt[2] = {MPI_DOUBLE, MPI_INT};
    int wsc[2] = {rank + 1, rank + 2}, wrc[2] = {src[0] + 1, src[1] + 2};
    MPI_Aint wsd[2] = {0, 512}, wrd[2] = {0, 512};
    MPI_Request req;
    MPI_Ineighbor_alltoallw(sbuf, wsc, wsd, wt, rbuf, wrc, wrd, wt, graph, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);

    int asc[4], arc[4], asd[4], ard[4];
    MPI_Datatype ast[4], art[4];
    for (int p = 0; p < 4; p++) {
        asc[p] = rank + p + 1;
        arc[p] = p + rank + 1;
        ast[p] = p % 2 == 0 ? MPI_DOUBLE : MPI_INT;
        art[p] = rank % 2 == 0 ? MPI_DOUBLE : MPI_INT;
        asd[p] = ard[p] = 64 * p;
    }
    MPI_Alltoallw(sbuf, asc, asd, ast, rbuf, arc, ard, art, MPI_COMM_WORLD);

    MPI_Comm rev, rring;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    MPI_Allreduce(sbuf, rbuf, 4, MPI_INT, MPI_SUM, rev);
    MPI_Cart_create(rev, 1, dims1, per1, 0, &rring);
    MPI_Ineighbor_alltoall(sbuf, 8, MPI_INT, rbuf, 8, MPI_INT, rring, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Comm_free(&rring);
    MPI_Comm_free(&rev);

    MPI_Comm_free(&graph);
    MPI_Comm_free(&grid);
    MPI_Comm_free(&ring);
    MPI_Finalize();
    if (rank == 0) {
        printf("trace_nbrs: done\n");
    }
    return 0;
}
