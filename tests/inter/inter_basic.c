/* Intercommunicator creation, queries, point-to-point in both directions
 * (wildcards and status), merge, dup, split, create, names, attributes. */
#include "inter_common.h"

static void check_p2p(const it_t *t, MPI_Comm ic, int tagbase)
{
    int i, v, flag;
    MPI_Status st;
    MPI_Request *reqs = malloc((size_t)t->rsize * sizeof(*reqs));
    int *out = malloc((size_t)t->rsize * sizeof(int));
    int *seen = calloc((size_t)t->rsize, sizeof(int));

    for (i = 0; i < t->rsize; i++) {
        out[i] = mt_rank * 1000 + i;
        MT_CALL(MPI_Isend(&out[i], 1, MPI_INT, i, tagbase + t->lrank, ic, &reqs[i]));
    }
    for (i = 0; i < t->rsize; i++) {
        MT_CALL(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &st));
        MT_CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < t->rsize, "probe source %d",
                 st.MPI_SOURCE);
        MT_CALL(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &st));
        MT_CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < t->rsize, "source %d", st.MPI_SOURCE);
        if (st.MPI_SOURCE < 0 || st.MPI_SOURCE >= t->rsize) {
            continue;
        }
        seen[st.MPI_SOURCE]++;
        MT_CHECK(st.MPI_TAG == tagbase + st.MPI_SOURCE, "tag %d from %d", st.MPI_TAG,
                 st.MPI_SOURCE);
        MT_CHECK(v == it_world(1 - t->color, st.MPI_SOURCE) * 1000 + t->lrank,
                 "value %d from remote %d", v, st.MPI_SOURCE);
    }
    for (i = 0; i < t->rsize; i++) {
        MT_CHECK(seen[i] == 1, "remote %d seen %d times", i, seen[i]);
    }
    MT_CALL(MPI_Waitall(t->rsize, reqs, MPI_STATUSES_IGNORE));
    MT_CALL(MPI_Barrier(ic));   /* the wildcard receives above see no later message */
    /* a named source and a sendrecv with remote rank lrank % rsize */
    {
        int peer = t->lrank % t->rsize, in = -1, mine = mt_rank;
        /* every remote rank with lrank' % lsize == ... is complex: use rank 0 pairs */
        if (t->lrank == 0) {
            MT_CALL(MPI_Sendrecv(&mine, 1, MPI_INT, 0, 5, &in, 1, MPI_INT, 0, 5, ic, &st));
            MT_CHECK(in == it_world(1 - t->color, 0), "sendrecv got %d", in);
            MT_CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 5, "sendrecv status %d %d",
                     st.MPI_SOURCE, st.MPI_TAG);
        }
        (void)peer;
    }
    MT_CALL(MPI_Barrier(ic));
    MT_CALL(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &flag, &st));
    MT_CHECK(!flag, "a message is left over");
    MT_CALL(MPI_Barrier(ic));
    free(reqs);
    free(out);
    free(seen);
}

/* Other send modes, matched probes and persistent requests between the
 * leader of the even group and the odd group's last rank. */
