/* MPI_Dims_create against hand-computed answers: the free entries are as
 * close to each other as possible and non-increasing, fixed entries stay,
 * and the error class is MPI_ERR_DIMS when there is no such grid.  Also
 * every nnodes of 1..300 in 1..4 free dimensions against the properties
 * (product, order, no better split), and the job's own size. */
#include "tt.h"
#include <limits.h>

typedef struct {
    int nnodes, ndims;
    int in[6];
    int out[6];     /* expected; out[0] == -1: MPI_ERR_DIMS */
} dims_case_t;

static const dims_case_t cases[] = {
    /* the standard's examples */
    { 6, 2, { 0, 0 }, { 3, 2 } },
    { 7, 2, { 0, 0 }, { 7, 1 } },
    { 6, 3, { 0, 3, 0 }, { 2, 3, 1 } },
    { 7, 3, { 0, 3, 0 }, { -1 } },
    /* balanced splits */
    { 1, 3, { 0, 0, 0 }, { 1, 1, 1 } },
    { 2, 3, { 0, 0, 0 }, { 2, 1, 1 } },
    { 4, 2, { 0, 0 }, { 2, 2 } },
    { 12, 2, { 0, 0 }, { 4, 3 } },
    { 16, 2, { 0, 0 }, { 4, 4 } },
    { 16, 3, { 0, 0, 0 }, { 4, 2, 2 } },
    { 24, 3, { 0, 0, 0 }, { 4, 3, 2 } },
    { 30, 3, { 0, 0, 0 }, { 5, 3, 2 } },
    { 36, 2, { 0, 0 }, { 6, 6 } },
    { 60, 2, { 0, 0 }, { 10, 6 } },
    { 60, 3, { 0, 0, 0 }, { 5, 4, 3 } },
    { 64, 3, { 0, 0, 0 }, { 4, 4, 4 } },
    { 72, 2, { 0, 0 }, { 9, 8 } },          /* greedy prime assignment says 12 x 6 */
    { 96, 3, { 0, 0, 0 }, { 6, 4, 4 } },
    { 100, 3, { 0, 0, 0 }, { 5, 5, 4 } },
    { 120, 3, { 0, 0, 0 }, { 6, 5, 4 } },
    { 128, 3, { 0, 0, 0 }, { 8, 4, 4 } },
    { 210, 4, { 0, 0, 0, 0 }, { 7, 5, 3, 2 } },
    { 360, 3, { 0, 0, 0 }, { 9, 8, 5 } },
    { 720, 3, { 0, 0, 0 }, { 10, 9, 8 } },
    { 1024, 3, { 0, 0, 0 }, { 16, 8, 8 } },
    { 5040, 4, { 0, 0, 0, 0 }, { 10, 9, 8, 7 } },
    { 8, 4, { 0, 0, 0, 0 }, { 2, 2, 2, 1 } },
    { 64, 6, { 0, 0, 0, 0, 0, 0 }, { 2, 2, 2, 2, 2, 2 } },
    { 13, 1, { 0 }, { 13 } },
    { INT_MAX, 2, { 0, 0 }, { INT_MAX, 1 } },   /* 2^31 - 1 is prime */
    { 1 << 30, 2, { 0, 0 }, { 1 << 15, 1 << 15 } },
    /* fixed entries */
    { 12, 3, { 2, 0, 0 }, { 2, 3, 2 } },
    { 12, 3, { 0, 0, 2 }, { 3, 2, 2 } },
    { 12, 3, { 0, 2, 0 }, { 3, 2, 2 } },
    { 24, 4, { 0, 3, 0, 0 }, { 2, 3, 2, 2 } },
    { 12, 2, { 3, 4 }, { 3, 4 } },
    { 12, 2, { 3, 5 }, { -1 } },
    { 12, 2, { 5, 0 }, { -1 } },
    { 12, 2, { 24, 0 }, { -1 } },
    { 1, 2, { 1, 0 }, { 1, 1 } },
    { 6, 2, { 6, 0 }, { 6, 1 } },
    /* zero dimensions: only a grid of one process */
    { 1, 0, { 0 }, { 0 } },
    { 6, 0, { 0 }, { -1 } },
};

