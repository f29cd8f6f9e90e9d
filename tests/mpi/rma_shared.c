/* Shared-memory windows: MPI_Win_allocate_shared over
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED); MPI_Win_shared_query for every
 * rank and for MPI_PROC_NULL (the lowest rank with a non-zero size); the
 * default allocation is contiguous across ranks; direct loads and stores by
 * other ranks into a rank's segment, ordered by MPI_Win_sync + barrier
 * inside a lock_all epoch; RMA put and direct load mixed; a rank with size
 * 0; per-rank displacement units; alloc_shared_noncontig.  Any number of
 * ranks (ranks on other nodes form their own node communicator). */
#include "mtest.h"

static MPI_Comm node;
static int nr, nn; /* rank and size in node */

static MPI_Aint seg_size(int r, int zero_rank)
{
    return r == zero_rank ? 0 : (MPI_Aint)(r + 1) * 24 * (MPI_Aint)sizeof(int);
}

/* The size MPI_Win_shared_query reports for a segment of want bytes. */
static int size_ok(MPI_Aint got, MPI_Aint want, int noncontig)
{
#ifdef OPEN_MPI
    /* Open MPI 4.1 reports the page-rounded size of non-contiguous segments */
    if (noncontig && want > 0)
        return got == want || (got > want && got % 4096 == 0 && got - want < 4096);
#else
    (void)noncontig;
#endif
    return got == want;
}

