/* The schedules behind MPI_Ibarrier, MPI_Ibcast, MPI_Ireduce and
 * MPI_Iallreduce (coll/nbc/nbc_group.c, nbc_twolevel.c), results checked:
 * every root, short and long vectors (the long one takes the ring), SUM,
 * MAX and a non-commutative op, MPI_IN_PLACE, a strided derived type, on
 * COMM_WORLD and on a communicator with the rank order reversed, with
 * several of them outstanding at once; and MPI_Igather / MPI_Iscatter on
 * every root, in place, with a strided type on the non-root side (blocks
 * travel packed in two levels), small blocks and one above the two-level
 * limit; MPI_Ialltoall likewise (in place, strided).  The test list runs it with each allreduce schedule forced
 * (TERN_COLL_ALLREDUCE=recdbl, ring, reduce_bcast), and tests/net across
 * nodes, where the two-level schedules run. */
#include "nbct.h"

#define LONG_COUNT 40002   /* ints: 160 KB, over the ring's threshold */

/* Contribution of rank q at element i. */
static int val(int q, int i, int salt)
{
    return nbct_val(q, i % 997, salt + i / 997);
}

/* The expected reduction of elements i, i + 1 over ranks 0..n-1. */
static void expect(int n, int i, int salt, int kind, int out[2])
{
    if (kind == 0 || kind == 1) {
        out[0] = kind == 0 ? 0 : -1;
        out[1] = out[0];
        for (int q = 0; q < n; q++) {
            for (int k = 0; k < 2; k++) {
                int x = val(q, i + k, salt);
                out[k] = kind == 0 ? out[k] + x : (x > out[k] ? x : out[k]);
            }
        }
        return;
    }
    out[0] = val(n - 1, i, salt) % NBCT_P;
    out[1] = val(n - 1, i + 1, salt);
    for (int q = n - 2; q >= 0; q--) {
        int x[2] = { val(q, i, salt), val(q, i + 1, salt) };
        nbct_aff_pair(x, out);
    }
}

static void fill(int *buf, int count, int r, int salt)
{
    for (int i = 0; i < count; i++) {
        buf[i] = val(r, i, salt);
    }
}

static void check_red(const int *got, int count, int n, int salt, int kind, const char *what,
                      const char *cname)
{
    int bad = 0;

    for (int i = 0; i + 1 < count && bad < 3; i += 2) {
        int want[2];
        expect(n, i, salt, kind, want);
        for (int k = 0; k < 2; k++) {
            if (got[i + k] != want[k]) {
                MT_CHECK(0, "%s %s count %d op %d: [%d] %d != %d", cname, what, count, kind,
                         i + k, got[i + k], want[k]);
                bad++;
            }
        }
    }
}

