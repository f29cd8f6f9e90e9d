/* Message ordering (non-overtaking, MPI-4 3.5):
 *  1. many messages with the same source/tag/communicator, sizes mixed
 *     across the eager/rendezvous boundary (0 B .. 1 MiB interleaved), sent
 *     with a mix of Send/Isend/Ssend/Bsend, received in order with blocking
 *     receives and with pre-posted exact-size Irecvs;
 *  2. wildcard receives (ANY_SOURCE/ANY_TAG) see one sender's messages in
 *     send order, across tags;
 *  3. posted-receive order: of two posted receives that both match, the
 *     first posted gets the first message, also when the first is a
 *     wildcard and the second is specific (and vice versa);
 *  4. with more ranks: per-source order under ANY_SOURCE from all senders.
 * Rank 1 sends to rank 0 in parts 1-3. */
#include "mtest.h"

static const int pattern_sizes[] = { 0,     1,     8,     100,    1000,    8191,   8192,
                                     8193,  16383, 16384,  16385, 65536, 100000, 1 << 20,
                                     3,     32768, 262144, 12,    4096,  16400, 200000 };
#define NPAT ((int)(sizeof pattern_sizes / sizeof pattern_sizes[0]))
#define NMSG 126 /* 6 times through the pattern */
#define MAXSZ (1 << 20)

static int size_of(int i)
{
    /* interleave: walk the pattern with a stride coprime to its length */
    return pattern_sizes[(i * 5) % NPAT];
}

static void same_envelope(int prepost)
{
    if (mt_rank == 1) {
        unsigned char **bufs = mt_malloc(NMSG * sizeof *bufs);
        MPI_Request *reqs = mt_malloc(NMSG * sizeof *reqs);
        int nreq = 0;
        int bsize = 0;
        for (int i = 0; i < NMSG; i++)
            if (i % 4 == 3)
                bsize += size_of(i) + MPI_BSEND_OVERHEAD;
        void *bbuf = mt_malloc((size_t)bsize);
        MT_CALL(MPI_Buffer_attach(bbuf, bsize));
        for (int i = 0; i < NMSG; i++) {
            int n = size_of(i);
            bufs[i] = mt_malloc((size_t)n);
            mt_fill(bufs[i], (size_t)n, (unsigned)(i + 7 * prepost));
            switch (i % 4) {
            case 0:
                MT_CALL(MPI_Send(bufs[i], n, MPI_BYTE, 0, 5, MPI_COMM_WORLD));
                break;
            case 1:
            case 2:
                MT_CALL(MPI_Isend(bufs[i], n, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &reqs[nreq++]));
                break;
            default:
                MT_CALL(MPI_Bsend(bufs[i], n, MPI_BYTE, 0, 5, MPI_COMM_WORLD));
                break;
            }
        }
        MT_CALL(MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE));
        void *addr;
        int sz;
        MT_CALL(MPI_Buffer_detach(&addr, &sz));
        for (int i = 0; i < NMSG; i++)
            free(bufs[i]);
        free(bufs);
        free(reqs);
        free(bbuf);
    } else if (mt_rank == 0) {
        if (!prepost) {
            unsigned char *buf = mt_malloc(MAXSZ);
            for (int i = 0; i < NMSG; i++) {
                MPI_Status st;
                int cnt = -1, n = size_of(i);
                MT_CALL(MPI_Recv(buf, MAXSZ, MPI_BYTE, 1, 5, MPI_COMM_WORLD, &st));
                MPI_Get_count(&st, MPI_BYTE, &cnt);
                MT_CHECK(cnt == n, "message %d arrived with %d bytes, expected %d (overtaken?)", i,
                         cnt, n);
                if (cnt == n)
                    MT_CHECK_PATTERN(buf, (size_t)n, (unsigned)i, "in-order message");
            }
            free(buf);
        } else {
            /* Exact-size receives posted before the sender starts (it waits
             * for the barrier below): a misordered match truncates. */
            unsigned char **bufs = mt_malloc(NMSG * sizeof *bufs);
            MPI_Request *reqs = mt_malloc(NMSG * sizeof *reqs);
            MPI_Status *sts = mt_malloc(NMSG * sizeof *sts);
            for (int i = 0; i < NMSG; i++) {
                bufs[i] = mt_malloc((size_t)size_of(i));
                MT_CALL(MPI_Irecv(bufs[i], size_of(i), MPI_BYTE, 1, 5, MPI_COMM_WORLD, &reqs[i]));
            }
            MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
            MT_CALL(MPI_Waitall(NMSG, reqs, sts));
            for (int i = 0; i < NMSG; i++) {
                int cnt = -1;
                MPI_Get_count(&sts[i], MPI_BYTE, &cnt);
                MT_CHECK(cnt == size_of(i), "posted receive %d got %d bytes, expected %d", i, cnt,
                         size_of(i));
                MT_CHECK_PATTERN(bufs[i], (size_t)size_of(i), (unsigned)(i + 7),
                                 "pre-posted in-order message");
                free(bufs[i]);
            }
            free(bufs);
            free(reqs);
            free(sts);
            return;
        }
    }
}

