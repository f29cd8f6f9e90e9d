/* Argument errors under MPI_ERRORS_RETURN: each erroneous call must return
 * a code whose MPI_Error_class is the standard class, and the library must
 * keep working afterwards:
 *   MPI_ERR_COMM (MPI_COMM_NULL, freeing a predefined communicator),
 *   MPI_ERR_RANK, MPI_ERR_TAG (negative, ANY_TAG on a send, > TAG_UB),
 *   MPI_ERR_COUNT (negative), MPI_ERR_TYPE (MPI_DATATYPE_NULL),
 *   MPI_ERR_ROOT, MPI_ERR_REQUEST, MPI_ERR_BUFFER (NULL with count > 0),
 *   MPI_ERR_TRUNCATE, MPI_ERR_OP (MPI_OP_NULL, op not defined for the type),
 *   MPI_ERR_GROUP (MPI_GROUP_NULL). */
#include "mtest.h"
#include <limits.h>

static void check_string(int code)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = -1;
    int rc = MPI_Error_string(code, s, &len);
    MT_CHECK(rc == MPI_SUCCESS && len > 0 && (size_t)len == strlen(s),
             "MPI_Error_string(%d): rc %d len %d", code, rc, len);
}

#define EXPECT(call, cls)                                                      \
    do {                                                                       \
        int rc_ = (call);                                                      \
        MT_EXPECT_CLASS(rc_, cls);                                             \
        if (rc_ != MPI_SUCCESS)                                                \
            check_string(rc_);                                                 \
    } while (0)

