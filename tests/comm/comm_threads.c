/* MPI_THREAD_MULTIPLE stress: several threads per rank, each on its own
 * communicator, at the same time
 *   - create communicators from it (Comm_dup, Comm_create, Comm_create_group,
 *     Comm_split, Comm_idup, Intercomm_create + Intercomm_merge),
 *   - run collectives on it and on what it created (Barrier, Bcast,
 *     Allreduce, Allgather; blocking and nonblocking, idups in between),
 *   - exchange messages received with matched probes on wildcards
 *     (MPI_Mprobe / MPI_Improbe with MPI_ANY_SOURCE and MPI_ANY_TAG, then
 *     MPI_Mrecv) and plain wildcard receives,
 * checking every value.  Communicators of different threads share ranks,
 * so context ids agreed at the same time must never collide, and the
 * shared-memory collective slots must keep them apart.
 *
 * argv[1]: threads per rank (default 4), argv[2]: rounds (default 12). */
#include "mtest.h"
#include <pthread.h>

static int rank, size, nthreads = 4, rounds = 12;
static MPI_Comm tcomm[64];

static int val(int t, int round, int r, int i)
{
    return ((t * 131 + round) * 257 + r) * 17 + i;
}

static void check_comm(MPI_Comm c, int t, int round, const char *what)
{
    int r, n, sum = -1, want = 0, b = -1;
    MT_CALL(MPI_Comm_rank(c, &r));
    MT_CALL(MPI_Comm_size(c, &n));
    int mine = val(t, round, r, 0);
    MT_CALL(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, c));
    for (int i = 0; i < n; i++)
        want += val(t, round, i, 0);
    MT_CHECK(sum == want, "thread %d round %d %s: allreduce %d, want %d", t, round, what, sum,
             want);
    if (r == n - 1)
        b = val(t, round, 99, 1);
    MT_CALL(MPI_Bcast(&b, 1, MPI_INT, n - 1, c));
    MT_CHECK(b == val(t, round, 99, 1), "thread %d round %d %s: bcast %d", t, round, what, b);
    MT_CALL(MPI_Barrier(c));
}

/* everyone sends two tagged messages to everyone else; received through
 * matched probes on wildcards, checked by (source, tag) */
