/* Probe, Iprobe, Mprobe, Improbe, Mrecv, Imrecv (ranks 0 and 1; others idle):
 * sizes from status before the receive, probing a later message first,
 * Iprobe of nothing, matched probes removing messages from matching,
 * MPI_MESSAGE_NO_PROC for MPI_PROC_NULL, small and large messages. */
#include "mtest.h"

#define BIG 300000 /* ints: 1.2 MB, beyond any eager limit */

static void check_ints(const int *b, int n, int base, const char *what)
{
    for (int i = 0; i < n; i++)
        if (b[i] != base + i) {
            MT_CHECK(b[i] == base + i, "%s: element %d is %d, expected %d", what, i, b[i],
                     base + i);
            return;
        }
}

static void fill_ints(int *b, int n, int base)
{
    for (int i = 0; i < n; i++)
        b[i] = base + i;
}

static void probe_part(void)
{
    int *big = mt_malloc(BIG * sizeof(int));
    int small[10];
    MPI_Status st;
    int cnt, flag;

    if (mt_rank == 1) {
        fill_ints(small, 10, 1000);
        fill_ints(big, BIG, 2000);
        MPI_Request r[2];
        MT_CALL(MPI_Isend(small, 10, MPI_INT, 0, 1, MPI_COMM_WORLD, &r[0]));
        MT_CALL(MPI_Isend(big, BIG, MPI_INT, 0, 2, MPI_COMM_WORLD, &r[1]));
        MT_CALL(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    } else if (mt_rank == 0) {
        /* Nothing with tag 99 will ever come. */
        flag = 1;
        MT_CALL(MPI_Iprobe(1, 99, MPI_COMM_WORLD, &flag, &st));
        MT_CHECK(flag == 0, "Iprobe found a message that was never sent");

        /* Probe the second (large) message first. */
        mt_poison_status(&st);
        MT_CALL(MPI_Probe(1, 2, MPI_COMM_WORLD, &st));
        MPI_Get_count(&st, MPI_INT, &cnt);
        MT_CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 2 && cnt == BIG,
                 "Probe: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, cnt);
        /* Probing again sees the same message. */
        MT_CALL(MPI_Probe(MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st));
        MPI_Get_count(&st, MPI_INT, &cnt);
        MT_CHECK(cnt == BIG && st.MPI_SOURCE == 1, "second Probe: count %d", cnt);
        memset(big, 0, BIG * sizeof(int));
        MT_CALL(MPI_Recv(big, cnt, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st));
        check_ints(big, BIG, 2000, "probed large message");

        /* Iprobe until the small one is seen (it has arrived already, as it
         * was sent first, but Iprobe may need a few calls to make progress). */
        flag = 0;
        for (int k = 0; !flag && k < 1000000; k++)
            MT_CALL(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        MT_CHECK(flag, "Iprobe never found the small message");
        MPI_Get_count(&st, MPI_INT, &cnt);
        MT_CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 1 && cnt == 10,
                 "Iprobe: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, cnt);
        MT_CALL(MPI_Recv(small, 10, MPI_INT, 1, 1, MPI_COMM_WORLD, &st));
        check_ints(small, 10, 1000, "iprobed small message");

        /* Iprobe with STATUS_IGNORE and nothing pending. */
        flag = 1;
        MT_CALL(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        MT_CHECK(!flag, "Iprobe found a message after all were received");
    }
    free(big);
}

static void mprobe_part(void)
{
    int *big = mt_malloc(BIG * sizeof(int));
    int a[1000], b[7];
    MPI_Status st;
    int cnt, flag;

    if (mt_rank == 1) {
        fill_ints(a, 1000, 3000);
        fill_ints(b, 7, 4000);
        fill_ints(big, BIG, 5000);
        MT_CALL(MPI_Send(a, 1000, MPI_INT, 0, 5, MPI_COMM_WORLD));
        MT_CALL(MPI_Send(b, 7, MPI_INT, 0, 5, MPI_COMM_WORLD));
        MT_CALL(MPI_Send(big, BIG, MPI_INT, 0, 6, MPI_COMM_WORLD));
        MT_CALL(MPI_Send(b, 3, MPI_INT, 0, 7, MPI_COMM_WORLD));
    } else if (mt_rank == 0) {
        MPI_Message m1 = MPI_MESSAGE_NULL, m2 = MPI_MESSAGE_NULL;
        MT_CALL(MPI_Mprobe(1, 5, MPI_COMM_WORLD, &m1, &st));
        MPI_Get_count(&st, MPI_INT, &cnt);
        MT_CHECK(m1 != MPI_MESSAGE_NULL && cnt == 1000 && st.MPI_TAG == 5 && st.MPI_SOURCE == 1,
                 "Mprobe 1: count %d tag %d", cnt, st.MPI_TAG);
        /* m1 is no longer matchable: the next probe with the same envelope
         * sees the second message. */
        MT_CALL(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m2, &st));
        MPI_Get_count(&st, MPI_INT, &cnt);
        MT_CHECK(cnt == 7 && st.MPI_TAG == 5, "Mprobe 2: count %d tag %d (want 7, 5)", cnt,
                 st.MPI_TAG);
        /* Receive them in the other order. */
        int rb[1000];
        memset(rb, 0, sizeof rb);
        MT_CALL(MPI_Mrecv(rb, 7, MPI_INT, &m2, &st));
        MT_CHECK(m2 == MPI_MESSAGE_NULL, "Mrecv did not set MPI_MESSAGE_NULL");
        MPI_Get_count(&st, MPI_INT, &cnt);
        MT_CHECK(cnt == 7 && st.MPI_SOURCE == 1 && st.MPI_TAG == 5, "Mrecv 2: %d %d %d", cnt,
                 st.MPI_SOURCE, st.MPI_TAG);
        check_ints(rb, 7, 4000, "Mrecv second message");
        MT_CALL(MPI_Mrecv(rb, 1000, MPI_INT, &m1, &st));
        MPI_Get_count(&st, MPI_INT, &cnt);
        MT_CHECK(cnt == 1000 && st.MPI_TAG == 5, "Mrecv 1: count %d", cnt);
        check_ints(rb, 1000, 3000, "Mrecv first message");

        /* Improbe / Imrecv of the large message. */
        MPI_Message m3 = MPI_MESSAGE_NULL;
        flag = 0;
        for (int k = 0; !flag && k < 10000000; k++)
            MT_CALL(MPI_Improbe(1, 6, MPI_COMM_WORLD, &flag, &m3, &st));
        MT_CHECK(flag && m3 != MPI_MESSAGE_NULL, "Improbe never matched");
        MPI_Get_count(&st, MPI_INT, &cnt);
        MT_CHECK(cnt == BIG, "Improbe count %d", cnt);
        /* An unrelated message cannot be matched by Improbe with the same
         * tag anymore. */
        MPI_Message mx = MPI_MESSAGE_NULL;
        int fx = 1;
        MT_CALL(MPI_Improbe(1, 6, MPI_COMM_WORLD, &fx, &mx, MPI_STATUS_IGNORE));
        MT_CHECK(!fx, "Improbe matched the same message twice");
        memset(big, 0, BIG * sizeof(int));
        MPI_Request r;
        MT_CALL(MPI_Imrecv(big, BIG, MPI_INT, &m3, &r));
        MT_CHECK(m3 == MPI_MESSAGE_NULL, "Imrecv did not set MPI_MESSAGE_NULL");
        MT_CALL(MPI_Wait(&r, &st));
        MPI_Get_count(&st, MPI_INT, &cnt);
        MT_CHECK(cnt == BIG && st.MPI_SOURCE == 1 && st.MPI_TAG == 6, "Imrecv: %d %d %d", cnt,
                 st.MPI_SOURCE, st.MPI_TAG);
        check_ints(big, BIG, 5000, "Imrecv of large message");

        /* Blocking Mprobe + Imrecv of the last one. */
        MPI_Message m4;
        MT_CALL(MPI_Mprobe(1, 7, MPI_COMM_WORLD, &m4, MPI_STATUS_IGNORE));
        MT_CALL(MPI_Imrecv(rb, 3, MPI_INT, &m4, &r));
        MT_CALL(MPI_Wait(&r, &st));
        check_ints(rb, 3, 4000, "Mprobe + Imrecv");
    }
    free(big);
}

static void procnull_part(void)
{
    MPI_Message m = MPI_MESSAGE_NULL;
    MPI_Status st;
    int flag = 0, buf[2] = { 8, 9 };

    mt_poison_status(&st);
    MT_CALL(MPI_Probe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st));
    MT_CHECK_PROCNULL_STATUS(st, "Probe(PROC_NULL)");
    mt_poison_status(&st);
    MT_CALL(MPI_Iprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &st));
    MT_CHECK(flag, "Iprobe(PROC_NULL) flag false");
    MT_CHECK_PROCNULL_STATUS(st, "Iprobe(PROC_NULL)");

    mt_poison_status(&st);
    MT_CALL(MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &m, &st));
    MT_CHECK(m == MPI_MESSAGE_NO_PROC, "Mprobe(PROC_NULL) did not give MPI_MESSAGE_NO_PROC");
    MT_CHECK_PROCNULL_STATUS(st, "Mprobe(PROC_NULL)");
    mt_poison_status(&st);
    MT_CALL(MPI_Mrecv(buf, 2, MPI_INT, &m, &st));
    MT_CHECK(m == MPI_MESSAGE_NULL, "Mrecv(NO_PROC) did not set MPI_MESSAGE_NULL");
    MT_CHECK_PROCNULL_STATUS(st, "Mrecv(MESSAGE_NO_PROC)");
    MT_CHECK(buf[0] == 8 && buf[1] == 9, "Mrecv(NO_PROC) wrote the buffer");

    flag = 0;
    m = MPI_MESSAGE_NULL;
    MT_CALL(MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m, &st));
    MT_CHECK(flag && m == MPI_MESSAGE_NO_PROC, "Improbe(PROC_NULL): flag %d", flag);
    MPI_Request r;
    MT_CALL(MPI_Imrecv(buf, 2, MPI_INT, &m, &r));
    mt_poison_status(&st);
    MT_CALL(MPI_Wait(&r, &st));
    MT_CHECK_PROCNULL_STATUS(st, "Imrecv(MESSAGE_NO_PROC)");
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    if (mt_size < 2)
        MT_DIE("needs at least 2 ranks");
    probe_part();
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    mprobe_part();
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    procnull_part();
    return mt_finalize();
}
