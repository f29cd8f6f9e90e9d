/* MPI_Finalize deletes the attributes of MPI_COMM_SELF first, newest
 * first, while MPI is still fully usable (MPI-4.0 11.2.3), then those of
 * MPI_COMM_WORLD.  The delete callbacks record what they see; the checks
 * run after MPI_Finalize, each rank on its own: rank 0 prints " No Errors"
 * when its checks passed, any rank prints "FAIL" lines otherwise. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

static int order[8], norder;
static int finalized_inside = -1, rank_inside = -1, errs;
static int rank;

static int del_record(MPI_Comm comm, int keyval, void *value, void *extra)
{
    int flag = -1, r = -1;
    if (norder < 8) {
        order[norder] = (int)(intptr_t)value;
    }
    norder++;
    MPI_Finalized(&flag);
    if (finalized_inside != 1) {
        finalized_inside = flag;
    }
    /* MPI still works inside the callback */
    if (MPI_Comm_rank(MPI_COMM_WORLD, &r) != MPI_SUCCESS || r != rank) {
        rank_inside = r;
    } else if (rank_inside == -1) {
        rank_inside = r;
    }
    (void)comm;
    (void)keyval;
    (void)extra;
    return MPI_SUCCESS;
}

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "rank %d: FAIL %s:%d: ", rank, __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                       \
            fprintf(stderr, "\n");                                              \
            errs++;                                                             \
        }                                                                       \
    } while (0)

int main(int argc, char **argv)
{
    int k1, k2, k3, kfreed, flag = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_record, &k1, NULL);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_record, &k2, NULL);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_record, &k3, NULL);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_record, &kfreed, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, k3, (void *)(intptr_t)3);
    MPI_Comm_set_attr(MPI_COMM_SELF, k1, (void *)(intptr_t)1);
    MPI_Comm_set_attr(MPI_COMM_SELF, k2, (void *)(intptr_t)2);
    MPI_Comm_set_attr(MPI_COMM_SELF, kfreed, (void *)(intptr_t)4);
    /* a freed keyval's value is still deleted at finalize */
    MPI_Comm_free_keyval(&kfreed);
    MPI_Finalize();

    MPI_Finalized(&flag);
    CHECK(flag == 1, "MPI_Finalized gives %d", flag);
    CHECK(norder == 4, "%d delete callbacks ran at MPI_Finalize, want 4", norder);
    CHECK(norder < 1 || order[0] == 4, "first deleted value %d, want 4 (SELF, newest)",
          order[0]);
    CHECK(norder < 2 || order[1] == 2, "second deleted value %d, want 2", order[1]);
    CHECK(norder < 3 || order[2] == 1, "third deleted value %d, want 1", order[2]);
    CHECK(norder < 4 || order[3] == 3, "fourth deleted value %d, want 3 (WORLD)", order[3]);
    CHECK(finalized_inside == 0, "MPI_Finalized inside the callbacks gave %d",
          finalized_inside);
    CHECK(rank_inside == rank, "MPI_Comm_rank inside the callbacks gave %d", rank_inside);
    if (errs == 0 && rank == 0) {
        printf(" No Errors\n");
    }
    return errs != 0;
}
