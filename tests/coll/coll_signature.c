/* Collectives where ranks describe the same bytes with different (count,
 * datatype) pairs, as the standard allows whenever the type signatures
 * match: a block of M ints is, depending on the rank,
 *   form 0: M x MPI_INT
 *   form 1: M/2 x contiguous(2, MPI_INT)
 *   form 2: 2 x contiguous(M/2, MPI_INT)
 *   form 3: 1 x vector(M/2, 2, 3, MPI_INT) resized to 3M/2 ints (holes)
 * Bcast, Ibcast, gather, scatter, allgather and alltoall move such blocks between
 * ranks that use different forms; every data int is checked and every hole
 * must keep its poison.  Sizes from a few ints to 1 MiB (the pipelined and
 * scatter-allgather broadcasts cut large messages into pieces, which must
 * be cut in the byte stream, not by a rank's own element count).  The
 * CMake sweep forces the i-th algorithm of every kind at once. */
#include "collt.h"

#define NFORMS 4
#define POISON (-55555)

typedef struct {
    MPI_Datatype t;
    int count;
    int span;    /* ints a block occupies */
} form_t;

/* forms for blocks of m ints (m even) */
static void forms_make(int m, form_t f[NFORMS])
{
    MPI_Datatype v;
    f[0] = (form_t){ MPI_INT, m, m };
    MT_CALL(MPI_Type_contiguous(2, MPI_INT, &f[1].t));
    f[1].count = m / 2;
    f[1].span = m;
    MT_CALL(MPI_Type_contiguous(m / 2, MPI_INT, &f[2].t));
    f[2].count = 2;
    f[2].span = m;
    MT_CALL(MPI_Type_vector(m / 2, 2, 3, MPI_INT, &v));
    MT_CALL(MPI_Type_create_resized(v, 0, (MPI_Aint)(3 * (m / 2)) * (MPI_Aint)sizeof(int),
                                    &f[3].t));
    MT_CALL(MPI_Type_free(&v));
    f[3].count = 1;
    f[3].span = 3 * (m / 2);
    for (int i = 1; i < NFORMS; i++)
        MT_CALL(MPI_Type_commit(&f[i].t));
}

static void forms_free(form_t f[NFORMS])
{
    for (int i = 1; i < NFORMS; i++)
        MT_CALL(MPI_Type_free(&f[i].t));
}

/* int index in a block of form k of data int j */
static size_t fpos(int k, size_t j)
{
    return k == 3 ? (j / 2) * 3 + j % 2 : j;
}

static int val(int who, size_t j, int salt)
{
    return collt_val(who, j, salt);
}

/* nb blocks of form k: a poisoned buffer */
static int *fbuf(const form_t *f, int nb)
{
    size_t n = (size_t)f->span * (size_t)nb + 1;
    int *b = mt_malloc(n * sizeof(int));
    for (size_t i = 0; i < n; i++)
        b[i] = POISON;
    return b;
}

/* block b (m ints) of a form-k buffer gets who's values */
static void fput(int k, const form_t *f, int *buf, int b, int m, int who, int salt)
{
    int *p = buf + (size_t)b * (size_t)f->span;
    for (size_t j = 0; j < (size_t)m; j++)
        p[fpos(k, j)] = val(who, j, salt);
}

/* block b of a form-k buffer holds who's values, holes poisoned */
static int fcheck(int k, const form_t *f, const int *buf, int b, int m, int who, int salt,
                  const char *what)
{
    const int *p = buf + (size_t)b * (size_t)f->span;
    for (size_t i = 0; i < (size_t)f->span; i++) {
        int hole = k == 3 && i % 3 == 2;
        int want = hole ? POISON : val(who, k == 3 ? (i / 3) * 2 + i % 3 : i, salt);
        if (p[i] != want) {
            mt_fail(__FILE__, __LINE__,
                    "%s: m=%d form %d block %d (from rank %d): int %zu is %d, expected %d%s",
                    what, m, k, b, who, i, p[i], want, hole ? " (a hole)" : "");
            return 1;
        }
    }
    return 0;
}

