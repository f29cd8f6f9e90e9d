/* MPI_Open_port / MPI_Comm_accept / MPI_Comm_connect between the two
 * halves of one job (even world ranks accept, odd ones connect), the port
 * name passed by MPI_Publish_name / MPI_Lookup_name (the launcher's name
 * service) and checked against the one rank 0 sends over COMM_WORLD:
 *   - the intercommunicator's sizes and remote group, point-to-point both
 *     ways (small and a rendezvous-sized message), a barrier and a bcast
 *     over it, MPI_Intercomm_merge;
 *   - MPI_Comm_disconnect;
 *   - errors: lookup of an unpublished name (MPI_ERR_NAME), a second
 *     publish of a name... unpublish twice (MPI_ERR_SERVICE), closing a
 *     port that is not open (MPI_ERR_PORT), connect to a closed port. */
#include "mtest.h"

#define BIG (256 * 1024)

int main(int argc, char **argv)
{
    MPI_Comm half, inter, merged;
    char port[MPI_MAX_PORT_NAME] = "", looked[MPI_MAX_PORT_NAME] = "";
    int rank, size, hrank, hsize, rsize, color;

    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        MT_DIE("needs at least 2 ranks");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    color = rank % 2;
    MT_CALL(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half));
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);

    if (rank == 0) {
        MT_CALL(MPI_Open_port(MPI_INFO_NULL, port));
        MT_CHECK(strncmp(port, "tern:", 5) == 0, "port name %s", port);
        MT_CALL(MPI_Publish_name("tern-dyn-port-test", MPI_INFO_NULL, port));
        MT_EXPECT_CLASS(MPI_Publish_name("tern-dyn-port-test", MPI_INFO_NULL, port),
                        MPI_ERR_SERVICE);
    }
    MT_CALL(MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD));
    if (color == 1 && hrank == 0) {
        MT_CALL(MPI_Lookup_name("tern-dyn-port-test", MPI_INFO_NULL, looked));
        MT_CHECK(strcmp(looked, port) == 0, "looked up %s, published %s", looked, port);
    }
    if (rank == 0) {
        MT_EXPECT_CLASS(MPI_Lookup_name("tern-no-such-service", MPI_INFO_NULL, looked),
                        MPI_ERR_NAME);
    }
    if (color == 0) {
        MT_CALL(MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter));
    } else {
        MT_CALL(MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &inter));
    }
    int is_inter = 0;
    MT_CALL(MPI_Comm_test_inter(inter, &is_inter));
    MT_CHECK(is_inter, "not an intercommunicator");
    MT_CALL(MPI_Comm_remote_size(inter, &rsize));
    MT_CHECK(rsize == size - hsize, "remote size %d, want %d", rsize, size - hsize);

    /* remote rank i is world rank 2i + (1 - color) */
    MPI_Group rg, wg;
    MPI_Comm_remote_group(inter, &rg);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; i < rsize; i++) {
        int w;
        MPI_Group_translate_ranks(rg, 1, &i, wg, &w);
        MT_CHECK(w == 2 * i + (1 - color), "remote %d is world %d", i, w);
    }
    MPI_Group_free(&rg);
    MPI_Group_free(&wg);

    /* point-to-point: each rank with the remote rank of the same index */
    if (hrank < rsize) {
        int v = rank * 10, got = -1;
        char *big = malloc(BIG), *rbig = malloc(BIG);
        mt_fill(big, BIG, (unsigned)rank);
        MT_CALL(MPI_Sendrecv(&v, 1, MPI_INT, hrank, 1, &got, 1, MPI_INT, hrank, 1, inter,
                             MPI_STATUS_IGNORE));
        MT_CHECK(got == (2 * hrank + 1 - color) * 10, "got %d", got);
        MT_CALL(MPI_Sendrecv(big, BIG, MPI_BYTE, hrank, 2, rbig, BIG, MPI_BYTE, hrank, 2,
                             inter, MPI_STATUS_IGNORE));
        MT_CHECK(mt_verify(rbig, BIG, (unsigned)(2 * hrank + 1 - color)) == (size_t)-1,
                 "big message corrupt");
        free(big);
        free(rbig);
    }
    MT_CALL(MPI_Barrier(inter));
    int b = color == 0 && hrank == 0 ? 4242 : 0;
    MT_CALL(MPI_Bcast(&b, 1, MPI_INT, color == 0 ? (hrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0,
                      inter));
    if (color == 1) {
        MT_CHECK(b == 4242, "bcast gave %d", b);
    }
    MT_CALL(MPI_Intercomm_merge(inter, color, &merged));
    int mrank, msize, sum = 0;
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    MT_CHECK(msize == size, "merged size %d", msize);
    MT_CALL(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, merged));
    MT_CHECK(sum == size * (size - 1) / 2, "sum %d", sum);
    MPI_Comm_free(&merged);
    MT_CALL(MPI_Comm_disconnect(&inter));
    MT_CHECK(inter == MPI_COMM_NULL, "disconnect left a handle");

    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        MT_CALL(MPI_Unpublish_name("tern-dyn-port-test", MPI_INFO_NULL, port));
        MT_EXPECT_CLASS(MPI_Unpublish_name("tern-dyn-port-test", MPI_INFO_NULL, port),
                        MPI_ERR_SERVICE);
        MT_CALL(MPI_Close_port(port));
        MT_EXPECT_CLASS(MPI_Close_port(port), MPI_ERR_PORT);
        MPI_Comm self_inter;
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        MT_EXPECT_CLASS(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &self_inter),
                        MPI_ERR_PORT);
    }
    MPI_Comm_free(&half);
    return mt_finalize();
}
