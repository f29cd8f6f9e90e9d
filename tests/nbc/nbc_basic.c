/* Every nonblocking collective, results checked, on COMM_WORLD and on a
 * communicator with the rank order reversed: all of them outstanding at
 * once and completed by one MPI_Waitall mixed with point-to-point
 * requests; then once more completed one by one through MPI_Test loops and
 * MPI_Testall, with MPI_IN_PLACE forms. */
#include "nbct.h"

#define N 6   /* ints per block (even: the affine op works on pairs) */

static int vcount(int r) { return r % 3 + 1; }

static void expect_fold(int n, int salt, int upto, int *out, int aff)
{
    for (int i = 0; i < N; i += 2) {
        int acc[2] = { nbct_val(upto, i, salt) % NBCT_P, nbct_val(upto, i + 1, salt) };
        if (!aff) {
            acc[0] = acc[1] = 0;
            for (int q = 0; q <= upto; q++) {
                acc[0] += nbct_val(q, i, salt);
                acc[1] += nbct_val(q, i + 1, salt);
            }
        } else {
            for (int q = upto - 1; q >= 0; q--) {
                int x[2] = { nbct_val(q, i, salt), nbct_val(q, i + 1, salt) };
                nbct_aff_pair(x, acc);
            }
        }
        out[i] = acc[0];
        out[i + 1] = acc[1];
    }
    (void)n;
}