static void run(int m, int shift, int salt)
{
    int rank, size;
    form_t f[NFORMS];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    forms_make(m, f);
    int me = (rank + shift) % NFORMS;          /* my form */
    int root = shift % size;
    char what[64];

    /* bcast: root fills, everyone receives in its own form */
    {
        int *b = fbuf(&f[me], 1);
        if (rank == root)
            fput(me, &f[me], b, 0, m, root, salt);
        MT_CALL(MPI_Bcast(b, f[me].count, f[me].t, root, MPI_COMM_WORLD));
        snprintf(what, sizeof what, "Bcast root %d", root);
        fcheck(me, &f[me], b, 0, m, root, salt, what);
        free(b);
    }
    /* the nonblocking bcast, the same way */
    {
        int *b = fbuf(&f[me], 1);
        MPI_Request rq;
        if (rank == root)
            fput(me, &f[me], b, 0, m, root, salt + 5);
        MT_CALL(MPI_Ibcast(b, f[me].count, f[me].t, root, MPI_COMM_WORLD, &rq));
        MT_CALL(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        snprintf(what, sizeof what, "Ibcast root %d", root);
        fcheck(me, &f[me], b, 0, m, root, salt + 5, what);
        free(b);
    }
    /* gather: each sends in its form, the root receives in form (me+1) */
    {
        int rk = (me + 1) % NFORMS;
        int *s = fbuf(&f[me], 1), *r = rank == root ? fbuf(&f[rk], size) : NULL;
        fput(me, &f[me], s, 0, m, rank, salt + 1);
        MT_CALL(MPI_Gather(s, f[me].count, f[me].t, r, f[rk].count, f[rk].t, root,
                           MPI_COMM_WORLD));
        for (int i = 0; rank == root && i < size; i++)
            if (fcheck(rk, &f[rk], r, i, m, i, salt + 1, "Gather"))
                break;
        free(s);
        free(r);
    }
    /* scatter: the root sends in its form, each receives in form (me+2) */
    {
        int rk = (me + 2) % NFORMS;
        int *s = rank == root ? fbuf(&f[me], size) : NULL, *r = fbuf(&f[rk], 1);
        for (int i = 0; rank == root && i < size; i++)
            fput(me, &f[me], s, i, m, i, salt + 2);
        MT_CALL(MPI_Scatter(s, f[me].count, f[me].t, r, f[rk].count, f[rk].t, root,
                            MPI_COMM_WORLD));
        fcheck(rk, &f[rk], r, 0, m, rank, salt + 2, "Scatter");
        free(s);
        free(r);
    }
    /* allgather: send in my form, receive in form (me+3) */
    {
        int rk = (me + 3) % NFORMS;
        int *s = fbuf(&f[me], 1), *r = fbuf(&f[rk], size);
        fput(me, &f[me], s, 0, m, rank, salt + 3);
        MT_CALL(MPI_Allgather(s, f[me].count, f[me].t, r, f[rk].count, f[rk].t,
                              MPI_COMM_WORLD));
        for (int i = 0; i < size; i++)
            if (fcheck(rk, &f[rk], r, i, m, i, salt + 3, "Allgather"))
                break;
        free(s);
        free(r);
    }
    /* alltoall: block i of rank r carries (r, i)'s values */
    {
        int rk = (me + 1) % NFORMS;
        int *s = fbuf(&f[me], size), *r = fbuf(&f[rk], size);
        for (int i = 0; i < size; i++)
            fput(me, &f[me], s, i, m, rank * size + i, salt + 4);
        MT_CALL(MPI_Alltoall(s, f[me].count, f[me].t, r, f[rk].count, f[rk].t,
                             MPI_COMM_WORLD));
        for (int i = 0; i < size; i++)
            if (fcheck(rk, &f[rk], r, i, m, i * size + rank, salt + 4, "Alltoall"))
                break;
        free(s);
        free(r);
    }
    forms_free(f);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    /* 2 ints up to 1 MiB blocks (the 262144 ints), odd halves included */
    static const int ms[] = { 2, 6, 1000, 40002, 131072, 262144 };
    int salt = 1;
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
        for (int shift = 0; shift < NFORMS; shift++, salt += 8)
            run(ms[i], shift, salt);
    return mt_finalize();
}
