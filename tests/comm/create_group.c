/* MPI_Comm_create_group: collective over the group only.
 *   - the even ranks build a communicator while the odd ranks do not call
 *     at all (they build their own, concurrently, with the same tag);
 *   - overlapping groups built one after the other with different tags,
 *     where the processes outside the overlap call only one of them;
 *   - rank order follows the group (a reversed group reverses ranks);
 *   - the new communicators carry traffic, side by side with new
 *     communicators made later over the whole world (no context clash);
 *   - a caller outside the group (MPI_GROUP_EMPTY) gets MPI_COMM_NULL;
 *   - error classes: bad tag, MPI_GROUP_NULL, group not a subset. */
#include "mtest.h"

static MPI_Group world_group;

static MPI_Group group_of(int n, const int *ranks)
{
    MPI_Group g;
    MT_CALL(MPI_Group_incl(world_group, n, ranks, &g));
    return g;
}

/* comm must have size n with me at rank want_rank; an allreduce over it must
 * sum the world ranks listed. */
static void check_comm(const char *what, MPI_Comm comm, int n, int want_rank, int want_sum)
{
    int size = -1, rank = -1, sum = -1;
    MT_CHECK(comm != MPI_COMM_NULL, "%s: MPI_COMM_NULL", what);
    if (comm == MPI_COMM_NULL) {
        return;
    }
    MT_CALL(MPI_Comm_size(comm, &size));
    MT_CALL(MPI_Comm_rank(comm, &rank));
    MT_CHECK(size == n && rank == want_rank, "%s: rank %d size %d, want %d of %d", what, rank,
             size, want_rank, n);
    MT_CALL(MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, comm));
    MT_CHECK(sum == want_sum, "%s: sum of world ranks %d, want %d", what, sum, want_sum);
}

static void even_odd(void)
{
    int n = 0, ranks[64], sum = 0, me = -1;
    int parity = mt_rank % 2;
    MPI_Comm c = MPI_COMM_NULL;

    for (int r = parity; r < mt_size; r += 2) {
        if (r == mt_rank) {
            me = n;
        }
        ranks[n++] = r;
        sum += r;
    }
    MPI_Group g = group_of(n, ranks);
    /* both halves use tag 7 at the same time: their processes are disjoint */
    MT_CALL(MPI_Comm_create_group(MPI_COMM_WORLD, g, 7, &c));
    check_comm(parity ? "odd ranks" : "even ranks", c, n, me, sum);

    /* and a nested one over the first two members of the half */
    if (n >= 2 && me < 2) {
        MPI_Group cg, sub;
        MPI_Comm cc = MPI_COMM_NULL;
        int first2[2] = {0, 1};
        MT_CALL(MPI_Comm_group(c, &cg));
        MT_CALL(MPI_Group_incl(cg, 2, first2, &sub));
        MT_CALL(MPI_Comm_create_group(c, sub, 0, &cc));
        check_comm("nested", cc, 2, me, ranks[0] + ranks[1]);
        MT_CALL(MPI_Comm_free(&cc));
        MT_CALL(MPI_Group_free(&sub));
        MT_CALL(MPI_Group_free(&cg));
    }
    MT_CALL(MPI_Group_free(&g));

    /* a communicator over the whole world made now must not clash with c */
    MPI_Comm w;
    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &w));
    int x = mt_rank, y = -1;
    /* traffic on both at once: a ring on w, a reduce on c */
    MPI_Request rq[2];
    MT_CALL(MPI_Irecv(&y, 1, MPI_INT, (mt_rank + mt_size - 1) % mt_size, 0, w, &rq[0]));
    MT_CALL(MPI_Isend(&x, 1, MPI_INT, (mt_rank + 1) % mt_size, 0, w, &rq[1]));
    check_comm("half, with traffic on a later world dup", c, n, me, sum);
    MT_CALL(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    MT_CHECK(y == (mt_rank + mt_size - 1) % mt_size, "ring on the world dup got %d", y);
    MT_CALL(MPI_Comm_free(&w));
    MT_CALL(MPI_Comm_free(&c));
}

/* Groups {0..n-2} (tag 5) and {1..n-1} (tag 6): the middle ranks call both,
 * in that order; rank 0 only the first and rank n-1 only the second, so
 * the second group's messages from rank n-1 reach the middle ranks while
 * they are still busy with the first. */
