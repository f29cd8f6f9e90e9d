/* The stats segment against known traffic (TERN_MONITOR=1, docs/monitor.md):
 * each rank reads its own segment through tern-monitor's decoder before and
 * after each phase and checks what the phase must have added.
 *   point-to-point: per peer exactly the messages and bytes sent, the
 *     totals by class, the size histogram and the calls counts;
 *   collectives: the data each one must move reached every rank it must
 *     (the matrix's sends plus what readers took from shared buffers), and
 *     not absurdly more;
 *   one-sided: at least the bytes put to each target, at most a header
 *     per operation more. */
#include <mpi.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mtest.h"
#include "mon_seg.h"

static int rank, size;
static char seg_path[600];

#define FAIL(...) do { mt_errs++; fprintf(stderr, "[rank %d] ", rank); \
                       fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } while (0)

/* Our own segment: the file of this job whose header names our pid. */
static int find_segment(void)
{
    const char *dir = getenv("TERN_MONITOR_DIR") ? getenv("TERN_MONITOR_DIR") : "/dev/shm";
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, TERN_STATS_PREFIX, strlen(TERN_STATS_PREFIX)) != 0) {
            continue;
        }
        snprintf(seg_path, sizeof(seg_path), "%s/%s", dir, e->d_name);
        size_t len;
        void *buf = tn_mon_seg_read(seg_path, (long)getuid(), &len);
        tern_stats_hdr_t h;
        int mine = 0;
        if (buf != NULL && len >= sizeof(h)) {
            memcpy(&h, buf, sizeof(h));
            mine = h.pid == (int32_t)getpid();
        }
        free(buf);
        if (mine) {
            closedir(d);
            return 0;
        }
    }
    if (d != NULL) {
        closedir(d);
    }
    return -1;
}

/* What the checks read of the segment. */
typedef struct {
    uint64_t msgs[3], bytes[3];       /* this rank's sends by class */
    uint64_t *peer_msgs, *peer_bytes; /* [peer * 3 + class] */
    uint64_t *took;                   /* bytes taken from each peer's buffer */
    uint64_t hist_total, calls_send;
} snap_t;