static void run(MPI_Comm comm, const char *cname, int use_test, MPI_Op aff)
{
    int n, r, salt = use_test ? 3 : 1;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &r);
    int mine[N], exp_[N];
    int *gat = calloc((size_t)n * N, sizeof(int));
    int *gatv = calloc((size_t)n * 3 + 1, sizeof(int));
    int *agat = calloc((size_t)n * N, sizeof(int));
    int *agatv = calloc((size_t)n * 3 + 1, sizeof(int));
    int *a2a = calloc((size_t)n * N, sizeof(int));
    int *a2a_in = calloc((size_t)n * N, sizeof(int));
    int *a2av_s = calloc((size_t)n * 3 + 1, sizeof(int));
    int *a2av_r = calloc((size_t)n * 3 + 1, sizeof(int));
    int *rs_in = calloc((size_t)n * N, sizeof(int));
    int *sca_src = calloc((size_t)n * N, sizeof(int));
    int cnts[64], dsp[64], scnt[64], sdsp[64];
    MPI_Datatype types[64];
    int bc[N], red[N], ared[N], afr[N], sca[N], rs[N], rsb[N], sc[N], exs[N], scav[3];
    MPI_Request reqs[32];
    int nr = 0, root = n - 1;

    for (int i = 0; i < N; i++) {
        mine[i] = nbct_val(r, i, salt);
        bc[i] = r == root ? nbct_val(root, i, salt + 1) : -1;
        exs[i] = -7;
    }
    for (int q = 0; q < n; q++) {
        cnts[q] = vcount(q);
        dsp[q] = q * 3;
        types[q] = MPI_INT;
        for (int i = 0; i < N; i++) {
            a2a_in[q * N + i] = nbct_val(r, q * N + i, salt);
            rs_in[q * N + i] = nbct_val(r, q * N + i, salt);
            sca_src[q * N + i] = r == 0 ? nbct_val(q, i, salt + 2) : 0;
        }
    }
    /* alltoallv: I send vcount(q) ints to q from offset 3q, receive vcount(r)
     * from each */
    for (int q = 0; q < n; q++) {
        scnt[q] = vcount(q);
        sdsp[q] = 3 * q;
        for (int k = 0; k < 3; k++) {
            a2av_s[3 * q + k] = nbct_val(r, 100 + q * 3 + k, salt);
        }
    }
    int rcnt[64], rdsp[64];
    for (int q = 0; q < n; q++) {
        rcnt[q] = vcount(r);
        rdsp[q] = 3 * q;
    }
    /* point-to-point traffic mixed in: a ring exchange on the same comm */
    int ptok = r * 10, pin = -1;
    MT_CALL(MPI_Irecv(&pin, 1, MPI_INT, (r - 1 + n) % n, 5, comm, &reqs[nr++]));
    MT_CALL(MPI_Ibarrier(comm, &reqs[nr++]));
    MT_CALL(MPI_Ibcast(bc, N, MPI_INT, root, comm, &reqs[nr++]));
    MT_CALL(MPI_Ireduce(mine, red, N, MPI_INT, MPI_SUM, 0, comm, &reqs[nr++]));
    MT_CALL(MPI_Iallreduce(mine, ared, N, MPI_INT, MPI_SUM, comm, &reqs[nr++]));
    MT_CALL(MPI_Iallreduce(mine, afr, N, MPI_INT, aff, comm, &reqs[nr++]));
    MT_CALL(MPI_Isend(&ptok, 1, MPI_INT, (r + 1) % n, 5, comm, &reqs[nr++]));
    MT_CALL(MPI_Igather(mine, N, MPI_INT, gat, N, MPI_INT, root, comm, &reqs[nr++]));
    MT_CALL(MPI_Igatherv(mine, vcount(r), MPI_INT, gatv, cnts, dsp, MPI_INT, 0, comm,
                         &reqs[nr++]));
    MT_CALL(MPI_Iscatter(sca_src, N, MPI_INT, sca, N, MPI_INT, 0, comm, &reqs[nr++]));
    MT_CALL(MPI_Iscatterv(sca_src, cnts, dsp, MPI_INT, scav, vcount(r), MPI_INT, 0, comm,
                          &reqs[nr++]));
    if (use_test) {
        for (int i = 0; i < N; i++) {
            agat[r * N + i] = mine[i];
            a2a[r * N + i] = 0;
        }
        memcpy(a2a, a2a_in, (size_t)n * N * sizeof(int));
        MT_CALL(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, agat, N, MPI_INT, comm,
                               &reqs[nr++]));
        MT_CALL(MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a2a, N, MPI_INT, comm,
                              &reqs[nr++]));
    } else {
        MT_CALL(MPI_Iallgather(mine, N, MPI_INT, agat, N, MPI_INT, comm, &reqs[nr++]));
        MT_CALL(MPI_Ialltoall(a2a_in, N, MPI_INT, a2a, N, MPI_INT, comm, &reqs[nr++]));
    }
    MT_CALL(MPI_Iallgatherv(mine, vcount(r), MPI_INT, agatv, cnts, dsp, MPI_INT, comm,
                            &reqs[nr++]));
    MT_CALL(MPI_Ialltoallv(a2av_s, scnt, sdsp, MPI_INT, a2av_r, rcnt, rdsp, MPI_INT, comm,
                           &reqs[nr++]));
    int *a2aw_r = calloc((size_t)n * 3 + 1, sizeof(int));
    int wsd[64], wrd[64];
    for (int q = 0; q < n; q++) {
        wsd[q] = sdsp[q] * (int)sizeof(int);
        wrd[q] = rdsp[q] * (int)sizeof(int);
    }
    MT_CALL(MPI_Ialltoallw(a2av_s, scnt, wsd, types, a2aw_r, rcnt, wrd, types, comm,
                           &reqs[nr++]));
    int rscnt[64];
    for (int q = 0; q < n; q++) {
        rscnt[q] = q % 2 + 1;
    }
    MT_CALL(MPI_Ireduce_scatter(rs_in, rs, rscnt, MPI_INT, MPI_SUM, comm, &reqs[nr++]));
    MT_CALL(MPI_Ireduce_scatter_block(rs_in, rsb, N, MPI_INT, MPI_SUM, comm, &reqs[nr++]));
    MT_CALL(MPI_Iscan(mine, sc, N, MPI_INT, aff, comm, &reqs[nr++]));
    if (use_test) {
        memcpy(exs, mine, sizeof exs);
        MT_CALL(MPI_Iexscan(MPI_IN_PLACE, exs, N, MPI_INT, MPI_SUM, comm, &reqs[nr++]));
    } else {
        MT_CALL(MPI_Iexscan(mine, exs, N, MPI_INT, MPI_SUM, comm, &reqs[nr++]));
    }

    if (use_test) {
        /* the first few one by one through MPI_Test, then MPI_Testall */
        for (int k = 0; k < 4; k++) {
            nbct_test_loop(&reqs[k]);
            MT_CHECK(reqs[k] == MPI_REQUEST_NULL, "%s: request %d not freed", cname, k);
        }
        int flag = 0;
        while (!flag) {
            MT_CALL(MPI_Testall(nr, reqs, &flag, MPI_STATUSES_IGNORE));
        }
    } else {
        MT_CALL(MPI_Waitall(nr, reqs, MPI_STATUSES_IGNORE));
    }

    MT_CHECK(pin == ((r - 1 + n) % n) * 10, "%s: p2p got %d", cname, pin);
    for (int i = 0; i < N; i++) {
        MT_CHECK(bc[i] == nbct_val(root, i, salt + 1), "%s: bcast[%d] = %d", cname, i, bc[i]);
        MT_CHECK(sca[i] == nbct_val(r, i, salt + 2), "%s: scatter[%d] = %d", cname, i, sca[i]);
    }
    for (int k = 0; k < vcount(r); k++) {
        int at = 3 * r + k;   /* the root's sendbuf, displs 3q */
        MT_CHECK(scav[k] == nbct_val(at / N, at % N, salt + 2), "%s: scatterv[%d]", cname, k);
    }
    expect_fold(n, salt, n - 1, exp_, 0);
    for (int i = 0; i < N; i++) {
        if (r == 0) {
            MT_CHECK(red[i] == exp_[i], "%s: reduce[%d] %d != %d", cname, i, red[i], exp_[i]);
        }
        MT_CHECK(ared[i] == exp_[i], "%s: allreduce[%d] %d != %d", cname, i, ared[i],
                 exp_[i]);
    }
    expect_fold(n, salt, n - 1, exp_, 1);
    for (int i = 0; i < N; i++) {
        MT_CHECK(afr[i] == exp_[i], "%s: allreduce(aff)[%d] %d != %d", cname, i, afr[i],
                 exp_[i]);
    }
    expect_fold(n, salt, r, exp_, 1);
    for (int i = 0; i < N; i++) {
        MT_CHECK(sc[i] == exp_[i], "%s: scan[%d] %d != %d", cname, i, sc[i], exp_[i]);
    }
    if (r > 0) {
        expect_fold(n, salt, r - 1, exp_, 0);
        for (int i = 0; i < N; i++) {
            MT_CHECK(exs[i] == exp_[i], "%s: exscan[%d] %d != %d", cname, i, exs[i], exp_[i]);
        }
    } else if (!use_test) {
        MT_CHECK(exs[0] == -7, "%s: exscan wrote rank 0's buffer", cname);
    }
    for (int q = 0; q < n; q++) {
        for (int i = 0; i < N; i++) {
            if (r == root) {
                MT_CHECK(gat[q * N + i] == nbct_val(q, i, salt), "%s: gather[%d][%d]", cname,
                         q, i);
            }
            MT_CHECK(agat[q * N + i] == nbct_val(q, i, salt), "%s: allgather[%d][%d] = %d",
                     cname, q, i, agat[q * N + i]);
            MT_CHECK(a2a[q * N + i] == nbct_val(q, r * N + i, salt), "%s: alltoall[%d][%d]",
                     cname, q, i);
        }
        for (int k = 0; k < vcount(q); k++) {
            if (r == 0) {
                MT_CHECK(gatv[3 * q + k] == nbct_val(q, k, salt), "%s: gatherv[%d][%d]",
                         cname, q, k);
            }
            MT_CHECK(agatv[3 * q + k] == nbct_val(q, k, salt), "%s: allgatherv[%d][%d]",
                     cname, q, k);
        }
        for (int k = 0; k < vcount(r); k++) {
            int want = nbct_val(q, 100 + r * 3 + k, salt);
            MT_CHECK(a2av_r[3 * q + k] == want, "%s: alltoallv[%d][%d]", cname, q, k);
            MT_CHECK(a2aw_r[3 * q + k] == want, "%s: alltoallw[%d][%d]", cname, q, k);
        }
    }
    int off = 0;
    for (int q = 0; q < r; q++) {
        off += rscnt[q];
    }
    for (int k = 0; k < rscnt[r]; k++) {
        int want = 0;
        for (int q = 0; q < n; q++) {
            want += nbct_val(q, off + k, salt);
        }
        MT_CHECK(rs[k] == want, "%s: reduce_scatter[%d] %d != %d", cname, k, rs[k], want);
    }
    for (int k = 0; k < N; k++) {
        int want = 0;
        for (int q = 0; q < n; q++) {
            want += nbct_val(q, r * N + k, salt);
        }
        MT_CHECK(rsb[k] == want, "%s: reduce_scatter_block[%d]", cname, k);
    }
    free(gat); free(gatv); free(agat); free(agatv); free(a2a); free(a2a_in);
    free(a2av_s); free(a2av_r); free(rs_in); free(sca_src); free(a2aw_r);
}

int main(int argc, char **argv)
{
    MPI_Comm rev;
    MPI_Op aff;

    nbct_begin(&argc, &argv, &rev, &aff);
    for (int t = 0; t < 2; t++) {
        run(MPI_COMM_WORLD, "world", t, aff);
        run(rev, "reversed", t, aff);
    }
    return nbct_end(&rev, &aff);
}
