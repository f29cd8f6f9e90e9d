/* Helpers of the topology tests (tests/topo).  Standard MPI only, so the
 * programs build against any MPI.
 *   - every failed check prints "rank R: FAIL file:line: ..." to stderr;
 *   - tt_finalize() sums the failures over MPI_COMM_WORLD; rank 0 prints
 *     " No Errors" when there were none; the exit status is 0 only then. */
#ifndef TERN_TESTS_TOPO_TT_H
#define TERN_TESTS_TOPO_TT_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TT_UNUSED __attribute__((unused))

static int tt_errs;
static int tt_rank = -1;
static int tt_size = -1;

__attribute__((format(printf, 3, 4)))
TT_UNUSED static void tt_fail(const char *file, int line, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    if (++tt_errs > 40)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "rank %d: FAIL %s:%d: %s\n", tt_rank, file, line, msg);
    fflush(stderr);
}

/* TT_CHECK(cond, "fmt", args...) */
#define TT_CHECK(cond, ...)                                                    \
    do {                                                                       \
        if (!(cond))                                                           \
            tt_fail(__FILE__, __LINE__, __VA_ARGS__);                          \
    } while (0)

/* The call must return MPI_SUCCESS. */
#define TT_CALL(call)                                                          \
    do {                                                                       \
        int tt_rc_ = (call);                                                   \
        if (tt_rc_ != MPI_SUCCESS) {                                           \
            char tt_s_[MPI_MAX_ERROR_STRING] = "";                             \
            int tt_l_ = 0;                                                     \
            MPI_Error_string(tt_rc_, tt_s_, &tt_l_);                           \
            tt_fail(__FILE__, __LINE__, "%s returned %d (%s)", #call, tt_rc_, tt_s_); \
        }                                                                      \
    } while (0)

/* The call must fail with error class cls (MPI_ERRORS_RETURN is set). */
#define TT_EXPECT_CLASS(call, cls)                                             \
    do {                                                                       \
        int tt_rc_ = (call), tt_cls_ = -1;                                     \
        if (tt_rc_ == MPI_SUCCESS) {                                           \
            tt_fail(__FILE__, __LINE__, "%s succeeded, expected %s", #call, #cls); \
        } else {                                                               \
            MPI_Error_class(tt_rc_, &tt_cls_);                                 \
            if (tt_cls_ != (cls)) {                                            \
                char tt_s_[MPI_MAX_ERROR_STRING] = "";                         \
                int tt_l_ = 0;                                                 \
                MPI_Error_string(tt_rc_, tt_s_, &tt_l_);                       \
                tt_fail(__FILE__, __LINE__, "%s: class %d (%s), expected %s (%d)", \
                        #call, tt_cls_, tt_s_, #cls, (int)(cls));              \
            }                                                                  \
        }                                                                      \
    } while (0)

/* "a,b,c" of n ints, for messages (a static buffer per call site use). */
TT_UNUSED static const char *tt_ints(char *buf, size_t len, const int *v, int n)
{
    size_t o = 0;

    buf[0] = '\0';
    for (int i = 0; i < n && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%d", i ? "," : "", v[i]);
    return buf;
}

TT_UNUSED static void tt_init(int *argc, char ***argv)
{
    if (MPI_Init(argc, argv) != MPI_SUCCESS) {
        fprintf(stderr, "FAIL: MPI_Init\n");
        exit(1);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &tt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &tt_size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
}

TT_UNUSED static int tt_finalize(void)
{
    int total = 0;

    if (MPI_Allreduce(&tt_errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: FAIL MPI_Allreduce of the error count\n", tt_rank);
        total = tt_errs + 1;
    }
    if (tt_rank == 0) {
        if (total == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", total);
        fflush(stdout);
    }
    if (MPI_Finalize() != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: FAIL MPI_Finalize\n", tt_rank);
        return 1;
    }
    return total == 0 && tt_errs == 0 ? 0 : 1;
}

/* MPI_Topo_test must say want. */
#define TT_TOPO_IS(comm, want)                                                 \
    do {                                                                       \
        int tt_st_ = -1;                                                       \
        TT_CALL(MPI_Topo_test((comm), &tt_st_));                               \
        TT_CHECK(tt_st_ == (want), "MPI_Topo_test(%s) = %d, expected %s (%d)", \
                 #comm, tt_st_, #want, (int)(want));                           \
    } while (0)

#endif
