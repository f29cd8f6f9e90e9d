/* MPI_Comm_split_type on a single-node job:
 *   - MPI_COMM_TYPE_SHARED puts every rank together (size = world size),
 *     ordered by key then by old rank, and the result works;
 *   - MPI_UNDEFINED gives MPI_COMM_NULL, also when only some ranks pass it;
 *   - MPI_COMM_TYPE_HW_GUIDED with "mpi_hw_resource_type" =
 *     "mpi_shared_memory" behaves like SHARED and records the key in the
 *     new communicator's hints; no info, no key or an unknown value give
 *     MPI_COMM_NULL;
 *   - MPI_COMM_TYPE_HW_UNGUIDED must give a strict subset or MPI_COMM_NULL:
 *     on one node Tern knows no finer level, so MPI_COMM_NULL;
 *   - MPI_COMM_TYPE_RESOURCE_GUIDED with "mpi_pset_name" "mpi://WORLD" /
 *     "mpi://SELF", or with "mpi_hw_resource_type";
 *   - from a sub-communicator;
 *   - error classes. */
#include "mtest.h"

static void check(const char *what, MPI_Comm c, int size, int rank)
{
    int s = -1, r = -1, sum = -1, want = 0;
    MT_CHECK(c != MPI_COMM_NULL, "%s: MPI_COMM_NULL", what);
    if (c == MPI_COMM_NULL) {
        return;
    }
    MT_CALL(MPI_Comm_size(c, &s));
    MT_CALL(MPI_Comm_rank(c, &r));
    MT_CHECK(s == size && r == rank, "%s: rank %d of %d, want %d of %d", what, r, s, rank,
             size);
    MT_CALL(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, c));
    for (int i = 0; i < size; i++) {
        want += i;
    }
    MT_CHECK(sum == want, "%s: allreduce %d, want %d", what, sum, want);
}

static MPI_Info info_with(const char *key, const char *value)
{
    MPI_Info info;
    MT_CALL(MPI_Info_create(&info));
    MT_CALL(MPI_Info_set(info, key, value));
    return info;
}

/* comm's hint key must be value (NULL: absent). */
static void expect_hint(const char *what, MPI_Comm comm, const char *key, const char *value)
{
    MPI_Info used;
    char v[MPI_MAX_INFO_VAL];
    int flag = -1;
    MT_CALL(MPI_Comm_get_info(comm, &used));
    MT_CALL(MPI_Info_get(used, key, MPI_MAX_INFO_VAL - 1, v, &flag));
    if (value == NULL) {
        MT_CHECK(flag == 0, "%s: hint %s present", what, key);
    } else {
        MT_CHECK(flag && strcmp(v, value) == 0, "%s: hint %s = '%s' (flag %d), want '%s'",
                 what, key, flag ? v : "", flag, value);
    }
    MT_CALL(MPI_Info_free(&used));
}

static void shared(void)
{
    MPI_Comm c;
    MT_CALL(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c));
    check("SHARED", c, mt_size, mt_rank);
    if (c != MPI_COMM_NULL) {
        int cmp = -1;
        MT_CALL(MPI_Comm_compare(c, MPI_COMM_WORLD, &cmp));
        MT_CHECK(cmp == MPI_CONGRUENT, "SHARED vs world: %d", cmp);
        expect_hint("SHARED", c, "mpi_hw_resource_type", NULL);
        MT_CALL(MPI_Comm_free(&c));
    }
    /* key reverses the order */
    MT_CALL(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -mt_rank,
                                MPI_INFO_NULL, &c));
    check("SHARED, reversed keys", c, mt_size, mt_size - 1 - mt_rank);
    if (c != MPI_COMM_NULL) {
        MT_CALL(MPI_Comm_free(&c));
    }
    /* equal keys keep the old order */
    MT_CALL(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 5, MPI_INFO_NULL, &c));
    check("SHARED, equal keys", c, mt_size, mt_rank);
    if (c != MPI_COMM_NULL) {
        MT_CALL(MPI_Comm_free(&c));
    }
}

static void undefined(void)
{
    MPI_Comm c = MPI_COMM_WORLD;
    MT_CALL(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &c));
    MT_CHECK(c == MPI_COMM_NULL, "MPI_UNDEFINED everywhere");
    /* odd ranks opt out */
    int odd = mt_rank % 2;
    MT_CALL(MPI_Comm_split_type(MPI_COMM_WORLD, odd ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0,
                                MPI_INFO_NULL, &c));
    if (odd) {
        MT_CHECK(c == MPI_COMM_NULL, "odd rank with MPI_UNDEFINED got a communicator");
    } else {
        check("even ranks", c, (mt_size + 1) / 2, mt_rank / 2);
        if (c != MPI_COMM_NULL) {
            MT_CALL(MPI_Comm_free(&c));
        }
    }
}