static void check_modes(const it_t *t)
{
    int v = mt_rank, in = -1, last = t->rsize - 1;
    MPI_Status st;
    MPI_Message msg;
    MPI_Request rq[2];

    if (t->color == 0 && t->lrank == 0) {
        MT_CALL(MPI_Ssend(&v, 1, MPI_INT, last, 11, t->inter));
        MT_CALL(MPI_Mprobe(last, 12, t->inter, &msg, &st));
        MT_CHECK(st.MPI_SOURCE == last && st.MPI_TAG == 12, "mprobe status %d %d",
                 st.MPI_SOURCE, st.MPI_TAG);
        MT_CALL(MPI_Mrecv(&in, 1, MPI_INT, &msg, &st));
        MT_CHECK(in == it_world(1 - t->color, last), "mrecv got %d", in);
        MT_CALL(MPI_Send_init(&v, 1, MPI_INT, last, 13, t->inter, &rq[0]));
        MT_CALL(MPI_Start(&rq[0]));
        MT_CALL(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
        MT_CALL(MPI_Request_free(&rq[0]));
    }
    if (t->color == 1 && t->lrank == t->lsize - 1) {
        int src = 0;
        MT_CALL(MPI_Recv(&in, 1, MPI_INT, src, 11, t->inter, &st));
        MT_CHECK(in == it_world(1 - t->color, 0) && st.MPI_SOURCE == 0, "ssend got %d from %d",
                 in, st.MPI_SOURCE);
        MT_CALL(MPI_Rsend(&v, 1, MPI_INT, 0, 12, t->inter));
        MT_CALL(MPI_Recv_init(&in, 1, MPI_INT, MPI_ANY_SOURCE, 13, t->inter, &rq[1]));
        MT_CALL(MPI_Start(&rq[1]));
        MT_CALL(MPI_Wait(&rq[1], &st));
        MT_CHECK(in == it_world(1 - t->color, 0) && st.MPI_SOURCE == 0,
                 "persistent recv got %d from %d", in, st.MPI_SOURCE);
        MT_CALL(MPI_Request_free(&rq[1]));
    }
    MT_CALL(MPI_Barrier(t->inter));
}

static void check_merge(const it_t *t, int high, int rhigh)
{
    MPI_Comm m;
    int r, s, inter, i;
    /* the color of the group that comes first: the low one, or with equal
     * flags (Tern's rule) the group of world rank 0 */
    int fc = high != rhigh ? (high ? 1 - t->color : t->color) : 0;
    int nf = fc == t->color ? t->lsize : t->rsize;
    int *w;

    MT_CALL(MPI_Intercomm_merge(t->inter, high, &m));
    MT_CALL(MPI_Comm_size(m, &s));
    MT_CALL(MPI_Comm_rank(m, &r));
    MT_CALL(MPI_Comm_test_inter(m, &inter));
    MT_CHECK(!inter, "merged communicator is an intercommunicator");
    MT_CHECK(s == t->lsize + t->rsize, "merged size %d", s);
    MT_CHECK(r == (fc == t->color ? t->lrank : nf + t->lrank), "merged rank %d (high %d)", r,
             high);
    w = malloc((size_t)s * sizeof(int));
    MT_CALL(MPI_Allgather(&mt_rank, 1, MPI_INT, w, 1, MPI_INT, m));
    for (i = 0; i < s; i++) {
        int want = i < nf ? it_world(fc, i) : it_world(1 - fc, i - nf);
        MT_CHECK(w[i] == want, "merged rank %d is world %d, want %d", i, w[i], want);
    }
    free(w);
    MT_CALL(MPI_Comm_free(&m));
}

int main(int argc, char **argv)
{
    it_t t;
    int flag, result, i, len;
    MPI_Group rg, lg, wg;
    MPI_Comm dup, sp, cr;
    char name[MPI_MAX_OBJECT_NAME];

    mt_init(&argc, &argv);
    if (mt_size < 2) {
        MT_DIE("needs 2 processes");
    }
    it_setup(&t);

    MT_CALL(MPI_Comm_test_inter(t.inter, &flag));
    MT_CHECK(flag, "test_inter says intracommunicator");
    MT_CALL(MPI_Comm_test_inter(t.local, &flag));
    MT_CHECK(!flag, "test_inter says intercommunicator for local");
    MT_CHECK(t.lsize == (mt_size + 1 - t.color) / 2, "local size %d", t.lsize);
    MT_CHECK(t.rsize == mt_size - t.lsize, "remote size %d", t.rsize);
    MT_CHECK(t.lrank == mt_rank / 2, "rank %d", t.lrank);

    /* the groups, in world ranks */
    MT_CALL(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    MT_CALL(MPI_Comm_remote_group(t.inter, &rg));
    MT_CALL(MPI_Comm_group(t.inter, &lg));
    {
        int n = t.rsize > t.lsize ? t.rsize : t.lsize;
        int *idx = malloc((size_t)n * sizeof(int)), *out = malloc((size_t)n * sizeof(int));
        for (i = 0; i < n; i++) {
            idx[i] = i;
        }
        MT_CALL(MPI_Group_translate_ranks(rg, t.rsize, idx, wg, out));
        for (i = 0; i < t.rsize; i++) {
            MT_CHECK(out[i] == it_world(1 - t.color, i), "remote %d is world %d", i, out[i]);
        }
        MT_CALL(MPI_Group_translate_ranks(lg, t.lsize, idx, wg, out));
        for (i = 0; i < t.lsize; i++) {
            MT_CHECK(out[i] == it_world(t.color, i), "local %d is world %d", i, out[i]);
        }
        free(idx);
        free(out);
    }
    MT_CALL(MPI_Group_free(&rg));
    MT_CALL(MPI_Group_free(&lg));
    MT_CALL(MPI_Group_free(&wg));

    check_p2p(&t, t.inter, 100);
    check_modes(&t);

    /* merge: each high order, and equal flags */
    check_merge(&t, t.color, 1 - t.color);
    check_merge(&t, 1 - t.color, t.color);
    check_merge(&t, 0, 0);
    check_merge(&t, 1, 1);

    /* dup: an intercommunicator, congruent, with its own context */
    MT_CALL(MPI_Comm_dup(t.inter, &dup));
    MT_CALL(MPI_Comm_test_inter(dup, &flag));
    MT_CHECK(flag, "dup is not an intercommunicator");
    MT_CALL(MPI_Comm_compare(t.inter, dup, &result));
    MT_CHECK(result == MPI_CONGRUENT, "compare(inter, dup) = %d", result);
    MT_CALL(MPI_Comm_compare(t.inter, t.inter, &result));
    MT_CHECK(result == MPI_IDENT, "compare(inter, inter) = %d", result);
    MT_CALL(MPI_Comm_compare(t.inter, t.local, &result));
    MT_CHECK(result == MPI_UNEQUAL, "compare(inter, local) = %d", result);
    {
        /* messages on dup do not match receives on inter */
        int a = 1, b = 2, x = 0, y = 0;
        if (t.lrank == 0) {
            MPI_Request rq[2];
            MT_CALL(MPI_Isend(&a, 1, MPI_INT, 0, 9, dup, &rq[0]));
            MT_CALL(MPI_Isend(&b, 1, MPI_INT, 0, 9, t.inter, &rq[1]));
            MT_CALL(MPI_Recv(&x, 1, MPI_INT, 0, 9, t.inter, MPI_STATUS_IGNORE));
            MT_CALL(MPI_Recv(&y, 1, MPI_INT, 0, 9, dup, MPI_STATUS_IGNORE));
            MT_CALL(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
            MT_CHECK(x == 2 && y == 1, "contexts mixed: %d %d", x, y);
        }
    }
    check_p2p(&t, dup, 200);
    {
        MPI_Comm idup;
        MPI_Request rq;
        MT_CALL(MPI_Comm_idup(t.inter, &idup, &rq));
        MT_CALL(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        check_p2p(&t, idup, 300);
        MT_CALL(MPI_Comm_free(&idup));
    }

    /* names and attributes */
    MT_CALL(MPI_Comm_set_name(dup, "the dup"));
    MT_CALL(MPI_Comm_get_name(dup, name, &len));
    MT_CHECK(strcmp(name, "the dup") == 0, "name '%s'", name);
    {
        int key, val = 42, *got = NULL;
        MT_CALL(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL));
        MT_CALL(MPI_Comm_set_attr(dup, key, &val));
        MPI_Comm d2;
        MT_CALL(MPI_Comm_dup(dup, &d2));
        MT_CALL(MPI_Comm_get_attr(d2, key, &got, &flag));
        MT_CHECK(flag && got == &val, "attribute not copied to the dup of an intercomm");
        MT_CALL(MPI_Comm_free(&d2));
        MT_CALL(MPI_Comm_free_keyval(&key));
    }
    MT_CALL(MPI_Comm_free(&dup));
    MT_CHECK(dup == MPI_COMM_NULL, "free did not null the handle");

    /* split: local ranks by parity, keys reversed */
    MT_CALL(MPI_Comm_split(t.inter, t.lrank % 2, -t.lrank, &sp));
    {
        int ln = (t.lsize + 1 - t.lrank % 2) / 2;
        int rn = (t.rsize + 1 - t.lrank % 2) / 2;
        if (rn == 0) {
            MT_CHECK(sp == MPI_COMM_NULL, "split with an empty remote side gave a comm");
        } else {
            int s, r, rs;
            MT_CALL(MPI_Comm_test_inter(sp, &flag));
            MT_CHECK(flag, "split of an intercomm is not an intercomm");
            MT_CALL(MPI_Comm_size(sp, &s));
            MT_CALL(MPI_Comm_rank(sp, &r));
            MT_CALL(MPI_Comm_remote_size(sp, &rs));
            MT_CHECK(s == ln && rs == rn, "split sizes %d/%d, want %d/%d", s, rs, ln, rn);
            MT_CHECK(r == ln - 1 - t.lrank / 2, "split rank %d", r);
            /* one message to every remote member; each comes from a process
             * of the other parity group with the same local-rank parity */
            int v = mt_rank, in = -1, k;
            MPI_Status st;
            MPI_Request *rq = malloc((size_t)rs * sizeof(*rq));
            for (k = 0; k < rs; k++) {
                MT_CALL(MPI_Isend(&v, 1, MPI_INT, k, 3, sp, &rq[k]));
            }
            for (k = 0; k < rs; k++) {
                MT_CALL(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 3, sp, &st));
                MT_CHECK(in % 2 != mt_rank % 2 && (in / 2) % 2 == t.lrank % 2,
                         "split partner world %d", in);
                /* remote rank j of sp is remote local rank (rn - 1 - j) * 2 + parity */
                MT_CHECK(in == it_world(1 - t.color, 2 * (rn - 1 - st.MPI_SOURCE) + t.lrank % 2),
                         "split remote %d is world %d", st.MPI_SOURCE, in);
            }
            MT_CALL(MPI_Waitall(rs, rq, MPI_STATUSES_IGNORE));
            free(rq);
            MT_CALL(MPI_Comm_free(&sp));
        }
    }

    /* create: the local group without its rank 0 */
    {
        MPI_Group g, sub;
        int zero = 0;
        MT_CALL(MPI_Comm_group(t.inter, &g));
        MT_CALL(MPI_Group_excl(g, 1, &zero, &sub));
        MT_CALL(MPI_Comm_create(t.inter, sub, &cr));
        if (t.lrank == 0 || t.lsize == 1 || t.rsize == 1) {
            MT_CHECK(cr == MPI_COMM_NULL, "create gave a comm to a non-member");
        } else {
            int s, rs, r;
            MT_CALL(MPI_Comm_size(cr, &s));
            MT_CALL(MPI_Comm_remote_size(cr, &rs));
            MT_CALL(MPI_Comm_rank(cr, &r));
            MT_CHECK(s == t.lsize - 1 && rs == t.rsize - 1 && r == t.lrank - 1,
                     "create: size %d remote %d rank %d", s, rs, r);
            MT_CALL(MPI_Barrier(cr));
            MT_CALL(MPI_Comm_free(&cr));
        }
        MT_CALL(MPI_Group_free(&sub));
        MT_CALL(MPI_Group_free(&g));
    }

    /* a second intercomm between the same groups with leaders other than
     * rank 0 when there are enough ranks, built over a dup of world */
    {
        MPI_Comm ic2, wd;
        int ll = t.lsize - 1, rl = it_world(1 - t.color, t.rsize - 1), v = t.lrank, in = -1;
        MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &wd));
        MT_CALL(MPI_Intercomm_create(t.local, ll, wd, rl, 5, &ic2));
        if (t.lrank == 0) {
            MT_CALL(MPI_Sendrecv(&v, 1, MPI_INT, 0, 1, &in, 1, MPI_INT, 0, 1, ic2,
                                 MPI_STATUS_IGNORE));
            MT_CHECK(in == 0, "ic2 got %d", in);
        }
        MT_CALL(MPI_Comm_free(&ic2));
        MT_CALL(MPI_Comm_free(&wd));
    }

    it_teardown(&t);
    return mt_finalize();
}
