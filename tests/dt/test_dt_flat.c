/* Unit test of the datatype layer's flattening and pack engine
 * (src/dt/dt_layout.c, dt_create.c, dt_array.c, dt_pack.c, dt_sig.c,
 * dt_ext32.c), without MPI_Init.
 *
 *  - hand-checked layouts: the normal form of common constructions (a
 *    vector of doubles is one segment under one loop, nested vectors merge,
 *    subarrays of whole rows fold, ...), bounds and extents (struct padding,
 *    resized markers, negative displacements), subarray and darray maps;
 *  - an oracle: random nested types are also built as an explicit list of
 *    data-byte offsets, and pack / unpack / pack_partial / unpack_partial /
 *    foreach_seg / copy / iov must agree with it byte for byte;
 *  - signatures: basic, nbasic, partial element counts;
 *  - external32 sizes and bytes. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dt/dt.h"
#include "dt/op.h"

static int failures;

#define CHECK(cond, ...)                                                             \
    do {                                                                             \
        if (!(cond)) {                                                               \
            failures++;                                                              \
            fprintf(stderr, "test_dt_flat:%d: FAIL %s: ", __LINE__, #cond);          \
            fprintf(stderr, __VA_ARGS__);                                            \
            fputc('\n', stderr);                                                     \
        }                                                                            \
    } while (0)

#define OK(call) CHECK((call) == TN_OK, "%s", #call)

static const tn_dt_t *P(MPI_Datatype h)
{
    return tn_dt_predefined((uintptr_t)h);
}

/* ---- hand-checked layouts ------------------------------------------------ */