static void hw(void)
{
    MPI_Comm c;
    MPI_Info info = info_with("mpi_hw_resource_type", "mpi_shared_memory");
    MT_CALL(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &c));
    check("HW_GUIDED mpi_shared_memory", c, mt_size, mt_rank);
    if (c != MPI_COMM_NULL) {
        expect_hint("HW_GUIDED", c, "mpi_hw_resource_type", "mpi_shared_memory");
        MT_CALL(MPI_Comm_free(&c));
    }
    /* RESOURCE_GUIDED with the same key */
    MT_CALL(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, info, &c));
    check("RESOURCE_GUIDED mpi_shared_memory", c, mt_size, mt_rank);
    if (c != MPI_COMM_NULL) {
        MT_CALL(MPI_Comm_free(&c));
    }
    MT_CALL(MPI_Info_free(&info));

    info = info_with("mpi_hw_resource_type", "tern-no-such-resource");
    c = MPI_COMM_WORLD;
    MT_CALL(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &c));
    MT_CHECK(c == MPI_COMM_NULL, "HW_GUIDED with an unknown resource type");
    MT_CALL(MPI_Info_free(&info));
    c = MPI_COMM_WORLD;
    MT_CALL(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL,
                                &c));
    MT_CHECK(c == MPI_COMM_NULL, "HW_GUIDED with MPI_INFO_NULL");
    info = info_with("unrelated", "x");
    c = MPI_COMM_WORLD;
    MT_CALL(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &c));
    MT_CHECK(c == MPI_COMM_NULL, "HW_GUIDED without mpi_hw_resource_type");
    MT_CALL(MPI_Info_free(&info));

    /* single node: no strict subset at any level Tern knows */
    c = MPI_COMM_WORLD;
    MT_CALL(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL,
                                &c));
    MT_CHECK(c == MPI_COMM_NULL, "HW_UNGUIDED on one node gave a communicator");
    if (c != MPI_COMM_NULL) {
        MT_CALL(MPI_Comm_free(&c));
    }
}

static void psets(void)
{
    MPI_Comm c;
    MPI_Info info = info_with("mpi_pset_name", "mpi://WORLD");
    MT_CALL(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, info, &c));
    check("pset mpi://WORLD", c, mt_size, mt_rank);
    if (c != MPI_COMM_NULL) {
        expect_hint("pset mpi://WORLD", c, "mpi_pset_name", "mpi://WORLD");
        MT_CALL(MPI_Comm_free(&c));
    }
    MT_CALL(MPI_Info_free(&info));
    info = info_with("mpi_pset_name", "mpi://SELF");
    MT_CALL(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, info, &c));
    check("pset mpi://SELF", c, 1, 0);
    if (c != MPI_COMM_NULL) {
        MT_CALL(MPI_Comm_free(&c));
    }
    MT_CALL(MPI_Info_free(&info));
    info = info_with("mpi_pset_name", "app://nothing");
    c = MPI_COMM_WORLD;
    MT_CALL(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, info, &c));
    MT_CHECK(c == MPI_COMM_NULL, "unknown pset gave a communicator");
    MT_CALL(MPI_Info_free(&info));
}

static void from_subcomm(void)
{
    MPI_Comm half, c;
    int color = mt_rank < mt_size / 2;
    MT_CALL(MPI_Comm_split(MPI_COMM_WORLD, color, mt_rank, &half));
    int hs = -1, hr = -1;
    MT_CALL(MPI_Comm_size(half, &hs));
    MT_CALL(MPI_Comm_rank(half, &hr));
    MT_CALL(MPI_Comm_split_type(half, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c));
    check("SHARED of a half", c, hs, hr);
    if (c != MPI_COMM_NULL) {
        MT_CALL(MPI_Comm_free(&c));
    }
    MT_CALL(MPI_Comm_free(&half));
}

static void errors(void)
{
    MPI_Comm c = MPI_COMM_NULL;
    MT_EXPECT_CLASS(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &c),
                    MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Comm_split_type(MPI_COMM_WORLD, -7, 0, MPI_INFO_NULL, &c),
                    MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Comm_split_type(MPI_COMM_NULL, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                                        &c), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                                        MPI_INFO_NULL, NULL), MPI_ERR_ARG);
    MT_CHECK(c == MPI_COMM_NULL, "failed calls set newcomm");
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    shared();
    undefined();
    hw();
    psets();
    from_subcomm();
    errors();
    return mt_finalize();
}
