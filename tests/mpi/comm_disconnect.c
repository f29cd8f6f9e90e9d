/* MPI_Comm_disconnect: it waits for the communication still pending on the
 * communicator, then frees it and sets the handle to MPI_COMM_NULL.
 *   - rank 0 sends (freed Isend requests, large and small, a kept Isend, a
 *     Bsend) and disconnects while rank 1 is still asleep; rank 0 then
 *     overwrites its send buffers: the data rank 1 receives later must be the
 *     original (a disconnect that did not wait would let the rendezvous read
 *     the new contents, or lose the message);
 *   - a large receive posted and not waited for before the disconnect is
 *     complete after it, with its data (rank 0 sends it just before its
 *     own disconnect: without a single-copy path the data come after the
 *     barrier messages could);
 *   - inactive persistent and partitioned requests on the communicator do
 *     not hold the disconnect up, and can be freed after it;
 *   - an intercommunicator; attribute delete callbacks run;
 *   - MPI_COMM_WORLD, MPI_COMM_SELF, MPI_COMM_NULL and a NULL pointer are
 *     refused (MPI_ERR_COMM, MPI_ERR_ARG). */
#include "mtest.h"

#define BIG (1 << 20)
#define NSMALL 8

static int deleted;

static int delete_fn(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    deleted += *(int *)val;
    return MPI_SUCCESS;
}

static void errors(void)
{
    MPI_Comm w = MPI_COMM_WORLD, s = MPI_COMM_SELF, n = MPI_COMM_NULL;
    MT_EXPECT_CLASS(MPI_Comm_disconnect(&w), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Comm_disconnect(&s), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Comm_disconnect(&n), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Comm_disconnect(NULL), MPI_ERR_ARG);
    MT_CHECK(w == MPI_COMM_WORLD && s == MPI_COMM_SELF, "a refused disconnect changed the handle");
}

/* Ranks 0 and 1 of a duplicate of the world; the others only disconnect. */
static void sends_then_disconnect(void)
{
    MPI_Comm dup;
    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int key, val = 5;
    MT_CALL(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &key, NULL));
    MT_CALL(MPI_Comm_set_attr(dup, key, &val));
    deleted = 0;

    /* inactive persistent requests hold references too: no effect */
    int pbuf[4] = { 0 };
    MPI_Request pers, part;
    MT_CALL(MPI_Recv_init(pbuf, 4, MPI_INT, MPI_ANY_SOURCE, 99, dup, &pers));
    MT_CALL(MPI_Precv_init(pbuf, 2, 2, MPI_INT, mt_rank, 98, dup, MPI_INFO_NULL, &part));

    unsigned char *big = mt_malloc(BIG);
    unsigned char *late = mt_malloc(BIG);
    int small[NSMALL], kept = 0;
    int bsize = 64 + MPI_BSEND_OVERHEAD;
    void *battach = mt_malloc((size_t)bsize);
    MPI_Request r, keep = MPI_REQUEST_NULL, pending = MPI_REQUEST_NULL;
    if (mt_rank == 0 && mt_size > 1) {
        mt_fill(big, BIG, 7);
        MT_CALL(MPI_Isend(big, BIG, MPI_BYTE, 1, 1, dup, &r));
        MT_CALL(MPI_Request_free(&r));
        for (int i = 0; i < NSMALL; i++) {
            small[i] = 1000 + i;
            MT_CALL(MPI_Isend(&small[i], 1, MPI_INT, 1, 2, dup, &r));
            MT_CALL(MPI_Request_free(&r));
        }
        kept = 4242;
        MT_CALL(MPI_Isend(&kept, 1, MPI_INT, 1, 3, dup, &keep));
        MT_CALL(MPI_Comm_attach_buffer(dup, battach, bsize));
        int b = 77;
        MT_CALL(MPI_Bsend(&b, 1, MPI_INT, 1, 4, dup));
        mt_fill(late, BIG, 8);
        MT_CALL(MPI_Isend(late, BIG, MPI_BYTE, 1, 5, dup, &r));
        MT_CALL(MPI_Request_free(&r));
    } else if (mt_rank == 1) {
        /* posted now, matched by a send that rank 0 makes later */
        memset(late, 0, BIG);
        MT_CALL(MPI_Irecv(late, BIG, MPI_BYTE, 0, 5, dup, &pending));
        mt_sleep_ms(300);             /* rank 0 is disconnecting meanwhile */
        unsigned char *rbig = mt_malloc(BIG);
        MPI_Status st;
        MT_CALL(MPI_Recv(rbig, BIG, MPI_BYTE, 0, 1, dup, &st));
        MT_CHECK_PATTERN(rbig, BIG, 7, "large freed Isend received after the sender's disconnect");
        free(rbig);
        for (int i = 0; i < NSMALL; i++) {
            int x = -1;
            MT_CALL(MPI_Recv(&x, 1, MPI_INT, 0, 2, dup, MPI_STATUS_IGNORE));
            MT_CHECK(x == 1000 + i, "small message %d: %d", i, x);
        }
        int x = -1;
        MT_CALL(MPI_Recv(&x, 1, MPI_INT, 0, 3, dup, MPI_STATUS_IGNORE));
        MT_CHECK(x == 4242, "kept Isend: %d", x);
        MT_CALL(MPI_Recv(&x, 1, MPI_INT, 0, 4, dup, MPI_STATUS_IGNORE));
        MT_CHECK(x == 77, "Bsend: %d", x);
    }
    MT_CALL(MPI_Comm_disconnect(&dup));
    MT_CHECK(dup == MPI_COMM_NULL, "disconnect did not set MPI_COMM_NULL");
    MT_CHECK(deleted == 5, "attribute delete callback ran %d times (x5)", deleted / 5);
    if (mt_rank == 0 && mt_size > 1) {
        /* everything has left: the buffers are ours again */
        memset(big, 0xee, BIG);
        memset(late, 0xee, BIG);
        for (int i = 0; i < NSMALL; i++)
            small[i] = -1;
        int flag = 0;
        MT_CALL(MPI_Test(&keep, &flag, MPI_STATUS_IGNORE));
        MT_CHECK(flag && keep == MPI_REQUEST_NULL, "kept Isend not complete after disconnect");
        kept = -1;
    }
    if (mt_rank == 1) {
        int flag = 0;
        MT_CALL(MPI_Test(&pending, &flag, MPI_STATUS_IGNORE));
        MT_CHECK(flag, "receive pending at disconnect not complete after it");
        if (flag)
            MT_CHECK_PATTERN(late, BIG, 8, "receive pending at disconnect");
    }
    MT_CALL(MPI_Request_free(&pers));
    MT_CALL(MPI_Request_free(&part));
    MT_CALL(MPI_Comm_free_keyval(&key));
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));     /* rank 1 checked before rank 0 went on */
    free(big);
    free(late);
    free(battach);
}

