/* Names of the null handles: MPI_Type_get_name(MPI_DATATYPE_NULL) and
 * MPI_Comm_get_name(MPI_COMM_NULL) succeed and answer "MPI_DATATYPE_NULL"
 * and "MPI_COMM_NULL" (as MPICH and Open MPI do; mpi4py's test_datatype and
 * test_comm check it); an invalid handle is still an error. */
#include "mtest.h"

int main(int argc, char **argv)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;

    mt_init(&argc, &argv);

    MT_CALL(MPI_Type_get_name(MPI_DATATYPE_NULL, name, &len));
    MT_CHECK(strcmp(name, "MPI_DATATYPE_NULL") == 0 && len == (int)strlen(name),
             "datatype null name '%s' len %d", name, len);
    MT_CALL(MPI_Comm_get_name(MPI_COMM_NULL, name, &len));
    MT_CHECK(strcmp(name, "MPI_COMM_NULL") == 0 && len == (int)strlen(name),
             "comm null name '%s' len %d", name, len);

    /* the ordinary ones are unchanged */
    MT_CALL(MPI_Type_get_name(MPI_INT, name, &len));
    MT_CHECK(strcmp(name, "MPI_INT") == 0, "MPI_INT name '%s'", name);
    MT_CALL(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    MT_CHECK(strcmp(name, "MPI_COMM_WORLD") == 0, "world name '%s'", name);
    MT_EXPECT_CLASS(MPI_Type_get_name(MPI_DATATYPE_NULL, NULL, &len), MPI_ERR_ARG);
    return mt_finalize();
}
