/* Every nonblocking and persistent intercommunicator collective, in all
 * four forms (MPI_I<coll>, _c, _init, _init_c; persistent ones started
 * several times with new data each time, completed by Wait or a Test loop),
 * both directions: values name (sender's world rank, iteration, element),
 * so a misplaced or stale block shows. */
#include "inter_nbc_common.h"

#define N 3     /* elements per block */

static MPI_Op left, right;

/* Associative, non-commutative: the result is the left or right operand. */
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

/* World rank of remote rank j. */
static int rw(const it_t *t, int j)
{
    return it_world(1 - t->color, j);
}

/* Rooted collectives with the root in group rc at its rank rr, mode m. */
static void rooted(const it_t *t, int rc, int rr, int m)
{
    int in_root_group = t->color == rc;
    int root = in_root_group ? (t->lrank == rr ? MPI_ROOT : MPI_PROC_NULL) : rr;
    int rootw = it_world(rc, rr), nr = t->rsize, i, j, it;
    MPI_Comm ic = t->inter;
    MPI_Info ni = MPI_INFO_NULL;
    MPI_Request r = MPI_REQUEST_NULL;
    int buf[N], res[N], big[N * 8 + 8];
    int *cnt = malloc((size_t)nr * sizeof(int)), *dsp = malloc((size_t)nr * sizeof(int));
    MPI_Count *ccnt = malloc((size_t)nr * sizeof(MPI_Count));
    MPI_Aint *cdsp = malloc((size_t)nr * sizeof(MPI_Aint));
    int *gv = malloc((size_t)(10 * nr + 10) * sizeof(int));
    int mycnt = (t->lrank % N) + 1;

    for (j = 0; j < nr; j++) {
        ccnt[j] = cnt[j] = (j % N) + 1;
        cdsp[j] = dsp[j] = 10 * j;
    }
    /* bcast */
    for (it = 0; it < iters(m); it++) {
        for (i = 0; i < N; i++) {
            buf[i] = root == MPI_ROOT ? V(mt_rank, it, i) : -1;
        }
        NBC_START(m, it, r, MPI_Ibcast(buf, N, MPI_INT, root, ic, &r),
                  MPI_Ibcast_c(buf, N, MPI_INT, root, ic, &r),
                  MPI_Bcast_init(buf, N, MPI_INT, root, ic, ni, &r),
                  MPI_Bcast_init_c(buf, N, MPI_INT, root, ic, ni, &r));
        nbc_finish(&r, m, it);
        for (i = 0; i < N; i++) {
            int want = in_root_group ? (root == MPI_ROOT ? V(mt_rank, it, i) : -1)
                                     : V(rootw, it, i);
            MT_CHECK(buf[i] == want, "%s bcast it %d [%d] = %d, want %d", mode_name[m], it, i,
                     buf[i], want);
        }
    }
    /* reduce: sum, keep_left, keep_right over the other group (rank order) */
    for (int k = 0; k < 3; k++) {
        MPI_Op op = k == 0 ? MPI_SUM : k == 1 ? left : right;
        for (it = 0; it < iters(m); it++) {
            for (i = 0; i < N; i++) {
                buf[i] = V(mt_rank, it, i);
                res[i] = -1;
            }
            NBC_START(m, it, r, MPI_Ireduce(buf, res, N, MPI_INT, op, root, ic, &r),
                      MPI_Ireduce_c(buf, res, N, MPI_INT, op, root, ic, &r),
                      MPI_Reduce_init(buf, res, N, MPI_INT, op, root, ic, ni, &r),
                      MPI_Reduce_init_c(buf, res, N, MPI_INT, op, root, ic, ni, &r));
            nbc_finish(&r, m, it);
            for (i = 0; i < N; i++) {
                int want = 0;
                if (root != MPI_ROOT) {
                    want = -1;
                } else if (k == 0) {
                    for (j = 0; j < nr; j++) {
                        want += V(rw(t, j), it, i);
                    }
                } else {
                    want = V(rw(t, k == 1 ? 0 : nr - 1), it, i);
                }
                MT_CHECK(res[i] == want, "%s reduce op %d it %d [%d] = %d, want %d",
                         mode_name[m], k, it, i, res[i], want);
            }
        }
    }
    /* gather */
    for (it = 0; it < iters(m); it++) {
        for (i = 0; i < N; i++) {
            buf[i] = V(mt_rank, it, i);
        }
        for (i = 0; i < N * nr; i++) {
            big[i] = -1;
        }
        NBC_START(m, it, r, MPI_Igather(buf, N, MPI_INT, big, N, MPI_INT, root, ic, &r),
                  MPI_Igather_c(buf, N, MPI_INT, big, N, MPI_INT, root, ic, &r),
                  MPI_Gather_init(buf, N, MPI_INT, big, N, MPI_INT, root, ic, ni, &r),
                  MPI_Gather_init_c(buf, N, MPI_INT, big, N, MPI_INT, root, ic, ni, &r));
        nbc_finish(&r, m, it);
        for (j = 0; j < nr; j++) {
            for (i = 0; i < N; i++) {
                int want = root == MPI_ROOT ? V(rw(t, j), it, i) : -1;
                MT_CHECK(big[j * N + i] == want, "%s gather it %d [%d][%d] = %d, want %d",
                         mode_name[m], it, j, i, big[j * N + i], want);
            }
        }
    }
    /* gatherv: remote rank j sends (j % N) + 1 elements to displacement 10 j */
    for (it = 0; it < iters(m); it++) {
        for (i = 0; i < N; i++) {
            buf[i] = V(mt_rank, it, i);
        }
        for (i = 0; i < 10 * nr + 10; i++) {
            gv[i] = -1;
        }
        NBC_START(m, it, r,
                  MPI_Igatherv(buf, mycnt, MPI_INT, gv, cnt, dsp, MPI_INT, root, ic, &r),
                  MPI_Igatherv_c(buf, mycnt, MPI_INT, gv, ccnt, cdsp, MPI_INT, root, ic, &r),
                  MPI_Gatherv_init(buf, mycnt, MPI_INT, gv, cnt, dsp, MPI_INT, root, ic, ni,
                                   &r),
                  MPI_Gatherv_init_c(buf, mycnt, MPI_INT, gv, ccnt, cdsp, MPI_INT, root, ic,
                                     ni, &r));
        nbc_finish(&r, m, it);
        for (j = 0; j < nr; j++) {
            for (i = 0; i < 10; i++) {
                int want = root == MPI_ROOT && i < cnt[j] ? V(rw(t, j), it, i) : -1;
                MT_CHECK(gv[10 * j + i] == want, "%s gatherv it %d [%d][%d] = %d, want %d",
                         mode_name[m], it, j, i, gv[10 * j + i], want);
            }
        }
    }
    /* scatter: block j of the root's buffer to remote rank j */
    for (it = 0; it < iters(m); it++) {
        for (i = 0; i < N * nr; i++) {
            big[i] = root == MPI_ROOT ? V(mt_rank, it, i) : -2;
        }
        for (i = 0; i < N; i++) {
            buf[i] = -1;
        }
        NBC_START(m, it, r, MPI_Iscatter(big, N, MPI_INT, buf, N, MPI_INT, root, ic, &r),
                  MPI_Iscatter_c(big, N, MPI_INT, buf, N, MPI_INT, root, ic, &r),
                  MPI_Scatter_init(big, N, MPI_INT, buf, N, MPI_INT, root, ic, ni, &r),
                  MPI_Scatter_init_c(big, N, MPI_INT, buf, N, MPI_INT, root, ic, ni, &r));
        nbc_finish(&r, m, it);
        for (i = 0; i < N; i++) {
            int want = in_root_group ? -1 : V(rootw, it, t->lrank * N + i);
            MT_CHECK(buf[i] == want, "%s scatter it %d [%d] = %d, want %d", mode_name[m], it,
                     i, buf[i], want);
        }
    }
    /* scatterv: (j % N) + 1 elements from displacement 10 j to remote rank j */
    for (it = 0; it < iters(m); it++) {
        for (i = 0; i < 10 * nr + 10; i++) {
            gv[i] = root == MPI_ROOT ? V(mt_rank, it, i) : -2;
        }
        for (i = 0; i < N; i++) {
            buf[i] = -1;
        }
        NBC_START(m, it, r,
                  MPI_Iscatterv(gv, cnt, dsp, MPI_INT, buf, mycnt, MPI_INT, root, ic, &r),
                  MPI_Iscatterv_c(gv, ccnt, cdsp, MPI_INT, buf, mycnt, MPI_INT, root, ic, &r),
                  MPI_Scatterv_init(gv, cnt, dsp, MPI_INT, buf, mycnt, MPI_INT, root, ic, ni,
                                    &r),
                  MPI_Scatterv_init_c(gv, ccnt, cdsp, MPI_INT, buf, mycnt, MPI_INT, root, ic,
                                      ni, &r));
        nbc_finish(&r, m, it);
        for (i = 0; i < N; i++) {
            int want = in_root_group || i >= mycnt ? -1 : V(rootw, it, 10 * t->lrank + i);
            MT_CHECK(buf[i] == want, "%s scatterv it %d [%d] = %d, want %d", mode_name[m], it,
                     i, buf[i], want);
        }
    }
    free(cnt);
    free(dsp);
    free(ccnt);
    free(cdsp);
    free(gv);
}

