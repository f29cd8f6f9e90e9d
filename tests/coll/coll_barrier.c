/* MPI_Barrier: nobody leaves before everybody entered (one late rank per
 * round, times compared on CLOCK_MONOTONIC, which all ranks of a node
 * share), on COMM_WORLD and a reversed communicator. */
#include "collt.h"

static void run(MPI_Comm comm, const char *cname)
{
    enum { ROUNDS = 12 };
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    double *enter = mt_malloc((size_t)size * sizeof(double));
    double *leave = mt_malloc((size_t)size * sizeof(double));
    for (int it = 0; it < ROUNDS; it++) {
        if (it % size == rank)
            mt_sleep_ms(4);
        double t_in = mt_mono_now();
        MT_CALL(MPI_Barrier(comm));
        double t_out = mt_mono_now();
        MT_CALL(MPI_Gather(&t_in, 1, MPI_DOUBLE, enter, 1, MPI_DOUBLE, 0, comm));
        MT_CALL(MPI_Gather(&t_out, 1, MPI_DOUBLE, leave, 1, MPI_DOUBLE, 0, comm));
        if (rank == 0) {
            double max_in = enter[0], min_out = leave[0];
            for (int r = 1; r < size; r++) {
                if (enter[r] > max_in)
                    max_in = enter[r];
                if (leave[r] < min_out)
                    min_out = leave[r];
            }
            MT_CHECK(min_out >= max_in, "%s: round %d: a rank left the barrier %.6f s before "
                     "the last one entered", cname, it, max_in - min_out);
        }
    }
    /* many in a row: no message of one barrier may be taken for the next */
    for (int it = 0; it < 200; it++)
        MT_CALL(MPI_Barrier(comm));
    free(enter);
    free(leave);
}

int main(int argc, char **argv)
{
    collt_init(&argc, &argv);
    for (int c = 0; c < COLLT_NCOMMS; c++)
        run(collt_comms[c], collt_comm_names[c]);
    return collt_finalize();
}