static void snap(snap_t *s)
{
    size_t len;
    char why[128];
    tn_mon_seg_t seg;
    void *buf = tn_mon_seg_read(seg_path, (long)getuid(), &len);
    if (buf == NULL || tn_mon_seg_decode(buf, len, &seg, why, sizeof(why)) != 0) {
        FAIL("segment %s does not decode: %s", seg_path, buf == NULL ? "unreadable" : why);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int im = tn_mon_seg_find(&seg, "mpi_msgs_sent"), ib = tn_mon_seg_find(&seg, "mpi_bytes_sent");
    int ih = tn_mon_seg_find(&seg, "mpi_size_hist"), ic = tn_mon_seg_find(&seg, "mpi_calls");
    int pm = tn_mon_seg_find(&seg, "peer_msgs"), pb = tn_mon_seg_find(&seg, "peer_bytes");
    int pt = tn_mon_seg_find(&seg, "peer_coll_took_bytes");
    if (im < 0 || ib < 0 || ih < 0 || ic < 0 || pm < 0 || pb < 0 || pt < 0 ||
        seg.hdr.peer_count < (uint32_t)size || seg.ctr[im].count != 9) {
        FAIL("segment lacks a counter the test reads");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(s->msgs, 0, sizeof(s->msgs));
    memset(s->bytes, 0, sizeof(s->bytes));
    for (int e = 0; e < 9; e++) {
        s->msgs[e / 3] += tn_mon_seg_value(&seg, im, -1, e);
        s->bytes[e / 3] += tn_mon_seg_value(&seg, ib, -1, e);
    }
    s->hist_total = 0;
    for (uint32_t e = 0; e < seg.ctr[ih].count; e++) {
        s->hist_total += tn_mon_seg_value(&seg, ih, -1, (int)e);
    }
    s->calls_send = 0;
    for (uint32_t e = 0; e < seg.ctr[ic].count; e++) {
        if (strcmp(seg.axis[seg.ctr[ic].axis].names[e], "MPI_Send") == 0) {
            s->calls_send = tn_mon_seg_value(&seg, ic, -1, (int)e);
        }
    }
    for (int p = 0; p < size; p++) {
        for (int c = 0; c < 3; c++) {
            s->peer_msgs[p * 3 + c] = tn_mon_seg_value(&seg, pm, p, c);
            s->peer_bytes[p * 3 + c] = tn_mon_seg_value(&seg, pb, p, c);
        }
        s->took[p] = tn_mon_seg_value(&seg, pt, p, 0);
    }
    tn_mon_seg_free(&seg);
    free(buf);
}

static void snap_fini(snap_t *s)
{
    free(s->peer_msgs);
    free(s->peer_bytes);
    free(s->took);
}

static void snap_init(snap_t *s)
{
    s->peer_msgs = calloc((size_t)size * 3, sizeof(uint64_t));
    s->peer_bytes = calloc((size_t)size * 3, sizeof(uint64_t));
    s->took = calloc((size_t)size, sizeof(uint64_t));
}

/* flow[i * size + j]: bytes of class c that went from i to j during the
 * phase between a and b (i's sends to j plus what j took from i). */
static void flow(const snap_t *a, const snap_t *b, int c, uint64_t *all)
{
    uint64_t *mine = calloc((size_t)size * 2, sizeof(uint64_t));
    for (int p = 0; p < size; p++) {
        mine[p] = b->peer_bytes[p * 3 + c] - a->peer_bytes[p * 3 + c];
        mine[size + p] = b->took[p] - a->took[p];
    }
    uint64_t *rows = malloc((size_t)size * size * 2 * sizeof(uint64_t));
    MPI_Allgather(mine, 2 * size, MPI_UINT64_T, rows, 2 * size, MPI_UINT64_T, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++) {
        for (int j = 0; j < size; j++) {
            /* i sent to j, or j took from i */
            all[i * size + j] = rows[(size_t)i * 2 * size + j] + rows[(size_t)j * 2 * size + size + i];
        }
    }
    free(rows);
    free(mine);
}

static uint64_t inflow(const uint64_t *all, int j)
{
    uint64_t v = 0;
    for (int i = 0; i < size; i++) {
        v += i != j ? all[i * size + j] : 0;
    }
    return v;
}

static void check_coll(const char *what, const snap_t *a, const snap_t *b, const uint64_t *need,
                       uint64_t block)
{
    uint64_t *all = malloc((size_t)size * size * sizeof(uint64_t));
    flow(a, b, 1, all);
    uint64_t total = 0, want = 0;
    for (int j = 0; j < size; j++) {
        uint64_t in = inflow(all, j);
        total += in;
        want += need[j];
        if (in < need[j]) {
            FAIL("%s: rank %d received %llu collective bytes, needs at least %llu", what, j,
                 (unsigned long long)in, (unsigned long long)need[j]);
        }
    }
    /* no algorithm moves more than a few times what it needs or a tree of
     * the block would (a reduce moves every rank's block for the root's
     * one), plus small words: this catches counts gone wild */
    uint64_t tree = block * (uint64_t)(size - 1);
    if (total > 8 * (want > tree ? want : tree) + 64 * (uint64_t)size * size) {
        FAIL("%s: %llu collective bytes moved for %llu needed", what, (unsigned long long)total,
             (unsigned long long)want);
    }
    free(all);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (find_segment() != 0) {
        FAIL("no stats segment of this process (TERN_MONITOR=1?)");
        return mt_finalize();
    }
    snap_t s0, s1;
    snap_init(&s0);
    snap_init(&s1);
    const int big = 200000;             /* rendezvous on every transport */
    char *buf = calloc(big * 2, 1);

    /* ---- point-to-point: to each peer p, p + 1 messages of 100 * (p + 1) + 3
     * bytes and one large one; ring order so that nothing waits */
    MPI_Barrier(MPI_COMM_WORLD);
    snap(&s0);
    int nsend = 0;
    uint64_t hist_sends = 0;
    for (int k = 1; k < size; k++) {
        int to = (rank + k) % size, from = (rank - k + size) % size;
        int mcount = to + 1, mlen = 100 * (to + 1) + 3;
        int rcount = rank + 1, rlen = 100 * (rank + 1) + 3;
        MPI_Request rq[64];
        int nr = 0;
        for (int m = 0; m < rcount; m++) {
            MPI_Irecv(buf + big, rlen, MPI_CHAR, from, m, MPI_COMM_WORLD, &rq[nr++]);
        }
        MPI_Irecv(buf + big, big, MPI_CHAR, from, 99, MPI_COMM_WORLD, &rq[nr++]);
        for (int m = 0; m < mcount; m++) {
            MPI_Send(buf, mlen, MPI_CHAR, to, m, MPI_COMM_WORLD);
            nsend++;
        }
        MPI_Send(buf, big, MPI_CHAR, to, 99, MPI_COMM_WORLD);
        nsend++;
        hist_sends += (uint64_t)mcount + 1;
        MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE);
    }
    snap(&s1);
    for (int p = 0; p < size; p++) {
        uint64_t m = s1.peer_msgs[p * 3] - s0.peer_msgs[p * 3];
        uint64_t b = s1.peer_bytes[p * 3] - s0.peer_bytes[p * 3];
        uint64_t wm = p == rank ? 0 : (uint64_t)(p + 1) + 1;
        uint64_t wb = p == rank ? 0 : (uint64_t)(p + 1) * (100 * (p + 1) + 3) + big;
        if (m != wm || b != wb) {
            FAIL("p2p to %d: %llu messages of %llu bytes, sent %llu of %llu", p,
                 (unsigned long long)m, (unsigned long long)b, (unsigned long long)wm,
                 (unsigned long long)wb);
        }
    }
    uint64_t sum_m = 0, sum_b = 0;
    for (int p = 0; p < size; p++) {
        sum_m += (uint64_t)(p != rank) * ((uint64_t)(p + 1) + 1);
        sum_b += (uint64_t)(p != rank) * ((uint64_t)(p + 1) * (100 * (p + 1) + 3) + big);
    }
    if (s1.msgs[0] - s0.msgs[0] != sum_m || s1.bytes[0] - s0.bytes[0] != sum_b) {
        FAIL("p2p totals: %llu messages, %llu bytes; sent %llu, %llu",
             (unsigned long long)(s1.msgs[0] - s0.msgs[0]),
             (unsigned long long)(s1.bytes[0] - s0.bytes[0]), (unsigned long long)sum_m,
             (unsigned long long)sum_b);
    }
    if (s1.hist_total - s0.hist_total != hist_sends || s1.calls_send - s0.calls_send != (uint64_t)nsend) {
        FAIL("histogram counted %llu of %llu sends, calls %llu of %d",
             (unsigned long long)(s1.hist_total - s0.hist_total), (unsigned long long)hist_sends,
             (unsigned long long)(s1.calls_send - s0.calls_send), nsend);
    }
    if (s1.msgs[1] != s0.msgs[1] || s1.msgs[2] != s0.msgs[2]) {
        FAIL("point-to-point traffic counted as collective or one-sided");
    }

    /* ---- collectives: each moves data every rank (or the root) must get */
    uint64_t *need = calloc((size_t)size, sizeof(uint64_t));
    for (int big_coll = 0; big_coll < 2; big_coll++) {
        int n = big_coll ? 40000 : 64;  /* ints: shared buffer or messages */
        int *v = calloc((size_t)n * size, sizeof(int));
        int *w = calloc((size_t)n * size, sizeof(int));
        const int root = size - 1;
        const uint64_t B = (uint64_t)n * sizeof(int);
#define PHASE(name, call, need_expr)                                          \
        do {                                                                  \
            MPI_Barrier(MPI_COMM_WORLD);                                      \
            snap(&s0);                                                        \
            call;                                                             \
            snap(&s1);                                                        \
            for (int j = 0; j < size; j++) {                                  \
                need[j] = (need_expr);                                        \
            }                                                                 \
            check_coll(name, &s0, &s1, need, B);                              \
        } while (0)
        PHASE("bcast", MPI_Bcast(v, n, MPI_INT, root, MPI_COMM_WORLD), j == root ? 0 : B);
        PHASE("reduce", MPI_Reduce(v, w, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD),
              j == root ? B : 0);
        PHASE("allreduce", MPI_Allreduce(v, w, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD), B);
        PHASE("gather", MPI_Gather(v, n, MPI_INT, w, n, MPI_INT, root, MPI_COMM_WORLD),
              j == root ? B * (uint64_t)(size - 1) : 0);
        PHASE("scatter", MPI_Scatter(v, n, MPI_INT, w, n, MPI_INT, root, MPI_COMM_WORLD),
              j == root ? 0 : B);
        PHASE("allgather", MPI_Allgather(v, n, MPI_INT, w, n, MPI_INT, MPI_COMM_WORLD),
              B * (uint64_t)(size - 1));
        PHASE("alltoall", MPI_Alltoall(v, n / size, MPI_INT, w, n / size, MPI_INT, MPI_COMM_WORLD),
              (uint64_t)(n / size) * sizeof(int) * (uint64_t)(size - 1));
        free(v);
        free(w);
    }

    /* ---- one-sided: to each target t, t + 1 puts of 1000 bytes */
    MPI_Win win;
    char *base;
    MPI_Win_allocate(64000, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Barrier(MPI_COMM_WORLD);
    snap(&s0);
    int nops = 0;
    for (int t = 0; t < size; t++) {
        if (t == rank) {
            continue;
        }
        MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
        for (int k = 0; k <= t; k++) {
            MPI_Put(buf, 1000, MPI_CHAR, t, 1000 * rank, 1000, MPI_CHAR, win);
            nops++;
        }
        MPI_Win_unlock(t, win);
    }
    snap(&s1);
    for (int t = 0; t < size; t++) {
        uint64_t b = s1.peer_bytes[t * 3 + 2] - s0.peer_bytes[t * 3 + 2];
        uint64_t want = t == rank ? 0 : 1000u * (uint64_t)(t + 1);
        /* the message path adds a request header per operation and the
         * lock and unlock requests */
        if (b < want || b > want + 128u * (uint64_t)(t + 3)) {
            FAIL("one-sided to %d: %llu bytes for %llu put", t, (unsigned long long)b,
                 (unsigned long long)want);
        }
    }
    if (s1.msgs[0] != s0.msgs[0]) {
        FAIL("one-sided traffic counted as point-to-point");
    }
    MPI_Win_free(&win);
    free(need);
    free(buf);
    snap_fini(&s0);
    snap_fini(&s1);
    return mt_finalize();
}