/* Unrooted collectives, mode m. */
static void unrooted(const it_t *t, int m)
{
    int nr = t->rsize, nl = t->lsize, me = t->lrank, i, j, it;
    MPI_Comm ic = t->inter;
    MPI_Info ni = MPI_INFO_NULL;
    MPI_Request r = MPI_REQUEST_NULL;
    int sz = 10 * (nr > nl ? nr : nl) + 10 + nr * nl;
    int *sb = malloc((size_t)sz * sizeof(int)), *rb = malloc((size_t)sz * sizeof(int));
    int *cnt = malloc((size_t)nr * sizeof(int)), *dsp = malloc((size_t)nr * sizeof(int));
    int *scnt = malloc((size_t)nr * sizeof(int)), *sdsp = malloc((size_t)nr * sizeof(int));
    int *bsd = malloc((size_t)nr * sizeof(int)), *brd = malloc((size_t)nr * sizeof(int));
    int *lcnt = malloc((size_t)nl * sizeof(int));
    MPI_Count *ccnt = malloc((size_t)nr * sizeof(MPI_Count));
    MPI_Count *cscnt = malloc((size_t)nr * sizeof(MPI_Count));
    MPI_Count *clcnt = malloc((size_t)nl * sizeof(MPI_Count));
    MPI_Aint *cdsp = malloc((size_t)nr * sizeof(MPI_Aint));
    MPI_Aint *csdsp = malloc((size_t)nr * sizeof(MPI_Aint));
    MPI_Aint *cbsd = malloc((size_t)nr * sizeof(MPI_Aint));
    MPI_Aint *cbrd = malloc((size_t)nr * sizeof(MPI_Aint));
    MPI_Datatype *types = malloc((size_t)nr * sizeof(MPI_Datatype));
    int mycnt = (me % N) + 1;

    for (j = 0; j < nr; j++) {
        ccnt[j] = cnt[j] = (j % N) + 1;
        cdsp[j] = dsp[j] = 10 * j;
        /* alltoallv: the pair (mine a, remote b) moves (a + b) % N + 1 */
        cscnt[j] = scnt[j] = (me + j) % N + 1;
        csdsp[j] = sdsp[j] = 10 * j;
        cbsd[j] = bsd[j] = 10 * j * (int)sizeof(int);
        cbrd[j] = brd[j] = 10 * j * (int)sizeof(int);
        types[j] = MPI_INT;
    }
    /* allgather */
    for (it = 0; it < iters(m); it++) {
        for (i = 0; i < N; i++) {
            sb[i] = V(mt_rank, it, i);
        }
        for (i = 0; i < N * nr; i++) {
            rb[i] = -1;
        }
        NBC_START(m, it, r, MPI_Iallgather(sb, N, MPI_INT, rb, N, MPI_INT, ic, &r),
                  MPI_Iallgather_c(sb, N, MPI_INT, rb, N, MPI_INT, ic, &r),
                  MPI_Allgather_init(sb, N, MPI_INT, rb, N, MPI_INT, ic, ni, &r),
                  MPI_Allgather_init_c(sb, N, MPI_INT, rb, N, MPI_INT, ic, ni, &r));
        nbc_finish(&r, m, it);
        for (j = 0; j < nr; j++) {
            for (i = 0; i < N; i++) {
                MT_CHECK(rb[j * N + i] == V(rw(t, j), it, i),
                         "%s allgather it %d [%d][%d] = %d", mode_name[m], it, j, i,
                         rb[j * N + i]);
            }
        }
    }
    /* allgatherv */
    for (it = 0; it < iters(m); it++) {
        for (i = 0; i < N; i++) {
            sb[i] = V(mt_rank, it, i);
        }
        for (i = 0; i < 10 * nr; i++) {
            rb[i] = -1;
        }
        NBC_START(m, it, r, MPI_Iallgatherv(sb, mycnt, MPI_INT, rb, cnt, dsp, MPI_INT, ic, &r),
                  MPI_Iallgatherv_c(sb, mycnt, MPI_INT, rb, ccnt, cdsp, MPI_INT, ic, &r),
                  MPI_Allgatherv_init(sb, mycnt, MPI_INT, rb, cnt, dsp, MPI_INT, ic, ni, &r),
                  MPI_Allgatherv_init_c(sb, mycnt, MPI_INT, rb, ccnt, cdsp, MPI_INT, ic, ni,
                                        &r));
        nbc_finish(&r, m, it);
        for (j = 0; j < nr; j++) {
            for (i = 0; i < 10; i++) {
                int want = i < cnt[j] ? V(rw(t, j), it, i) : -1;
                MT_CHECK(rb[10 * j + i] == want, "%s allgatherv it %d [%d][%d] = %d, want %d",
                         mode_name[m], it, j, i, rb[10 * j + i], want);
            }
        }
    }
    /* alltoall: block j to remote rank j */
    for (it = 0; it < iters(m); it++) {
        for (i = 0; i < N * nr; i++) {
            sb[i] = V(mt_rank, it, i);
            rb[i] = -1;
        }
        NBC_START(m, it, r, MPI_Ialltoall(sb, N, MPI_INT, rb, N, MPI_INT, ic, &r),
                  MPI_Ialltoall_c(sb, N, MPI_INT, rb, N, MPI_INT, ic, &r),
                  MPI_Alltoall_init(sb, N, MPI_INT, rb, N, MPI_INT, ic, ni, &r),
                  MPI_Alltoall_init_c(sb, N, MPI_INT, rb, N, MPI_INT, ic, ni, &r));
        nbc_finish(&r, m, it);
        for (j = 0; j < nr; j++) {
            for (i = 0; i < N; i++) {
                int want = V(rw(t, j), it, me * N + i);
                MT_CHECK(rb[j * N + i] == want, "%s alltoall it %d [%d][%d] = %d, want %d",
                         mode_name[m], it, j, i, rb[j * N + i], want);
            }
        }
    }
    /* alltoallv and alltoallw (byte displacements) */
    for (int w = 0; w < 2; w++) {
        for (it = 0; it < iters(m); it++) {
            for (i = 0; i < 10 * nr + 10; i++) {
                sb[i] = V(mt_rank, it, i);
                rb[i] = -1;
            }
            if (w == 0) {
                NBC_START(m, it, r,
                          MPI_Ialltoallv(sb, scnt, sdsp, MPI_INT, rb, scnt, sdsp, MPI_INT, ic,
                                         &r),
                          MPI_Ialltoallv_c(sb, cscnt, csdsp, MPI_INT, rb, cscnt, csdsp,
                                           MPI_INT, ic, &r),
                          MPI_Alltoallv_init(sb, scnt, sdsp, MPI_INT, rb, scnt, sdsp, MPI_INT,
                                             ic, ni, &r),
                          MPI_Alltoallv_init_c(sb, cscnt, csdsp, MPI_INT, rb, cscnt, csdsp,
                                               MPI_INT, ic, ni, &r));
            } else {
                NBC_START(m, it, r,
                          MPI_Ialltoallw(sb, scnt, bsd, types, rb, scnt, brd, types, ic, &r),
                          MPI_Ialltoallw_c(sb, cscnt, cbsd, types, rb, cscnt, cbrd, types, ic,
                                           &r),
                          MPI_Alltoallw_init(sb, scnt, bsd, types, rb, scnt, brd, types, ic,
                                             ni, &r),
                          MPI_Alltoallw_init_c(sb, cscnt, cbsd, types, rb, cscnt, cbrd, types,
                                               ic, ni, &r));
            }
            nbc_finish(&r, m, it);
            for (j = 0; j < nr; j++) {
                for (i = 0; i < 10; i++) {
                    int want = i < scnt[j] ? V(rw(t, j), it, 10 * me + i) : -1;
                    MT_CHECK(rb[10 * j + i] == want, "%s alltoall%c it %d [%d][%d] = %d, "
                             "want %d", mode_name[m], w ? 'w' : 'v', it, j, i, rb[10 * j + i],
                             want);
                }
            }
        }
    }
    /* allreduce: sum, keep_left, keep_right over the other group */
    for (int k = 0; k < 3; k++) {
        MPI_Op op = k == 0 ? MPI_SUM : k == 1 ? left : right;
        for (it = 0; it < iters(m); it++) {
            for (i = 0; i < N; i++) {
                sb[i] = V(mt_rank, it, i);
                rb[i] = -1;
            }
            NBC_START(m, it, r, MPI_Iallreduce(sb, rb, N, MPI_INT, op, ic, &r),
                      MPI_Iallreduce_c(sb, rb, N, MPI_INT, op, ic, &r),
                      MPI_Allreduce_init(sb, rb, N, MPI_INT, op, ic, ni, &r),
                      MPI_Allreduce_init_c(sb, rb, N, MPI_INT, op, ic, ni, &r));
            nbc_finish(&r, m, it);
            for (i = 0; i < N; i++) {
                int want = 0;
                if (k == 0) {
                    for (j = 0; j < nr; j++) {
                        want += V(rw(t, j), it, i);
                    }
                } else {
                    want = V(rw(t, k == 1 ? 0 : nr - 1), it, i);
                }
                MT_CHECK(rb[i] == want, "%s allreduce op %d it %d [%d] = %d, want %d",
                         mode_name[m], k, it, i, rb[i], want);
            }
        }
    }
    /* reduce_scatter: 7 elements in all (the same in both groups), spread
     * unevenly over the local ranks; reduce_scatter_block: nl * nr in all,
     * nr per local rank (nl per rank in the other group) */
    for (int blk = 0; blk < 2; blk++) {
        int total = blk ? nl * nr : 7, off = 0, mine;
        for (i = 0; i < nl; i++) {
            clcnt[i] = lcnt[i] = blk ? nr : total / nl + (i < total % nl);
        }
        for (i = 0; i < me; i++) {
            off += lcnt[i];
        }
        mine = lcnt[me];
        for (it = 0; it < iters(m); it++) {
            for (i = 0; i < total; i++) {
                sb[i] = V(mt_rank, it, i);
            }
            for (i = 0; i < mine + 1; i++) {
                rb[i] = -1;
            }
            if (blk) {
                NBC_START(m, it, r,
                          MPI_Ireduce_scatter_block(sb, rb, nr, MPI_INT, MPI_SUM, ic, &r),
                          MPI_Ireduce_scatter_block_c(sb, rb, nr, MPI_INT, MPI_SUM, ic, &r),
                          MPI_Reduce_scatter_block_init(sb, rb, nr, MPI_INT, MPI_SUM, ic, ni,
                                                        &r),
                          MPI_Reduce_scatter_block_init_c(sb, rb, nr, MPI_INT, MPI_SUM, ic,
                                                          ni, &r));
            } else {
                NBC_START(m, it, r,
                          MPI_Ireduce_scatter(sb, rb, lcnt, MPI_INT, MPI_SUM, ic, &r),
                          MPI_Ireduce_scatter_c(sb, rb, clcnt, MPI_INT, MPI_SUM, ic, &r),
                          MPI_Reduce_scatter_init(sb, rb, lcnt, MPI_INT, MPI_SUM, ic, ni, &r),
                          MPI_Reduce_scatter_init_c(sb, rb, clcnt, MPI_INT, MPI_SUM, ic, ni,
                                                    &r));
            }
            nbc_finish(&r, m, it);
            for (i = 0; i < mine + 1; i++) {
                int want = 0;
                if (i == mine) {
                    want = -1;
                } else {
                    for (j = 0; j < nr; j++) {
                        want += V(rw(t, j), it, off + i);
                    }
                }
                MT_CHECK(rb[i] == want, "%s reduce_scatter%s it %d [%d] = %d, want %d",
                         mode_name[m], blk ? "_block" : "", it, i, rb[i], want);
            }
        }
    }
    free(sb);
    free(rb);
    free(cnt);
    free(dsp);
    free(scnt);
    free(sdsp);
    free(bsd);
    free(brd);
    free(lcnt);
    free(ccnt);
    free(cscnt);
    free(clcnt);
    free(cdsp);
    free(csdsp);
    free(cbsd);
    free(cbrd);
    free(types);
}

int main(int argc, char **argv)
{
    it_t t;

    mt_init(&argc, &argv);
    if (mt_size < 2) {
        MT_DIE("needs 2 processes");
    }
    it_setup(&t);
    MT_CALL(MPI_Op_create(keep_left, 0, &left));
    MT_CALL(MPI_Op_create(keep_right, 0, &right));
    for (int m = 0; m < M_COUNT; m++) {
        for (int rc = 0; rc < 2; rc++) {
            int gsize = rc == t.color ? t.lsize : t.rsize;
            rooted(&t, rc, 0, m);
            rooted(&t, rc, gsize - 1, m);
        }
        unrooted(&t, m);
    }
    MT_CALL(MPI_Op_free(&left));
    MT_CALL(MPI_Op_free(&right));
    it_teardown(&t);
    return mt_finalize();
}