static void test_shapes(void)
{
    const tn_dt_t *dbl = P(MPI_DOUBLE), *in = P(MPI_INT);
    tn_dt_t *t, *u, *v;

    /* contiguous: one segment, contiguous */
    OK(tn_dt_create_contig(10, dbl, &t));
    CHECK(t->is_contig && t->ndims == 0 && t->nsegs == 1 && t->segs[0].len == 80 &&
          t->size == 80 && t->extent == 80 && t->basic == dbl && t->nbasic == 10,
          "contig(10, double)");
    tn_dt_release(t);

    /* every other double: one 8-byte segment under one loop */
    OK(tn_dt_create_hvector(5, 1, 16, dbl, &t));
    CHECK(!t->is_contig && t->ndims == 1 && t->dims[0].n == 5 && t->dims[0].stride == 16 &&
          t->nsegs == 1 && t->segs[0].off == 0 && t->segs[0].len == 8, "vector(5,1,2)");
    CHECK(t->size == 40 && t->lb == 0 && t->extent == 72 && t->true_extent == 72,
          "vector bounds size %zu extent %td", t->size, t->extent);
    CHECK(t->basic == dbl && t->nruns == 1 && t->runs[0].n == 5, "vector signature");

    /* a vector of that vector whose stride continues it: one loop */
    OK(tn_dt_create_hvector(3, 1, 80, t, &u));
    CHECK(u->ndims == 1 && u->dims[0].n == 15 && u->dims[0].stride == 16 && u->nsegs == 1,
          "vector of vector merged: ndims %d n %zu", u->ndims, u->ndims ? u->dims[0].n : 0);
    tn_dt_release(u);
    /* ... and one whose stride does not: two loops */
    OK(tn_dt_create_hvector(3, 1, 1000, t, &u));
    CHECK(u->ndims == 2 && u->dims[0].n == 3 && u->dims[0].stride == 1000 &&
          u->dims[1].n == 5 && u->dims[1].stride == 16, "vector of vector: two loops");
    tn_dt_release(u);
    tn_dt_release(t);

    /* blocks as long as the stride: contiguous */
    OK(tn_dt_create_hvector(4, 2, 16, dbl, &t));
    CHECK(t->is_contig && t->size == 64 && t->extent == 64, "vector(4,2,2) contiguous");
    tn_dt_release(t);

    /* a regular hindexed is a vector */
    {
        tn_dt_block_t b[4] = { { 8, 2, in }, { 40, 2, in }, { 72, 2, in }, { 104, 2, in } };
        OK(tn_dt_create_blocks(4, b, 0, &t));
        CHECK(t->ndims == 1 && t->dims[0].n == 4 && t->dims[0].stride == 32 && t->nsegs == 1 &&
              t->segs[0].off == 8 && t->segs[0].len == 8 && t->lb == 8 && t->extent == 104,
              "regular hindexed");
        tn_dt_release(t);
    }
    /* an irregular one keeps its order (not address order) and merges */
    {
        tn_dt_block_t b[3] = { { 100, 1, in }, { 0, 2, in }, { 8, 1, in } };
        OK(tn_dt_create_blocks(3, b, 0, &t));
        CHECK(t->ndims == 0 && t->nsegs == 2 && t->segs[0].off == 100 && t->segs[1].off == 0 &&
              t->segs[1].len == 12 && t->segs[1].pos == 4 && t->lb == 0 && t->extent == 104,
              "irregular hindexed nsegs %zu", t->nsegs);
        tn_dt_release(t);
    }

    /* struct {char; double; int}: padding, alignment, heterogeneous */
    {
        tn_dt_block_t b[3] = { { 0, 1, P(MPI_CHAR) }, { 8, 1, dbl }, { 16, 1, in } };
        OK(tn_dt_create_blocks(3, b, 1, &t));
        CHECK(t->size == 13 && t->lb == 0 && t->extent == 24 && t->true_extent == 20 &&
              t->nsegs == 2 && t->basic == NULL && t->nbasic == 3 && t->nruns == 3,
              "struct: size %zu extent %td nsegs %zu", t->size, t->extent, t->nsegs);
        tn_dt_release(t);
    }

    /* resized: markers win over the data bounds and are inherited */
    OK(tn_dt_create_resized(in, -4, 16, &t));
    CHECK(t->lb == -4 && t->extent == 16 && t->true_lb == 0 && t->true_extent == 4 &&
          t->marked && !t->is_contig, "resized");
    {
        tn_dt_block_t b[2] = { { 0, 1, t }, { 1000, 1, dbl } };
        OK(tn_dt_create_blocks(2, b, 1, &u));
        CHECK(u->lb == -4 && u->extent == 16 && u->true_extent == 1008,
              "struct with a marked member: lb %td extent %td", u->lb, u->extent);
        tn_dt_release(u);
    }
    OK(tn_dt_create_contig(3, t, &u));
    CHECK(u->lb == -4 && u->extent == 48 && u->ndims == 1 && u->dims[0].stride == 16,
          "contig of resized");
    tn_dt_release(u);
    tn_dt_release(t);
    /* resized to the data: contiguous again */
    OK(tn_dt_create_resized(P(MPI_SHORT_INT), 0, 6, &t));
    CHECK(!t->is_contig && t->nsegs == 2, "short_int resized to 6 still has a gap");
    tn_dt_release(t);

    /* negative stride */
    OK(tn_dt_create_hvector(3, 1, -8, in, &t));
    CHECK(t->lb == -16 && t->extent == 20 && t->true_lb == -16 && t->ndims == 1,
          "negative stride: lb %td extent %td", t->lb, t->extent);
    tn_dt_release(t);

    /* empty types */
    OK(tn_dt_create_contig(0, dbl, &t));
    CHECK(t->size == 0 && t->extent == 0 && t->is_contig && t->nsegs == 0 && t->nbasic == 0,
          "contig(0)");
    tn_dt_release(t);

    /* dup keeps everything, retain/release keep it alive */
    OK(tn_dt_create_hvector(2, 3, 40, dbl, &t));
    OK(tn_dt_create_dup(t, &v));
    CHECK(v->size == t->size && v->extent == t->extent && v->ndims == t->ndims &&
          v->committed == 0, "dup");
    tn_dt_commit(t);
    tn_dt_retain(t);
    tn_dt_release(t);
    CHECK(t->magic == TN_DT_MAGIC && t->refcount == 1, "retain/release");
    tn_dt_release(v);
    tn_dt_release(t);
}

