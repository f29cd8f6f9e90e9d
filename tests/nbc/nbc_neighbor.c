/* Neighbourhood collectives (blocking, nonblocking, persistent) on a
 * periodic and a non-periodic Cartesian grid, a graph and a distributed
 * graph: exact received values per neighbour slot, MPI_PROC_NULL slots left
 * untouched, and MPI_ERR_TOPOLOGY without a topology. */
#include "nbct.h"

#define K 2          /* ints per block */
#define MAXN 16
#define UNTOUCHED (-77)

/* What rank q sends to its out-neighbour slot j (alltoall) or to all
 * (allgather, j = -1). */
static int val(int q, int j, int k) { return q * 1000 + (j + 1) * 10 + k; }

/* in[i]: in-neighbour of slot i; the slot j that neighbour used to send to
 * me is mirrored: Cartesian: i ^ 1; graphs: the position of me in its
 * out-list (the first not yet used, for repeated edges). */
static void check(MPI_Comm comm, const char *name, int indeg, const int *in,
                  const int *src_slot)
{
    int outdeg = 0, r;
    int sb[MAXN * K], rb[MAXN * K], rbv[MAXN * 3], rb2[MAXN * K];
    int cnts[MAXN], dsp[MAXN], scnt[MAXN], sdsp[MAXN];
    MPI_Aint wsd[MAXN], wrd[MAXN];
    MPI_Datatype types[MAXN];
    MPI_Request rq[3];
    int topo;

    MPI_Comm_rank(comm, &r);
    MPI_Topo_test(comm, &topo);
    if (topo == MPI_CART) {
        int nd;
        MPI_Cartdim_get(comm, &nd);
        outdeg = 2 * nd;
    } else if (topo == MPI_GRAPH) {
        MPI_Graph_neighbors_count(comm, r, &outdeg);
    } else {
        int a, b, w;
        MPI_Dist_graph_neighbors_count(comm, &a, &b, &w);
        outdeg = b;
    }
    for (int j = 0; j < outdeg; j++) {
        for (int k = 0; k < K; k++) {
            sb[j * K + k] = val(r, j, k);
        }
        scnt[j] = K;
        sdsp[j] = j * K;
        wsd[j] = (MPI_Aint)(j * K * (int)sizeof(int));
        types[j] = MPI_INT;
    }
    for (int i = 0; i < indeg; i++) {
        cnts[i] = K;
        dsp[i] = 3 * i;
        wrd[i] = (MPI_Aint)(i * K * (int)sizeof(int));
    }
    for (int round = 0; round < 3; round++) {
        int ag[MAXN * K];
        for (int i = 0; i < MAXN * K; i++) {
            rb[i] = rb2[i] = ag[i] = UNTOUCHED;
        }
        for (int i = 0; i < MAXN * 3; i++) {
            rbv[i] = UNTOUCHED;
        }
        int me[K] = { val(r, -1, 0), val(r, -1, 1) };
        if (round == 0) {
            MT_CALL(MPI_Neighbor_alltoall(sb, K, MPI_INT, rb, K, MPI_INT, comm));
            MT_CALL(MPI_Neighbor_allgather(me, K, MPI_INT, ag, K, MPI_INT, comm));
            MT_CALL(MPI_Neighbor_allgatherv(me, K, MPI_INT, rbv, cnts, dsp, MPI_INT, comm));
            MT_CALL(MPI_Neighbor_alltoallw(sb, scnt, wsd, types, rb2, cnts, wrd, types, comm));
        } else if (round == 1) {
            MT_CALL(MPI_Ineighbor_alltoall(sb, K, MPI_INT, rb, K, MPI_INT, comm, &rq[0]));
            MT_CALL(MPI_Ineighbor_allgather(me, K, MPI_INT, ag, K, MPI_INT, comm, &rq[1]));
            MT_CALL(MPI_Ineighbor_alltoallv(sb, scnt, sdsp, MPI_INT, rb2, cnts, sdsp, MPI_INT,
                                            comm, &rq[2]));
            MT_CALL(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
            for (int i = 0; i < MAXN * 3; i++) {
                rbv[i] = 0;
            }
        } else {
            MT_CALL(MPI_Neighbor_alltoall_init(sb, K, MPI_INT, rb, K, MPI_INT, comm,
                                               MPI_INFO_NULL, &rq[0]));
            MT_CALL(MPI_Neighbor_allgather_init(me, K, MPI_INT, ag, K, MPI_INT, comm,
                                                MPI_INFO_NULL, &rq[1]));
            for (int again = 0; again < 3; again++) {
                MT_CALL(MPI_Startall(2, rq));
                MT_CALL(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
            }
            MT_CALL(MPI_Request_free(&rq[0]));
            MT_CALL(MPI_Request_free(&rq[1]));
        }
        for (int i = 0; i < indeg; i++) {
            for (int k = 0; k < K; k++) {
                int want = in[i] == MPI_PROC_NULL ? UNTOUCHED : val(in[i], src_slot[i], k);
                int wantg = in[i] == MPI_PROC_NULL ? UNTOUCHED : val(in[i], -1, k);
                MT_CHECK(rb[i * K + k] == want, "%s round %d: alltoall slot %d[%d] = %d, "
                         "want %d", name, round, i, k, rb[i * K + k], want);
                MT_CHECK(ag[i * K + k] == wantg, "%s round %d: allgather slot %d[%d] = %d, "
                         "want %d", name, round, i, k, ag[i * K + k], wantg);
                if (round == 0) {
                    MT_CHECK(rbv[3 * i + k] == wantg, "%s: allgatherv slot %d", name, i);
                    MT_CHECK(rb2[i * K + k] == want, "%s: alltoallw slot %d", name, i);
                }
                if (round == 1) {
                    MT_CHECK(rb2[i * K + k] == want, "%s: ialltoallv slot %d", name, i);
                }
            }
        }
    }
}

static void cart(int periodic)
{
    int n = mt_size, dims[2] = { 0, 0 }, periods[2] = { periodic, periodic };
    MPI_Comm cc;
    int in[4], slot[4], r;

    MT_CALL(MPI_Dims_create(n, 2, dims));
    MT_CALL(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cc));
    MPI_Comm_set_errhandler(cc, MPI_ERRORS_RETURN);
    MPI_Comm_rank(cc, &r);
    for (int d = 0; d < 2; d++) {
        MT_CALL(MPI_Cart_shift(cc, d, 1, &in[2 * d], &in[2 * d + 1]));
        slot[2 * d] = 2 * d + 1;       /* my -1 neighbour sent to its +1 slot */
        slot[2 * d + 1] = 2 * d;
    }
    check(cc, periodic ? "cart periodic" : "cart", 4, in, slot);
    MPI_Comm_free(&cc);
}

/* A ring with an extra chord; undirected graph (each edge both ways). */
static void graph(void)
{
    int n = mt_size, index[MAXN], edges[4 * MAXN], ne = 0;
    MPI_Comm gc;

    for (int q = 0; q < n; q++) {
        if (n > 1) {
            edges[ne++] = (q + 1) % n;
        }
        if (n > 2) {
            edges[ne++] = (q - 1 + n) % n;
        }
        index[q] = ne;
    }
    MT_CALL(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &gc));
    MPI_Comm_set_errhandler(gc, MPI_ERRORS_RETURN);
    int r = mt_rank, deg = index[r] - (r ? index[r - 1] : 0);
    const int *adj = edges + (r ? index[r - 1] : 0);
    int slot[4];
    for (int i = 0; i < deg; i++) {
        /* my position in the neighbour's list */
        int q = adj[i], qd = index[q] - (q ? index[q - 1] : 0);
        const int *qa = edges + (q ? index[q - 1] : 0);
        slot[i] = -1;
        for (int j = 0; j < qd; j++) {
            if (qa[j] == r) {
                /* repeated edges (n == 2: +1 and -1 are the same rank) are
                 * not built above */
                slot[i] = j;
                break;
            }
        }
    }
    check(gc, "graph", deg, adj, slot);
    MPI_Comm_free(&gc);
}

