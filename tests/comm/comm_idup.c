/* MPI_Comm_idup and MPI_Comm_idup_with_info are nonblocking: the call
 * returns before the other members have called it, so a program may start
 * an idup and then do what another member needs before its own idup.
 *
 *   1. rank 0 starts an idup, then exchanges a message with rank 1 that
 *      rank 1 makes before its own idup (a blocking idup deadlocks here);
 *   2. several idups outstanding on one parent, completed in reverse order
 *      with Waitall, and Iallreduce/Ibarrier started between them;
 *   3. idups on two parents started in opposite orders on odd and even
 *      ranks (allowed across communicators);
 *   4. idup of an intercommunicator with the same interplay as 1;
 * then every duplicate works (a collective, a message) and is distinct from
 * the others: the same tag on two duplicates never crosses.  Run with a
 * job timeout: a blocking idup hangs. */
#include "mtest.h"

#define NDUP 4

static int rank, size;

/* every member sends its rank + salt to the right and checks the left;
 * then an allreduce */
static void use(MPI_Comm c, int salt, const char *what)
{
    int r, n, got = -1, sum = 0;
    MT_CALL(MPI_Comm_rank(c, &r));
    MT_CALL(MPI_Comm_size(c, &n));
    MT_CALL(MPI_Sendrecv(&r, 1, MPI_INT, (r + 1) % n, salt, &got, 1, MPI_INT, (r + n - 1) % n,
                         salt, c, MPI_STATUS_IGNORE));
    MT_CHECK(got == (r + n - 1) % n, "%s: got %d from the left, want %d", what, got,
             (r + n - 1) % n);
    MT_CALL(MPI_Allreduce(&salt, &sum, 1, MPI_INT, MPI_SUM, c));
    MT_CHECK(sum == salt * n, "%s: allreduce %d, want %d", what, sum, salt * n);
}

/* messages with one tag on several duplicates, received in the opposite
 * order: each must arrive on its own communicator */