/* The sender in same_envelope(1) must start after the barrier. */
static void same_envelope_prepost(void)
{
    if (mt_rank == 1) {
        MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
        same_envelope(1);
    } else if (mt_rank == 0) {
        same_envelope(1);
    } else {
        MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    }
}

static void wildcard_tags(void)
{
    enum { N = 40 };
    if (mt_rank == 1) {
        unsigned char *buf = mt_malloc(MAXSZ);
        for (int i = 0; i < N; i++) {
            int n = size_of(i);
            mt_fill(buf, (size_t)n, (unsigned)(500 + i));
            /* tags go down and up again; order must follow the sends */
            MT_CALL(MPI_Send(buf, n, MPI_BYTE, 0, (i * 7) % 13, MPI_COMM_WORLD));
        }
        free(buf);
    } else if (mt_rank == 0) {
        unsigned char *buf = mt_malloc(MAXSZ);
        for (int i = 0; i < N; i++) {
            MPI_Status st;
            int cnt = -1;
            MT_CALL(MPI_Recv(buf, MAXSZ, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                             &st));
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            MT_CHECK(st.MPI_TAG == (i * 7) % 13 && cnt == size_of(i) && st.MPI_SOURCE == 1,
                     "wildcard receive %d: tag %d count %d, expected tag %d count %d", i,
                     st.MPI_TAG, cnt, (i * 7) % 13, size_of(i));
            if (cnt == size_of(i))
                MT_CHECK_PATTERN(buf, (size_t)cnt, (unsigned)(500 + i), "wildcard message");
        }
        free(buf);
    }
}

