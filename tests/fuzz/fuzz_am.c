/* Fuzz harness of the decode of arriving active messages and the protocol
 * handlers behind it (src/p2p/am_decode.c, proto.c, part.c, cancel.c,
 * match.c).  This process is world rank 0 of a 3-rank world whose
 * transport is a fake one (every peer, set up as tn_proto_init would see a
 * real transport); the application's requests are posted as the input
 * asks, and the input's active messages from world ranks 1 and 2 are
 * handed to the core's am_handler (tn_p2p_am_recv) as a transport hands
 * them: a header and a payload, each in memory of exactly its size (ASan
 * sees any read beyond), the payload maybe shorter or longer than the
 * header says.  What the core sends goes into a log, from which later
 * messages may take their fields (the peer echoing our ids back).
 *
 * A protocol violation ends a job (tn_am_violation): here its test hook
 * leaves by longjmp, which is a correct outcome; the state is thrown away
 * as the job would have been.  Every input starts from a fresh state.
 *
 * Input: two configuration bytes, then records until the input ends (bytes
 * past the end read as 0).
 *   c0: bits 0-1 eager limit (256, 1024, 4096, 8192), bits 2-3 max payload
 *       (32, 256, 1024, 8192), bits 4-5 inline limit (0, 8, 16, 24),
 *       bit 6 the transport offers recv_direct, bit 7 oversubscribed
 *   c1: bits 0-3 capabilities (TN_XPORT_CAP_GET, FILL, REF, COOP),
 *       bits 4-5 TERN_RNDV_CMA_MIN (0, 256, 4096, 1 GiB), bit 6
 *       TERN_RNDV_COOP_MIN 1024 (else 0: off), bit 7 TERN_RNDV_SCATTER_MIN 1
 *       (else automatic)
 *   record: [op] [arguments]; op % 16:
 *     0-2  DELIVER [d] [type] [flags] V(src) V(ctx) V(tag) V(size) V(sreq)
 *          V(rreq) V(addr) [len lo] [len hi] [payload bytes if d & 16]
 *          d bit 0: from world rank 2 (else 1); bit 1: size := payload
 *          length; bit 2: a DATA piece for a receive the transport places
 *          in place (recv_direct) lands in the buffer first, as there; bit
 *          3: an empty payload is NULL; bit 4: the payload comes from the
 *          input (cut at its end), else a pattern of len bytes.  len is
 *          taken modulo 16449.
 *     3    RECV [peer] [tag] [count lo] [count hi] [f]     tn_p2p_irecv
 *     4    SEND [peer] [tag] [count lo] [count hi] [f]     tn_p2p_isend
 *     5    PINIT [s] [peer] [tag] [count lo] [count hi] [f] persistent
 *          send (s & 1) or receive, inactive
 *     6    START [k]          an inactive persistent or partitioned request
 *     7    PART [s] [peer] [tag] [partitions] [count] [f]   tn_part_init
 *     8    PREADY [k] [first] [n]
 *     9    CANCEL [k]         tn_p2p_cancel
 *     10   FREE [k]           the application frees the request
 *     11   WAIT [k]           if complete: retired as MPI_Wait would
 *     12   PROGRESS [a]       transport knobs (bit 0 sends say AGAIN; bit 1
 *          get fails; bits 2-3 coop_recv: ok, AGAIN, fails), then the
 *          send queues run (unless full)
 *     13   REF_DONE [i]       the transport releases a send held by reference
 *     14   PROBE [src] [tag] [take]   tn_p2p_iprobe (take: MPI_Mprobe)
 *     15   IMRECV [i] [count lo] [count hi] [f]   a probed message
 *   peer: % 5 = ANY_SOURCE, 1, 2, 0, PROC_NULL (SEND: 1, 2, 0, PROC_NULL,
 *   PART: 1, 2, 0, PROC_NULL); tag 255 = ANY_TAG (not for sends); f bit 0:
 *   the derived datatype (3 blocks of 2 bytes, stride 3: 6 bytes in an
 *   extent of 8) instead of bytes; bit 1: collective context; bit 2:
 *   TN_P2P_PULL; bits 3-4 send mode (standard, synchronous, ready); bit 5
 *   MPI_COMM_SELF.  k, i: slot numbers, modulo what exists.
 *   V(x): a value, by its first byte s:
 *     s >> 6 == 0: s & 63
 *     s >> 6 == 1: [b] << 4 * (s & 15), negated if s & 16, plus the base of
 *                  the simulated peer's memory (RTS addresses) if s & 32
 *     s >> 6 == 2: [b]: field (b >> 4 & 7: size, sreq, rreq, addr, ctx, tag,
 *                  src, flags) of the (s & 15)-th latest message the core
 *                  sent of type b & 15 (0: any), transformed by s >> 4 & 3
 *                  (as is, >> 32, low 32 bits, + 1); 0 if none
 *     s >> 6 == 3: s & 32: 8 raw bytes (little endian); else the id that
 *                  request slot s & 31 had (maybe released since: stale)
 *
 * Checked besides ASan/UBSan: nothing is written outside the data bytes of
 * a posted receive (holes of the derived datatype keep their contents;
 * ASan guards the ends of every buffer); send buffers are never written; a
 * receive's buffer does not change after it completed; a completed
 * receive's count is at most its buffer, its source and tag those posted
 * (unless wildcards); a message taken on a communicator's context came
 * from the rank it names (COMM_WORLD: src is the world rank; COMM_SELF:
 * never from a peer); a request the application holds is never released
 * under it; no message goes out above max payload or of an unknown type;
 * recv_direct_end only for a recv_direct, none left when its receive
 * completes; ref_done only for a send that holds pieces by reference; the
 * core's counters stay consistent and every request and communicator
 * reference is back when the state is torn down (LeakSanitizer: nothing
 * leaked). */
