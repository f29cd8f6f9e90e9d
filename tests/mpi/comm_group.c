/* Communicators and groups: COMM_WORLD/COMM_SELF, Comm_dup, Comm_split
 * (colors, keys, ties, MPI_UNDEFINED -> MPI_COMM_NULL), Comm_create,
 * Comm_free, Comm_compare (IDENT/CONGRUENT/SIMILAR/UNEQUAL), Comm_group,
 * Group_size/rank/incl/excl/translate_ranks/compare/free, MPI_GROUP_EMPTY,
 * many dup/free cycles.  Works for any size; most interesting with >= 4. */
#include "mtest.h"

static int cmp_comm(MPI_Comm a, MPI_Comm b)
{
    int r = -1;
    MT_CALL(MPI_Comm_compare(a, b, &r));
    return r;
}

static int cmp_group(MPI_Group a, MPI_Group b)
{
    int r = -1;
    MT_CALL(MPI_Group_compare(a, b, &r));
    return r;
}

static void basics(void)
{
    int sz, rk;
    MT_CALL(MPI_Comm_size(MPI_COMM_SELF, &sz));
    MT_CALL(MPI_Comm_rank(MPI_COMM_SELF, &rk));
    MT_CHECK(sz == 1 && rk == 0, "COMM_SELF size %d rank %d", sz, rk);
    MT_CHECK(cmp_comm(MPI_COMM_WORLD, MPI_COMM_WORLD) == MPI_IDENT, "world vs world");
    MT_CHECK(cmp_comm(MPI_COMM_SELF, MPI_COMM_SELF) == MPI_IDENT, "self vs self");
    int want = mt_size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL;
    MT_CHECK(cmp_comm(MPI_COMM_WORLD, MPI_COMM_SELF) == want, "world vs self: %d, expected %d",
             cmp_comm(MPI_COMM_WORLD, MPI_COMM_SELF), want);

    MPI_Comm dup;
    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MT_CALL(MPI_Comm_size(dup, &sz));
    MT_CALL(MPI_Comm_rank(dup, &rk));
    MT_CHECK(sz == mt_size && rk == mt_rank, "dup size %d rank %d", sz, rk);
    MT_CHECK(cmp_comm(MPI_COMM_WORLD, dup) == MPI_CONGRUENT, "world vs dup: %d",
             cmp_comm(MPI_COMM_WORLD, dup));
    MT_CHECK(cmp_comm(dup, dup) == MPI_IDENT, "dup vs dup");
    MPI_Comm dup2;
    MT_CALL(MPI_Comm_dup(dup, &dup2));
    MT_CHECK(cmp_comm(dup, dup2) == MPI_CONGRUENT, "dup vs dup of dup");
    MPI_Comm alias = dup;
    MT_CHECK(cmp_comm(alias, dup) == MPI_IDENT, "same handle");
    MT_CALL(MPI_Comm_free(&dup2));
    MT_CHECK(dup2 == MPI_COMM_NULL, "Comm_free did not set MPI_COMM_NULL");
    MT_CALL(MPI_Comm_free(&dup));

    MPI_Comm selfdup;
    MT_CALL(MPI_Comm_dup(MPI_COMM_SELF, &selfdup));
    MT_CHECK(cmp_comm(selfdup, MPI_COMM_SELF) == MPI_CONGRUENT, "self dup");
    int v = 41, w = 0;
    MT_CALL(MPI_Sendrecv(&v, 1, MPI_INT, 0, 0, &w, 1, MPI_INT, 0, 0, selfdup, MPI_STATUS_IGNORE));
    MT_CHECK(w == 41, "self dup exchange %d", w);
    MT_CALL(MPI_Comm_free(&selfdup));
}

