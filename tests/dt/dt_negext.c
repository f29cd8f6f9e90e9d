/* Types built from a type with a negative extent (2 processes).
 *
 * T = resized(contiguous(4, MPI_BYTE), lb 6, extent -9) has its ub marker
 * below its lb marker; element i of T in a contiguous, vector, indexed or
 * struct type lies i*extent(T) = -9i bytes away.  Every constructor is built
 * twice: with MPI and as an explicit type map here (data entries in
 * type-map order, the lowest lb marker and the highest ub marker), and
 *   lb = the lowest lb marker, or the lowest data byte without markers;
 *   ub = the highest ub marker, or the end of the highest data entry;
 *   true_lb / true_ub = the lowest / end of the highest data byte
 * (MPI-4.1 5.1.7-5.1.8) must be what MPI_Type_get_extent and
 * MPI_Type_get_true_extent say.  Then two elements of several of these
 * types go from rank 0 to rank 1: received with the type, every byte of the
 * buffer is checked (data bytes carry the sent values, holes untouched);
 * received as bytes and packed with MPI_Pack, the stream follows the type
 * map.  Only standard MPI. */
#include "dttest.h"

/* ---- type maps ---- */

#define MAXD 4096

typedef struct {
    int  n;              /* data entries, in type-map order */
    long disp[MAXD];
    int  len[MAXD];
    int  has_lb, has_ub; /* markers (from a resize) */
    long lbm, ubm;       /* the lowest lb marker, the highest ub marker */
} tmap_t;

static tmap_t *m_new(void)
{
    tmap_t *m = calloc(1, sizeof(*m));
    if (m == NULL) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return m;
}

static tmap_t *m_basic(int len)
{
    tmap_t *m = m_new();
    m->n = 1;
    m->disp[0] = 0;
    m->len[0] = len;
    return m;
}

static long m_tlb(const tmap_t *m)
{
    long v = 0;
    for (int i = 0; i < m->n; i++)
        if (i == 0 || m->disp[i] < v)
            v = m->disp[i];
    return v;
}

static long m_tub(const tmap_t *m)
{
    long v = 0;
    for (int i = 0; i < m->n; i++)
        if (i == 0 || m->disp[i] + m->len[i] > v)
            v = m->disp[i] + m->len[i];
    return v;
}

static long m_lb(const tmap_t *m)
{
    return m->has_lb ? m->lbm : m_tlb(m);
}

static long m_ub(const tmap_t *m)
{
    return m->has_ub ? m->ubm : m_tub(m);
}

static long m_ext(const tmap_t *m)
{
    return m_ub(m) - m_lb(m);
}

static long m_size(const tmap_t *m)
{
    long s = 0;
    for (int i = 0; i < m->n; i++)
        s += m->len[i];
    return s;
}

