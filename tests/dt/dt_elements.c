/* MPI_Get_elements on derived types, with partial elements (2 processes).
 *
 * Needs MPI_Get_elements to count through tn_dt_count_elements (see the
 * datatype layer's hand-over note); registered DISABLED until it does. */
#include "dttest.h"

int main(int argc, char **argv)
{
    MPI_Datatype st, vec;
    MPI_Status s;
    int n, bl[2] = { 1, 2 };
    MPI_Aint d[2] = { 0, 8 };
    MPI_Datatype ty[2] = { MPI_INT, MPI_DOUBLE };
    char buf[256] = { 0 };

    dt_init(&argc, &argv);
    int peer = 1 - dt_rank;
    CALL(MPI_Type_create_struct(2, bl, d, ty, &st));      /* {int; double[2]}: 20 bytes */
    CALL(MPI_Type_commit(&st));
    CALL(MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &vec));
    CALL(MPI_Type_commit(&vec));
    /* bytes sent -> basic elements of st received */
    static const int bytes[] = { 0, 4, 12, 20, 32, 6 };
    static const int want[] = { 0, 1, 2, 3, 5, MPI_UNDEFINED };
    for (int k = 0; k < 6; k++) {
        if (dt_rank == 0) {
            CALL(MPI_Send(buf, bytes[k], MPI_BYTE, peer, k, MPI_COMM_WORLD));
        } else {
            CALL(MPI_Recv(buf, 3, st, peer, k, MPI_COMM_WORLD, &s));
            CALL(MPI_Get_elements(&s, st, &n));
            CHECK(n == want[k], "%d bytes: %d elements, want %d", bytes[k], n, want[k]);
        }
    }
    /* a vector of 3 doubles: 2 whole vectors and 2 doubles = 8 elements */
    if (dt_rank == 0) {
        CALL(MPI_Send(buf, 64, MPI_BYTE, peer, 9, MPI_COMM_WORLD));
    } else {
        double dv[16];
        MPI_Count nc;
        CALL(MPI_Recv(dv, 3, vec, peer, 9, MPI_COMM_WORLD, &s));
        CALL(MPI_Get_elements_c(&s, vec, &nc));
        CHECK(nc == 8, "vector: %lld elements", (long long)nc);
        CALL(MPI_Get_count(&s, vec, &n));
        CHECK(n == MPI_UNDEFINED, "vector: count %d", n);
    }
    CALL(MPI_Type_free(&st));
    CALL(MPI_Type_free(&vec));
    return dt_finish();
}
