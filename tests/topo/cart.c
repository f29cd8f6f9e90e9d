/* Cartesian topologies on any number of processes: 1-D, 2-D and 3-D grids,
 * periodic, non-periodic and mixed; the row-major numbering (coords/rank
 * round trip), MPI_Cart_shift at the edges, MPI_Cart_get / Cartdim_get,
 * grids smaller than the communicator (MPI_COMM_NULL beyond the grid),
 * zero-dimensional grids, MPI_Cart_sub for every subset of dimensions,
 * MPI_Cart_map, and messages along the shifts. */
#include "tt.h"

#define MAXD 4

/* Row-major rank of coords, periodic wrap, or MPI_PROC_NULL off a
 * non-periodic edge (computed here, independently of the library). */
static int ref_rank(int nd, const int *dims, const int *periods, const int *coords)
{
    int r = 0;

    for (int i = 0; i < nd; i++) {
        int c = coords[i];

        if (periods[i])
            c = ((c % dims[i]) + dims[i]) % dims[i];
        else if (c < 0 || c >= dims[i])
            return MPI_PROC_NULL;
        r = r * dims[i] + c;
    }
    return r;
}

static void ref_coords(int nd, const int *dims, int rank, int *coords)
{
    for (int i = nd - 1; i >= 0; i--) {
        coords[i] = rank % dims[i];
        rank /= dims[i];
    }
}