static void test_arrays(void)
{
    const tn_dt_t *dbl = P(MPI_DOUBLE), *in = P(MPI_INT);
    tn_dt_t *t;

    /* 4x6 array of ints, rows 1..2, columns 2..4 (C order) */
    {
        int64_t sizes[2] = { 4, 6 }, sub[2] = { 2, 3 }, st[2] = { 1, 2 };
        OK(tn_dt_create_subarray(2, sizes, sub, st, 0, in, &t));
        CHECK(t->lb == 0 && t->extent == 96 && t->size == 24 && t->ndims == 1 &&
              t->dims[0].n == 2 && t->dims[0].stride == 24 && t->nsegs == 1 &&
              t->segs[0].off == 32 && t->segs[0].len == 12 && t->true_lb == 32,
              "subarray C: ndims %d", t->ndims);
        tn_dt_release(t);
        OK(tn_dt_create_subarray(2, sizes, sub, st, 1, in, &t));     /* Fortran */
        CHECK(t->extent == 96 && t->size == 24 && t->ndims == 1 && t->dims[0].n == 3 &&
              t->dims[0].stride == 16 && t->segs[0].off == (1 + 2 * 4) * 4 &&
              t->segs[0].len == 8, "subarray Fortran");
        tn_dt_release(t);
    }
    /* whole rows of a 3-d array fold into one segment per plane */
    {
        int64_t sizes[3] = { 5, 4, 3 }, sub[3] = { 2, 4, 3 }, st[3] = { 1, 0, 0 };
        OK(tn_dt_create_subarray(3, sizes, sub, st, 0, dbl, &t));
        CHECK(t->ndims == 0 && t->nsegs == 1 && t->segs[0].off == 96 && t->segs[0].len == 192,
              "subarray of whole planes: ndims %d nsegs %zu", t->ndims, t->nsegs);
        tn_dt_release(t);
    }
    /* darray 8x8 doubles over a 2x2 grid, block x cyclic(2), rank 3 = (1,1):
     * rows 4..7, columns {2,3,6,7} */
    {
        int64_t g[2] = { 8, 8 };
        int dist[2] = { TN_DT_DISTRIB_BLOCK, TN_DT_DISTRIB_CYCLIC };
        int darg[2] = { TN_DT_DARG_DEFAULT, 2 }, ps[2] = { 2, 2 };
        OK(tn_dt_create_darray(4, 3, 2, g, dist, darg, ps, 0, dbl, &t));
        CHECK(t->size == 16 * 8 && t->lb == 0 && t->extent == 64 * 8, "darray size/extent");
        /* expected element order */
        double a[64], out[16];
        int k = 0, bad = 0;
        for (int i = 0; i < 64; i++) {
            a[i] = i;
        }
        tn_dt_pack(t, a, 1, out);
        for (int r = 4; r < 8; r++) {
            for (int c = 0; c < 8; c++) {
                if ((c / 2) % 2 == 1) {
                    bad += out[k++] != r * 8 + c;
                }
            }
        }
        CHECK(bad == 0 && k == 16, "darray element order");
        tn_dt_release(t);
    }
    /* darray cyclic(3) over 2 processes of 10: rank 1 owns 3..5 and 9 */
    {
        int64_t g[1] = { 10 };
        int dist[1] = { TN_DT_DISTRIB_CYCLIC }, darg[1] = { 3 }, ps[1] = { 2 };
        int a[10], out[4];
        for (int i = 0; i < 10; i++) {
            a[i] = i;
        }
        OK(tn_dt_create_darray(2, 1, 1, g, dist, darg, ps, 0, in, &t));
        CHECK(t->size == 16 && t->extent == 40, "darray cyclic(3) size %zu", t->size);
        tn_dt_pack(t, a, 1, out);
        CHECK(out[0] == 3 && out[1] == 4 && out[2] == 5 && out[3] == 9, "darray cyclic(3) map");
        tn_dt_release(t);
        /* a block too small to cover the array is refused */
        dist[0] = TN_DT_DISTRIB_BLOCK;
        darg[0] = 4;
        CHECK(tn_dt_create_darray(2, 1, 1, g, dist, darg, ps, 0, in, &t) == TN_ERR_INVAL,
              "darray block 4 x 2 < 10");
    }
}

