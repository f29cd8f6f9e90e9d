/* MPI_<Obj>_toint / _fromint of the standard ABI: predefined and user
 * handles round-trip, distinct handles give distinct integers. */
#include "mtest.h"

#define RT(Obj, h)                                                             \
    MT_CHECK(MPI_##Obj##_fromint(MPI_##Obj##_toint(h)) == (h), #Obj " round trip")

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);

    RT(Comm, MPI_COMM_WORLD);
    RT(Comm, MPI_COMM_SELF);
    RT(Comm, MPI_COMM_NULL);
    RT(Type, MPI_INT);
    RT(Type, MPI_DOUBLE_INT);
    RT(Type, MPI_DATATYPE_NULL);
    RT(Group, MPI_GROUP_EMPTY);
    RT(Group, MPI_GROUP_NULL);
    RT(Request, MPI_REQUEST_NULL);
    RT(Op, MPI_SUM);
    RT(Op, MPI_OP_NULL);
    RT(Info, MPI_INFO_NULL);
    RT(Info, MPI_INFO_ENV);
    RT(Errhandler, MPI_ERRORS_RETURN);
    RT(Errhandler, MPI_ERRHANDLER_NULL);
    RT(Message, MPI_MESSAGE_NULL);
    RT(Message, MPI_MESSAGE_NO_PROC);

    MPI_Comm dup1, dup2;
    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &dup1));
    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &dup2));
    int i1 = MPI_Comm_toint(dup1), i2 = MPI_Comm_toint(dup2);
    MT_CHECK(i1 != i2, "two communicators share integer %d", i1);
    MT_CHECK(MPI_Comm_toint(dup1) == i1, "toint not stable");
    MT_CHECK(MPI_Comm_fromint(i1) == dup1 && MPI_Comm_fromint(i2) == dup2, "comm fromint");
    int r = -1;
    MT_CALL(MPI_Comm_rank(MPI_Comm_fromint(i2), &r));
    MT_CHECK(r == mt_rank, "rank via converted handle %d", r);

    MPI_Datatype t;
    MT_CALL(MPI_Type_contiguous(2, MPI_INT, &t));
    RT(Type, t);
    MPI_Group g;
    MT_CALL(MPI_Comm_group(dup1, &g));
    RT(Group, g);
    MPI_Info info;
    MT_CALL(MPI_Info_create(&info));
    RT(Info, info);
    MPI_Request req;
    int x = 0;
    MT_CALL(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req));
    int ri = MPI_Request_toint(req);
    MPI_Request back = MPI_Request_fromint(ri);
    MT_CHECK(back == req, "request round trip");
    MT_CALL(MPI_Wait(&back, MPI_STATUS_IGNORE));

    /* many handles: the table grows and stays consistent */
    MPI_Datatype many[300];
    int ints[300];
    for (int i = 0; i < 300; i++) {
        MT_CALL(MPI_Type_contiguous(i + 1, MPI_CHAR, &many[i]));
        ints[i] = MPI_Type_toint(many[i]);
    }
    for (int i = 0; i < 300; i++) {
        MT_CHECK(MPI_Type_fromint(ints[i]) == many[i], "type %d", i);
        MT_CALL(MPI_Type_free(&many[i]));
    }

    MT_CALL(MPI_Info_free(&info));
    MT_CALL(MPI_Group_free(&g));
    MT_CALL(MPI_Type_free(&t));
    MT_CALL(MPI_Comm_free(&dup1));
    MT_CALL(MPI_Comm_free(&dup2));
    return mt_finalize();
}
