/* The sessions model alone: no MPI_Init anywhere.  Two sessions one after
 * the other (the runtime must survive the first MPI_Session_finalize), each
 * building a communicator from "mpi://WORLD" and using it; the world model
 * stays uninitialized throughout.  With argument "mixed" MPI_Init comes
 * while a session is open and MPI_Finalize before the session ends, whose
 * communicator must keep working after MPI_Finalize.
 *
 * mtest.h's helpers need MPI_COMM_WORLD, so the error count is summed over
 * a session's communicator here. */
#include "mtest.h"

static MPI_Comm world_comm(MPI_Session s, const char *tag)
{
    MPI_Group g = MPI_GROUP_NULL;
    MPI_Comm c = MPI_COMM_NULL;
    MT_CALL(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    MT_CALL(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    MT_CALL(MPI_Group_free(&g));
    if (c == MPI_COMM_NULL) {
        fprintf(stderr, "FAIL: no communicator from mpi://WORLD\n");
        exit(1);
    }
    return c;
}

static void use_comm(MPI_Comm c, int round)
{
    int rank = -1, size = -1, sum = -1;
    MT_CALL(MPI_Comm_rank(c, &rank));
    MT_CALL(MPI_Comm_size(c, &size));
    mt_rank = rank;
    int want = mt_expected_size();
    MT_CHECK(want < 0 || size == want, "size %d, launcher asked for %d", size, want);
    int v = rank + round;
    MT_CALL(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
    MT_CHECK(sum == size * (size - 1) / 2 + size * round, "round %d: allreduce %d", round, sum);
    /* a ring of point-to-point messages */
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, in = -1;
    MT_CALL(MPI_Sendrecv(&rank, 1, MPI_INT, next, round, &in, 1, MPI_INT, prev, round, c,
                         MPI_STATUS_IGNORE));
    MT_CHECK(in == prev, "ring: got %d from %d", in, prev);
}

/* A buffer attached to the session serves Bsend on its communicators. */
static void session_bsend(MPI_Session s, MPI_Comm c)
{
    int rank = -1, size = -1, in = -1, bsize = 0;
    static char buf[1024 + MPI_BSEND_OVERHEAD];
    void *back = NULL;
    MT_CALL(MPI_Comm_rank(c, &rank));
    MT_CALL(MPI_Comm_size(c, &size));
    MT_CALL(MPI_Session_attach_buffer(s, buf, (int)sizeof(buf)));
    MT_CALL(MPI_Bsend(&rank, 1, MPI_INT, (rank + 1) % size, 3, c));
    MT_CALL(MPI_Recv(&in, 1, MPI_INT, (rank + size - 1) % size, 3, c, MPI_STATUS_IGNORE));
    MT_CHECK(in == (rank + size - 1) % size, "bsend ring: got %d", in);
    MT_CALL(MPI_Session_flush_buffer(s));
    MT_CALL(MPI_Session_detach_buffer(s, &back, &bsize));
    MT_CHECK(back == buf && bsize == (int)sizeof(buf), "detach gave %p, %d", back, bsize);
    /* without a buffer anywhere a Bsend has nowhere to go */
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    MT_EXPECT_CLASS(MPI_Bsend(&rank, 1, MPI_INT, rank, 4, c), MPI_ERR_BUFFER);
}

static int report(MPI_Comm c)
{
    int total = -1;
    MT_CALL(MPI_Allreduce(&mt_errs, &total, 1, MPI_INT, MPI_SUM, c));
    if (mt_rank == 0) {
        printf(total == 0 ? " No Errors\n" : " Found %d errors\n", total);
        fflush(stdout);
    }
    return total == 0 && mt_errs == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    int mixed = argc > 1 && strcmp(argv[1], "mixed") == 0;
    int flag = -1, rc = 0;

    MT_CALL(MPI_Initialized(&flag));
    MT_CHECK(flag == 0, "MPI_Initialized before anything: %d", flag);
    for (int round = 0; round < 2; round++) {
        MPI_Session s = MPI_SESSION_NULL;
        MT_CALL(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
        MPI_Comm c = world_comm(s, round ? "tern.only.1" : "tern.only.0");
        use_comm(c, round);
        if (round == 0) {
            session_bsend(s, c);
        }

        MPI_Group sg = MPI_GROUP_NULL;
        MPI_Comm sc = MPI_COMM_NULL;
        MT_CALL(MPI_Group_from_session_pset(s, "mpi://SELF", &sg));
        MT_CALL(MPI_Comm_create_from_group(sg, "tern.only.self", MPI_INFO_NULL,
                                           MPI_ERRORS_RETURN, &sc));
        int size = -1;
        MT_CALL(MPI_Comm_size(sc, &size));
        MT_CHECK(size == 1, "SELF communicator of size %d", size);
        MT_CALL(MPI_Comm_free(&sc));
        MT_CALL(MPI_Group_free(&sg));

        MT_CALL(MPI_Initialized(&flag));
        MT_CHECK(flag == 0, "MPI_Initialized with only a session: %d", flag);
        MT_CALL(MPI_Finalized(&flag));
        MT_CHECK(flag == 0, "MPI_Finalized with only a session: %d", flag);

        if (mixed && round == 1) {
            int provided = -1, wsize = -1;
            MT_CALL(MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided));
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            MT_CALL(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
            int sum = -1;
            MT_CALL(MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
            MT_CHECK(sum == wsize * (wsize - 1) / 2, "world allreduce %d", sum);
            MT_CALL(MPI_Finalize());
            MT_CALL(MPI_Finalized(&flag));
            MT_CHECK(flag == 1, "MPI_Finalized after MPI_Finalize: %d", flag);
            /* the session's communicator outlives the world model */
            use_comm(c, 7);
        }
        if (round == 1) {
            rc = report(c);
        }
        MT_CALL(MPI_Comm_free(&c));
        MT_CALL(MPI_Session_finalize(&s));
    }
    return rc;
}