/* ---- oracle --------------------------------------------------------------- */

/* A type as the list of the offsets of its data bytes, in type-map order. */
typedef struct {
    tn_dt_t   *dt;
    ptrdiff_t *off;
    size_t     n;
} otype_t;

static uint64_t rng = 88172645463325252ULL;

static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static void o_push(otype_t *o, ptrdiff_t off)
{
    o->off = realloc(o->off, (o->n + 1) * sizeof(*o->off));
    o->off[o->n++] = off;
}

/* Add count elements of t at disp. */
static void o_block(otype_t *o, const otype_t *t, ptrdiff_t disp, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        for (size_t k = 0; k < t->n; k++) {
            o_push(o, disp + (ptrdiff_t)i * t->dt->extent + t->off[k]);
        }
    }
}

static otype_t o_predef(MPI_Datatype h)
{
    otype_t o = { (tn_dt_t *)P(h), NULL, 0 };
    const tn_dt_t *dt = P(h);

    for (size_t s = 0; s < dt->nsegs; s++) {
        for (size_t b = 0; b < dt->segs[s].len; b++) {
            o_push(&o, dt->segs[s].off + (ptrdiff_t)b);
        }
    }
    return o;
}

static void o_free(otype_t *o)
{
    if (o->dt != NULL && !o->dt->predefined) {
        tn_dt_release(o->dt);
    }
    free(o->off);
}

/* A random type of depth <= depth built from the base types. */
static otype_t o_random(int depth)
{
    static const MPI_Datatype base[] = { MPI_CHAR, MPI_SHORT, MPI_INT, MPI_DOUBLE,
                                         MPI_SHORT_INT, MPI_DOUBLE_INT };
    otype_t o = { NULL, NULL, 0 };

    if (depth == 0 || rnd(4) == 0) {
        return o_predef(base[rnd(6)]);
    }
    otype_t t = o_random(depth - 1);
    tn_status_t st = TN_OK;

    switch (rnd(5)) {
    case 0: {
        size_t n = rnd(4);
        st = tn_dt_create_contig(n, t.dt, &o.dt);
        o_block(&o, &t, 0, n);
        break;
    }
    case 1: {
        size_t n = rnd(4) + 1, bl = rnd(3) + 1;
        ptrdiff_t stride = ((ptrdiff_t)rnd(9) - 3) * (rnd(2) ? t.dt->extent : 3);
        st = tn_dt_create_hvector(n, bl, stride, t.dt, &o.dt);
        for (size_t i = 0; i < n; i++) {
            o_block(&o, &t, (ptrdiff_t)i * stride, bl);
        }
        break;
    }
    case 2: {
        tn_dt_block_t b[4];
        size_t n = rnd(4) + 1;
        for (size_t i = 0; i < n; i++) {
            b[i].disp = ((ptrdiff_t)rnd(12) - 3) * 4;
            b[i].count = rnd(3);
            b[i].type = t.dt;
            o_block(&o, &t, b[i].disp, b[i].count);
        }
        st = tn_dt_create_blocks(n, b, 0, &o.dt);
        break;
    }
    case 3: {
        /* struct of t and another random type */
        otype_t u = o_random(depth - 1);
        tn_dt_block_t b[2] = { { 0, rnd(2) + 1, t.dt }, { 0, rnd(3), u.dt } };
        b[1].disp = (ptrdiff_t)(rnd(2) ? 64 : -32);
        st = tn_dt_create_blocks(2, b, 1, &o.dt);
        o_block(&o, &t, b[0].disp, b[0].count);
        o_block(&o, &u, b[1].disp, b[1].count);
        o_free(&u);
        break;
    }
    default: {
        ptrdiff_t lb = (ptrdiff_t)rnd(5) * 4 - 8, ext = (ptrdiff_t)rnd(6) * 8 + 4;
        st = tn_dt_create_resized(t.dt, lb, ext, &o.dt);
        o_block(&o, &t, 0, 1);
        break;
    }
    }
    CHECK(st == TN_OK, "random constructor failed: %d", (int)st);
    o_free(&t);
    return o;
}

