/* MPI_Put and MPI_Get on every window flavour (create, allocate, dynamic,
 * allocate_shared) under every synchronisation: fence, lock/unlock exclusive
 * and shared, lock_all with flush / flush_local / flush_all /
 * flush_local_all, post-start-complete-wait and post-start-complete-test.
 * Every rank targets its right neighbour in a ring (any number of ranks,
 * one included).  In each epoch: a contiguous put and get, count-0 and
 * MPI_PROC_NULL operations, and derived datatypes on either side (vector,
 * indexed, struct with gaps, resized); the bytes outside a derived type's
 * type map must stay untouched.  Then displacement units other than the
 * element size (1, 3, 8, different on each rank: the target's unit scales),
 * and a few-MiB put and get.  MTEST_RMA_BIG sets the large size in bytes. */
#include "mtest.h"
#include "rma_util.h"

enum {
    SY_FENCE, SY_LOCK_EXCL, SY_LOCK_SHARED, SY_LOCKALL_FLUSH, SY_LOCKALL_FLUSH_LOCAL,
    SY_LOCKALL_FLUSH_ALL, SY_LOCKALL_FLUSH_LOCAL_ALL, SY_PSCW, SY_PSCW_TEST, SY_N
};
static const char *const sy_name[SY_N] = {
    "fence", "lock-exclusive", "lock-shared", "lock_all+flush", "lock_all+flush_local",
    "lock_all+flush_all", "lock_all+flush_local_all", "pscw-wait", "pscw-test"
};

/* Window layout (bytes).  One region per operation of an epoch. */
#define NI 512                         /* ints of the contiguous put/get */
#define OFF_PUT 0
#define OFF_GET (OFF_PUT + NI * 4)
#define OFF_VEC (OFF_GET + NI * 4)     /* origin vector -> target contiguous */
#define OFF_IDX (OFF_VEC + 64 * 4)     /* origin contiguous -> target indexed */
#define OFF_STR (OFF_IDX + 64 * 4)     /* struct with gaps on both sides */
#define OFF_RSZ (OFF_STR + 1024)       /* origin contiguous -> target resized int */
#define OFF_TGV (OFF_RSZ + 64 * 4)     /* get: target vector -> origin contiguous */
#define WBYTES (OFF_TGV + 64 * 4)
#define SENT 0xA5                      /* byte the untouched parts keep */

typedef struct {
    int a;
    /* 4 bytes of padding here */
    double b;
    short c;
    /* padding up to the extent */
} rec_t;
#define NREC 12

static MPI_Datatype t_vec, t_idx, t_rec, t_rsz, t_vec_src;
static const int idx_len[3] = { 1, 3, 2 }, idx_dsp[3] = { 0, 2, 7 };

static void make_types(void)
{
    /* 8 blocks of 2 ints every 3 ints */
    MT_CALL(MPI_Type_vector(8, 2, 3, MPI_INT, &t_vec));
    MT_CALL(MPI_Type_commit(&t_vec));
    MT_CALL(MPI_Type_indexed(3, idx_len, idx_dsp, MPI_INT, &t_idx));
    MT_CALL(MPI_Type_commit(&t_idx));
    int bl[3] = { 1, 1, 1 };
    MPI_Aint dsp[3] = { offsetof(rec_t, a), offsetof(rec_t, b), offsetof(rec_t, c) };
    MPI_Datatype ty[3] = { MPI_INT, MPI_DOUBLE, MPI_SHORT }, tmp;
    MT_CALL(MPI_Type_create_struct(3, bl, dsp, ty, &tmp));
    MT_CALL(MPI_Type_create_resized(tmp, 0, sizeof(rec_t), &t_rec));
    MT_CALL(MPI_Type_free(&tmp));
    MT_CALL(MPI_Type_commit(&t_rec));
    MT_CALL(MPI_Type_create_resized(MPI_INT, 0, 3 * sizeof(int), &t_rsz));
    MT_CALL(MPI_Type_commit(&t_rsz));
    /* 10 blocks of 1 int every 4 ints (target side of a get) */
    MT_CALL(MPI_Type_vector(10, 1, 4, MPI_INT, &t_vec_src));
    MT_CALL(MPI_Type_commit(&t_vec_src));
}

static void free_types(void)
{
    MPI_Type_free(&t_vec);
    MPI_Type_free(&t_idx);
    MPI_Type_free(&t_rec);
    MPI_Type_free(&t_rsz);
    MPI_Type_free(&t_vec_src);
}

static int val(int rank, int phase, int i)
{
    return 1000000 * (rank + 1) + 1000 * phase + i;
}

