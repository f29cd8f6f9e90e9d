/* Environment basics: Initialized/Finalized around Init and Finalize,
 * Query_thread, Is_thread_main, Wtime/Wtick, Get_processor_name,
 * Get_version, Get_library_version, Abi_get_version. */
#include "mtest.h"

/* MPI-4 9.1.1: "In C, a null character is additionally stored at
 * version[resultlen]".  Open MPI 4.1 counts the null character in resultlen
 * (a known deviation); tolerate exactly that only when built with Open MPI. */
static int libver_len_ok(const char *lib, int len)
{
    if (len <= 0 || len >= MPI_MAX_LIBRARY_VERSION_STRING)
        return 0;
    if ((size_t)len == strlen(lib))
        return 1;
#ifdef OPEN_MPI
    if ((size_t)len == strlen(lib) + 1)
        return 1;
#endif
    return 0;
}

int main(int argc, char **argv)
{
    int flag = -1, version = -1, subversion = -1, len = -1;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];

    /* Callable before MPI_Init. */
    MT_CALL(MPI_Initialized(&flag));
    MT_CHECK(flag == 0, "MPI_Initialized before MPI_Init gave %d", flag);
    flag = -1;
    MT_CALL(MPI_Finalized(&flag));
    MT_CHECK(flag == 0, "MPI_Finalized before MPI_Init gave %d", flag);
    MT_CALL(MPI_Get_version(&version, &subversion));
    MT_CHECK(version == MPI_VERSION && subversion == MPI_SUBVERSION,
             "MPI_Get_version before init: %d.%d, mpi.h says %d.%d", version, subversion,
             MPI_VERSION, MPI_SUBVERSION);
    memset(lib, 'x', sizeof lib);
    MT_CALL(MPI_Get_library_version(lib, &len));
    MT_CHECK(libver_len_ok(lib, len),
             "MPI_Get_library_version before init: resultlen %d, strlen %zu", len, strlen(lib));

    mt_init(&argc, &argv);

    flag = -1;
    MT_CALL(MPI_Initialized(&flag));
    MT_CHECK(flag == 1, "MPI_Initialized after MPI_Init gave %d", flag);
    flag = -1;
    MT_CALL(MPI_Finalized(&flag));
    MT_CHECK(flag == 0, "MPI_Finalized after MPI_Init gave %d", flag);

    /* Thread level of plain MPI_Init: one of the four levels, main thread. */
    int provided = -1;
    MT_CALL(MPI_Query_thread(&provided));
    MT_CHECK(provided == MPI_THREAD_SINGLE || provided == MPI_THREAD_FUNNELED ||
             provided == MPI_THREAD_SERIALIZED || provided == MPI_THREAD_MULTIPLE,
             "MPI_Query_thread gave %d", provided);
    MT_CHECK(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED &&
             MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED &&
             MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE, "thread levels not monotonic");
    flag = -1;
    MT_CALL(MPI_Is_thread_main(&flag));
    MT_CHECK(flag == 1, "MPI_Is_thread_main in main gave %d", flag);

    /* Rank / size. */
    MT_CHECK(mt_size >= 1 && mt_rank >= 0 && mt_rank < mt_size, "rank %d size %d", mt_rank,
             mt_size);

    /* Wtime / Wtick. */
    double tick = MPI_Wtick();
    MT_CHECK(tick > 0.0 && tick <= 0.01, "MPI_Wtick() = %g", tick);
    double t0 = MPI_Wtime();
    double prev = t0;
    for (int i = 0; i < 100000; i++) {
        double t = MPI_Wtime();
        if (t < prev) {
            MT_CHECK(t >= prev, "MPI_Wtime went backwards: %.9f after %.9f", t, prev);
            break;
        }
        prev = t;
    }
    double a = MPI_Wtime();
    mt_sleep_ms(50);
    double b = MPI_Wtime();
    MT_CHECK(b - a >= 0.045 && b - a < 10.0, "50 ms sleep measured as %.6f s by MPI_Wtime",
             b - a);

    /* Processor name. */
    char name[MPI_MAX_PROCESSOR_NAME];
    memset(name, 'x', sizeof name);
    len = -1;
    MT_CALL(MPI_Get_processor_name(name, &len));
    MT_CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME, "processor name length %d", len);
    if (len > 0 && len < MPI_MAX_PROCESSOR_NAME)
        MT_CHECK(name[len] == '\0' && strlen(name) == (size_t)len,
                 "processor name not terminated at resultlen %d", len);

    /* Versions. */
    version = subversion = -1;
    MT_CALL(MPI_Get_version(&version, &subversion));
    MT_CHECK(version == MPI_VERSION && subversion == MPI_SUBVERSION,
             "MPI_Get_version %d.%d, mpi.h says %d.%d", version, subversion, MPI_VERSION,
             MPI_SUBVERSION);
    MT_CHECK(version >= 3, "MPI version %d", version);
#if MPI_VERSION >= 5
    MT_CHECK(version == 5 && subversion == 0, "expected MPI 5.0, got %d.%d", version,
             subversion);
    {
        int abi_major = -99, abi_minor = -99;
        MT_CALL(MPI_Abi_get_version(&abi_major, &abi_minor));
        MT_CHECK(abi_major == MPI_ABI_VERSION && abi_minor == MPI_ABI_SUBVERSION,
                 "MPI_Abi_get_version %d.%d, mpi.h says %d.%d", abi_major, abi_minor,
                 MPI_ABI_VERSION, MPI_ABI_SUBVERSION);
        MT_CHECK(abi_major >= 1, "ABI major version %d", abi_major);
    }
#endif
    len = -1;
    MT_CALL(MPI_Get_library_version(lib, &len));
    MT_CHECK(libver_len_ok(lib, len), "MPI_Get_library_version resultlen %d, strlen %zu", len,
             strlen(lib));

    /* A little communication so that init really brought the job up. */
    int sum = 0, me = mt_rank + 1;
    MT_CALL(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MT_CHECK(sum == mt_size * (mt_size + 1) / 2, "allreduce sum %d", sum);

    /* Collect the verdict before MPI_Finalize, but print it after the
     * post-finalize checks below. */
    int total = 0;
    MT_CALL(MPI_Allreduce(&mt_errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    int rc = MPI_Finalize();
    MT_CHECK(rc == MPI_SUCCESS, "MPI_Finalize returned %d", rc);

    flag = -1;
    MPI_Finalized(&flag);
    MT_CHECK(flag == 1, "MPI_Finalized after MPI_Finalize gave %d", flag);
    flag = -1;
    MPI_Initialized(&flag);
    MT_CHECK(flag == 1, "MPI_Initialized after MPI_Finalize gave %d (must stay true)", flag);
    version = subversion = -1;
    MPI_Get_version(&version, &subversion);
    MT_CHECK(version == MPI_VERSION, "MPI_Get_version after finalize gave %d", version);
    len = -1;
    MPI_Get_library_version(lib, &len);
    MT_CHECK(len > 0, "MPI_Get_library_version after finalize: resultlen %d", len);

    total += mt_errs;
    if (mt_rank == 0 && total == 0)
        printf(" No Errors\n");
    return total ? 1 : 0;
}
