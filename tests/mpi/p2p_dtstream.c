/* Derived datatypes streamed through point-to-point messages.
 *
 * Every rank sends to its right neighbour and receives from its left one
 * (a ring; with one process, to itself), with a sender layout and a
 * different receiver layout of the same type signature (MPI_CHAR), over
 * every pair of a set of layouts: contiguous, odd strides, 8-byte blocks
 * every 16 bytes, hindexed with negative displacements out of address
 * order, indexed with zero-length blocks, a resized struct, a 3-d
 * subarray, a nested vector, a 1-byte element every 2 bytes, a 3-byte
 * element every 5, and blocks of 3000 and 1100 bytes (single-copy reads
 * into iovecs, streaming).  Message sizes straddle every boundary of the protocol
 * stack (shm cell payload, eager threshold, the 256 KiB staging chunk, a
 * full ring, several chunks), counts > 1, count 0.  Each message goes one
 * of six ways (posted receive + Send, unexpected Isend + Recv, Mprobe from
 * ANY_SOURCE + Mrecv, Ssend, Sendrecv, persistent), so eager and
 * rendezvous, expected and unexpected are all crossed with the layouts.
 *
 * Checks, computed from layouts written out by hand here (not by the
 * library): the k-th data byte of the receive layout holds the k-th data
 * byte of the send layout; nothing else in the receive buffer (holes,
 * bytes before a negative lower bound, elements beyond the message) is
 * written; MPI_Get_count and MPI_Get_elements (MPI_UNDEFINED for a partial
 * element).  Truncation: a receive one element short fails with
 * MPI_ERR_TRUNCATE, fills exactly its capacity and nothing beyond. */
#include "mtest.h"

#define TAG_DATA 11
#define TAG_GO   12
#define PAD      64
#define HOLE     0xee       /* receive buffer before the message */
#define JUNK     0xa5       /* holes of the send buffer: must never arrive */

typedef struct {
    const char  *name;
    MPI_Datatype type;
    int          unit;         /* data bytes per element */
    MPI_Aint     extent;
    int          nblk;
    MPI_Aint     off[64];      /* the blocks of one element, type-map order */
    int          len[64];
    MPI_Aint     lo, hi;       /* data bytes of one element: [lo, hi) */
    int         *map;          /* offset of each data byte of one element */
} layout_t;

#define NLAYOUTS 12
static layout_t L[NLAYOUTS];

static void blk(layout_t *l, MPI_Aint off, int len)
{
    if (len == 0)
        return;
    l->off[l->nblk] = off;
    l->len[l->nblk] = len;
    l->nblk++;
}

/* Fill unit, lo, hi and map from the blocks; check them against MPI. */
static void finish(layout_t *l, MPI_Datatype t, MPI_Aint extent)
{
    int u = 0;
    l->type = t;
    l->extent = extent;
    l->lo = l->off[0];
    l->hi = l->off[0] + l->len[0];
    for (int b = 0; b < l->nblk; b++) {
        u += l->len[b];
        if (l->off[b] < l->lo)
            l->lo = l->off[b];
        if (l->off[b] + l->len[b] > l->hi)
            l->hi = l->off[b] + l->len[b];
    }
    l->unit = u;
    l->map = mt_malloc(sizeof(int) * (size_t)u);
    for (int b = 0, k = 0; b < l->nblk; b++)
        for (int i = 0; i < l->len[b]; i++)
            l->map[k++] = (int)(l->off[b] + i);
    MT_CALL(MPI_Type_commit(&l->type));
    int size;
    MPI_Aint lb, ext, tlb, text;
    MT_CALL(MPI_Type_size(l->type, &size));
    MT_CALL(MPI_Type_get_extent(l->type, &lb, &ext));
    MT_CALL(MPI_Type_get_true_extent(l->type, &tlb, &text));
    MT_CHECK(size == u, "%s: size %d, layout says %d", l->name, size, u);
    MT_CHECK(ext == extent, "%s: extent %ld, layout says %ld", l->name, (long)ext, (long)extent);
    MT_CHECK(tlb == l->lo && text == l->hi - l->lo, "%s: true extent [%ld, +%ld), layout [%ld, %ld)",
             l->name, (long)tlb, (long)text, (long)l->lo, (long)l->hi);
}