#include "p2p/p2p_impl.h"
#include "p2p/am_decode.h"
#include "base/config.h"
#include "comm/comm.h"
#include "runtime/rt.h"

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_WORLD     3
#define FZ_SLOTS     24
#define FZ_LOG       64
#define FZ_REFS      64
#define FZ_DIRECT    32
#define FZ_MSGS      8
#define FZ_MAX_BYTES 12288                      /* largest buffer, bytes of data */
#define FZ_MAX_LEN   16448                      /* largest delivered payload */
#define FZ_PEER_BASE 0x7e5700000000ull          /* the simulated peer's memory */
#define FZ_PEER_MEM  16384

enum { FZ_RECV = 1, FZ_SEND, FZ_PRECV, FZ_PSEND, FZ_PART_RECV, FZ_PART_SEND, FZ_MRECV };

typedef struct {
    tn_req_t      *req;
    uint64_t       id;          /* the request's id when made (stale once released) */
    int            kind;        /* FZ_* */
    int            held;        /* the application holds req */
    int            peer, tag;   /* as posted (status checks) */
    size_t         cap;         /* data bytes */
    size_t         span;        /* bytes of memory */
    unsigned char *buf;         /* exactly span bytes */
    unsigned char *shadow;      /* what buf must hold where nothing may write */
    int            holes;       /* the derived datatype: bytes 2, 5 of 8 are no data */
    int            snap;        /* receive complete: buf == shadow everywhere */
} fz_slot_t;

typedef struct {
    tn_am_hdr_t hdr;
    int         peer;
} fz_out_t;

typedef struct {
    int      peer;
    uint64_t rreq;
    char    *buf;
    size_t   len;
} fz_direct_t;

static struct {
    const uint8_t *in;
    size_t         size, pos;
    jmp_buf        jmp;
    /* transport knobs */
    size_t         eager_limit, max_payload, tiny_limit;
    unsigned       caps;
    int            full, get_fail, coop;
    uint64_t       coop_id;
    /* what the core sent */
    fz_out_t       log[FZ_LOG];
    unsigned       nlog;
    struct { tn_req_t *req; uint32_t gen; } refs[FZ_REFS];
    int            nrefs;
    fz_direct_t    direct[FZ_DIRECT];
    int            ndirect;
    /* the application */
    fz_slot_t      slot[FZ_SLOTS];
    int            nslots;
    void          *msgs[FZ_MSGS];     /* taken by a matched probe */
    int            nmsgs;
    /* the message being delivered (freed at teardown after a violation) */
    tn_am_hdr_t   *cur_hdr;
    unsigned char *cur_pay;
    unsigned       sink;
} fz;

static const tn_dt_t *fz_vec;           /* 3 blocks of 2 bytes, stride 3 */
static const tn_xport_ops_t *fz_xport_of[FZ_WORLD];
static unsigned char fz_peer_mem[FZ_PEER_MEM];
static int fz_world_refs, fz_self_refs;
static int fz_trace;                    /* FUZZ_AM_TRACE=1: print what happens */

static void fz_trace_hdr(const char *dir, int world, const tn_am_hdr_t *h, size_t len)
{
    if (fz_trace) {
        fprintf(stderr, "%s %d: %s flags %#x src %d ctx %#x tag %d size %llu sreq %#llx "
                "rreq %#llx addr %#llx, %zu bytes\n", dir, world, tn_am_type_name(h->type),
                h->flags, h->src, h->ctx, h->tag, (unsigned long long)h->size,
                (unsigned long long)h->sreq, (unsigned long long)h->rreq,
                (unsigned long long)h->addr, len);
    }
}

static void fz_fail(const char *what)
{
    fprintf(stderr, "fuzz_am: %s\n", what);
    abort();
}

static uint8_t fz_byte(void)
{
    return fz.pos < fz.size ? fz.in[fz.pos++] : 0;
}

/* The harness's own loops over bytes: not instrumented for coverage (they
 * tell the fuzzer nothing and took most of its time). */
#if defined(__clang__)
#define FZ_NOCOV __attribute__((no_sanitize("coverage")))
#else
#define FZ_NOCOV
#endif

FZ_NOCOV static void fz_pattern(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        p[i] = (unsigned char)(seed + 7 * i);
    }
}

FZ_NOCOV static void fz_read(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        fz.sink += b[i];
    }
}

/* ------------------------------------------------------- fake transport */

static size_t fz_max_payload(void) { return fz.max_payload; }
static size_t fz_eager_limit(void) { return fz.eager_limit; }
static size_t fz_tiny_limit(void) { return fz.tiny_limit; }
static unsigned fz_caps(int peer) { return fz.caps; }
static int fz_progress(void) { return 0; }

