/* Send modes: Bsend/Ibsend with Buffer_attach/detach, Ssend/Issend (with a
 * check that a synchronous send cannot complete before the matching receive
 * is posted), Rsend/Irsend (receive posted first), standard Isend.
 * Each for sizes 0, 4 B, 64 KiB and 1 MiB.  Ranks 0 and 1 take part; others
 * only join the collectives. */
#include "mtest.h"

static const int sizes[] = { 0, 4, 65536, 1 << 20 };
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define MAXSZ (1 << 20)

static unsigned char *sbuf, *rbuf;
static int peer;

static void recv_check(int n, int src, int tag, unsigned seed, const char *what)
{
    MPI_Status st;
    int cnt = -1;
    memset(rbuf, 0, (size_t)n + 16);
    MT_CALL(MPI_Recv(rbuf, MAXSZ, MPI_BYTE, src, tag, MPI_COMM_WORLD, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    MT_CHECK(cnt == n && st.MPI_SOURCE == src && st.MPI_TAG == tag,
             "%s size %d: count %d source %d tag %d", what, n, cnt, st.MPI_SOURCE, st.MPI_TAG);
    MT_CHECK_PATTERN(rbuf, (size_t)n, seed, what);
}

/* Buffered sends complete locally: the sender does all of them before the
 * receiver has posted anything (the barrier orders it). */
static void buffered(void)
{
    int total = 0;
    for (int i = 0; i < NSIZES; i++)
        total += sizes[i] + MPI_BSEND_OVERHEAD;
    total *= 2; /* Bsend and Ibsend of every size */
    void *bbuf = mt_malloc((size_t)total);
    if (mt_rank == 0) {
        MT_CALL(MPI_Buffer_attach(bbuf, total));
        MPI_Request reqs[NSIZES];
        for (int i = 0; i < NSIZES; i++) {
            mt_fill(sbuf, (size_t)sizes[i], 100 + i);
            MT_CALL(MPI_Bsend(sbuf, sizes[i], MPI_BYTE, peer, 100 + i, MPI_COMM_WORLD));
            /* The buffer may be reused as soon as Bsend returns. */
            memset(sbuf, 0xee, (size_t)sizes[i]);
        }
        /* Ibsend: completes without the receiver (Wait returns before barrier). */
        unsigned char *ib = mt_malloc(MAXSZ);
        for (int i = 0; i < NSIZES; i++) {
            mt_fill(ib, (size_t)sizes[i], 200 + i);
            MT_CALL(MPI_Ibsend(ib, sizes[i], MPI_BYTE, peer, 200 + i, MPI_COMM_WORLD, &reqs[i]));
            MT_CALL(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE));
            memset(ib, 0xdd, (size_t)sizes[i]);
        }
        free(ib);
        MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
        /* Detach blocks until the buffered messages are delivered. */
        void *addr = NULL;
        int sz = -1;
        MT_CALL(MPI_Buffer_detach(&addr, &sz));
        MT_CHECK(addr == bbuf && sz == total, "Buffer_detach gave %p/%d, attached %p/%d", addr,
                 sz, bbuf, total);
    } else if (mt_rank == 1) {
        MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
        for (int i = NSIZES - 1; i >= 0; i--) /* any order: tags differ */
            recv_check(sizes[i], 0, 100 + i, 100 + i, "Bsend");
        for (int i = 0; i < NSIZES; i++)
            recv_check(sizes[i], 0, 200 + i, 200 + i, "Ibsend");
    } else {
        MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    }
    free(bbuf);

    /* Attach / detach again, a second time with another buffer, then a Bsend
     * that reuses the space of the first messages (the buffer is circular or
     * compacting in any implementation that frees delivered messages). */
    if (mt_rank == 0) {
        int n = 1000;
        int bsz = n + MPI_BSEND_OVERHEAD;
        void *b2 = mt_malloc((size_t)bsz);
        MT_CALL(MPI_Buffer_attach(b2, bsz));
        for (int k = 0; k < 20; k++) {
            mt_fill(sbuf, (size_t)n, 300 + k);
            MT_CALL(MPI_Bsend(sbuf, n, MPI_BYTE, peer, 300, MPI_COMM_WORLD));
            /* the receiver acknowledges, so the space is free again */
            MT_CALL(MPI_Recv(NULL, 0, MPI_BYTE, peer, 301, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        void *addr;
        int sz;
        MT_CALL(MPI_Buffer_detach(&addr, &sz));
        MT_CHECK(addr == b2 && sz == bsz, "second detach gave %p/%d", addr, sz);
        free(b2);
    } else if (mt_rank == 1) {
        for (int k = 0; k < 20; k++) {
            recv_check(1000, 0, 300, 300 + k, "repeated Bsend");
            MT_CALL(MPI_Send(NULL, 0, MPI_BYTE, 0, 301, MPI_COMM_WORLD));
        }
    }
}

/* Synchronous: rank 0 starts an Issend and tests it while rank 1 has not
 * posted the receive; rank 1 posts it only after a "go" message, so the
 * Issend must stay incomplete until then. */
static void synchronous(void)
{
    for (int i = 0; i < NSIZES; i++) {
        int n = sizes[i];
        if (mt_rank == 0) {
            MPI_Request req;
            int flag = 0;
            mt_fill(sbuf, (size_t)n, 400 + i);
            MT_CALL(MPI_Issend(sbuf, n, MPI_BYTE, peer, 400, MPI_COMM_WORLD, &req));
            for (int k = 0; k < 20 && !flag; k++) {
                MT_CALL(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
                mt_sleep_ms(2);
            }
            MT_CHECK(!flag, "Issend of %d bytes completed before the receive was posted", n);
            MT_CALL(MPI_Send(NULL, 0, MPI_BYTE, peer, 401, MPI_COMM_WORLD)); /* go */
            if (!flag)
                MT_CALL(MPI_Wait(&req, MPI_STATUS_IGNORE));
            /* Blocking Ssend: only correctness (it cannot be observed while blocked). */
            mt_fill(sbuf, (size_t)n, 450 + i);
            MT_CALL(MPI_Ssend(sbuf, n, MPI_BYTE, peer, 450, MPI_COMM_WORLD));
        } else if (mt_rank == 1) {
            MT_CALL(MPI_Recv(NULL, 0, MPI_BYTE, 0, 401, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            recv_check(n, 0, 400, 400 + i, "Issend");
            recv_check(n, 0, 450, 450 + i, "Ssend");
        }
    }
    /* Ssend to a receive that is already posted (Irecv first). */
    if (mt_rank == 1) {
        MPI_Request r;
        MT_CALL(MPI_Irecv(rbuf, MAXSZ, MPI_BYTE, 0, 460, MPI_COMM_WORLD, &r));
        MT_CALL(MPI_Send(NULL, 0, MPI_BYTE, 0, 461, MPI_COMM_WORLD));
        MPI_Status st;
        MT_CALL(MPI_Wait(&r, &st));
        int cnt;
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        MT_CHECK(cnt == 5000, "Ssend to posted receive: count %d", cnt);
        MT_CHECK_PATTERN(rbuf, 5000, 460, "Ssend to posted receive");
    } else if (mt_rank == 0) {
        MT_CALL(MPI_Recv(NULL, 0, MPI_BYTE, 1, 461, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        mt_fill(sbuf, 5000, 460);
        MT_CALL(MPI_Ssend(sbuf, 5000, MPI_BYTE, 1, 460, MPI_COMM_WORLD));
    }
}

/* Ready mode: the receive is posted before the sender starts (ordered by a
 * zero-byte message from the receiver). */
static void ready(void)
{
    for (int i = 0; i < NSIZES; i++) {
        int n = sizes[i];
        if (mt_rank == 1) {
            MPI_Request r[2];
            MPI_Status st[2];
            unsigned char *rb2 = mt_malloc(MAXSZ);
            MT_CALL(MPI_Irecv(rbuf, MAXSZ, MPI_BYTE, 0, 500, MPI_COMM_WORLD, &r[0]));
            MT_CALL(MPI_Irecv(rb2, MAXSZ, MPI_BYTE, 0, 501, MPI_COMM_WORLD, &r[1]));
            MT_CALL(MPI_Send(NULL, 0, MPI_BYTE, 0, 502, MPI_COMM_WORLD));
            MT_CALL(MPI_Waitall(2, r, st));
            int c0, c1;
            MPI_Get_count(&st[0], MPI_BYTE, &c0);
            MPI_Get_count(&st[1], MPI_BYTE, &c1);
            MT_CHECK(c0 == n && c1 == n, "ready-mode counts %d %d, want %d", c0, c1, n);
            MT_CHECK_PATTERN(rbuf, (size_t)n, 500 + i, "Rsend");
            MT_CHECK_PATTERN(rb2, (size_t)n, 550 + i, "Irsend");
            free(rb2);
        } else if (mt_rank == 0) {
            unsigned char *sb2 = mt_malloc(MAXSZ);
            mt_fill(sbuf, (size_t)n, 500 + i);
            mt_fill(sb2, (size_t)n, 550 + i);
            MT_CALL(MPI_Recv(NULL, 0, MPI_BYTE, 1, 502, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_Request r;
            MT_CALL(MPI_Irsend(sb2, n, MPI_BYTE, peer, 501, MPI_COMM_WORLD, &r));
            MT_CALL(MPI_Rsend(sbuf, n, MPI_BYTE, peer, 500, MPI_COMM_WORLD));
            MT_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
            free(sb2);
        }
    }
}

/* Standard nonblocking both ways at once, all sizes outstanding together. */
static void standard(void)
{
    if (mt_rank > 1)
        return;
    MPI_Request reqs[2 * NSIZES];
    unsigned char *sb[NSIZES], *rb[NSIZES];
    for (int i = 0; i < NSIZES; i++) {
        sb[i] = mt_malloc((size_t)sizes[i]);
        rb[i] = mt_malloc((size_t)sizes[i]);
        mt_fill(sb[i], (size_t)sizes[i], 600 + 10 * mt_rank + i);
        MT_CALL(MPI_Irecv(rb[i], sizes[i], MPI_BYTE, peer, 600 + i, MPI_COMM_WORLD, &reqs[i]));
    }
    for (int i = 0; i < NSIZES; i++)
        MT_CALL(MPI_Isend(sb[i], sizes[i], MPI_BYTE, peer, 600 + i, MPI_COMM_WORLD,
                          &reqs[NSIZES + i]));
    MPI_Status st[2 * NSIZES];
    MT_CALL(MPI_Waitall(2 * NSIZES, reqs, st));
    for (int i = 0; i < NSIZES; i++) {
        int cnt;
        MPI_Get_count(&st[i], MPI_BYTE, &cnt);
        MT_CHECK(cnt == sizes[i] && st[i].MPI_SOURCE == peer && st[i].MPI_TAG == 600 + i,
                 "Isend/Irecv %d: count %d source %d tag %d", sizes[i], cnt, st[i].MPI_SOURCE,
                 st[i].MPI_TAG);
        MT_CHECK_PATTERN(rb[i], (size_t)sizes[i], 600 + 10 * peer + i, "Isend/Irecv");
        free(sb[i]);
        free(rb[i]);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    if (mt_size < 2)
        MT_DIE("needs at least 2 ranks");
    peer = mt_rank == 0 ? 1 : 0;
    sbuf = mt_malloc(MAXSZ + 16);
    rbuf = mt_malloc(MAXSZ + 16);
    buffered();
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    synchronous();
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    ready();
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    standard();
    free(sbuf);
    free(rbuf);
    return mt_finalize();
}
