/* Collectives whose ranks disagree on the size of the data: one rank's
 * receive (count, datatype) holds fewer bytes than what is sent to it.  MPI
 * says the signatures must match, so the program is wrong; the library must
 * say so with MPI_ERR_TRUNCATE on that rank (MPI_ERRORS_RETURN here), not
 * hang, and not write past anybody's buffer.
 *
 * Every call runs on MPI_COMM_WORLD, on one node (the collectives go
 * through the communicator's shared-memory slot, where the ranks agree on
 * the size before they pick an algorithm).  For each kind, each full size
 * (from 4 bytes to past 512 KiB, across the points where the automatic
 * choice changes algorithm: the slot's 1-16 KiB limits, 12, 32, 64 and
 * 512 KiB) and each rank s as the odd one out, s passes a short count: half
 * the full one, or one element less; then a long one, about twice the full
 * one (for reduce and gather s then sends more than the root receives).  Every receive buffer sits between
 * guard bytes that must keep their value, every rank that returns
 * MPI_SUCCESS must hold the right data, and after each such call the same
 * collective with matching counts must work (the ranks are still in step).
 * Run on 2 to 4 ranks.
 *
 * What is detected, and what each rank returns (docs/collectives.md):
 *   bcast, scatter: the receiver whose count is short: MPI_ERR_TRUNCATE;
 *     every other rank MPI_SUCCESS with its data.  A receiver with a
 *     longer count gets the root's data and MPI_SUCCESS, as a
 *     point-to-point receive would; the rest of its buffer is untouched.
 *   reduce, gather: the root, when a contribution does not match its own
 *     count: MPI_ERR_TRUNCATE (short here: the root's count is short, or one
 *     rank sends more than the root receives); the other ranks send and
 *     return MPI_SUCCESS.
 *   allreduce, allgather, alltoall, reduce_scatter_block: every rank
 *     MPI_ERR_TRUNCATE (all of them see the mismatch, and no data moves).
 *
 * Not covered here: communicators without a shared-memory slot (several
 * nodes, or all slots taken), the vector forms, scan, and the nonblocking
 * collectives. */
#include "collt.h"

#define GUARD 64
#define GUARD_BYTE 0xA5
#define POISON (-7777)

/* n ints between guard bytes */
typedef struct {
    unsigned char *base;
    int *p;
    size_t n;
} gbuf_t;

static void gb_make(gbuf_t *g, size_t n)
{
    g->n = n;
    g->base = mt_malloc(2 * GUARD + n * sizeof(int));
    memset(g->base, GUARD_BYTE, GUARD);
    memset(g->base + GUARD + n * sizeof(int), GUARD_BYTE, GUARD);
    g->p = (int *)(void *)(g->base + GUARD);
    for (size_t i = 0; i < n; i++)
        g->p[i] = POISON;
}

static void gb_check(const gbuf_t *g, const char *what)
{
    const unsigned char *tail = g->base + GUARD + g->n * sizeof(int);
    for (size_t i = 0; i < GUARD; i++) {
        if (g->base[i] != GUARD_BYTE || tail[i] != GUARD_BYTE) {
            mt_fail(__FILE__, __LINE__, "%s: guard byte %s%zu overwritten", what,
                    g->base[i] != GUARD_BYTE ? "-" : "+", g->base[i] != GUARD_BYTE ? GUARD - i : i);
            return;
        }
    }
}

static void gb_free(gbuf_t *g)
{
    free(g->base);
}

static int val(int r, size_t i, int salt)
{
    return collt_val(r, i, salt);
}

static void fill(int *p, size_t n, int r, size_t first, int salt)
{
    for (size_t i = 0; i < n; i++)
        p[i] = val(r, first + i, salt);
}

/* the block rank r sends to rank d in an alltoall of m ints per block */
static void fill_a2a(int *p, size_t m, int r, int d, int salt)
{
    fill(p, m, r, (size_t)d * 1000003u, salt);
}

enum { K_BCAST, K_SCATTER, K_GATHER, K_REDUCE, K_ALLREDUCE, K_ALLGATHER, K_ALLTOALL, K_RSB, NK };
static const char *knames[NK] = { "bcast", "scatter", "gather", "reduce", "allreduce",
                                  "allgather", "alltoall", "reduce_scatter_block" };

/* The odd rank's role in a case. */
enum {
    SHORT,       /* s receives fewer ints than are sent to it */
    LONG_SEND,   /* s sends (and receives) more than the others: the root's
                  * receive is the short one (gather, reduce) */
    LONG_RECV,   /* s receives more than is sent (bcast, scatter) */
};

static const char *error_name(int rc)
{
    static char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (rc == MPI_SUCCESS)
        return "MPI_SUCCESS";
    MPI_Error_string(rc, s, &len);
    return s;
}

static int error_class(int rc)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls;
}

/* One call of kind k, every rank with m ints except rank s with ms (per
 * block for the block kinds), root as given; checks the guards, and the
 * data when the call returns MPI_SUCCESS.  Returns this rank's code. */