static void overlapping(void)
{
    int n = mt_size, a[64], b[64];
    MPI_Comm ca = MPI_COMM_NULL, cb = MPI_COMM_NULL;
    if (n < 3) {
        return;
    }
    for (int i = 0; i < n - 1; i++) {
        a[i] = i;
        b[i] = i + 1;
    }
    MPI_Group ga = group_of(n - 1, a), gb = group_of(n - 1, b);
    if (mt_rank == n - 1) {
        MT_CALL(MPI_Comm_create_group(MPI_COMM_WORLD, gb, 6, &cb));
    } else {
        MT_CALL(MPI_Comm_create_group(MPI_COMM_WORLD, ga, 5, &ca));
        if (mt_rank > 0) {
            MT_CALL(MPI_Comm_create_group(MPI_COMM_WORLD, gb, 6, &cb));
        }
    }
    int sa = (n - 2) * (n - 1) / 2, sb = sa + (n - 1);
    if (mt_rank < n - 1) {
        check_comm("first overlapping group", ca, n - 1, mt_rank, sa);
    }
    if (mt_rank > 0) {
        check_comm("second overlapping group", cb, n - 1, mt_rank - 1, sb);
    }
    if (ca != MPI_COMM_NULL) {
        MT_CALL(MPI_Comm_free(&ca));
    }
    if (cb != MPI_COMM_NULL) {
        MT_CALL(MPI_Comm_free(&cb));
    }
    MT_CALL(MPI_Group_free(&ga));
    MT_CALL(MPI_Group_free(&gb));
}

static void reversed_and_empty(void)
{
    int rev[64];
    MPI_Comm c = MPI_COMM_NULL;
    for (int i = 0; i < mt_size; i++) {
        rev[i] = mt_size - 1 - i;
    }
    MPI_Group g = group_of(mt_size, rev);
    MT_CALL(MPI_Comm_create_group(MPI_COMM_WORLD, g, 1234567, &c));
    check_comm("reversed", c, mt_size, mt_size - 1 - mt_rank, mt_size * (mt_size - 1) / 2);
    if (c != MPI_COMM_NULL) {
        int cmp = -1;
        MT_CALL(MPI_Comm_compare(c, MPI_COMM_WORLD, &cmp));
        MT_CHECK(cmp == MPI_SIMILAR || mt_size == 1, "reversed compares %d", cmp);
        MT_CALL(MPI_Comm_free(&c));
    }
    MT_CALL(MPI_Group_free(&g));

    /* not a member: MPI_COMM_NULL at once, nobody else involved */
    c = MPI_COMM_WORLD;
    MT_CALL(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_EMPTY, 3, &c));
    MT_CHECK(c == MPI_COMM_NULL, "MPI_GROUP_EMPTY did not give MPI_COMM_NULL");
    /* only me, with the largest tag */
    int tag_ub = 0, flag = 0;
    void *v;
    MT_CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag));
    tag_ub = flag ? *(int *)v : 32767;
    MPI_Group self = group_of(1, &mt_rank);
    MT_CALL(MPI_Comm_create_group(MPI_COMM_WORLD, self, tag_ub, &c));
    check_comm("self", c, 1, 0, mt_rank);
    if (c != MPI_COMM_NULL) {
        MT_CALL(MPI_Comm_free(&c));
    }
    MT_CALL(MPI_Group_free(&self));
}

static void errors(void)
{
    MPI_Comm c = MPI_COMM_NULL, half;
    MPI_Group g;
    MT_CALL(MPI_Comm_group(MPI_COMM_WORLD, &g));
    MT_EXPECT_CLASS(MPI_Comm_create_group(MPI_COMM_WORLD, g, -1, &c), MPI_ERR_TAG);
    MT_EXPECT_CLASS(MPI_Comm_create_group(MPI_COMM_WORLD, g, MPI_ANY_TAG, &c), MPI_ERR_TAG);
    MT_EXPECT_CLASS(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_NULL, 0, &c),
                    MPI_ERR_GROUP);
    MT_EXPECT_CLASS(MPI_Comm_create_group(MPI_COMM_NULL, g, 0, &c), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Comm_create_group(MPI_COMM_WORLD, g, 0, NULL), MPI_ERR_ARG);
    /* the world's group is not a subset of a smaller communicator's */
    if (mt_size > 1) {
        MT_CALL(MPI_Comm_split(MPI_COMM_WORLD, mt_rank == 0, 0, &half));
        MT_EXPECT_CLASS(MPI_Comm_create_group(half, g, 0, &c), MPI_ERR_GROUP);
        MT_CALL(MPI_Comm_free(&half));
    }
    MT_CHECK(c == MPI_COMM_NULL, "failed calls set newcomm");
    MT_CALL(MPI_Group_free(&g));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MT_CALL(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
    even_odd();
    overlapping();
    reversed_and_empty();
    errors();
    MT_CALL(MPI_Group_free(&world_group));
    return mt_finalize();
}
