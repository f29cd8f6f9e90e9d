/* Every blocking intercommunicator collective, both directions, results
 * checked: values encode (world rank, index) so a misplaced block shows. */
#include "inter_common.h"

#define N 3     /* elements per block */

static int val(int world, int i)
{
    return world * 100 + i;
}

/* Rooted collectives with the root in group rc at its rank rr. */
static void rooted(const it_t *t, int rc, int rr)
{
    int in_root_group = t->color == rc;
    int root = in_root_group ? (t->lrank == rr ? MPI_ROOT : MPI_PROC_NULL) : rr;
    int rootw = it_world(rc, rr);
    int nr = t->rsize, i, j;
    int *big = malloc((size_t)(N * (nr + t->lsize) + 8) * sizeof(int));
    int buf[N], sum[N];

    /* bcast */
    for (i = 0; i < N; i++) {
        buf[i] = root == MPI_ROOT ? val(mt_rank, i) : -1;
    }
    MT_CALL(MPI_Bcast(buf, N, MPI_INT, root, t->inter));
    for (i = 0; i < N && !in_root_group; i++) {
        MT_CHECK(buf[i] == val(rootw, i), "bcast[%d] = %d", i, buf[i]);
    }
    /* reduce: the sum over the other group */
    for (i = 0; i < N; i++) {
        buf[i] = val(mt_rank, i);
        sum[i] = -1;
    }
    MT_CALL(MPI_Reduce(buf, sum, N, MPI_INT, MPI_SUM, root, t->inter));
    if (root == MPI_ROOT) {
        for (i = 0; i < N; i++) {
            int want = 0;
            for (j = 0; j < nr; j++) {
                want += val(it_world(1 - t->color, j), i);
            }
            MT_CHECK(sum[i] == want, "reduce[%d] = %d, want %d", i, sum[i], want);
        }
    }
    /* gather / gatherv (remote rank j sends j + 1 elements at displ 10 * j) */
    for (i = 0; i < N * nr; i++) {
        big[i] = -1;
    }
    MT_CALL(MPI_Gather(buf, N, MPI_INT, big, N, MPI_INT, root, t->inter));
    if (root == MPI_ROOT) {
        for (j = 0; j < nr; j++) {
            for (i = 0; i < N; i++) {
                MT_CHECK(big[j * N + i] == val(it_world(1 - t->color, j), i),
                         "gather[%d][%d] = %d", j, i, big[j * N + i]);
            }
        }
    }
    {
        int *rc_ = malloc((size_t)nr * sizeof(int)), *dp = malloc((size_t)nr * sizeof(int));
        int *gv = malloc((size_t)(10 * nr + 10) * sizeof(int));
        for (j = 0; j < nr; j++) {
            rc_[j] = (j % N) + 1;
            dp[j] = 10 * j;
        }
        for (i = 0; i < 10 * nr; i++) {
            gv[i] = -1;
        }
        MT_CALL(MPI_Gatherv(buf, (t->lrank % N) + 1, MPI_INT, gv, rc_, dp, MPI_INT, root,
                            t->inter));
        if (root == MPI_ROOT) {
            for (j = 0; j < nr; j++) {
                for (i = 0; i < rc_[j]; i++) {
                    MT_CHECK(gv[10 * j + i] == val(it_world(1 - t->color, j), i),
                             "gatherv[%d][%d] = %d", j, i, gv[10 * j + i]);
                }
                MT_CHECK(gv[10 * j + rc_[j]] == -1, "gatherv wrote past block %d", j);
            }
        }
        /* scatter / scatterv from the root's gv-shaped buffer */
        if (root == MPI_ROOT) {
            for (i = 0; i < 10 * nr; i++) {
                gv[i] = mt_rank * 1000 + i;
            }
        }
        for (i = 0; i < N; i++) {
            buf[i] = -1;
        }
        MT_CALL(MPI_Scatterv(gv, rc_, dp, MPI_INT, buf, (t->lrank % N) + 1, MPI_INT, root,
                             t->inter));
        if (!in_root_group) {
            for (i = 0; i < (t->lrank % N) + 1; i++) {
                MT_CHECK(buf[i] == rootw * 1000 + 10 * t->lrank + i, "scatterv[%d] = %d", i,
                         buf[i]);
            }
        }
        MT_CALL(MPI_Scatter(gv, N, MPI_INT, buf, N, MPI_INT, root, t->inter));
        if (!in_root_group) {
            for (i = 0; i < N; i++) {
                MT_CHECK(buf[i] == rootw * 1000 + N * t->lrank + i, "scatter[%d] = %d", i,
                         buf[i]);
            }
        }
        free(rc_);
        free(dp);
        free(gv);
    }
    free(big);
}

