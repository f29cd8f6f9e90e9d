/* MPI_Get_library_version names Tern, its version and the transports this
 * process actually uses: "none started" before MPI_Init and after
 * MPI_Finalize, and in between exactly the list given as argv[1] (e.g.
 * "self, udp" for a job run with TERN_XPORT=udp).  Rank 0 prints its
 * string, so that a failure shows it. */
#include "mtest.h"

static void check_tail(const char *lib, const char *want, const char *when)
{
    char tail[256];
    size_t lt, ll = strlen(lib);
    snprintf(tail, sizeof(tail), "; transports: %s", want);
    lt = strlen(tail);
    MT_CHECK(ll >= lt && strcmp(lib + ll - lt, tail) == 0,
             "%s: library version '%s' does not end in '%s'", when, lib, tail);
}

int main(int argc, char **argv)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    char want_ver[64];
    int len = -1;
    const char *want = argc > 1 ? argv[1] : "(no expected list given)";

    MPI_Get_library_version(lib, &len);
    check_tail(lib, "none started", "before MPI_Init");

    mt_init(&argc, &argv);
    MT_CALL(MPI_Get_library_version(lib, &len));
    MT_CHECK(len == (int)strlen(lib), "resultlen %d, strlen %zu", len, strlen(lib));
    snprintf(want_ver, sizeof(want_ver), "Tern %s (", TERN_VERSION);
    MT_CHECK(strncmp(lib, want_ver, strlen(want_ver)) == 0,
             "library version '%s' does not start with '%s'", lib, want_ver);
    check_tail(lib, want, "after MPI_Init");
    if (mt_rank == 0) {
        printf("rank 0: %s\n", lib);
    }
    int rc = mt_finalize();

    MPI_Get_library_version(lib, &len);
    if (strstr(lib, "; transports: none started") == NULL) {
        printf("rank %d: FAIL after MPI_Finalize: library version '%s'\n", mt_rank, lib);
        rc = 1;
    }
    return rc;
}