/* Append a copy of src moved by shift: its data and its markers. */
static void m_place(tmap_t *dst, const tmap_t *src, long shift)
{
    for (int i = 0; i < src->n; i++) {
        if (dst->n == MAXD) {
            fprintf(stderr, "type map too long\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        dst->disp[dst->n] = src->disp[i] + shift;
        dst->len[dst->n] = src->len[i];
        dst->n++;
    }
    if (src->has_lb && (!dst->has_lb || src->lbm + shift < dst->lbm)) {
        dst->lbm = src->lbm + shift;
        dst->has_lb = 1;
    }
    if (src->has_ub && (!dst->has_ub || src->ubm + shift > dst->ubm)) {
        dst->ubm = src->ubm + shift;
        dst->has_ub = 1;
    }
}

/* count copies of src at disp, disp + extent(src), ... */
static void m_block(tmap_t *dst, const tmap_t *src, long disp, int count)
{
    for (int k = 0; k < count; k++)
        m_place(dst, src, disp + (long)k * m_ext(src));
}

static tmap_t *m_resized(const tmap_t *src, long lb, long extent)
{
    tmap_t *m = m_new();
    m_place(m, src, 0);
    m->has_lb = m->has_ub = 1;
    m->lbm = lb;
    m->ubm = lb + extent;
    return m;
}

/* ---- the types ---- */

typedef struct {
    const char  *name;
    MPI_Datatype dt;
    tmap_t      *m;
} ty_t;

#define MAXT 40
static ty_t types[MAXT];
static int ntypes;

static ty_t *add(const char *name, MPI_Datatype dt, tmap_t *m)
{
    CALL(MPI_Type_commit(&dt));
    types[ntypes] = (ty_t){ name, dt, m };
    return &types[ntypes++];
}

static ty_t *t_contig(const char *name, int count, const ty_t *old)
{
    MPI_Datatype dt;
    tmap_t *m = m_new();
    CALL(MPI_Type_contiguous(count, old->dt, &dt));
    m_block(m, old->m, 0, count);
    return add(name, dt, m);
}

static ty_t *t_vector(const char *name, int count, int blen, int stride, const ty_t *old)
{
    MPI_Datatype dt;
    tmap_t *m = m_new();
    CALL(MPI_Type_vector(count, blen, stride, old->dt, &dt));
    for (int j = 0; j < count; j++)
        m_block(m, old->m, (long)j * stride * m_ext(old->m), blen);
    return add(name, dt, m);
}

static ty_t *t_hvector(const char *name, int count, int blen, MPI_Aint stride, const ty_t *old)
{
    MPI_Datatype dt;
    tmap_t *m = m_new();
    CALL(MPI_Type_create_hvector(count, blen, stride, old->dt, &dt));
    for (int j = 0; j < count; j++)
        m_block(m, old->m, (long)j * stride, blen);
    return add(name, dt, m);
}

static ty_t *t_indexed(const char *name, int n, const int *blens, const int *displs,
                       const ty_t *old)
{
    MPI_Datatype dt;
    tmap_t *m = m_new();
    CALL(MPI_Type_indexed(n, blens, displs, old->dt, &dt));
    for (int i = 0; i < n; i++)
        m_block(m, old->m, (long)displs[i] * m_ext(old->m), blens[i]);
    return add(name, dt, m);
}

static ty_t *t_hindexed(const char *name, int n, const int *blens, const MPI_Aint *displs,
                        const ty_t *old)
{
    MPI_Datatype dt;
    tmap_t *m = m_new();
    CALL(MPI_Type_create_hindexed(n, blens, displs, old->dt, &dt));
    for (int i = 0; i < n; i++)
        m_block(m, old->m, (long)displs[i], blens[i]);
    return add(name, dt, m);
}

static ty_t *t_indexed_block(const char *name, int n, int blen, const int *displs,
                             const ty_t *old)
{
    MPI_Datatype dt;
    tmap_t *m = m_new();
    CALL(MPI_Type_create_indexed_block(n, blen, displs, old->dt, &dt));
    for (int i = 0; i < n; i++)
        m_block(m, old->m, (long)displs[i] * m_ext(old->m), blen);
    return add(name, dt, m);
}

static ty_t *t_hindexed_block(const char *name, int n, int blen, const MPI_Aint *displs,
                              const ty_t *old)
{
    MPI_Datatype dt;
    tmap_t *m = m_new();
    CALL(MPI_Type_create_hindexed_block(n, blen, displs, old->dt, &dt));
    for (int i = 0; i < n; i++)
        m_block(m, old->m, (long)displs[i], blen);
    return add(name, dt, m);
}

static ty_t *t_struct(const char *name, int n, const int *blens, const MPI_Aint *displs,
                      const ty_t **olds)
{
    MPI_Datatype dt, tv[8];
    tmap_t *m = m_new();
    for (int i = 0; i < n; i++)
        tv[i] = olds[i]->dt;
    CALL(MPI_Type_create_struct(n, blens, displs, tv, &dt));
    for (int i = 0; i < n; i++)
        m_block(m, olds[i]->m, (long)displs[i], blens[i]);
    return add(name, dt, m);
}

static ty_t *t_resized(const char *name, const ty_t *old, MPI_Aint lb, MPI_Aint extent)
{
    MPI_Datatype dt;
    CALL(MPI_Type_create_resized(old->dt, lb, extent, &dt));
    return add(name, dt, m_resized(old->m, lb, extent));
}

/* 2-d subarray: the selected elements at their index in the whole array
 * times extent(old), in the order's type-map order, then lb 0 and extent
 * sizes[0] * sizes[1] * extent(old). */
static ty_t *t_subarray(const char *name, const int *sizes, const int *subs,
                        const int *starts, int order, const ty_t *old)
{
    MPI_Datatype dt;
    tmap_t *m = m_new(), *r;
    long ex = m_ext(old->m);
    CALL(MPI_Type_create_subarray(2, sizes, subs, starts, order, old->dt, &dt));
    if (order == MPI_ORDER_C) {
        for (int i = starts[0]; i < starts[0] + subs[0]; i++)
            for (int j = starts[1]; j < starts[1] + subs[1]; j++)
                m_place(m, old->m, ((long)i * sizes[1] + j) * ex);
    } else {
        for (int j = starts[1]; j < starts[1] + subs[1]; j++)
            for (int i = starts[0]; i < starts[0] + subs[0]; i++)
                m_place(m, old->m, ((long)j * sizes[0] + i) * ex);
    }
    r = m_resized(m, 0, (long)sizes[0] * sizes[1] * ex);
    free(m);
    return add(name, dt, r);
}

/* 1-d block darray of gsize elements over nprocs, as process rank: its
 * block of elements at index * extent(old), then lb 0 and extent gsize *
 * extent(old). */
static ty_t *t_darray(const char *name, int nprocs, int rank, int gsize, const ty_t *old)
{
    MPI_Datatype dt;
    int distrib = MPI_DISTRIBUTE_BLOCK, darg = MPI_DISTRIBUTE_DFLT_DARG;
    tmap_t *m = m_new(), *r;
    long ex = m_ext(old->m);
    int b = (gsize + nprocs - 1) / nprocs;
    CALL(MPI_Type_create_darray(nprocs, rank, 1, &gsize, &distrib, &darg, &nprocs,
                                MPI_ORDER_C, old->dt, &dt));
    for (int i = rank * b; i < gsize && i < (rank + 1) * b; i++)
        m_place(m, old->m, (long)i * ex);
    r = m_resized(m, 0, (long)gsize * ex);
    free(m);
    return add(name, dt, r);
}

static ty_t *t_predef(const char *name, MPI_Datatype dt, int len)
{
    types[ntypes] = (ty_t){ name, dt, m_basic(len) };
    return &types[ntypes++];
}

static void build(void)
{
    const ty_t *byte = t_predef("MPI_BYTE", MPI_BYTE, 1);
    const ty_t *shrt = t_predef("MPI_SHORT", MPI_SHORT, (int)sizeof(short));
    const ty_t *in = t_predef("MPI_INT", MPI_INT, (int)sizeof(int));

    const ty_t *c4 = t_contig("contiguous(4, MPI_BYTE)", 4, byte);
    const ty_t *t = t_resized("T = resized(4 bytes, 6, -9)", c4, 6, -9);
    const ty_t *c3 = t_contig("contiguous(3, T)", 3, t);
    const ty_t *v = t_vector("vector(3, 4, 5, T)", 3, 4, 5, t);
    t_vector("vector(2, 1, -3, T)", 2, 1, -3, t);
    const ty_t *hv = t_hvector("hvector(3, 2, -20, T)", 3, 2, -20, t);
    t_hvector("hvector(2, 3, 40, T)", 2, 3, 40, t);
    t_hvector("hvector(3, 1, -8, MPI_INT)", 3, 1, -8, in);
    {
        int bl[3] = { 2, 1, 3 }, d[3] = { 4, -2, 7 };
        t_indexed("indexed({2,1,3}, {4,-2,7}, T)", 3, bl, d, t);
    }
    const ty_t *idx;
    {
        int bl[2] = { 1, 2 }, d[2] = { 0, -4 };
        idx = t_indexed("indexed({1,2}, {0,-4}, T)", 2, bl, d, t);
    }
    {
        int bl[2] = { 2, 3 };
        MPI_Aint d[2] = { -5, 30 };
        t_hindexed("hindexed({2,3}, {-5,30}, T)", 2, bl, d, t);
    }
    {
        int d[3] = { 0, 5, -3 };
        t_indexed_block("indexed_block(2, {0,5,-3}, T)", 3, 2, d, t);
    }
    {
        MPI_Aint d[2] = { 10, -40 };
        t_hindexed_block("hindexed_block(3, {10,-40}, T)", 2, 3, d, t);
    }
    const ty_t *st;
    {
        int bl[3] = { 2, 1, 1 };
        MPI_Aint d[3] = { 0, 20, -13 };
        const ty_t *o[3] = { t, shrt, c3 };
        st = t_struct("struct({2,1,1}, {0,20,-13}, {T,MPI_SHORT,contiguous(3,T)})", 3, bl, d, o);
    }
    {
        int bl[2] = { 1, 2 };
        MPI_Aint d[2] = { 30, -130 };
        const ty_t *o[2] = { v, t };
        t_struct("struct({1,2}, {30,-130}, {vector(3,4,5,T), T})", 2, bl, d, o);
    }
    {
        /* unmarked, negative displacement: extent 16 needs no padding */
        int bl[2] = { 1, 2 };
        MPI_Aint d[2] = { -8, 4 };
        const ty_t *o[2] = { in, shrt };
        t_struct("struct({1,2}, {-8,4}, {MPI_INT,MPI_SHORT})", 2, bl, d, o);
    }
    {
        int sizes[2] = { 3, 4 }, subs[2] = { 2, 2 }, starts[2] = { 1, 1 };
        t_subarray("subarray C {3,4} {2,2} {1,1} of T", sizes, subs, starts,
                   MPI_ORDER_C, t);
        t_subarray("subarray Fortran {3,4} {2,2} {1,1} of T", sizes, subs, starts,
                   MPI_ORDER_FORTRAN, t);
    }
    t_darray("darray block 5 over 2, rank 1, of T", 2, 1, 5, t);
    t_resized("resized(vector(3,4,5,T), -7, 30)", v, -7, 30);
    const ty_t *t2 = t_resized("T2 = resized(MPI_INT, 8, -4)", in, 8, -4);
    t_contig("contiguous(4, T2)", 4, t2);
    t_vector("vector(2, 1, 3, hvector(3,2,-20,T))", 2, 1, 3, hv);
    t_vector("vector(2, 1, -3, indexed({1,2},{0,-4},T))", 2, 1, -3, idx);
    t_hvector("hvector(2, 1, 100, struct(...T...))", 2, 1, 100, st);
    t_hvector("hvector(2, 2, -100, T2)", 2, 2, -100, t2);
}

/* ---- checks ---- */

static void check_bounds(const ty_t *t)
{
    MPI_Aint lb = -1, ext = -1, tlb = -1, text = -1;
    int size = -1;
    CALL(MPI_Type_get_extent(t->dt, &lb, &ext));
    CALL(MPI_Type_get_true_extent(t->dt, &tlb, &text));
    CALL(MPI_Type_size(t->dt, &size));
    CHECK(lb == m_lb(t->m) && ext == m_ext(t->m), "%s: lb %ld extent %ld, type map: %ld %ld",
          t->name, (long)lb, (long)ext, m_lb(t->m), m_ext(t->m));
    CHECK(tlb == m_tlb(t->m) && text == m_tub(t->m) - m_tlb(t->m),
          "%s: true lb %ld true extent %ld, type map: %ld %ld", t->name, (long)tlb,
          (long)text, m_tlb(t->m), m_tub(t->m) - m_tlb(t->m));
    CHECK(size == m_size(t->m), "%s: size %d, type map %ld", t->name, size, m_size(t->m));
}

static const ty_t *find(const char *name)
{
    for (int i = 0; i < ntypes; i++)
        if (strcmp(types[i].name, name) == 0)
            return &types[i];
    CHECK(0, "no type %s", name);
    return NULL;
}

/* The two examples worked out by hand. */
static void check_examples(void)
{
    static const struct {
        const char *name;
        long lb, ext, tlb, text;
    } ex[] = {
        { "T = resized(4 bytes, 6, -9)", 6, -9, 0, 4 },
        /* lb markers at 6, -3, -12; ub markers at -3, -12, -21 */
        { "contiguous(3, T)", -12, 9, -18, 22 },
        /* elements at -9 * (5j + k): -117 .. 0 */
        { "vector(3, 4, 5, T)", -111, 108, -117, 121 },
        /* elements at 0, -4, -8, -12; lb markers 8 .. -4, ub markers 4 .. -8 */
        { "contiguous(4, T2)", -4, 8, -12, 16 },
        /* elements 5, 6, 9 and 10 of the 3 x 4 array: at -45, -54, -81, -90 */
        { "subarray C {3,4} {2,2} {1,1} of T", 0, -108, -90, 49 },
    };
    for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
        const ty_t *t = find(ex[i].name);
        if (t == NULL)
            continue;
        CHECK(m_lb(t->m) == ex[i].lb && m_ext(t->m) == ex[i].ext &&
              m_tlb(t->m) == ex[i].tlb && m_tub(t->m) - m_tlb(t->m) == ex[i].text,
              "the test's type map of %s is wrong", ex[i].name);
        MPI_Aint lb, ext, tlb, text;
        CALL(MPI_Type_get_extent(t->dt, &lb, &ext));
        CALL(MPI_Type_get_true_extent(t->dt, &tlb, &text));
        CHECK(lb == ex[i].lb && ext == ex[i].ext && tlb == ex[i].tlb && text == ex[i].text,
              "%s: lb %ld extent %ld true %ld %ld, expected %ld %ld %ld %ld", ex[i].name,
              (long)lb, (long)ext, (long)tlb, (long)text, ex[i].lb, ex[i].ext, ex[i].tlb,
              ex[i].text);
    }
}

#define BUF (1 << 16)
#define MID (1 << 15)
#define COUNT 2

static unsigned char sval(long i)
{
    return (unsigned char)(i * 7 + 3 + (i >> 8));
}

/* Does every byte of count elements lie in the buffer (*fits_p), and
 * which of them are written twice (returns 1 when some are)? */
static int overlaps(const tmap_t *m, int count, int *fits_p)
{
    static unsigned char seen[BUF];
    int twice = 0;
    memset(seen, 0, sizeof seen);
    *fits_p = 1;
    for (int e = 0; e < count; e++)
        for (int i = 0; i < m->n; i++)
            for (int b = 0; b < m->len[i]; b++) {
                long at = MID + e * m_ext(m) + m->disp[i] + b;
                if (at < 0 || at >= BUF) {
                    *fits_p = 0;
                    return 1;
                }
                twice |= seen[at]++ != 0;
            }
    return twice;
}

/* The packed stream of count elements at sbuf + MID, by the type map. */
static long map_stream(const tmap_t *m, int count, const unsigned char *sbuf,
                       unsigned char *out)
{
    long k = 0;
    for (int e = 0; e < count; e++)
        for (int i = 0; i < m->n; i++)
            for (int b = 0; b < m->len[i]; b++)
                out[k++] = sbuf[MID + e * m_ext(m) + m->disp[i] + b];
    return k;
}

/* COUNT elements go as the type and arrive as bytes (the sender's pack
 * follows the type map).  Then as many elements as can be received without
 * writing a byte twice (2, else 1: the elements of a type whose extent is
 * less than its span overlap) go twice, as the type and as the byte stream,
 * and arrive as the type: data bytes where the type map puts them, holes
 * untouched. */
static void roundtrip(const ty_t *t, int tag)
{
    static unsigned char sbuf[BUF], rbuf[BUF], want[BUF], packed[BUF], stream[BUF];
    const tmap_t *m = t->m;
    long n = COUNT * m_size(m), rn;
    int fit, rcount, pos = 0, cnt = -1;
    MPI_Status st;

    overlaps(m, COUNT, &fit);
    if (!fit || n > BUF) {
        CHECK(0, "%s: does not fit the test buffer", t->name);
        return;
    }
    rcount = !overlaps(m, COUNT, &fit) ? COUNT : !overlaps(m, 1, &fit) ? 1 : 0;
    for (long i = 0; i < BUF; i++)
        sbuf[i] = sval(i);
    map_stream(m, COUNT, sbuf, stream);

    if (dt_rank == 0) {
        CALL(MPI_Pack(sbuf + MID, COUNT, t->dt, packed, BUF, &pos, MPI_COMM_SELF));
        CHECK(pos == n && memcmp(packed, stream, (size_t)n) == 0,
              "%s: MPI_Pack differs from the type map (%d bytes, expected %ld)", t->name, pos,
              n);
        CALL(MPI_Send(sbuf + MID, COUNT, t->dt, 1, tag, MPI_COMM_WORLD));
        if (rcount > 0) {
            rn = map_stream(m, rcount, sbuf, stream);
            CALL(MPI_Send(sbuf + MID, rcount, t->dt, 1, tag, MPI_COMM_WORLD));
            CALL(MPI_Send(stream, (int)rn, MPI_BYTE, 1, tag, MPI_COMM_WORLD));
        }
    } else if (dt_rank == 1) {
        memset(rbuf, 0xee, BUF);
        CALL(MPI_Recv(rbuf, BUF, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &st));
        CALL(MPI_Get_count(&st, MPI_BYTE, &cnt));
        CHECK(cnt == n && memcmp(rbuf, stream, (size_t)n) == 0,
              "%s: received as bytes: %d bytes, not the type-map stream of %ld", t->name, cnt,
              n);
        CHECK(rcount > 0, "%s: one element writes a byte twice (no typed receive)", t->name);
        memset(want, 0xee, BUF);
        for (int e = 0; e < rcount; e++)
            for (int i = 0; i < m->n; i++)
                for (int b = 0; b < m->len[i]; b++) {
                    long at = MID + e * m_ext(m) + m->disp[i] + b;
                    want[at] = sbuf[at];
                }
        for (int round = 0; round < 2 && rcount > 0; round++) {
            memset(rbuf, 0xee, BUF);
            CALL(MPI_Recv(rbuf + MID, rcount, t->dt, 0, tag, MPI_COMM_WORLD, &st));
            CALL(MPI_Get_count(&st, t->dt, &cnt));
            CHECK(cnt == rcount, "%s: Get_count %d, expected %d", t->name, cnt, rcount);
            for (long i = 0; i < BUF; i++)
                if (rbuf[i] != want[i]) {
                    CHECK(rbuf[i] == want[i],
                          "%s (%d, %s): byte at %ld is 0x%02x, expected 0x%02x (%s)", t->name,
                          rcount, round == 0 ? "typed send" : "byte stream", i - MID, rbuf[i],
                          want[i], want[i] == 0xee ? "a hole" : "data");
                    break;
                }
        }
        if (getenv("DT_NEGEXT_VERBOSE"))
            printf("%s: typed receive of %d\n", t->name, rcount);
    }
}

int main(int argc, char **argv)
{
    dt_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    build();
    check_examples();
    for (int i = 0; i < ntypes; i++)
        check_bounds(&types[i]);
    if (dt_size >= 2)
        for (int i = 0; i < ntypes; i++)
            roundtrip(&types[i], 100 + i);
    for (int i = 0; i < ntypes; i++) {
        if (types[i].dt != MPI_BYTE && types[i].dt != MPI_SHORT && types[i].dt != MPI_INT)
            CALL(MPI_Type_free(&types[i].dt));
        free(types[i].m);
    }
    return dt_finish();
}
