/* Helpers of the nonblocking/persistent collective tests (tests/nbc), on top
 * of tests/mpi/mtest.h.  Every rank can compute every contribution
 * (nbct_val), so each test checks exact results.  NBCT_AFF is a
 * non-commutative op: pairs (a, b) of ints are the maps x -> a x + b mod P,
 * combined in rank order (in first, then inout). */
#ifndef TERN_TESTS_NBCT_H
#define TERN_TESTS_NBCT_H

#include "mtest.h"

#define NBCT_P 997

MT_UNUSED static int nbct_val(int r, int i, int salt)
{
    return (r * 131 + i * 17 + salt * 7) % 100 + 1;
}

MT_UNUSED static void nbct_aff_pair(const int *in, int *inout)
{
    long a1 = in[0], b1 = in[1], a2 = inout[0], b2 = inout[1];
    inout[0] = (int)(a1 * a2 % NBCT_P);
    inout[1] = (int)((a2 * b1 + b2) % NBCT_P);
}

MT_UNUSED static void nbct_aff_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int k = 0; k + 1 < *len; k += 2) {
        nbct_aff_pair((int *)in + k, (int *)inout + k);
    }
}

/* Wait for req by MPI_Test calls only. */
MT_UNUSED static void nbct_test_loop(MPI_Request *req)
{
    int flag = 0;
    while (!flag) {
        MT_CALL(MPI_Test(req, &flag, MPI_STATUS_IGNORE));
    }
}

#endif
