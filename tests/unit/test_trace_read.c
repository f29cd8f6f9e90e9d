/* tern-trace's reader (tools/tern-trace/trace_read.c): a trace built here
 * decodes to what was written, ticks map to ns through the CLOCK records,
 * and each of a list of lies is refused with a message, never crashing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_read.h"

static int fails;
#define CHECK(c)                                                         \
    do {                                                                 \
        if (!(c)) {                                                      \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
            fails++;                                                     \
        }                                                                \
    } while (0)

typedef struct {
    unsigned char b[8192];
    size_t        n;
} buf_t;

static void put(buf_t *b, const void *p, size_t n)
{
    memcpy(b->b + b->n, p, n);
    b->n += n;
}

static size_t rec_begin(buf_t *b, unsigned kind, unsigned call, uint64_t t0, uint64_t t1)
{
    size_t at = b->n;
    tern_trace_rec_t r = { 0, (uint16_t)call, (uint8_t)kind, 0, t0, t1 };
    put(b, &r, sizeof(r));
    return at;
}

static void rec_end(buf_t *b, size_t at)
{
    uint32_t len = (uint32_t)(b->n - at);
    memcpy(b->b + at, &len, sizeof(len));
}

static void item(buf_t *b, unsigned type, const void *p, size_t n)
{
    tern_trace_item_t h = { (uint16_t)type, 0, (uint32_t)((sizeof(h) + n + 3) & ~(size_t)3) };
    put(b, &h, sizeof(h));
    put(b, p, n);
    static const unsigned char zero[4];
    put(b, zero, h.len - sizeof(h) - n);
}

/* Offsets of interesting fields, for the lies. */
static size_t off_send, off_coll, off_def, off_rec2;

/* A 2-rank job's rank 1: TSC clock at 2 ticks per ns. */
static void build(buf_t *b)
{
    memset(b, 0, sizeof(*b));
    static const char names[] = "MPI_Init\0MPI_Send\0MPI_Allreduce\0allreduce:ring\0";
    tern_trace_hdr_t h;
    memset(&h, 0, sizeof(h));
    memcpy(h.magic, TERN_TRACE_MAGIC, sizeof(TERN_TRACE_MAGIC));
    h.version = TERN_TRACE_VERSION;
    h.hdr_size = TERN_TRACE_HDR_SIZE;
    h.rank = 1;
    h.size = 2;
    h.nnodes = 1;
    h.clock = TERN_TRACE_CLOCK_TSC;
    h.ncalls = 3;
    h.nalgos = 1;
    h.names_bytes = sizeof(names) - 1;
    h.t0_ticks = 1000;
    h.t0_ns = 5000;
    strcpy(h.host, "node\x1b[31m");        /* an escape: printed as '?' */
    put(b, &h, sizeof(h));
    put(b, names, sizeof(names) - 1);
    size_t at = rec_begin(b, TERN_TRACE_REC_COMM, 0, 1000, 1000);
    off_def = b->n + TERN_TRACE_ITEM_HDR;
    tern_trace_commdef_t d = { 1, 0, 2, 1, 0, 0 };
    unsigned char p[sizeof(d) + 8];
    int32_t w[2] = { 0, 1 };
    memcpy(p, &d, sizeof(d));
    memcpy(p + sizeof(d), w, sizeof(w));
    item(b, TERN_TRACE_I_COMMDEF, p, sizeof(p));
    rec_end(b, at);
    off_rec2 = b->n;
    at = rec_begin(b, TERN_TRACE_REC_CALL, 1, 3000, 3200);
    off_send = b->n + TERN_TRACE_ITEM_HDR;
    tern_trace_send_t s = { 1, 0, 0, 7, 100, TERN_TRACE_SYNC, TERN_TRACE_BLOCKING, 0 };
    item(b, TERN_TRACE_I_SEND, &s, sizeof(s));
    rec_end(b, at);
    at = rec_begin(b, TERN_TRACE_REC_CALL, 2, 4000, 5000);
    off_coll = b->n + TERN_TRACE_ITEM_HDR;
    tern_trace_coll_t c = { 1, TERN_TRACE_ALLREDUCE, 0, TERN_TRACE_NONE, TERN_TRACE_OP_SUM,
                            0, 64, 64, 0, 0, 0 };
    item(b, TERN_TRACE_I_COLL, &c, sizeof(c));
    uint64_t counts[2] = { 32, 32 };
    item(b, TERN_TRACE_I_SCOUNTS, counts, sizeof(counts));
    uint32_t future = 7;
    item(b, 999, &future, sizeof(future));  /* a later version's item: skipped */
    rec_end(b, at);
    at = rec_begin(b, TERN_TRACE_REC_CLOCK, 0, 21000, 15000);   /* 2 ticks per ns */
    rec_end(b, at);
}

