/* Accumulate operations and their atomicity.
 *
 *   ops:      MPI_Accumulate (all ranks at once, fence) and MPI_Get_accumulate
 *             (ranks in turn, so each result is known) with every predefined
 *             op valid for the type: MAX MIN SUM PROD LAND BAND LOR BOR LXOR
 *             BXOR REPLACE, and NO_OP for Get_accumulate, on int, short,
 *             unsigned, long long, uint64_t, float and double; MAXLOC/MINLOC
 *             on MPI_2INT and MPI_DOUBLE_INT; a window of every flavour.
 *   types:    derived origin, target and result types built from one basic
 *             type (vector, indexed, contiguous, resized).
 *   atomic:   several origins adding into the same locations under shared
 *             locks; MPI_Fetch_and_op and MPI_Compare_and_swap ticket
 *             counters (every rank gets distinct tickets, together exactly
 *             0..N-1); Fetch_and_op, Get_accumulate, Accumulate and
 *             Compare_and_swap mixed on one counter.
 *   many:     a thousand small accumulates and puts to one target in one
 *             epoch, read back in between and at the end.
 * Any number of ranks.  MTEST_ITERS: operations per rank in the atomicity
 * tests (default 40). */
#include "mtest.h"
#include "rma_util.h"

#define K 5 /* elements per (type, op) */

typedef struct {
    MPI_Datatype dt;
    const char *name;
    int size;
    int kind; /* 0 signed, 1 unsigned, 2 floating */
} tinfo_t;

static tinfo_t types[7];
#define NTYPES 7

static void init_types(void)
{
    tinfo_t t[NTYPES] = {
        { MPI_INT, "int", sizeof(int), 0 },
        { MPI_SHORT, "short", sizeof(short), 0 },
        { MPI_UNSIGNED, "unsigned", sizeof(unsigned), 1 },
        { MPI_LONG_LONG, "long long", sizeof(long long), 0 },
        { MPI_UINT64_T, "uint64_t", sizeof(uint64_t), 1 },
        { MPI_FLOAT, "float", sizeof(float), 2 },
        { MPI_DOUBLE, "double", sizeof(double), 2 },
    };
    memcpy(types, t, sizeof t);
}

typedef struct {
    MPI_Op op;
    const char *name;
    int ints_only; /* logical and bitwise ops */
} opinfo_t;

static opinfo_t ops[12];
#define NOPS 12
#define OP_NO_OP 11

static void init_ops(void)
{
    opinfo_t o[NOPS] = {
        { MPI_MAX, "MAX", 0 },   { MPI_MIN, "MIN", 0 },   { MPI_SUM, "SUM", 0 },
        { MPI_PROD, "PROD", 0 }, { MPI_LAND, "LAND", 1 }, { MPI_BAND, "BAND", 1 },
        { MPI_LOR, "LOR", 1 },   { MPI_BOR, "BOR", 1 },   { MPI_LXOR, "LXOR", 1 },
        { MPI_BXOR, "BXOR", 1 }, { MPI_REPLACE, "REPLACE", 0 }, { MPI_NO_OP, "NO_OP", 0 },
    };
    memcpy(ops, o, sizeof o);
}

static void setv(const tinfo_t *t, void *buf, int i, long long v)
{
    char *p = (char *)buf + (size_t)i * (size_t)t->size;
    if (t->dt == MPI_INT) { int x = (int)v; memcpy(p, &x, sizeof x); }
    else if (t->dt == MPI_SHORT) { short x = (short)v; memcpy(p, &x, sizeof x); }
    else if (t->dt == MPI_UNSIGNED) { unsigned x = (unsigned)v; memcpy(p, &x, sizeof x); }
    else if (t->dt == MPI_LONG_LONG) { long long x = v; memcpy(p, &x, sizeof x); }
    else if (t->dt == MPI_UINT64_T) { uint64_t x = (uint64_t)v; memcpy(p, &x, sizeof x); }
    else if (t->dt == MPI_FLOAT) { float x = (float)v; memcpy(p, &x, sizeof x); }
    else { double x = (double)v; memcpy(p, &x, sizeof x); }
}

