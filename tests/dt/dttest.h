/* Helpers for the datatype MPI tests: CHECK / CALL record failures as
 * "rank R: FAIL file:line: ..." lines; dt_finish() sums them over
 * MPI_COMM_WORLD, has rank 0 print " No Errors" when there were none and
 * returns the exit status.  Standard MPI only. */
#ifndef TERN_TESTS_DT_DTTEST_H
#define TERN_TESTS_DT_DTTEST_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int dt_errs;
static int dt_rank, dt_size;

#define CHECK(cond, ...)                                                            \
    do {                                                                            \
        if (!(cond)) {                                                              \
            dt_errs++;                                                              \
            if (dt_errs < 30) {                                                     \
                fprintf(stderr, "rank %d: FAIL %s:%d: (%s) ", dt_rank, __FILE__,    \
                        __LINE__, #cond);                                           \
                fprintf(stderr, __VA_ARGS__);                                       \
                fputc('\n', stderr);                                                \
            }                                                                       \
        }                                                                           \
    } while (0)

#define CALL(call)                                                                  \
    do {                                                                            \
        int rc_ = (call);                                                           \
        CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_);                    \
    } while (0)

/* the error class a call returned (MPI_ERRORS_RETURN must be set) */
static inline int dt_class(int rc)
{
    int cls = rc;
    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &cls);
    }
    return cls;
}

static inline void dt_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &dt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &dt_size);
}

static inline int dt_finish(void)
{
    int total = 0;

    MPI_Allreduce(&dt_errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (dt_rank == 0) {
        if (total == 0) {
            printf(" No Errors\n");
        } else {
            printf(" Found %d errors\n", total);
        }
        fflush(stdout);
    }
    MPI_Finalize();
    return total != 0;
}

#endif