/* Decode b; returns the number of records, -1 at the first error. */
static int decode(const buf_t *b, tt_file_t *t, int keep)
{
    FILE *f = fmemopen((void *)b->b, b->n, "rb");
    if (tt_open_stream(t, f, "test") != 0) {
        return -1;
    }
    tt_rec_t r;
    int n = 0, rc;
    while ((rc = tt_next(t, &r)) == 1) {
        n++;
    }
    if (!keep) {
        tt_close(t);
    }
    return rc < 0 ? -1 : n;
}

static void good(void)
{
    buf_t b;
    build(&b);
    FILE *f = fmemopen(b.b, b.n, "rb");
    tt_file_t t;
    CHECK(tt_open_stream(&t, f, "good") == 0);
    CHECK(t.hdr.rank == 1 && strcmp(t.hdr.host, "node?[31m") == 0);
    CHECK(strcmp(tt_call_name(&t, 2), "MPI_Allreduce") == 0);
    CHECK(strcmp(tt_algo_name(&t, 0), "allreduce:ring") == 0);
    tt_rec_t r;
    CHECK(tt_next(&t, &r) == 1 && r.kind == TERN_TRACE_REC_COMM);
    CHECK(tt_comm(&t, 1) != NULL && tt_comm(&t, 1)->world[1] == 1);
    CHECK(tt_next(&t, &r) == 1 && r.call == 1 && r.nitems == 1);
    CHECK(r.items[0].type == TERN_TRACE_I_SEND && r.items[0].u.send.bytes == 100 &&
          r.items[0].u.send.mode == TERN_TRACE_SYNC);
    /* 3000 ticks: 2000 after t0 at 2 ticks per ns -> 5000 + 1000 */
    CHECK(tt_ns(&t, r.t_enter) == 6000 && tt_ns(&t, r.t_exit) == 6100);
    CHECK(tt_next(&t, &r) == 1 && r.nitems == 2);
    CHECK(r.items[0].u.coll.kind == TERN_TRACE_ALLREDUCE && r.items[0].u.coll.algo == 0);
    CHECK(r.items[1].u.counts.n == 2 && tt_count(&r.items[1], 1) == 32);
    CHECK(tt_next(&t, &r) == 1 && r.kind == TERN_TRACE_REC_CLOCK);
    CHECK(tt_next(&t, &r) == 0);
    tt_close(&t);
}

typedef void (*lie_fn)(buf_t *b);

static void set32(buf_t *b, size_t off, uint32_t v) { memcpy(b->b + off, &v, 4); }
static void set64(buf_t *b, size_t off, uint64_t v) { memcpy(b->b + off, &v, 8); }