/* the value as a double (exact for the small values used here) */
static double getv(const tinfo_t *t, const void *buf, int i)
{
    const char *p = (const char *)buf + (size_t)i * (size_t)t->size;
    if (t->dt == MPI_INT) { int x; memcpy(&x, p, sizeof x); return x; }
    if (t->dt == MPI_SHORT) { short x; memcpy(&x, p, sizeof x); return x; }
    if (t->dt == MPI_UNSIGNED) { unsigned x; memcpy(&x, p, sizeof x); return x; }
    if (t->dt == MPI_LONG_LONG) { long long x; memcpy(&x, p, sizeof x); return (double)x; }
    if (t->dt == MPI_UINT64_T) { uint64_t x; memcpy(&x, p, sizeof x); return (double)x; }
    if (t->dt == MPI_FLOAT) { float x; memcpy(&x, p, sizeof x); return x; }
    double x;
    memcpy(&x, p, sizeof x);
    return x;
}

/* normalise a long long the way the type stores it (wrap, sign) */
static double as_type(const tinfo_t *t, long long v)
{
    char tmp[16];
    setv(t, tmp, 0, v);
    return getv(t, tmp, 0);
}

/* Origin value of rank r (r == -1: the target's initial value). */
static long long oval(const tinfo_t *t, int op, int r, int i)
{
    int x = (r + 1) * 7 + i * 3;
    if (ops[op].op == MPI_PROD) /* 1, -1 or 2: products stay small */
        return x % 5 == 0 ? 2 : (x % 3 ? 1 : (t->kind == 1 ? 1 : -1));
    if (ops[op].op == MPI_LAND || ops[op].op == MPI_LOR || ops[op].op == MPI_LXOR)
        return x % 3 == 0 ? 0 : x % 4 + 1;
    long long v = x % 9;
    return t->kind == 1 ? v : v - 4;
}

static long long apply(const tinfo_t *t, int op, long long a, long long b)
{
    MPI_Op o = ops[op].op;
    if (o == MPI_MAX) return a > b ? a : b;
    if (o == MPI_MIN) return a < b ? a : b;
    if (o == MPI_SUM) return a + b;
    if (o == MPI_PROD) return a * b;
    if (o == MPI_LAND) return a && b;
    if (o == MPI_LOR) return a || b;
    if (o == MPI_LXOR) return !a != !b;
    if (o == MPI_REPLACE) return b;
    if (o == MPI_NO_OP) return a;
    /* bitwise on the stored (possibly unsigned) representation */
    long long x = (long long)as_type(t, a), y = (long long)as_type(t, b);
    if (o == MPI_BAND) return x & y;
    if (o == MPI_BOR) return x | y;
    return x ^ y;
}

/* init folded with the origins of ranks 0..upto-1 */
static long long fold(const tinfo_t *t, int op, int upto, int i)
{
    long long v = oval(t, op, -1, i);
    for (int r = 0; r < upto; r++)
        v = apply(t, op, v, oval(t, op, r, i));
    return v;
}

/* ------------------------------------------------------------ every op */

#define SLOT 64 /* bytes per (type, op) region: K elements of up to 8 bytes */

typedef struct {
    int ty, op, target;
} combo_t;

static int ncombos(combo_t *c, int size, int with_no_op)
{
    int n = 0;
    for (int ty = 0; ty < NTYPES; ty++)
        for (int op = 0; op < NOPS; op++) {
            if (ops[op].ints_only && types[ty].kind == 2)
                continue;
            if (op == OP_NO_OP && !with_no_op)
                continue;
#ifdef OPEN_MPI
            /* Open MPI 4.1.4's osc/rdma (the default for these windows)
             * leaves the target unchanged for MPI_LOR and MPI_LXOR (and so
             * MPI_LAND): 0 LOR 4 stays 0.  osc/ucx and osc/pt2pt are right. */
            if (ops[op].op == MPI_LOR || ops[op].op == MPI_LXOR || ops[op].op == MPI_LAND)
                continue;
#endif
            if (c)
                c[n] = (combo_t){ ty, op, n % size };
            n++;
        }
    return n;
}

static void init_regions(const mr_win *w, const combo_t *c, int n)
{
    for (int k = 0; k < n; k++)
        if (c[k].target == w->rank)
            for (int i = 0; i < K; i++)
                setv(&types[c[k].ty], w->base + k * SLOT, i, oval(&types[c[k].ty], c[k].op, -1, i));
}

