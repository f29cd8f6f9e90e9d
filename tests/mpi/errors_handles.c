/* Invalid handles under MPI_ERRORS_RETURN: garbage values (0x1234, a
 * misaligned 0x1235, 0xdeadbeef0), the handle of a freed object, a pointer
 * into the middle of an object and a handle of another kind must each give
 * the standard error class instead of a crash, and the library must keep
 * working afterwards:
 *   MPI_ERR_COMM (MPI_Send, MPI_Recv, MPI_Comm_size),
 *   MPI_ERR_TYPE (MPI_Send, MPI_Recv, MPI_Type_size, MPI_Type_commit),
 *   MPI_ERR_OP (MPI_Allreduce), MPI_ERR_REQUEST (MPI_Wait, MPI_Test,
 *   MPI_Request_free, MPI_Mrecv), MPI_ERR_GROUP (MPI_Group_size),
 *   MPI_ERR_INFO (MPI_Info_get_nkeys), MPI_ERR_ARG (MPI_Comm_set_errhandler).
 * Standard MPI only, but other
 * implementations may crash on such handles (tern_only in the testlist). */
#include "mtest.h"
#include <stdint.h>

/* A handle of any type from an integer or another handle (works for
 * pointer and integer handle types alike). */
#define H(type, v) ((type)(intptr_t)(v))

#define EXPECT(call, cls, fname)                                               \
    do {                                                                       \
        int rc_ = (call);                                                      \
        MT_EXPECT_CLASS(rc_, cls);                                             \
        if (rc_ != MPI_SUCCESS)                                                \
            check_string(rc_, fname, #call);                                   \
    } while (0)

static void check_string(int code, const char *fname, const char *call)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = -1;
    int rc = MPI_Error_string(code, s, &len);
    MT_CHECK(rc == MPI_SUCCESS && len > 0 && (size_t)len == strlen(s),
             "MPI_Error_string(%d): rc %d len %d", code, rc, len);
    (void)fname; /* error codes name the class; the handler's message names fname */
    (void)call;
}

/* The garbage values every kind is tried with. */
static const intptr_t garbage[] = {
    0x1234,
    0x1235,
#if INTPTR_MAX > 0x7fffffff
    (intptr_t)0xdeadbeef0,
#else
    (intptr_t)0xdeadbee0,
#endif
};
#define NGARBAGE ((int)(sizeof(garbage) / sizeof(garbage[0])))

