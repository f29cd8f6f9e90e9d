/* Partitioned point-to-point (MPI_Psend_init / MPI_Precv_init / MPI_Pready*
 * / MPI_Parrived): every rank sends to rank+1 and receives from rank-1 (a
 * ring; to itself with one rank), for send and receive partition counts that
 * differ, over several epochs (Start ... Wait repeated), with partitions
 * marked ready in a random order by Pready, Pready_range and Pready_list.
 * Whenever Parrived says a partition is in, its data must be there.  Also:
 * partitions held back stay "not arrived"; init-order matching; derived
 * datatypes on either side; large messages; empty messages and zero
 * partitions; MPI_PROC_NULL; a duplicated communicator and COMM_SELF; an
 * intercommunicator; user messages with the same tag alongside; statuses; the Wait/Test family and
 * Request_get_status on partitioned requests; truncation and a shorter
 * message. */
#include "mtest.h"

#define N 96          /* ints per message in the sweeps: divisible by every count */
#define TAG 7

static const int counts[] = { 1, 2, 3, 4, 8, 96 };
#define NCOUNTS 6

static int next_rank, prev_rank;
static unsigned rng_state = 1;

static unsigned rnd(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 8) & 0xffffff;
}

static void shuffle(int *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(rnd() % (unsigned)(i + 1));
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

static int value(int src, int epoch, int idx)
{
    return src * 100003 + epoch * 7919 + idx;
}

/* Mark every partition of sreq ready, in an order and with a call that
 * depend on mode: 0 Pready one by one, 1 Pready_range on chunks, 2
 * Pready_list of a shuffled list. */
static void ready_all(MPI_Request sreq, int parts, int mode)
{
    int order[N];
    for (int i = 0; i < parts; i++)
        order[i] = i;
    if (mode == 0) {
        shuffle(order, parts);
        for (int i = 0; i < parts; i++)
            MT_CALL(MPI_Pready(order[i], sreq));
    } else if (mode == 1) {
        /* chunks of up to 3 partitions, readied in a shuffled chunk order */
        int nchunks = (parts + 2) / 3, chunk[N];
        for (int c = 0; c < nchunks; c++)
            chunk[c] = c;
        shuffle(chunk, nchunks);
        for (int c = 0; c < nchunks; c++) {
            int lo = chunk[c] * 3, hi = lo + 2 < parts - 1 ? lo + 2 : parts - 1;
            MT_CALL(MPI_Pready_range(lo, hi, sreq));
        }
    } else {
        shuffle(order, parts);
        int half = parts / 2;
        MT_CALL(MPI_Pready_list(half, order, sreq));
        MT_CALL(MPI_Pready_list(parts - half, order + half, sreq));
    }
}

/* Check receive partition i of rbuf (rcount ints each) against the sender's values. */
static int partition_ok(const int *rbuf, int i, int rcount, int src, int epoch)
{
    for (int k = i * rcount; k < (i + 1) * rcount; k++)
        if (rbuf[k] != value(src, epoch, k))
            return 0;
    return 1;
}

/* Wait until every receive partition has arrived, polling them in a random
 * order and checking each one's data as soon as Parrived says it is in. */
static void drain(MPI_Request rreq, const int *rbuf, int rp, int rcount, int src, int epoch,
                  const char *what)
{
    int done[N] = { 0 }, left = rp, order[N];
    for (int i = 0; i < rp; i++)
        order[i] = i;
    shuffle(order, rp);
    double t0 = mt_mono_now();
    while (left > 0) {
        for (int k = 0; k < rp; k++) {
            int i = order[k], flag = 0;
            if (done[i])
                continue;
            MT_CALL(MPI_Parrived(rreq, i, &flag));
            if (flag) {
                done[i] = 1;
                left--;
                MT_CHECK(partition_ok(rbuf, i, rcount, src, epoch),
                         "%s: epoch %d: partition %d arrived with wrong data", what, epoch, i);
            }
        }
        if (mt_mono_now() - t0 > 30) {
            mt_fail(__FILE__, __LINE__, "%s: epoch %d: %d partitions never arrived", what,
                    epoch, left);
            return;
        }
    }
}

/* The sweep: ring exchange of N ints as sp send partitions and rp receive
 * partitions, 4 epochs. */
static void sweep(MPI_Comm comm, int sp, int rp)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int dest = (rank + 1) % size, src = (rank + size - 1) % size;
    int sbuf[N], rbuf[N];
    MPI_Request sreq, rreq;
    char what[64];
    snprintf(what, sizeof what, "sweep sp=%d rp=%d", sp, rp);
    MT_CALL(MPI_Psend_init(sbuf, sp, N / sp, MPI_INT, dest, TAG, comm, MPI_INFO_NULL, &sreq));
    MT_CALL(MPI_Precv_init(rbuf, rp, N / rp, MPI_INT, src, TAG, comm, MPI_INFO_NULL, &rreq));
    for (int epoch = 0; epoch < 4; epoch++) {
        for (int k = 0; k < N; k++) {
            sbuf[k] = value(rank, epoch, k);
            rbuf[k] = -1;
        }
        /* alternate which side starts first */
        if (epoch % 2) {
            MT_CALL(MPI_Start(&rreq));
            MT_CALL(MPI_Start(&sreq));
        } else {
            MPI_Request both[2] = { sreq, rreq };
            MT_CALL(MPI_Startall(2, both));
        }
        ready_all(sreq, sp, (epoch + sp + rp) % 3);
        drain(rreq, rbuf, rp, N / rp, src, epoch, what);
        MPI_Status st[2];
        MPI_Request reqs[2] = { sreq, rreq };
        MT_CALL(MPI_Waitall(2, reqs, st));
        MT_CHECK(reqs[0] == sreq && reqs[1] == rreq, "%s: Waitall freed a partitioned request",
                 what);
        int cnt = -1;
        MPI_Get_count(&st[1], MPI_INT, &cnt);
        MT_CHECK(st[1].MPI_SOURCE == src && st[1].MPI_TAG == TAG && cnt == N,
                 "%s: epoch %d: receive status source %d tag %d count %d", what, epoch,
                 st[1].MPI_SOURCE, st[1].MPI_TAG, cnt);
        for (int k = 0; k < N; k++)
            if (rbuf[k] != value(src, epoch, k)) {
                mt_fail(__FILE__, __LINE__, "%s: epoch %d: rbuf[%d] = %d, expected %d", what,
                        epoch, k, rbuf[k], value(src, epoch, k));
                break;
            }
        /* inactive again: Parrived says true */
        int flag = 0;
        MT_CALL(MPI_Parrived(rreq, rp - 1, &flag));
        MT_CHECK(flag, "%s: Parrived on an inactive request gave false", what);
    }
    MT_CALL(MPI_Request_free(&sreq));
    MT_CALL(MPI_Request_free(&rreq));
    MT_CHECK(sreq == MPI_REQUEST_NULL && rreq == MPI_REQUEST_NULL,
             "Request_free did not set MPI_REQUEST_NULL");
}