static int run(int k, size_t m, int s, size_t ms, int root, int salt, char *what)
{
    int me = mt_rank, n = mt_size;
    size_t mine = me == s ? ms : m;   /* my count (per block for block kinds) */
    int rc = MPI_SUCCESS;
    gbuf_t r;
    int *sb = NULL, *want = NULL, *tmp = NULL;
    size_t rn = 0;                     /* ints of my receive buffer */

    switch (k) {
    case K_BCAST:
        rn = mine;
        gb_make(&r, rn);
        if (me == root)
            fill(r.p, rn, root, 0, salt);
        rc = MPI_Bcast(r.p, (int)mine, MPI_INT, root, MPI_COMM_WORLD);
        if (rc == MPI_SUCCESS && me != root) {
            size_t got = mine < m ? mine : m;   /* the root sends m */
            want = mt_malloc((rn ? rn : 1) * sizeof(int));
            fill(want, got, root, 0, salt);
            for (size_t i = got; i < rn; i++)
                want[i] = POISON;
            COLLT_CHECK_INTS(r.p, want, rn, "%s", what);
        }
        break;
    case K_SCATTER: {
        size_t sm = me == root ? mine : m;   /* the root's blocks */
        rn = mine;
        gb_make(&r, rn);
        if (me == root) {
            sb = mt_malloc((size_t)n * sm * sizeof(int) + 1);
            for (int d = 0; d < n; d++)
                fill(sb + (size_t)d * sm, sm, root, (size_t)d * 1000003u, salt);
        }
        rc = MPI_Scatter(sb, (int)sm, MPI_INT, r.p, (int)mine, MPI_INT, root, MPI_COMM_WORLD);
        if (rc == MPI_SUCCESS) {
            size_t got = mine < m ? mine : m;
            want = mt_malloc((rn ? rn : 1) * sizeof(int));
            fill(want, got, root, (size_t)me * 1000003u, salt);
            for (size_t i = got; i < rn; i++)
                want[i] = POISON;
            COLLT_CHECK_INTS(r.p, want, rn, "%s", what);
        }
        break;
    }
    case K_GATHER: {
        /* SHORT: s is the root and receives blocks of ms; LONG_SEND: s
         * sends ms > m to a root that receives m */
        size_t scnt = mine;
        size_t rcnt = me == root ? mine : m;
        sb = mt_malloc(scnt * sizeof(int) + 1);
        fill(sb, scnt, me, 0, salt);
        rn = me == root ? (size_t)n * rcnt : 0;
        gb_make(&r, rn);
        rc = MPI_Gather(sb, (int)scnt, MPI_INT, me == root ? r.p : NULL, (int)rcnt, MPI_INT,
                        root, MPI_COMM_WORLD);
        if (rc == MPI_SUCCESS && me == root) {
            want = mt_malloc((rn ? rn : 1) * sizeof(int));
            for (int j = 0; j < n; j++)
                fill(want + (size_t)j * rcnt, rcnt, j, 0, salt);
            COLLT_CHECK_INTS(r.p, want, rn, "%s", what);
        }
        break;
    }
    case K_REDUCE:
    case K_ALLREDUCE:
        sb = mt_malloc(mine * sizeof(int) + 1);
        fill(sb, mine, me, 0, salt);
        rn = k == K_ALLREDUCE || me == root ? mine : 0;
        gb_make(&r, rn);
        if (k == K_REDUCE)
            rc = MPI_Reduce(sb, r.p, (int)mine, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        else
            rc = MPI_Allreduce(sb, r.p, (int)mine, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rc == MPI_SUCCESS && rn > 0) {
            want = mt_malloc(rn * sizeof(int));
            tmp = mt_malloc(rn * sizeof(int));
            fill(want, rn, 0, 0, salt);
            for (int j = 1; j < n; j++) {
                fill(tmp, rn, j, 0, salt);
                collt_apply(OP_SUM, tmp, want, rn);
            }
            COLLT_CHECK_INTS(r.p, want, rn, "%s", what);
        }
        break;
    case K_ALLGATHER:
        /* every rank sends m; s receives blocks of ms */
        sb = mt_malloc(m * sizeof(int) + 1);
        fill(sb, m, me, 0, salt);
        rn = (size_t)n * mine;
        gb_make(&r, rn);
        rc = MPI_Allgather(sb, (int)m, MPI_INT, r.p, (int)mine, MPI_INT, MPI_COMM_WORLD);
        if (rc == MPI_SUCCESS) {
            want = mt_malloc((rn ? rn : 1) * sizeof(int));
            for (int j = 0; j < n; j++)
                fill(want + (size_t)j * mine, mine, j, 0, salt);
            COLLT_CHECK_INTS(r.p, want, rn, "%s", what);
        }
        break;
    case K_ALLTOALL:
        sb = mt_malloc((size_t)n * m * sizeof(int) + 1);
        for (int d = 0; d < n; d++)
            fill_a2a(sb + (size_t)d * m, m, me, d, salt);
        rn = (size_t)n * mine;
        gb_make(&r, rn);
        rc = MPI_Alltoall(sb, (int)m, MPI_INT, r.p, (int)mine, MPI_INT, MPI_COMM_WORLD);
        if (rc == MPI_SUCCESS) {
            want = mt_malloc((rn ? rn : 1) * sizeof(int));
            for (int j = 0; j < n; j++)
                fill_a2a(want + (size_t)j * mine, mine, j, me, salt);
            COLLT_CHECK_INTS(r.p, want, rn, "%s", what);
        }
        break;
    case K_RSB:
        /* s's recvcount is short, so it also contributes n * ms ints */
        sb = mt_malloc((size_t)n * mine * sizeof(int) + 1);
        fill(sb, (size_t)n * mine, me, 0, salt);
        rn = mine;
        gb_make(&r, rn);
        rc = MPI_Reduce_scatter_block(sb, r.p, (int)mine, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rc == MPI_SUCCESS && rn > 0) {
            want = mt_malloc(rn * sizeof(int));
            tmp = mt_malloc(rn * sizeof(int));
            fill(want, rn, 0, (size_t)me * rn, salt);
            for (int j = 1; j < n; j++) {
                fill(tmp, rn, j, (size_t)me * rn, salt);
                collt_apply(OP_SUM, tmp, want, rn);
            }
            COLLT_CHECK_INTS(r.p, want, rn, "%s", what);
        }
        break;
    default:
        gb_make(&r, 0);
        break;
    }
    gb_check(&r, what);
    gb_free(&r);
    free(sb);
    free(want);
    free(tmp);
    return rc;
}

/* What rank me may return in a case: 1 when cls is acceptable. */
static int expected(int k, int role, int s, int root, int cls)
{
    int me = mt_rank;
    int ok = cls == MPI_SUCCESS, trunc = cls == MPI_ERR_TRUNCATE;

    switch (k) {
    case K_BCAST:
    case K_SCATTER:
        /* s receives from the root: short -> truncated, long -> fine */
        if (me == s && role == SHORT)
            return trunc;
        return ok;
    case K_GATHER:
    case K_REDUCE:
        return me == root ? trunc : ok;
    default:
        (void)s;
        return trunc;
    }
}

int main(int argc, char **argv)
{
    /* full counts in ints: 4 B ... 512 KiB + 4 B */
    static const size_t fulls[] = { 1, 64, 257, 513, 1025, 2049, 3073, 8193, 16385, 131073 };
    int n, salt = 1;
    char what[256];

    collt_init(&argc, &argv);
    n = mt_size;
    for (int k = 0; k < NK; k++) {
        for (size_t f = 0; f < sizeof fulls / sizeof fulls[0]; f++) {
            size_t m = fulls[f];
            /* blocks of all ranks in one buffer: keep it near 1 MiB */
            if ((k == K_ALLGATHER || k == K_ALLTOALL || k == K_GATHER || k == K_SCATTER ||
                 k == K_RSB) && m * (size_t)n > 300000)
                m = 300000 / (size_t)n + 1;
            for (int variant = 0; variant < 3; variant++) {
                int role = variant < 2 ? SHORT : LONG_SEND;
                size_t ms = variant == 0 ? m / 2 : variant == 1 ? m - 1 : m * 2 + 3;

                if (role == LONG_SEND && k != K_GATHER && k != K_REDUCE && k != K_BCAST &&
                    k != K_SCATTER)
                    continue;
                if (role == LONG_SEND && (k == K_BCAST || k == K_SCATTER))
                    role = LONG_RECV;
                for (int s = 0; s < n; s++) {
                    int root;
                    if (k == K_BCAST || k == K_SCATTER)
                        root = (s + 1) % n;            /* s receives from the root */
                    else if (k == K_GATHER || k == K_REDUCE)
                        root = role == SHORT ? s : (s + 1) % n;
                    else
                        root = 0;
                    snprintf(what, sizeof what, "%s of %zu ints, rank %d %s %zu, root %d",
                             knames[k], m, s, role == SHORT ? "short" : "long", ms, root);
                    int rc = run(k, m, s, ms, root, salt, what);
                    int cls = error_class(rc);
                    if (!expected(k, role, s, root, cls))
                        mt_fail(__FILE__, __LINE__, "%s: rank %d returned %s", what, mt_rank,
                                error_name(rc));
                    salt++;
                    /* the same call with matching counts works afterwards */
                    snprintf(what, sizeof what, "%s of %zu ints after the mismatch", knames[k], m);
                    rc = run(k, m, -1, m, root, salt, what);
                    if (rc != MPI_SUCCESS)
                        mt_fail(__FILE__, __LINE__, "%s: returned %s", what, error_name(rc));
                    salt++;
                }
            }
        }
    }
    return collt_finalize();
}
