/* Large-count datatype functions (2 processes): the _c constructors used
 * in messages, MPI_Type_size_c / get_extent_c / get_true_extent_c, and a
 * type larger than INT_MAX bytes (described, not sent): the int queries
 * answer MPI_UNDEFINED, the _c ones the value. */
#include "dttest.h"

int main(int argc, char **argv)
{
    MPI_Datatype v, big;
    MPI_Count size, lb, ext;
    int isize;

    dt_init(&argc, &argv);
    int peer = 1 - dt_rank;

    /* vector_c of ints: 4 blocks of 2 at stride 3 */
    CALL(MPI_Type_vector_c(4, 2, 3, MPI_INT, &v));
    CALL(MPI_Type_commit(&v));
    CALL(MPI_Type_size_c(v, &size));
    CALL(MPI_Type_get_extent_c(v, &lb, &ext));
    CHECK(size == 32 && lb == 0 && ext == 44, "vector_c size %lld extent %lld",
          (long long)size, (long long)ext);
    CALL(MPI_Type_get_true_extent_c(v, &lb, &ext));
    CHECK(lb == 0 && ext == 44, "true extent %lld", (long long)ext);
    {
        int a[12], g[8];
        for (int i = 0; i < 12; i++) {
            a[i] = i + 100 * dt_rank;
        }
        CALL(MPI_Sendrecv_c(a, 1, v, peer, 1, g, 8, MPI_INT, peer, 1, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
        static const int idx[8] = { 0, 1, 3, 4, 6, 7, 9, 10 };
        int bad = 0;
        for (int i = 0; i < 8; i++) {
            bad += g[i] != idx[i] + 100 * peer;
        }
        CHECK(bad == 0, "vector_c message: %d wrong", bad);
    }
    CALL(MPI_Type_free(&v));

    /* hindexed_c / struct_c / resized_c / contiguous_c */
    {
        MPI_Count bl[2] = { 1, 2 }, d[2] = { 16, 0 };
        MPI_Datatype h, s, r, c;
        MPI_Datatype ty[2] = { MPI_DOUBLE, MPI_INT };
        double dv[3] = { 1.5, 2.5, 3.5 };
        CALL(MPI_Type_create_hindexed_c(2, bl, d, MPI_DOUBLE, &h));    /* dv[2], dv[0..1] */
        CALL(MPI_Type_create_struct_c(2, bl, d, ty, &s));              /* double@16, 2 int@0 */
        CALL(MPI_Type_create_resized_c(h, 0, 32, &r));
        CALL(MPI_Type_contiguous_c(2, r, &c));
        CALL(MPI_Type_commit(&c));
        CALL(MPI_Type_size_c(c, &size));
        CHECK(size == 48, "contiguous_c of resized_c of hindexed_c: size %lld", (long long)size);
        CALL(MPI_Type_size_c(s, &size));
        CALL(MPI_Type_get_extent_c(s, &lb, &ext));
        CHECK(size == 16 && lb == 0 && ext == 24, "struct_c size %lld extent %lld",
              (long long)size, (long long)ext);
        double buf[8] = { 1.5, 2.5, 3.5, 0, 11.5, 12.5, 13.5, 0 }, out[6];
        CALL(MPI_Sendrecv(buf, 1, c, peer, 2, out, 6, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE));
        CHECK(out[0] == 3.5 && out[1] == 1.5 && out[2] == 2.5 && out[3] == 13.5 &&
              out[5] == 12.5, "hindexed_c message");
        (void)dv;
        CALL(MPI_Type_free(&h));
        CALL(MPI_Type_free(&s));
        CALL(MPI_Type_free(&r));
        CALL(MPI_Type_free(&c));
    }

    /* 3 GiB described: never sent */
    CALL(MPI_Type_vector_c(3, (MPI_Count)1 << 30, (MPI_Count)1 << 31, MPI_BYTE, &big));
    CALL(MPI_Type_size(big, &isize));
    CHECK(isize == MPI_UNDEFINED, "int size of a 3 GiB type: %d", isize);
    CALL(MPI_Type_size_c(big, &size));
    CHECK(size == (MPI_Count)3 << 30, "size_c %lld", (long long)size);
    CALL(MPI_Type_get_extent_c(big, &lb, &ext));
    CHECK(ext == ((MPI_Count)2 << 31) + ((MPI_Count)1 << 30), "extent_c %lld", (long long)ext);
    CALL(MPI_Type_free(&big));
    return dt_finish();
}