static int is_passive(int sy)
{
    return sy != SY_FENCE && sy != SY_PSCW && sy != SY_PSCW_TEST;
}

/* ------------------------------------------------------------ epochs */

typedef struct {
    const mr_win *w;
    int sy, left, right;
    MPI_Group gl, gr;
} epoch_t;

static void ep_open(epoch_t *e)
{
    MPI_Win win = e->w->win;
    switch (e->sy) {
    case SY_FENCE:
        MT_CALL(MPI_Win_fence(0, win));
        break;
    case SY_LOCK_EXCL:
        MT_CALL(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, e->right, 0, win));
        break;
    case SY_LOCK_SHARED:
        MT_CALL(MPI_Win_lock(MPI_LOCK_SHARED, e->right, 0, win));
        break;
    case SY_PSCW:
    case SY_PSCW_TEST:
        MT_CALL(MPI_Win_post(e->gl, 0, win));
        MT_CALL(MPI_Win_start(e->gr, 0, win));
        break;
    default:
        MT_CALL(MPI_Win_lock_all(0, win));
        break;
    }
}

/* Mid-epoch completion of what was issued so far: after it the origin
 * buffers may be reused (all modes), and with a remote flush the data is at
 * the target.  Returns 1 when the operations are complete at the target. */
static int ep_flush(epoch_t *e)
{
    MPI_Win win = e->w->win;
    switch (e->sy) {
    case SY_LOCKALL_FLUSH:
        MT_CALL(MPI_Win_flush(e->right, win));
        return 1;
    case SY_LOCKALL_FLUSH_LOCAL:
        MT_CALL(MPI_Win_flush_local(e->right, win));
        return 0;
    case SY_LOCKALL_FLUSH_ALL:
        MT_CALL(MPI_Win_flush_all(win));
        return 1;
    case SY_LOCKALL_FLUSH_LOCAL_ALL:
        MT_CALL(MPI_Win_flush_local_all(win));
        return 0;
    default:
        return -1; /* nothing mid-epoch for the others */
    }
}

static void ep_close(epoch_t *e)
{
    MPI_Win win = e->w->win;
    switch (e->sy) {
    case SY_FENCE:
        MT_CALL(MPI_Win_fence(0, win));
        break;
    case SY_LOCK_EXCL:
    case SY_LOCK_SHARED:
        MT_CALL(MPI_Win_unlock(e->right, win));
        break;
    case SY_PSCW:
        MT_CALL(MPI_Win_complete(win));
        MT_CALL(MPI_Win_wait(win));
        break;
    case SY_PSCW_TEST: {
        MT_CALL(MPI_Win_complete(win));
        int flag = 0;
        double t0 = mt_mono_now();
        while (!flag) {
            int rc = MPI_Win_test(win, &flag);
            if (rc != MPI_SUCCESS) {
                MT_CALL(rc);
                break;
            }
            if (mt_mono_now() - t0 > 30) {
                mt_fail(__FILE__, __LINE__, "MPI_Win_test: no completion in 30 s");
                MT_CALL(MPI_Win_wait(win));
                break;
            }
        }
        break;
    }
    default:
        MT_CALL(MPI_Win_unlock_all(win));
        break;
    }
    /* passive target: the target learns of completion from the origin */
    if (is_passive(e->sy))
        MT_CALL(MPI_Barrier(e->w->comm));
}

/* ------------------------------------------------------------ one test */

static void check_bytes(const unsigned char *p, size_t n, unsigned char v, const char *what,
                        const char *ctx)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v) {
            mt_fail(__FILE__, __LINE__, "%s: %s byte %zu is 0x%02x, expected untouched 0x%02x",
                    ctx, what, i, p[i], v);
            return;
        }
}

