/* Helpers shared by the collective tests in tests/coll (on top of
 * tests/mpi/mtest.h).
 *
 * Every rank can compute every other rank's contribution (collt_val), so
 * each test checks the exact result.  Reductions use three ops on MPI_INT:
 * MPI_SUM, MPI_MAX and a non-commutative user op (2x2 integer matrix product
 * modulo 997 on each group of 4 ints, created with commute = 0), whose
 * expected value is the product in rank order 0..n-1.  Counts of the matrix
 * op are multiples of 4.
 *
 * Environment: COLLT_LARGE=1 adds ~1 MiB messages (the one large run per
 * algorithm); TERN_COLL_<KIND> forces an algorithm (read by the library). */
#ifndef TERN_TESTS_COLLT_H
#define TERN_TESTS_COLLT_H

#include "mtest.h"

enum { OP_SUM, OP_MAX, OP_MAT, NOPS };
MT_UNUSED static const char *collt_op_names[NOPS] = { "SUM", "MAX", "MATMUL" };
static MPI_Op collt_ops[NOPS];
static int collt_large;

/* Communicators under test: COMM_WORLD and one with the rank order reversed. */
#define COLLT_NCOMMS 2
static MPI_Comm collt_comms[COLLT_NCOMMS];
MT_UNUSED static const char *collt_comm_names[COLLT_NCOMMS] = { "world", "reversed" };

#define COLLT_MOD 997

/* The contribution of rank r to element i (small, so sums never overflow). */
MT_UNUSED static int collt_val(int r, size_t i, int salt)
{
    uint32_t x = (uint32_t)(r + 1) * 2654435761u ^ (uint32_t)(i * 40503u) ^
                 (uint32_t)salt * 977u;
    x ^= x >> 13;
    return (int)(x % 201u) - 100;
}

/* Matrix-op inputs must be in [0, MOD): entries of a rank's matrices. */
MT_UNUSED static int collt_in(int op, int r, size_t i, int salt)
{
    int v = collt_val(r, i, salt);
    return op == OP_MAT ? (v + 100) % 7 : v;
}

/* inout = in op inout on n ints (in holds the lower ranks). */
MT_UNUSED static void collt_apply(int op, const int *in, int *inout, size_t n)
{
    size_t i;
    switch (op) {
    case OP_SUM:
        for (i = 0; i < n; i++)
            inout[i] += in[i];
        break;
    case OP_MAX:
        for (i = 0; i < n; i++)
            if (in[i] > inout[i])
                inout[i] = in[i];
        break;
    default:
        for (i = 0; i + 4 <= n; i += 4) {
            const int *a = in + i;
            int *b = inout + i;
            int c0 = (a[0] * b[0] + a[1] * b[2]) % COLLT_MOD;
            int c1 = (a[0] * b[1] + a[1] * b[3]) % COLLT_MOD;
            int c2 = (a[2] * b[0] + a[3] * b[2]) % COLLT_MOD;
            int c3 = (a[2] * b[1] + a[3] * b[3]) % COLLT_MOD;
            b[0] = c0;
            b[1] = c1;
            b[2] = c2;
            b[3] = c3;
        }
        break;
    }
}

static void collt_matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    if (*len % 4 != 0) {
        fprintf(stderr, "rank %d: FAIL matmul op called with %d elements (not a multiple of 4)\n",
                mt_rank, *len);
        mt_errs++;
    }
    collt_apply(OP_MAT, in, inout, (size_t)*len);
}

/* Fill buf[0..n) with rank r's contribution, offset by elements first. */
MT_UNUSED static void collt_fill(int *buf, size_t n, int op, int r, size_t first, int salt)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = collt_in(op, r, first + i, salt);
}

/* want[0..n) = contributions of ranks [lo, hi) combined in rank order, at
 * element offset first; tmp has room for n ints. */
MT_UNUSED static void collt_expect(int *want, int *tmp, size_t n, int op, int lo, int hi,
                                   size_t first, int salt)
{
    collt_fill(want, n, op, hi - 1, first, salt);
    for (int r = hi - 2; r >= lo; r--) {
        collt_fill(tmp, n, op, r, first, salt);
        collt_apply(op, tmp, want, n);   /* want = x_r op want */
    }
}

/* Report the first of n ints that differs. */
#define COLLT_CHECK_INTS(got, want, n, ...)                                    \
    do {                                                                       \
        const int *g_ = (got), *w_ = (want);                                   \
        for (size_t k_ = 0; k_ < (size_t)(n); k_++) {                          \
            if (g_[k_] != w_[k_]) {                                            \
                char what_[256];                                               \
                snprintf(what_, sizeof what_, __VA_ARGS__);                    \
                mt_fail(__FILE__, __LINE__, "%s: element %zu of %zu is %d, expected %d", \
                        what_, k_, (size_t)(n), g_[k_], w_[k_]);               \
                break;                                                         \
            }                                                                  \
        }                                                                      \
    } while (0)

/* Counts of the sweeps: small ones always, one ~1 MiB with COLLT_LARGE.
 * Returns how many were written to counts (room for 8). */
MT_UNUSED static int collt_counts(size_t *counts, int for_matrix)
{
    int k = 0;
    counts[k++] = 0;
    if (!for_matrix) {
        counts[k++] = 1;
        counts[k++] = 7;
        counts[k++] = 129;
    } else {
        counts[k++] = 4;
        counts[k++] = 28;
        counts[k++] = 132;
    }
    if (collt_large)
        counts[k++] = 262144;   /* 1 MiB of ints */
    return k;
}

/* A run of many ints in the middle of the sweep: medium-size algorithms.
 * ~80 KiB. */
#define COLLT_MEDIUM 20480

MT_UNUSED static void collt_init(int *argc, char ***argv)
{
    mt_init(argc, argv);
    collt_large = mt_env_int("COLLT_LARGE", 0);
    collt_ops[OP_SUM] = MPI_SUM;
    collt_ops[OP_MAX] = MPI_MAX;
    MT_CALL(MPI_Op_create(collt_matmul, 0, &collt_ops[OP_MAT]));
    collt_comms[0] = MPI_COMM_WORLD;
    MT_CALL(MPI_Comm_split(MPI_COMM_WORLD, 0, mt_size - mt_rank, &collt_comms[1]));
    MPI_Comm_set_errhandler(collt_comms[1], MPI_ERRORS_RETURN);
}

MT_UNUSED static int collt_finalize(void)
{
    MT_CALL(MPI_Op_free(&collt_ops[OP_MAT]));
    MT_CALL(MPI_Comm_free(&collt_comms[1]));
    return mt_finalize();
}

#endif