#define BUF 65536
#define MID 32768

static int pass_seg(ptrdiff_t off, size_t len, void *arg)
{
    unsigned char *seen = arg;

    for (size_t b = 0; b < len; b++) {
        seen[MID + off + (ptrdiff_t)b]++;
    }
    return 0;
}

static void test_oracle(void)
{
    static unsigned char src[BUF], dst[BUF], ref[BUF], pk[BUF], pk2[BUF], seen[BUF];

    for (int iter = 0; iter < 400; iter++) {
        otype_t o = o_random(3);
        size_t count = rnd(4), bytes;
        int bad = 0;

        if (o.dt == NULL) {
            o_free(&o);
            continue;
        }
        CHECK(o.dt->size == o.n, "iter %d: size %zu, oracle %zu", iter, o.dt->size, o.n);
        bytes = count * o.n;
        if (bytes > 8192 || o.dt->extent > 4096 || o.dt->extent < -4096 ||
            o.dt->true_lb < -8192 || o.dt->true_lb + o.dt->true_extent > 8192) {
            o_free(&o);
            continue;
        }
        for (int i = 0; i < BUF; i++) {
            src[i] = (unsigned char)(i * 7 + iter);
        }
        /* pack: byte k of element e comes from its oracle offset */
        tn_dt_pack(o.dt, src + MID, count, pk);
        for (size_t e = 0; e < count; e++) {
            for (size_t k = 0; k < o.n; k++) {
                bad += pk[e * o.n + k] != src[MID + (ptrdiff_t)e * o.dt->extent + o.off[k]];
            }
        }
        CHECK(bad == 0, "iter %d: pack differs in %d bytes", iter, bad);

        /* pack_partial of random ranges is the matching slice */
        for (int r = 0; r < 8 && bytes > 0; r++) {
            size_t a = rnd((unsigned)bytes), len = rnd((unsigned)(bytes - a) + 1);
            memset(pk2, 0, len + 1);
            tn_dt_pack_partial(o.dt, src + MID, count, a, len, pk2);
            CHECK(memcmp(pk2, pk + a, len) == 0, "iter %d: pack_partial [%zu, +%zu)", iter, a,
                  len);
        }

        /* unpack writes exactly the data bytes (a byte written twice by an
         * overlapping type keeps the last value, as in the oracle) */
        memset(dst, 0xee, BUF);
        memset(ref, 0xee, BUF);
        tn_dt_unpack(o.dt, pk, count, dst + MID);
        for (size_t e = 0; e < count; e++) {
            for (size_t k = 0; k < o.n; k++) {
                ref[MID + (ptrdiff_t)e * o.dt->extent + o.off[k]] = pk[e * o.n + k];
            }
        }
        CHECK(memcmp(dst, ref, BUF) == 0, "iter %d: unpack", iter);

        /* unpack in random pieces gives the same */
        memset(dst, 0xee, BUF);
        for (size_t a = 0; a < bytes;) {
            size_t len = rnd(40) + 1;
            if (len > bytes - a) {
                len = bytes - a;
            }
            tn_dt_unpack_partial(o.dt, pk + a, count, a, len, dst + MID);
            a += len;
        }
        CHECK(memcmp(dst, ref, BUF) == 0, "iter %d: unpack_partial", iter);

        /* iovecs of random ranges, in batches of at most 1-4 entries,
         * list the addresses of the stream's bytes in order */
        for (int r = 0; r < 8 && bytes > 0; r++) {
            size_t a = rnd((unsigned)bytes), len = rnd((unsigned)(bytes - a) + 1), k = a;
            struct iovec iov[4];
            int calls = 0;
            bad = 0;
            while (k < a + len && calls++ < 20000) {
                int n = (int)rnd(4) + 1, max = n;
                size_t got = tn_dt_iov(o.dt, src + MID, count, k, a + len - k, iov, &n), sum = 0;
                CHECK(n >= 1 && n <= max && got > 0, "iter %d: iov n %d of %d, %zu bytes", iter,
                      n, max, got);
                for (int i = 0; i < n; i++) {
                    for (size_t b = 0; b < iov[i].iov_len; b++, k++) {
                        size_t e = k / o.n;
                        bad += (unsigned char *)iov[i].iov_base + b !=
                               src + MID + (ptrdiff_t)e * o.dt->extent + o.off[k % o.n];
                    }
                    sum += iov[i].iov_len;
                    /* touching pieces are one entry */
                    if (i > 0) {
                        bad += (char *)iov[i - 1].iov_base + iov[i - 1].iov_len ==
                               (char *)iov[i].iov_base;
                    }
                }
                CHECK(sum == got, "iter %d: iov covers %zu, says %zu", iter, sum, got);
                if (got == 0) {
                    break;
                }
            }
            CHECK(bad == 0 && k == a + len, "iter %d: iov [%zu, +%zu): %d bad, ended at %zu",
                  iter, a, len, bad, k);
        }

        /* segments cover the data bytes (with multiplicity) */
        memset(seen, 0, BUF);
        tn_dt_foreach_seg(o.dt, count, pass_seg, seen);
        memset(pk2, 0, BUF);
        for (size_t e = 0; e < count; e++) {
            for (size_t k = 0; k < o.n; k++) {
                pk2[MID + (ptrdiff_t)e * o.dt->extent + o.off[k]]++;
            }
        }
        CHECK(memcmp(seen, pk2, BUF) == 0, "iter %d: foreach_seg", iter);

        /* copy to bytes and back */
        memset(dst, 0xee, BUF);
        tn_dt_copy(o.dt, src + MID, count, P(MPI_BYTE), dst, bytes, bytes);
        CHECK(memcmp(dst, pk, bytes) == 0, "iter %d: copy to bytes", iter);
        memset(dst, 0xee, BUF);
        tn_dt_copy(P(MPI_BYTE), pk, bytes, o.dt, dst + MID, count, bytes);
        CHECK(memcmp(dst, ref, BUF) == 0, "iter %d: copy from bytes", iter);

        /* whole elements count nbasic each */
        CHECK(tn_dt_count_elements(o.dt, bytes) == (int64_t)(count * o.dt->nbasic),
              "iter %d: count_elements", iter);
        o_free(&o);
    }
}