static void probes(MPI_Comm c, int t, int round)
{
    int r, n;
    MT_CALL(MPI_Comm_rank(c, &r));
    MT_CALL(MPI_Comm_size(c, &n));
    MPI_Request *sr = mt_malloc(sizeof(MPI_Request) * 2 * (size_t)n);
    int *out = mt_malloc(sizeof(int) * 2 * (size_t)n);
    int ns = 0;
    for (int d = 0; d < n; d++) {
        if (d == r)
            continue;
        for (int k = 0; k < 2; k++) {
            out[ns] = val(t, round, r, d * 2 + k);
            MT_CALL(MPI_Isend(&out[ns], 1, MPI_INT, d, 40 + k, c, &sr[ns]));
            ns++;
        }
    }
    int *seen = calloc((size_t)n * 2, sizeof(int));
    for (int got = 0; got < 2 * (n - 1); got++) {
        MPI_Message m;
        MPI_Status st;
        int v = -1, flag = 0;
        if (got % 2 == 0) {
            MT_CALL(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, c, &m, &st));
        } else {
            while (!flag)
                MT_CALL(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, c, &flag, &m, &st));
        }
        int src = st.MPI_SOURCE, tag = st.MPI_TAG;
        MT_CALL(MPI_Mrecv(&v, 1, MPI_INT, &m, &st));
        if (src < 0 || src >= n || tag < 40 || tag > 41) {
            MT_CHECK(0, "thread %d: matched probe gave source %d tag %d", t, src, tag);
            continue;
        }
        seen[src * 2 + tag - 40]++;
        MT_CHECK(v == val(t, round, src, r * 2 + tag - 40),
                 "thread %d round %d: message from %d tag %d is %d", t, round, src, tag, v);
    }
    for (int s = 0; s < n; s++)
        for (int k = 0; s != r && k < 2; k++)
            MT_CHECK(seen[s * 2 + k] == 1, "thread %d: %d messages from %d tag %d", t,
                     seen[s * 2 + k], s, 40 + k);
    MT_CALL(MPI_Waitall(ns, sr, MPI_STATUSES_IGNORE));
    free(seen);
    free(out);
    free(sr);
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Comm c = tcomm[t];
    MPI_Group g, sub;

    MT_CALL(MPI_Comm_group(c, &g));
    for (int round = 0; round < rounds; round++) {
        MPI_Comm d, e, f, h, i1, i2, inter, merged;
        MPI_Request rq[3];
        int one = 1, sum = 0;

        check_comm(c, t, round, "own");
        MT_CALL(MPI_Comm_dup(c, &d));
        /* idup, with a nonblocking collective and a blocking one between */
        MT_CALL(MPI_Comm_idup(c, &i1, &rq[0]));
        MT_CALL(MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c, &rq[1]));
        MT_CALL(MPI_Comm_idup(d, &i2, &rq[2]));
        check_comm(d, t, round, "dup");
        MT_CALL(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
        MT_CHECK(sum == size, "thread %d: Iallreduce %d", t, sum);
        check_comm(i1, t, round, "idup");
        check_comm(i2, t, round, "idup of dup");

        /* create: every rank but the last (the whole group on one rank) */
        int excl = size - 1;
        MT_CALL(MPI_Group_excl(g, size > 1 ? 1 : 0, &excl, &sub));
        MT_CALL(MPI_Comm_create(c, sub, &e));
        if (e != MPI_COMM_NULL)
            check_comm(e, t, round, "create");
        /* create_group: only the members call */
        if (rank != size - 1 || size == 1) {
            MT_CALL(MPI_Comm_create_group(c, sub, 100 + t, &f));
            check_comm(f, t, round, "create_group");
            MT_CALL(MPI_Comm_free(&f));
        }
        MT_CALL(MPI_Group_free(&sub));

        /* split in halves, intercommunicator between them, merge */
        int lo = rank < size / 2;
        MT_CALL(MPI_Comm_split(c, lo, rank, &h));
        check_comm(h, t, round, "split");
        if (size >= 2) {
            MT_CALL(MPI_Intercomm_create(h, 0, c, lo ? size / 2 : 0, 200 + t, &inter));
            MT_CALL(MPI_Intercomm_merge(inter, !lo, &merged));
            int mr;
            MT_CALL(MPI_Comm_rank(merged, &mr));
            MT_CHECK(mr == rank, "thread %d: merged rank %d, want %d", t, mr, rank);
            check_comm(merged, t, round, "merged");
            MT_CALL(MPI_Comm_free(&merged));
            MT_CALL(MPI_Comm_free(&inter));
        }
        probes(i1, t, round);
        probes(c, t, round);

        MT_CALL(MPI_Comm_free(&h));
        if (e != MPI_COMM_NULL)
            MT_CALL(MPI_Comm_free(&e));
        MT_CALL(MPI_Comm_free(&i2));
        MT_CALL(MPI_Comm_free(&i1));
        MT_CALL(MPI_Comm_free(&d));
    }
    MT_CALL(MPI_Group_free(&g));
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    mt_after_init(1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1)
        nthreads = atoi(argv[1]);
    if (argc > 2)
        rounds = atoi(argv[2]);
    if (nthreads < 1 || nthreads > 64)
        nthreads = 4;
    if (provided < MPI_THREAD_MULTIPLE) {
        MT_CHECK(0, "MPI_THREAD_MULTIPLE not provided (%d)", provided);
        return mt_finalize();
    }
    for (int t = 0; t < nthreads; t++) {
        MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &tcomm[t]));
        MT_CALL(MPI_Comm_set_errhandler(tcomm[t], MPI_ERRORS_RETURN));
    }
    pthread_t th[64];
    for (int t = 0; t < nthreads; t++)
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < nthreads; t++)
        MT_CALL(MPI_Comm_free(&tcomm[t]));
    return mt_finalize();
}