static void fz_out(int peer, const tn_am_hdr_t *hdr, size_t len)
{
    if (peer < 0 || peer >= FZ_WORLD) {
        fz_fail("a message to no rank");
    }
    if (hdr->type < TN_AM_EAGER || hdr->type > TN_AM_CANCEL_ACK) {
        fz_fail("a message of unknown type went out");
    }
    if (len > fz.max_payload) {
        fz_fail("a payload above the transport's max_payload went out");
    }
    if (hdr->type == TN_AM_EAGER && (hdr->flags & TN_AM_F_INLINE) &&
        (hdr->size > TN_AM_INLINE_MAX || len != 0)) {
        fz_fail("an inline EAGER with more than the header holds went out");
    }
    fz_trace_hdr("  out to", peer, hdr, len);
    fz_out_t *o = &fz.log[fz.nlog++ % FZ_LOG];
    o->hdr = *hdr;
    o->peer = peer;
}

static tn_status_t fz_am_send(int peer, const tn_am_hdr_t *hdr, const struct iovec *iov,
                              int iovcnt)
{
    if (fz.full) {
        return TN_ERR_AGAIN;
    }
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++) {
        fz_read(iov[i].iov_base, iov[i].iov_len);
        len += iov[i].iov_len;
    }
    fz_out(peer, hdr, len);
    return TN_OK;
}

static tn_status_t fz_am_send_fill(int peer, const tn_am_hdr_t *hdr, size_t len,
                                   tn_xport_fill_fn_t *fill, void *arg)
{
    if (fz.full) {
        return TN_ERR_AGAIN;
    }
    if (len > fz.max_payload) {
        fz_fail("am_send_fill above the transport's max_payload");
    }
    unsigned char *cell = malloc(len);
    if (cell == NULL && len > 0) {
        fz_fail("out of memory");
    }
    fill(cell, len, arg);
    fz_read(cell, len);
    free(cell);
    fz_out(peer, hdr, len);
    return TN_OK;
}

static tn_status_t fz_am_send_ref(int peer, const tn_am_hdr_t *hdr, const void *buf,
                                  size_t len, void *cookie)
{
    if (fz.full || fz.nrefs == FZ_REFS) {
        return TN_ERR_AGAIN;
    }
    tn_req_t *req = cookie;
    if (req == NULL || req->magic != TN_REQ_MAGIC || req->kind != TN_REQ_SEND) {
        fz_fail("am_send_ref with a cookie that is no send");
    }
    fz_read(buf, len);
    fz_out(peer, hdr, len);
    fz.refs[fz.nrefs].req = req;
    fz.refs[fz.nrefs].gen = req->gen;
    fz.nrefs++;
    return TN_OK;
}

/* The simulated peer's memory at FZ_PEER_BASE; elsewhere the kernel would
 * refuse the read (EFAULT), which the transports report as an error. */
static int fz_peer_range(uint64_t addr, size_t len)
{
    return addr >= FZ_PEER_BASE && addr - FZ_PEER_BASE <= FZ_PEER_MEM &&
           len <= FZ_PEER_MEM - (addr - FZ_PEER_BASE);
}

static tn_status_t fz_get(int peer, struct iovec *local, int nlocal, uint64_t remote_addr)
{
    if (nlocal < 0 || nlocal > TN_XPORT_GET_IOV) {
        fz_fail("get with more pieces than TN_XPORT_GET_IOV");
    }
    size_t len = 0;
    for (int i = 0; i < nlocal; i++) {
        len += local[i].iov_len;
    }
    if (fz.get_fail || !fz_peer_range(remote_addr, len)) {
        return TN_ERR_UNSUPPORTED;
    }
    const unsigned char *src = fz_peer_mem + (remote_addr - FZ_PEER_BASE);
    for (int i = 0; i < nlocal; i++) {
        memcpy(local[i].iov_base, src, local[i].iov_len);
        src += local[i].iov_len;
    }
    return TN_OK;
}

static tn_status_t fz_coop_recv(int peer, uint64_t remote_addr, void *buf, size_t len,
                                void (*ask)(int peer, uint64_t id, void *arg), void *arg)
{
    if (fz.coop == 1) {
        return TN_ERR_AGAIN;
    }
    if (fz.coop == 2 || !fz_peer_range(remote_addr, len)) {
        /* a copy failed half-way */
        if (fz_peer_range(remote_addr, len / 2)) {
            memcpy(buf, fz_peer_mem + (remote_addr - FZ_PEER_BASE), len / 2);
        }
        return TN_ERR_IO;
    }
    ask(peer, ++fz.coop_id, arg);
    memcpy(buf, fz_peer_mem + (remote_addr - FZ_PEER_BASE), len);
    return TN_OK;
}

static void fz_coop_send(int peer, uint64_t id, const void *buf)
{
    if (buf == NULL) {
        fz_fail("coop_send without a buffer");
    }
}

static void fz_recv_direct(int peer, uint64_t rreq, void *buf, size_t len)
{
    if (fz.ndirect == FZ_DIRECT) {
        fz_fail("more receives in place than the fake transport keeps");
    }
    for (int i = 0; i < fz.ndirect; i++) {
        if (fz.direct[i].peer == peer && fz.direct[i].rreq == rreq) {
            fz_fail("recv_direct twice for one receive");
        }
    }
    fz_read(buf, len);
    fz.direct[fz.ndirect++] = (fz_direct_t){ peer, rreq, buf, len };
}