/* ---- signatures and partial elements ---------------------------------------- */

static void test_elements(void)
{
    tn_dt_t *t;
    tn_dt_block_t b[2] = { { 0, 1, P(MPI_INT) }, { 8, 2, P(MPI_DOUBLE) } };

    OK(tn_dt_create_blocks(2, b, 1, &t));      /* {int; double[2]}: 20 bytes */
    CHECK(t->size == 20 && t->nbasic == 3, "struct size");
    CHECK(tn_dt_count_elements(t, 0) == 0, "0 bytes");
    CHECK(tn_dt_count_elements(t, 4) == 1, "the int");
    CHECK(tn_dt_count_elements(t, 12) == 2, "int and one double");
    CHECK(tn_dt_count_elements(t, 20 + 12) == 5, "one element and a half");
    CHECK(tn_dt_count_elements(t, 6) == -1, "inside a basic element");
    tn_dt_release(t);

    /* pairs: the value without its index counts one */
    OK(tn_dt_create_contig(3, P(MPI_DOUBLE_INT), &t));
    CHECK(t->basic == P(MPI_DOUBLE_INT) && t->nbasic == 6, "pair contig");
    CHECK(tn_dt_count_elements(t, 12 + 8) == 3, "pair value");
    CHECK(tn_dt_count_elements(t, 12 + 10) == -1, "pair partial index");
    tn_dt_release(t);

    /* vector of a 2-type struct: runs repeated, not written out */
    {
        tn_dt_t *s;
        tn_dt_block_t sb[2] = { { 0, 1, P(MPI_INT) }, { 8, 1, P(MPI_DOUBLE) } };
        OK(tn_dt_create_blocks(2, sb, 1, &s));
        OK(tn_dt_create_hvector(100000, 1, 32, s, &t));
        CHECK(t->nruns == 2 && t->run_rep == 100000 && t->nbasic == 200000 &&
              t->basic == NULL, "repeated runs: nruns %zu rep %zu", t->nruns, t->run_rep);
        CHECK(tn_dt_count_elements(t, 12 * 1000 + 4) == 2001, "repeated runs partial");
        tn_dt_release(t);
        tn_dt_release(s);
    }
}

