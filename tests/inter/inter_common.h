/* Shared set-up of the intercommunicator tests: COMM_WORLD split by rank
 * parity (uneven halves with an odd size), joined into an intercommunicator
 * whose leaders are world ranks 0 and 1. */
#ifndef TERN_TESTS_INTER_COMMON_H
#define TERN_TESTS_INTER_COMMON_H

#include "mtest.h"

typedef struct {
    MPI_Comm local, inter;
    int color;         /* 0: even world ranks, 1: odd */
    int lrank, lsize, rsize;
} it_t;

/* World rank of rank r of the group of color c. */
MT_UNUSED static int it_world(int c, int r)
{
    return 2 * r + c;
}

MT_UNUSED static void it_setup(it_t *t)
{
    t->color = mt_rank % 2;
    MT_CALL(MPI_Comm_split(MPI_COMM_WORLD, t->color, mt_rank, &t->local));
    MT_CALL(MPI_Intercomm_create(t->local, 0, MPI_COMM_WORLD, 1 - t->color, 77, &t->inter));
    MT_CALL(MPI_Comm_rank(t->inter, &t->lrank));
    MT_CALL(MPI_Comm_size(t->inter, &t->lsize));
    MT_CALL(MPI_Comm_remote_size(t->inter, &t->rsize));
}

MT_UNUSED static void it_teardown(it_t *t)
{
    MT_CALL(MPI_Comm_free(&t->inter));
    MT_CALL(MPI_Comm_free(&t->local));
}

#endif