static void fz_recv_direct_end(int peer, uint64_t rreq)
{
    for (int i = 0; i < fz.ndirect; i++) {
        if (fz.direct[i].peer == peer && fz.direct[i].rreq == rreq) {
            fz.direct[i] = fz.direct[--fz.ndirect];
            return;
        }
    }
    fz_fail("recv_direct_end without its recv_direct");
}

#define FZ_OPS_COMMON                                                        \
    .max_payload = fz_max_payload, .am_send = fz_am_send,                    \
    .progress = fz_progress, .get = fz_get, .am_send_fill = fz_am_send_fill, \
    .caps = fz_caps, .eager_limit = fz_eager_limit,                          \
    .tiny_limit = fz_tiny_limit, .am_send_ref = fz_am_send_ref,              \
    .coop_recv = fz_coop_recv, .coop_send = fz_coop_send

static const tn_xport_ops_t fz_ops = {
    .name = "fuzz", FZ_OPS_COMMON,
};
static const tn_xport_ops_t fz_ops_direct = {
    .name = "fuzz-direct", FZ_OPS_COMMON,
    .recv_direct = fz_recv_direct, .recv_direct_end = fz_recv_direct_end,
};

/* ------------------------------------------------------------- values */

static uint64_t fz_field(const tn_am_hdr_t *h, int f)
{
    switch (f) {
    case 0: return h->size;
    case 1: return h->sreq;
    case 2: return h->rreq;
    case 3: return h->addr;
    case 4: return h->ctx;
    case 5: return (uint64_t)(int64_t)h->tag;
    case 6: return (uint64_t)(int64_t)h->src;
    default: return h->flags;
    }
}

static uint64_t fz_val(void)
{
    uint8_t s = fz_byte();
    switch (s >> 6) {
    case 0:
        return s & 63;
    case 1: {
        uint64_t v = (uint64_t)fz_byte() << (4 * (s & 15));
        if (s & 16) {
            v = -v;
        }
        return (s & 32) ? v + FZ_PEER_BASE : v;
    }
    case 2: {
        uint8_t b = fz_byte();
        unsigned type = b & 15, field = b >> 4 & 7, back = s & 15;
        unsigned n = fz.nlog < FZ_LOG ? fz.nlog : FZ_LOG;
        for (unsigned i = 0; i < n; i++) {
            const fz_out_t *o = &fz.log[(fz.nlog - 1 - i) % FZ_LOG];
            if (type != 0 && o->hdr.type != type) {
                continue;
            }
            if (back-- > 0) {
                continue;
            }
            uint64_t v = fz_field(&o->hdr, (int)field);
            switch (s >> 4 & 3) {
            case 1: return v >> 32;
            case 2: return v & 0xffffffffu;
            case 3: return v + 1;
            default: return v;
            }
        }
        return 0;
    }
    default:
        if (s & 32) {
            uint64_t v = 0;
            for (int i = 0; i < 8; i++) {
                v |= (uint64_t)fz_byte() << (8 * i);
            }
            return v;
        }
        return (int)(s & 31) < fz.nslots ? fz.slot[s & 31].id : 0;
    }
}

/* -------------------------------------------------------------- checks */

static int fz_is_recv(const fz_slot_t *s)
{
    return s->kind == FZ_RECV || s->kind == FZ_PRECV || s->kind == FZ_PART_RECV ||
           s->kind == FZ_MRECV;
}

static int fz_persistent(const fz_slot_t *s)
{
    return s->kind == FZ_PRECV || s->kind == FZ_PSEND || s->kind == FZ_PART_RECV ||
           s->kind == FZ_PART_SEND;
}

/* The receive in s has completed: its status and buffer. */
static void fz_recv_done(fz_slot_t *s)
{
    const tn_msg_status_t *st = &s->req->status;
    if (!st->cancelled && s->peer != TN_PROC_NULL) {
        if (st->bytes > s->cap) {
            fz_fail("a completed receive counts more bytes than its buffer holds");
        }
        if (s->tag != TN_ANY_TAG && st->tag != s->tag) {
            fz_fail("a completed receive has another tag than it was posted with");
        }
        if (s->peer != TN_ANY_SOURCE && st->source != s->peer) {
            fz_fail("a completed receive has another source than it was posted with");
        }
        if (st->source < 0 || st->source >= s->req->comm->size) {
            fz_fail("a completed receive's source is no rank of its communicator");
        }
    }
    for (int i = 0; i < fz.ndirect; i++) {
        const char *b = fz.direct[i].buf;
        if (b >= (const char *)s->buf && b < (const char *)s->buf + s->span) {
            fz_fail("a receive completed while the transport may still place data in it");
        }
    }
    memcpy(s->shadow, s->buf, s->span);
    s->snap = 1;
    if (fz_trace) {
        fprintf(stderr, "  receive %d complete: source %d tag %d, %llu bytes%s%s\n",
                (int)(s - fz.slot), st->source, st->tag, (unsigned long long)st->bytes,
                st->error == TN_ERR_TRUNCATE ? ", truncated" : "",
                st->cancelled ? ", cancelled" : "");
    }
}

