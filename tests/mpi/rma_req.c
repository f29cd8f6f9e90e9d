/* Request-based RMA inside lock_all epochs: MPI_Rput, MPI_Rget,
 * MPI_Raccumulate and MPI_Rget_accumulate completed with MPI_Wait, MPI_Test
 * loops and MPI_Waitall on a mixed array, on every window flavour; an Rput
 * request completes locally (buffer reusable), a flush completes it at the
 * target.  Then the MPI-4 large-count `_c` functions (MPI_Put_c, _Get_c,
 * _Accumulate_c, _Get_accumulate_c, the R*_c forms, MPI_Win_create_c,
 * _allocate_c, _allocate_shared_c, _shared_query_c) where mpi.h is MPI-4:
 * MPICH 4.0 has them all; Open MPI 4.1 is MPI-3.1 and has none (the part is
 * compiled out there).  Any number of ranks. */
#include "mtest.h"
#include "rma_util.h"

#define N 64

static int val(int r, int i)
{
    return 10000 * (r + 1) + i;
}

static void wait_test(MPI_Request *r, const char *what)
{
    int flag = 0;
    double t0 = mt_mono_now();
    while (!flag) {
        int rc = MPI_Test(r, &flag, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            MT_CALL(rc);
            return;
        }
        if (mt_mono_now() - t0 > 30) {
            mt_fail(__FILE__, __LINE__, "%s: MPI_Test never completed", what);
            MT_CALL(MPI_Wait(r, MPI_STATUS_IGNORE));
            return;
        }
    }
    MT_CHECK(*r == MPI_REQUEST_NULL, "%s: completed request not freed", what);
}

