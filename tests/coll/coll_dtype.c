/* Collectives on a derived datatype with holes: V = MPI_Type_vector(3, 2,
 * 4, MPI_INT) (6 ints of data in an extent of 10) and R = V resized to an
 * extent of 12 ints with lb -2 ints (data before the buffer pointer).
 * Every collective kind moves or reduces V/R elements, sometimes against
 * plain MPI_INT on the other side; the holes of receive buffers must keep
 * their poison.  Skipped (passes) where derived types are not supported.
 * The CMake sweep forces the i-th algorithm of every kind at once. */
#include "collt.h"

#define POISON (-7777)
#define DATA 6   /* ints of data per element */

static MPI_Datatype V, R;

typedef struct {
    MPI_Datatype t;
    const char *name;
    int ext;     /* ints */
    int lb;      /* ints, <= 0 */
} dtype_t;

static dtype_t types[2];

/* int index (from the buffer pointer) of data int k of element e */
static long pos(const dtype_t *d, size_t e, int k)
{
    return (long)e * d->ext + (k / 2) * 4 + k % 2;
}

/* A buffer for n elements: returns the pointer to pass (base + -lb). */
static int *tbuf(const dtype_t *d, size_t n, int **base_p)
{
    size_t ints = n * (size_t)d->ext + 16;
    int *base = mt_malloc(ints * sizeof(int));
    for (size_t i = 0; i < ints; i++)
        base[i] = POISON;
    *base_p = base;
    return base - d->lb;
}

/* Holes poisoned, data = vals[e * DATA + k]; returns 0 or reports */
static int tcheck(const dtype_t *d, const int *base, size_t n, const int *vals, const char *what)
{
    size_t ints = n * (size_t)d->ext + 16;
    int *want = mt_malloc(ints * sizeof(int));
    int bad = 0;
    for (size_t i = 0; i < ints; i++)
        want[i] = POISON;
    for (size_t e = 0; e < n; e++)
        for (int k = 0; k < DATA; k++)
            want[pos(d, e, k) - d->lb] = vals[e * DATA + (size_t)k];
    for (size_t i = 0; i < ints && !bad; i++)
        if (base[i] != want[i]) {
            mt_fail(__FILE__, __LINE__, "%s (%s, n=%zu): int %zu of the buffer is %d, expected %d%s",
                    what, d->name, n, i, base[i], want[i], want[i] == POISON ? " (a hole)" : "");
            bad = 1;
        }
    free(want);
    return bad;
}

static void tput(const dtype_t *d, int *p, size_t n, const int *vals)
{
    for (size_t e = 0; e < n; e++)
        for (int k = 0; k < DATA; k++)
            p[pos(d, e, k)] = vals[e * DATA + (size_t)k];
}

static void vals_of(int *v, size_t n, int r, size_t first, int salt)
{
    collt_fill(v, n * DATA, OP_SUM, r, first * DATA, salt);
}

