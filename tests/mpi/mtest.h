/* Small helpers shared by the MPI test programs in tests/mpi.
 *
 * Conventions (same idea as MPICH's test/mpi suite):
 *   - a test checks values, not only return codes;
 *   - every failed check prints "rank R: FAIL file:line: ..." to stderr;
 *   - mt_finalize() sums the failures over MPI_COMM_WORLD, rank 0 prints
 *     " No Errors" when there were none, and the program exits non-zero
 *     otherwise.
 * Only standard MPI is used here, so the programs build against any MPI
 * (Tern, Open MPI, MPICH).  Include this header first. */
#ifndef TERN_TESTS_MTEST_H
#define TERN_TESTS_MTEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <mpi.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int mt_errs;     /* failures seen by this process */
static int mt_rank = -1;
static int mt_size = -1;

#define MT_MAX_REPORTED 40
#define MT_UNUSED __attribute__((unused))

MT_UNUSED static void mt_vfail(const char *file, int line, const char *fmt, va_list ap)
{
    mt_errs++;
    if (mt_errs > MT_MAX_REPORTED)
        return;
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    fprintf(stderr, "rank %d: FAIL %s:%d: %s\n", mt_rank, file, line, msg);
    if (mt_errs == MT_MAX_REPORTED)
        fprintf(stderr, "rank %d: (further failures not printed)\n", mt_rank);
    fflush(stderr);
}

__attribute__((format(printf, 3, 4)))
MT_UNUSED static void mt_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mt_vfail(file, line, fmt, ap);
    va_end(ap);
}

__attribute__((format(printf, 4, 5)))
MT_UNUSED static void mt_fail_cond(const char *file, int line, const char *cond,
                                   const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    mt_fail(file, line, "%s  [check: %s]", msg, cond);
}

/* MT_CHECK(cond, "fmt", args...) - record a failure when cond is false. */
#define MT_CHECK(cond, ...)                                                    \
    do {                                                                       \
        if (!(cond))                                                           \
            mt_fail_cond(__FILE__, __LINE__, #cond, __VA_ARGS__);              \
    } while (0)

/* MT_CALL(mpi_call) - the call must return MPI_SUCCESS. */
#define MT_CALL(call)                                                          \
    do {                                                                       \
        int mt_rc_ = (call);                                                   \
        if (mt_rc_ != MPI_SUCCESS) {                                           \
            char mt_s_[MPI_MAX_ERROR_STRING] = "";                             \
            int mt_l_ = 0;                                                     \
            MPI_Error_string(mt_rc_, mt_s_, &mt_l_);                           \
            mt_fail(__FILE__, __LINE__, "%s returned %d (%s)", #call, mt_rc_, mt_s_); \
        }                                                                      \
    } while (0)

/* MT_EXPECT_CLASS(rc_expr, CLASS) - the call must fail with error class CLASS. */
#define MT_EXPECT_CLASS(call, cls)                                             \
    do {                                                                       \
        int mt_rc_ = (call);                                                   \
        int mt_cls_ = -1;                                                      \
        if (mt_rc_ == MPI_SUCCESS) {                                           \
            mt_fail(__FILE__, __LINE__, "%s succeeded, expected %s", #call, #cls); \
        } else {                                                               \
            MPI_Error_class(mt_rc_, &mt_cls_);                                 \
            if (mt_cls_ != (cls)) {                                            \
                char mt_s_[MPI_MAX_ERROR_STRING] = "";                         \
                int mt_l_ = 0;                                                 \
                MPI_Error_string(mt_rc_, mt_s_, &mt_l_);                       \
                mt_fail(__FILE__, __LINE__, "%s: error class %d (%s), expected %s (%d)", \
                        #call, mt_cls_, mt_s_, #cls, (int)(cls));              \
            }                                                                  \
        }                                                                      \
    } while (0)

/* Fatal: print and abort the whole job (for states where going on is pointless). */
#define MT_DIE(...)                                                            \
    do {                                                                       \
        mt_fail(__FILE__, __LINE__, __VA_ARGS__);                              \
        MPI_Abort(MPI_COMM_WORLD, 1);                                          \
        exit(1);                                                               \
    } while (0)

/* Expected world size from the runner (MTEST_NPROCS), or -1. */
MT_UNUSED static int mt_expected_size(void)
{
    const char *s = getenv("MTEST_NPROCS");
    return s && *s ? atoi(s) : -1;
}

MT_UNUSED static int mt_env_int(const char *name, int dflt)
{
    const char *s = getenv(name);
    return s && *s ? atoi(s) : dflt;
}

MT_UNUSED static void mt_after_init(int errors_return)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
    int want = mt_expected_size();
    if (want > 0 && want != mt_size)
        mt_fail(__FILE__, __LINE__, "MPI_COMM_WORLD size %d, launcher asked for %d",
                mt_size, want);
    if (errors_return) {
        /* So that MT_CALL can report a failing call instead of the job aborting. */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    }
}

/* MPI_Init + rank/size + MPI_ERRORS_RETURN on the predefined communicators. */
MT_UNUSED static void mt_init(int *argc, char ***argv)
{
    int rc = MPI_Init(argc, argv);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "FAIL: MPI_Init returned %d\n", rc);
        exit(1);
    }
    mt_after_init(1);
}

/* Sum the failures over MPI_COMM_WORLD, report, finalize.  Returns the exit code. */
MT_UNUSED static int mt_finalize(void)
{
    int total = 0;
    int rc = MPI_Allreduce(&mt_errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: FAIL MPI_Allreduce of the error count returned %d\n",
                mt_rank, rc);
        total = mt_errs + 1;
    }
    if (mt_rank == 0) {
        if (total == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", total);
        fflush(stdout);
    }
    rc = MPI_Finalize();
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: FAIL MPI_Finalize returned %d\n", mt_rank, rc);
        return 1;
    }
    return (total == 0 && mt_errs == 0) ? 0 : 1;
}

