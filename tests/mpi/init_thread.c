/* MPI_Init_thread with the level named by MTEST_THREAD_LEVEL
 * (single, funneled, serialized, multiple; default multiple):
 * provided is a valid level >= required (Tern supports all levels),
 * Query_thread agrees, Is_thread_main is true in main and (for levels that
 * allow other threads to call MPI) false in another thread. */
#include "mtest.h"
#include <pthread.h>

static int provided_level;

struct thr_result {
    int is_main;
    int query;
    int rc1, rc2;
};

static void *thread_body(void *arg)
{
    struct thr_result *r = arg;
    r->rc1 = MPI_Is_thread_main(&r->is_main);
    r->rc2 = MPI_Query_thread(&r->query);
    return NULL;
}

static int parse_level(const char *s)
{
    if (!s || !*s || !strcmp(s, "multiple"))
        return MPI_THREAD_MULTIPLE;
    if (!strcmp(s, "single"))
        return MPI_THREAD_SINGLE;
    if (!strcmp(s, "funneled"))
        return MPI_THREAD_FUNNELED;
    if (!strcmp(s, "serialized"))
        return MPI_THREAD_SERIALIZED;
    fprintf(stderr, "bad MTEST_THREAD_LEVEL '%s'\n", s);
    exit(2);
}

int main(int argc, char **argv)
{
    int required = parse_level(getenv("MTEST_THREAD_LEVEL"));
    int provided = -1;
    int rc = MPI_Init_thread(&argc, &argv, required, &provided);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "FAIL: MPI_Init_thread returned %d\n", rc);
        return 1;
    }
    mt_after_init(1);
    provided_level = provided;

    MT_CHECK(provided == MPI_THREAD_SINGLE || provided == MPI_THREAD_FUNNELED ||
             provided == MPI_THREAD_SERIALIZED || provided == MPI_THREAD_MULTIPLE,
             "provided = %d is not a thread level", provided);
    MT_CHECK(provided >= required, "required %d, provided %d", required, provided);

    int q = -1;
    MT_CALL(MPI_Query_thread(&q));
    MT_CHECK(q == provided, "MPI_Query_thread %d != provided %d", q, provided);

    int flag = -1;
    MT_CALL(MPI_Is_thread_main(&flag));
    MT_CHECK(flag == 1, "MPI_Is_thread_main in the main thread gave %d", flag);

    if (provided >= MPI_THREAD_SERIALIZED) {
        /* The main thread makes no MPI call while the other thread runs. */
        struct thr_result r = { -1, -1, -1, -1 };
        pthread_t t;
        MT_CHECK(pthread_create(&t, NULL, thread_body, &r) == 0, "pthread_create");
        pthread_join(t, NULL);
        MT_CHECK(r.rc1 == MPI_SUCCESS && r.rc2 == MPI_SUCCESS, "calls from thread: %d %d",
                 r.rc1, r.rc2);
        MT_CHECK(r.is_main == 0, "MPI_Is_thread_main in a second thread gave %d", r.is_main);
        MT_CHECK(r.query == provided, "MPI_Query_thread in a second thread gave %d", r.query);
    }

    /* Communication works at this level: a ring exchange. */
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    int out = 1000 + mt_rank, in = -1;
    MPI_Status st;
    MT_CALL(MPI_Sendrecv(&out, 1, MPI_INT, right, 3, &in, 1, MPI_INT, left, 3,
                         MPI_COMM_WORLD, &st));
    MT_CHECK(in == 1000 + left, "ring value %d from %d", in, left);
    MT_CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 3, "status %d/%d", st.MPI_SOURCE,
             st.MPI_TAG);

    /* Every rank got the same level (same request, same library). */
    int lmin = 0, lmax = 0;
    MT_CALL(MPI_Allreduce(&provided_level, &lmin, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    MT_CALL(MPI_Allreduce(&provided_level, &lmax, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    MT_CHECK(lmin == lmax, "provided differs between ranks (%d..%d)", lmin, lmax);

    return mt_finalize();
}