/* Everything about one grid of the given shape over MPI_COMM_WORLD. */
static void check_grid(int nd, const int *dims, const int *periods)
{
    MPI_Comm cart = MPI_COMM_NULL;
    int n = 1, size = -1, rank = -1;
    char b1[64], b2[64];

    for (int i = 0; i < nd; i++)
        n *= dims[i];
    TT_CALL(MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 0, &cart));
    if (tt_rank >= n) {
        TT_CHECK(cart == MPI_COMM_NULL, "rank %d beyond the %d-process grid {%s} got a "
                 "communicator", tt_rank, n, tt_ints(b1, sizeof b1, dims, nd));
        return;
    }
    if (cart == MPI_COMM_NULL) {
        tt_fail(__FILE__, __LINE__, "rank %d of the grid {%s} got MPI_COMM_NULL", tt_rank,
                tt_ints(b1, sizeof b1, dims, nd));
        return;
    }
    TT_TOPO_IS(cart, MPI_CART);
    MPI_Comm_size(cart, &size);
    MPI_Comm_rank(cart, &rank);
    TT_CHECK(size == n && rank == tt_rank, "grid {%s}: size %d rank %d, expected %d %d",
             tt_ints(b1, sizeof b1, dims, nd), size, rank, n, tt_rank);

    int ndims = -1, gd[MAXD + 1], gp[MAXD + 1], gc[MAXD + 1], mine[MAXD];
    TT_CALL(MPI_Cartdim_get(cart, &ndims));
    TT_CHECK(ndims == nd, "Cartdim_get = %d, expected %d", ndims, nd);
    for (int i = 0; i <= MAXD; i++)
        gd[i] = gp[i] = gc[i] = -77;
    TT_CALL(MPI_Cart_get(cart, MAXD, gd, gp, gc));
    ref_coords(nd, dims, rank, mine);
    for (int i = 0; i < nd; i++) {
        TT_CHECK(gd[i] == dims[i] && !gp[i] == !periods[i] && gc[i] == mine[i],
                 "Cart_get dim %d: dims %d periods %d coords %d, expected %d %d %d", i, gd[i],
                 gp[i], gc[i], dims[i], periods[i], mine[i]);
    }
    TT_CHECK(gd[nd] == -77 && gc[nd] == -77, "Cart_get wrote past ndims");

    /* numbering: coords and rank are inverse for every rank */
    for (int r = 0; r < n; r++) {
        int c[MAXD + 1], back = -1, ref[MAXD];

        c[nd] = -77;
        TT_CALL(MPI_Cart_coords(cart, r, MAXD, c));
        ref_coords(nd, dims, r, ref);
        TT_CHECK(nd == 0 || memcmp(c, ref, (size_t)nd * sizeof(int)) == 0,
                 "Cart_coords(%d) = {%s}, expected {%s}", r, tt_ints(b1, sizeof b1, c, nd),
                 tt_ints(b2, sizeof b2, ref, nd));
        TT_CHECK(c[nd] == -77, "Cart_coords wrote past ndims");
        TT_CALL(MPI_Cart_rank(cart, c, &back));
        TT_CHECK(back == r, "Cart_rank(Cart_coords(%d)) = %d", r, back);
    }
    /* a short coords vector: only maxdims entries are written */
    if (nd >= 2) {
        int c[MAXD] = { -77, -77, -77, -77 };
        TT_CALL(MPI_Cart_coords(cart, n - 1, 1, c));
        TT_CHECK(c[0] == dims[0] - 1 && c[1] == -77, "Cart_coords(maxdims 1) = {%d,%d}", c[0],
                 c[1]);
    }

    /* coordinates off the grid: wrap when periodic, MPI_ERR_RANK otherwise */
    for (int i = 0; i < nd; i++) {
        for (int off = -1; off <= 1; off += 2) {
            int c[MAXD], r = -5;

            memcpy(c, mine, sizeof c);
            c[i] = off < 0 ? -1 - dims[i] : 2 * dims[i];   /* -1 - d wraps to d - 1; 2d to 0 */
            if (periods[i]) {
                int ref = ref_rank(nd, dims, periods, c);
                TT_CALL(MPI_Cart_rank(cart, c, &r));
                TT_CHECK(r == ref, "periodic Cart_rank dim %d coord %d: %d, expected %d", i,
                         c[i], r, ref);
            } else {
                TT_EXPECT_CLASS(MPI_Cart_rank(cart, c, &r), MPI_ERR_RANK);
            }
        }
    }

    /* shifts: every direction, several displacements */
    static const int disps[] = { 0, 1, -1, 2, -3, 7 };
    for (int d = 0; d < nd; d++) {
        for (size_t k = 0; k < sizeof disps / sizeof disps[0]; k++) {
            int src = -5, dst = -5, cs[MAXD], cd[MAXD];

            memcpy(cs, mine, sizeof cs);
            memcpy(cd, mine, sizeof cd);
            cs[d] -= disps[k];
            cd[d] += disps[k];
            TT_CALL(MPI_Cart_shift(cart, d, disps[k], &src, &dst));
            TT_CHECK(src == ref_rank(nd, dims, periods, cs) &&
                     dst == ref_rank(nd, dims, periods, cd),
                     "grid {%s} rank %d: Cart_shift(dir %d, disp %d) = (%d, %d), expected "
                     "(%d, %d)", tt_ints(b1, sizeof b1, dims, nd), rank, d, disps[k], src, dst,
                     ref_rank(nd, dims, periods, cs), ref_rank(nd, dims, periods, cd));
        }
        /* a message along the shift: the source's rank arrives */
        int src, dst, got = -9;
        TT_CALL(MPI_Cart_shift(cart, d, 1, &src, &dst));
        TT_CALL(MPI_Sendrecv(&rank, 1, MPI_INT, dst, 5, &got, 1, MPI_INT, src, 5, cart,
                             MPI_STATUS_IGNORE));
        TT_CHECK(got == (src == MPI_PROC_NULL ? -9 : src), "shift message in dim %d: got %d "
                 "from %d", d, got, src);
    }
    if (nd > 0) {
        int s, t;
        TT_EXPECT_CLASS(MPI_Cart_shift(cart, nd, 1, &s, &t), MPI_ERR_ARG);
        TT_EXPECT_CLASS(MPI_Cart_shift(cart, -1, 1, &s, &t), MPI_ERR_ARG);
    }

    /* Cart_map on the same shape: identity inside the grid */
    int nr = -5;
    TT_CALL(MPI_Cart_map(MPI_COMM_WORLD, nd, dims, periods, &nr));
    TT_CHECK(nr == tt_rank, "Cart_map = %d, expected %d", nr, tt_rank);

    TT_CALL(MPI_Comm_free(&cart));
}

