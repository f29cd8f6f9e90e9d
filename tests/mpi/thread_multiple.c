/* MPI_THREAD_MULTIPLE: several pthreads per rank communicate concurrently.
 * Ranks are paired (r, r^1).  Each of NT threads exchanges messages with the
 * same thread of the partner rank: threads 0..NT/2-1 on MPI_COMM_WORLD with
 * their own tag, the others on their own MPI_Comm_dup (all with tag 0, so
 * only the communicator keeps them apart).  Sizes alternate between small
 * (eager) and large (rendezvous) messages, with blocking, nonblocking and
 * Sendrecv calls.  One more thread runs Allreduce on its own duplicate
 * meanwhile.  An odd rank out (odd world size) only runs the Allreduce. */
#include "mtest.h"
#include <pthread.h>

#define NT 4
#define BIG (96 * 1024)

static int iters;
static int partner;
static MPI_Comm comms[NT];
static MPI_Comm coll_comm;
static int thread_errs[NT + 1];

struct targ {
    int id;
};

static void *pingpong(void *p)
{
    int id = ((struct targ *)p)->id;
    MPI_Comm comm = comms[id];
    int tag = id < NT / 2 ? 100 + id : 0;
    unsigned char *sbuf = malloc(BIG), *rbuf = malloc(BIG);
    int errs = 0;
    for (int it = 0; it < iters && errs < 5; it++) {
        int n = (it % 4 == 3) ? BIG - it % 7 : 1 + (it * 37 + id) % 512;
        unsigned seed_out = (unsigned)(mt_rank * 1000003 + id * 7919 + it);
        unsigned seed_in = (unsigned)(partner * 1000003 + id * 7919 + it);
        mt_fill(sbuf, (size_t)n, seed_out);
        memset(rbuf, 0, (size_t)n);
        MPI_Status st;
        int rc;
        switch (it % 3) {
        case 0:
            rc = MPI_Sendrecv(sbuf, n, MPI_BYTE, partner, tag, rbuf, n, MPI_BYTE, partner,
                              tag, comm, &st);
            break;
        case 1: {
            MPI_Request r[2];
            rc = MPI_Irecv(rbuf, n, MPI_BYTE, partner, tag, comm, &r[0]);
            rc |= MPI_Isend(sbuf, n, MPI_BYTE, partner, tag, comm, &r[1]);
            MPI_Status sts[2];
            rc |= MPI_Waitall(2, r, sts);
            st = sts[0];
            break;
        }
        default:
            /* blocking, ordered by rank parity so that it cannot deadlock */
            if (mt_rank < partner) {
                rc = MPI_Send(sbuf, n, MPI_BYTE, partner, tag, comm);
                rc |= MPI_Recv(rbuf, n, MPI_BYTE, partner, tag, comm, &st);
            } else {
                rc = MPI_Recv(rbuf, n, MPI_BYTE, partner, tag, comm, &st);
                rc |= MPI_Send(sbuf, n, MPI_BYTE, partner, tag, comm);
            }
            break;
        }
        int cnt = -1;
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        if (rc != MPI_SUCCESS || cnt != n || st.MPI_SOURCE != partner || st.MPI_TAG != tag) {
            fprintf(stderr, "rank %d thread %d iter %d: rc %d count %d/%d source %d tag %d\n",
                    mt_rank, id, it, rc, cnt, n, st.MPI_SOURCE, st.MPI_TAG);
            errs++;
        }
        size_t bad = mt_verify(rbuf, (size_t)n, seed_in);
        if (bad != (size_t)-1) {
            fprintf(stderr, "rank %d thread %d iter %d: byte %zu of %d wrong\n", mt_rank, id, it,
                    bad, n);
            errs++;
        }
    }
    free(sbuf);
    free(rbuf);
    thread_errs[id] = errs;
    return NULL;
}

static void *collectives(void *p)
{
    (void)p;
    int errs = 0;
    for (int it = 0; it < iters && errs < 5; it++) {
        long v[3] = { mt_rank, it, 1 }, s[3] = { 0, 0, 0 };
        if (MPI_Allreduce(v, s, 3, MPI_LONG, MPI_SUM, coll_comm) != MPI_SUCCESS ||
            s[0] != (long)mt_size * (mt_size - 1) / 2 || s[1] != (long)it * mt_size ||
            s[2] != mt_size) {
            fprintf(stderr, "rank %d: allreduce iter %d gave %ld %ld %ld\n", mt_rank, it, s[0],
                    s[1], s[2]);
            errs++;
        }
    }
    thread_errs[NT] = errs;
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
        return 1;
    mt_after_init(1);
    if (provided != MPI_THREAD_MULTIPLE)
        MT_DIE("MPI_THREAD_MULTIPLE not provided (got %d)", provided);

    iters = mt_env_int("MTEST_ITERS", 300);
    partner = mt_rank ^ 1;
    int has_partner = partner < mt_size;

    for (int i = 0; i < NT; i++) {
        if (i < NT / 2)
            comms[i] = MPI_COMM_WORLD;
        else
            MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]));
    }
    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &coll_comm));

    pthread_t th[NT + 1];
    struct targ args[NT];
    int nth = 0;
    if (has_partner) {
        for (int i = 0; i < NT; i++) {
            args[i].id = i;
            MT_CHECK(pthread_create(&th[nth++], NULL, pingpong, &args[i]) == 0,
                     "pthread_create");
        }
    }
    MT_CHECK(pthread_create(&th[nth++], NULL, collectives, NULL) == 0, "pthread_create");

    /* The main thread also communicates meanwhile: Iprobe for a message
     * that never comes (on its own dup) and a Barrier on another one. */
    MPI_Comm main_comm;
    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &main_comm));
    for (int i = 0; i < 50; i++) {
        int flag = 1;
        MT_CALL(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, main_comm, &flag, MPI_STATUS_IGNORE));
        MT_CHECK(flag == 0, "Iprobe found a message on the idle communicator");
        MT_CALL(MPI_Barrier(main_comm));
    }

    for (int i = 0; i < nth; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i <= NT; i++)
        MT_CHECK(thread_errs[i] == 0, "thread %d had %d failures", i, thread_errs[i]);

    /* Nothing left over on any communicator. */
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < NT; i++) {
        int flag = 1;
        MT_CALL(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comms[i], &flag, MPI_STATUS_IGNORE));
        MT_CHECK(!flag, "unreceived message on communicator %d", i);
        if (i >= NT / 2)
            MT_CALL(MPI_Comm_free(&comms[i]));
    }
    MT_CALL(MPI_Comm_free(&coll_comm));
    MT_CALL(MPI_Comm_free(&main_comm));
    return mt_finalize();
}
