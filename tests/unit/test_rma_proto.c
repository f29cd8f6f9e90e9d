/* tn_rma_decode (src/rma/rma_proto.c): what a target accepts of a
 * one-sided request, and what it refuses, field by field. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include "rma/rma_proto.h"

static int failures;

#define CHECK(cond, what)                                                   \
    do {                                                                    \
        if (!(cond)) {                                                      \
            failures++;                                                     \
            fprintf(stderr, "test_rma_proto:%d: %s: %s\n", __LINE__, what, #cond); \
        }                                                                   \
    } while (0)

static char window[256];

typedef struct {
    tn_rma_hdr_t h;
    tn_rma_seg_t s[4];
    char         data[64];
} msg_t;

static size_t build(msg_t *m, unsigned type, uint32_t nsegs, uint64_t disp, size_t data)
{
    memset(m, 0, sizeof(*m));
    m->h.version = TN_RMA_PROTO_VERSION;
    m->h.type = (uint8_t)type;
    m->h.nsegs = nsegs;
    m->h.disp = disp;
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < nsegs; i++) {
        m->s[i].off = (int64_t)(16 * i);
        m->s[i].len = 8;
        bytes += 8;
    }
    m->h.bytes = bytes;
    /* the segments sit right after the header; data follows them */
    size_t len = sizeof(m->h) + nsegs * sizeof(tn_rma_seg_t);
    if (nsegs < 4) {
        memmove((char *)m + len, m->data, data);
    }
    return TN_RMA_PADDED(len + data);      /* the padding is zero */
}

static size_t used;   /* of the last decode */

/* A message of one request: accepted only whole. */
static tn_status_t decode(const msg_t *m, size_t len, const tn_rma_mem_t *mem,
                          tn_rma_req_t *r, const char **why)
{
    tn_status_t st = tn_rma_decode(m, len, mem, r, &used, why);
    if (st == TN_OK && used != len) {
        *why = "(test) the request does not end the message";
        return TN_ERR_INVAL;
    }
    return st;
}