/* MPI_Cart_sub for every subset of the dimensions of a grid of all ranks. */
static void check_sub(int nd, const int *dims, const int *periods)
{
    MPI_Comm cart;
    int mine[MAXD];

    TT_CALL(MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 0, &cart));
    ref_coords(nd, dims, tt_rank, mine);
    for (int mask = 0; mask < (1 << nd); mask++) {
        int remain[MAXD], kd[MAXD], kp[MAXD], kc[MAXD], k = 0, n = 1;
        MPI_Comm sub = MPI_COMM_NULL;
        char b1[64];

        for (int i = 0; i < nd; i++) {
            remain[i] = (mask >> i) & 1;
            if (remain[i]) {
                kd[k] = dims[i];
                kp[k] = periods[i];
                kc[k] = mine[i];
                n *= dims[i];
                k++;
            }
        }
        TT_CALL(MPI_Cart_sub(cart, remain, &sub));
        if (sub == MPI_COMM_NULL) {
            tt_fail(__FILE__, __LINE__, "Cart_sub({%s}) gave MPI_COMM_NULL",
                    tt_ints(b1, sizeof b1, remain, nd));
            continue;
        }
        int size, rank, ndims = -1, gd[MAXD], gp[MAXD], gc[MAXD];
        MPI_Comm_size(sub, &size);
        MPI_Comm_rank(sub, &rank);
        TT_TOPO_IS(sub, MPI_CART);
        TT_CALL(MPI_Cartdim_get(sub, &ndims));
        TT_CHECK(size == n && ndims == k, "Cart_sub({%s}): size %d ndims %d, expected %d %d",
                 tt_ints(b1, sizeof b1, remain, nd), size, ndims, n, k);
        TT_CALL(MPI_Cart_get(sub, MAXD, gd, gp, gc));
        for (int i = 0; i < k && i < ndims; i++)
            TT_CHECK(gd[i] == kd[i] && !gp[i] == !kp[i] && gc[i] == kc[i],
                     "Cart_sub({%s}) dim %d: %d %d %d, expected %d %d %d",
                     tt_ints(b1, sizeof b1, remain, nd), i, gd[i], gp[i], gc[i], kd[i], kp[i],
                     kc[i]);
        TT_CHECK(rank == ref_rank(k, kd, kp, kc), "Cart_sub({%s}): rank %d, expected %d",
                 tt_ints(b1, sizeof b1, remain, nd), rank, ref_rank(k, kd, kp, kc));

        /* the members share every dropped coordinate, and each sits where
         * its sub-grid coordinates say */
        int *all = malloc((size_t)size * MAXD * sizeof(int));
        MPI_Allgather(mine, MAXD, MPI_INT, all, MAXD, MPI_INT, sub);
        for (int r = 0; r < size; r++) {
            int sc[MAXD];
            TT_CALL(MPI_Cart_coords(sub, r, MAXD, sc));
            for (int i = 0, j = 0; i < nd; i++) {
                if (remain[i]) {
                    TT_CHECK(all[r * MAXD + i] == sc[j], "Cart_sub({%s}) member %d: parent "
                             "coord %d is %d, sub coord %d", tt_ints(b1, sizeof b1, remain, nd),
                             r, i, all[r * MAXD + i], sc[j]);
                    j++;
                } else {
                    TT_CHECK(all[r * MAXD + i] == mine[i], "Cart_sub({%s}) member %d differs "
                             "in dropped dim %d", tt_ints(b1, sizeof b1, remain, nd), r, i);
                }
            }
        }
        free(all);
        TT_CALL(MPI_Comm_free(&sub));
    }
    TT_CALL(MPI_Comm_free(&cart));
}

