/* MPI Sessions next to the world model: session init/finalize (twice),
 * process sets and their info, groups from "mpi://WORLD" and "mpi://SELF",
 * MPI_Comm_create_from_group over the even and the odd ranks (allreduce),
 * MPI_Intercomm_create_from_groups between the two halves (send/recv and
 * collectives), concurrent creations told apart by their string tags,
 * session error handlers and the error classes of bad arguments. */
#include "mtest.h"

static int handler_calls, handler_last;

static void session_handler(MPI_Session *s, int *code, ...)
{
    (void)s;
    handler_calls++;
    handler_last = *code;
}

static MPI_Group pset_group(MPI_Session s, const char *name)
{
    MPI_Group g = MPI_GROUP_NULL;
    MT_CALL(MPI_Group_from_session_pset(s, name, &g));
    return g;
}

static void check_psets(MPI_Session s)
{
    int n = -1, found_world = 0, found_self = 0;
    MT_CALL(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
    MT_CHECK(n >= 2, "%d process sets, expected at least 2", n);
    for (int i = 0; i < n; i++) {
        char name[MPI_MAX_PSET_NAME_LEN];
        int len = 0;
        MT_CALL(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
        MT_CHECK(len > 1 && len <= MPI_MAX_PSET_NAME_LEN, "length query gave %d", len);
        len = (int)sizeof(name);
        MT_CALL(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
        MT_CHECK(len == (int)strlen(name) + 1, "pset %d: len %d for \"%s\"", i, len, name);
        found_world += strcmp(name, "mpi://WORLD") == 0;
        found_self += strcmp(name, "mpi://SELF") == 0;

        MPI_Info info;
        char v[64];
        int flag = 0;
        MT_CALL(MPI_Session_get_pset_info(s, name, &info));
        MT_CALL(MPI_Info_get_string(info, "mpi_size", &(int){ sizeof(v) }, v, &flag));
        MT_CHECK(flag, "no mpi_size in the info of %s", name);
        int want = strcmp(name, "mpi://SELF") == 0 ? 1 : mt_size;
        MT_CHECK(flag && atoi(v) == want, "%s: mpi_size %s, expected %d", name, v, want);
        MT_CALL(MPI_Info_free(&info));
    }
    MT_CHECK(found_world == 1 && found_self == 1, "WORLD listed %d times, SELF %d times",
             found_world, found_self);
    /* a short buffer gets a truncated, terminated name */
    char small[5];
    int len = (int)sizeof(small);
    MT_CALL(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, small));
    MT_CHECK(strlen(small) == sizeof(small) - 1, "truncated name \"%s\"", small);
}

static void check_groups(MPI_Session s)
{
    int size = -1, rank = -1, result = -1;
    MPI_Group wg = pset_group(s, "mpi://WORLD"), sg = pset_group(s, "mpi://SELF");
    MPI_Group cwg;
    MT_CALL(MPI_Group_size(wg, &size));
    MT_CALL(MPI_Group_rank(wg, &rank));
    MT_CHECK(size == mt_size && rank == mt_rank, "WORLD group: rank %d of %d", rank, size);
    MT_CALL(MPI_Comm_group(MPI_COMM_WORLD, &cwg));
    MT_CALL(MPI_Group_compare(wg, cwg, &result));
    MT_CHECK(result == MPI_IDENT, "WORLD pset vs MPI_COMM_WORLD's group: %d", result);
    MT_CALL(MPI_Group_size(sg, &size));
    MT_CALL(MPI_Group_rank(sg, &rank));
    MT_CHECK(size == 1 && rank == 0, "SELF group: rank %d of %d", rank, size);
    int zero = 0, wr = -1;
    MT_CALL(MPI_Group_translate_ranks(sg, 1, &zero, wg, &wr));
    MT_CHECK(wr == mt_rank, "SELF's rank 0 is WORLD rank %d", wr);
    MT_CALL(MPI_Group_free(&cwg));
    MT_CALL(MPI_Group_free(&sg));
    MT_CALL(MPI_Group_free(&wg));
}

/* The even or the odd ranks of WORLD, by parity of my rank. */
static void check_parity_comm(MPI_Session s)
{
    MPI_Group wg = pset_group(s, "mpi://WORLD"), pg;
    int n = (mt_size - (mt_rank & 1) + 1) / 2;
    int *ranks = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) {
        ranks[i] = 2 * i + (mt_rank & 1);
    }
    MT_CALL(MPI_Group_incl(wg, n, ranks, &pg));
    MPI_Comm pc = MPI_COMM_NULL;
    MT_CALL(MPI_Comm_create_from_group(pg, mt_rank & 1 ? "tern.test.odd" : "tern.test.even",
                                       MPI_INFO_NULL, MPI_ERRORS_RETURN, &pc));
    if (pc == MPI_COMM_NULL) {
        MT_CHECK(0, "no communicator");
        goto out;
    }
    int size = -1, rank = -1;
    MT_CALL(MPI_Comm_size(pc, &size));
    MT_CALL(MPI_Comm_rank(pc, &rank));
    MT_CHECK(size == n && rank == mt_rank / 2, "parity comm: rank %d of %d (want %d of %d)",
             rank, size, mt_rank / 2, n);
    int sum = -1, want = 0;
    for (int i = 0; i < n; i++) {
        want += ranks[i];
    }
    MT_CALL(MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, pc));
    MT_CHECK(sum == want, "allreduce over the %s ranks: %d, expected %d",
             mt_rank & 1 ? "odd" : "even", sum, want);
    MPI_Errhandler eh;
    MT_CALL(MPI_Comm_get_errhandler(pc, &eh));
    MT_CHECK(eh == MPI_ERRORS_RETURN, "the new communicator's handler is not the one given");
    MT_CALL(MPI_Errhandler_free(&eh));
    /* a second one with the same tag is a different communicator */
    MPI_Comm pc2 = MPI_COMM_NULL;
    MT_CALL(MPI_Comm_create_from_group(pg, "tern.test.same", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                       &pc2));
    if (pc2 != MPI_COMM_NULL) {
        int cmp = -1;
        MT_CALL(MPI_Comm_compare(pc, pc2, &cmp));
        MT_CHECK(cmp == MPI_CONGRUENT, "compare: %d", cmp);
        int b = mt_rank, r = -1;
        MT_CALL(MPI_Bcast(rank == 0 ? &b : &r, 1, MPI_INT, 0, pc2));
        MT_CHECK(rank == 0 || r == (mt_rank & 1), "bcast: %d", r);
        MT_CALL(MPI_Comm_free(&pc2));
    }
    MT_CALL(MPI_Comm_free(&pc));
out:
    free(ranks);
    MT_CALL(MPI_Group_free(&pg));
    MT_CALL(MPI_Group_free(&wg));
}

