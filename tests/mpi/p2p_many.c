/* Many outstanding requests: every rank posts 1000 Irecvs from its left
 * neighbour and 1000 Isends to its right neighbour (ring), half with distinct
 * tags and half with one shared tag (which must match in order), sizes from
 * 0 B to 64 KiB, then completes them with a mix of Testsome, Waitany and
 * Waitall.  Repeated with the sends posted before the receives. */
#include "mtest.h"

#define N 1000

static int msg_size(int i)
{
    static const int sz[] = { 0, 4, 64, 1000, 8192, 20000, 65536, 17 };
    return sz[i % 8];
}

static int msg_tag(int i)
{
    return i < N / 2 ? i : N; /* second half all share tag N */
}

static void round_trip(int sends_first, unsigned round)
{
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    unsigned char **sb = mt_malloc(N * sizeof *sb), **rb = mt_malloc(N * sizeof *rb);
    MPI_Request *rq = mt_malloc(2 * N * sizeof *rq);
    MPI_Status *st = mt_malloc(2 * N * sizeof *st);
    for (int i = 0; i < N; i++) {
        sb[i] = mt_malloc((size_t)msg_size(i));
        rb[i] = mt_malloc((size_t)msg_size(i));
        mt_fill(sb[i], (size_t)msg_size(i), round * 100000u + (unsigned)(mt_rank * N + i));
        memset(rb[i], 0, (size_t)msg_size(i));
    }
    for (int pass = 0; pass < 2; pass++) {
        if ((pass == 0) != (sends_first != 0)) {
            for (int i = 0; i < N; i++)
                MT_CALL(MPI_Irecv(rb[i], msg_size(i), MPI_BYTE, left, msg_tag(i), MPI_COMM_WORLD,
                                  &rq[i]));
        } else {
            /* odd order for distinct tags; in order for the shared tag */
            for (int k = 0; k < N; k++) {
                int i = k < N / 2 ? (N / 2 - 1 - k) : k;
                MT_CALL(MPI_Isend(sb[i], msg_size(i), MPI_BYTE, right, msg_tag(i), MPI_COMM_WORLD,
                                  &rq[N + i]));
            }
        }
    }
    /* Complete: a few Testsome calls, then 100 Waitany, then Waitall. */
    int done = 0;
    for (int k = 0; k < 20; k++) {
        int outcount = 0, idx[2 * N];
        MPI_Status sts[2 * N];
        MT_CALL(MPI_Testsome(2 * N, rq, &outcount, idx, sts));
        if (outcount == MPI_UNDEFINED)
            break;
        for (int j = 0; j < outcount; j++)
            st[idx[j]] = sts[j];
        done += outcount;
    }
    for (int k = 0; k < 100 && done < 2 * N; k++) {
        int idx;
        MPI_Status s1;
        MT_CALL(MPI_Waitany(2 * N, rq, &idx, &s1));
        if (idx == MPI_UNDEFINED)
            break;
        st[idx] = s1;
        done++;
    }
    MPI_Status *rest = mt_malloc(2 * N * sizeof *rest);
    for (int i = 0; i < 2 * N; i++)
        rest[i].MPI_TAG = -999;
    MT_CALL(MPI_Waitall(2 * N, rq, rest));
    for (int i = 0; i < 2 * N; i++)
        if (rest[i].MPI_TAG != -999 && rest[i].MPI_TAG != MPI_ANY_TAG)
            st[i] = rest[i]; /* completed now (null entries give empty statuses) */
    free(rest);

    for (int i = 0; i < N; i++) {
        int cnt = -1;
        MPI_Get_count(&st[i], MPI_BYTE, &cnt);
        MT_CHECK(cnt == msg_size(i) && st[i].MPI_TAG == msg_tag(i) && st[i].MPI_SOURCE == left,
                 "receive %d: count %d tag %d source %d, expected %d %d %d", i, cnt,
                 st[i].MPI_TAG, st[i].MPI_SOURCE, msg_size(i), msg_tag(i), left);
        char what[48];
        snprintf(what, sizeof what, "message %d", i);
        MT_CHECK_PATTERN(rb[i], (size_t)msg_size(i), round * 100000u + (unsigned)(left * N + i),
                         what);
    }
    for (int i = 0; i < N; i++) {
        free(sb[i]);
        free(rb[i]);
    }
    free(sb);
    free(rb);
    free(rq);
    free(st);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    round_trip(0, 1);
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    round_trip(1, 2);
    return mt_finalize();
}
