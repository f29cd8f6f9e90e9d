/* Built by tests/hdr/wrapper_test.sh with the build-tree mpicc: it must
 * compile, link against libmpi_abi and load it at run time (rpath). It calls
 * no MPI function, so it does not depend on how much of MPI works yet. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int (*volatile send)(const void *, int, MPI_Datatype, int, int, MPI_Comm) = MPI_Send;
    int (*volatile psend)(const void *, int, MPI_Datatype, int, int, MPI_Comm) = PMPI_Send;

    if (argc > 1000) {
        MPI_Init(&argc, &argv);
        MPI_Finalize();
    }
    printf("mpicc ok %d\n", (int)sizeof(MPI_Status));
    return send == NULL || psend == NULL;
}