int main(int argc, char **argv)
{
    mt_init(&argc, &argv); /* MPI_ERRORS_RETURN on WORLD and SELF */
    if (mt_size < 2)
        MT_DIE("needs at least 2 ranks");
    int buf[16] = { 0 };
    int peer = mt_rank == 0 ? 1 : 0;
    int n = -1;
    MPI_Status st;

    /* live objects of each kind, and freed ones */
    MPI_Comm dup, freed_comm;
    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &freed_comm));
    MPI_Comm tmpc = freed_comm;
    MT_CALL(MPI_Comm_free(&tmpc));

    MPI_Datatype vec, freed_dt;
    MT_CALL(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    MT_CALL(MPI_Type_commit(&vec));
    MT_CALL(MPI_Type_contiguous(3, MPI_INT, &freed_dt));
    MPI_Datatype tmpd = freed_dt;
    MT_CALL(MPI_Type_free(&tmpd));

    MPI_Group grp, freed_grp;
    MT_CALL(MPI_Comm_group(dup, &grp));
    MT_CALL(MPI_Group_incl(grp, 1, &mt_rank, &freed_grp));
    MPI_Group tmpg = freed_grp;
    MT_CALL(MPI_Group_free(&tmpg));

    MPI_Info info, freed_info;
    MT_CALL(MPI_Info_create(&info));
    MT_CALL(MPI_Info_create(&freed_info));
    MPI_Info tmpi = freed_info;
    MT_CALL(MPI_Info_free(&tmpi));

    /* handles of every kind that name nothing of the kind asked for */
    for (int i = 0; i < NGARBAGE + 3; i++) {
        intptr_t g = i < NGARBAGE ? garbage[i] : 0;
        MPI_Comm bc = i < NGARBAGE ? H(MPI_Comm, g)
                      : i == NGARBAGE ? freed_comm
                      : i == NGARBAGE + 1 ? H(MPI_Comm, vec)   /* a datatype */
                                          : H(MPI_Comm, info); /* an info */
        MPI_Datatype bd = i < NGARBAGE ? H(MPI_Datatype, g)
                          : i == NGARBAGE ? freed_dt
                          : i == NGARBAGE + 1 ? H(MPI_Datatype, dup)
                                              : H(MPI_Datatype, grp);
        MPI_Group bg = i < NGARBAGE ? H(MPI_Group, g)
                       : i == NGARBAGE ? freed_grp
                       : i == NGARBAGE + 1 ? H(MPI_Group, dup)
                                           : H(MPI_Group, info);
        MPI_Info bi = i < NGARBAGE ? H(MPI_Info, g)
                      : i == NGARBAGE ? freed_info
                      : i == NGARBAGE + 1 ? H(MPI_Info, dup)
                                          : H(MPI_Info, grp);
        MPI_Op bo = i < NGARBAGE ? H(MPI_Op, g)
                    : i == NGARBAGE ? H(MPI_Op, freed_dt)
                    : i == NGARBAGE + 1 ? H(MPI_Op, dup)
                                        : H(MPI_Op, vec);
        MPI_Request br = i < NGARBAGE ? H(MPI_Request, g)
                         : i == NGARBAGE ? H(MPI_Request, freed_comm)
                         : i == NGARBAGE + 1 ? H(MPI_Request, dup)
                                             : H(MPI_Request, vec);
        MPI_Errhandler be = i < NGARBAGE ? H(MPI_Errhandler, g)
                            : H(MPI_Errhandler, dup);

        EXPECT(MPI_Send(buf, 1, MPI_INT, peer, 0, bc), MPI_ERR_COMM, "MPI_Send");
        EXPECT(MPI_Recv(buf, 1, MPI_INT, peer, 0, bc, &st), MPI_ERR_COMM, "MPI_Recv");
        EXPECT(MPI_Comm_size(bc, &n), MPI_ERR_COMM, "MPI_Comm_size");
        EXPECT(MPI_Send(buf, 1, bd, peer, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Send");
        EXPECT(MPI_Recv(buf, 1, bd, peer, 0, MPI_COMM_WORLD, &st), MPI_ERR_TYPE, "MPI_Recv");
        EXPECT(MPI_Type_size(bd, &n), MPI_ERR_TYPE, "MPI_Type_size");
        MPI_Datatype cd = bd;
        EXPECT(MPI_Type_commit(&cd), MPI_ERR_TYPE, "MPI_Type_commit");
        int in = 1, out = 0;
        EXPECT(MPI_Allreduce(&in, &out, 1, MPI_INT, bo, MPI_COMM_WORLD), MPI_ERR_OP,
               "MPI_Allreduce");
        MPI_Request r = br;
        int flag = -1;
        EXPECT(MPI_Wait(&r, &st), MPI_ERR_REQUEST, "MPI_Wait");
        r = br;
        EXPECT(MPI_Test(&r, &flag, &st), MPI_ERR_REQUEST, "MPI_Test");
        r = br;
        EXPECT(MPI_Request_free(&r), MPI_ERR_REQUEST, "MPI_Request_free");
        EXPECT(MPI_Group_size(bg, &n), MPI_ERR_GROUP, "MPI_Group_size");
        EXPECT(MPI_Info_get_nkeys(bi, &n), MPI_ERR_INFO, "MPI_Info_get_nkeys");
        EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, be), MPI_ERR_ARG,
               "MPI_Comm_set_errhandler");
        MPI_Message m = H(MPI_Message, br);
        EXPECT(MPI_Mrecv(buf, 1, MPI_INT, &m, &st), MPI_ERR_REQUEST, "MPI_Mrecv");
    }

    /* a request that completed and was freed: its handle names nothing */
    {
        MPI_Request r, saved;
        int flag = -1;
        MT_CALL(MPI_Irecv(buf, 1, MPI_INT, 0, 7, MPI_COMM_SELF, &r));
        MT_CALL(MPI_Send(buf, 1, MPI_INT, 0, 7, MPI_COMM_SELF));
        saved = r;
        MT_CALL(MPI_Wait(&r, &st));
        MT_CHECK(r == MPI_REQUEST_NULL, "MPI_Wait left the request set");
        r = saved;
        EXPECT(MPI_Test(&r, &flag, &st), MPI_ERR_REQUEST, "MPI_Test");
    }

    /* everything still works, the real objects included */
    MT_CALL(MPI_Comm_size(dup, &n));
    MT_CHECK(n == mt_size, "MPI_Comm_size(dup) = %d, expected %d", n, mt_size);
    MT_CALL(MPI_Type_size(vec, &n));
    MT_CHECK(n == 2 * (int)sizeof(int), "MPI_Type_size(vec) = %d", n);
    MT_CALL(MPI_Group_size(grp, &n));
    MT_CHECK(n == mt_size, "MPI_Group_size = %d", n);
    MT_CALL(MPI_Info_get_nkeys(info, &n));
    MT_CHECK(n == 0, "MPI_Info_get_nkeys = %d", n);
    int v[4] = { mt_rank, -1, mt_rank, -1 }, w[4] = { -1, -1, -1, -1 };
    MT_CALL(MPI_Sendrecv(v, 1, vec, peer, 3, w, 1, vec, peer, 3, dup, &st));
    MT_CHECK(w[0] == peer && w[2] == peer && w[1] == -1, "sendrecv got %d %d %d", w[0], w[1],
             w[2]);
    int one = 1, sum = 0;
    MT_CALL(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup));
    MT_CHECK(sum == mt_size, "allreduce sum %d", sum);

    MT_CALL(MPI_Info_free(&info));
    MT_CALL(MPI_Group_free(&grp));
    MT_CALL(MPI_Type_free(&vec));
    MT_CALL(MPI_Comm_free(&dup));
    return mt_finalize();
}