static void run(MPI_Comm comm, const char *cname, const dtype_t *d, size_t n, int *salt)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    size_t N = n * (size_t)size;
    int *v = mt_malloc(N * DATA * sizeof(int)), *w = mt_malloc(N * DATA * sizeof(int));
    int *t = mt_malloc(N * DATA * sizeof(int)), *ints = mt_malloc(N * DATA * sizeof(int));
    int *b1, *b2, *p1, *p2;
    char what[128];
    int root = size - 1;

    /* bcast */
    ++*salt;
    vals_of(v, n, root, 0, *salt);
    p1 = tbuf(d, n, &b1);
    if (rank == root)
        tput(d, p1, n, v);
    MT_CALL(MPI_Bcast(p1, (int)n, d->t, root, comm));
    snprintf(what, sizeof what, "%s: bcast", cname);
    tcheck(d, b1, n, v, what);
    free(b1);

    /* allreduce and reduce (in place at the root), SUM */
    for (int kind = 0; kind < 3; kind++) {
        ++*salt;
        vals_of(v, n, rank, 0, *salt);
        collt_expect(w, t, n * DATA, OP_SUM, 0, size, 0, *salt);
        p1 = tbuf(d, n, &b1);
        p2 = tbuf(d, n, &b2);
        tput(d, p1, n, v);
        if (kind == 0) {
            MT_CALL(MPI_Allreduce(p1, p2, (int)n, d->t, MPI_SUM, comm));
        } else if (kind == 1) {
            MT_CALL(MPI_Allreduce(MPI_IN_PLACE, p1, (int)n, d->t, MPI_SUM, comm));
        } else if (rank == root) {
            MT_CALL(MPI_Reduce(MPI_IN_PLACE, p1, (int)n, d->t, MPI_SUM, root, comm));
        } else {
            MT_CALL(MPI_Reduce(p1, p2, (int)n, d->t, MPI_SUM, root, comm));
        }
        snprintf(what, sizeof what, "%s: %s", cname,
                 kind == 0 ? "allreduce" : kind == 1 ? "allreduce in place" : "reduce");
        if (kind == 0)
            tcheck(d, b2, n, w, what);
        else if (kind == 1 || rank == root)
            tcheck(d, b1, n, w, what);
        free(b1);
        free(b2);
    }

    /* scan, exscan */
    for (int excl = 0; excl < 2; excl++) {
        ++*salt;
        vals_of(v, n, rank, 0, *salt);
        p1 = tbuf(d, n, &b1);
        p2 = tbuf(d, n, &b2);
        tput(d, p1, n, v);
        if (excl)
            MT_CALL(MPI_Exscan(p1, p2, (int)n, d->t, MPI_SUM, comm));
        else
            MT_CALL(MPI_Scan(p1, p2, (int)n, d->t, MPI_SUM, comm));
        snprintf(what, sizeof what, "%s: %s", cname, excl ? "exscan" : "scan");
        int hi = excl ? rank : rank + 1;
        if (hi > 0) {
            collt_expect(w, t, n * DATA, OP_SUM, 0, hi, 0, *salt);
            tcheck(d, b2, n, w, what);
        }
        free(b1);
        free(b2);
    }

    /* reduce_scatter_block: n elements per rank */
    ++*salt;
    vals_of(v, N, rank, 0, *salt);
    collt_expect(w, t, n * DATA, OP_SUM, 0, size, (size_t)rank * n * DATA, *salt);
    p1 = tbuf(d, N, &b1);
    p2 = tbuf(d, n, &b2);
    tput(d, p1, N, v);
    MT_CALL(MPI_Reduce_scatter_block(p1, p2, (int)n, d->t, MPI_SUM, comm));
    snprintf(what, sizeof what, "%s: reduce_scatter_block", cname);
    tcheck(d, b2, n, w, what);
    free(b1);
    free(b2);

    /* gather: ints in, d at the root; scatter: d at the root, ints out */
    ++*salt;
    vals_of(ints, n, rank, 0, *salt);
    for (int r = 0; r < size; r++)
        vals_of(w + (size_t)r * n * DATA, n, r, 0, *salt);
    p1 = tbuf(d, N, &b1);
    MT_CALL(MPI_Gather(ints, (int)n * DATA, MPI_INT, p1, (int)n, d->t, root, comm));
    snprintf(what, sizeof what, "%s: gather", cname);
    if (rank == root)
        tcheck(d, b1, N, w, what);
    free(b1);
    p1 = tbuf(d, N, &b1);
    if (rank == root)
        tput(d, p1, N, w);
    for (size_t i = 0; i < n * DATA; i++)
        ints[i] = POISON;
    MT_CALL(MPI_Scatter(p1, (int)n, d->t, ints, (int)n * DATA, MPI_INT, root, comm));
    snprintf(what, sizeof what, "%s: scatter", cname);
    COLLT_CHECK_INTS(ints, w + (size_t)rank * n * DATA, n * DATA, "%s", what);
    free(b1);

    /* allgather d -> d (in place too), alltoall d -> d */
    for (int mode = 0; mode < 3; mode++) {
        ++*salt;
        p1 = tbuf(d, N, &b1);
        p2 = tbuf(d, N, &b2);
        if (mode < 2) {
            for (int r = 0; r < size; r++)
                vals_of(w + (size_t)r * n * DATA, n, r, 0, *salt);
            tput(d, p1, n, w + (size_t)rank * n * DATA);
            if (mode == 0) {
                MT_CALL(MPI_Allgather(p1, (int)n, d->t, p2, (int)n, d->t, comm));
            } else {
                tput(d, p2 + (size_t)rank * n * (size_t)d->ext, n, w + (size_t)rank * n * DATA);
                MT_CALL(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, p2, (int)n, d->t, comm));
            }
            snprintf(what, sizeof what, "%s: allgather%s", cname, mode ? " in place" : "");
        } else {
            for (int q = 0; q < size; q++) {
                vals_of(v + (size_t)q * n * DATA, n, rank, (size_t)q * 100003, *salt);
                vals_of(w + (size_t)q * n * DATA, n, q, (size_t)rank * 100003, *salt);
            }
            tput(d, p1, N, v);
            MT_CALL(MPI_Alltoall(p1, (int)n, d->t, p2, (int)n, d->t, comm));
            snprintf(what, sizeof what, "%s: alltoall", cname);
        }
        tcheck(d, b2, N, w, what);
        free(b1);
        free(b2);
    }
    free(v);
    free(w);
    free(t);
    free(ints);
}

int main(int argc, char **argv)
{
    int salt = 0;
    collt_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int ok = MPI_Type_vector(3, 2, 4, MPI_INT, &V) == MPI_SUCCESS &&
             MPI_Type_create_resized(V, -2 * (MPI_Aint)sizeof(int), 12 * (MPI_Aint)sizeof(int),
                                     &R) == MPI_SUCCESS &&
             MPI_Type_commit(&V) == MPI_SUCCESS && MPI_Type_commit(&R) == MPI_SUCCESS;
    if (!ok) {
        if (mt_rank == 0)
            printf("derived datatypes not supported: skipped\n");
        return collt_finalize();
    }
    types[0] = (dtype_t){ V, "vector", 10, 0 };
    types[1] = (dtype_t){ R, "resized", 12, -2 };
    size_t ns[] = { 1, 3, 50, collt_large ? 20000 : 700 };
    for (int c = 0; c < COLLT_NCOMMS; c++)
        for (int ti = 0; ti < 2; ti++)
            for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++)
                run(collt_comms[c], collt_comm_names[c], &types[ti], ns[k], &salt);
    MT_CALL(MPI_Type_free(&V));
    MT_CALL(MPI_Type_free(&R));
    return collt_finalize();
}