static void check_region(const mr_win *w, const combo_t *c, int k, const char *what)
{
    const tinfo_t *t = &types[c[k].ty];
    for (int i = 0; i < K; i++) {
        double got = getv(t, w->base + k * SLOT, i);
        if (ops[c[k].op].op == MPI_REPLACE && w->size > 1 && !strcmp(what, "Accumulate")) {
            /* concurrent replaces: one of the origins' values */
            int ok = 0;
            for (int r = 0; r < w->size; r++)
                ok |= got == as_type(t, oval(t, c[k].op, r, i));
            MT_CHECK(ok, "%s %s %s on %s window: [%d] = %g is no origin's value", what,
                     ops[c[k].op].name, t->name, mr_flavor_name[w->flavor], i, got);
            continue;
        }
        double want = as_type(t, fold(t, c[k].op, w->size, i));
        MT_CHECK(got == want, "%s %s %s on %s window: [%d] = %g, expected %g", what,
                 ops[c[k].op].name, t->name, mr_flavor_name[w->flavor], i, got, want);
    }
}

static void every_op(int flavor)
{
    int n = ncombos(NULL, 1, 1);
    combo_t *c = mt_malloc(sizeof(combo_t) * (size_t)n);
    mr_win w;
    if (mr_win_open(&w, flavor, MPI_COMM_WORLD, (MPI_Aint)n * SLOT, 1, MPI_INFO_NULL) != 0) {
        free(c);
        return;
    }

    /* Accumulate: everybody at once inside one fence epoch */
    n = ncombos(c, w.size, 0);
    MT_CALL(MPI_Win_fence(0, w.win));
    init_regions(&w, c, n);
    MT_CALL(MPI_Win_fence(0, w.win));
    /* one origin buffer per operation: none may change before the fence */
    unsigned char *oall = mt_malloc((size_t)n * SLOT);
    for (int k = 0; k < n; k++) {
        const tinfo_t *t = &types[c[k].ty];
        for (int i = 0; i < K; i++)
            setv(t, oall + k * SLOT, i, oval(t, c[k].op, w.rank, i));
        MT_CALL(MPI_Accumulate(oall + k * SLOT, K, t->dt, c[k].target, mr_disp(&w, c[k].target, k * SLOT),
                               K, t->dt, ops[c[k].op].op, w.win));
    }
    MT_CALL(MPI_Win_fence(0, w.win));
    free(oall);
    for (int k = 0; k < n; k++)
        if (c[k].target == w.rank)
            check_region(&w, c, k, "Accumulate");

    /* Get_accumulate: ranks in turn; rank r fetches init folded with 0..r-1 */
    n = ncombos(c, w.size, 1);
    init_regions(&w, c, n);
    MT_CALL(MPI_Win_fence(0, w.win));
    for (int turn = 0; turn < w.size; turn++) {
        if (turn == w.rank) {
            /* all operations of the turn at once, one flush: every one has
             * its own origin and result buffer */
            unsigned char *otrn = mt_malloc((size_t)n * SLOT), *rall = mt_malloc((size_t)n * SLOT);
            memset(rall, 0x6b, (size_t)n * SLOT);
            MT_CALL(MPI_Win_lock_all(0, w.win));
            for (int k = 0; k < n; k++) {
                const tinfo_t *t = &types[c[k].ty];
                for (int i = 0; i < K; i++)
                    setv(t, otrn + k * SLOT, i, oval(t, c[k].op, w.rank, i));
                MT_CALL(MPI_Get_accumulate(otrn + k * SLOT, K, t->dt, rall + k * SLOT, K, t->dt,
                                           c[k].target, mr_disp(&w, c[k].target, k * SLOT), K,
                                           t->dt, ops[c[k].op].op, w.win));
            }
            MT_CALL(MPI_Win_flush_all(w.win));
            for (int k = 0; k < n; k++) {
                const tinfo_t *t = &types[c[k].ty];
                for (int i = 0; i < K; i++) {
                    double got = getv(t, rall + k * SLOT, i);
                    double want = as_type(t, fold(t, c[k].op, turn, i));
                    MT_CHECK(got == want, "Get_accumulate %s %s on %s window, turn %d: fetched "
                             "[%d] = %g, expected %g", ops[c[k].op].name, t->name,
                             mr_flavor_name[flavor], turn, i, got, want);
                }
            }
            free(otrn);
            free(rall);
            MT_CALL(MPI_Win_unlock_all(w.win));
        }
        MT_CALL(MPI_Barrier(w.comm));
    }
    MT_CALL(MPI_Win_fence(0, w.win));
    for (int k = 0; k < n; k++)
        if (c[k].target == w.rank)
            check_region(&w, c, k, "Get_accumulate");
    MT_CALL(MPI_Win_fence(0, w.win));
    mr_win_close(&w);
    free(c);
}