static void unrooted(const it_t *t)
{
    int nr = t->rsize, nl = t->lsize, i, j;
    int buf[N], res[N];
    int *big = malloc((size_t)(N * nr) * sizeof(int));
    int *sb = malloc((size_t)(N * nr) * sizeof(int));

    MT_CALL(MPI_Barrier(t->inter));
    /* allreduce: max and sum of the remote group */
    for (i = 0; i < N; i++) {
        buf[i] = val(mt_rank, i);
    }
    MT_CALL(MPI_Allreduce(buf, res, N, MPI_INT, MPI_SUM, t->inter));
    for (i = 0; i < N; i++) {
        int want = 0;
        for (j = 0; j < nr; j++) {
            want += val(it_world(1 - t->color, j), i);
        }
        MT_CHECK(res[i] == want, "allreduce[%d] = %d, want %d", i, res[i], want);
    }
    MT_CALL(MPI_Allreduce(buf, res, N, MPI_INT, MPI_MAX, t->inter));
    MT_CHECK(res[0] == val(it_world(1 - t->color, nr - 1), 0), "allreduce max %d", res[0]);
    /* allgather(v) */
    MT_CALL(MPI_Allgather(buf, N, MPI_INT, big, N, MPI_INT, t->inter));
    for (j = 0; j < nr; j++) {
        for (i = 0; i < N; i++) {
            MT_CHECK(big[j * N + i] == val(it_world(1 - t->color, j), i),
                     "allgather[%d][%d] = %d", j, i, big[j * N + i]);
        }
    }
    {
        int *rc_ = malloc((size_t)nr * sizeof(int)), *dp = malloc((size_t)nr * sizeof(int));
        int total = 0;
        for (j = 0; j < nr; j++) {
            rc_[j] = 1 + (j % 2);
            dp[j] = total;
            total += rc_[j];
        }
        MT_CALL(MPI_Allgatherv(buf, 1 + (t->lrank % 2), MPI_INT, big, rc_, dp, MPI_INT,
                               t->inter));
        for (j = 0; j < nr; j++) {
            for (i = 0; i < rc_[j]; i++) {
                MT_CHECK(big[dp[j] + i] == val(it_world(1 - t->color, j), i),
                         "allgatherv[%d][%d] = %d", j, i, big[dp[j] + i]);
            }
        }
        free(rc_);
        free(dp);
    }
    /* alltoall: block j for remote j holds val(me, j) */
    for (j = 0; j < nr; j++) {
        for (i = 0; i < N; i++) {
            sb[j * N + i] = val(mt_rank, 10 * j + i);
        }
    }
    MT_CALL(MPI_Alltoall(sb, N, MPI_INT, big, N, MPI_INT, t->inter));
    for (j = 0; j < nr; j++) {
        for (i = 0; i < N; i++) {
            MT_CHECK(big[j * N + i] == val(it_world(1 - t->color, j), 10 * t->lrank + i),
                     "alltoall[%d][%d] = %d", j, i, big[j * N + i]);
        }
    }
    {
        int *sc = malloc((size_t)nr * sizeof(int)), *sd = malloc((size_t)nr * sizeof(int));
        int *rc_ = malloc((size_t)nr * sizeof(int)), *rd = malloc((size_t)nr * sizeof(int));
        MPI_Datatype *ty = malloc((size_t)nr * sizeof(MPI_Datatype));
        int *sdb = malloc((size_t)nr * sizeof(int)), *rdb = malloc((size_t)nr * sizeof(int));
        for (j = 0; j < nr; j++) {
            sc[j] = 1 + ((t->lrank + j) % 2);   /* what I send to remote j */
            sd[j] = N * j;
            rc_[j] = 1 + ((j + t->lrank) % 2);  /* what remote j sends me */
            rd[j] = N * (nr - 1 - j);
            ty[j] = MPI_INT;
            sdb[j] = sd[j] * (int)sizeof(int);
            rdb[j] = rd[j] * (int)sizeof(int);
        }
        for (i = 0; i < N * nr; i++) {
            big[i] = -1;
        }
        MT_CALL(MPI_Alltoallv(sb, sc, sd, MPI_INT, big, rc_, rd, MPI_INT, t->inter));
        for (j = 0; j < nr; j++) {
            for (i = 0; i < rc_[j]; i++) {
                MT_CHECK(big[rd[j] + i] == val(it_world(1 - t->color, j), 10 * t->lrank + i),
                         "alltoallv[%d][%d] = %d", j, i, big[rd[j] + i]);
            }
        }
        for (i = 0; i < N * nr; i++) {
            big[i] = -1;
        }
        MT_CALL(MPI_Alltoallw(sb, sc, sdb, ty, big, rc_, rdb, ty, t->inter));
        for (j = 0; j < nr; j++) {
            for (i = 0; i < rc_[j]; i++) {
                MT_CHECK(big[rd[j] + i] == val(it_world(1 - t->color, j), 10 * t->lrank + i),
                         "alltoallw[%d][%d] = %d", j, i, big[rd[j] + i]);
            }
        }
        free(sc);
        free(sd);
        free(rc_);
        free(rd);
        free(ty);
        free(sdb);
        free(rdb);
    }
    /* reduce_scatter_block: each group reduces nl * k = nr * k' elements;
     * use k = nr per local rank so the totals are nl * nr on both sides */
    {
        int tot = nl * nr, *in = malloc((size_t)tot * sizeof(int));
        int *out = malloc((size_t)nr * sizeof(int));
        int *cnt = malloc((size_t)nl * sizeof(int));
        for (i = 0; i < tot; i++) {
            in[i] = mt_rank + i;
        }
        MT_CALL(MPI_Reduce_scatter_block(in, out, nr, MPI_INT, MPI_SUM, t->inter));
        for (i = 0; i < nr; i++) {
            int want = 0, e = t->lrank * nr + i;
            for (j = 0; j < nr; j++) {
                want += it_world(1 - t->color, j) + e;
            }
            MT_CHECK(out[i] == want, "reduce_scatter_block[%d] = %d, want %d", i, out[i], want);
        }
        /* reduce_scatter: local rank 0 gets everything */
        for (i = 0; i < nl; i++) {
            cnt[i] = i == 0 ? tot : 0;
        }
        free(out);
        out = malloc((size_t)tot * sizeof(int));
        MT_CALL(MPI_Reduce_scatter(in, out, cnt, MPI_INT, MPI_SUM, t->inter));
        for (i = 0; i < cnt[t->lrank]; i++) {
            int want = 0;
            for (j = 0; j < nr; j++) {
                want += it_world(1 - t->color, j) + i;
            }
            MT_CHECK(out[i] == want, "reduce_scatter[%d] = %d, want %d", i, out[i], want);
        }
        free(in);
        free(out);
        free(cnt);
    }
    free(big);
    free(sb);
}