/* One window: zero_rank (or -1) exposes nothing; contig: default layout. */
static void one_window(int zero_rank, int noncontig)
{
    char what[64];
    snprintf(what, sizeof what, "%s, rank %d size 0", noncontig ? "noncontig" : "contiguous",
             zero_rank);
    MPI_Info info = MPI_INFO_NULL;
    if (noncontig) {
        MT_CALL(MPI_Info_create(&info));
        MT_CALL(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
    }
    int du = (nr % 2) ? 4 : 1; /* per-rank displacement units */
    int *mine = NULL;
    MPI_Win win;
    MT_CALL(MPI_Win_allocate_shared(seg_size(nr, zero_rank), du, info, node, &mine, &win));
    if (info != MPI_INFO_NULL)
        MT_CALL(MPI_Info_free(&info));
    MT_CALL(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));

    int **base = mt_malloc(sizeof(int *) * (size_t)nn);
    for (int r = 0; r < nn; r++) {
        MPI_Aint sz = -1;
        int qdu = -1;
        base[r] = NULL;
        MT_CALL(MPI_Win_shared_query(win, r, &sz, &qdu, &base[r]));
        MT_CHECK(size_ok(sz, seg_size(r, zero_rank), noncontig), "%s: shared_query(%d): size %ld, expected %ld",
                 what, r, (long)sz, (long)seg_size(r, zero_rank));
        MT_CHECK(qdu == ((r % 2) ? 4 : 1), "%s: shared_query(%d): disp_unit %d", what, r, qdu);
        if (r == nr && sz > 0)
            MT_CHECK(base[r] == mine, "%s: shared_query of myself: %p, baseptr %p", what,
                     (void *)base[r], (void *)mine);
        if (sz > 0)
            MT_CHECK(base[r] != NULL, "%s: shared_query(%d): NULL base", what, r);
    }
    /* default: contiguous, rank r's segment right after rank r-1's */
    if (!noncontig)
        for (int r = 1; r < nn; r++)
            if (seg_size(r, zero_rank) > 0 && seg_size(r - 1, zero_rank) > 0)
                MT_CHECK((char *)base[r] == (char *)base[r - 1] + seg_size(r - 1, zero_rank),
                         "%s: segment %d at %p is not right after segment %d (%p + %ld)", what,
                         r, (void *)base[r], r - 1, (void *)base[r - 1],
                         (long)seg_size(r - 1, zero_rank));
    /* MPI_PROC_NULL: the lowest rank with size > 0 */
    int lowest = zero_rank == 0 ? (nn > 1 ? 1 : -1) : 0;
    MPI_Aint psz = -1;
    int pdu = -1;
    int *pbase = NULL;
    MT_CALL(MPI_Win_shared_query(win, MPI_PROC_NULL, &psz, &pdu, &pbase));
    if (lowest >= 0)
        MT_CHECK(size_ok(psz, seg_size(lowest, zero_rank), noncontig) && pbase == base[lowest] &&
                 pdu == ((lowest % 2) ? 4 : 1),
                 "%s: shared_query(MPI_PROC_NULL): size %ld du %d, expected rank %d's", what,
                 (long)psz, pdu, lowest);
    else
        MT_CHECK(psz == 0, "%s: shared_query(MPI_PROC_NULL) with all sizes 0: size %ld", what,
                 (long)psz);

    MT_CALL(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    /* every rank stores into the segment of its right neighbour */
    int R = (nr + 1) % nn, L = (nr + nn - 1) % nn;
    int cnt = (int)(seg_size(R, zero_rank) / (MPI_Aint)sizeof(int));
    for (int i = 0; i < cnt; i++)
        base[R][i] = 100000 * (nr + 1) + i;
    MT_CALL(MPI_Win_sync(win));
    MT_CALL(MPI_Barrier(node));
    MT_CALL(MPI_Win_sync(win));
    int mycnt = (int)(seg_size(nr, zero_rank) / (MPI_Aint)sizeof(int));
    for (int i = 0; i < mycnt; i++)
        if (mine[i] != 100000 * (L + 1) + i) {
            mt_fail(__FILE__, __LINE__, "%s: load of own [%d] = %d after neighbour's store, "
                    "expected %d", what, i, mine[i], 100000 * (L + 1) + i);
            break;
        }
    /* everybody reads every segment directly */
    for (int r = 0; r < nn; r++) {
        int rl = (r + nn - 1) % nn, c = (int)(seg_size(r, zero_rank) / (MPI_Aint)sizeof(int));
        for (int i = 0; i < c; i++)
            if (base[r][i] != 100000 * (rl + 1) + i) {
                mt_fail(__FILE__, __LINE__, "%s: load of rank %d's [%d] = %d, expected %d", what,
                        r, i, base[r][i], 100000 * (rl + 1) + i);
                break;
            }
    }
    MT_CALL(MPI_Barrier(node));

    /* RMA put into the neighbour's segment, read back by direct load */
    int v = -5 - nr;
    if (cnt > 0) {
        /* the target's displacement unit scales: last int of R's segment */
        int rdu = (R % 2) ? 4 : 1;
        MT_CALL(MPI_Put(&v, 1, MPI_INT, R, (MPI_Aint)(cnt - 1) * (MPI_Aint)sizeof(int) / rdu, 1,
                        MPI_INT, win));
        MT_CALL(MPI_Win_flush(R, win));
    }
    MT_CALL(MPI_Win_sync(win));
    MT_CALL(MPI_Barrier(node));
    MT_CALL(MPI_Win_sync(win));
    if (mycnt > 0)
        MT_CHECK(mine[mycnt - 1] == -5 - L, "%s: load after neighbour's put: %d, expected %d",
                 what, mine[mycnt - 1], -5 - L);
    if (cnt > 0)
        MT_CHECK(base[R][cnt - 1] == v, "%s: load of my put into rank %d: %d", what, R,
                 base[R][cnt - 1]);
    MT_CALL(MPI_Win_unlock_all(win));

    /* a flag handed around the ring through shared memory: each rank waits
     * for its left neighbour's store (polling with MPI_Win_sync) */
    if (nn > 1 && zero_rank < 0) {
        MT_CALL(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
        volatile int *flag0 = base[0];
        if (nr == 0) {
            flag0[1] = 0;
            MT_CALL(MPI_Win_sync(win));
        }
        MT_CALL(MPI_Barrier(node));
        if (nr == 0)
            flag0[0] = 1;
        double t0 = mt_mono_now();
        if (nr > 0) {
            while (flag0[0] != nr && mt_mono_now() - t0 < 30)
                MT_CALL(MPI_Win_sync(win));
            MT_CALL(MPI_Win_sync(win)); /* order the flag load before the data load */
            MT_CHECK(flag0[0] == nr, "ring through shared memory: flag %d, expected %d",
                     flag0[0], nr);
            flag0[1] += nr; /* only one rank at a time holds the token */
            MT_CALL(MPI_Win_sync(win));
            flag0[0] = nr + 1;
        }
        MT_CALL(MPI_Win_sync(win));
        MT_CALL(MPI_Barrier(node));
        MT_CALL(MPI_Win_sync(win));
        MT_CHECK(flag0[1] == nn * (nn - 1) / 2, "ring through shared memory: sum %d, expected %d",
                 flag0[1], nn * (nn - 1) / 2);
        MT_CALL(MPI_Win_unlock_all(win));
    }
    MT_CALL(MPI_Win_free(&win));
    free(base);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MT_CALL(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_Comm_rank(node, &nr);
    MPI_Comm_size(node, &nn);
    one_window(-1, 0);
    one_window(-1, 1);
    one_window(0, 0);
    one_window(nn - 1, 0);
    one_window(0, 1);
    MT_CALL(MPI_Comm_free(&node));
    return mt_finalize();
}