static void run_epoch(const mr_win *w, int sy, int phase)
{
    char ctx[96];
    snprintf(ctx, sizeof ctx, "%s/%s", mr_flavor_name[w->flavor], sy_name[sy]);
    epoch_t e = { .w = w, .sy = sy };
    e.left = (w->rank + w->size - 1) % w->size;
    e.right = (w->rank + 1) % w->size;
    e.gl = mr_group_of(w, e.left);
    e.gr = mr_group_of(w, e.right);
    int me = w->rank, L = e.left, R = e.right;
    int *wi = (int *)(void *)w->base;

    /* initialise my window memory: sentinel bytes, my get source pattern */
    if (is_passive(sy))
        mr_local_begin(w, MPI_LOCK_EXCLUSIVE);
    memset(w->base, SENT, (size_t)WBYTES);
    for (int i = 0; i < NI; i++)
        wi[OFF_GET / 4 + i] = val(me, phase, i);
    for (int i = 0; i < 40; i++)
        wi[OFF_TGV / 4 + i] = val(me, phase, 5000 + i);
    if (is_passive(sy))
        mr_local_end(w);
    MT_CALL(MPI_Barrier(w->comm));

    int *pbuf = mt_malloc(NI * sizeof(int)), *gbuf = mt_malloc(NI * sizeof(int));
    int vsrc[24], isrc[6], rsrc[10], gvec[10];
    rec_t rsrc_rec[NREC];
    for (int i = 0; i < NI; i++) {
        pbuf[i] = val(me, phase, 100000 + i);
        gbuf[i] = -1;
    }
    for (int i = 0; i < 24; i++)
        vsrc[i] = val(me, phase, 200000 + i);
    for (int i = 0; i < 6; i++)
        isrc[i] = val(me, phase, 300000 + i);
    for (int i = 0; i < 10; i++) {
        rsrc[i] = val(me, phase, 400000 + i);
        gvec[i] = -1;
    }
    memset(rsrc_rec, 0x3c, sizeof rsrc_rec); /* origin gaps differ from SENT */
    for (int i = 0; i < NREC; i++) {
        rsrc_rec[i].a = val(me, phase, 500000 + i);
        rsrc_rec[i].b = 0.5 + val(me, phase, i);
        rsrc_rec[i].c = (short)(phase * 100 + i);
    }

    ep_open(&e);
    MT_CALL(MPI_Put(pbuf, NI, MPI_INT, R, mr_disp(w, R, OFF_PUT), NI, MPI_INT, w->win));
    MT_CALL(MPI_Get(gbuf, NI, MPI_INT, R, mr_disp(w, R, OFF_GET), NI, MPI_INT, w->win));
    /* count 0 and PROC_NULL: no effect (a zero put into the get source) */
    MT_CALL(MPI_Put(pbuf, 0, MPI_INT, R, mr_disp(w, R, OFF_GET), 0, MPI_INT, w->win));
    MT_CALL(MPI_Get(gbuf, 0, MPI_INT, R, mr_disp(w, R, OFF_PUT), 0, MPI_INT, w->win));
    MT_CALL(MPI_Put(pbuf, NI, MPI_INT, MPI_PROC_NULL, 0, NI, MPI_INT, w->win));
    MT_CALL(MPI_Get(gbuf, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, w->win));
    /* derived types */
    MT_CALL(MPI_Put(vsrc, 1, t_vec, R, mr_disp(w, R, OFF_VEC), 16, MPI_INT, w->win));
    MT_CALL(MPI_Put(isrc, 6, MPI_INT, R, mr_disp(w, R, OFF_IDX), 1, t_idx, w->win));
    MT_CALL(MPI_Put(rsrc_rec, NREC, t_rec, R, mr_disp(w, R, OFF_STR), NREC, t_rec, w->win));
    MT_CALL(MPI_Put(rsrc, 10, MPI_INT, R, mr_disp(w, R, OFF_RSZ), 10, t_rsz, w->win));
    MT_CALL(MPI_Get(gvec, 10, MPI_INT, R, mr_disp(w, R, OFF_TGV), 1, t_vec_src, w->win));

    int fl = ep_flush(&e);
    if (fl >= 0) {
        /* the gets have completed locally */
        for (int i = 0; i < NI; i++)
            if (gbuf[i] != val(R, phase, i)) {
                mt_fail(__FILE__, __LINE__, "%s: get after flush: [%d] = %d, expected %d",
                        ctx, i, gbuf[i], val(R, phase, i));
                break;
            }
        /* origin buffers are free again: scribbling must not reach the target */
        for (int i = 0; i < NI; i++)
            pbuf[i] = -7;
        memset(vsrc, 0x77, sizeof vsrc);
        if (fl == 1) {
            /* remote completion: reading the put region back sees the data */
            int back[NI];
            MT_CALL(MPI_Get(back, NI, MPI_INT, R, mr_disp(w, R, OFF_PUT), NI, MPI_INT,
                            w->win));
            MT_CALL(MPI_Win_flush(R, w->win));
            for (int i = 0; i < NI; i++)
                if (back[i] != val(me, phase, 100000 + i)) {
                    mt_fail(__FILE__, __LINE__, "%s: get of own put after flush: [%d] = %d, "
                            "expected %d", ctx, i, back[i], val(me, phase, 100000 + i));
                    break;
                }
        }
    }
    ep_close(&e);

    /* origin side results */
    for (int i = 0; i < NI; i++)
        if (gbuf[i] != val(R, phase, i)) {
            mt_fail(__FILE__, __LINE__, "%s: get: [%d] = %d, expected %d", ctx, i, gbuf[i],
                    val(R, phase, i));
            break;
        }
    for (int i = 0; i < 10; i++)
        MT_CHECK(gvec[i] == val(R, phase, 5000 + 4 * i), "%s: get from target vector: [%d] = "
                 "%d, expected %d", ctx, i, gvec[i], val(R, phase, 5000 + 4 * i));

    /* target side results: what my left neighbour wrote */
    if (is_passive(sy))
        mr_local_begin(w, MPI_LOCK_SHARED);
    for (int i = 0; i < NI; i++)
        if (wi[OFF_PUT / 4 + i] != val(L, phase, 100000 + i)) {
            mt_fail(__FILE__, __LINE__, "%s: put: [%d] = %d, expected %d", ctx, i,
                    wi[OFF_PUT / 4 + i], val(L, phase, 100000 + i));
            break;
        }
    for (int i = 0; i < NI; i++)
        if (wi[OFF_GET / 4 + i] != val(me, phase, i)) {
            mt_fail(__FILE__, __LINE__, "%s: count-0 put changed [%d] to %d", ctx, i,
                    wi[OFF_GET / 4 + i]);
            break;
        }
    const int *t = wi + OFF_VEC / 4;
    for (int j = 0; j < 16; j++)
        MT_CHECK(t[j] == val(L, phase, 200000 + (j / 2) * 3 + j % 2),
                 "%s: vector->contig [%d] = %d", ctx, j, t[j]);
    check_bytes((const unsigned char *)(t + 16), 64 * 4 - 16 * 4, SENT, "after vector->contig",
                ctx);
    t = wi + OFF_IDX / 4;
    int k = 0;
    for (int b = 0; b < 3; b++)
        for (int j = 0; j < idx_len[b]; j++, k++)
            MT_CHECK(t[idx_dsp[b] + j] == val(L, phase, 300000 + k),
                     "%s: contig->indexed [%d] = %d", ctx, idx_dsp[b] + j, t[idx_dsp[b] + j]);
    check_bytes((const unsigned char *)(t + 1), 4, SENT, "indexed hole 1", ctx);
    check_bytes((const unsigned char *)(t + 5), 8, SENT, "indexed hole 2", ctx);
    check_bytes((const unsigned char *)(t + 9), 64 * 4 - 9 * 4, SENT, "after indexed", ctx);
    const rec_t *rec = (const rec_t *)(const void *)(w->base + OFF_STR);
    for (int i = 0; i < NREC; i++) {
        MT_CHECK(rec[i].a == val(L, phase, 500000 + i) && rec[i].b == 0.5 + val(L, phase, i) &&
                 rec[i].c == (short)(phase * 100 + i),
                 "%s: struct [%d] = {%d, %g, %d}", ctx, i, rec[i].a, rec[i].b, rec[i].c);
        const unsigned char *p = (const unsigned char *)&rec[i];
        check_bytes(p + offsetof(rec_t, a) + 4, offsetof(rec_t, b) - offsetof(rec_t, a) - 4,
                    SENT, "struct gap a-b", ctx);
        check_bytes(p + offsetof(rec_t, c) + 2, sizeof(rec_t) - offsetof(rec_t, c) - 2, SENT,
                    "struct tail gap", ctx);
    }
    check_bytes((const unsigned char *)(rec + NREC), 1024 - NREC * sizeof(rec_t), SENT,
                "after struct", ctx);
    t = wi + OFF_RSZ / 4;
    for (int i = 0; i < 10; i++) {
        MT_CHECK(t[3 * i] == val(L, phase, 400000 + i), "%s: resized [%d] = %d", ctx, 3 * i,
                 t[3 * i]);
        if (i < 9)
            check_bytes((const unsigned char *)(t + 3 * i + 1), 8, SENT, "resized gap", ctx);
    }
    if (is_passive(sy))
        mr_local_end(w);
    MT_CALL(MPI_Barrier(w->comm));

    MPI_Group_free(&e.gl);
    MPI_Group_free(&e.gr);
    free(pbuf);
    free(gbuf);
}

