/* Info hints of communicators and the nonblocking duplicates:
 *   - MPI_Comm_get_info returns a new object (the caller's to free) with
 *     the hints in use: none on a fresh communicator;
 *   - MPI_Comm_set_info merges (new keys added, given keys replaced, others
 *     kept); MPI_INFO_NULL changes nothing; the comm keeps its hints after
 *     the user frees the info object;
 *   - MPI_Comm_dup / idup carry the hints over, and later changes on either
 *     side do not leak to the other; MPI_Comm_dup_with_info /
 *     idup_with_info take the given hints instead (MPI_INFO_NULL: none);
 *   - MPI_Comm_idup / idup_with_info return a request that MPI_Wait and
 *     MPI_Test complete, and a communicator that works;
 *   - error classes of misuse. */
#include "mtest.h"

/* info must hold exactly the n pairs kv[2i] = kv[2i+1]. */
static void expect_info(const char *what, MPI_Info info, int n, const char *const *kv)
{
    int nkeys = -1;
    MT_CALL(MPI_Info_get_nkeys(info, &nkeys));
    MT_CHECK(nkeys == n, "%s: %d keys, want %d", what, nkeys, n);
    for (int i = 0; i < n; i++) {
        char value[MPI_MAX_INFO_VAL];
        int flag = 0;
        MT_CALL(MPI_Info_get(info, kv[2 * i], MPI_MAX_INFO_VAL - 1, value, &flag));
        MT_CHECK(flag && strcmp(value, kv[2 * i + 1]) == 0, "%s: %s = '%s' (flag %d), want '%s'",
                 what, kv[2 * i], flag ? value : "", flag, kv[2 * i + 1]);
    }
}

/* The hints of comm must be exactly those pairs. */
static void expect_hints(const char *what, MPI_Comm comm, int n, const char *const *kv)
{
    MPI_Info used = MPI_INFO_NULL;
    MT_CALL(MPI_Comm_get_info(comm, &used));
    MT_CHECK(used != MPI_INFO_NULL, "%s: MPI_Comm_get_info gave MPI_INFO_NULL", what);
    if (used != MPI_INFO_NULL) {
        expect_info(what, used, n, kv);
        MT_CALL(MPI_Info_free(&used));
    }
}

static void works(const char *what, MPI_Comm comm)
{
    int size = -1, rank = -1, sum = -1;
    MT_CALL(MPI_Comm_size(comm, &size));
    MT_CALL(MPI_Comm_rank(comm, &rank));
    MT_CHECK(size == mt_size && rank == mt_rank, "%s: rank %d size %d", what, rank, size);
    MT_CALL(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm));
    MT_CHECK(sum == mt_size * (mt_size - 1) / 2, "%s: allreduce gave %d", what, sum);
}

