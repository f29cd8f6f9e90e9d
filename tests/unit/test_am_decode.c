/* The decode step of active messages (p2p/am_decode.c) with forged
 * headers: ids that name no slot, a released request (also after its slot
 * was reused), another rank's request, a request of another kind or state;
 * declared sizes above what the receiver holds; fragments and rendezvous
 * pieces beyond the message; unknown types and flags; context ids this
 * process never agreed on (the ids an agreement skipped too), while one it
 * claimed for a communicator not made yet is accepted.  Each is rejected
 * with the reason naming the field, and no buffer or request is touched. */
#include "p2p/p2p_impl.h"
#include "runtime/rt.h"

#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../check.h"

#define NWORLD 4
#define EAGER_LIMIT 4096

static tn_am_hdr_t hdr_of(uint8_t type)
{
    tn_am_hdr_t h;
    memset(&h, 0, sizeof(h));
    h.type = type;
    return h;
}

/* Decode must fail with a reason containing want, leaving *m zero. */
static int rejects(int world, const tn_am_hdr_t *h, const void *payload, size_t len,
                   const char *want)
{
    tn_am_msg_t m;
    const char *why = NULL;
    tn_status_t st = tn_am_decode(world, h, payload, len, &m, &why);
    if (st != TN_ERR_PROTO || why == NULL || strstr(why, want) == NULL) {
        fprintf(stderr, "type %u from %d: status %d, reason \"%s\", wanted \"%s\"\n",
                h->type, world, (int)st, why ? why : "(none)", want);
        return 0;
    }
    return m.req == NULL && m.ux == NULL;
}

static int accepts(int world, const tn_am_hdr_t *h, const void *payload, size_t len,
                   tn_am_msg_t *m)
{
    const char *why = NULL;
    tn_status_t st = tn_am_decode(world, h, payload, len, m, &why);
    if (st != TN_OK) {
        fprintf(stderr, "type %u from %d rejected: %s\n", h->type, world, why);
        return 0;
    }
    return 1;
}

/* tn_am_violation's test hook: remembers the violation and leaves */
static jmp_buf viol_jmp;
static int viol_world = -1;
static char viol_why[160];

static void viol_hook(int world, unsigned type, const char *why)
{
    viol_world = world;
    snprintf(viol_why, sizeof(viol_why), "%s %s", tn_am_type_name(type), why);
    longjmp(viol_jmp, 1);
}

/* A receive or probe on ctx from src looks for an unexpected message:
 * what it finds, and whether a violation ended the job instead. */
static tn_unexp_t *find_violates(uint32_t ctx, int src, int *violated_p)
{
    tn_unexp_t *found = NULL;
    viol_world = -1;
    tn_am_violation_hook = viol_hook;
    if (setjmp(viol_jmp) == 0) {
        found = tn_match_unexp_find(tn_match_ctx_get(ctx, 0), src, TN_ANY_TAG, 0);
    }
    tn_am_violation_hook = NULL;
    *violated_p = viol_world >= 0;
    return found;
}

/* An unexpected message as the handlers queue one that came before its
 * communicator (src not checked yet). */
static tn_unexp_t *unexp_of(int src, int world, uint8_t type)
{
    tn_unexp_t *ux = calloc(1, sizeof(*ux));
    ux->src = src;
    ux->world = world;
    ux->type = type;
    ux->data = ux->small;
    ux->complete = 1;
    return ux;
}

static struct tn_req *rndv_send(int world, size_t bytes)
{
    struct tn_req *r = tn_req_alloc(TN_REQ_SEND);
    r->world = world;
    r->proto = TN_PROTO_RNDV;
    r->stage = TN_SEND_WAIT;
    r->bytes = bytes;
    return r;
}