/* ------------------------------------------------------------ MAXLOC / MINLOC */

typedef struct {
    double v;
    int loc;
} dint_t;

typedef struct {
    int v2[2 * K * 2];
    dint_t d[2 * K];
} loc_mem_t;

static void loc_ops(void)
{
    int me = mt_rank, n = mt_size;
    loc_mem_t *mem = mt_malloc(sizeof *mem);
    MPI_Win win;
    MT_CALL(MPI_Win_create(mem, sizeof *mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MT_CALL(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_Aint off_d = offsetof(loc_mem_t, d);
    /* rank 0 is the target; elements 0..K-1 MAXLOC, K..2K-1 MINLOC */
    for (int i = 0; i < 2 * K; i++) {
        mem->v2[2 * i] = 3;
        mem->v2[2 * i + 1] = 1000;
        mem->d[i].v = 3.5;
        mem->d[i].loc = 1000;
    }
    int o2[2 * K * 2];
    dint_t od[2 * K];
    for (int i = 0; i < 2 * K; i++) {
        o2[2 * i] = (me * 5 + i) % 4 + 1; /* ties happen: the lower index wins */
        o2[2 * i + 1] = me;
        od[i].v = 0.5 + (me * 3 + i) % 5;
        od[i].loc = me;
    }
    MT_CALL(MPI_Win_fence(0, win));
    MT_CALL(MPI_Accumulate(o2, K, MPI_2INT, 0, 0, K, MPI_2INT, MPI_MAXLOC, win));
    MT_CALL(MPI_Accumulate(o2 + 2 * K, K, MPI_2INT, 0, 2 * K * sizeof(int), K, MPI_2INT,
                           MPI_MINLOC, win));
#ifdef OPEN_MPI
    /* Open MPI 4.1.4 (osc/rdma): these two leave the last element unchanged
     * and corrupt the heap (abort in MPI_Win_free) */
    int with_dint = 0;
#else
    int with_dint = 1;
#endif
    if (with_dint) {
        MT_CALL(MPI_Accumulate(od, K, MPI_DOUBLE_INT, 0, off_d, K, MPI_DOUBLE_INT, MPI_MAXLOC,
                               win));
        MT_CALL(MPI_Accumulate(od + K, K, MPI_DOUBLE_INT, 0,
                               off_d + K * (MPI_Aint)sizeof(dint_t), K, MPI_DOUBLE_INT,
                               MPI_MINLOC, win));
    }
    MT_CALL(MPI_Win_fence(0, win));
    if (me == 0) {
        for (int i = 0; i < 2 * K; i++) {
            int maxl = i < K, bv = 3, bl = 1000;
            double dv = 3.5;
            int dl = 1000;
            for (int r = 0; r < n; r++) {
                int v = (r * 5 + i) % 4 + 1;
                double d = 0.5 + (r * 3 + i) % 5;
                if (maxl ? v > bv : v < bv)
                    bv = v, bl = r;
                else if (v == bv && r < bl)
                    bl = r;
                if (maxl ? d > dv : d < dv)
                    dv = d, dl = r;
                else if (d == dv && r < dl)
                    dl = r;
            }
            MT_CHECK(mem->v2[2 * i] == bv && mem->v2[2 * i + 1] == bl,
                     "%s MPI_2INT [%d] = (%d, %d), expected (%d, %d)", maxl ? "MAXLOC" : "MINLOC",
                     i, mem->v2[2 * i], mem->v2[2 * i + 1], bv, bl);
            MT_CHECK(!with_dint || (mem->d[i].v == dv && mem->d[i].loc == dl),
                     "%s MPI_DOUBLE_INT [%d] = (%g, %d), expected (%g, %d)",
                     maxl ? "MAXLOC" : "MINLOC", i, mem->d[i].v, mem->d[i].loc, dv, dl);
        }
    }
    MT_CALL(MPI_Win_free(&win));
    free(mem);
}

/* ------------------------------------------------------------ derived types */

static void derived(void)
{
    int me = mt_rank, n = mt_size, R = (me + 1) % n, L = (me + n - 1) % n;
    (void)L;
    int *mem = mt_malloc(64 * sizeof(int));
    double *dmem = mt_malloc(32 * sizeof(double));
    /* initialised before the (collective) creation: others may lock at once */
    for (int i = 0; i < 64; i++)
        mem[i] = i;
    for (int i = 0; i < 32; i++)
        dmem[i] = 0.25 * i;
    MPI_Win win, dwin;
    MT_CALL(MPI_Win_create(mem, 64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                           &win));
    MT_CALL(MPI_Win_create(dmem, 32 * sizeof(double), sizeof(double), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &dwin));
    MT_CALL(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MT_CALL(MPI_Win_set_errhandler(dwin, MPI_ERRORS_RETURN));

    /* origin: vector of 4 blocks of 2 ints, stride 3 (8 ints); target:
     * contiguous(2) x 4 at disp 0, and indexed {1 at 20, 3 at 24, 4 at 30}
     * (8 ints); a resized int (extent 2 ints) x 6 at disp 40 */
    MPI_Datatype ovec, tcon, tidx, trsz;
    MT_CALL(MPI_Type_vector(4, 2, 3, MPI_INT, &ovec));
    MT_CALL(MPI_Type_contiguous(2, MPI_INT, &tcon));
    int bl[3] = { 1, 3, 4 }, dsp[3] = { 20, 24, 30 };
    MT_CALL(MPI_Type_indexed(3, bl, dsp, MPI_INT, &tidx));
    MT_CALL(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &trsz));
    MT_CALL(MPI_Type_commit(&ovec));
    MT_CALL(MPI_Type_commit(&tcon));
    MT_CALL(MPI_Type_commit(&tidx));
    MT_CALL(MPI_Type_commit(&trsz));
    int osrc[12], ocont[6];
    for (int i = 0; i < 12; i++)
        osrc[i] = 100 * (me + 1) + i;
    for (int i = 0; i < 6; i++)
        ocont[i] = 1000 * (me + 1) + i;
    /* what the vector picks: 0 1 3 4 6 7 9 10 */
    static const int pick[8] = { 0, 1, 3, 4, 6, 7, 9, 10 };

    MT_CALL(MPI_Win_fence(0, win));
    MT_CALL(MPI_Accumulate(osrc, 1, ovec, R, 0, 4, tcon, MPI_SUM, win));
    MT_CALL(MPI_Accumulate(osrc, 1, ovec, R, 0, 1, tidx, MPI_SUM, win));
    MT_CALL(MPI_Accumulate(ocont, 6, MPI_INT, R, 40, 6, trsz, MPI_SUM, win));
    MT_CALL(MPI_Win_fence(0, win));
    int exp[64];
    for (int i = 0; i < 64; i++)
        exp[i] = i;
    for (int j = 0; j < 8; j++)
        exp[j] += 100 * (L + 1) + pick[j];
    int tpos[8] = { 20, 24, 25, 26, 30, 31, 32, 33 };
    for (int j = 0; j < 8; j++)
        exp[tpos[j]] += 100 * (L + 1) + pick[j];
    for (int j = 0; j < 6; j++)
        exp[40 + 2 * j] += 1000 * (L + 1) + j;
    for (int i = 0; i < 64; i++)
        MT_CHECK(mem[i] == exp[i], "Accumulate with derived types: [%d] = %d, expected %d", i,
                 mem[i], exp[i]);

    /* Get_accumulate on doubles: origin contiguous 4, target vector (every
     * other element from 1), result resized-vector layout (every third) */
    MPI_Datatype tvd, rvd;
    MT_CALL(MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &tvd));
    MT_CALL(MPI_Type_create_resized(MPI_DOUBLE, 0, 3 * sizeof(double), &rvd));
    MT_CALL(MPI_Type_commit(&tvd));
    MT_CALL(MPI_Type_commit(&rvd));
    double oadd[4] = { 1, 2, 3, 4 }, res[12];
    for (int i = 0; i < 12; i++)
        res[i] = -1;
    /* ranks in turn so the fetched values are known */
    for (int turn = 0; turn < n; turn++) {
        if (turn == me) {
            MT_CALL(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, R, 0, dwin));
            MT_CALL(MPI_Get_accumulate(oadd, 4, MPI_DOUBLE, res, 4, rvd, R, 1, 1, tvd, MPI_SUM,
                                       dwin));
            MT_CALL(MPI_Win_unlock(R, dwin));
        }
        MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    }
    for (int j = 0; j < 4; j++) {
        /* target element 1 + 2j had been summed into by the ranks before me
         * that target R, i.e. by L only if L came first - in a ring with one
         * target per rank, only my own op touches R: the fetch is the init */
        double want = 0.25 * (1 + 2 * j);
        MT_CHECK(res[3 * j] == want, "Get_accumulate fetched [%d] = %g, expected %g", 3 * j,
                 res[3 * j], want);
        MT_CHECK(res[3 * j + 1] == -1 && res[3 * j + 2] == -1,
                 "Get_accumulate wrote outside the result type");
    }
    MT_CALL(MPI_Win_fence(0, dwin));
    MT_CALL(MPI_Win_fence(0, dwin));
    for (int i = 0; i < 32; i++) {
        double want = 0.25 * i + ((i % 2 == 1 && i <= 7) ? (double)((i - 1) / 2 + 1) : 0);
        MT_CHECK(dmem[i] == want, "Get_accumulate target [%d] = %g, expected %g", i, dmem[i],
                 want);
    }
    MPI_Type_free(&ovec);
    MPI_Type_free(&tcon);
    MPI_Type_free(&tidx);
    MPI_Type_free(&trsz);
    MPI_Type_free(&tvd);
    MPI_Type_free(&rvd);
    MT_CALL(MPI_Win_free(&win));
    MT_CALL(MPI_Win_free(&dwin));
    free(mem);
    free(dmem);
}

/* ------------------------------------------------------------ atomicity */

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

/* gather every rank's observed "old values"; at rank 0 they must be
 * distinct and lie in [0, limit) (limit < 0: must be exactly 0..count-1) */
static void check_tickets(const long long *mine, int cnt, long long limit, const char *what)
{
    int *counts = mt_malloc(sizeof(int) * (size_t)mt_size), *displs = NULL;
    MT_CALL(MPI_Gather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD));
    long long *all = NULL;
    int total = 0;
    if (mt_rank == 0) {
        displs = mt_malloc(sizeof(int) * (size_t)mt_size);
        for (int r = 0; r < mt_size; r++) {
            displs[r] = total;
            total += counts[r];
        }
        all = mt_malloc(sizeof(long long) * (size_t)(total + 1));
    }
    MT_CALL(MPI_Gatherv(mine, cnt, MPI_LONG_LONG, all, counts, displs, MPI_LONG_LONG, 0,
                        MPI_COMM_WORLD));
    if (mt_rank == 0) {
        qsort(all, (size_t)total, sizeof *all, cmp_ll);
        for (int i = 0; i < total; i++) {
            if (limit < 0 ? all[i] != i
                          : (all[i] < 0 || all[i] >= limit || (i > 0 && all[i] == all[i - 1]))) {
                mt_fail(__FILE__, __LINE__, "%s: ticket %d of %d (sorted) is %lld", what, i,
                        total, all[i]);
                break;
            }
        }
    }
    free(all);
    free(displs);
    free(counts);
}