static void make_layouts(void)
{
    MPI_Datatype t, t2, t3;
    layout_t *l;

    l = &L[0];
    l->name = "contig";
    MT_CALL(MPI_Type_contiguous(48, MPI_CHAR, &t));
    blk(l, 0, 48);
    finish(l, t, 48);

    l = &L[1];
    l->name = "vec3s7";
    MT_CALL(MPI_Type_vector(16, 3, 7, MPI_CHAR, &t));
    for (int i = 0; i < 16; i++)
        blk(l, i * 7, 3);
    finish(l, t, 15 * 7 + 3);

    /* 8-byte blocks every 16 bytes (the benchmark's shape), resized with a
     * negative lower bound */
    l = &L[2];
    l->name = "vec8s16";
    MT_CALL(MPI_Type_vector(6, 8, 16, MPI_CHAR, &t2));
    MT_CALL(MPI_Type_create_resized(t2, -24, 96, &t));
    MT_CALL(MPI_Type_free(&t2));
    for (int i = 0; i < 6; i++)
        blk(l, i * 16, 8);
    finish(l, t, 96);

    /* negative displacements, not in address order, a zero-length block */
    l = &L[3];
    l->name = "hidx_neg";
    {
        int bl[5] = { 5, 11, 0, 20, 12 };
        MPI_Aint d[5] = { 40, -64, 0, 13, -20 };
        MT_CALL(MPI_Type_create_hindexed(5, bl, d, MPI_CHAR, &t));
        for (int i = 0; i < 5; i++)
            blk(l, d[i], bl[i]);
        finish(l, t, 45 - (-64));
    }

    l = &L[4];
    l->name = "idx_zero";
    {
        int bl[5] = { 5, 0, 11, 0, 32 }, d[5] = { 0, 3, 9, 30, 40 };
        MT_CALL(MPI_Type_indexed(5, bl, d, MPI_CHAR, &t));
        for (int i = 0; i < 5; i++)
            blk(l, d[i], bl[i]);
        finish(l, t, 72);
    }

    /* struct {vector(4,2,5) at 3, 30 chars at 30, contiguous(10) at 70},
     * resized to [-8, 92) */
    l = &L[5];
    l->name = "struct_r";
    {
        MPI_Datatype v, c10, s;
        MT_CALL(MPI_Type_vector(4, 2, 5, MPI_CHAR, &v));
        MT_CALL(MPI_Type_contiguous(10, MPI_CHAR, &c10));
        int bl[3] = { 1, 30, 1 };
        MPI_Aint d[3] = { 3, 30, 70 };
        MPI_Datatype ty[3] = { v, MPI_CHAR, c10 };
        MT_CALL(MPI_Type_create_struct(3, bl, d, ty, &s));
        MT_CALL(MPI_Type_create_resized(s, -8, 100, &t));
        MT_CALL(MPI_Type_free(&v));
        MT_CALL(MPI_Type_free(&c10));
        MT_CALL(MPI_Type_free(&s));
        for (int i = 0; i < 4; i++)
            blk(l, 3 + i * 5, 2);
        blk(l, 30, 30);
        blk(l, 70, 10);
        finish(l, t, 100);
    }

    l = &L[6];
    l->name = "subarray";
    {
        int sz[3] = { 5, 6, 7 }, sub[3] = { 2, 4, 6 }, st[3] = { 1, 1, 1 };
        MT_CALL(MPI_Type_create_subarray(3, sz, sub, st, MPI_ORDER_C, MPI_CHAR, &t));
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 4; b++)
                blk(l, ((1 + a) * 6 + (1 + b)) * 7 + 1, 6);
        finish(l, t, 5 * 6 * 7);
    }

    /* vector of 3 x 2 of a vector(4, 2, 3) (8 bytes, extent 11) */
    l = &L[7];
    l->name = "vecvec";
    MT_CALL(MPI_Type_vector(4, 2, 3, MPI_CHAR, &t2));
    MT_CALL(MPI_Type_vector(3, 2, 4, t2, &t));
    MT_CALL(MPI_Type_free(&t2));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 4; k++)
                blk(l, (i * 4 + j) * 11 + k * 3, 2);
    finish(l, t, (2 * 4 + 2) * 11);

    /* one byte every 2: many elements per message */
    l = &L[8];
    l->name = "char_r2";
    MT_CALL(MPI_Type_create_resized(MPI_CHAR, 0, 2, &t));
    blk(l, 0, 1);
    finish(l, t, 2);

    /* 3 bytes every 5, lower bound -2 */
    l = &L[9];
    l->name = "c3_r5";
    MT_CALL(MPI_Type_contiguous(3, MPI_CHAR, &t3));
    MT_CALL(MPI_Type_create_resized(t3, -2, 5, &t));
    MT_CALL(MPI_Type_free(&t3));
    blk(l, 0, 3);
    finish(l, t, 5);

    /* big pieces: a contiguous send lands by single-copy reads straight
     * into them (iovecs), the last one touches the next element's first */
    l = &L[10];
    l->name = "blk3000";
    MT_CALL(MPI_Type_create_hvector(3, 3000, 4099, MPI_CHAR, &t));
    for (int i = 0; i < 3; i++)
        blk(l, i * 4099, 3000);
    finish(l, t, 2 * 4099 + 3000);

    l = &L[11];
    l->name = "blk1100";
    MT_CALL(MPI_Type_vector(4, 1100, 1500, MPI_CHAR, &t));
    for (int i = 0; i < 4; i++)
        blk(l, i * 1500, 1100);
    finish(l, t, 3 * 1500 + 1100);
}