int main(int argc, char **argv)
{
    int np;

    tt_init(&argc, &argv);
    np = tt_size;
    TT_TOPO_IS(MPI_COMM_WORLD, MPI_UNDEFINED);
    TT_TOPO_IS(MPI_COMM_SELF, MPI_UNDEFINED);

    /* 1-D rings and lines */
    {
        int d[1] = { np }, p0[1] = { 0 }, p1[1] = { 1 };
        check_grid(1, d, p0);
        check_grid(1, d, p1);
    }
    /* 2-D: Dims_create's shape, each periodicity */
    {
        int d[2] = { 0, 0 };
        MPI_Dims_create(np, 2, d);
        for (int p = 0; p < 4; p++) {
            int per[2] = { p & 1, (p >> 1) & 1 };
            check_grid(2, d, per);
        }
        int d2[2] = { 1, np }, per[2] = { 0, 1 };
        check_grid(2, d2, per);
    }
    /* 3-D */
    {
        int d[3] = { 0, 0, 0 }, pall[3] = { 1, 1, 1 }, pnone[3] = { 0, 0, 0 },
            pmix[3] = { 1, 0, 1 };
        MPI_Dims_create(np, 3, d);
        check_grid(3, d, pall);
        check_grid(3, d, pnone);
        check_grid(3, d, pmix);
        int d2[3] = { np, 1, 1 };
        check_grid(3, d2, pmix);
    }
    /* grids smaller than the communicator */
    {
        int one[1] = { 1 }, p[2] = { 0, 1 };
        check_grid(1, one, p);
        if (np > 1) {
            int d[1] = { np - 1 };
            check_grid(1, d, p);
        }
        if (np >= 3) {
            int d[2] = { 2, (np - 1) / 2 };
            check_grid(2, d, p);
        }
    }
    /* zero dimensions: a one-process grid on rank 0 */
    check_grid(0, NULL, NULL);
    {
        MPI_Comm z = MPI_COMM_NULL;
        int nr = -5;
        TT_CALL(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 1, &z));
        TT_CALL(MPI_Cart_map(MPI_COMM_WORLD, 0, NULL, NULL, &nr));
        TT_CHECK(nr == (tt_rank == 0 ? 0 : MPI_UNDEFINED), "Cart_map(ndims 0) = %d", nr);
        if (tt_rank == 0) {
            int nd = -1, r = -1, s = -1;
            TT_CHECK(z != MPI_COMM_NULL, "zero-dimensional grid: no communicator on rank 0");
            if (z != MPI_COMM_NULL) {
                MPI_Comm_size(z, &s);
                TT_CALL(MPI_Cartdim_get(z, &nd));
                TT_CALL(MPI_Cart_rank(z, NULL, &r));
                TT_CHECK(s == 1 && nd == 0 && r == 0, "zero-dim grid: size %d ndims %d rank %d",
                         s, nd, r);
                MPI_Comm_free(&z);
            }
        } else {
            TT_CHECK(z == MPI_COMM_NULL, "zero-dimensional grid on rank %d", tt_rank);
        }
    }
    /* sub-grids */
    {
        int d[3] = { 0, 0, 0 }, p[3] = { 1, 0, 1 };
        MPI_Dims_create(np, 3, d);
        check_sub(3, d, p);
        int d2[2] = { 0, 0 }, p2[2] = { 0, 1 };
        MPI_Dims_create(np, 2, d2);
        check_sub(2, d2, p2);
        int d1[1] = { np }, p1[1] = { 0 };
        check_sub(1, d1, p1);
    }
    /* Cart_map beyond the grid */
    {
        int d[1] = { 1 }, p[1] = { 0 }, nr = -5;
        TT_CALL(MPI_Cart_map(MPI_COMM_WORLD, 1, d, p, &nr));
        TT_CHECK(nr == (tt_rank == 0 ? 0 : MPI_UNDEFINED), "Cart_map({1}) = %d", nr);
    }
    return tt_finalize();
}