int main(void)
{
    static tn_peer_t peers[NWORLD];
    for (int i = 0; i < NWORLD; i++) {
        peers[i].eager_limit = EAGER_LIMIT;
    }
    tn_peers = peers;
    tn_rt.world_size = NWORLD;
    tn_rt.nprocs = NWORLD;
    tn_am_msg_t m;
    /* ids 4..11 taken as agreements would (comm_ctx.c): the communicators
     * below use 6 and 10, and 8 stands for one not made here yet */
    tn_comm_ctx_reset();
    CHECK(tn_comm_ctx_claim(4, 8));

    /* ---- request ids: table slot + generation, never the address */
    struct tn_req *s = rndv_send(1, 1000);
    uint64_t sid = tn_req_id(s);
    CHECK(sid != 0 && sid != (uint64_t)(uintptr_t)s);
    tn_am_hdr_t h = hdr_of(TN_AM_CTS);
    h.sreq = sid;
    h.rreq = 77;
    h.size = 1000;
    CHECK(accepts(1, &h, NULL, 0, &m) && m.req == s && m.id2 == 77 && m.size == 1000);

    /* unknown index, generation never issued, a raw pointer as old peers sent */
    h.sreq = (uint64_t)1 << 32 | (tn_reqtab_len + 5);
    CHECK(rejects(1, &h, NULL, 0, "unknown request (field sreq)"));
    h.sreq = sid + ((uint64_t)1 << 32);
    CHECK(rejects(1, &h, NULL, 0, "unknown request (field sreq)"));
    h.sreq = (uint64_t)(uintptr_t)s;
    CHECK(rejects(1, &h, NULL, 0, "(field sreq)"));
    h.sreq = 0;
    CHECK(rejects(1, &h, NULL, 0, "unknown request (field sreq)"));

    /* wrong peer, wrong state, more than the message, unknown flags */
    h.sreq = sid;
    CHECK(rejects(2, &h, NULL, 0, "another rank's request (field sreq)"));
    s->stage = TN_SEND_PIECES;
    CHECK(rejects(1, &h, NULL, 0, "waits for no CTS (field sreq)"));
    s->stage = TN_SEND_WAIT;
    h.size = 1001;
    CHECK(rejects(1, &h, NULL, 0, "more bytes than the message has (field size)"));
    h.size = 1000;
    h.flags = 0x40;
    CHECK(rejects(1, &h, NULL, 0, "(field flags)"));
    h.flags = 0;
    CHECK(s->stage == TN_SEND_WAIT && s->bytes == 1000 && s->rreq == 0);

    /* stale: released, then the same memory (same slot) handed out again */
    uint32_t slot = s->slot;
    tn_req_release(s);
    CHECK(rejects(1, &h, NULL, 0, "released request (field sreq)"));
    struct tn_req *s2 = rndv_send(1, 1000);
    CHECK(s2 == s && s2->slot == slot && tn_req_id(s2) != sid);
    CHECK(rejects(1, &h, NULL, 0, "released request (field sreq)"));
    h.sreq = tn_req_id(s2);
    CHECK(accepts(1, &h, NULL, 0, &m) && m.req == s2);

    /* wrong kind: a receive named where a send is expected, and back */
    struct tn_req *r = tn_req_alloc(TN_REQ_RECV);
    h.sreq = tn_req_id(r);
    CHECK(rejects(1, &h, NULL, 0, "another kind (field sreq)"));

    /* FIN and HELP name sends in the states that take them */
    tn_am_hdr_t f = hdr_of(TN_AM_FIN);
    f.sreq = tn_req_id(s2);
    CHECK(accepts(1, &f, NULL, 0, &m) && m.req == s2);
    s2->stage = TN_SEND_DONE;
    CHECK(rejects(1, &f, NULL, 0, "waits for no FIN (field sreq)"));
    s2->stage = TN_SEND_WAIT;
    f.type = TN_AM_HELP;
    CHECK(rejects(1, &f, NULL, 0, "cannot be helped (field sreq)"));   /* no COOP cap */
    f.type = TN_AM_CANCEL_ACK;
    CHECK(rejects(1, &f, NULL, 0, "not asked back (field sreq)"));
    s2->cancel = TN_CANCEL_HELD;
    f.flags = TN_AM_F_WITHDRAWN;
    CHECK(rejects(1, &f, NULL, 0, "had answered (field flags)"));

    /* ---- DATA: inside the range the receive's CTS registered */
    char buf[100];
    memset(buf, 0x5a, sizeof(buf));
    r->world = 1;
    r->buf = buf;
    r->bytes = r->expect = sizeof(buf);
    char piece[64];
    memset(piece, 0xa5, sizeof(piece));
    tn_am_hdr_t d = hdr_of(TN_AM_DATA);
    d.rreq = tn_req_id(r);
    d.addr = 90;
    d.size = 10;
    CHECK(rejects(1, &d, piece, 10, "waits for no data (field rreq)"));
    r->rx = TN_RECV_STREAM;
    CHECK(accepts(1, &d, piece, 10, &m) && m.req == r && m.addr == 90 && m.len == 10);
    d.size = 20;
    CHECK(rejects(1, &d, piece, 20, "outside the receive's range (field addr)"));
    d.addr = UINT64_MAX - 5;
    CHECK(rejects(1, &d, piece, 20, "outside the receive's range (field addr)"));
    d.addr = 0;
    CHECK(rejects(1, &d, piece, 10, "not its payload's (field size)"));
    d.size = 10;
    CHECK(rejects(3, &d, piece, 10, "another rank's request (field rreq)"));
    d.rreq = tn_req_id(s2);
    CHECK(rejects(1, &d, piece, 10, "another kind (field rreq)"));
    for (size_t i = 0; i < sizeof(buf); i++) {
        CHECK(buf[i] == 0x5a);
    }
    CHECK(r->offset == 0);

    /* ---- EAGER: declared sizes the unexpected buffer would be sized by */
    tn_am_hdr_t e = hdr_of(TN_AM_EAGER);
    e.src = 2;
    e.size = EAGER_LIMIT;
    CHECK(accepts(1, &e, piece, sizeof(piece), &m) && m.len == sizeof(piece));
    e.size = EAGER_LIMIT + 1;
    CHECK(rejects(1, &e, piece, sizeof(piece), "above the eager limit (field size)"));
    e.size = (uint64_t)1 << 62;
    CHECK(rejects(1, &e, piece, sizeof(piece), "above the eager limit (field size)"));
    e.size = 10;
    CHECK(rejects(1, &e, piece, sizeof(piece), "more payload than its declared size"));
    e.flags = TN_AM_F_INLINE;
    e.size = TN_AM_INLINE_MAX + 1;
    CHECK(rejects(1, &e, NULL, 0, "inline bytes than the header holds (field size)"));
    e.size = TN_AM_INLINE_MAX;
    CHECK(accepts(1, &e, NULL, 0, &m) && m.payload == &e.sreq && m.len == TN_AM_INLINE_MAX);
    e.flags = TN_AM_F_INLINE | TN_AM_F_SYNC;
    CHECK(rejects(1, &e, NULL, 0, "(field flags)"));
    e.flags = 0x80;
    CHECK(rejects(1, &e, NULL, 0, "unknown flags (field flags)"));
    e.flags = TN_AM_F_INLINE;
    e.src = -1;
    CHECK(rejects(1, &e, NULL, 0, "(field src)"));
    e.src = NWORLD;
    CHECK(rejects(1, &e, NULL, 0, "(field src)"));
    e.src = 2;
    e.tag = -2;                                 /* TN_ANY_TAG's value */
    CHECK(rejects(1, &e, NULL, 0, "negative tag (field tag)"));
    e.tag = 0;
    tn_am_hdr_t rts = hdr_of(TN_AM_RTS);
    rts.tag = -1;
    CHECK(rejects(1, &rts, NULL, 0, "negative tag (field tag)"));
    rts.tag = 0;
    rts.src = -7;
    CHECK(rejects(1, &rts, NULL, 0, "(field src)"));
    rts.src = 0;
    rts.size = 100;
    rts.addr = UINT64_MAX - 10;
    CHECK(rejects(1, &rts, NULL, 0, "(field addr)"));
    rts.flags = TN_AM_F_PACK;
    CHECK(accepts(1, &rts, NULL, 0, &m));

    /* ---- a partitioned context carries whole hellos only: their receive
     * may be released as soon as it is no longer posted (p2p/part.c) */
    tn_am_hdr_t ph = hdr_of(TN_AM_EAGER);
    ph.src = 1;
    ph.ctx = TN_PART_CTX_BIT | 4;
    ph.flags = TN_AM_F_INLINE;
    ph.size = TN_PART_HELLO_BYTES;
    CHECK(accepts(1, &ph, NULL, 0, &m) && m.len == TN_PART_HELLO_BYTES);
    ph.flags = 0;
    CHECK(rejects(1, &ph, piece, 8, "on a partitioned context not inline (field flags)"));
    ph.flags = TN_AM_F_INLINE;
    ph.size = 16;
    CHECK(rejects(1, &ph, NULL, 0, "another size than a hello (field size)"));
    rts.ctx = TN_PART_CTX_BIT;
    CHECK(rejects(1, &rts, NULL, 0, "on a partitioned context (field ctx)"));
    rts.ctx = 0;

    /* ---- src: the sender's own rank in the communicator of the context,
     * once this process has it (ranks 0, 1 of comm are worlds 2, 1) */
    static int comm_worlds[2] = { 2, 1 };
    static tn_comm_t comm;
    comm.size = 2;
    comm.peer_world = comm_worlds;
    comm.ctx = 6;
    CHECK(tn_p2p_comm_attach(&comm) == TN_OK && comm.match[0]->comm == &comm &&
          comm.match[1]->comm == &comm);
    tn_am_hdr_t sc = hdr_of(TN_AM_EAGER);
    sc.flags = TN_AM_F_INLINE;
    sc.ctx = 6;
    sc.src = 1;
    CHECK(accepts(1, &sc, NULL, 0, &m));
    sc.src = 0;                     /* world 2's rank, sent by world 1 */
    CHECK(rejects(1, &sc, NULL, 0, "not the sender's in its communicator (field src)"));
    CHECK(accepts(2, &sc, NULL, 0, &m));
    sc.src = 2;                     /* a world rank, but no rank of comm */
    CHECK(rejects(1, &sc, NULL, 0, "not the sender's in its communicator (field src)"));
    sc.ctx = 7;                     /* its collective context */
    sc.src = 0;
    CHECK(rejects(1, &sc, NULL, 0, "(field src)"));
    sc.ctx = 6 | TN_PART_CTX_BIT;   /* a partitioned hello names comm's ranks */
    sc.size = TN_PART_HELLO_BYTES;
    CHECK(rejects(1, &sc, NULL, 0, "(field src)"));
    sc.src = 1;
    CHECK(accepts(1, &sc, NULL, 0, &m));
    sc.size = 0;
    tn_am_hdr_t sr = hdr_of(TN_AM_RTS);
    sr.ctx = 6;
    sr.flags = TN_AM_F_PACK;
    CHECK(rejects(1, &sr, NULL, 0, "(field src)"));
    tn_am_hdr_t sx = hdr_of(TN_AM_CANCEL);
    sx.ctx = 7;
    CHECK(rejects(1, &sx, NULL, 0, "(field src)"));
    sx.src = 1;
    CHECK(accepts(1, &sx, NULL, 0, &m));
    sc.ctx = 8;                     /* a context no communicator has here yet */
    sc.src = 0;
    CHECK(accepts(1, &sc, NULL, 0, &m));

    /* ---- ctx: only an id this process claimed (a message on any other
     * would cost a matching context of its own, p2p/match.c) */
    sc.ctx = 12;                    /* the next free id */
    sc.src = 1;
    CHECK(rejects(1, &sc, NULL, 0, "never agreed on (field ctx)"));
    sc.ctx = 0x7ffffffe;
    CHECK(rejects(1, &sc, NULL, 0, "never agreed on (field ctx)"));
    sc.ctx = 12 | TN_PART_CTX_BIT;
    sc.size = TN_PART_HELLO_BYTES;
    CHECK(rejects(1, &sc, NULL, 0, "never agreed on (field ctx)"));
    sc.size = 0;
    sr.ctx = 13;
    sr.src = 1;
    CHECK(rejects(1, &sr, NULL, 0, "never agreed on (field ctx)"));
    sx.ctx = 14;
    CHECK(rejects(1, &sx, NULL, 0, "never agreed on (field ctx)"));
    /* an agreement that skipped ids (another member's next id was higher):
     * the skipped ones stay unknown, the claimed ones are good */
    CHECK(tn_comm_ctx_claim(20, 2) && tn_comm_ctx_claim(22, 2) && tn_comm_ctx_claim(40, 4));
    for (uint32_t c = 12; c < 48; c++) {
        int good = (c >= 20 && c < 24) || (c >= 40 && c < 44);
        sc.ctx = c;
        if (good) {
            CHECK(accepts(1, &sc, NULL, 0, &m));
        } else {
            CHECK(rejects(1, &sc, NULL, 0, "never agreed on (field ctx)"));
        }
    }
    CHECK(!tn_comm_ctx_claim(30, 2));           /* below the next free id: not taken */
    sc.ctx = 30;
    CHECK(rejects(1, &sc, NULL, 0, "never agreed on (field ctx)"));
    sc.ctx = 8;
    sc.src = 0;

    /* messages that came before their communicator are checked when a
     * receive or probe finds them, the communicator complete by then (an
     * intercommunicator gets its remote group after it is attached) */
    static tn_comm_t late;
    late.size = 2;
    late.peer_world = comm_worlds;
    late.ctx = 10;
    tn_unexp_t *good = unexp_of(1, 1, TN_AM_EAGER), *bad = unexp_of(1, 2, TN_AM_RTS);
    tn_unexp_t *hello = unexp_of(0, 1, TN_AM_EAGER);
    tn_match_unexp_add(tn_match_ctx_get(10, 1), good);
    tn_match_unexp_add(tn_match_ctx_get(11, 1), bad);
    tn_match_unexp_add(tn_match_ctx_get(10 | TN_PART_CTX_BIT, 1), hello);
    int violated;
    CHECK(find_violates(11, 1, &violated) == bad && !violated);   /* no communicator yet */
    CHECK(!bad->src_checked);
    CHECK(tn_p2p_comm_attach(&late) == TN_OK);
    CHECK(find_violates(10, 1, &violated) == good && !violated && good->src_checked);
    CHECK(find_violates(10, 1, &violated) == good && !violated);
    CHECK(find_violates(11, 1, &violated) == NULL && violated && viol_world == 2 &&
          strstr(viol_why, "RTS naming a rank that is not the sender's") != NULL);
    CHECK(find_violates(10 | TN_PART_CTX_BIT, 0, &violated) == NULL && violated &&
          viol_world == 1 && strstr(viol_why, "EAGER") != NULL);

    /* ---- FRAG: bounded by the message it continues */
    tn_am_hdr_t g = hdr_of(TN_AM_FRAG);
    g.size = 10;
    CHECK(rejects(1, &g, piece, 10, "no message in progress (field type)"));
    tn_unexp_t ux;
    memset(&ux, 0, sizeof(ux));
    ux.size = 100;
    ux.recvd = 60;
    ux.data = ux.small;          /* 64 bytes: a FRAG past 100 would write far beyond */
    memset(ux.small, 0x3c, sizeof(ux.small));
    peers[1].in_unexp = &ux;
    g.size = 41;
    CHECK(rejects(1, &g, piece, 41, "beyond the end of its message (field size)"));
    g.size = 40;
    CHECK(accepts(1, &g, piece, 40, &m) && m.ux == &ux && m.len == 40);
    e.flags = 0;
    e.src = 1;
    e.size = 10;
    CHECK(rejects(1, &e, piece, 10, "previous message was complete"));
    peers[1].in_unexp = NULL;
    for (size_t i = 0; i < sizeof(ux.small); i++) {
        CHECK(ux.small[i] == 0x3c);
    }
    CHECK(ux.recvd == 60);
    struct tn_req *q = tn_req_alloc(TN_REQ_RECV);
    q->msg_size = 100;
    q->offset = 90;
    peers[2].in_req = q;
    g.size = 11;
    CHECK(rejects(2, &g, piece, 11, "beyond the end of its message (field size)"));
    g.size = 10;
    CHECK(accepts(2, &g, piece, 10, &m) && m.req == q);
    g.size = 9;
    CHECK(rejects(2, &g, piece, 10, "not its payload's (field size)"));
    peers[2].in_req = NULL;
    CHECK(q->offset == 90);

    /* ---- unknown types, partitioned messages naming plain requests */
    tn_am_hdr_t u = hdr_of(99);
    CHECK(rejects(1, &u, NULL, 0, "(field type)"));
    u.type = 0;
    CHECK(rejects(1, &u, NULL, 0, "(field type)"));
    tn_am_hdr_t pc = hdr_of(TN_AM_PCTS);
    pc.sreq = tn_req_id(s2);
    CHECK(rejects(1, &pc, NULL, 0, "another kind (field sreq)"));
    pc.sreq = 12345;
    CHECK(rejects(1, &pc, NULL, 0, "unknown request (field sreq)"));
    tn_am_hdr_t pd = hdr_of(TN_AM_PDATA);
    pd.rreq = tn_req_id(r);
    CHECK(rejects(1, &pd, piece, 0, "another kind (field rreq)"));

    /* what the step costs on the fast path (informative, not checked): an
     * inline EAGER on a communicator's context, a CTS */
    e = hdr_of(TN_AM_EAGER);
    e.flags = TN_AM_F_INLINE;
    e.ctx = 6;
    e.src = 1;
    e.size = 8;
    h = hdr_of(TN_AM_CTS);
    h.sreq = tn_req_id(s2);
    h.rreq = 77;
    h.size = 1000;
    enum { N = 2000000 };
    size_t sum = 0;
    struct timespec t0, t1, t2;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < N; i++) {
        const char *why;
        sum += tn_am_decode(1, &e, NULL, 0, &m, &why) == TN_OK ? m.len : 0;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    for (int i = 0; i < N; i++) {
        const char *why;
        sum += tn_am_decode(1, &h, NULL, 0, &m, &why) == TN_OK ? m.size : 0;
    }
    clock_gettime(CLOCK_MONOTONIC, &t2);
    CHECK(sum == (size_t)N * 8 + (size_t)N * 1000);
    printf("decode: %.1f ns per inline EAGER, %.1f ns per CTS (id lookup)\n",
           ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / N,
           ((double)(t2.tv_sec - t1.tv_sec) * 1e9 + (double)(t2.tv_nsec - t1.tv_nsec)) / N);

    /* decoding counts nothing by itself; the two late checks above did */
    CHECK(tn_p2p_st->proto_errors == 2);
    return tn_check_report("am_decode");
}