/* Partitions that were not marked ready never report arrived: the sender
 * readies the even ones, the receiver sees them and not the odd ones, then
 * the odd ones follow (barriers order the two steps). */
static void held_back(int sp, int rp)
{
    int sbuf[N], rbuf[N];
    MPI_Request sreq, rreq;
    for (int k = 0; k < N; k++) {
        sbuf[k] = value(mt_rank, 9, k);
        rbuf[k] = -1;
    }
    MT_CALL(MPI_Psend_init(sbuf, sp, N / sp, MPI_INT, next_rank, TAG + 1, MPI_COMM_WORLD,
                           MPI_INFO_NULL, &sreq));
    MT_CALL(MPI_Precv_init(rbuf, rp, N / rp, MPI_INT, prev_rank, TAG + 1, MPI_COMM_WORLD,
                           MPI_INFO_NULL, &rreq));
    MT_CALL(MPI_Start(&rreq));
    int flag = 1;
    for (int i = 0; i < rp; i++) {
        MT_CALL(MPI_Parrived(rreq, i, &flag));
        MT_CHECK(!flag, "held_back: partition %d arrived before the send started", i);
    }
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    MT_CALL(MPI_Start(&sreq));
    for (int i = 0; i < sp; i += 2)
        MT_CALL(MPI_Pready(i, sreq));
    /* with sp == rp the receiver's partition i is the sender's i */
    for (int i = 0; i < rp; i += 2) {
        double t0 = mt_mono_now();
        do {
            MT_CALL(MPI_Parrived(rreq, i, &flag));
        } while (!flag && mt_mono_now() - t0 < 30);
        MT_CHECK(flag && partition_ok(rbuf, i, N / rp, prev_rank, 9),
                 "held_back: even partition %d: arrived %d", i, flag);
    }
    int sflag = 1;
    MT_CALL(MPI_Test(&sreq, &sflag, MPI_STATUS_IGNORE));
    MT_CHECK(!sflag || sp == 1, "held_back: send complete with odd partitions not ready");
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 1; i < rp; i += 2) {
        MT_CALL(MPI_Parrived(rreq, i, &flag));
        MT_CHECK(!flag, "held_back: odd partition %d arrived before it was ready", i);
    }
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 1; i < sp; i += 2)
        MT_CALL(MPI_Pready(i, sreq));
    if (!sflag)
        MT_CALL(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    MT_CALL(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
    for (int i = 0; i < rp; i++)
        MT_CHECK(partition_ok(rbuf, i, N / rp, prev_rank, 9), "held_back: partition %d", i);
    MT_CALL(MPI_Request_free(&sreq));
    MT_CALL(MPI_Request_free(&rreq));
}

/* Requests pair up in the order of their init calls, whatever the start
 * order: A (first init) goes to X (first init), B to Y. */
static void init_order(void)
{
    int a[8], b[8], x[8], y[8];
    MPI_Request ra, rb, rx, ry;
    for (int k = 0; k < 8; k++) {
        a[k] = value(mt_rank, 1, k);
        b[k] = value(mt_rank, 2, k);
        x[k] = y[k] = -1;
    }
    MT_CALL(MPI_Psend_init(a, 2, 4, MPI_INT, next_rank, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &ra));
    MT_CALL(MPI_Precv_init(x, 4, 2, MPI_INT, prev_rank, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &rx));
    MT_CALL(MPI_Psend_init(b, 4, 2, MPI_INT, next_rank, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &rb));
    MT_CALL(MPI_Precv_init(y, 1, 8, MPI_INT, prev_rank, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &ry));
    for (int round = 0; round < 2; round++) {
        MT_CALL(MPI_Start(&ry));
        MT_CALL(MPI_Start(&rb));
        MT_CALL(MPI_Pready_range(0, 3, rb));
        MT_CALL(MPI_Start(&ra));
        MT_CALL(MPI_Start(&rx));
        MT_CALL(MPI_Pready_list(2, (int[]){ 1, 0 }, ra));
        /* Waitany and Testall over the four */
        MPI_Request all[4] = { ra, rb, rx, ry };
        for (int n = 0; n < 2; n++) {
            int idx = -1;
            MT_CALL(MPI_Waitany(4, all, &idx, MPI_STATUS_IGNORE));
            MT_CHECK(idx >= 0 && idx < 4, "init_order: Waitany index %d", idx);
        }
        int flag = 0;
        double t0 = mt_mono_now();
        while (!flag && mt_mono_now() - t0 < 30)
            MT_CALL(MPI_Testall(4, all, &flag, MPI_STATUSES_IGNORE));
        MT_CHECK(flag, "init_order: Testall never completed");
        for (int k = 0; k < 8; k++) {
            MT_CHECK(x[k] == value(prev_rank, 1, k), "init_order: x[%d] = %d", k, x[k]);
            MT_CHECK(y[k] == value(prev_rank, 2, k), "init_order: y[%d] = %d", k, y[k]);
        }
    }
    MPI_Request_free(&ra);
    MPI_Request_free(&rb);
    MPI_Request_free(&rx);
    MPI_Request_free(&ry);
}

/* Derived datatypes: every other int on one side, contiguous on the other. */
static void derived(int strided_send)
{
    MPI_Datatype every2;
    MT_CALL(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &every2));
    MT_CALL(MPI_Type_commit(&every2));
    int sbuf[2 * N], rbuf[2 * N];
    for (int k = 0; k < 2 * N; k++) {
        sbuf[k] = strided_send ? (k % 2 ? -7 : value(mt_rank, 5, k / 2)) : value(mt_rank, 5, k);
        rbuf[k] = -1;
    }
    int sp = strided_send ? 6 : 4, rp = strided_send ? 4 : 3;
    MPI_Request sreq, rreq;
    MT_CALL(MPI_Psend_init(sbuf, sp, N / sp, strided_send ? every2 : MPI_INT, next_rank, 4,
                           MPI_COMM_WORLD, MPI_INFO_NULL, &sreq));
    MT_CALL(MPI_Precv_init(rbuf, rp, N / rp, strided_send ? MPI_INT : every2, prev_rank, 4,
                           MPI_COMM_WORLD, MPI_INFO_NULL, &rreq));
    MT_CALL(MPI_Type_free(&every2));       /* the requests keep it */
    for (int epoch = 0; epoch < 2; epoch++) {
        MT_CALL(MPI_Start(&rreq));
        MT_CALL(MPI_Start(&sreq));
        ready_all(sreq, sp, epoch);
        /* check each partition as it arrives, in the receiver's layout */
        int done[N] = { 0 }, left = rp, rc = N / rp;
        double t0 = mt_mono_now();
        while (left > 0 && mt_mono_now() - t0 < 30) {
            for (int i = 0; i < rp; i++) {
                int flag = 0;
                if (done[i])
                    continue;
                MT_CALL(MPI_Parrived(rreq, i, &flag));
                if (!flag)
                    continue;
                done[i] = 1;
                left--;
                for (int e = i * rc; e < (i + 1) * rc; e++) {
                    int got = strided_send ? rbuf[e] : rbuf[2 * e];
                    if (got != value(prev_rank, 5, e)) {
                        mt_fail(__FILE__, __LINE__, "derived(%d): element %d = %d",
                                strided_send, e, got);
                        break;
                    }
                }
            }
        }
        MT_CHECK(left == 0, "derived(%d): %d partitions never arrived", strided_send, left);
        MPI_Status st;
        MT_CALL(MPI_Wait(&rreq, &st));
        MT_CALL(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        int cnt = -1;
        MPI_Get_count(&st, MPI_INT, &cnt);
        MT_CHECK(cnt == N, "derived(%d): count %d", strided_send, cnt);
        if (!strided_send)
            for (int k = 1; k < 2 * N; k += 2)
                MT_CHECK(rbuf[k] == -1, "derived: hole %d written (%d)", k, rbuf[k]);
    }
    MPI_Request_free(&sreq);
    MPI_Request_free(&rreq);
}

/* A large message, in runs of many transport pieces. */
static void large(int sp, int rp)
{
    const int n = 1 << 18;          /* ints: 1 MiB */
    int *sbuf = mt_malloc(n * sizeof(int)), *rbuf = mt_malloc(n * sizeof(int));
    MPI_Request sreq, rreq;
    MT_CALL(MPI_Psend_init(sbuf, sp, n / sp, MPI_INT, next_rank, 5, MPI_COMM_WORLD,
                           MPI_INFO_NULL, &sreq));
    MT_CALL(MPI_Precv_init(rbuf, rp, n / rp, MPI_INT, prev_rank, 5, MPI_COMM_WORLD,
                           MPI_INFO_NULL, &rreq));
    for (int epoch = 0; epoch < 2; epoch++) {
        for (int k = 0; k < n; k++) {
            sbuf[k] = value(mt_rank, epoch, k);
            rbuf[k] = -1;
        }
        MPI_Request both[2] = { rreq, sreq };
        MT_CALL(MPI_Startall(2, both));
        ready_all(sreq, sp, epoch);
        MT_CALL(MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
        int bad = -1;
        for (int k = 0; k < n && bad < 0; k++)
            if (rbuf[k] != value(prev_rank, epoch, k))
                bad = k;
        MT_CHECK(bad < 0, "large sp=%d rp=%d: first wrong int at %d", sp, rp, bad);
    }
    MPI_Request_free(&sreq);
    MPI_Request_free(&rreq);
    free(sbuf);
    free(rbuf);
}

/* Empty messages: no partitions at all, and partitions of no elements
 * (these still arrive one by one when both sides have as many). */
static void empty(void)
{
    MPI_Request sreq, rreq;
    MPI_Status st;
    int dummy = 0, flag;
    /* zero partitions */
    MT_CALL(MPI_Psend_init(&dummy, 0, 5, MPI_INT, next_rank, 6, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &sreq));
    MT_CALL(MPI_Precv_init(&dummy, 0, 5, MPI_INT, prev_rank, 6, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &rreq));
    for (int epoch = 0; epoch < 2; epoch++) {
        MT_CALL(MPI_Start(&sreq));
        MT_CALL(MPI_Start(&rreq));
        MT_CALL(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        MT_CALL(MPI_Wait(&rreq, &st));
        int cnt = -1;
        MPI_Get_count(&st, MPI_INT, &cnt);
        MT_CHECK(cnt == 0 && st.MPI_SOURCE == prev_rank && st.MPI_TAG == 6,
                 "zero partitions: count %d source %d tag %d", cnt, st.MPI_SOURCE, st.MPI_TAG);
    }
    MPI_Request_free(&sreq);
    MPI_Request_free(&rreq);

    /* 3 empty partitions to oneself on COMM_SELF: each arrives on its own */
    MT_CALL(MPI_Psend_init(NULL, 3, 0, MPI_INT, 0, 6, MPI_COMM_SELF, MPI_INFO_NULL, &sreq));
    MT_CALL(MPI_Precv_init(NULL, 3, 0, MPI_INT, 0, 6, MPI_COMM_SELF, MPI_INFO_NULL, &rreq));
    for (int epoch = 0; epoch < 2; epoch++) {
        MT_CALL(MPI_Start(&rreq));
        MT_CALL(MPI_Start(&sreq));
        for (int i = 0; i < 3; i++) {
            int p = (i + epoch) % 3;
            MT_CALL(MPI_Pready(p, sreq));
            double t0 = mt_mono_now();
            do {
                MT_CALL(MPI_Parrived(rreq, p, &flag));
            } while (!flag && mt_mono_now() - t0 < 30);
            MT_CHECK(flag, "empty partitions: %d never arrived", p);
            if (i < 2) {
                MT_CALL(MPI_Parrived(rreq, (p + 1) % 3, &flag));
                MT_CHECK(!flag, "empty partitions: %d arrived before it was ready",
                         (p + 1) % 3);
            }
        }
        MT_CALL(MPI_Wait(&rreq, &st));
        MT_CALL(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    }
    MPI_Request_free(&sreq);
    MPI_Request_free(&rreq);

    /* 3 empty send partitions into 2 empty receive partitions */
    MT_CALL(MPI_Psend_init(NULL, 3, 0, MPI_INT, 0, 6, MPI_COMM_SELF, MPI_INFO_NULL, &sreq));
    MT_CALL(MPI_Precv_init(NULL, 2, 0, MPI_INT, 0, 6, MPI_COMM_SELF, MPI_INFO_NULL, &rreq));
    MT_CALL(MPI_Start(&rreq));
    MT_CALL(MPI_Start(&sreq));
    MT_CALL(MPI_Pready_range(0, 2, sreq));
    MT_CALL(MPI_Wait(&rreq, &st));
    MT_CALL(MPI_Parrived(rreq, 1, &flag));
    MT_CHECK(flag, "empty 3->2: Parrived false after completion");
    MT_CALL(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    MPI_Request_free(&sreq);
    MPI_Request_free(&rreq);
}

static void proc_null(void)
{
    int buf[4] = { 1, 2, 3, 4 };
    MPI_Request sreq, rreq;
    MPI_Status st;
    MT_CALL(MPI_Psend_init(buf, 2, 2, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &sreq));
    MT_CALL(MPI_Precv_init(buf, 2, 2, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &rreq));
    for (int epoch = 0; epoch < 2; epoch++) {
        MT_CALL(MPI_Start(&sreq));
        MT_CALL(MPI_Start(&rreq));
        int flag = 0;
        MT_CALL(MPI_Parrived(rreq, 1, &flag));
        MT_CHECK(flag, "PROC_NULL: Parrived false");
        MT_CALL(MPI_Pready_range(0, 1, sreq));
        mt_poison_status(&st);
        MT_CALL(MPI_Wait(&rreq, &st));
        MT_CHECK_PROCNULL_STATUS(st, "PROC_NULL partitioned receive");
        MT_CALL(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    }
    MT_CHECK(buf[0] == 1 && buf[3] == 4, "PROC_NULL receive wrote its buffer");
    MPI_Request_free(&sreq);
    MPI_Request_free(&rreq);
}

/* Completion calls: Request_get_status polls without completing, Test and
 * Waitsome mix partitioned and ordinary requests. */
static void completion(void)
{
    int sbuf[12], rbuf[12], pbuf = -1, pval = mt_rank + 100;
    for (int k = 0; k < 12; k++)
        sbuf[k] = value(mt_rank, 3, k);
    MPI_Request sreq, rreq, ir, is;
    MT_CALL(MPI_Psend_init(sbuf, 3, 4, MPI_INT, next_rank, 8, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &sreq));
    MT_CALL(MPI_Precv_init(rbuf, 2, 6, MPI_INT, prev_rank, 8, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &rreq));
    MT_CALL(MPI_Start(&rreq));
    MT_CALL(MPI_Start(&sreq));
    MT_CALL(MPI_Irecv(&pbuf, 1, MPI_INT, prev_rank, 8, MPI_COMM_WORLD, &ir));
    MT_CALL(MPI_Isend(&pval, 1, MPI_INT, next_rank, 8, MPI_COMM_WORLD, &is));
    int flag = 1;
    MT_CALL(MPI_Request_get_status(sreq, &flag, MPI_STATUS_IGNORE));
    MT_CHECK(!flag, "completion: send complete before any partition was ready");
    MT_CALL(MPI_Pready_list(3, (int[]){ 2, 0, 1 }, sreq));
    MPI_Status st;
    double t0 = mt_mono_now();
    flag = 0;
    while (!flag && mt_mono_now() - t0 < 30)
        MT_CALL(MPI_Request_get_status(rreq, &flag, &st));
    MT_CHECK(flag && st.MPI_SOURCE == prev_rank && st.MPI_TAG == 8,
             "completion: Request_get_status flag %d source %d", flag, st.MPI_SOURCE);
    MPI_Request all[4] = { sreq, rreq, ir, is };
    int left = 4;
    while (left > 0) {
        int outcount, idx[4];
        MT_CALL(MPI_Waitsome(4, all, &outcount, idx, MPI_STATUSES_IGNORE));
        if (outcount == MPI_UNDEFINED)
            break;
        left -= outcount;
    }
    MT_CHECK(all[0] == sreq && all[1] == rreq && all[2] == MPI_REQUEST_NULL,
             "completion: Waitsome freed the wrong requests");
    MT_CHECK(pbuf == prev_rank + 100, "completion: ordinary message %d", pbuf);
    for (int k = 0; k < 12; k++)
        MT_CHECK(rbuf[k] == value(prev_rank, 3, k), "completion: rbuf[%d] = %d", k, rbuf[k]);
    MPI_Request_free(&sreq);
    MPI_Request_free(&rreq);
}

/* A larger message than the receive holds: MPI_ERR_TRUNCATE, and the
 * buffer gets what fits; a shorter one: its count. */
static void sizes(void)
{
    int sbuf[20], rbuf[20];
    for (int k = 0; k < 20; k++)
        sbuf[k] = value(mt_rank, 4, k);
    MPI_Request sreq, rreq;
    MPI_Status st;
    MT_CALL(MPI_Psend_init(sbuf, 2, 10, MPI_INT, 0, 9, MPI_COMM_SELF, MPI_INFO_NULL, &sreq));
    MT_CALL(MPI_Precv_init(rbuf, 2, 8, MPI_INT, 0, 9, MPI_COMM_SELF, MPI_INFO_NULL, &rreq));
    for (int k = 0; k < 20; k++)
        rbuf[k] = -1;
    MT_CALL(MPI_Start(&rreq));
    MT_CALL(MPI_Start(&sreq));
    MT_CALL(MPI_Pready_range(0, 1, sreq));
    MT_EXPECT_CLASS(MPI_Wait(&rreq, &st), MPI_ERR_TRUNCATE);
    MT_CALL(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    for (int k = 0; k < 20; k++)
        MT_CHECK(rbuf[k] == (k < 16 ? value(mt_rank, 4, k) : -1), "truncate: rbuf[%d] = %d",
                 k, rbuf[k]);
    MPI_Request_free(&sreq);
    MPI_Request_free(&rreq);

    MT_CALL(MPI_Psend_init(sbuf, 1, 6, MPI_INT, 0, 9, MPI_COMM_SELF, MPI_INFO_NULL, &sreq));
    MT_CALL(MPI_Precv_init(rbuf, 2, 4, MPI_INT, 0, 9, MPI_COMM_SELF, MPI_INFO_NULL, &rreq));
    MT_CALL(MPI_Start(&rreq));
    MT_CALL(MPI_Start(&sreq));
    MT_CALL(MPI_Pready(0, sreq));
    MT_CALL(MPI_Wait(&rreq, &st));
    int cnt = -1, flag = 0;
    MPI_Get_count(&st, MPI_INT, &cnt);
    MT_CHECK(cnt == 6, "shorter message: count %d", cnt);
    MT_CALL(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    MT_CALL(MPI_Parrived(rreq, 1, &flag));
    MT_CHECK(flag, "shorter message: Parrived false after completion");
    MPI_Request_free(&sreq);
    MPI_Request_free(&rreq);
}

/* The same exchange on an intercommunicator (two halves of the world). */
static void inter(void)
{
    if (mt_size < 2)
        return;
    int half = mt_size / 2, low = mt_rank < half;
    MPI_Comm local, ic;
    MT_CALL(MPI_Comm_split(MPI_COMM_WORLD, low, mt_rank, &local));
    MT_CALL(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? half : 0, 11, &ic));
    int lrank, rsize;
    MPI_Comm_rank(ic, &lrank);
    MPI_Comm_remote_size(ic, &rsize);
    int peer = lrank % rsize;
    int sbuf[N], rbuf[N];
    for (int k = 0; k < N; k++)
        sbuf[k] = value(mt_rank, 6, k);
    MPI_Request reqs[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    /* low rank l sends to high rank l % size(high); high ranks receive from
     * every low rank that maps to them, one at a time */
    if (low) {
        MT_CALL(MPI_Psend_init(sbuf, 4, N / 4, MPI_INT, peer, 2, ic, MPI_INFO_NULL, &reqs[0]));
        MT_CALL(MPI_Start(&reqs[0]));
        MT_CALL(MPI_Pready_range(0, 3, reqs[0]));
        MT_CALL(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
        MPI_Request_free(&reqs[0]);
    } else {
        for (int from = lrank; from < rsize; from += mt_size - half) {
            MPI_Status st;
            MT_CALL(MPI_Precv_init(rbuf, 3, N / 3, MPI_INT, from, 2, ic, MPI_INFO_NULL,
                                   &reqs[1]));
            MT_CALL(MPI_Start(&reqs[1]));
            MT_CALL(MPI_Wait(&reqs[1], &st));
            MT_CHECK(st.MPI_SOURCE == from, "inter: source %d, expected %d", st.MPI_SOURCE,
                     from);
            for (int k = 0; k < N; k++)
                if (rbuf[k] != value(from, 6, k)) {
                    mt_fail(__FILE__, __LINE__, "inter: from %d: rbuf[%d] = %d", from, k,
                            rbuf[k]);
                    break;
                }
            MPI_Request_free(&reqs[1]);
        }
    }
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    next_rank = (mt_rank + 1) % mt_size;
    prev_rank = (mt_rank + mt_size - 1) % mt_size;
    rng_state = 12345u + (unsigned)mt_rank * 977u;

    for (int s = 0; s < NCOUNTS; s++)
        for (int r = 0; r < NCOUNTS; r++)
            sweep(MPI_COMM_WORLD, counts[s], counts[r]);

    /* a duplicate (its own partitioned context), and COMM_SELF */
    MPI_Comm dup;
    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    sweep(dup, 4, 3);
    sweep(MPI_COMM_SELF, 3, 8);
    MT_CALL(MPI_Comm_free(&dup));

    held_back(4, 4);
    held_back(3, 3);
    init_order();
    derived(1);
    derived(0);
    large(4, 2);
    large(16, 64);
    empty();
    proc_null();
    completion();
    sizes();
    inter();
    return mt_finalize();
}