static void hints(void)
{
    MPI_Comm c, d;
    MPI_Info info, got;

    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    expect_hints("fresh", c, 0, NULL);

    MT_CALL(MPI_Info_create(&info));
    MT_CALL(MPI_Info_set(info, "tern_test_a", "1"));
    MT_CALL(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
    MT_CALL(MPI_Comm_set_info(c, info));
    MT_CALL(MPI_Info_free(&info));
    static const char *const h1[] = {"tern_test_a", "1", "mpi_assert_no_any_tag", "true"};
    expect_hints("after set_info", c, 2, h1);

    /* merge */
    MT_CALL(MPI_Info_create(&info));
    MT_CALL(MPI_Info_set(info, "tern_test_b", "3"));
    MT_CALL(MPI_Info_set(info, "tern_test_a", "2"));
    MT_CALL(MPI_Comm_set_info(c, info));
    MT_CALL(MPI_Info_free(&info));
    static const char *const h2[] = {"tern_test_a", "2", "mpi_assert_no_any_tag", "true",
                                     "tern_test_b", "3"};
    expect_hints("after a second set_info", c, 3, h2);
    MT_CALL(MPI_Comm_set_info(c, MPI_INFO_NULL));
    expect_hints("after set_info(MPI_INFO_NULL)", c, 3, h2);

    /* get_info gives an independent object */
    MT_CALL(MPI_Comm_get_info(c, &got));
    MT_CALL(MPI_Info_set(got, "tern_test_a", "changed"));
    MT_CALL(MPI_Info_delete(got, "tern_test_b"));
    MT_CALL(MPI_Info_free(&got));
    expect_hints("after changing a get_info result", c, 3, h2);

    /* dup carries the hints; later changes stay on their side */
    MT_CALL(MPI_Comm_dup(c, &d));
    expect_hints("dup", d, 3, h2);
    MT_CALL(MPI_Info_create(&info));
    MT_CALL(MPI_Info_set(info, "tern_test_c", "4"));
    MT_CALL(MPI_Comm_set_info(c, info));
    MT_CALL(MPI_Info_free(&info));
    expect_hints("dup after set_info on the original", d, 3, h2);
    MT_CALL(MPI_Info_create(&info));
    MT_CALL(MPI_Info_set(info, "tern_test_a", "dup"));
    MT_CALL(MPI_Comm_set_info(d, info));
    MT_CALL(MPI_Info_free(&info));
    static const char *const h3[] = {"tern_test_a", "2", "mpi_assert_no_any_tag", "true",
                                     "tern_test_b", "3", "tern_test_c", "4"};
    expect_hints("original after set_info on the dup", c, 4, h3);
    static const char *const h4[] = {"tern_test_a", "dup", "mpi_assert_no_any_tag", "true",
                                     "tern_test_b", "3"};
    expect_hints("dup after its own set_info", d, 3, h4);
    works("dup", d);
    MT_CALL(MPI_Comm_free(&d));

    /* dup_with_info: exactly the given hints */
    MT_CALL(MPI_Info_create(&info));
    MT_CALL(MPI_Info_set(info, "mpi_assert_exact_length", "true"));
    MT_CALL(MPI_Comm_dup_with_info(c, info, &d));
    MT_CALL(MPI_Info_set(info, "tern_after", "x"));    /* no effect on d */
    static const char *const h5[] = {"mpi_assert_exact_length", "true"};
    expect_hints("dup_with_info", d, 1, h5);
    works("dup_with_info", d);
    MT_CALL(MPI_Comm_free(&d));
    MT_CALL(MPI_Comm_dup_with_info(c, MPI_INFO_NULL, &d));
    expect_hints("dup_with_info(MPI_INFO_NULL)", d, 0, NULL);
    MT_CALL(MPI_Comm_free(&d));
    MT_CALL(MPI_Info_free(&info));

    /* MPI_INFO_ENV is a valid argument */
    MT_CALL(MPI_Comm_dup_with_info(MPI_COMM_SELF, MPI_INFO_ENV, &d));
    MT_CALL(MPI_Comm_get_info(d, &got));
    int n1 = -1, n2 = -2;
    MT_CALL(MPI_Info_get_nkeys(got, &n1));
    MT_CALL(MPI_Info_get_nkeys(MPI_INFO_ENV, &n2));
    MT_CHECK(n1 == n2, "dup_with_info(MPI_INFO_ENV): %d keys, MPI_INFO_ENV has %d", n1, n2);
    MT_CALL(MPI_Info_free(&got));
    MT_CALL(MPI_Comm_free(&d));

    /* hints on MPI_COMM_WORLD itself */
    MT_CALL(MPI_Info_create(&info));
    MT_CALL(MPI_Info_set(info, "tern_world_hint", "w"));
    MT_CALL(MPI_Comm_set_info(MPI_COMM_WORLD, info));
    MT_CALL(MPI_Info_free(&info));
    static const char *const hw[] = {"tern_world_hint", "w"};
    expect_hints("world", MPI_COMM_WORLD, 1, hw);
    MT_CALL(MPI_Comm_free(&c));
}

static void idups(void)
{
    MPI_Comm c = MPI_COMM_NULL, d = MPI_COMM_NULL;
    MPI_Request req = MPI_REQUEST_NULL, reqs[2];
    MPI_Info info;
    MPI_Status st;
    int flag = 0;

    MT_CALL(MPI_Comm_idup(MPI_COMM_WORLD, &c, &req));
    MT_CHECK(req != MPI_REQUEST_NULL, "idup gave MPI_REQUEST_NULL");
    MT_CALL(MPI_Wait(&req, &st));
    MT_CHECK(req == MPI_REQUEST_NULL, "MPI_Wait did not free the request");
    MT_CHECK(c != MPI_COMM_NULL && c != MPI_COMM_WORLD, "idup result");
    works("idup", c);
    static const char *const hw[] = {"tern_world_hint", "w"};
    expect_hints("idup of world carries its hints", c, 1, hw);

    MT_CALL(MPI_Info_create(&info));
    MT_CALL(MPI_Info_set(info, "mpi_assert_allow_overtaking", "false"));
    MT_CALL(MPI_Comm_idup_with_info(c, info, &d, &req));
    MT_CALL(MPI_Info_free(&info));
    while (!flag) {
        MT_CALL(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
    }
    MT_CHECK(req == MPI_REQUEST_NULL, "MPI_Test did not free the request");
    static const char *const h[] = {"mpi_assert_allow_overtaking", "false"};
    expect_hints("idup_with_info", d, 1, h);
    works("idup_with_info", d);
    MT_CALL(MPI_Comm_free(&d));
    MT_CALL(MPI_Comm_free(&c));

    /* several at once, completed together */
    MPI_Comm e[2];
    MT_CALL(MPI_Comm_idup(MPI_COMM_WORLD, &e[0], &reqs[0]));
    MT_CALL(MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &e[1], &reqs[1]));
    MT_CALL(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    works("idup 1 of 2", e[0]);
    works("idup 2 of 2", e[1]);
    int res = -1;
    MT_CALL(MPI_Comm_compare(e[0], e[1], &res));
    MT_CHECK(res == MPI_CONGRUENT, "two idups compare %d, want MPI_CONGRUENT", res);
    expect_hints("idup_with_info(MPI_INFO_NULL)", e[1], 0, NULL);
    MT_CALL(MPI_Comm_free(&e[0]));
    MT_CALL(MPI_Comm_free(&e[1]));
}

static void errors(void)
{
    MPI_Comm d = MPI_COMM_NULL;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Info info;

    MT_CALL(MPI_Info_create(&info));
    MT_EXPECT_CLASS(MPI_Comm_set_info(MPI_COMM_NULL, info), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Comm_get_info(MPI_COMM_NULL, &info), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Comm_get_info(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Comm_dup_with_info(MPI_COMM_NULL, info, &d), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, NULL), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Comm_dup(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Comm_idup(MPI_COMM_WORLD, &d, NULL), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Comm_idup(MPI_COMM_NULL, &d, &req), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, NULL, &req), MPI_ERR_ARG);
    MT_CHECK(d == MPI_COMM_NULL && req == MPI_REQUEST_NULL, "failed calls set outputs");
    MT_CALL(MPI_Info_free(&info));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    hints();
    idups();
    errors();
    return mt_finalize();
}