/* The derived datatype's holes, bytes 2 and 5 of every 8 (its extent). */
FZ_NOCOV static int fz_holes_changed(const fz_slot_t *s)
{
    for (size_t e = 0; e + 8 <= s->span; e += 8) {
        if (s->buf[e + 2] != s->shadow[e + 2] || s->buf[e + 5] != s->shadow[e + 5]) {
            return 1;
        }
    }
    return 0;
}

static void fz_check_slot(fz_slot_t *s)
{
    if (s->held && (s->req->magic != TN_REQ_MAGIC || s->req->gen != (uint32_t)(s->id >> 32))) {
        fz_fail("a request the application holds was released");
    }
    if (!fz_is_recv(s) || s->snap) {
        if (memcmp(s->buf, s->shadow, s->span) != 0) {
            fz_fail(fz_is_recv(s) ? "a receive buffer changed after its receive completed"
                                  : "a send buffer was written");
        }
        return;
    }
    if (s->holes && fz_holes_changed(s)) {
        fz_fail("a receive wrote outside the data bytes of its datatype");
    }
    if (s->held && s->req->complete && (s->req->active || !fz_persistent(s))) {
        fz_recv_done(s);
    }
}

static void fz_check_all(void)
{
    for (int i = 0; i < fz.nslots; i++) {
        fz_check_slot(&fz.slot[i]);
    }
    int pending = 0;
    for (int p = 0; p < FZ_WORLD; p++) {
        const tn_peer_t *peer = &tn_peers[p];
        if ((peer->sq_head == NULL) != (peer->sq_tail == NULL)) {
            fz_fail("a send queue with a head and no tail");
        }
        pending += peer->sq_head != NULL;
        if (peer->in_req != NULL && peer->in_unexp != NULL) {
            fz_fail("a peer continues two messages at once");
        }
    }
    if (pending != tn_peers_pending) {
        fz_fail("tn_peers_pending is not the number of peers with queued sends");
    }
    if (tn_sends_inflight < 0) {
        fz_fail("tn_sends_inflight went negative");
    }
}

/* --------------------------------------------------------- the application */

static fz_slot_t *fz_slot_new(int kind, const tn_dt_t *dt, size_t count)
{
    if (fz.nslots == FZ_SLOTS) {
        return NULL;
    }
    fz_slot_t *s = &fz.slot[fz.nslots];
    memset(s, 0, sizeof(*s));
    s->kind = kind;
    s->cap = count * dt->size;
    s->holes = dt == fz_vec;
    s->span = count * (size_t)dt->extent;
    s->buf = malloc(s->span);
    s->shadow = malloc(s->span);
    if (s->span > 0 && (s->buf == NULL || s->shadow == NULL)) {
        fz_fail("out of memory");
    }
    fz_pattern(s->buf, s->span, 0x5a + 13 * (unsigned)fz.nslots);
    memcpy(s->shadow, s->buf, s->span);
    fz.nslots++;
    return s;
}

static int fz_peer_arg(uint8_t b, int wild)
{
    static const int any[] = { TN_ANY_SOURCE, 1, 2, 0, TN_PROC_NULL };
    static const int named[] = { 1, 2, 0, TN_PROC_NULL };
    return wild ? any[b % 5] : named[b % 4];
}

/* Communicator, datatype and count of f, cut to FZ_MAX_BYTES. */
static void fz_args(uint8_t f, size_t count, int *peer, tn_comm_t **comm,
                    const tn_dt_t **dt, size_t *count_p)
{
    *dt = (f & 1) ? fz_vec : tn_dt_byte();
    *count_p = count % (FZ_MAX_BYTES / (*dt)->size + 1);
    *comm = &tn_comm_world;
    if (f & 32) {
        *comm = &tn_comm_self;
        if (*peer == 1 || *peer == 2) {
            *peer = 0;
        }
    }
}

static const tn_send_mode_t fz_modes[4] = { TN_SEND_STD, TN_SEND_SYNC, TN_SEND_READY,
                                            TN_SEND_STD };

static void fz_op_p2p(int is_send, int persistent)
{
    int peer = fz_peer_arg(fz_byte(), !is_send);
    uint8_t t = fz_byte();
    int tag = (t == 255 && !is_send) ? TN_ANY_TAG : t;
    size_t count = fz_byte();
    count |= (size_t)fz_byte() << 8;
    uint8_t f = fz_byte();
    tn_comm_t *comm;
    const tn_dt_t *dt;
    fz_args(f, count, &peer, &comm, &dt, &count);
    int kind = is_send ? (persistent ? FZ_PSEND : FZ_SEND) : (persistent ? FZ_PRECV : FZ_RECV);
    fz_slot_t *s = fz_slot_new(kind, dt, count);
    if (s == NULL) {
        return;
    }
    tn_req_t *req;
    tn_status_t st;
    tn_send_mode_t mode = fz_modes[f >> 3 & 3];
    if (persistent) {
        st = tn_p2p_persistent_init(is_send, s->buf, count, dt, peer, tag, comm, mode, &req);
    } else if (is_send) {
        st = tn_p2p_isend(s->buf, count, dt, peer, tag, comm, f >> 1 & 1, mode, &req);
    } else {
        st = tn_p2p_irecv(s->buf, count, dt, peer, tag, comm,
                          (f >> 1 & 1) | ((f & 4) ? TN_P2P_PULL : 0), &req);
    }
    if (st != TN_OK) {
        fz_fail("a send or receive could not start");
    }
    s->req = req;
    s->id = tn_req_id(req);
    s->held = 1;
    s->peer = peer;
    s->tag = tag;
}

