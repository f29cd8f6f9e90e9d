// Built by tests/hdr/wrapper_test.sh with the build-tree mpicxx (see wrap_prog.c).
#include <mpi.h>
#include <cstdio>

int main(int argc, char **argv)
{
    int (*volatile get_version)(int *, int *) = MPI_Get_version;

    if (argc > 1000) {
        MPI_Init(&argc, &argv);
        MPI_Finalize();
    }
    std::printf("mpicxx ok %d\n", static_cast<int>(sizeof(MPI_Status)));
    return get_version == 0;
}