static void atomicity(int flavor, int iters)
{
    mr_win w;
    if (mr_win_open(&w, flavor, MPI_COMM_WORLD, 64, 1, MPI_INFO_NULL) != 0)
        return;
    if (w.size != mt_size) {
        /* a shared window spans one node: the tickets below are counted
         * over MPI_COMM_WORLD, so runs across nodes check the others only */
        mr_win_close(&w);
        return;
    }
    const char *fn = mr_flavor_name[flavor];
    long long *cnt = (long long *)(void *)w.base; /* [0] sum, [1] fop, [2] cas, [3] mixed */
    int *ic = (int *)(void *)(w.base + 32);       /* 4 ints added to at once */
    MT_CALL(MPI_Win_fence(0, w.win));
    memset(w.base, 0, 64);
    MT_CALL(MPI_Win_fence(0, w.win));
    MPI_Aint d_sum = mr_disp(&w, 0, 0), d_fop = mr_disp(&w, 0, 8), d_cas = mr_disp(&w, 0, 16),
             d_mix = mr_disp(&w, 0, 24), d_ic = mr_disp(&w, 0, 32);
    long long one = 1, old;
    int ones[4] = { 1, 2, 3, 4 };

    /* Accumulate(SUM) from everybody under shared locks */
    for (int i = 0; i < iters; i++) {
        MT_CALL(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w.win));
        MT_CALL(MPI_Accumulate(&one, 1, MPI_LONG_LONG, 0, d_sum, 1, MPI_LONG_LONG, MPI_SUM,
                               w.win));
        MT_CALL(MPI_Accumulate(ones, 4, MPI_INT, 0, d_ic, 4, MPI_INT, MPI_SUM, w.win));
        MT_CALL(MPI_Win_unlock(0, w.win));
    }

    /* Fetch_and_op ticket counter */
    long long *tk = mt_malloc(sizeof(long long) * (size_t)iters);
    MT_CALL(MPI_Win_lock_all(0, w.win));
    for (int i = 0; i < iters; i++) {
        MT_CALL(MPI_Fetch_and_op(&one, &tk[i], MPI_LONG_LONG, 0, d_fop, MPI_SUM, w.win));
        MT_CALL(MPI_Win_flush(0, w.win));
        MT_CHECK(i == 0 || tk[i] > tk[i - 1], "%s: Fetch_and_op tickets not increasing: %lld "
                 "after %lld", fn, tk[i], tk[i - 1]);
    }
    MT_CALL(MPI_Win_unlock_all(w.win));
    check_tickets(tk, iters, -1, "Fetch_and_op tickets");

    /* Compare_and_swap ticket counter: read, then swap in old + 1 */
