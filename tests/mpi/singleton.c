/* Singleton start: the program is run directly, without a launcher.
 * MPI_COMM_WORLD has one rank; messages to self (small and 1 MiB, blocking
 * Sendrecv and Isend/Irecv), collectives of size 1, communicator
 * management and attributes all work. */
#include "mtest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MT_CHECK(mt_size == 1 && mt_rank == 0, "singleton world: size %d rank %d", mt_size, mt_rank);
    int cmp = -1;
    MT_CALL(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &cmp));
    MT_CHECK(cmp == MPI_CONGRUENT, "world vs self in a singleton: %d", cmp);

    enum { BIG = 1 << 20 };
    unsigned char *s = mt_malloc(BIG), *r = mt_malloc(BIG);
    int sizes[] = { 0, 1, 1000, 70000, BIG };
    for (int k = 0; k < 5; k++) {
        int n = sizes[k];
        MPI_Status st;
        int cnt;
        mt_fill(s, (size_t)n, (unsigned)k);
        memset(r, 0, (size_t)n);
        MT_CALL(MPI_Sendrecv(s, n, MPI_BYTE, 0, k, r, n, MPI_BYTE, 0, k, MPI_COMM_WORLD, &st));
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        MT_CHECK(cnt == n && st.MPI_SOURCE == 0 && st.MPI_TAG == k, "Sendrecv self %d: %d", n, cnt);
        MT_CHECK_PATTERN(r, (size_t)n, (unsigned)k, "Sendrecv to self");
        MPI_Request rq[2];
        memset(r, 0, (size_t)n);
        MT_CALL(MPI_Isend(s, n, MPI_BYTE, 0, 100 + k, MPI_COMM_WORLD, &rq[0]));
        MT_CALL(MPI_Irecv(r, n, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[1]));
        MPI_Status sts[2];
        MT_CALL(MPI_Waitall(2, rq, sts));
        MT_CHECK(sts[1].MPI_TAG == 100 + k && sts[1].MPI_SOURCE == 0, "Isend/Irecv self status");
        MT_CHECK_PATTERN(r, (size_t)n, (unsigned)k, "Isend/Irecv to self");
    }

    int v = 5, w = 0;
    MT_CALL(MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MT_CHECK(w == 5, "allreduce of one %d", w);
    MT_CALL(MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD));
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    int g[1] = { -1 };
    MT_CALL(MPI_Gather(&v, 1, MPI_INT, g, 1, MPI_INT, 0, MPI_COMM_WORLD));
    MT_CHECK(g[0] == 5, "gather of one %d", g[0]);

    MPI_Comm d, sp;
    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    MT_CALL(MPI_Comm_split(d, 3, 0, &sp));
    int sz = -1;
    MT_CALL(MPI_Comm_size(sp, &sz));
    MT_CHECK(sz == 1, "split size %d", sz);
    MT_CALL(MPI_Comm_free(&sp));
    MT_CALL(MPI_Comm_free(&d));

    int *ub, flag = 0;
    MT_CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
    MT_CHECK(flag && *ub >= 32767, "TAG_UB in a singleton");
    char name[MPI_MAX_PROCESSOR_NAME];
    int len;
    MT_CALL(MPI_Get_processor_name(name, &len));
    MT_CHECK(len > 0, "processor name");
    free(s);
    free(r);
    return mt_finalize();
}