/* a op b = a and a op b = b: associative, not commutative; rank order
 * inside the contributing group decides the result. */
static void keep_left(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    memcpy(inout, in, (size_t)*len * sizeof(int));
}

static void keep_right(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in;
    (void)inout;
    (void)len;
    (void)dt;
}

static void noncommutative(const it_t *t)
{
    MPI_Op left, right;
    int v = mt_rank, r = -1;

    MT_CALL(MPI_Op_create(keep_left, 0, &left));
    MT_CALL(MPI_Op_create(keep_right, 0, &right));
    MT_CALL(MPI_Allreduce(&v, &r, 1, MPI_INT, left, t->inter));
    MT_CHECK(r == it_world(1 - t->color, 0), "allreduce keep_left = %d", r);
    MT_CALL(MPI_Allreduce(&v, &r, 1, MPI_INT, right, t->inter));
    MT_CHECK(r == it_world(1 - t->color, t->rsize - 1), "allreduce keep_right = %d", r);
    r = -1;
    MT_CALL(MPI_Reduce(&v, &r, 1, MPI_INT, right,
                       t->color == 0 ? (t->lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0,
                       t->inter));
    if (t->color == 0 && t->lrank == 0) {
        MT_CHECK(r == it_world(1, t->rsize - 1), "reduce keep_right = %d", r);
    }
    MT_CALL(MPI_Op_free(&left));
    MT_CALL(MPI_Op_free(&right));
}

int main(int argc, char **argv)
{
    it_t t;

    mt_init(&argc, &argv);
    if (mt_size < 2) {
        MT_DIE("needs 2 processes");
    }
    it_setup(&t);
    rooted(&t, 0, 0);
    rooted(&t, 1, 0);
    rooted(&t, 0, t.color == 0 ? t.lsize - 1 : t.rsize - 1);
    rooted(&t, 1, t.color == 1 ? t.lsize - 1 : t.rsize - 1);
    unrooted(&t);
    noncommutative(&t);
    it_teardown(&t);
    return mt_finalize();
}