static void fz_op_part(void)
{
    int is_send = fz_byte() & 1;
    int peer = fz_peer_arg(fz_byte(), 0);
    int tag = fz_byte();
    int parts = fz_byte() % 5;
    size_t count = fz_byte();
    uint8_t f = fz_byte();
    const tn_dt_t *dt = (f & 1) ? fz_vec : tn_dt_byte();
    fz_slot_t *s = fz_slot_new(is_send ? FZ_PART_SEND : FZ_PART_RECV, dt, count * (size_t)parts);
    if (s == NULL) {
        return;
    }
    tn_req_t *req;
    if (tn_part_init(is_send, s->buf, parts, count, dt, peer, tag, &tn_comm_world, &req) !=
        TN_OK) {
        fz_fail("a partitioned request could not be made");
    }
    s->req = req;
    s->id = tn_req_id(req);
    s->held = 1;
    s->peer = peer;
    s->tag = tag;
}

static fz_slot_t *fz_held(void)
{
    uint8_t k = fz_byte();
    if (fz.nslots == 0) {
        return NULL;
    }
    fz_slot_t *s = &fz.slot[k % fz.nslots];
    return s->held ? s : NULL;
}

static void fz_op_start(void)
{
    fz_slot_t *s = fz_held();
    if (s == NULL || !fz_persistent(s) || s->req->active) {
        return;
    }
    s->snap = 0;
    tn_p2p_start(s->req);       /* an error completes the request with it */
}

static void fz_op_pready(void)
{
    fz_slot_t *s = fz_held();
    uint8_t a = fz_byte(), b = fz_byte();
    if (s == NULL || s->kind != FZ_PART_SEND || !s->req->active) {
        return;
    }
    int parts = tn_part_partitions(s->req);
    if (parts == 0) {
        return;
    }
    int first = a % parts, n = 1 + b % (parts - first);
    for (int i = first; i < first + n; i++) {
        if (tn_part_is_ready(s->req, i)) {
            return;             /* the MPI layer refuses it */
        }
    }
    tn_part_ready(s->req, first, n);
}

static void fz_op_wait(void)
{
    fz_slot_t *s = fz_held();
    if (s == NULL || !s->req->complete) {
        return;
    }
    if (fz_persistent(s)) {
        tn_req_deactivate(s->req);
        return;
    }
    tn_req_free(s->req);
    s->held = 0;
}

static void fz_op_free(void)
{
    fz_slot_t *s = fz_held();
    if (s != NULL) {
        if (fz_is_recv(s) && s->req->complete && !s->snap &&
            (s->req->active || !fz_persistent(s))) {
            fz_recv_done(s);
        }
        tn_req_free(s->req);
        s->held = 0;
    }
}

static void fz_op_progress(void)
{
    uint8_t a = fz_byte();
    fz.full = a & 1;
    fz.get_fail = a >> 1 & 1;
    fz.coop = a >> 2 & 3;
    if (!fz.full) {
        tn_proto_progress_sends();
    }
}

static void fz_op_ref_done(void)
{
    uint8_t i = fz_byte();
    if (fz.nrefs == 0) {
        return;
    }
    i %= fz.nrefs;
    tn_req_t *req = fz.refs[i].req;
    if (req->magic != TN_REQ_MAGIC || req->gen != fz.refs[i].gen || req->refs == 0) {
        fz_fail("a send was released while the transport held its data by reference");
    }
    fz.refs[i] = fz.refs[--fz.nrefs];
    tn_p2p_ref_done(req);
}

static void fz_op_probe(void)
{
    int src = fz_peer_arg(fz_byte(), 1);
    uint8_t t = fz_byte();
    int take = fz_byte() & 1;
    if (src == TN_PROC_NULL) {
        return;                 /* answered by the MPI layer */
    }
    int tag = t == 255 ? TN_ANY_TAG : t;
    if (take && fz.nmsgs == FZ_MSGS) {
        return;
    }
    tn_msg_status_t st;
    void *msg = NULL;
    if (!tn_p2p_iprobe(src, tag, &tn_comm_world, take, &st, &msg)) {
        return;
    }
    if ((src != TN_ANY_SOURCE && st.source != src) || (tag != TN_ANY_TAG && st.tag != tag)) {
        fz_fail("a probe matched a message of another source or tag");
    }
    if (take) {
        fz.msgs[fz.nmsgs++] = msg;
    }
}