static void one_case(const dims_case_t *c)
{
    int dims[6];
    char b1[128], b2[128], b3[128];

    memcpy(dims, c->in, sizeof dims);
    if (c->out[0] == -1) {
        TT_EXPECT_CLASS(MPI_Dims_create(c->nnodes, c->ndims, c->ndims ? dims : NULL),
                        MPI_ERR_DIMS);
        TT_CHECK(memcmp(dims, c->in, sizeof dims) == 0,
                 "Dims_create(%d, %d, {%s}) failed but changed dims to {%s}", c->nnodes,
                 c->ndims, tt_ints(b1, sizeof b1, c->in, c->ndims),
                 tt_ints(b2, sizeof b2, dims, c->ndims));
        return;
    }
    TT_CALL(MPI_Dims_create(c->nnodes, c->ndims, c->ndims ? dims : NULL));
    TT_CHECK(c->ndims == 0 || memcmp(dims, c->out, (size_t)c->ndims * sizeof(int)) == 0,
             "Dims_create(%d, %d, {%s}) = {%s}, expected {%s}", c->nnodes, c->ndims,
             tt_ints(b1, sizeof b1, c->in, c->ndims), tt_ints(b2, sizeof b2, dims, c->ndims),
             tt_ints(b3, sizeof b3, c->out, c->ndims));
}

/* Is there a non-increasing split of m into k factors with a smaller
 * max - min than spread? */
static int better_exists(int m, int k, int prev, int first, int spread)
{
    if (k == 1)
        return m <= prev && (first ? first : m) - m < spread;
    for (int a = 1; a <= m && a <= prev; a++)
        if (m % a == 0 && better_exists(m / a, k - 1, a, first ? first : a, spread))
            return 1;
    return 0;
}

static void sweep(void)
{
    for (int n = 1; n <= 300; n++) {
        for (int k = 1; k <= 4; k++) {
            int dims[4] = { 0, 0, 0, 0 }, prod = 1;
            char b[64];

            TT_CALL(MPI_Dims_create(n, k, dims));
            for (int i = 0; i < k; i++) {
                prod *= dims[i];
                TT_CHECK(dims[i] >= 1 && (i == 0 || dims[i] <= dims[i - 1]),
                         "Dims_create(%d, %d) = {%s}: not positive and non-increasing", n, k,
                         tt_ints(b, sizeof b, dims, k));
            }
            TT_CHECK(prod == n, "Dims_create(%d, %d) = {%s}: product %d", n, k,
                     tt_ints(b, sizeof b, dims, k), prod);
            TT_CHECK(!better_exists(n, k, n, 0, dims[0] - dims[k - 1]),
                     "Dims_create(%d, %d) = {%s}: a more balanced split exists", n, k,
                     tt_ints(b, sizeof b, dims, k));
        }
    }
}

int main(int argc, char **argv)
{
    int dims[3];

    tt_init(&argc, &argv);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        one_case(&cases[i]);
    sweep();

    /* the job's size: a 2-D grid that MPI_Cart_create accepts */
    dims[0] = dims[1] = 0;
    TT_CALL(MPI_Dims_create(tt_size, 2, dims));
    TT_CHECK(dims[0] * dims[1] == tt_size && dims[0] >= dims[1], "Dims_create(%d, 2) = %d x %d",
             tt_size, dims[0], dims[1]);

    /* argument errors */
    dims[0] = 0;
    dims[1] = -1;
    TT_EXPECT_CLASS(MPI_Dims_create(9, 2, dims), MPI_ERR_DIMS);
    TT_EXPECT_CLASS(MPI_Dims_create(4, -1, dims), MPI_ERR_DIMS);
    TT_EXPECT_CLASS(MPI_Dims_create(-4, 2, dims), MPI_ERR_ARG);
    TT_EXPECT_CLASS(MPI_Dims_create(4, 2, NULL), MPI_ERR_ARG);
    return tt_finalize();
}