static void requests(int flavor)
{
    mr_win w;
    if (mr_win_open(&w, flavor, MPI_COMM_WORLD, 4 * N * sizeof(int), sizeof(int),
                    MPI_INFO_NULL) != 0)
        return;
    const char *fn = mr_flavor_name[flavor];
    int me = w.rank, R = (me + 1) % w.size, L = (me + w.size - 1) % w.size;
    int *wi = (int *)(void *)w.base;
    /* [0,N) put target, [N,2N) get source, [2N,3N) accumulate, [3N,4N) get_acc */
    mr_local_begin(&w, MPI_LOCK_EXCLUSIVE);
    for (int i = 0; i < N; i++) {
        wi[i] = -1;
        wi[N + i] = val(me, i);
        wi[2 * N + i] = i;
        wi[3 * N + i] = 1000 * i;
    }
    mr_local_end(&w);
    MT_CALL(MPI_Barrier(w.comm));

    int pbuf[N], gbuf[N], abuf[N], gabuf[N], garesult[N];
    for (int i = 0; i < N; i++) {
        pbuf[i] = val(me, 500 + i);
        gbuf[i] = garesult[i] = -1;
        abuf[i] = me + 1;
        gabuf[i] = 7;
    }
    MT_CALL(MPI_Win_lock_all(0, w.win));
    MPI_Request r;
    /* Rput + Wait: local completion; the buffer may change afterwards */
    MT_CALL(MPI_Rput(pbuf, N, MPI_INT, R, mr_disp(&w, R, 0), N, MPI_INT, w.win, &r));
    MT_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MT_CHECK(r == MPI_REQUEST_NULL, "%s: MPI_Wait did not free the Rput request", fn);
    for (int i = 0; i < N; i++)
        pbuf[i] = -99;
    MT_CALL(MPI_Win_flush(R, w.win));
    /* Rget + Test loop: data is there at completion */
    MT_CALL(MPI_Rget(gbuf, N, MPI_INT, R, mr_disp(&w, R, N * sizeof(int)), N, MPI_INT, w.win,
                     &r));
    wait_test(&r, "Rget");
    for (int i = 0; i < N; i++)
        if (gbuf[i] != val(R, i)) {
            mt_fail(__FILE__, __LINE__, "%s: Rget [%d] = %d, expected %d", fn, i, gbuf[i],
                    val(R, i));
            break;
        }
    /* Rget of what I put (the flush made it visible) */
    MT_CALL(MPI_Rget(gbuf, N, MPI_INT, R, mr_disp(&w, R, 0), N, MPI_INT, w.win, &r));
    MT_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++)
        if (gbuf[i] != val(me, 500 + i)) {
            mt_fail(__FILE__, __LINE__, "%s: Rget after Rput+flush [%d] = %d, expected %d", fn,
                    i, gbuf[i], val(me, 500 + i));
            break;
        }
    /* Raccumulate to everybody, Rget_accumulate to R, one Waitall */
    MPI_Request reqs[66];
    int nr = 0;
    for (int t = 0; t < w.size && nr < 64; t++)
        MT_CALL(MPI_Raccumulate(abuf, N, MPI_INT, t, mr_disp(&w, t, 2 * N * sizeof(int)), N,
                                MPI_INT, MPI_SUM, w.win, &reqs[nr++]));
    MT_CALL(MPI_Rget_accumulate(gabuf, N, MPI_INT, garesult, N, MPI_INT, R,
                                mr_disp(&w, R, 3 * N * sizeof(int)), N, MPI_INT, MPI_SUM, w.win,
                                &reqs[nr++]));
    reqs[nr++] = MPI_REQUEST_NULL; /* null entries are allowed */
    MT_CALL(MPI_Waitall(nr, reqs, MPI_STATUSES_IGNORE));
    for (int i = 0; i < nr; i++)
        MT_CHECK(reqs[i] == MPI_REQUEST_NULL, "%s: Waitall left request %d", fn, i);
    for (int i = 0; i < N; i++)
        if (garesult[i] != 1000 * i) {
            mt_fail(__FILE__, __LINE__, "%s: Rget_accumulate fetched [%d] = %d, expected %d", fn,
                    i, garesult[i], 1000 * i);
            break;
        }
    MT_CALL(MPI_Win_unlock_all(w.win));
    MT_CALL(MPI_Barrier(w.comm));

    int sum = 0;
    for (int r2 = 0; r2 < w.size; r2++)
        sum += r2 + 1;
    mr_local_begin(&w, MPI_LOCK_SHARED);
    for (int i = 0; i < N; i++) {
        if (wi[i] != val(L, 500 + i) || wi[2 * N + i] != i + sum ||
            wi[3 * N + i] != 1000 * i + 7) {
            mt_fail(__FILE__, __LINE__, "%s: target [%d]: put %d (want %d), acc %d (want %d), "
                    "get_acc %d (want %d)", fn, i, wi[i], val(L, 500 + i), wi[2 * N + i],
                    i + sum, wi[3 * N + i], 1000 * i + 7);
            break;
        }
    }
    mr_local_end(&w);
    MT_CALL(MPI_Barrier(w.comm));
    mr_win_close(&w);
}

#if MPI_VERSION >= 4
/* The _c functions with MPI_Count counts (small values: the point is the
 * binding, not 2 GiB transfers). */