static void lie_magic(buf_t *b) { b->b[0] = 'X'; }
static void lie_version(buf_t *b) { set32(b, offsetof(tern_trace_hdr_t, version), 2); }
static void lie_rank(buf_t *b) { set32(b, offsetof(tern_trace_hdr_t, rank), 2); }
static void lie_node(buf_t *b) { set32(b, offsetof(tern_trace_hdr_t, node), 1); }
static void lie_names_long(buf_t *b) { set32(b, offsetof(tern_trace_hdr_t, names_bytes), 1u << 30); }
static void lie_names_count(buf_t *b) { set32(b, offsetof(tern_trace_hdr_t, ncalls), 4); }
static void lie_name_ctrl(buf_t *b) { b->b[TERN_TRACE_HDR_SIZE + 1] = '\n'; }
static void lie_rec_short(buf_t *b) { set32(b, off_rec2, 20); }
static void lie_rec_odd(buf_t *b) { set32(b, off_rec2, 46); }
static void lie_rec_long(buf_t *b) { set32(b, off_rec2, 1u << 20); }
static void lie_rec_kind(buf_t *b) { b->b[off_rec2 + 6] = 9; }
static void lie_rec_call(buf_t *b) { b->b[off_rec2 + 4] = 3; }
static void lie_rec_flags(buf_t *b) { b->b[off_rec2 + 7] = 0x40; }
static void lie_time(buf_t *b) { set64(b, off_rec2 + 16, 10); }
static void lie_item_len(buf_t *b) { set32(b, off_send - 4, 400); }
static void lie_item_reserved(buf_t *b) { b->b[off_send - 6] = 1; }
static void lie_send_comm(buf_t *b) { set32(b, off_send, 2); }
static void lie_send_peer(buf_t *b) { set32(b, off_send + 4, 2); }
static void lie_send_any(buf_t *b) { set32(b, off_send + 4, (uint32_t)TERN_TRACE_ANY); }
static void lie_send_mode(buf_t *b) { b->b[off_send + 24] = 4; }
static void lie_coll_kind(buf_t *b) { b->b[off_coll + 4] = 0; }
static void lie_coll_algo(buf_t *b) { b->b[off_coll + 6] = 1; }
static void lie_coll_op(buf_t *b) { set32(b, off_coll + 12, 99); }
static void lie_coll_root(buf_t *b) { set32(b, off_coll + 8, 2); }
static void lie_def_id(buf_t *b) { set32(b, off_def, 0); }
static void lie_def_rank(buf_t *b) { set32(b, off_def + 12, 0); }  /* world[0] is 0, not 1 */
static void lie_def_size(buf_t *b) { set32(b, off_def + 8, 3); }   /* 3 ranks in room for 2 */
static void lie_def_inter(buf_t *b) { set32(b, off_def + 20, TERN_TRACE_COMM_INTER); }
static void lie_cut(buf_t *b) { b->n = off_coll + 10; }

/* A forged clock pair can make the tick rate anything: times past the
 * last nanosecond clamp, times before the first one stop at zero. */
static void clock_rate_forged(void)
{
    tt_file_t t;
    memset(&t, 0, sizeof(t));
    t.hdr.clock = TERN_TRACE_CLOCK_TSC;
    t.c0_ticks = 10;
    t.c1_ticks = 11;
    t.c0_ns = 0;
    t.c1_ns = UINT64_MAX;
    CHECK(tt_ns(&t, UINT64_MAX) == UINT64_MAX);
    CHECK(tt_ns(&t, 0) == 0);
    CHECK(tt_ns(&t, 10) == 0);
}

int main(void)
{
    good();
    clock_rate_forged();
    static const struct {
        const char *name;
        lie_fn      fn;
    } lies[] = {
        { "magic", lie_magic }, { "version", lie_version }, { "rank", lie_rank },
        { "node", lie_node }, { "names_long", lie_names_long },
        { "names_count", lie_names_count }, { "name_ctrl", lie_name_ctrl },
        { "rec_short", lie_rec_short }, { "rec_odd", lie_rec_odd },
        { "rec_long", lie_rec_long }, { "rec_kind", lie_rec_kind },
        { "rec_call", lie_rec_call }, { "rec_flags", lie_rec_flags }, { "time", lie_time },
        { "item_len", lie_item_len }, { "item_reserved", lie_item_reserved },
        { "send_comm", lie_send_comm }, { "send_peer", lie_send_peer },
        { "send_any", lie_send_any }, { "send_mode", lie_send_mode },
        { "coll_kind", lie_coll_kind }, { "coll_algo", lie_coll_algo },
        { "coll_op", lie_coll_op }, { "coll_root", lie_coll_root },
        { "def_id", lie_def_id }, { "def_rank", lie_def_rank }, { "def_size", lie_def_size },
        { "def_inter", lie_def_inter }, { "cut", lie_cut },
    };
    buf_t b;
    tt_file_t t;
    build(&b);
    CHECK(decode(&b, &t, 0) == 4);
    for (size_t i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
        build(&b);
        lies[i].fn(&b);
        int n = decode(&b, &t, 1);
        if (n != -1) {
            fprintf(stderr, "lie %s: not refused (%d records)\n", lies[i].name, n);
            fails++;
        } else if (t.err[0] == '\0') {
            fprintf(stderr, "lie %s: refused without a message\n", lies[i].name);
            fails++;
        }
        tt_close(&t);
    }
    if (fails) {
        fprintf(stderr, "test_trace_read: %d failures\n", fails);
        return 1;
    }
    printf("test_trace_read: ok (%zu lies refused)\n", sizeof(lies) / sizeof(lies[0]));
    return 0;
}
