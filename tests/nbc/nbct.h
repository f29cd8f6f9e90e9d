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

/* Start a test program: MPI, the non-commutative op NBCT_AFF (*aff) and
 * COMM_WORLD with its rank order reversed (*rev, errors returned). */
MT_UNUSED static void nbct_begin(int *argc, char ***argv, MPI_Comm *rev, MPI_Op *aff)
{
    mt_init(argc, argv);
    MT_CALL(MPI_Op_create((MPI_User_function *)nbct_aff_fn, 0, aff));
    MT_CALL(MPI_Comm_split(MPI_COMM_WORLD, 0, mt_size - mt_rank, rev));
    MPI_Comm_set_errhandler(*rev, MPI_ERRORS_RETURN);
}

/* Free what nbct_begin made and finish (the exit status). */
MT_UNUSED static int nbct_end(MPI_Comm *rev, MPI_Op *aff)
{
    MPI_Comm_free(rev);
    MPI_Op_free(aff);
    return mt_finalize();
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