static void splits(void)
{
    MPI_Comm c;
    int sz, rk;
    /* Same color, key 0: same order as world -> CONGRUENT. */
    MT_CALL(MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &c));
    MT_CHECK(cmp_comm(c, MPI_COMM_WORLD) == MPI_CONGRUENT, "split(0,0) vs world: %d",
             cmp_comm(c, MPI_COMM_WORLD));
    MT_CALL(MPI_Comm_rank(c, &rk));
    MT_CHECK(rk == mt_rank, "split(0,0) rank %d", rk);
    MT_CALL(MPI_Comm_free(&c));

    /* Reversed keys -> SIMILAR (size > 1). */
    MT_CALL(MPI_Comm_split(MPI_COMM_WORLD, 5, mt_size - mt_rank, &c));
    MT_CALL(MPI_Comm_rank(c, &rk));
    MT_CHECK(rk == mt_size - 1 - mt_rank, "reversed split rank %d", rk);
    int want = mt_size > 1 ? MPI_SIMILAR : MPI_CONGRUENT;
    MT_CHECK(cmp_comm(c, MPI_COMM_WORLD) == want, "reversed split vs world: %d",
             cmp_comm(c, MPI_COMM_WORLD));
    /* Communication in the reversed communicator uses its own ranks. */
    int right = (rk + 1) % mt_size, left = (rk + mt_size - 1) % mt_size;
    int out = mt_rank, in = -1;
    MPI_Status st;
    MT_CALL(MPI_Sendrecv(&out, 1, MPI_INT, right, 1, &in, 1, MPI_INT, left, 1, c, &st));
    /* left in c = world rank mt_rank + 1 (mod) */
    MT_CHECK(in == (mt_rank + 1) % mt_size && st.MPI_SOURCE == left,
             "reversed comm exchange: got %d from %d", in, st.MPI_SOURCE);
    MT_CALL(MPI_Comm_free(&c));

    /* Parity colors, key ties broken by old rank; rank 0 opts out. */
    int color = mt_rank == 0 ? MPI_UNDEFINED : mt_rank % 2;
    MT_CALL(MPI_Comm_split(MPI_COMM_WORLD, color, 7, &c));
    if (mt_rank == 0) {
        MT_CHECK(c == MPI_COMM_NULL, "MPI_UNDEFINED color did not give MPI_COMM_NULL");
    } else {
        MT_CHECK(c != MPI_COMM_NULL, "split gave MPI_COMM_NULL");
        MT_CALL(MPI_Comm_size(c, &sz));
        MT_CALL(MPI_Comm_rank(c, &rk));
        int expect_size = color == 1 ? mt_size / 2 : (mt_size - 1) / 2;
        int expect_rank = color == 1 ? mt_rank / 2 : mt_rank / 2 - 1;
        MT_CHECK(sz == expect_size && rk == expect_rank,
                 "parity split: size %d rank %d, expected %d %d", sz, rk, expect_size,
                 expect_rank);
        int sum = 0;
        MT_CALL(MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, c));
        int esum = 0;
        for (int r = 1; r < mt_size; r++)
            if (r % 2 == color)
                esum += r;
        MT_CHECK(sum == esum, "allreduce in parity comm: %d, expected %d", sum, esum);
        MT_CALL(MPI_Comm_free(&c));
    }

    /* One communicator per rank: congruent with COMM_SELF. */
    MT_CALL(MPI_Comm_split(MPI_COMM_WORLD, mt_rank, 0, &c));
    MT_CHECK(cmp_comm(c, MPI_COMM_SELF) == MPI_CONGRUENT, "split(rank) vs self: %d",
             cmp_comm(c, MPI_COMM_SELF));
    MT_CALL(MPI_Comm_free(&c));

    /* Split of a split: blocks of 2, then by key descending inside. */
    MPI_Comm c1, c2;
    MT_CALL(MPI_Comm_split(MPI_COMM_WORLD, mt_rank / 2, 0, &c1));
    MT_CALL(MPI_Comm_rank(c1, &rk));
    MT_CALL(MPI_Comm_split(c1, 0, -rk, &c2));
    MT_CALL(MPI_Comm_size(c2, &sz));
    int rk2;
    MT_CALL(MPI_Comm_rank(c2, &rk2));
    MT_CHECK(rk2 == sz - 1 - rk, "nested split rank %d (size %d, parent rank %d)", rk2, sz, rk);
    MT_CALL(MPI_Comm_free(&c2));
    MT_CALL(MPI_Comm_free(&c1));
}