/* ---- reductions on derived types ------------------------------------------------- */

static void test_ops(void)
{
    const tn_op_t *sum = tn_op_predefined((uintptr_t)MPI_SUM);
    const tn_op_t *maxloc = tn_op_predefined((uintptr_t)MPI_MAXLOC);
    tn_dt_t *t;
    double a[10], b[10];

    OK(tn_dt_create_hvector(5, 1, 16, P(MPI_DOUBLE), &t));    /* every other double */
    CHECK(tn_op_valid_for(sum, t), "SUM on vector of double");
    CHECK(!tn_op_valid_for(maxloc, t), "MAXLOC on vector of double");
    for (int i = 0; i < 10; i++) {
        a[i] = i;
        b[i] = 100 * i;
    }
    OK(tn_op_apply(sum, t, (uintptr_t)t, a, b, 1));
    for (int i = 0; i < 10; i++) {
        CHECK(b[i] == (i % 2 == 0 ? 101 * i : 100 * i), "vector SUM element %d = %g", i, b[i]);
    }
    tn_dt_release(t);

    /* doubles at unaligned offsets (stride 12): same results */
    {
        unsigned char x[40], y[40];
        double one = 1.5, two = 2.25, got;
        OK(tn_dt_create_hvector(3, 1, 12, P(MPI_DOUBLE), &t));
        for (int i = 0; i < 3; i++) {
            memcpy(x + 12 * i, &one, 8);
            memcpy(y + 12 * i, &two, 8);
        }
        OK(tn_op_apply(sum, t, (uintptr_t)t, x, y, 1));
        for (int i = 0; i < 3; i++) {
            memcpy(&got, y + 12 * i, 8);
            CHECK(got == 3.75, "unaligned SUM element %d = %g", i, got);
        }
        tn_dt_release(t);
    }

    /* MAXLOC on a contiguous of MPI_DOUBLE_INT (padded pair) */
    {
        struct { double v; int i; } x[3] = { { 1, 0 }, { 5, 1 }, { 2, 2 } },
                                    y[3] = { { 3, 7 }, { 5, 0 }, { 1, 9 } };
        OK(tn_dt_create_contig(3, P(MPI_DOUBLE_INT), &t));
        CHECK(tn_op_valid_for(maxloc, t), "MAXLOC on contig of DOUBLE_INT");
        OK(tn_op_apply(maxloc, t, (uintptr_t)t, x, y, 1));
        CHECK(y[0].v == 3 && y[0].i == 7 && y[1].v == 5 && y[1].i == 0 && y[2].v == 2 &&
              y[2].i == 2, "MAXLOC results");
        tn_dt_release(t);
    }
    /* heterogeneous: predefined ops refused, REPLACE copies data bytes */
    {
        tn_dt_block_t sb[2] = { { 0, 1, P(MPI_INT) }, { 8, 1, P(MPI_DOUBLE) } };
        const tn_op_t *rep = tn_op_predefined((uintptr_t)MPI_REPLACE);
        struct { int i; int pad; double d; } s1 = { 1, 111, 2.5 }, s2 = { 9, 222, 9.5 };
        OK(tn_dt_create_blocks(2, sb, 1, &t));
        CHECK(!tn_op_valid_for(sum, t), "SUM on struct");
        OK(tn_op_apply(rep, t, (uintptr_t)t, &s1, &s2, 1));
        CHECK(s2.i == 1 && s2.pad == 222 && s2.d == 2.5, "REPLACE on struct");
        tn_dt_release(t);
    }
}

/* ---- external32 ------------------------------------------------------------------ */