/* Posted receives are matched in the order they were posted. */
static void posted_order(void)
{
    for (int variant = 0; variant < 4; variant++) {
        if (mt_rank == 0) {
            int a = -1, b = -1;
            MPI_Request r[2];
            int src1 = (variant & 1) ? MPI_ANY_SOURCE : 1;
            int src2 = (variant & 1) ? 1 : MPI_ANY_SOURCE;
            int tag1 = (variant & 2) ? MPI_ANY_TAG : 9;
            MT_CALL(MPI_Irecv(&a, 1, MPI_INT, src1, tag1, MPI_COMM_WORLD, &r[0]));
            MT_CALL(MPI_Irecv(&b, 1, MPI_INT, src2, 9, MPI_COMM_WORLD, &r[1]));
            MT_CALL(MPI_Send(NULL, 0, MPI_BYTE, 1, 8, MPI_COMM_WORLD)); /* go */
            MT_CALL(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
            MT_CHECK(a == 100 + variant && b == 200 + variant,
                     "posted-order variant %d: first receive got %d, second %d", variant, a, b);
        } else if (mt_rank == 1) {
            MT_CALL(MPI_Recv(NULL, 0, MPI_BYTE, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            int x = 100 + variant;
            MT_CALL(MPI_Send(&x, 1, MPI_INT, 0, 9, MPI_COMM_WORLD));
            x = 200 + variant;
            MT_CALL(MPI_Send(&x, 1, MPI_INT, 0, 9, MPI_COMM_WORLD));
        }
    }
    /* Large (rendezvous) first message followed by a small one: the small
     * one must not overtake into the first posted receive. */
    if (mt_rank == 0) {
        int *big = mt_malloc(200000 * sizeof(int));
        int *small = mt_malloc(200000 * sizeof(int));
        MPI_Request r[2];
        MPI_Status st[2];
        MT_CALL(MPI_Irecv(big, 200000, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &r[0]));
        MT_CALL(MPI_Irecv(small, 200000, MPI_INT, 1, 3, MPI_COMM_WORLD, &r[1]));
        MT_CALL(MPI_Send(NULL, 0, MPI_BYTE, 1, 8, MPI_COMM_WORLD));
        MT_CALL(MPI_Waitall(2, r, st));
        int c0, c1;
        MPI_Get_count(&st[0], MPI_INT, &c0);
        MPI_Get_count(&st[1], MPI_INT, &c1);
        MT_CHECK(c0 == 200000 && c1 == 2 && big[199999] == 199999 && small[1] == -2,
                 "large-then-small: counts %d %d", c0, c1);
        free(big);
        free(small);
    } else if (mt_rank == 1) {
        int *big = mt_malloc(200000 * sizeof(int));
        for (int i = 0; i < 200000; i++)
            big[i] = i;
        int small[2] = { -1, -2 };
        MT_CALL(MPI_Recv(NULL, 0, MPI_BYTE, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_Request r;
        MT_CALL(MPI_Isend(big, 200000, MPI_INT, 0, 3, MPI_COMM_WORLD, &r));
        MT_CALL(MPI_Send(small, 2, MPI_INT, 0, 3, MPI_COMM_WORLD));
        MT_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
        free(big);
    }
}

/* All ranks > 0 send sequences to rank 0, which receives with ANY_SOURCE:
 * per source the sequence numbers must increase by one. */
static void many_sources(void)
{
    enum { N = 60 };
    if (mt_size < 3)
        return;
    if (mt_rank == 0) {
        int next[256] = { 0 };
        int total = N * (mt_size - 1);
        unsigned char *buf = mt_malloc(70000);
        for (int k = 0; k < total; k++) {
            MPI_Status st;
            MT_CALL(MPI_Recv(buf, 70000, MPI_BYTE, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &st));
            int src = st.MPI_SOURCE, seq, cnt;
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            memcpy(&seq, buf, sizeof seq);
            if (src > 0 && src < 256) {
                MT_CHECK(seq == next[src], "from %d: sequence %d, expected %d", src, seq,
                         next[src]);
                next[src] = seq + 1;
            }
            int want = (seq % 3 == 2) ? 65536 : 16;
            MT_CHECK(cnt == want, "from %d seq %d: %d bytes, expected %d", src, seq, cnt, want);
        }
        free(buf);
    } else {
        unsigned char *buf = mt_malloc(65536);
        memset(buf, mt_rank, 65536);
        for (int seq = 0; seq < N; seq++) {
            memcpy(buf, &seq, sizeof seq);
            int n = (seq % 3 == 2) ? 65536 : 16;
            MT_CALL(MPI_Send(buf, n, MPI_BYTE, 0, 4, MPI_COMM_WORLD));
        }
        free(buf);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    if (mt_size < 2)
        MT_DIE("needs at least 2 ranks");
    same_envelope(0);
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    same_envelope_prepost();
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    wildcard_tags();
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    posted_order();
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    many_sources();
    return mt_finalize();
}
