/* Shared pieces of the nonblocking / persistent intercommunicator tests:
 * the four ways a collective is run (MPI_I<coll>, MPI_I<coll>_c, and the
 * persistent MPI_<coll>_init / _init_c started ITERS times) and completion
 * by MPI_Wait or by an MPI_Test loop. */
#ifndef TERN_TESTS_INTER_NBC_COMMON_H
#define TERN_TESTS_INTER_NBC_COMMON_H

#include "inter_common.h"

enum { M_NB, M_NB_C, M_INIT, M_INIT_C, M_COUNT };

#define ITERS 3

MT_UNUSED static const char *mode_name[M_COUNT] = { "I", "I_c", "init", "init_c" };

/* Iterations of mode m: a persistent request is started ITERS times. */
MT_UNUSED static int iters(int m)
{
    return m >= M_INIT ? ITERS : 1;
}

/* A value that names its sender (world rank w), the iteration and the
 * element. */
MT_UNUSED static int V(int w, int it, int i)
{
    return w * 10000 + it * 1000 + i;
}

/* Make (first iteration) and start the request of mode m. */
#define NBC_START(m, it, r, nb, nbc, init, initc)                              \
    do {                                                                       \
        if ((m) == M_NB) {                                                     \
            MT_CALL(nb);                                                       \
        } else if ((m) == M_NB_C) {                                            \
            MT_CALL(nbc);                                                      \
        } else {                                                               \
            if ((it) == 0) {                                                   \
                if ((m) == M_INIT) {                                           \
                    MT_CALL(init);                                             \
                } else {                                                       \
                    MT_CALL(initc);                                            \
                }                                                              \
            }                                                                  \
            MT_CALL(MPI_Start(&(r)));                                          \
        }                                                                      \
    } while (0)

/* Complete r: an MPI_Test loop on odd iterations, MPI_Wait on even ones;
 * a persistent request is freed after its last iteration. */
MT_UNUSED static void nbc_finish(MPI_Request *r, int m, int it)
{
    int flag = 0;

    if (it % 2 == 1) {
        while (!flag) {
            MT_CALL(MPI_Test(r, &flag, MPI_STATUS_IGNORE));
        }
    } else {
        MT_CALL(MPI_Wait(r, MPI_STATUS_IGNORE));
    }
    if (m >= M_INIT) {
        MT_CHECK(*r != MPI_REQUEST_NULL, "persistent request freed by completion");
        if (it == iters(m) - 1) {
            MT_CALL(MPI_Request_free(r));
        }
    } else {
        MT_CHECK(*r == MPI_REQUEST_NULL, "nonblocking request not freed by completion");
    }
}

#endif
