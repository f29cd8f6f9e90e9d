/* A spawned process dies: the parent job (every rank, root 0) spawns 2
 * children of this program; child 1 prints its pid and kills itself with
 * SIGKILL right after MPI_Init, child 0 waits for a message from the
 * parent that never comes, parent rank 0 waits in MPI_Recv from child 1
 * and the other parent ranks in a barrier that rank 0 never enters.  The
 * launcher must end the whole job (not hang), with a non-zero exit code,
 * and say which process died (checked by the runner: tern-run names the
 * rank and the signal; tests/launch checks Hydra's message against the
 * pid printed here). */
#include "mtest.h"
#include <signal.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Comm parent, inter;
    int rank, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        if (rank == 1) {
            fprintf(stderr, "dyn_spawn_dead: child 1 (pid %d) kills itself\n", (int)getpid());
            fflush(stderr);
            raise(SIGKILL);
        }
        MPI_Recv(&v, 1, MPI_INT, 0, 0, parent, MPI_STATUS_IGNORE);
    } else {
        char *args[] = { "child", NULL };
        MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                       MPI_ERRCODES_IGNORE);
        if (rank == 0) {
            MPI_Recv(&v, 1, MPI_INT, 1, 0, inter, MPI_STATUS_IGNORE);
        } else {
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    fprintf(stderr, "FAIL: %s rank %d returned from a call that cannot complete\n",
            parent != MPI_COMM_NULL ? "child" : "parent", rank);
    MPI_Finalize();
    return 0;
}