static void fz_op_imrecv(void)
{
    uint8_t i = fz_byte();
    size_t count = fz_byte();
    count |= (size_t)fz_byte() << 8;
    uint8_t f = fz_byte();
    if (fz.nmsgs == 0) {
        return;
    }
    i %= fz.nmsgs;
    int peer = TN_ANY_SOURCE;
    tn_comm_t *comm;
    const tn_dt_t *dt;
    fz_args(f & 1, count, &peer, &comm, &dt, &count);
    fz_slot_t *s = fz_slot_new(FZ_MRECV, dt, count);
    if (s == NULL) {
        return;
    }
    void *msg = fz.msgs[i];
    fz.msgs[i] = fz.msgs[--fz.nmsgs];
    tn_req_t *req;
    if (tn_p2p_imrecv(s->buf, count, dt, msg, &tn_comm_world, &req) != TN_OK) {
        fz_fail("a probed message could not be received");
    }
    s->req = req;
    s->id = tn_req_id(req);
    s->held = 1;
    s->peer = TN_ANY_SOURCE;
    s->tag = TN_ANY_TAG;
}

/* ------------------------------------------------------------ delivery */

static void fz_op_deliver(void)
{
    uint8_t d = fz_byte();
    int world = 1 + (d & 1);
    tn_am_hdr_t h;
    memset(&h, 0, sizeof(h));
    h.type = fz_byte();
    h.flags = fz_byte();
    h.src = (int32_t)fz_val();
    h.ctx = (uint32_t)fz_val();
    h.tag = (int32_t)fz_val();
    h.size = fz_val();
    h.sreq = fz_val();
    h.rreq = fz_val();
    h.addr = fz_val();
    size_t len = fz_byte();
    len |= (size_t)fz_byte() << 8;
    len %= FZ_MAX_LEN + 1;
    if ((d & 16) && len > fz.size - fz.pos) {
        len = fz.size - fz.pos;
    }
    fz.cur_pay = malloc(len);
    fz.cur_hdr = malloc(sizeof(*fz.cur_hdr));
    if ((fz.cur_pay == NULL && len > 0) || fz.cur_hdr == NULL) {
        fz_fail("out of memory");
    }
    if (d & 16) {
        memcpy(fz.cur_pay, fz.in + fz.pos, len);
        fz.pos += len;
    } else {
        fz_pattern(fz.cur_pay, len, (unsigned)world);
    }
    if (d & 2) {
        h.size = len;
    }
    *fz.cur_hdr = h;
    const void *payload = (len == 0 && (d & 8)) ? NULL : fz.cur_pay;
    if ((d & 4) && h.type == TN_AM_DATA) {
        /* the transport received the piece where it expected the next
         * one of this stream; the core moves it if it belongs elsewhere */
        for (int i = 0; i < fz.ndirect; i++) {
            fz_direct_t *r = &fz.direct[i];
            if (r->peer == world && r->rreq == h.rreq && len <= r->len) {
                size_t at = h.addr <= r->len - len ? (size_t)h.addr : r->len - len;
                memcpy(r->buf + at, fz.cur_pay, len);
                payload = r->buf + at;
                break;
            }
        }
    }
    fz_trace_hdr("in from", world, fz.cur_hdr, len);
    tn_p2p_am_recv(world, fz.cur_hdr, payload, len);
    /* taken: a message that names its sender's rank did name world's */
    if (h.type == TN_AM_EAGER || h.type == TN_AM_RTS || h.type == TN_AM_CANCEL) {
        uint32_t ctx = h.ctx & ~TN_PART_CTX_BIT;
        if (((ctx == tn_comm_world.ctx || ctx == tn_comm_world.ctx + 1) && h.src != world) ||
            ctx == tn_comm_self.ctx || ctx == tn_comm_self.ctx + 1) {
            fz_fail("a message was taken as from a rank of its communicator that did not "
                    "send it");
        }
    }
    free(fz.cur_hdr);
    free(fz.cur_pay);
    fz.cur_hdr = NULL;
    fz.cur_pay = NULL;
}

/* ---------------------------------------------------------------- driver */

static void fz_violation(int world, unsigned type, const char *why)
{
    if (why == NULL || world < 0 || world >= FZ_WORLD) {
        fz_fail("a protocol violation without a reason or a rank");
    }
    if (fz_trace) {
        fprintf(stderr, "  violation: rank %d sent a%s %s %s\n", world,
                type == TN_AM_EAGER ? "n" : "", tn_am_type_name(type), why);
    }
    longjmp(fz.jmp, 1);
}

static void fz_once(void)
{
    static int done;
    if (done) {
        return;
    }
    done = 1;
    tn_rt.world_rank = 0;
    tn_rt.world_size = FZ_WORLD;
    tn_rt.xport_of = fz_xport_of;
    if (tn_comm_init(0, FZ_WORLD) != TN_OK) {
        fz_fail("tn_comm_init failed");
    }
    /* ids 4..11 agreed on as for communicators not made here yet:
     * messages on them are kept (only 0..11 are; p2p/am_decode.c) */
    if (!tn_comm_ctx_claim(4, 8)) {
        fz_fail("tn_comm_ctx_claim failed");
    }
    fz_world_refs = tn_comm_world.refcount;
    fz_self_refs = tn_comm_self.refcount;
    tn_dt_t *v;
    if (tn_dt_create_hvector(3, 2, 3, tn_dt_byte(), &v) != TN_OK) {
        fz_fail("tn_dt_create_hvector failed");
    }
    tn_dt_commit(v);
    if (v->size != 6 || v->extent != 8 || v->true_lb != 0 || v->is_contig) {
        fz_fail("the derived datatype is not the one the checks expect");
    }
    fz_vec = v;
    fz_pattern(fz_peer_mem, sizeof(fz_peer_mem), 3);
    tn_am_violation_hook = fz_violation;
    fz_trace = getenv("FUZZ_AM_TRACE") != NULL;
}