/* ------------------------------------------------------------ disp units */

/* Rank r's window has displacement unit du(r); an origin scales by the
 * target's unit.  Each rank puts one int at displacement 5 and one double
 * at displacement 16 / du, and gets them back. */
static int du_of(int r)
{
    static const int dus[4] = { 3, 8, 1, 4 };
    return dus[r % 4];
}

static void disp_units(void)
{
    int me = mt_rank, n = mt_size, R = (me + 1) % n, L = (me + n - 1) % n;
    char *mem = mt_malloc(256);
    MPI_Win win;
    MT_CALL(MPI_Win_create(mem, 256, du_of(me), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MT_CALL(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int du = -1, flag = 0;
    int *pdu;
    MT_CALL(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &pdu, &flag));
    if (flag)
        du = *pdu;
    MT_CHECK(flag && du == du_of(me), "MPI_WIN_DISP_UNIT %d, expected %d", du, du_of(me));

    int x = val(me, 9, 1), back = 0;
    double d = val(me, 9, 2) + 0.25, dback = 0;
    MPI_Aint dd = 96 / du_of(R); /* 96 is a multiple of 1, 3, 4 and 8 */
    MT_CALL(MPI_Win_fence(0, win));
    MT_CALL(MPI_Put(&x, 1, MPI_INT, R, 5, 1, MPI_INT, win));
    MT_CALL(MPI_Put(&d, 1, MPI_DOUBLE, R, dd, 1, MPI_DOUBLE, win));
    MT_CALL(MPI_Win_fence(0, win));
    MT_CALL(MPI_Get(&back, 1, MPI_INT, R, 5, 1, MPI_INT, win));
    MT_CALL(MPI_Get(&dback, 1, MPI_DOUBLE, R, dd, 1, MPI_DOUBLE, win));
    MT_CALL(MPI_Win_fence(0, win));
    int got;
    double dgot;
    memcpy(&got, mem + 5 * du_of(me), sizeof got);
    memcpy(&dgot, mem + 96, sizeof dgot);
    MT_CHECK(got == val(L, 9, 1), "disp_unit %d: int at byte %d is %d, expected %d", du_of(me),
             5 * du_of(me), got, val(L, 9, 1));
    MT_CHECK(dgot == val(L, 9, 2) + 0.25, "disp_unit %d: double at byte 96 is %g", du_of(me),
             dgot);
    MT_CHECK(back == x && dback == d, "get back through disp_unit %d: %d %g", du_of(R), back,
             dback);
    MT_CALL(MPI_Win_free(&win));
    free(mem);
}

/* ------------------------------------------------------------ large */

static void large(int flavor, size_t big)
{
    mr_win w;
    if (mr_win_open(&w, flavor, MPI_COMM_WORLD, (MPI_Aint)big, 1, MPI_INFO_NULL) != 0)
        return;
    int me = w.rank, R = (me + 1) % w.size, L = (me + w.size - 1) % w.size;
    unsigned char *buf = mt_malloc(big);
    mt_fill(buf, big, 7000u + (unsigned)me);
    /* put under an exclusive lock */
    MT_CALL(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, R, 0, w.win));
    MT_CALL(MPI_Put(buf, (int)big, MPI_BYTE, R, mr_disp(&w, R, 0), (int)big, MPI_BYTE, w.win));
    MT_CALL(MPI_Win_unlock(R, w.win));
    MT_CALL(MPI_Barrier(w.comm));
    mr_local_begin(&w, MPI_LOCK_SHARED);
    MT_CHECK_PATTERN(w.base, big, 7000u + (unsigned)L, mr_flavor_name[flavor]);
    mr_local_end(&w);
    /* get it back under fence: R holds what I put */
    memset(buf, 0, big);
    MT_CALL(MPI_Win_fence(0, w.win));
    MT_CALL(MPI_Get(buf, (int)(big / 8), MPI_UINT64_T, R, mr_disp(&w, R, 0), (int)(big / 8),
                    MPI_UINT64_T, w.win));
    MT_CALL(MPI_Win_fence(0, w.win));
    MT_CHECK_PATTERN(buf, big, 7000u + (unsigned)me, mr_flavor_name[flavor]);
    free(buf);
    mr_win_close(&w);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    make_types();
    int phase = 0;
    for (int f = 0; f < MR_NFLAVORS; f++) {
        mr_win w;
        if (mr_win_open(&w, f, MPI_COMM_WORLD, WBYTES, sizeof(int), MPI_INFO_NULL) != 0)
            continue;
        for (int sy = 0; sy < SY_N; sy++)
            run_epoch(&w, sy, ++phase);
        mr_win_close(&w);
    }
    disp_units();
    size_t big = (size_t)mt_env_int("MTEST_RMA_BIG", 4 << 20) & ~(size_t)7;
    for (int f = 0; f < MR_NFLAVORS; f++)
        large(f, big);
    free_types();
    return mt_finalize();
}