static void large_count(void)
{
    int me = mt_rank, R = (me + 1) % mt_size, L = (me + mt_size - 1) % mt_size;
    MPI_Count n = N;
    int *mem = mt_malloc(3 * N * sizeof(int));
    MPI_Win win;
    MT_CALL(MPI_Win_create_c(mem, 3 * N * sizeof(int), (MPI_Aint)sizeof(int), MPI_INFO_NULL,
                             MPI_COMM_WORLD, &win));
    MT_CALL(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int src[N], dst[N], res[N];
    for (int i = 0; i < N; i++) {
        src[i] = val(me, i);
        dst[i] = res[i] = -1;
    }
    MT_CALL(MPI_Win_fence(0, win));
    MT_CALL(MPI_Put_c(src, n, MPI_INT, R, 0, n, MPI_INT, win));
    MT_CALL(MPI_Accumulate_c(src, n, MPI_INT, R, N, n, MPI_INT, MPI_SUM, win));
    MT_CALL(MPI_Win_fence(0, win));
    MT_CALL(MPI_Get_c(dst, n, MPI_INT, R, 0, n, MPI_INT, win));
    MT_CALL(MPI_Get_accumulate_c(src, n, MPI_INT, res, n, MPI_INT, R, N, n, MPI_INT, MPI_SUM,
                                 win));
    MT_CALL(MPI_Win_fence(0, win));
    for (int i = 0; i < N; i++) {
        MT_CHECK(mem[i] == val(L, i), "MPI_Put_c [%d] = %d", i, mem[i]);
        MT_CHECK(dst[i] == val(me, i), "MPI_Get_c [%d] = %d", i, dst[i]);
        MT_CHECK(res[i] == val(me, i), "MPI_Get_accumulate_c fetched [%d] = %d", i, res[i]);
        MT_CHECK(mem[N + i] == 2 * val(L, i), "MPI_Accumulate_c + Get_accumulate_c [%d] = %d", i,
                 mem[N + i]);
    }
    MPI_Request rq[4];
    MT_CALL(MPI_Win_lock_all(0, win));
    MT_CALL(MPI_Rput_c(src, n, MPI_INT, R, 2 * N, n, MPI_INT, win, &rq[0]));
    MT_CALL(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    MT_CALL(MPI_Win_flush(R, win));
    MT_CALL(MPI_Rget_c(dst, n, MPI_INT, R, 2 * N, n, MPI_INT, win, &rq[0]));
    MT_CALL(MPI_Raccumulate_c(src, n, MPI_INT, R, N, n, MPI_INT, MPI_REPLACE, win, &rq[1]));
    MT_CALL(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    MT_CALL(MPI_Win_flush(R, win));
    MT_CALL(MPI_Rget_accumulate_c(NULL, 0, MPI_INT, res, n, MPI_INT, R, N, n, MPI_INT, MPI_NO_OP,
                                  win, &rq[2]));
    MT_CALL(MPI_Wait(&rq[2], MPI_STATUS_IGNORE));
    MT_CALL(MPI_Win_unlock_all(win));
    for (int i = 0; i < N; i++) {
        MT_CHECK(dst[i] == val(me, i), "MPI_Rget_c after MPI_Rput_c [%d] = %d", i, dst[i]);
        MT_CHECK(res[i] == val(me, i), "MPI_Rget_accumulate_c NO_OP after Raccumulate_c REPLACE"
                 " [%d] = %d", i, res[i]);
    }
    MT_CALL(MPI_Win_free(&win));
    free(mem);

    /* allocate_c / allocate_shared_c / shared_query_c: disp_unit is MPI_Aint */
    void *base = NULL;
    MT_CALL(MPI_Win_allocate_c(64, (MPI_Aint)8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    MT_CALL(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int *pdu, flag = 0;
    MT_CALL(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &pdu, &flag));
    MT_CHECK(flag && *pdu == 8, "MPI_Win_allocate_c: disp unit %d", flag ? *pdu : -1);
    MT_CALL(MPI_Win_free(&win));
    MPI_Comm node;
    MT_CALL(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int nr;
    MPI_Comm_rank(node, &nr);
    MT_CALL(MPI_Win_allocate_shared_c(16 * (nr + 1), (MPI_Aint)(nr + 1), MPI_INFO_NULL, node,
                                      &base, &win));
    MT_CALL(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_Aint qsz = -1, qdu = -1;
    void *qbase = NULL;
    MT_CALL(MPI_Win_shared_query_c(win, nr, &qsz, &qdu, &qbase));
    MT_CHECK(qsz == 16 * (nr + 1) && qdu == nr + 1 && qbase == base,
             "MPI_Win_shared_query_c: size %ld disp_unit %ld base %s", (long)qsz, (long)qdu,
             qbase == base ? "right" : "wrong");
    MT_CALL(MPI_Win_free(&win));
    MT_CALL(MPI_Comm_free(&node));
}
#endif

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    for (int f = 0; f < MR_NFLAVORS; f++)
        requests(f);
#if MPI_VERSION >= 4
    large_count();
#endif
    return mt_finalize();
}
