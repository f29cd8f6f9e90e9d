/* Misuse of datatypes reports the right error class (2 processes,
 * MPI_ERRORS_RETURN): an uncommitted type in communication, packing or a
 * reduction is MPI_ERR_TYPE; freeing a predefined type is MPI_ERR_TYPE; a
 * negative count MPI_ERR_COUNT; a negative block length, bad subarray or
 * darray arguments, an unknown datarep MPI_ERR_ARG; a pack buffer too
 * small MPI_ERR_TRUNCATE.  After all that the types still work. */
#include "dttest.h"

#define EXPECT(call, cls)                                                           \
    do {                                                                            \
        int c_ = dt_class(call);                                                    \
        CHECK(c_ == (cls), "%s: class %d, want %s (%d)", #call, c_, #cls, cls);     \
    } while (0)

int main(int argc, char **argv)
{
    MPI_Datatype t, u, nul = MPI_DATATYPE_NULL;
    int a[8] = { 0 }, bl[2] = { 1, -1 }, d[2] = { 0, 2 }, pos = 0, x;
    char buf[64];

    dt_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int peer = 1 - dt_rank;

    /* uncommitted */
    CALL(MPI_Type_contiguous(2, MPI_INT, &t));
    EXPECT(MPI_Send(a, 1, t, peer, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT(MPI_Recv(a, 1, t, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_TYPE);
    EXPECT(MPI_Pack(a, 1, t, buf, sizeof(buf), &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT(MPI_Pack_size(1, t, MPI_COMM_WORLD, &x), MPI_ERR_TYPE);
    EXPECT(MPI_Allreduce(a, a + 4, 1, t, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE);
    /* ... but queries and constructors take it */
    CALL(MPI_Type_size(t, &x));
    CHECK(x == 8, "size of an uncommitted type %d", x);
    CALL(MPI_Type_vector(2, 1, 2, t, &u));
    CALL(MPI_Type_free(&u));
    CALL(MPI_Type_commit(&t));
    CALL(MPI_Type_commit(&t));                 /* twice is fine */

    /* predefined types cannot be freed; nor can MPI_DATATYPE_NULL */
    {
        MPI_Datatype i = MPI_INT;
        EXPECT(MPI_Type_free(&i), MPI_ERR_TYPE);
        CHECK(i == MPI_INT, "the handle of a failed free is untouched");
        EXPECT(MPI_Type_free(&nul), MPI_ERR_TYPE);
    }

    /* counts, lengths, arguments */
    EXPECT(MPI_Type_contiguous(-1, MPI_INT, &u), MPI_ERR_COUNT);
    EXPECT(MPI_Type_vector(-2, 1, 1, MPI_INT, &u), MPI_ERR_COUNT);
    EXPECT(MPI_Type_vector(2, -1, 1, MPI_INT, &u), MPI_ERR_ARG);
    EXPECT(MPI_Type_indexed(2, bl, d, MPI_INT, &u), MPI_ERR_ARG);
    EXPECT(MPI_Type_indexed(2, NULL, d, MPI_INT, &u), MPI_ERR_ARG);
    EXPECT(MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &u), MPI_ERR_TYPE);
    EXPECT(MPI_Type_contiguous(2, MPI_INT, NULL), MPI_ERR_ARG);
    {
        MPI_Datatype ty[2] = { MPI_INT, MPI_DATATYPE_NULL };
        int b2[2] = { 1, 1 };
        MPI_Aint ad[2] = { 0, 8 };
        EXPECT(MPI_Type_create_struct(2, b2, ad, ty, &u), MPI_ERR_TYPE);
    }
    {
        int sz[2] = { 4, 4 }, sub[2] = { 2, 5 }, st[2] = { 0, 0 };
        EXPECT(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &u), MPI_ERR_ARG);
        sub[1] = 2;
        st[0] = 3;
        EXPECT(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &u), MPI_ERR_ARG);
        st[0] = 0;
        EXPECT(MPI_Type_create_subarray(2, sz, sub, st, 99, MPI_INT, &u), MPI_ERR_ARG);
    }
    {
        int g[1] = { 10 }, di[1] = { MPI_DISTRIBUTE_BLOCK }, da[1] = { 3 }, ps[1] = { 2 };
        EXPECT(MPI_Type_create_darray(2, 0, 1, g, di, da, ps, MPI_ORDER_C, MPI_INT, &u),
               MPI_ERR_ARG);                     /* 2 blocks of 3 < 10 */
        da[0] = MPI_DISTRIBUTE_DFLT_DARG;
        ps[0] = 3;
        EXPECT(MPI_Type_create_darray(2, 0, 1, g, di, da, ps, MPI_ORDER_C, MPI_INT, &u),
               MPI_ERR_ARG);                     /* grid of 3 for 2 processes */
    }

    /* negative counts in communication and packing */
    EXPECT(MPI_Send(a, -1, t, peer, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT(MPI_Pack(a, -1, t, buf, sizeof(buf), &pos, MPI_COMM_WORLD), MPI_ERR_COUNT);

    /* packing into too little room */
    pos = 60;
    EXPECT(MPI_Pack(a, 1, t, buf, sizeof(buf), &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    CHECK(pos == 60, "position moved by a failed pack");
    pos = 0;
    EXPECT(MPI_Unpack(buf, 4, &pos, a, 1, t, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    {
        MPI_Aint ap = 0;
        EXPECT(MPI_Pack_external("native", a, 1, t, buf, sizeof(buf), &ap), MPI_ERR_ARG);
        EXPECT(MPI_Pack_external("external32", a, 1, t, buf, 4, &ap), MPI_ERR_TRUNCATE);
    }

    /* predefined ops need a homogeneous type */
    {
        MPI_Datatype st;
        int b2[2] = { 1, 1 };
        MPI_Aint ad[2] = { 0, 8 };
        MPI_Datatype ty[2] = { MPI_INT, MPI_DOUBLE };
        double in[2] = { 0, 0 }, out[2] = { 0, 0 };
        CALL(MPI_Type_create_struct(2, b2, ad, ty, &st));
        CALL(MPI_Type_commit(&st));
        EXPECT(MPI_Allreduce(in, out, 1, st, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
        CALL(MPI_Type_free(&st));
    }

    /* everything still works */
    a[0] = 10 + dt_rank;
    a[1] = 20 + dt_rank;
    CALL(MPI_Sendrecv(a, 1, t, peer, 3, a + 2, 1, t, peer, 3, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE));
    CHECK(a[2] == 10 + peer && a[3] == 20 + peer, "exchange after errors");
    CALL(MPI_Type_free(&t));
    CHECK(t == MPI_DATATYPE_NULL, "freed handle");
    return dt_finish();
}