/* A buffer for count elements of l: base is the allocation, buf the
 * pointer to pass to MPI, [base, base + total) all of it. */
typedef struct {
    unsigned char *base, *buf;
    size_t         total;
} lbuf_t;

static void lbuf_alloc(lbuf_t *b, const layout_t *l, int count)
{
    MPI_Aint lo = l->lo, hi = count > 0 ? (count - 1) * l->extent + l->hi : l->hi;
    b->total = (size_t)(hi - lo) + 2 * PAD;
    b->base = mt_malloc(b->total);
    b->buf = b->base + PAD - lo;
}

static inline size_t lpos(const layout_t *l, size_t k)
{
    return (size_t)((MPI_Aint)(k / (size_t)l->unit) * l->extent + l->map[k % (size_t)l->unit]);
}

static void fill_send(lbuf_t *b, const layout_t *l, int count, unsigned seed)
{
    memset(b->base, JUNK, b->total);
    for (size_t k = 0; k < (size_t)count * (size_t)l->unit; k++)
        b->buf[lpos(l, k)] = mt_pat(k, seed);
}

/* The first `bytes` data bytes hold the pattern, everything else HOLE. */
static int check_recv(lbuf_t *b, const layout_t *l, size_t bytes, unsigned seed,
                      const char *what)
{
    size_t bad = 0, first = 0;
    for (size_t k = 0; k < bytes; k++) {
        unsigned char *p = &b->buf[lpos(l, k)];
        if (*p != mt_pat(k, seed) && bad++ == 0)
            first = k;
        *p = HOLE;
    }
    MT_CHECK(bad == 0, "%s: %zu of %zu data bytes wrong, first at %zu", what, bad, bytes, first);
    size_t written = 0;
    long firstw = -1;
    for (size_t i = 0; i < b->total; i++)
        if (b->base[i] != HOLE && written++ == 0)
            firstw = (long)i - (long)(b->buf - b->base);
    MT_CHECK(written == 0, "%s: %zu bytes outside the message written (first at offset %ld)",
             what, written, firstw);
    return bad == 0 && written == 0;
}

static int err_class(int rc)
{
    int c = -1;
    MPI_Error_class(rc, &c);
    return c;
}

static void check_status(const MPI_Status *st, const layout_t *rl, size_t bytes, int left,
                         const char *what)
{
    int cnt, el;
    MT_CALL(MPI_Get_count(st, rl->type, &cnt));
    MT_CALL(MPI_Get_elements(st, rl->type, &el));
    int want = bytes % (size_t)rl->unit ? MPI_UNDEFINED : (int)(bytes / (size_t)rl->unit);
    MT_CHECK(cnt == want, "%s: Get_count %d, expected %d", what, cnt, want);
    MT_CHECK(el == (int)bytes, "%s: Get_elements %d, expected %zu", what, el, bytes);
    MT_CHECK(st->MPI_SOURCE == left && st->MPI_TAG == TAG_DATA, "%s: source %d tag %d", what,
             st->MPI_SOURCE, st->MPI_TAG);
}