static void run(MPI_Comm comm, const char *cname, MPI_Op aff)
{
    int n, r;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &r);
    int counts[] = { 2, 6, 2 * n + 2, LONG_COUNT };
    MPI_Op ops[] = { MPI_SUM, MPI_MAX, aff };
    int *a = malloc(LONG_COUNT * sizeof(int)), *b = malloc(LONG_COUNT * sizeof(int));
    int *c = malloc(LONG_COUNT * sizeof(int));
    MPI_Request rq[3];

    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
        int count = counts[ci];

        MT_CALL(MPI_Ibarrier(comm, &rq[0]));
        MT_CALL(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
        for (int root = 0; root < n; root++) {
            int salt = root + 11 * (int)ci;
            fill(a, count, root, salt);
            if (r != root) {
                memset(a, 0xff, (size_t)count * sizeof(int));
            }
            MT_CALL(MPI_Ibcast(a, count, MPI_INT, root, comm, &rq[0]));
            MT_CALL(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
            for (int i = 0; i < count; i++) {
                if (a[i] != val(root, i, salt)) {
                    MT_CHECK(0, "%s ibcast root %d count %d: [%d] %d", cname, root, count, i,
                             a[i]);
                    break;
                }
            }
            for (int kind = 0; kind < 3; kind++) {
                int inplace = (root + kind) % 2 && r == root;
                if (!inplace) {
                    memset(c, 0, (size_t)count * sizeof(int));
                }
                fill(inplace ? c : a, count, r, salt + kind);
                MT_CALL(MPI_Ireduce(inplace ? MPI_IN_PLACE : a, c, count, MPI_INT, ops[kind],
                                    root, comm, &rq[0]));
                MT_CALL(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
                if (r == root) {
                    check_red(c, count, n, salt + kind, kind, "ireduce", cname);
                }
            }
        }
        for (int kind = 0; kind < 3; kind++) {
            int salt = 5 + kind + (int)ci;
            fill(a, count, r, salt);
            memset(b, 0, (size_t)count * sizeof(int));
            MT_CALL(MPI_Iallreduce(a, b, count, MPI_INT, ops[kind], comm, &rq[0]));
            fill(c, count, r, salt);
            MT_CALL(MPI_Iallreduce(MPI_IN_PLACE, c, count, MPI_INT, ops[kind], comm, &rq[1]));
            MT_CALL(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
            check_red(b, count, n, salt, kind, "iallreduce", cname);
            check_red(c, count, n, salt, kind, "iallreduce in place", cname);
        }
    }
    /* three at once, on one tag sequence each */
    int count = 2 * n + 4;
    fill(a, count, r, 40);
    fill(b, count, r, 41);
    if (r != n - 1) {
        memset(c, 0, (size_t)count * sizeof(int));
    } else {
        fill(c, count, r, 42);
    }
    int *ra = malloc((size_t)count * sizeof(int)), *rb = malloc((size_t)count * sizeof(int));
    MT_CALL(MPI_Iallreduce(a, ra, count, MPI_INT, aff, comm, &rq[0]));
    MT_CALL(MPI_Ireduce(b, rb, count, MPI_INT, MPI_SUM, n / 2, comm, &rq[1]));
    MT_CALL(MPI_Ibcast(c, count, MPI_INT, n - 1, comm, &rq[2]));
    MT_CALL(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
    check_red(ra, count, n, 40, 2, "iallreduce (with others)", cname);
    if (r == n / 2) {
        check_red(rb, count, n, 41, 0, "ireduce (with others)", cname);
    }
    for (int i = 0; i < count; i++) {
        MT_CHECK(c[i] == val(n - 1, i, 42), "%s ibcast (with others) [%d]", cname, i);
    }
    free(ra);
    free(rb);
    free(a);
    free(b);
    free(c);
}

/* Allreduce of a strided type (one int, then a hole of one), long enough
 * for the ring: only the data ints change. */
static void run_strided(MPI_Comm comm)
{
    int n, r, count = LONG_COUNT;
    MPI_Datatype gap;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &r);
    int *a = malloc((size_t)count * 2 * sizeof(int));
    int *b = malloc((size_t)count * 2 * sizeof(int));
    int *pb = malloc((size_t)count * sizeof(int));
    MPI_Request rq;

    MT_CALL(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &gap));
    MT_CALL(MPI_Type_commit(&gap));
    for (int kind = 0; kind < 2; kind++) {
        for (int i = 0; i < count; i++) {
            a[2 * i] = val(r, i, 60 + kind);
            a[2 * i + 1] = -5;
            b[2 * i] = 0;
            b[2 * i + 1] = -6;
        }
        MT_CALL(MPI_Iallreduce(a, b, count, gap, kind == 0 ? MPI_SUM : MPI_MAX, comm, &rq));
        MT_CALL(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        for (int i = 0; i < count; i++) {
            pb[i] = b[2 * i];
            if (b[2 * i + 1] != -6) {
                MT_CHECK(0, "strided iallreduce wrote hole %d", 2 * i + 1);
                break;
            }
        }
        check_red(pb, count, n, 60 + kind, kind, "strided iallreduce", "world");
    }
    MPI_Type_free(&gap);
    free(a);
    free(b);
    free(pb);
}

/* Igather and Iscatter: block q holds val(q, i, salt).  A strided type
 * (one int, a hole of one) on the non-root side for odd roots. */
static void run_gs(MPI_Comm comm, const char *cname)
{
    int n, r;
    MPI_Datatype gap;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &r);
    int counts[] = { 1, 3, 1000, 70001 };  /* the last: 280 KB blocks, flat */
    int maxc = 70001;
    int *all = malloc((size_t)n * (size_t)maxc * sizeof(int));
    int *mine = malloc((size_t)maxc * 2 * sizeof(int));
    MPI_Request rq;

    MT_CALL(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &gap));
    MT_CALL(MPI_Type_commit(&gap));
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
        int count = counts[ci];
        for (int root = 0; root < n; root++) {
            int salt = 70 + root + 13 * (int)ci;
            int strided = root % 2 && r != root && count < 70001;
            int inplace = (root + (int)ci) % 3 == 0 && r == root;
            size_t total = (size_t)n * (size_t)count;

            /* gather */
            for (int i = 0; i < count; i++) {
                if (strided) {
                    mine[2 * i] = val(r, i, salt);
                    mine[2 * i + 1] = -7;
                } else {
                    mine[i] = val(r, i, salt);
                }
            }
            if (r == root) {
                for (size_t i = 0; i < total; i++) {
                    all[i] = -1;
                }
                if (inplace) {
                    memcpy(all + (size_t)r * count, mine, (size_t)count * sizeof(int));
                }
            }
            MT_CALL(MPI_Igather(inplace ? MPI_IN_PLACE : mine, count, strided ? gap : MPI_INT,
                                all, count, MPI_INT, root, comm, &rq));
            MT_CALL(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            if (r == root) {
                for (int q = 0, bad = 0; q < n && !bad; q++) {
                    for (int i = 0; i < count; i++) {
                        if (all[(size_t)q * count + i] != val(q, i, salt)) {
                            MT_CHECK(0, "%s igather root %d count %d: block %d [%d] %d", cname,
                                     root, count, q, i, all[(size_t)q * count + i]);
                            bad = 1;
                            break;
                        }
                    }
                }
            }

            /* scatter */
            salt += 5;
            if (r == root) {
                for (int q = 0; q < n; q++) {
                    for (int i = 0; i < count; i++) {
                        all[(size_t)q * count + i] = val(q, i, salt);
                    }
                }
            }
            for (int i = 0; i < 2 * count; i++) {
                mine[i] = -3;
            }
            MT_CALL(MPI_Iscatter(all, count, MPI_INT, inplace ? MPI_IN_PLACE : mine, count,
                                 strided ? gap : MPI_INT, root, comm, &rq));
            MT_CALL(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            const int *got = inplace ? all + (size_t)r * count : mine;
            for (int i = 0; i < count; i++) {
                int v = strided ? got[2 * i] : got[i];
                if (v != val(r, i, salt) || (strided && got[2 * i + 1] != -3)) {
                    MT_CHECK(0, "%s iscatter root %d count %d: [%d] %d", cname, root, count, i,
                             v);
                    break;
                }
            }
        }
    }
    MPI_Type_free(&gap);
    free(all);
    free(mine);
}

/* Ialltoall: rank r's block for q holds val(r * n + q, i, salt).  In place
 * on odd rounds, a strided send type on every third. */
static void run_a2a(MPI_Comm comm, const char *cname)
{
    int n, r;
    MPI_Datatype gap;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &r);
    int counts[] = { 1, 5, 100, 300 };   /* 4 B to 1200 B blocks: the last flat */
    int maxc = 300;
    int *sbuf = malloc((size_t)n * (size_t)maxc * 2 * sizeof(int));
    int *rbuf = malloc((size_t)n * (size_t)maxc * sizeof(int));
    MPI_Request rq;

    MT_CALL(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &gap));
    MT_CALL(MPI_Type_commit(&gap));
    for (int round = 0; round < 8; round++) {
        int count = counts[round % 4], salt = 90 + round;
        int inplace = round % 2, strided = !inplace && round % 3 == 0;
        for (int q = 0; q < n; q++) {
            for (int i = 0; i < count; i++) {
                int v = val(r * n + q, i, salt);
                if (inplace) {
                    rbuf[(size_t)q * count + i] = v;
                } else if (strided) {
                    sbuf[2 * ((size_t)q * count + i)] = v;
                    sbuf[2 * ((size_t)q * count + i) + 1] = -9;
                } else {
                    sbuf[(size_t)q * count + i] = v;
                    rbuf[(size_t)q * count + i] = -1;
                }
            }
        }
        MT_CALL(MPI_Ialltoall(inplace ? MPI_IN_PLACE : sbuf, count, strided ? gap : MPI_INT,
                              rbuf, count, MPI_INT, comm, &rq));
        MT_CALL(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        for (int p = 0, bad = 0; p < n && !bad; p++) {
            for (int i = 0; i < count; i++) {
                if (rbuf[(size_t)p * count + i] != val(p * n + r, i, salt)) {
                    MT_CHECK(0, "%s ialltoall count %d%s%s: from %d [%d] %d", cname, count,
                             inplace ? " in place" : "", strided ? " strided" : "", p, i,
                             rbuf[(size_t)p * count + i]);
                    bad = 1;
                    break;
                }
            }
        }
    }
    MPI_Type_free(&gap);
    free(sbuf);
    free(rbuf);
}

int main(int argc, char **argv)
{
    MPI_Comm rev;
    MPI_Op aff;

    nbct_begin(&argc, &argv, &rev, &aff);
    run(MPI_COMM_WORLD, "world", aff);
    run(rev, "reversed", aff);
    run_strided(MPI_COMM_WORLD);
    run_gs(MPI_COMM_WORLD, "world");
    run_gs(rev, "reversed");
    run_a2a(MPI_COMM_WORLD, "world");
    run_a2a(rev, "reversed");
    return nbct_end(&rev, &aff);
}