int main(int argc, char **argv)
{
    mt_init(&argc, &argv); /* MPI_ERRORS_RETURN on WORLD and SELF */
    if (mt_size < 2)
        MT_DIE("needs at least 2 ranks");
    int buf[16] = { 0 };
    int peer = mt_rank == 0 ? 1 : 0;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;

    /* --- communicator */
    EXPECT(MPI_Send(buf, 1, MPI_INT, peer, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, peer, 0, MPI_COMM_NULL, &st), MPI_ERR_COMM);
    EXPECT(MPI_Isend(buf, 1, MPI_INT, peer, 0, MPI_COMM_NULL, &req), MPI_ERR_COMM);
    int x;
    EXPECT(MPI_Comm_size(MPI_COMM_NULL, &x), MPI_ERR_COMM);
    EXPECT(MPI_Comm_rank(MPI_COMM_NULL, &x), MPI_ERR_COMM);
    EXPECT(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Bcast(buf, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    MPI_Comm c = MPI_COMM_WORLD;
    EXPECT(MPI_Comm_free(&c), MPI_ERR_COMM);
    MT_CHECK(c == MPI_COMM_WORLD, "failed Comm_free changed the handle");
    c = MPI_COMM_SELF;
    EXPECT(MPI_Comm_free(&c), MPI_ERR_COMM);
    c = MPI_COMM_NULL;
    EXPECT(MPI_Comm_free(&c), MPI_ERR_COMM);
    MPI_Comm d;
    EXPECT(MPI_Comm_dup(MPI_COMM_NULL, &d), MPI_ERR_COMM);

    /* --- rank */
    EXPECT(MPI_Send(buf, 1, MPI_INT, mt_size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT(MPI_Send(buf, 1, MPI_INT, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT(MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, 99 + mt_size, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
    EXPECT(MPI_Irecv(buf, 1, MPI_INT, -7, 0, MPI_COMM_WORLD, &req), MPI_ERR_RANK);
    EXPECT(MPI_Send(buf, 1, MPI_INT, 1, 0, MPI_COMM_SELF), MPI_ERR_RANK);

    /* --- tag */
    EXPECT(MPI_Send(buf, 1, MPI_INT, peer, -1, MPI_COMM_WORLD), MPI_ERR_TAG);
    EXPECT(MPI_Send(buf, 1, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, peer, -7, MPI_COMM_WORLD, &st), MPI_ERR_TAG);
    EXPECT(MPI_Isend(buf, 1, MPI_INT, peer, -3, MPI_COMM_WORLD, &req), MPI_ERR_TAG);
    int *tag_ub, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    if (flag && *tag_ub < INT_MAX)
        EXPECT(MPI_Send(buf, 1, MPI_INT, peer, *tag_ub + 1, MPI_COMM_WORLD), MPI_ERR_TAG);

    /* --- count */
    EXPECT(MPI_Send(buf, -1, MPI_INT, peer, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT(MPI_Recv(buf, -1, MPI_INT, peer, 0, MPI_COMM_WORLD, &st), MPI_ERR_COUNT);
    EXPECT(MPI_Isend(buf, -10, MPI_INT, peer, 0, MPI_COMM_WORLD, &req), MPI_ERR_COUNT);
    EXPECT(MPI_Bcast(buf, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);

    /* --- datatype */
    EXPECT(MPI_Send(buf, 1, MPI_DATATYPE_NULL, peer, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT(MPI_Recv(buf, 1, MPI_DATATYPE_NULL, peer, 0, MPI_COMM_WORLD, &st), MPI_ERR_TYPE);
    EXPECT(MPI_Type_size(MPI_DATATYPE_NULL, &x), MPI_ERR_TYPE);
    {
        /* both the datatype and the (op, datatype) pair are invalid here:
         * MPI_ERR_TYPE or MPI_ERR_OP are both reasonable */
        int rc = MPI_Allreduce(buf, buf + 8, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD);
        int cls = -1;
        MPI_Error_class(rc, &cls);
        MT_CHECK(cls == MPI_ERR_TYPE || cls == MPI_ERR_OP,
                 "Allreduce(MPI_DATATYPE_NULL): class %d, expected MPI_ERR_TYPE or MPI_ERR_OP", cls);
    }

    /* --- root (every rank passes the same invalid root) */
    EXPECT(MPI_Bcast(buf, 1, MPI_INT, mt_size, MPI_COMM_WORLD), MPI_ERR_ROOT);
    EXPECT(MPI_Bcast(buf, 1, MPI_INT, -1, MPI_COMM_WORLD), MPI_ERR_ROOT);
    EXPECT(MPI_Reduce(buf, buf + 8, 1, MPI_INT, MPI_SUM, mt_size + 3, MPI_COMM_WORLD),
           MPI_ERR_ROOT);
    EXPECT(MPI_Gather(buf, 1, MPI_INT, buf + 8, 1, MPI_INT, -2, MPI_COMM_WORLD), MPI_ERR_ROOT);

    /* --- request */
    req = MPI_REQUEST_NULL;
    EXPECT(MPI_Start(&req), MPI_ERR_REQUEST);
    EXPECT(MPI_Request_free(&req), MPI_ERR_REQUEST);
    EXPECT(MPI_Cancel(&req), MPI_ERR_REQUEST);

    /* --- buffer: NULL with a positive count of a basic type */
    EXPECT(MPI_Send(NULL, 5, MPI_INT, peer, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT(MPI_Recv(NULL, 5, MPI_INT, peer, 0, MPI_COMM_WORLD, &st), MPI_ERR_BUFFER);
    EXPECT(MPI_Isend(NULL, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &req), MPI_ERR_BUFFER);

    /* --- op */
    EXPECT(MPI_Allreduce(buf, buf + 8, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP);
    double dd = 1.0, de = 0;
    EXPECT(MPI_Allreduce(&dd, &de, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD), MPI_ERR_OP);
    EXPECT(MPI_Reduce(&dd, &de, 1, MPI_DOUBLE, MPI_LXOR, 0, MPI_COMM_WORLD), MPI_ERR_OP);
    EXPECT(MPI_Allreduce(buf, buf + 8, 1, MPI_2INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
    EXPECT(MPI_Allreduce(buf, buf + 8, 1, MPI_INT, MPI_MAXLOC, MPI_COMM_WORLD), MPI_ERR_OP);

    /* --- group */
    EXPECT(MPI_Group_size(MPI_GROUP_NULL, &x), MPI_ERR_GROUP);
    EXPECT(MPI_Group_rank(MPI_GROUP_NULL, &x), MPI_ERR_GROUP);
    MPI_Group g = MPI_GROUP_NULL;
    EXPECT(MPI_Group_free(&g), MPI_ERR_GROUP);
    EXPECT(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &d), MPI_ERR_GROUP);
    MPI_Group wg;
    MT_CALL(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int res;
    EXPECT(MPI_Group_compare(wg, MPI_GROUP_NULL, &res), MPI_ERR_GROUP);
    MT_CALL(MPI_Group_free(&wg));

    /* --- truncation */
    if (mt_rank == 0) {
        MT_CALL(MPI_Send(buf, 10, MPI_INT, 1, 42, MPI_COMM_WORLD));
    } else if (mt_rank == 1) {
        EXPECT(MPI_Recv(buf, 2, MPI_INT, 0, 42, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE);
    }

    /* --- everything still works */
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    int out = mt_rank, in = -1;
    MT_CALL(MPI_Sendrecv(&out, 1, MPI_INT, right, 1, &in, 1, MPI_INT, left, 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
    MT_CHECK(in == left, "ring after errors got %d", in);
    int sum = 0;
    MT_CALL(MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MT_CHECK(sum == mt_size * (mt_size - 1) / 2, "allreduce after errors %d", sum);
    /* no stray message from any failed send */
    flag = 1;
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    MT_CALL(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    MT_CHECK(!flag, "a failed call left a message behind");
    return mt_finalize();
}