int main(void)
{
    tn_rma_mem_t mem = { (uintptr_t)window, sizeof(window), NULL, 0, 0 };
    tn_rma_req_t r;
    const char *why = NULL;
    msg_t m;
    size_t len;

    /* a put of two 8-byte pieces with its data inline */
    len = build(&m, TN_RMA_PUT, 2, 32, 16);
    CHECK(decode(&m, len, &mem, &r, &why) == TN_OK, "valid put");
    CHECK(r.at == window + 32 && r.bytes == 16 && r.nsegs == 2 && r.data != NULL, "put fields");

    /* the last byte of the window is fine, one past it is not */
    len = build(&m, TN_RMA_PUT, 1, sizeof(window) - 8, 8);
    CHECK(decode(&m, len, &mem, &r, &why) == TN_OK, "put at the end");
    len = build(&m, TN_RMA_PUT, 1, sizeof(window) - 7, 8);
    CHECK(decode(&m, len, &mem, &r, &why) == TN_ERR_PROTO && strstr(why, "outside"),
          "put past the end");
    /* a negative offset before the window, and one that wraps */
    len = build(&m, TN_RMA_GET, 1, 4, 0);
    m.s[0].off = -8;
    CHECK(decode(&m, len, &mem, &r, &why) == TN_ERR_PROTO, "before the window");
    len = build(&m, TN_RMA_GET, 1, UINT64_MAX - 3, 0);
    m.s[0].off = 8;
    CHECK(decode(&m, len, &mem, &r, &why) == TN_ERR_PROTO, "wrapping displacement");

    /* sizes that do not add up */
    len = build(&m, TN_RMA_PUT, 2, 0, 16);
    m.h.bytes = 24;
    CHECK(decode(&m, len, &mem, &r, &why) == TN_ERR_PROTO, "bytes above the segments");
    len = build(&m, TN_RMA_PUT, 2, 0, 16);
    CHECK(decode(&m, len - 1, &mem, &r, &why) == TN_ERR_PROTO, "inline data short");

    /* padding: to TN_RMA_ALIGN, present, zero */
    len = build(&m, TN_RMA_PUT, 1, 0, 8);
    CHECK(len == 80 && decode(&m, len, &mem, &r, &why) == TN_OK, "padded put");
    CHECK(decode(&m, len - 8, &mem, &r, &why) == TN_ERR_PROTO && strstr(why, "padding"),
          "padding missing");
    ((char *)&m)[len - 1] = 1;
    CHECK(decode(&m, len, &mem, &r, &why) == TN_ERR_PROTO && strstr(why, "padding"),
          "padding not zero");

    /* several requests in one message: each decoded from where the last ended */
    {
        _Alignas(16) char batch[3 * sizeof(msg_t)];
        size_t a = build(&m, TN_RMA_PUT, 1, 8, 8);
        memcpy(batch, &m, a);
        size_t b = build(&m, TN_RMA_ACC, 2, 64, 16);
        m.h.op = (uint64_t)(uintptr_t)MPI_SUM;
        m.h.basic = (uint64_t)(uintptr_t)MPI_INT;
        memcpy(batch + a, &m, b);
        size_t c = build(&m, TN_RMA_FLUSH, 0, 0, 0);
        m.h.cookie = 7;
        memcpy(batch + a + b, &m, c);
        size_t n = a + b + c;
        CHECK(tn_rma_decode(batch, n, &mem, &r, &used, &why) == TN_OK && used == a &&
              r.type == TN_RMA_PUT && r.at == window + 8, "first of three");
        CHECK(tn_rma_decode(batch + a, n - a, &mem, &r, &used, &why) == TN_OK && used == b &&
              r.type == TN_RMA_ACC && r.at == window + 64 && r.bytes == 16, "second of three");
        CHECK(tn_rma_decode(batch + a + b, c, &mem, &r, &used, &why) == TN_OK && used == c &&
              r.type == TN_RMA_FLUSH && r.cookie == 7, "third of three");
        /* a first request grown by 16 bytes: its padding is now the next
         * header's displacement, not zero */
        memcpy(&m, batch, a);
        m.h.bytes = 24;
        m.s[0].len = 24;
        memcpy(batch, &m, sizeof(m.h) + sizeof(m.s[0]));
        CHECK(tn_rma_decode(batch, n, &mem, &r, &used, &why) == TN_ERR_PROTO,
              "request reaching into the next one");
    }
    len = build(&m, TN_RMA_GET, 2, 0, 0);
    m.h.nsegs = 1000000;
    CHECK(decode(&m, len, &mem, &r, &why) == TN_ERR_PROTO && strstr(why, "nsegs"),
          "more segments than the message holds");
    CHECK(decode(&m, sizeof(m.h) - 1, &mem, &r, &why) == TN_ERR_PROTO, "short header");

    /* version, type, flags */
    len = build(&m, TN_RMA_GET, 1, 0, 0);
    m.h.version = 2;
    CHECK(decode(&m, len, &mem, &r, &why) == TN_ERR_PROTO && strstr(why, "version"), "version");
    len = build(&m, TN_RMA_NTYPES, 1, 0, 0);
    CHECK(decode(&m, len, &mem, &r, &why) == TN_ERR_PROTO && strstr(why, "type"), "type");
    len = build(&m, TN_RMA_GET, 1, 0, 0);
    m.h.flags = TN_RMA_F_DATA;
    CHECK(decode(&m, len, &mem, &r, &why) == TN_ERR_PROTO && strstr(why, "flags"), "flags");

    /* control requests carry nothing */
    len = build(&m, TN_RMA_LOCK, 0, 0, 0);
    m.h.flags = TN_RMA_F_EXCLUSIVE;
    CHECK(decode(&m, len, &mem, &r, &why) == TN_OK && r.type == TN_RMA_LOCK, "lock");
    len = build(&m, TN_RMA_FLUSH, 1, 0, 0);
    CHECK(decode(&m, len, &mem, &r, &why) == TN_ERR_PROTO, "flush with a body");
    len = build(&m, TN_RMA_UNLOCK, 0, 8, 0);
    CHECK(decode(&m, len, &mem, &r, &why) == TN_ERR_PROTO, "unlock with a displacement");

    /* accumulates: the op and element type must be predefined and legal */
    len = build(&m, TN_RMA_ACC, 1, 0, 8);
    m.h.op = (uint64_t)(uintptr_t)MPI_SUM;
    m.h.basic = (uint64_t)(uintptr_t)MPI_INT64_T;
    CHECK(decode(&m, len, &mem, &r, &why) == TN_OK && r.basic != NULL && r.op != NULL, "acc");
    m.h.op = (uint64_t)(uintptr_t)MPI_MAXLOC;
    CHECK(decode(&m, len, &mem, &r, &why) == TN_ERR_PROTO && strstr(why, "op"), "bad op");
    m.h.op = 12345;
    CHECK(decode(&m, len, &mem, &r, &why) == TN_ERR_PROTO, "unknown op");
    m.h.op = (uint64_t)(uintptr_t)MPI_SUM;
    m.h.basic = (uint64_t)(uintptr_t)MPI_INT;          /* 4 bytes: 8 is two */
    CHECK(decode(&m, len, &mem, &r, &why) == TN_OK, "two ints");
    m.h.basic = (uint64_t)(uintptr_t)MPI_DOUBLE_INT;   /* padded: needs F_ELEMS */
    CHECK(decode(&m, len, &mem, &r, &why) == TN_ERR_PROTO, "padded type without F_ELEMS");

    /* compare-and-swap: one element, compare and origin values inline */
    len = build(&m, TN_RMA_CAS, 1, 8, 16);
    m.h.basic = (uint64_t)(uintptr_t)MPI_INT64_T;
    CHECK(decode(&m, len, &mem, &r, &why) == TN_OK && r.type == TN_RMA_CAS, "cas");
    len = build(&m, TN_RMA_CAS, 2, 8, 32);
    m.h.basic = (uint64_t)(uintptr_t)MPI_INT64_T;
    CHECK(decode(&m, len, &mem, &r, &why) == TN_ERR_PROTO, "cas of two elements");

    /* dynamic windows: addresses inside an attached region only */
    tn_rma_region_t g = { (uintptr_t)window + 64, 64 };
    tn_rma_mem_t dyn = { 0, 0, &g, 1, 1 };
    len = build(&m, TN_RMA_GET, 1, (uint64_t)(uintptr_t)window + 64, 0);
    m.s[0].len = 64;
    m.h.bytes = 64;
    CHECK(decode(&m, len, &dyn, &r, &why) == TN_OK && r.at == window + 64, "dynamic get");
    m.h.disp += 1;
    CHECK(decode(&m, len, &dyn, &r, &why) == TN_ERR_PROTO, "dynamic get past the region");

    /* control answers: the next one expected, nothing else */
    {
        uint64_t w[2] = { TN_RMA_FLUSH, 3 };
        CHECK(tn_rma_ctl_decode(w, sizeof(w), 3, 2, &why) == TN_OK, "next answer");
        CHECK(tn_rma_ctl_decode(w, sizeof(w), 2, 2, &why) == TN_ERR_PROTO &&
              strstr(why, "cookie"), "answer to nothing outstanding");
        CHECK(tn_rma_ctl_decode(w, sizeof(w), 4, 1, &why) == TN_ERR_PROTO, "answer out of order");
        CHECK(tn_rma_ctl_decode(w, sizeof(w) - 1, 3, 2, &why) == TN_ERR_PROTO, "short answer");
        w[0] = TN_RMA_COMPLETE;
        CHECK(tn_rma_ctl_decode(w, sizeof(w), 3, 2, &why) == TN_ERR_PROTO &&
              strstr(why, "type"), "COMPLETE is never answered");
        w[0] = TN_RMA_LOCK;
        w[1] = 0;
        CHECK(tn_rma_ctl_decode(w, sizeof(w), 0, UINT32_MAX, &why) == TN_OK,
              "the cookie wraps with the counters");
    }

    if (failures == 0) {
        printf("test_rma_proto: ok\n");
    }
    return failures != 0;
}
