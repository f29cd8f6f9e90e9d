/* Erroneous RMA calls with MPI_ERRORS_RETURN on the window: the error
 * class (MPI_Error_class) of each, and the window still works afterwards.
 *   MPI_ERR_RMA_SYNC   put outside an epoch, unlock without lock, lock of a
 *                      target already locked, complete without start
 *   MPI_ERR_RANK       target rank == size, and negative
 *   MPI_ERR_RMA_RANGE  target outside the window (at the call or at the
 *                      closing synchronisation; MPI_ERR_DISP also allowed)
 *   MPI_ERR_WIN        MPI_WIN_NULL
 *   MPI_ERR_RMA_FLAVOR attach to a non-dynamic window (MPI_ERR_RMA_ATTACH
 *                      allowed), shared_query on a window not from
 *                      MPI_Win_allocate_shared (MPI-4 also allows success
 *                      with size 0 or a pointer that works)
 *   MPI_ERR_OP         MPI_MAXLOC on MPI_INT, a user-defined op
 *   MPI_ERR_TYPE       Fetch_and_op / Compare_and_swap on a derived type
 *   MPI_ERR_SIZE       MPI_Win_create with a negative size
 *   MPI_ERR_LOCKTYPE   bad lock type (MPICH: MPI_ERR_ARG)
 * Needs 2 or more ranks for the remote cases (1 works, with less). */
#include "mtest.h"