#ifdef OPEN_MPI
    /* Open MPI 4.1.4 (osc/rdma over btl/vader) segfaults in
     * MPI_Compare_and_swap: at once when the target is the calling rank,
     * later in btl/vader's progress when several ranks use it */
    int cas_ok = 0;
#else
    int cas_ok = 1;
#endif
    int cas_iters = cas_ok ? iters : 0;
    long long cas_total = 0, my_cas = cas_iters;
    MT_CALL(MPI_Allreduce(&my_cas, &cas_total, 1, MPI_LONG_LONG, MPI_SUM, w.comm));
    MT_CALL(MPI_Win_lock_all(0, w.win));
    long long cur = 0;
    MT_CALL(MPI_Fetch_and_op(&one, &cur, MPI_LONG_LONG, 0, d_cas, MPI_NO_OP, w.win));
    MT_CALL(MPI_Win_flush(0, w.win));
    for (int i = 0; i < cas_iters; i++) {
        for (int tries = 0;; tries++) {
            long long next = cur + 1, res = -1;
            MT_CALL(MPI_Compare_and_swap(&next, &cur, &res, MPI_LONG_LONG, 0, d_cas, w.win));
            MT_CALL(MPI_Win_flush(0, w.win));
            if (res == cur) {
                tk[i] = cur;
                cur = next;
                break;
            }
            if (res < cur || tries > 100000) {
                mt_fail(__FILE__, __LINE__, "%s: Compare_and_swap counter went from %lld to %lld"
                        " (try %d)", fn, cur, res, tries);
                i = iters;
                break;
            }
            cur = res;
        }
    }
    MT_CALL(MPI_Win_unlock_all(w.win));
    check_tickets(tk, cas_iters, -1, "Compare_and_swap tickets");

    /* mixed on one counter: FOP, Get_accumulate, Accumulate, CAS */
    int nt = 0;
    MT_CALL(MPI_Win_lock_all(0, w.win));
    for (int i = 0; i < iters; i++) {
        int kind = (i + w.rank) % 4;
        if (kind == 3 && !cas_ok)
            kind = 0;
        switch (kind) {
        case 0:
            MT_CALL(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 0, d_mix, MPI_SUM, w.win));
            MT_CALL(MPI_Win_flush(0, w.win));
            tk[nt++] = old;
            break;
        case 1:
            MT_CALL(MPI_Get_accumulate(&one, 1, MPI_LONG_LONG, &old, 1, MPI_LONG_LONG, 0, d_mix,
                                       1, MPI_LONG_LONG, MPI_SUM, w.win));
            MT_CALL(MPI_Win_flush(0, w.win));
            tk[nt++] = old;
            break;
        case 2:
            MT_CALL(MPI_Accumulate(&one, 1, MPI_LONG_LONG, 0, d_mix, 1, MPI_LONG_LONG, MPI_SUM,
                                   w.win));
            MT_CALL(MPI_Win_flush(0, w.win));
            break;
        default: {
            long long c0 = 0, res;
            MT_CALL(MPI_Fetch_and_op(&one, &c0, MPI_LONG_LONG, 0, d_mix, MPI_NO_OP, w.win));
            MT_CALL(MPI_Win_flush(0, w.win));
            for (int tries = 0; tries < 100000; tries++) {
                long long next = c0 + 1;
                MT_CALL(MPI_Compare_and_swap(&next, &c0, &res, MPI_LONG_LONG, 0, d_mix, w.win));
                MT_CALL(MPI_Win_flush(0, w.win));
                if (res == c0)
                    break;
                c0 = res;
            }
            tk[nt++] = c0;
            break;
        }
        }
    }
    MT_CALL(MPI_Win_unlock_all(w.win));
    long long total = (long long)iters * w.size;
    check_tickets(tk, nt, total, "mixed FOP/Get_accumulate/CAS old values");

    MT_CALL(MPI_Barrier(w.comm));
    if (w.rank == 0) {
        mr_local_begin(&w, MPI_LOCK_SHARED);
        MT_CHECK(cnt[0] == total, "%s: concurrent Accumulate SUM: %lld, expected %lld", fn,
                 cnt[0], total);
        for (int j = 0; j < 4; j++)
            MT_CHECK(ic[j] == (j + 1) * total, "%s: concurrent Accumulate SUM int[%d]: %d, "
                     "expected %lld", fn, j, ic[j], (j + 1) * total);
        MT_CHECK(cnt[1] == total, "%s: Fetch_and_op counter %lld, expected %lld", fn, cnt[1],
                 total);
        MT_CHECK(cnt[2] == cas_total, "%s: Compare_and_swap counter %lld, expected %lld", fn,
                 cnt[2], cas_total);
        MT_CHECK(cnt[3] == total, "%s: mixed counter %lld, expected %lld", fn, cnt[3], total);
        mr_local_end(&w);
    }
    free(tk);
    mr_win_close(&w);
}