static int g_left, g_right;

/* One message of sc elements of sl to the right, rc elements of rl from
 * the left, the way `mode` says; expect_trunc: rc is too small. */
static void one(const layout_t *sl, int sc, const layout_t *rl, int rc, int mode,
                unsigned seed, int expect_trunc)
{
    lbuf_t s, r;
    size_t bytes = (size_t)sc * (size_t)sl->unit;
    size_t cap = (size_t)rc * (size_t)rl->unit;
    size_t got = bytes < cap ? bytes : cap;
    int span = (int)((bytes + (size_t)rl->unit - 1) / (size_t)rl->unit);  /* room checked */
    char what[160];
    MPI_Status st;
    MPI_Request sreq = MPI_REQUEST_NULL, rreq = MPI_REQUEST_NULL, pr[2];
    MPI_Message msg;
    int rcode = MPI_SUCCESS, go = 0;

    snprintf(what, sizeof what, "%s x %d -> %s x %d (%zu bytes, mode %d)", sl->name, sc,
             rl->name, rc, bytes, mode);
    lbuf_alloc(&s, sl, sc);
    lbuf_alloc(&r, rl, span > rc ? span : rc);
    fill_send(&s, sl, sc, seed);
    memset(r.base, HOLE, r.total);

    switch (mode) {
    case 0:     /* posted receive, then a blocking send */
        MT_CALL(MPI_Irecv(r.buf, rc, rl->type, g_left, TAG_DATA, MPI_COMM_WORLD, &rreq));
        MT_CALL(MPI_Sendrecv(&go, 0, MPI_INT, g_left, TAG_GO, &go, 0, MPI_INT, g_right, TAG_GO,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MT_CALL(MPI_Send(s.buf, sc, sl->type, g_right, TAG_DATA, MPI_COMM_WORLD));
        rcode = MPI_Wait(&rreq, &st);
        break;
    case 1:     /* unexpected: the message (or its RTS) waits for the receive */
        MT_CALL(MPI_Isend(s.buf, sc, sl->type, g_right, TAG_DATA, MPI_COMM_WORLD, &sreq));
        MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
        rcode = MPI_Recv(r.buf, rc, rl->type, g_left, TAG_DATA, MPI_COMM_WORLD, &st);
        MT_CALL(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        break;
    case 2: {   /* matched probe from any source */
        MPI_Status pst;
        int pc;
        MT_CALL(MPI_Isend(s.buf, sc, sl->type, g_right, TAG_DATA, MPI_COMM_WORLD, &sreq));
        MT_CALL(MPI_Mprobe(MPI_ANY_SOURCE, TAG_DATA, MPI_COMM_WORLD, &msg, &pst));
        MT_CALL(MPI_Get_count(&pst, MPI_CHAR, &pc));
        MT_CHECK(pc == (int)bytes && pst.MPI_SOURCE == g_left, "%s: probe count %d source %d",
                 what, pc, pst.MPI_SOURCE);
        rcode = MPI_Mrecv(r.buf, rc, rl->type, &msg, &st);
        MT_CALL(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        break;
    }
    case 3:     /* synchronous send */
        MT_CALL(MPI_Irecv(r.buf, rc, rl->type, g_left, TAG_DATA, MPI_COMM_WORLD, &rreq));
        MT_CALL(MPI_Ssend(s.buf, sc, sl->type, g_right, TAG_DATA, MPI_COMM_WORLD));
        rcode = MPI_Wait(&rreq, &st);
        break;
    case 4:
        rcode = MPI_Sendrecv(s.buf, sc, sl->type, g_right, TAG_DATA, r.buf, rc, rl->type,
                             g_left, TAG_DATA, MPI_COMM_WORLD, &st);
        break;
    default:    /* persistent, started twice */
        MT_CALL(MPI_Send_init(s.buf, sc, sl->type, g_right, TAG_DATA, MPI_COMM_WORLD, &pr[0]));
        MT_CALL(MPI_Recv_init(r.buf, rc, rl->type, g_left, TAG_DATA, MPI_COMM_WORLD, &pr[1]));
        for (int rep = 0; rep < 2 && !expect_trunc; rep++) {
            MT_CALL(MPI_Startall(2, pr));
            MT_CALL(MPI_Wait(&pr[0], MPI_STATUS_IGNORE));
            rcode = MPI_Wait(&pr[1], &st);
            if (rep == 0 && rcode == MPI_SUCCESS) {
                check_recv(&r, rl, got, seed, what);
                memset(r.base, HOLE, r.total);
            }
        }
        MT_CALL(MPI_Request_free(&pr[0]));
        MT_CALL(MPI_Request_free(&pr[1]));
        break;
    }
    if (expect_trunc) {
        MT_CHECK(rcode != MPI_SUCCESS && err_class(rcode) == MPI_ERR_TRUNCATE,
                 "%s: receive into %zu bytes returned class %d, expected MPI_ERR_TRUNCATE",
                 what, cap, err_class(rcode));
    } else {
        MT_CHECK(rcode == MPI_SUCCESS, "%s: receive returned %d", what, rcode);
        if (rcode == MPI_SUCCESS)
            check_status(&st, rl, got, g_left, what);
    }
    check_recv(&r, rl, got, seed, what);
    free(s.base);
    free(r.base);
}

/* Byte sizes around which messages are sent: tiny, a 8 KiB shm cell's
 * payload, the 16 KiB eager threshold, the 256 KiB staging chunk, a full
 * ring of 64 cells, three chunks. */
static const size_t targets[] = { 8128, 16384, 262144, 64 * 8128, 3 * 262144 + 100 };
#define NTARGETS (sizeof(targets) / sizeof(targets[0]))

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    g_left = (mt_rank + mt_size - 1) % mt_size;
    g_right = (mt_rank + 1) % mt_size;
    make_layouts();
    int quick = mt_env_int("MTEST_DTSTREAM_QUICK", 0);

    unsigned seed = 1;
    int n = 0;
    for (int a = 0; a < NLAYOUTS; a++) {
        for (int b = 0; b < NLAYOUTS; b++) {
            const layout_t *sl = &L[a], *rl = &L[b];
            /* counts 0, 1, 2, then both sides of every boundary */
            for (int t = -3; t < 2 * (int)NTARGETS; t++) {
                int sc;
                if (t < 0) {
                    sc = t + 3;
                } else {
                    size_t tgt = targets[t / 2];
                    /* the biggest sizes for a third of the pairs */
                    if (tgt > 300000 && (a + b) % 3 != 0)
                        continue;
                    if (quick && tgt > 20000)
                        continue;
                    sc = (int)(tgt / (size_t)sl->unit) + (t % 2);
                }
                size_t bytes = (size_t)sc * (size_t)sl->unit;
                int rc = (int)((bytes + (size_t)rl->unit - 1) / (size_t)rl->unit);
                if ((a + b + t) % 4 == 0)
                    rc += 2;            /* a longer receive buffer */
                one(sl, sc, rl, rc, n % 6, seed++, 0);
                n++;
            }
        }
    }
    /* more pieces than one scatter read takes (1024 iovecs) */
    for (int a = 0; a < 2 && !quick; a++) {
        const layout_t *sl = a ? &L[10] : &L[0], *rl = &L[10];
        int sc = (int)(600 * (size_t)rl->unit / (size_t)sl->unit);
        one(sl, sc, rl, sc * sl->unit / rl->unit, a, seed++, 0);
    }
    /* truncation: one receive element short, every way but the persistent */
    for (int a = 0; a < NLAYOUTS; a++) {
        for (int t = 0; t < 2 * (int)NTARGETS - 2; t++) {
            int b = (a * 3 + t) % NLAYOUTS;
            const layout_t *sl = &L[a], *rl = &L[b];
            size_t tgt = targets[t / 2];
            if (quick && tgt > 20000)
                continue;
            int sc = (int)(tgt / (size_t)sl->unit) + (t % 2);
            size_t bytes = (size_t)sc * (size_t)sl->unit;
            int rc = (int)((bytes + (size_t)rl->unit - 1) / (size_t)rl->unit) - 1;
            if (bytes == 0)
                continue;
            one(sl, sc, rl, rc, (a + t) % 5, seed++, 1);
        }
    }
    for (int i = 0; i < NLAYOUTS; i++) {
        MT_CALL(MPI_Type_free(&L[i].type));
        free(L[i].map);
    }
    return mt_finalize();
}