/* Lower half and upper half of WORLD, joined by an intercommunicator. */
static void check_intercomm(MPI_Session s)
{
    if (mt_size < 2) {
        return;
    }
    MPI_Group wg = pset_group(s, "mpi://WORLD"), lo, hi;
    int half = mt_size / 2;
    int range_lo[1][3] = { { 0, half - 1, 1 } }, range_hi[1][3] = { { half, mt_size - 1, 1 } };
    MT_CALL(MPI_Group_range_incl(wg, 1, range_lo, &lo));
    MT_CALL(MPI_Group_range_incl(wg, 1, range_hi, &hi));
    int in_lo = mt_rank < half;
    MPI_Comm ic = MPI_COMM_NULL;
    /* each group's leader is its last rank */
    MT_CALL(MPI_Intercomm_create_from_groups(in_lo ? lo : hi,
                                             in_lo ? half - 1 : mt_size - half - 1,
                                             in_lo ? hi : lo,
                                             in_lo ? mt_size - half - 1 : half - 1,
                                             "tern.test.inter", MPI_INFO_NULL,
                                             MPI_ERRORS_RETURN, &ic));
    if (ic == MPI_COMM_NULL) {
        MT_CHECK(0, "no intercommunicator");
        goto out;
    }
    int flag = 0, size = -1, rsize = -1, rank = -1;
    MT_CALL(MPI_Comm_test_inter(ic, &flag));
    MT_CALL(MPI_Comm_size(ic, &size));
    MT_CALL(MPI_Comm_remote_size(ic, &rsize));
    MT_CALL(MPI_Comm_rank(ic, &rank));
    int lsize = in_lo ? half : mt_size - half, want_rank = in_lo ? mt_rank : mt_rank - half;
    MT_CHECK(flag && size == lsize && rsize == mt_size - lsize && rank == want_rank,
             "intercomm: inter %d, rank %d, size %d, remote size %d", flag, rank, size, rsize);
    /* rank i of each side swaps with rank i of the other, where it exists */
    if (rank < rsize) {
        int out = mt_rank, in = -1;
        MT_CALL(MPI_Sendrecv(&out, 1, MPI_INT, rank, 7, &in, 1, MPI_INT, rank, 7, ic,
                             MPI_STATUS_IGNORE));
        int peer = in_lo ? half + rank : rank;
        MT_CHECK(in == peer, "sendrecv over the intercomm: got %d, expected %d", in, peer);
    }
    /* allreduce on an intercommunicator: the sum over the remote group */
    int sum = -1, want = 0;
    for (int r = in_lo ? half : 0; r < (in_lo ? mt_size : half); r++) {
        want += r;
    }
    MT_CALL(MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, ic));
    MT_CHECK(sum == want, "intercomm allreduce: %d, expected %d", sum, want);
    MT_CALL(MPI_Barrier(ic));
    MPI_Comm merged;
    MT_CALL(MPI_Intercomm_merge(ic, !in_lo, &merged));
    MT_CALL(MPI_Comm_rank(merged, &rank));
    MT_CHECK(rank == mt_rank, "merged rank %d", rank);
    MT_CALL(MPI_Comm_free(&merged));
    MT_CALL(MPI_Comm_free(&ic));