static void fz_setup(uint8_t c0, uint8_t c1)
{
    static const size_t eager[4] = { 256, 1024, 4096, 8192 };
    static const size_t payload[4] = { 32, 256, 1024, 8192 };
    static const size_t cma[4] = { 0, 256, 4096, (size_t)1 << 30 };
    memset(&fz, 0, sizeof(fz));
    fz.eager_limit = eager[c0 & 3];
    fz.max_payload = payload[c0 >> 2 & 3];
    fz.tiny_limit = 8 * (c0 >> 4 & 3);
    for (int p = 0; p < FZ_WORLD; p++) {
        fz_xport_of[p] = (c0 & 64) ? &fz_ops_direct : &fz_ops;
    }
    tn_rt.oversubscribed = c0 >> 7;
    fz.caps = c1 & 15;
    tn_cfg.rndv_cma_min = cma[c1 >> 4 & 3];
    tn_cfg.rndv_coop_min = (c1 & 64) ? 1024 : 0;
    tn_cfg.rndv_scatter_min = (c1 & 128) ? 1 : 0;
    if (tn_proto_init(FZ_WORLD, 0) != TN_OK) {
        fz_fail("tn_proto_init failed");
    }
}

static void fz_teardown(void)
{
    /* unexpected messages on no list: taken by a probe, or matched by a
     * receive before all their pieces were in */
    tn_unexp_t *own[FZ_MSGS + FZ_WORLD];
    int n = 0;
    for (int i = 0; i < fz.nmsgs; i++) {
        own[n++] = fz.msgs[i];
    }
    for (int p = 0; p < FZ_WORLD; p++) {
        tn_unexp_t *ux = tn_peers[p].in_unexp;
        int dup = 0;
        for (int i = 0; i < n; i++) {
            dup |= own[i] == ux;
        }
        if (ux != NULL && ux->waiting != NULL && !dup) {
            own[n++] = ux;
        }
    }
    for (int i = 0; i < n; i++) {
        tn_unexp_free(own[i]);
    }
    /* every live request, partitioned ones first (they release their own
     * hello receive) */
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < tn_reqtab_len; i++) {
            tn_req_t *r = tn_reqtab[i];
            if (r->magic == TN_REQ_MAGIC && (pass == 1 || r->gen_fini != NULL)) {
                tn_req_release(r);
            }
        }
    }
    if (tn_comm_world.pending != 0 || tn_comm_self.pending != 0 ||
        tn_comm_world.refcount != fz_world_refs || tn_comm_self.refcount != fz_self_refs) {
        fz_fail("a communicator's pending count or references are off once all is released");
    }
    tn_proto_finalize();
    tn_sends_inflight = 0;
    tn_match_finalize();
    if (tn_p2p_comm_attach(&tn_comm_world) != TN_OK ||
        tn_p2p_comm_attach(&tn_comm_self) != TN_OK) {
        fz_fail("out of memory");
    }
    for (int i = 0; i < fz.nslots; i++) {
        free(fz.slot[i].buf);
        free(fz.slot[i].shadow);
    }
    free(fz.cur_hdr);
    free(fz.cur_pay);
    fz.nslots = 0;
    fz.cur_hdr = NULL;
    fz.cur_pay = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) {
        return 0;
    }
    fz_once();
    fz_setup(data[0], data[1]);
    fz.in = data;
    fz.size = size;
    fz.pos = 2;
    if (setjmp(fz.jmp) == 0) {
        while (fz.pos < fz.size) {
            uint8_t op = fz_byte() % 16;
            if (fz_trace) {
                static const char *const names[16] = {
                    "DELIVER", "DELIVER", "DELIVER", "RECV", "SEND", "PINIT", "START", "PART",
                    "PREADY", "CANCEL", "FREE", "WAIT", "PROGRESS", "REF_DONE", "PROBE",
                    "IMRECV" };
                fprintf(stderr, "%s\n", names[op]);
            }
            switch (op) {
            case 0: case 1: case 2: fz_op_deliver(); break;
            case 3: fz_op_p2p(0, 0); break;
            case 4: fz_op_p2p(1, 0); break;
            case 5: fz_op_p2p(fz_byte() & 1, 1); break;
            case 6: fz_op_start(); break;
            case 7: fz_op_part(); break;
            case 8: fz_op_pready(); break;
            case 9: {
                fz_slot_t *s = fz_held();
                if (s != NULL) {
                    tn_p2p_cancel(s->req);
                }
                break;
            }
            case 10: fz_op_free(); break;
            case 11: fz_op_wait(); break;
            case 12: fz_op_progress(); break;
            case 13: fz_op_ref_done(); break;
            case 14: fz_op_probe(); break;
            default: fz_op_imrecv(); break;
            }
            fz_check_all();
        }
    }
    /* after a violation too: nothing was written where it may not be */
    fz_check_all();
    fz_teardown();
    return 0;
}