static void test_ext32(void)
{
    static const struct {
        MPI_Datatype h;
        size_t       x;
    } sizes[] = {
        { MPI_CHAR, 1 },  { MPI_SHORT, 2 }, { MPI_INT, 4 },         { MPI_LONG, 4 },
        { MPI_UNSIGNED_LONG, 4 }, { MPI_LONG_LONG, 8 }, { MPI_FLOAT, 4 },
        { MPI_DOUBLE, 8 }, { MPI_LONG_DOUBLE, 16 }, { MPI_WCHAR, 2 }, { MPI_C_BOOL, 1 },
        { MPI_AINT, 8 },  { MPI_COUNT, 8 }, { MPI_OFFSET, 8 },      { MPI_C_DOUBLE_COMPLEX, 16 },
        { MPI_C_LONG_DOUBLE_COMPLEX, 32 }, { MPI_DOUBLE_INT, 12 }, { MPI_LONG_INT, 8 },
        { MPI_SHORT_INT, 6 }, { MPI_LONG_DOUBLE_INT, 20 }, { MPI_2INT, 8 },
        { MPI_INTEGER, 4 }, { MPI_LOGICAL, 4 }, { MPI_REAL16, 16 }, { MPI_COMPLEX32, 32 },
    };
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        CHECK(tn_dt_ext32_size(P(sizes[i].h)) == sizes[i].x, "ext32 size of %s: %zu",
              P(sizes[i].h)->name, tn_dt_ext32_size(P(sizes[i].h)));
    }
    {
        long l[2] = { 1, -2 }, back[2];
        unsigned char x[8];
        static const unsigned char want[8] = { 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe };
        OK(tn_dt_pack_ext32(P(MPI_LONG), l, 2, x));
        CHECK(memcmp(x, want, 8) == 0, "long external32 bytes");
        OK(tn_dt_unpack_ext32(P(MPI_LONG), x, 2, back));
        CHECK(back[0] == 1 && back[1] == -2, "long round trip");
    }
    {
        long double v[3] = { 1.0L, -0.375L, 3.0e-4000L }, back[3];
        unsigned char x[48];
        static const unsigned char one[16] = { 0x3f, 0xff };
        static const unsigned char m38[16] = { 0xbf, 0xfd, 0x80 };   /* -1.5 * 2^-2 */
        OK(tn_dt_pack_ext32(P(MPI_LONG_DOUBLE), v, 3, x));
        CHECK(memcmp(x, one, 16) == 0, "long double 1.0 as binary128");
        CHECK(memcmp(x + 16, m38, 16) == 0, "long double -0.375 as binary128");
        OK(tn_dt_unpack_ext32(P(MPI_LONG_DOUBLE), x, 3, back));
        CHECK(back[0] == v[0] && back[1] == v[1] && back[2] == v[2], "long double round trip");
    }
    {
        /* a struct {short; double} -> 2 + 8 bytes, big-endian */
        tn_dt_t *t;
        tn_dt_block_t sb[2] = { { 0, 1, P(MPI_SHORT) }, { 8, 1, P(MPI_DOUBLE) } };
        struct { short s; double d; } v = { -3, 2.0 }, back = { 0, 0 };
        unsigned char x[10];
        static const unsigned char want[10] = { 0xff, 0xfd, 0x40, 0, 0, 0, 0, 0, 0, 0 };
        OK(tn_dt_create_blocks(2, sb, 1, &t));
        CHECK(tn_dt_ext32_size(t) == 10, "struct ext32 size");
        OK(tn_dt_pack_ext32(t, &v, 1, x));
        CHECK(memcmp(x, want, 10) == 0, "struct external32 bytes");
        OK(tn_dt_unpack_ext32(t, x, 1, &back));
        CHECK(back.s == -3 && back.d == 2.0, "struct round trip");
        tn_dt_release(t);
    }
}

int main(void)
{
    test_shapes();
    test_arrays();
    test_oracle();
    test_elements();
    test_ops();
    test_ext32();
    if (failures != 0) {
        fprintf(stderr, "test_dt_flat: %d failures\n", failures);
        return 1;
    }
    printf("test_dt_flat: No Errors\n");
    return 0;
}