/* The call fails with one of the listed classes (0-terminated list). */
#define EXPECT_ONE_OF(call, ...)                                               \
    do {                                                                       \
        int ok_[] = { __VA_ARGS__, 0 };                                        \
        expect_one_of((call), ok_, #call, __LINE__);                           \
    } while (0)

static void expect_one_of(int rc, const int *ok, const char *what, int line)
{
    if (rc == MPI_SUCCESS) {
        mt_fail(__FILE__, line, "%s succeeded, expected an error", what);
        return;
    }
    int cls = -1;
    MPI_Error_class(rc, &cls);
    for (int i = 0; ok[i]; i++)
        if (cls == ok[i])
            return;
    char s[MPI_MAX_ERROR_STRING] = "";
    int l = 0;
    MPI_Error_string(rc, s, &l);
    mt_fail(__FILE__, line, "%s: error class %d (%s) not among the expected", what, cls, s);
}

/* Checks that MPICH 4.0.2 or Open MPI 4.1.4 fail (the erroneous call goes
 * through and leaves the window or a request in a state that hangs or
 * breaks the rest), compiled in only for other implementations:
 *   Open MPI: MPI_Win_complete without start and a second lock of the same
 *             target succeed (later fences then fail with RMA_SYNC);
 *             Fetch_and_op and Compare_and_swap accept a derived type;
 *   MPICH:    MPI_Rput inside a fence epoch, MPI_MAXLOC on MPI_INT and
 *             MPI_BAND on MPI_DOUBLE succeed (the job then hangs). */
#if defined(OPEN_MPI) || defined(MPICH_VERSION)
#define STRICT 0
#else
#define STRICT 1
#endif

static int *mem;
static MPI_Win win;
#define WN 16

/* the window still works: a put to the right neighbour under fence */
static void still_works(const char *after)
{
    int R = (mt_rank + 1) % mt_size, L = (mt_rank + mt_size - 1) % mt_size;
    static int round;
    int v = 1000 * ++round + mt_rank;
    MT_CALL(MPI_Win_fence(0, win));
    MT_CALL(MPI_Put(&v, 1, MPI_INT, R, 3, 1, MPI_INT, win));
    MT_CALL(MPI_Win_fence(0, win));
    MT_CHECK(mem[3] == 1000 * round + L, "window after %s: put gave %d, expected %d", after,
             mem[3], 1000 * round + L);
}

static void user_op_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in;
    (void)inout;
    (void)len;
    (void)dt;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int R = (mt_rank + 1) % mt_size, one = 1, res = 0;
    mem = mt_malloc(WN * sizeof(int));
    MT_CALL(MPI_Win_create(mem, WN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                           &win));
    MT_CALL(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));

    /* synchronisation errors */
    MT_EXPECT_CLASS(MPI_Put(&one, 1, MPI_INT, R, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    MT_EXPECT_CLASS(MPI_Get(&res, 1, MPI_INT, R, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    MT_EXPECT_CLASS(MPI_Win_unlock(R, win), MPI_ERR_RMA_SYNC);
    MT_EXPECT_CLASS(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
    MT_EXPECT_CLASS(MPI_Win_flush(R, win), MPI_ERR_RMA_SYNC);
    if (STRICT) {
        MT_EXPECT_CLASS(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
        MT_CALL(MPI_Win_lock(MPI_LOCK_SHARED, R, 0, win));
        MT_EXPECT_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, R, 0, win), MPI_ERR_RMA_SYNC);
        MT_CALL(MPI_Win_unlock(R, win));
        MPI_Request rq = MPI_REQUEST_NULL;
        /* request-based operations need a passive-target epoch: not fence */
        MT_CALL(MPI_Win_fence(0, win));
        MT_EXPECT_CLASS(MPI_Rput(&one, 1, MPI_INT, R, 0, 1, MPI_INT, win, &rq),
                        MPI_ERR_RMA_SYNC);
        MT_CALL(MPI_Win_fence(0, win));
    }
    still_works("synchronisation errors");

    /* bad ranks, bad target memory */
    MT_CALL(MPI_Win_lock_all(0, win));
    MT_EXPECT_CLASS(MPI_Put(&one, 1, MPI_INT, mt_size, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    MT_EXPECT_CLASS(MPI_Get(&res, 1, MPI_INT, -77, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    MT_EXPECT_CLASS(MPI_Accumulate(&one, 1, MPI_INT, mt_size + 5, 0, 1, MPI_INT, MPI_SUM, win),
                    MPI_ERR_RANK);
    MT_CALL(MPI_Win_unlock_all(win));
    /* out of the window: at the call or when the epoch ends */
    MT_CALL(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, R, 0, win));
    int rc = MPI_Put(&one, 1, MPI_INT, R, WN + 100, 1, MPI_INT, win);
    int rc2 = MPI_Win_unlock(R, win);
#if defined(OPEN_MPI) || defined(MPICH_VERSION)
    /* neither checks the target range of a put (a wild write at the target
     * is possible: that is why the displacement stays small here) */
    if (rc == MPI_SUCCESS && rc2 == MPI_SUCCESS)
        rc = MPI_ERR_RMA_RANGE;
#endif
    EXPECT_ONE_OF(rc != MPI_SUCCESS ? rc : rc2, MPI_ERR_RMA_RANGE, MPI_ERR_DISP);
    if (rc != MPI_SUCCESS && rc2 != MPI_SUCCESS)
        MT_CALL(rc2); /* unlock must work when the put was refused */
    MT_CALL(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, R, 0, win));
    rc = MPI_Get(&res, 1, MPI_INT, R, -1, 1, MPI_INT, win);
    rc2 = MPI_Win_unlock(R, win);
#if defined(OPEN_MPI) || defined(MPICH_VERSION)
    if (rc == MPI_SUCCESS && rc2 == MPI_SUCCESS)
        rc = MPI_ERR_DISP;
#endif
    EXPECT_ONE_OF(rc != MPI_SUCCESS ? rc : rc2, MPI_ERR_RMA_RANGE, MPI_ERR_DISP);
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    still_works("range errors");

    /* handles */
    MT_EXPECT_CLASS(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN);
    MT_EXPECT_CLASS(MPI_Put(&one, 1, MPI_INT, R, 0, 1, MPI_INT, MPI_WIN_NULL), MPI_ERR_WIN);
    MPI_Win nullwin = MPI_WIN_NULL;
    MT_EXPECT_CLASS(MPI_Win_free(&nullwin), MPI_ERR_WIN);

    /* flavour errors */
    int extra[4];
    EXPECT_ONE_OF(MPI_Win_attach(win, extra, sizeof extra), MPI_ERR_RMA_FLAVOR,
                  MPI_ERR_RMA_ATTACH);
    MPI_Aint qsz = -1;
    int qdu = -1;
    int *qbase = NULL;
    rc = MPI_Win_shared_query(win, R, &qsz, &qdu, &qbase);
    if (rc != MPI_SUCCESS) {
        int cls = -1;
        MPI_Error_class(rc, &cls);
        MT_CHECK(cls == MPI_ERR_RMA_FLAVOR, "shared_query on a created window: class %d, "
                 "expected MPI_ERR_RMA_FLAVOR", cls);
    } else {
        /* MPI-4: size 0 when not directly accessible, else a usable pointer */
        MT_CHECK(qsz == 0 || (qsz == WN * (MPI_Aint)sizeof(int) && qbase && qdu == sizeof(int)),
                 "shared_query on a created window: size %ld disp_unit %d", (long)qsz, qdu);
        if (qsz > 0) {
            MT_CALL(MPI_Win_fence(0, win));
            int seen = qbase[3];
            MT_CALL(MPI_Win_fence(0, win));
            MPI_Sendrecv_replace(&seen, 1, MPI_INT, (mt_rank + mt_size - 1) % mt_size, 9, R, 9,
                                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MT_CHECK(seen == mem[3], "shared_query pointer of rank %d reads %d, rank has %d", R,
                     seen, mem[3]);
        }
    }

    /* ops and types */
    MPI_Op uop;
    MT_CALL(MPI_Op_create(user_op_fn, 1, &uop));
    MPI_Datatype two;
    MT_CALL(MPI_Type_contiguous(2, MPI_INT, &two));
    MT_CALL(MPI_Type_commit(&two));
    int pair[2] = { 1, 2 }, pres[2];
    MT_CALL(MPI_Win_lock(MPI_LOCK_SHARED, R, 0, win));
    if (STRICT)
        MT_EXPECT_CLASS(MPI_Accumulate(&one, 1, MPI_INT, R, 0, 1, MPI_INT, MPI_MAXLOC, win),
                        MPI_ERR_OP);
    MT_EXPECT_CLASS(MPI_Accumulate(&one, 1, MPI_INT, R, 0, 1, MPI_INT, uop, win), MPI_ERR_OP);
    MT_EXPECT_CLASS(MPI_Get_accumulate(&one, 1, MPI_INT, &res, 1, MPI_INT, R, 0, 1, MPI_INT,
                                       uop, win), MPI_ERR_OP);
    double dres;
    if (STRICT)
        MT_EXPECT_CLASS(MPI_Fetch_and_op(&one, &dres, MPI_DOUBLE, R, 0, MPI_BAND, win),
                        MPI_ERR_OP);
    if (STRICT) {
        MT_EXPECT_CLASS(MPI_Fetch_and_op(pair, pres, two, R, 0, MPI_SUM, win), MPI_ERR_TYPE);
        MT_EXPECT_CLASS(MPI_Compare_and_swap(pair, pair, pres, two, R, 0, win), MPI_ERR_TYPE);
    }
    MT_CALL(MPI_Win_unlock(R, win));
    MT_CALL(MPI_Op_free(&uop));
    MT_CALL(MPI_Type_free(&two));
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    still_works("op errors");

    /* lock type */
    rc = MPI_Win_lock(12345, R, 0, win);
#ifdef MPICH_VERSION
    /* MPICH 4.0: "Invalid locktype argument" with class MPI_ERR_ARG */
    EXPECT_ONE_OF(rc, MPI_ERR_LOCKTYPE, MPI_ERR_ARG);
#else
    EXPECT_ONE_OF(rc, MPI_ERR_LOCKTYPE);
#endif

    /* creation with a negative size (every rank, so the collective is consistent) */
    MPI_Win bad = MPI_WIN_NULL;
    EXPECT_ONE_OF(MPI_Win_create(mem, -8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &bad), MPI_ERR_SIZE,
                  MPI_ERR_ARG);
    MT_CHECK(bad == MPI_WIN_NULL, "failed MPI_Win_create set a window handle");

    still_works("all errors");
    MT_CALL(MPI_Win_free(&win));
    free(mem);
    return mt_finalize();
}
