/* Persistent collectives: created once, started 4 times with new data each
 * time (MPI_Start and MPI_Startall, completed by MPI_Wait, MPI_Waitall and
 * MPI_Test loops), a derived datatype with holes, MPI_IN_PLACE,
 * MPI_Request_get_status on an active request, MPI_Request_free on
 * inactive persistent and on active nonblocking requests. */
#include "nbct.h"

#define N 4

int main(int argc, char **argv)
{
    MPI_Op aff;
    MPI_Datatype vec;   /* 2 ints with a hole between them, extent 3 ints */
    MPI_Datatype vtmp;
    int n, r;

    mt_init(&argc, &argv);
    n = mt_size;
    r = mt_rank;
    MT_CALL(MPI_Op_create((MPI_User_function *)nbct_aff_fn, 0, &aff));
    MT_CALL(MPI_Type_vector(2, 1, 2, MPI_INT, &vtmp));
    MT_CALL(MPI_Type_create_resized(vtmp, 0, 3 * sizeof(int), &vec));
    MT_CALL(MPI_Type_commit(&vec));

    int bc[N], ared[N], mine[N], ip[N], *a2a_s = calloc((size_t)n * N, sizeof(int));
    int *a2a_r = calloc((size_t)n * N, sizeof(int));
    int *gat = calloc((size_t)n * 3 + 3, sizeof(int));
    int gsend[3];
    MPI_Request rq[6];

    MT_CALL(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]));
    MT_CALL(MPI_Bcast_init(bc, N, MPI_INT, n / 2, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]));
    MT_CALL(MPI_Allreduce_init(mine, ared, N, MPI_INT, aff, MPI_COMM_WORLD, MPI_INFO_NULL,
                               &rq[2]));
    MT_CALL(MPI_Alltoall_init(a2a_s, N, MPI_INT, a2a_r, N, MPI_INT, MPI_COMM_WORLD,
                              MPI_INFO_NULL, &rq[3]));
    /* gather of one vec (2 ints) per rank into a vec-typed receive buffer */
    MT_CALL(MPI_Gather_init(gsend, 1, vec, gat, 1, vec, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                            &rq[4]));
    MT_CALL(MPI_Allreduce_init(MPI_IN_PLACE, ip, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &rq[5]));
    for (int it = 0; it < 4; it++) {
        int salt = 10 + it;
        for (int i = 0; i < N; i++) {
            bc[i] = r == n / 2 ? nbct_val(99, i, salt) : -1;
            mine[i] = nbct_val(r, i, salt);
            ip[i] = mine[i];
        }
        for (int i = 0; i < n * N; i++) {
            a2a_s[i] = nbct_val(r, i, salt);
            a2a_r[i] = -1;
        }
        for (int i = 0; i < n * 3 + 3; i++) {
            gat[i] = -5;
        }
        gsend[0] = nbct_val(r, 0, salt);
        gsend[1] = -9;                /* the hole: never sent */
        gsend[2] = nbct_val(r, 2, salt);
        if (it % 2 == 0) {
            MT_CALL(MPI_Startall(6, rq));
        } else {
            for (int k = 5; k >= 0; k--) {
                MT_CALL(MPI_Start(&rq[k]));
            }
        }
        if (it == 1) {
            int flag = -1;
            MT_CALL(MPI_Request_get_status(rq[0], &flag, MPI_STATUS_IGNORE));
            MT_EXPECT_CLASS(MPI_Start(&rq[0]), MPI_ERR_REQUEST);   /* still active? */
        }
        if (it == 2) {
            for (int k = 0; k < 6; k++) {
                nbct_test_loop(&rq[k]);
                MT_CHECK(rq[k] != MPI_REQUEST_NULL, "persistent request %d freed by Test", k);
            }
        } else if (it == 3) {
            for (int k = 0; k < 6; k++) {
                MT_CALL(MPI_Wait(&rq[k], MPI_STATUS_IGNORE));
            }
        } else {
            MT_CALL(MPI_Waitall(6, rq, MPI_STATUSES_IGNORE));
        }
        int want[N];
        for (int i = 0; i < N; i += 2) {
            int acc[2] = { nbct_val(n - 1, i, salt), nbct_val(n - 1, i + 1, salt) };
            for (int q = n - 2; q >= 0; q--) {
                int x[2] = { nbct_val(q, i, salt), nbct_val(q, i + 1, salt) };
                nbct_aff_pair(x, acc);
            }
            want[i] = acc[0];
            want[i + 1] = acc[1];
        }
        for (int i = 0; i < N; i++) {
            int sum = 0;
            for (int q = 0; q < n; q++) {
                sum += nbct_val(q, i, salt);
            }
            MT_CHECK(bc[i] == nbct_val(99, i, salt), "it %d: bcast[%d] = %d", it, i, bc[i]);
            MT_CHECK(ared[i] == want[i], "it %d: allreduce[%d] %d != %d", it, i, ared[i],
                     want[i]);
            MT_CHECK(ip[i] == sum, "it %d: in-place allreduce[%d] %d != %d", it, i, ip[i], sum);
        }
        for (int q = 0; q < n; q++) {
            for (int i = 0; i < N; i++) {
                MT_CHECK(a2a_r[q * N + i] == nbct_val(q, r * N + i, salt),
                         "it %d: alltoall[%d][%d]", it, q, i);
            }
            if (r == 0) {
                MT_CHECK(gat[3 * q] == nbct_val(q, 0, salt) &&
                         gat[3 * q + 2] == nbct_val(q, 2, salt), "it %d: gather[%d] %d %d",
                         it, q, gat[3 * q], gat[3 * q + 2]);
                MT_CHECK(gat[3 * q + 1] == -5, "it %d: gather wrote the hole of block %d",
                         it, q);
            }
        }
    }
    for (int k = 0; k < 6; k++) {
        MT_CALL(MPI_Request_free(&rq[k]));
        MT_CHECK(rq[k] == MPI_REQUEST_NULL, "Request_free left the handle");
    }
    /* freeing active nonblocking collectives: they still complete */
    MPI_Request fr;
    int v = r, s = -1;
    MT_CALL(MPI_Iallreduce(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &fr));
    MT_CALL(MPI_Request_free(&fr));
    MT_CALL(MPI_Ibarrier(MPI_COMM_WORLD, &fr));
    MT_CALL(MPI_Wait(&fr, MPI_STATUS_IGNORE));
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    /* nothing orders the freed operation's last message before the
     * barrier's (a rank leaves the barrier once all have entered it, not
     * once their freed operations are done): progress until the result is
     * there, failing if it never comes */
    double t0 = MPI_Wtime();
    while (s == -1 && MPI_Wtime() - t0 < 60.0) {
        int flag;
        MT_CALL(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &flag,
                           MPI_STATUS_IGNORE));
    }
    MT_CHECK(s == n * (n - 1) / 2, "freed iallreduce gave %d", s);
    /* outstanding at once on two communicators, two on each, completed
     * through MPI_Waitany and MPI_Testany */
    MPI_Comm dup;
    MPI_Request mq[4];
    int x[4] = { r, 2 * r, -1, -1 }, y[4] = { -1, -1, -1, -1 }, bsrc = n > 1 ? 1 : 0;
    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    if (r == bsrc) {
        x[2] = 42;
    }
    MT_CALL(MPI_Iallreduce(&x[0], &y[0], 1, MPI_INT, MPI_SUM, dup, &mq[0]));
    MT_CALL(MPI_Iallreduce(&x[1], &y[1], 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &mq[1]));
    MT_CALL(MPI_Ibcast(&x[2], 1, MPI_INT, bsrc, dup, &mq[2]));
    MT_CALL(MPI_Iexscan(&x[0], &y[3], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &mq[3]));
    for (int k = 0; k < 2; k++) {
        int idx;
        MT_CALL(MPI_Waitany(4, mq, &idx, MPI_STATUS_IGNORE));
        MT_CHECK(idx >= 0 && idx < 4 && mq[idx] == MPI_REQUEST_NULL, "Waitany index %d", idx);
    }
    for (int left = 2; left > 0;) {
        int idx, flag;
        MT_CALL(MPI_Testany(4, mq, &idx, &flag, MPI_STATUS_IGNORE));
        left -= flag && idx != MPI_UNDEFINED;
    }
    MT_CHECK(y[0] == n * (n - 1) / 2, "dup allreduce %d", y[0]);
    MT_CHECK(y[1] == 2 * (n - 1), "world allreduce max %d", y[1]);
    MT_CHECK(x[2] == 42, "dup bcast %d", x[2]);
    MT_CHECK(r == 0 || y[3] == r * (r - 1) / 2, "exscan %d", y[3]);
    MPI_Comm_free(&dup);
    free(a2a_s);
    free(a2a_r);
    free(gat);
    MPI_Type_free(&vec);
    MPI_Type_free(&vtmp);
    MPI_Op_free(&aff);
    return mt_finalize();
}