/* Ring traffic on a split communicator, every request freed, disconnect. */
static void ring(void)
{
    MPI_Comm c;
    MT_CALL(MPI_Comm_split(MPI_COMM_WORLD, 0, mt_size - mt_rank, &c));
    int rank, size;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int out[16], in[16];
    for (int i = 0; i < 16; i++) {
        MPI_Request r;
        out[i] = rank * 100 + i;
        MT_CALL(MPI_Isend(&out[i], 1, MPI_INT, next, i, c, &r));
        MT_CALL(MPI_Request_free(&r));
        MT_CALL(MPI_Irecv(&in[i], 1, MPI_INT, prev, i, c, &r));
        MT_CALL(MPI_Request_free(&r));
    }
    MT_CALL(MPI_Comm_disconnect(&c));
    for (int i = 0; i < 16; i++)
        MT_CHECK(in[i] == prev * 100 + i, "ring: in[%d] = %d after disconnect", i, in[i]);
}

/* Two halves of the world joined by an intercommunicator. */
static void inter(void)
{
    if (mt_size < 2)
        return;
    int half = mt_size / 2, low = mt_rank < half;
    MPI_Comm local, ic;
    MT_CALL(MPI_Comm_split(MPI_COMM_WORLD, low, mt_rank, &local));
    MT_CALL(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? half : 0, 12, &ic));
    int lrank, rsize;
    MPI_Comm_rank(ic, &lrank);
    MPI_Comm_remote_size(ic, &rsize);
    int x = -1, v = mt_rank;
    MPI_Request r;
    if (low) {
        MT_CALL(MPI_Isend(&v, 1, MPI_INT, lrank % rsize, 0, ic, &r));
        MT_CALL(MPI_Request_free(&r));
    } else if (lrank < rsize) {
        MT_CALL(MPI_Irecv(&x, 1, MPI_INT, lrank, 0, ic, &r));
        MT_CALL(MPI_Request_free(&r));
    }
    MT_CALL(MPI_Comm_disconnect(&ic));
    MT_CHECK(ic == MPI_COMM_NULL, "intercomm: handle not MPI_COMM_NULL");
    if (!low && lrank < rsize)
        MT_CHECK(x == lrank, "intercomm: received %d, expected %d", x, lrank);
    MT_CALL(MPI_Comm_disconnect(&local));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    errors();
    sends_then_disconnect();
    ring();
    inter();
    return mt_finalize();
}