/* ------------------------------------------------------------------ utils */

MT_UNUSED static void mt_sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0) {
    }
}

MT_UNUSED static double mt_mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Deterministic byte pattern: depends on the position and a per-message seed. */
MT_UNUSED static inline unsigned char mt_pat(size_t i, unsigned seed)
{
    uint32_t x = (uint32_t)i * 2654435761u + seed * 40503u + (uint32_t)(i >> 13);
    return (unsigned char)(x ^ (x >> 11) ^ (x >> 21));
}

MT_UNUSED static void mt_fill(void *buf, size_t n, unsigned seed)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        p[i] = mt_pat(i, seed);
}

/* Returns the index of the first wrong byte, or (size_t)-1 when all match. */
MT_UNUSED static size_t mt_verify(const void *buf, size_t n, unsigned seed)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        if (p[i] != mt_pat(i, seed))
            return i;
    return (size_t)-1;
}

/* Check a buffer against the pattern, reporting the first mismatch. */
#define MT_CHECK_PATTERN(buf, n, seed, what)                                   \
    do {                                                                       \
        size_t mt_bad_ = mt_verify((buf), (n), (seed));                        \
        if (mt_bad_ != (size_t)-1)                                             \
            mt_fail(__FILE__, __LINE__, "%s: byte %zu of %zu is 0x%02x, expected 0x%02x", \
                    (what), mt_bad_, (size_t)(n),                              \
                    ((const unsigned char *)(buf))[mt_bad_], mt_pat(mt_bad_, (seed))); \
    } while (0)

MT_UNUSED static void *mt_malloc(size_t n)
{
    /* zeroed: no test reads garbage, and gcc -O3 sees no uninitialized
     * buffer passed to an MPI call */
    void *p = calloc(1, n ? n : 1);
    if (!p) {
        fprintf(stderr, "rank %d: FAIL out of memory (%zu bytes)\n", mt_rank, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
        exit(1);
    }
    return p;
}

/* Checks on a status that must be "empty" (MPI-4 3.7.3: source ANY_SOURCE,
 * tag ANY_TAG, count 0, not cancelled). */
#define MT_CHECK_EMPTY_STATUS(st, what)                                        \
    do {                                                                       \
        int mt_c_ = -1, mt_x_ = -1;                                            \
        MPI_Get_count(&(st), MPI_BYTE, &mt_c_);                                \
        MPI_Test_cancelled(&(st), &mt_x_);                                     \
        MT_CHECK((st).MPI_SOURCE == MPI_ANY_SOURCE && (st).MPI_TAG == MPI_ANY_TAG \
                 && mt_c_ == 0 && !mt_x_,                                      \
                 "%s: status not empty (source %d tag %d count %d cancelled %d)", \
                 (what), (st).MPI_SOURCE, (st).MPI_TAG, mt_c_, mt_x_);         \
    } while (0)

/* A status from a PROC_NULL receive: source PROC_NULL, tag ANY_TAG, count 0. */
#define MT_CHECK_PROCNULL_STATUS(st, what)                                     \
    do {                                                                       \
        int mt_c_ = -1;                                                        \
        MPI_Get_count(&(st), MPI_INT, &mt_c_);                                 \
        MT_CHECK((st).MPI_SOURCE == MPI_PROC_NULL && (st).MPI_TAG == MPI_ANY_TAG \
                 && mt_c_ == 0,                                                \
                 "%s: PROC_NULL status wrong (source %d tag %d count %d)",     \
                 (what), (st).MPI_SOURCE, (st).MPI_TAG, mt_c_);                \
    } while (0)

/* Fill a status with garbage so a test can tell whether it was written. */
MT_UNUSED static void mt_poison_status(MPI_Status *st)
{
    memset(st, 0x5c, sizeof *st);
    st->MPI_SOURCE = -12345;
    st->MPI_TAG = -12345;
}

#endif
