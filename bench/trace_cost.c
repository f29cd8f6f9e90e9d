/* What one trace record costs (docs/trace.md, "Cost"): a single process
 * calls MPI_Comm_rank (a record with no items) and a self MPI_Sendrecv (a
 * record with send, receive and status items) in loops and prints ns per
 * call.  Run it with TERN_TRACE set and unset; the difference is the
 * recorder's cost per call:
 *   build/bin/trace_cost; TERN_TRACE=/tmp/t build/bin/trace_cost */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2000000, r;
    char buf[8] = { 0 };
    MPI_Status st;
    MPI_Init(&argc, &argv);
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
    }
    double t1 = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        MPI_Sendrecv(buf, 8, MPI_CHAR, 0, 1, buf, 8, MPI_CHAR, 0, 1, MPI_COMM_SELF, &st);
    }
    double t2 = MPI_Wtime();
    printf("trace_cost: MPI_Comm_rank %.1f ns, self MPI_Sendrecv %.1f ns\n",
           (t1 - t0) / n * 1e9, (t2 - t1) / n * 1e9);
    MPI_Finalize();
    return 0;
}