static void groups(void)
{
    MPI_Group wg, g, g2;
    int sz = -1, rk = -1;
    MT_CALL(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    MT_CALL(MPI_Group_size(wg, &sz));
    MT_CALL(MPI_Group_rank(wg, &rk));
    MT_CHECK(sz == mt_size && rk == mt_rank, "world group size %d rank %d", sz, rk);

    MPI_Comm dup;
    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MT_CALL(MPI_Comm_group(dup, &g));
    MT_CHECK(cmp_group(wg, g) == MPI_IDENT, "dup group vs world group: %d", cmp_group(wg, g));
    MT_CALL(MPI_Group_free(&g));
    MT_CHECK(g == MPI_GROUP_NULL, "Group_free did not set MPI_GROUP_NULL");
    MT_CALL(MPI_Comm_free(&dup));

    /* Reverse order: SIMILAR; translate i -> n-1-i. */
    int *ranks = mt_malloc((size_t)mt_size * sizeof(int));
    int *out = mt_malloc((size_t)(mt_size + 2) * sizeof(int));
    for (int i = 0; i < mt_size; i++)
        ranks[i] = mt_size - 1 - i;
    MT_CALL(MPI_Group_incl(wg, mt_size, ranks, &g));
    MT_CHECK(cmp_group(wg, g) == (mt_size > 1 ? MPI_SIMILAR : MPI_IDENT),
             "reversed group compare %d", cmp_group(wg, g));
    MT_CALL(MPI_Group_rank(g, &rk));
    MT_CHECK(rk == mt_size - 1 - mt_rank, "rank in reversed group %d", rk);
    int in[3] = { 0, mt_size - 1, MPI_PROC_NULL };
    MT_CALL(MPI_Group_translate_ranks(g, 3, in, wg, out));
    MT_CHECK(out[0] == mt_size - 1 && out[1] == 0 && out[2] == MPI_PROC_NULL,
             "translate reversed: %d %d %d", out[0], out[1], out[2]);
    MT_CALL(MPI_Group_free(&g));

    /* Even ranks (incl), and excl of rank 0. */
    int ne = (mt_size + 1) / 2;
    for (int i = 0; i < ne; i++)
        ranks[i] = 2 * i;
    MT_CALL(MPI_Group_incl(wg, ne, ranks, &g));
    MT_CALL(MPI_Group_size(g, &sz));
    MT_CALL(MPI_Group_rank(g, &rk));
    MT_CHECK(sz == ne, "even group size %d", sz);
    MT_CHECK(rk == (mt_rank % 2 == 0 ? mt_rank / 2 : MPI_UNDEFINED), "even group rank %d", rk);
    MT_CHECK(cmp_group(wg, g) == (ne == mt_size ? MPI_IDENT : MPI_UNEQUAL), "even vs world %d",
             cmp_group(wg, g));
    /* translate world -> even group: odd ranks are MPI_UNDEFINED */
    for (int i = 0; i < mt_size; i++)
        ranks[i] = i;
    MT_CALL(MPI_Group_translate_ranks(wg, mt_size, ranks, g, out));
    for (int i = 0; i < mt_size; i++)
        MT_CHECK(out[i] == (i % 2 == 0 ? i / 2 : MPI_UNDEFINED), "translate %d -> %d", i, out[i]);

    /* Comm_create from the even group: odd ranks get MPI_COMM_NULL. */
    MPI_Comm ec;
    MT_CALL(MPI_Comm_create(MPI_COMM_WORLD, g, &ec));
    if (mt_rank % 2) {
        MT_CHECK(ec == MPI_COMM_NULL, "Comm_create gave a communicator to a non-member");
    } else {
        MT_CHECK(ec != MPI_COMM_NULL, "Comm_create gave MPI_COMM_NULL to a member");
        MT_CALL(MPI_Comm_size(ec, &sz));
        MT_CALL(MPI_Comm_rank(ec, &rk));
        MT_CHECK(sz == ne && rk == mt_rank / 2, "even comm size %d rank %d", sz, rk);
        MPI_Group eg;
        MT_CALL(MPI_Comm_group(ec, &eg));
        MT_CHECK(cmp_group(eg, g) == MPI_IDENT, "group of created comm");
        MT_CALL(MPI_Group_free(&eg));
        int token = mt_rank * 10, tin = -1;
        int right = (rk + 1) % sz, left = (rk + sz - 1) % sz;
        MT_CALL(MPI_Sendrecv(&token, 1, MPI_INT, right, 0, &tin, 1, MPI_INT, left, 0, ec,
                             MPI_STATUS_IGNORE));
        MT_CHECK(tin == 2 * left * 10, "even comm ring got %d", tin);
        MT_CALL(MPI_Comm_free(&ec));
    }

    MT_CALL(MPI_Group_excl(wg, 1, (int[]){ 0 }, &g2));
    MT_CALL(MPI_Group_size(g2, &sz));
    MT_CALL(MPI_Group_rank(g2, &rk));
    MT_CHECK(sz == mt_size - 1, "excl size %d", sz);
    MT_CHECK(rk == (mt_rank == 0 ? MPI_UNDEFINED : mt_rank - 1), "excl rank %d", rk);
    MT_CALL(MPI_Group_free(&g2));
    MT_CALL(MPI_Group_free(&g));

    /* Empty groups. */
    MT_CALL(MPI_Group_size(MPI_GROUP_EMPTY, &sz));
    MT_CALL(MPI_Group_rank(MPI_GROUP_EMPTY, &rk));
    MT_CHECK(sz == 0 && rk == MPI_UNDEFINED, "GROUP_EMPTY size %d rank %d", sz, rk);
    MT_CALL(MPI_Group_incl(wg, 0, ranks, &g));
    MT_CALL(MPI_Group_size(g, &sz));
    MT_CHECK(sz == 0, "incl of nothing has size %d", sz);
    MT_CHECK(cmp_group(g, MPI_GROUP_EMPTY) == MPI_IDENT, "incl of nothing vs GROUP_EMPTY: %d",
             cmp_group(g, MPI_GROUP_EMPTY));
    if (g != MPI_GROUP_EMPTY)
        MT_CALL(MPI_Group_free(&g));
    MT_CALL(MPI_Group_excl(wg, 0, ranks, &g));
    MT_CHECK(cmp_group(g, wg) == MPI_IDENT, "excl of nothing vs world group");
    MT_CALL(MPI_Group_free(&g));
    MT_CALL(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &ec));
    MT_CHECK(ec == MPI_COMM_NULL, "Comm_create(GROUP_EMPTY) did not give MPI_COMM_NULL");

    /* COMM_SELF's group. */
    MT_CALL(MPI_Comm_group(MPI_COMM_SELF, &g));
    MT_CALL(MPI_Group_size(g, &sz));
    MT_CALL(MPI_Group_translate_ranks(g, 1, (int[]){ 0 }, wg, out));
    MT_CHECK(sz == 1 && out[0] == mt_rank, "self group: size %d world rank %d", sz, out[0]);
    MT_CALL(MPI_Group_free(&g));

    /* A communicator stays valid after its group handle is freed, and a
     * group after its communicator is freed. */
    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MT_CALL(MPI_Comm_group(dup, &g));
    MT_CALL(MPI_Comm_free(&dup));
    MT_CALL(MPI_Group_size(g, &sz));
    MT_CHECK(sz == mt_size, "group of a freed communicator: size %d", sz);
    MT_CALL(MPI_Group_free(&g));

    MT_CALL(MPI_Group_free(&wg));
    free(ranks);
    free(out);
}

