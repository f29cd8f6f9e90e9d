/* MPI_CHAR in reductions, an extension that Open MPI and MPICH also have
 * (README.md, "Extensions to the standard"): MAX, MIN, SUM, PROD, BAND, BOR
 * and BXOR reduce MPI_CHAR as the integer type char is; the logical ops and
 * MINLOC/MAXLOC still refuse it with MPI_ERR_OP.  The OSU reduction
 * benchmarks reduce MPI_CHAR with MPI_SUM by default.  Every rank computes
 * every rank's input and checks the MPI_Allreduce and MPI_Reduce results
 * element by element; sums and products wrap as char arithmetic does. */
#include "mtest.h"

#define N 300 /* every char value, more than once */

enum { MAX, MIN, SUM, PROD, BAND, BOR, BXOR, NOPS };
static const char *op_names[NOPS] = { "MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD",
                                      "MPI_BAND", "MPI_BOR", "MPI_BXOR" };

static char input(int r, int k)
{
    return (char)(unsigned char)((k * 37 + r * 101 + 7) & 0xff);
}

static char combine(int op, char a, char b)
{
    unsigned char ua = (unsigned char)a, ub = (unsigned char)b;
    switch (op) {
    case MAX:  return a > b ? a : b;
    case MIN:  return a < b ? a : b;
    case SUM:  return (char)(unsigned char)(ua + ub);
    case PROD: return (char)(unsigned char)(ua * ub);
    case BAND: return (char)(ua & ub);
    case BOR:  return (char)(ua | ub);
    default:   return (char)(ua ^ ub);
    }
}

int main(int argc, char **argv)
{
    MPI_Op ops[NOPS] = { MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_BAND, MPI_BOR, MPI_BXOR };
    char in[N], out[N], want[N];
    int rank, size;

    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int op = 0; op < NOPS; op++) {
        for (int k = 0; k < N; k++) {
            in[k] = input(rank, k);
            want[k] = input(0, k);
            for (int r = 1; r < size; r++)
                want[k] = combine(op, want[k], input(r, k));
        }
        memset(out, 0, sizeof out);
        MT_CALL(MPI_Allreduce(in, out, N, MPI_CHAR, ops[op], MPI_COMM_WORLD));
        for (int k = 0; k < N; k++)
            if (out[k] != want[k]) {
                MT_CHECK(out[k] == want[k], "MPI_Allreduce %s: element %d is %d, expected %d",
                         op_names[op], k, out[k], want[k]);
                break;
            }
        memset(out, 0, sizeof out);
        MT_CALL(MPI_Reduce(in, out, N, MPI_CHAR, ops[op], size - 1, MPI_COMM_WORLD));
        if (rank == size - 1)
            MT_CHECK(memcmp(out, want, N) == 0, "MPI_Reduce %s to the last rank",
                     op_names[op]);
    }
    /* still refused: the logical ops and the pair ops */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MT_EXPECT_CLASS(MPI_Allreduce(in, out, N, MPI_CHAR, MPI_LAND, MPI_COMM_WORLD), MPI_ERR_OP);
    MT_EXPECT_CLASS(MPI_Allreduce(in, out, N, MPI_CHAR, MPI_MAXLOC, MPI_COMM_WORLD),
                    MPI_ERR_OP);
    return mt_finalize();
}