out:
    MT_CALL(MPI_Group_free(&lo));
    MT_CALL(MPI_Group_free(&hi));
    MT_CALL(MPI_Group_free(&wg));
}

static void check_errors(MPI_Session s)
{
    MPI_Group g = MPI_GROUP_NULL;
    MPI_Info info;
    MT_EXPECT_CLASS(MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g), MPI_ERR_ARG);
    MT_CHECK(g == MPI_GROUP_NULL, "a group came back for an unknown pset");
    MT_EXPECT_CLASS(MPI_Session_get_pset_info(s, "nope", &info), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Group_from_session_pset(s, NULL, &g), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Group_from_session_pset(s, "mpi://WORLD", NULL), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Session_get_num_psets(s, MPI_INFO_NULL, NULL), MPI_ERR_ARG);
    int len = 10;
    char name[10];
    MT_EXPECT_CLASS(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 99, &len, name), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL, &len),
                    MPI_ERR_SESSION);
    MT_EXPECT_CLASS(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, NULL), MPI_ERR_ARG);

    MPI_Group wg = pset_group(s, "mpi://WORLD"), sg = pset_group(s, "mpi://SELF");
    MPI_Comm c = MPI_COMM_NULL;
    MT_EXPECT_CLASS(MPI_Comm_create_from_group(wg, NULL, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c),
                    MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Comm_create_from_group(wg, "t", MPI_INFO_NULL, MPI_ERRORS_RETURN, NULL),
                    MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Comm_create_from_group(MPI_GROUP_NULL, "t", MPI_INFO_NULL,
                                               MPI_ERRORS_RETURN, &c), MPI_ERR_GROUP);
    /* a group I am not in */
    if (mt_size > 1) {
        MPI_Group other;
        int peer = (mt_rank + 1) % mt_size;
        MT_CALL(MPI_Group_incl(wg, 1, &peer, &other));
        MT_EXPECT_CLASS(MPI_Comm_create_from_group(other, "t", MPI_INFO_NULL,
                                                   MPI_ERRORS_RETURN, &c), MPI_ERR_GROUP);
        /* bad leaders: every member sees them, nobody communicates */
        MT_EXPECT_CLASS(MPI_Intercomm_create_from_groups(sg, 0, other, 5, "t", MPI_INFO_NULL,
                                                         MPI_ERRORS_RETURN, &c), MPI_ERR_RANK);
        MT_EXPECT_CLASS(MPI_Intercomm_create_from_groups(sg, -1, other, 0, "t", MPI_INFO_NULL,
                                                         MPI_ERRORS_RETURN, &c), MPI_ERR_RANK);
        MT_CALL(MPI_Group_free(&other));
    }
    /* overlapping groups */
    MT_EXPECT_CLASS(MPI_Intercomm_create_from_groups(sg, 0, wg, 0, "t", MPI_INFO_NULL,
                                                     MPI_ERRORS_RETURN, &c), MPI_ERR_GROUP);
    MT_EXPECT_CLASS(MPI_Intercomm_create_from_groups(sg, 0, wg, 0, "t", MPI_INFO_NULL,
                                                     MPI_ERRORS_RETURN, NULL), MPI_ERR_ARG);
    MT_CHECK(c == MPI_COMM_NULL, "a communicator came back from a failed call");
    MT_CALL(MPI_Group_free(&sg));
    MT_CALL(MPI_Group_free(&wg));

    /* the session's own handler sees its errors */
    MPI_Errhandler eh, got;
    MT_CALL(MPI_Session_create_errhandler(session_handler, &eh));
    MT_CALL(MPI_Session_set_errhandler(s, eh));
    MT_CALL(MPI_Session_get_errhandler(s, &got));
    MT_CHECK(got == eh, "get_errhandler gave another handler");
    MT_CALL(MPI_Errhandler_free(&got));
    handler_calls = 0;
    MT_EXPECT_CLASS(MPI_Group_from_session_pset(s, "bad", &g), MPI_ERR_ARG);
    MT_CHECK(handler_calls == 1 && handler_last == MPI_ERR_ARG, "handler: %d calls, code %d",
             handler_calls, handler_last);
    MT_CALL(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
    MT_CHECK(handler_calls == 2 && handler_last == MPI_ERR_OTHER,
             "call_errhandler: %d calls, code %d", handler_calls, handler_last);
    MT_CALL(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
    MT_CALL(MPI_Errhandler_free(&eh));
    MT_CALL(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));    /* returns */
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    for (int round = 0; round < 2; round++) {
        MPI_Session s = MPI_SESSION_NULL;
        MPI_Info hints, used;
        MT_CALL(MPI_Info_create(&hints));
        MT_CALL(MPI_Info_set(hints, "thread_level", "MPI_THREAD_SINGLE"));
        MT_CALL(MPI_Session_init(hints, MPI_ERRORS_RETURN, &s));
        MT_CALL(MPI_Info_free(&hints));
        MT_CHECK(s != MPI_SESSION_NULL, "no session");
        MT_CHECK(MPI_Session_fromint(MPI_Session_toint(s)) == s, "toint/fromint");
        char v[64];
        int flag = 0;
        MT_CALL(MPI_Session_get_info(s, &used));
        MT_CALL(MPI_Info_get_string(used, "thread_level", &(int){ sizeof(v) }, v, &flag));
        MT_CHECK(flag && strncmp(v, "MPI_THREAD_", 11) == 0, "thread_level %s",
                 flag ? v : "missing");
        MT_CALL(MPI_Info_free(&used));
        check_psets(s);
        check_groups(s);
        check_parity_comm(s);
        check_intercomm(s);
        check_errors(s);
        MT_CALL(MPI_Session_finalize(&s));
        MT_CHECK(s == MPI_SESSION_NULL, "finalize left the handle");
    }
    /* two sessions at once */
    MPI_Session a, b;
    MT_CALL(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &a));
    MT_CALL(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &b));
    MT_CHECK(a != b, "two sessions share a handle");
    MT_CALL(MPI_Session_finalize(&a));
    check_groups(b);
    MT_CALL(MPI_Session_finalize(&b));
    return mt_finalize();
}