static void distinct(MPI_Comm *c, int k, const char *what)
{
    int peer = rank ^ 1;
    if (peer >= size)
        return;
    MPI_Request rq[2 * NDUP];
    int out[NDUP], in[NDUP];
    for (int i = 0; i < k; i++) {
        out[i] = 1000 * rank + i;
        in[i] = -1;
        MT_CALL(MPI_Isend(&out[i], 1, MPI_INT, peer, 5, c[i], &rq[i]));
    }
    for (int i = k - 1; i >= 0; i--)
        MT_CALL(MPI_Irecv(&in[i], 1, MPI_INT, peer, 5, c[i], &rq[k + i]));
    MT_CALL(MPI_Waitall(2 * k, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < k; i++)
        MT_CHECK(in[i] == 1000 * peer + i, "%s: duplicate %d got %d, want %d", what, i, in[i],
                 1000 * peer + i);
}

static void interplay(MPI_Comm parent, int me, int other, const char *what)
{
    MPI_Comm d;
    MPI_Request rq;
    int v = -1, x = 77;

    if (me == 0) {
        /* start first, then talk to the other, which waits for us first */
        MT_CALL(MPI_Comm_idup(parent, &d, &rq));
        MT_CALL(MPI_Send(&x, 1, MPI_INT, other, 3, MPI_COMM_WORLD));
        MT_CALL(MPI_Recv(&v, 1, MPI_INT, other, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MT_CHECK(v == 78, "%s: reply %d", what, v);
    } else if (me == 1) {
        MT_CALL(MPI_Recv(&v, 1, MPI_INT, other, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        v++;
        MT_CALL(MPI_Send(&v, 1, MPI_INT, other, 4, MPI_COMM_WORLD));
        MT_CALL(MPI_Comm_idup(parent, &d, &rq));
    } else {
        MT_CALL(MPI_Comm_idup(parent, &d, &rq));
    }
    MT_CALL(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    int inter = 0;
    MT_CALL(MPI_Comm_test_inter(d, &inter));
    if (!inter) {
        use(d, 11, what);
    } else {
        /* rank i of each group swaps with rank i of the other */
        int lr, rs, got = -1;
        MT_CALL(MPI_Comm_rank(d, &lr));
        MT_CALL(MPI_Comm_remote_size(d, &rs));
        if (lr < rs) {
            MT_CALL(MPI_Sendrecv(&rank, 1, MPI_INT, lr, 9, &got, 1, MPI_INT, lr, 9, d,
                                 MPI_STATUS_IGNORE));
            int want = rank < size / 2 ? rank + size / 2 : rank - size / 2;
            MT_CHECK(got == want, "%s: intercomm partner says %d, want %d", what, got, want);
        }
        MT_CALL(MPI_Barrier(d));
    }
    MT_CALL(MPI_Comm_free(&d));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* 1 */
    if (size >= 2)
        interplay(MPI_COMM_WORLD, rank, rank == 0 ? 1 : 0, "interplay");

    /* 2: several outstanding, nonblocking collectives between them */
    {
        MPI_Comm d[NDUP];
        MPI_Request rq[NDUP + 2];
        MPI_Info info;
        int one = 1, sum = 0;
        MT_CALL(MPI_Info_create(&info));
        MT_CALL(MPI_Info_set(info, "mpi_assert_no_any_source", "true"));
        MT_CALL(MPI_Comm_idup(MPI_COMM_WORLD, &d[0], &rq[0]));
        MT_CALL(MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[NDUP]));
        MT_CALL(MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &d[1], &rq[1]));
        MT_CALL(MPI_Ibarrier(MPI_COMM_WORLD, &rq[NDUP + 1]));
        for (int i = 2; i < NDUP; i++)
            MT_CALL(MPI_Comm_idup(MPI_COMM_WORLD, &d[i], &rq[i]));
        MPI_Request rev[NDUP + 2];
        for (int i = 0; i < NDUP + 2; i++)
            rev[i] = rq[NDUP + 1 - i];
        MT_CALL(MPI_Waitall(NDUP + 2, rev, MPI_STATUSES_IGNORE));
        MT_CHECK(sum == size, "Iallreduce between idups: %d", sum);
        for (int i = 0; i < NDUP; i++) {
            char what[32];
            snprintf(what, sizeof what, "outstanding dup %d", i);
            use(d[i], 20 + i, what);
        }
        distinct(d, NDUP, "outstanding dups");
        MPI_Info used;
        char val[16];
        int flag = 0;
        MT_CALL(MPI_Comm_get_info(d[1], &used));
        MT_CALL(MPI_Info_get_string(used, "mpi_assert_no_any_source", &(int){ 16 }, val, &flag));
        MT_CHECK(flag && strcmp(val, "true") == 0, "idup_with_info lost its hint");
        MT_CALL(MPI_Info_free(&used));
        MT_CALL(MPI_Info_free(&info));
        for (int i = 0; i < NDUP; i++)
            MT_CALL(MPI_Comm_free(&d[i]));
    }

    /* 3: two parents, opposite orders */
    {
        MPI_Comm a, b, da, db;
        MPI_Request rq[2];
        MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &a));
        MT_CALL(MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &b));
        if (rank % 2 == 0) {
            MT_CALL(MPI_Comm_idup(a, &da, &rq[0]));
            MT_CALL(MPI_Comm_idup(b, &db, &rq[1]));
        } else {
            MT_CALL(MPI_Comm_idup(b, &db, &rq[1]));
            MT_CALL(MPI_Comm_idup(a, &da, &rq[0]));
        }
        MT_CALL(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        use(da, 31, "opposite orders a");
        use(db, 32, "opposite orders b");
        MPI_Comm both[4] = { a, b, da, db };
        distinct(both, 4, "opposite orders");
        MT_CALL(MPI_Comm_free(&da));
        MT_CALL(MPI_Comm_free(&db));
        MT_CALL(MPI_Comm_free(&a));
        MT_CALL(MPI_Comm_free(&b));
    }

    /* 4: an intercommunicator (two halves) */
    if (size >= 2) {
        int lo = rank < size / 2;
        MPI_Comm half, inter;
        MT_CALL(MPI_Comm_split(MPI_COMM_WORLD, lo, rank, &half));
        MT_CALL(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, lo ? size / 2 : 0, 17, &inter));
        /* world ranks 0 and size/2 (the two leaders) play the interplay */
        int me = rank == 0 ? 0 : rank == size / 2 ? 1 : 2;
        interplay(inter, me, rank == 0 ? size / 2 : 0, "intercomm");
        MT_CALL(MPI_Comm_free(&inter));
        MT_CALL(MPI_Comm_free(&half));
    }
    return mt_finalize();
}