/* Context isolation across many dup/free cycles: a message sent on a freed
 * communicator's successor never matches the old one, and vice versa. */
static void dup_cycles(void)
{
    for (int i = 0; i < 200; i++) {
        MPI_Comm c;
        MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
        int out = i * 1000 + mt_rank, in = -1;
        MT_CALL(MPI_Sendrecv(&out, 1, MPI_INT, right, 0, &in, 1, MPI_INT, left, 0, c,
                             MPI_STATUS_IGNORE));
        MT_CHECK(in == i * 1000 + left, "dup cycle %d: got %d", i, in);
        MT_CALL(MPI_Comm_free(&c));
    }
    /* Many communicators alive at once. */
    enum { K = 64 };
    MPI_Comm cs[K];
    for (int i = 0; i < K; i++)
        MT_CALL(MPI_Comm_dup(i ? cs[i - 1] : MPI_COMM_WORLD, &cs[i]));
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    MPI_Request rq[2 * K];
    int outs[K], ins[K];
    for (int i = 0; i < K; i++) {
        outs[i] = i;
        ins[i] = -1;
        MT_CALL(MPI_Irecv(&ins[i], 1, MPI_INT, left, 0, cs[K - 1 - i], &rq[i]));
    }
    for (int i = 0; i < K; i++)
        MT_CALL(MPI_Isend(&outs[i], 1, MPI_INT, right, 0, cs[K - 1 - i], &rq[K + i]));
    MT_CALL(MPI_Waitall(2 * K, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < K; i++)
        MT_CHECK(ins[i] == i, "message on communicator %d got %d", K - 1 - i, ins[i]);
    for (int i = K - 1; i >= 0; i--)
        MT_CALL(MPI_Comm_free(&cs[i]));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    basics();
    splits();
    groups();
    dup_cycles();
    return mt_finalize();
}