/* Many small operations to one target in one epoch (an origin may send
 * them together): every rank adds 1 into its own slot at the next rank
 * n times, reading the slot back with Fetch_and_op(NO_OP) every 149
 * additions (the default accumulate ordering: the read sees every earlier
 * addition of mine), and puts n distinct 8-byte values into its own
 * region there; after unlock the target finds all of them. */
static void many_small(int flavor, int n)
{
    mr_win w;
    MPI_Aint region = (MPI_Aint)n * 8;
    if (mr_win_open(&w, flavor, MPI_COMM_WORLD, 8 * 16 + region * 16, 8, MPI_INFO_NULL) != 0)
        return;
    const char *fn = mr_flavor_name[flavor];
    int t = (w.rank + 1) % w.size, me = w.rank % 16;
    memset(w.base, 0, (size_t)w.bytes);
    MT_CALL(MPI_Barrier(w.comm));
    long long one = 1, seen = -1, *vals = mt_malloc((size_t)region);
    MT_CALL(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w.win));
    for (int i = 0; i < n; i++) {
        MT_CALL(MPI_Accumulate(&one, 1, MPI_LONG_LONG, t, mr_disp(&w, t, 8 * me), 1,
                               MPI_LONG_LONG, MPI_SUM, w.win));
        vals[i] = (long long)w.rank * 1000003 + i;
        MT_CALL(MPI_Put(&vals[i], 1, MPI_LONG_LONG, t,
                        mr_disp(&w, t, 8 * 16 + region * me + 8 * i), 1, MPI_LONG_LONG, w.win));
        if (i % 149 == 148 || i == n - 1) {
            MT_CALL(MPI_Fetch_and_op(NULL, &seen, MPI_LONG_LONG, t, mr_disp(&w, t, 8 * me),
                                     MPI_NO_OP, w.win));
            MT_CALL(MPI_Win_flush(t, w.win));
            MT_CHECK(seen == i + 1, "%s: after %d small accumulates Fetch_and_op read %lld", fn,
                     i + 1, seen);
        }
    }
    MT_CALL(MPI_Win_unlock(t, w.win));
    MT_CALL(MPI_Barrier(w.comm));
    int from = (w.rank + w.size - 1) % w.size, fm = from % 16;
    mr_local_begin(&w, MPI_LOCK_SHARED);
    const long long *got = (const long long *)(void *)(w.base + 8 * 16 + region * fm);
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += got[i] != (long long)from * 1000003 + i;
    MT_CHECK(bad == 0, "%s: %d of %d small puts from rank %d missing or wrong", fn, bad, n,
             from);
    mr_local_end(&w);
    free(vals);
    mr_win_close(&w);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    init_types();
    init_ops();
    for (int f = 0; f < MR_NFLAVORS; f++)
        every_op(f);
    loc_ops();
    derived();
    int iters = mt_env_int("MTEST_ITERS", 40);
    for (int f = 0; f < MR_NFLAVORS; f++)
        atomicity(f, iters);
    for (int f = 0; f < MR_NFLAVORS; f++)
        many_small(f, 1000);
    return mt_finalize();
}
