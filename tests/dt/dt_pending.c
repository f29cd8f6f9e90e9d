/* Datatypes and pending requests (2 processes): a derived type freed while
 * a nonblocking or persistent receive still uses it keeps working until the
 * request is done, and a message that ends inside an element of a derived
 * receive type delivers the basic elements that arrived.
 *
 * Needs the p2p layer to hold a reference on the request's datatype
 * (tn_dt_retain / tn_dt_release) and to unpack with tn_dt_unpack_partial;
 * registered DISABLED until it does. */
#include "dttest.h"

int main(int argc, char **argv)
{
    MPI_Datatype v;
    MPI_Request req;
    double a[8], g[8];

    dt_init(&argc, &argv);
    int peer = 1 - dt_rank;
    for (int i = 0; i < 8; i++) {
        a[i] = i + 1;
    }

    /* Irecv, then free the type, then the message arrives */
    if (dt_rank == 1) {
        CALL(MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &v));
        CALL(MPI_Type_commit(&v));
        for (int i = 0; i < 8; i++) {
            g[i] = -1;
        }
        CALL(MPI_Irecv(g, 1, v, peer, 1, MPI_COMM_WORLD, &req));
        CALL(MPI_Type_free(&v));
        CALL(MPI_Send(NULL, 0, MPI_BYTE, peer, 2, MPI_COMM_WORLD));     /* now send */
        CALL(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK(g[0] == 1 && g[1] == -1 && g[2] == 2 && g[6] == 4, "freed type, pending recv");
    } else {
        CALL(MPI_Recv(NULL, 0, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CALL(MPI_Send(a, 4, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD));
    }

    /* a persistent receive outlives its type's handle over two starts */
    if (dt_rank == 1) {
        CALL(MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &v));
        CALL(MPI_Type_commit(&v));
        CALL(MPI_Recv_init(g, 1, v, peer, 3, MPI_COMM_WORLD, &req));
        CALL(MPI_Type_free(&v));
        for (int k = 0; k < 2; k++) {
            g[0] = g[3] = -1;
            CALL(MPI_Start(&req));
            CALL(MPI_Wait(&req, MPI_STATUS_IGNORE));
            CHECK(g[0] == 10 * k + 1 && g[3] == 10 * k + 2, "persistent start %d", k);
        }
        CALL(MPI_Request_free(&req));
    } else {
        for (int k = 0; k < 2; k++) {
            double two[2] = { 10 * k + 1, 10 * k + 2 };
            CALL(MPI_Send(two, 2, MPI_DOUBLE, peer, 3, MPI_COMM_WORLD));
        }
    }

    /* 12 bytes into {int; double; double}: the int and one double arrive */
    {
        struct { int i; double d[2]; } s = { -1, { -1, -1 } };
        MPI_Datatype st;
        int bl[2] = { 1, 2 };
        MPI_Aint d[2] = { offsetof(__typeof__(s), i), offsetof(__typeof__(s), d) };
        MPI_Datatype ty[2] = { MPI_INT, MPI_DOUBLE };
        char bytes[12];
        int one = 7;
        double x = 2.5;
        memcpy(bytes, &one, 4);
        memcpy(bytes + 4, &x, 8);
        CALL(MPI_Type_create_struct(2, bl, d, ty, &st));
        CALL(MPI_Type_commit(&st));
        if (dt_rank == 0) {
            CALL(MPI_Send(bytes, 12, MPI_BYTE, peer, 4, MPI_COMM_WORLD));
        } else {
            CALL(MPI_Recv(&s, 1, st, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(s.i == 7 && s.d[0] == 2.5 && s.d[1] == -1, "partial element: %d %g %g", s.i,
                  s.d[0], s.d[1]);
        }
        CALL(MPI_Type_free(&st));
    }
    return dt_finish();
}