/* Directed: rank r sends to r+1 and r+2, receives from r-1 and r-2. */
static void dist_graph(void)
{
    int n = mt_size, r = mt_rank, src[2], dst[2], slot[2], nd = 0;
    MPI_Comm dc;

    for (int k = 1; k <= 2 && k < n; k++) {
        src[nd] = (r - k + n) % n;
        dst[nd] = (r + k) % n;
        slot[nd] = k - 1;      /* r-k sent to r in its slot k-1 */
        nd++;
    }
    if (n == 3) {
        /* r-2 == r+1: still distinct slots, distinct ranks */
    }
    MT_CALL(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nd, src, MPI_UNWEIGHTED, nd, dst,
                                           MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dc));
    MPI_Comm_set_errhandler(dc, MPI_ERRORS_RETURN);
    check(dc, "dist graph", nd, src, slot);
    MPI_Comm_free(&dc);
}

int main(int argc, char **argv)
{
    int b[2] = { 0, 0 };
    MPI_Request rq;

    mt_init(&argc, &argv);
    cart(1);
    cart(0);
    graph();
    dist_graph();
    MT_EXPECT_CLASS(MPI_Neighbor_allgather(b, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD),
                    MPI_ERR_TOPOLOGY);
    MT_EXPECT_CLASS(MPI_Ineighbor_alltoall(b, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD, &rq),
                    MPI_ERR_TOPOLOGY);
    return mt_finalize();
}
