/* udp_conn end to end: two connections A <-> B joined by a simulated
 * network (one-way delay, jitter, seeded drop / duplicate / corrupt, dead
 * rails, a descheduled end, optional bandwidth limit with a drop-tail
 * queue), driven by an injected clock.  Every run checks that each message
 * sent either way is delivered exactly once, in order, byte-exact; that
 * every corrupted datagram is rejected by tn_udp_packet_check and nothing
 * else is; that the sender never has a psn on the wire beyond what the
 * receiver's buffer can hold; and that whenever a connection's deadline is
 * due, its output has something to send.
 *
 * Scenarios: API limits and validation reasons; clean 50 us and 2 ms
 * channels (RTT estimate, RTO adapting both ways, no retransmissions);
 * random loss at 0, 1, 5 and 20%; duplication + reordering + corruption;
 * cwnd shrinking under loss and growing back; a 1 Gb/s bottleneck; a
 * descheduled receiver (premature timeouts undone); a dead peer (reported
 * at peer_timeout exactly); a 50 ms outage (survived); two rails with one
 * failing (reported and silent); a receiver that stops delivering
 * (credits, probes, no false death); a 16-packet window; the transport's
 * defaults.  Seeds are fixed: results are reproducible. */
#include "xport/udp/udp_conn.h"
#include "conn_cfg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"

#define US 1000ull
#define MS 1000000ull
/* The connection id of datagrams to rank me from the other rank (tests run
 * without a secret: ids from an all-zero one, first packet number 1). */
static uint32_t rxid(uint32_t me)
{
    tn_udp_dir_t d;
    tn_udp_auth_derive(NULL, 1 - me, me, TN_UDP_AUTH_OFF, 0, &d, NULL);
    return d.conn;
}
#define PKT 1200
#define SIM_QCAP 16384

/* ---- random numbers ---------------------------------------------------------- */

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *s)
{
    return (double)(splitmix(s) >> 11) / (double)(1ull << 53);
}

/* ---- the channel: one direction ------------------------------------------------ */

typedef struct {
    uint64_t      at, seq;
    int           rail;
    int           corrupted;
    uint32_t      len;
    unsigned char buf[PKT];
} sim_pkt_t;

typedef struct {
    /* model */
    uint64_t delay, jitter;         /* ns; jitter: uniform extra delay (reorders) */
    double   drop, dup, corrupt;    /* probabilities */
    double   bytes_per_ns;          /* 0: unlimited */
    uint32_t queue_max;             /* packets queued at the bottleneck (drop-tail) */
    int      black_hole;
    int      rail_dead[TN_UDP_MAX_RAILS];
    uint64_t rng;
    /* state */
    sim_pkt_t *pkt;                 /* [SIM_QCAP] */
    uint32_t  *heap, nheap;         /* min-heap of pkt indices by (at, seq) */
    uint32_t  *freel, nfree;
    uint64_t   seq, link_free;
    /* counts */
    uint64_t sent, dropped, duplicated, corrupted, rejected, corrupt_delivered, qdrops;
    uint64_t rail_data[TN_UDP_MAX_RAILS];
    uint64_t max_data_psn;
} chan_t;

static void chan_init(chan_t *ch, uint64_t delay, uint64_t seed)
{
    memset(ch, 0, sizeof(*ch));
    ch->delay = delay;
    ch->rng = seed;
    ch->pkt = malloc(SIM_QCAP * sizeof(sim_pkt_t));
    ch->heap = malloc(SIM_QCAP * sizeof(uint32_t));
    ch->freel = malloc(SIM_QCAP * sizeof(uint32_t));
    for (uint32_t i = 0; i < SIM_QCAP; i++) {
        ch->freel[ch->nfree++] = SIM_QCAP - 1 - i;
    }
}

static void chan_fini(chan_t *ch)
{
    free(ch->pkt);
    free(ch->heap);
    free(ch->freel);
}

static int pkt_before(const chan_t *ch, uint32_t a, uint32_t b)
{
    const sim_pkt_t *x = &ch->pkt[a], *y = &ch->pkt[b];
    return x->at < y->at || (x->at == y->at && x->seq < y->seq);
}

static void heap_push(chan_t *ch, uint32_t idx)
{
    uint32_t i = ch->nheap++;
    ch->heap[i] = idx;
    while (i > 0 && pkt_before(ch, ch->heap[i], ch->heap[(i - 1) / 2])) {
        uint32_t p = (i - 1) / 2, t = ch->heap[p];
        ch->heap[p] = ch->heap[i];
        ch->heap[i] = t;
        i = p;
    }
}

static uint32_t heap_pop(chan_t *ch)
{
    uint32_t top = ch->heap[0];
    ch->heap[0] = ch->heap[--ch->nheap];
    uint32_t i = 0;
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < ch->nheap && pkt_before(ch, ch->heap[l], ch->heap[m])) {
            m = l;
        }
        if (r < ch->nheap && pkt_before(ch, ch->heap[r], ch->heap[m])) {
            m = r;
        }
        if (m == i) {
            break;
        }
        uint32_t t = ch->heap[m];
        ch->heap[m] = ch->heap[i];
        ch->heap[i] = t;
        i = m;
    }
    return top;
}

static uint64_t chan_next(const chan_t *ch)
{
    return ch->nheap ? ch->pkt[ch->heap[0]].at : UINT64_MAX;
}

static void chan_enqueue(chan_t *ch, const void *buf, size_t len, int rail, uint64_t now,
                         int corrupt)
{
    if (ch->nfree == 0) {
        ch->dropped++;
        return;
    }
    uint64_t depart = now;
    if (ch->bytes_per_ns > 0) {
        uint64_t start = ch->link_free > now ? ch->link_free : now;
        uint64_t tx = (uint64_t)((double)len / ch->bytes_per_ns);
        /* drop-tail: the queue in front of the link holds queue_max packets */
        if (ch->queue_max && start - now > tx * ch->queue_max) {
            ch->qdrops++;
            return;
        }
        ch->link_free = start + tx;
        depart = ch->link_free;
    }
    uint32_t idx = ch->freel[--ch->nfree];
    sim_pkt_t *p = &ch->pkt[idx];
    p->at = depart + ch->delay + (ch->jitter ? splitmix(&ch->rng) % ch->jitter : 0);
    p->seq = ch->seq++;
    p->rail = rail;
    p->len = (uint32_t)len;
    p->corrupted = 0;
    memcpy(p->buf, buf, len);
    if (corrupt) {
        size_t at = splitmix(&ch->rng) % len;
        p->buf[at] ^= (unsigned char)(1 + splitmix(&ch->rng) % 255);
        p->corrupted = 1;
        ch->corrupted++;
    }
    heap_push(ch, idx);
}

static void chan_send(chan_t *ch, const void *buf, size_t len, int rail, uint64_t now)
{
    ch->sent++;
    tn_udp_hdr_t h;
    memcpy(&h, buf, sizeof(h));
    if (h.type == TN_UDP_PKT_DATA) {
        ch->rail_data[rail]++;
        if (h.psn > ch->max_data_psn) {
            ch->max_data_psn = h.psn;
        }
    }
    if (ch->black_hole || ch->rail_dead[rail] || uniform(&ch->rng) < ch->drop) {
        ch->dropped++;
        return;
    }
    int copies = uniform(&ch->rng) < ch->dup ? 2 : 1;
    ch->duplicated += copies - 1;
    for (int i = 0; i < copies; i++) {
        chan_enqueue(ch, buf, len, rail, now, uniform(&ch->rng) < ch->corrupt);
    }
}

/* ---- the two ends ------------------------------------------------------------------ */

typedef struct {
    tn_udp_conn_t *conn;
    uint32_t       rank;
    int            dir;             /* which way its messages go (content seed) */
    uint64_t       to_send, sent;   /* messages the app sends */
    uint64_t       received;        /* messages delivered (in order) */
    int            pull;            /* the app pulls deliveries */
    uint64_t       bad;             /* wrong content / order */
    uint64_t       last_input;      /* time of the last datagram fed in */
    uint64_t       cwnd_min_seen, cwnd_max_seen;
    uint64_t       paused_until;    /* descheduled: neither reads nor writes */
    int            late_wake;       /* on waking, note the late acks (as udp.c does) */
    int            by_ref;          /* send with tn_udp_conn_send_ref */
    int            split;           /* feed data in two parts (tn_udp_conn_input_split) */
    uint64_t       kept_seen;       /* messages delivered with their tail kept */
} ep_t;

/* Tails fed with keep (test_split): they stay put until the end. */
static void **kept;
static size_t nkept, kept_cap;

/* Messages sent by reference (test_by_ref): their ext bytes live here
 * until released, and are scribbled over then, so a retransmission from
 * released memory would fail its CRC and never be delivered. */
#define REF_MAX 4000
static unsigned char *ref_buf[REF_MAX];
static int ref_released[REF_MAX];
static uint64_t ref_bad_release;

static void ref_release(void *cookie)
{
    uint64_t id = (uint64_t)(uintptr_t)cookie - 1;
    if (id >= REF_MAX || ref_buf[id] == NULL || ref_released[id]++ != 0) {
        ref_bad_release++;
        return;
    }
    memset(ref_buf[id], 0xEE, PKT);
}

static size_t msg_len(int dir, uint64_t id, size_t max)
{
    uint64_t s = id * 2 + (uint64_t)dir + 1;
    uint64_t r = splitmix(&s);
    /* mostly small messages, some full-sized */
    if (r % 4 == 0) {
        return max;
    }
    return 8 + (size_t)(r >> 8) % (max - 8);
}

static void msg_fill(int dir, uint64_t id, unsigned char *buf, size_t len)
{
    memcpy(buf, &id, 8);
    uint64_t s = id * 7 + (uint64_t)dir;
    uint64_t r = splitmix(&s);
    for (size_t k = 8; k < len; k++) {
        buf[k] = (unsigned char)(r + k * 31 + (k >> 8));
    }
}

typedef struct {
    chan_t   ab, ba;                /* A->B and B->A */
    ep_t     a, b;
    tn_udp_conn_cfg_t cfg;
    uint64_t now;
    uint64_t stuck;                 /* iterations where a deadline was due and nothing moved */
    uint64_t window_violations;
} sim_t;

static tn_udp_conn_cfg_t default_cfg(void)
{
    return tn_test_conn_cfg(PKT, NULL, TN_UDP_AUTH_OFF);
}

static void sim_init(sim_t *s, const tn_udp_conn_cfg_t *cfg, uint64_t delay, uint64_t seed,
                     uint64_t msgs_ab, uint64_t msgs_ba)
{
    memset(s, 0, sizeof(*s));
    s->cfg = *cfg;
    chan_init(&s->ab, delay, seed * 2 + 1);
    chan_init(&s->ba, delay, seed * 2 + 2);
    CHECK(tn_udp_conn_new(cfg, 0, 1, &s->a.conn) == TN_OK);
    CHECK(tn_udp_conn_new(cfg, 1, 0, &s->b.conn) == TN_OK);
    s->a.rank = 0;
    s->b.rank = 1;
    s->a.dir = 0;
    s->b.dir = 1;
    s->a.to_send = msgs_ab;
    s->b.to_send = msgs_ba;
    s->a.pull = s->b.pull = 1;
    s->a.cwnd_min_seen = s->b.cwnd_min_seen = UINT64_MAX;
}

static void sim_fini(sim_t *s)
{
    tn_udp_conn_free(s->a.conn);
    tn_udp_conn_free(s->b.conn);
    chan_fini(&s->ab);
    chan_fini(&s->ba);
    for (size_t i = 0; i < nkept; i++) {
        free(kept[i]);
    }
    free(kept);
    kept = NULL;
    nkept = kept_cap = 0;
}

static void app_send(sim_t *s, ep_t *e)
{
    unsigned char buf[PKT];
    size_t max = tn_udp_conn_max_message(e->conn);
    while (e->sent < e->to_send) {
        size_t len = msg_len(e->dir, e->sent, max);
        msg_fill(e->dir, e->sent, buf, len);
        struct iovec iov[2] = { { buf, 5 }, { buf + 5, len - 5 } };
        tn_status_t st;
        if (e->by_ref && e->sent < REF_MAX) {
            if (ref_buf[e->sent] == NULL) {
                ref_buf[e->sent] = malloc(PKT);
            }
            memcpy(ref_buf[e->sent], buf + 5, len - 5);
            st = tn_udp_conn_send_ref(e->conn, buf, 5, ref_buf[e->sent], len - 5,
                                      (void *)(uintptr_t)(e->sent + 1), s->now);
        } else {
            st = tn_udp_conn_send(e->conn, iov, 2, s->now);
        }
        if (st == TN_ERR_AGAIN) {
            break;
        }
        CHECK(st == TN_OK);
        e->sent++;
    }
}

static void app_pull(ep_t *e, int from_dir)
{
    const void *m;
    size_t len;
    unsigned char want[PKT];
    unsigned char whole[PKT];
    const void *tail = NULL;
    size_t tail_len = 0;
    while (e->pull && (m = tn_udp_conn_deliver_split(e->conn, &len, &tail, &tail_len)) != NULL) {
        if (tail != NULL) {
            CHECK(e->split && len + tail_len <= sizeof(whole));
            if (len + tail_len > sizeof(whole)) {
                break;
            }
            memcpy(whole, m, len);
            memcpy(whole + len, tail, tail_len);
            m = whole;
            len += tail_len;
            e->kept_seen++;
        }
        size_t wl = msg_len(from_dir, e->received, PKT - TN_UDP_OVERHEAD);
        msg_fill(from_dir, e->received, want, wl);
        if (len != wl || memcmp(m, want, len) != 0) {
            if (e->bad++ < 3) {
                uint64_t id = 0;
                memcpy(&id, m, len >= 8 ? 8 : len);
                fprintf(stderr, "rank %u: message %llu wrong (got id %llu, len %zu vs %zu)\n",
                        e->rank, (unsigned long long)e->received, (unsigned long long)id,
                        len, wl);
            }
        }
        e->received++;
    }
}

/* Outputs of one end into its channel; returns datagrams sent. */
static int sim_output(sim_t *s, ep_t *e, chan_t *ch, ep_t *peer)
{
    unsigned char buf[PKT];
    int n = 0, rail;
    size_t len;
    if (s->now < e->paused_until) {
        return 0;
    }
    while ((len = tn_udp_conn_output(e->conn, buf, sizeof(buf), &rail, s->now)) != 0) {
        CHECK(len <= s->cfg.packet_size);
        CHECK(rail >= 0 && rail < s->cfg.nrails);
        const char *why = NULL;
        CHECK(tn_udp_packet_check(buf, len, rxid(peer->rank), peer->rank, &why) == TN_OK);
        tn_udp_hdr_t h;
        memcpy(&h, buf, sizeof(h));
        /* credits: never a psn the receiver could not buffer */
        if (h.type == TN_UDP_PKT_DATA && h.psn >= peer->received + 1 + s->cfg.window) {
            s->window_violations++;
        }
        chan_send(ch, buf, len, rail, s->now);
        n++;
        if (n > 10000) {
            CHECK(!"output never stops");
            break;
        }
    }
    const tn_udp_conn_stats_t *st = tn_udp_conn_stats(e->conn);
    if (st->cwnd < e->cwnd_min_seen) {
        e->cwnd_min_seen = st->cwnd;
    }
    if (st->cwnd > e->cwnd_max_seen) {
        e->cwnd_max_seen = st->cwnd;
    }
    return n;
}

/* Arrivals due by now; returns how many. */
static int sim_arrivals(sim_t *s, chan_t *ch, ep_t *dst, int from_dir)
{
    int n = 0;
    if (s->now < dst->paused_until) {
        return 0;
    }
    while (chan_next(ch) <= s->now) {
        uint32_t idx = heap_pop(ch);
        sim_pkt_t *p = &ch->pkt[idx];
        const char *why = NULL;
        if (tn_udp_conn_authentic(dst->conn, p->buf, p->len) != TN_UDP_AUTH_GOOD ||
            tn_udp_packet_check(p->buf, p->len, rxid(dst->rank), dst->rank, &why) != TN_OK) {
            ch->rejected++;
            CHECK(p->corrupted);
        } else {
            CHECK(!p->corrupted);
            tn_udp_hdr_t h;
            memcpy(&h, p->buf, sizeof(h));
            size_t head = sizeof(h) + 8;            /* the header and 8 payload bytes */
            if (dst->split && h.type == TN_UDP_PKT_DATA && h.nsack == 0 && p->len > head) {
                /* a kept tail goes where it stays; a lent one is used from
                 * the channel's buffer (valid until the next arrival) */
                uint64_t seed = h.psn;
                int keep = (int)(splitmix(&seed) & 1);
                const void *tail = p->buf + head;
                if (keep) {
                    if (nkept == kept_cap) {
                        kept_cap = kept_cap ? 2 * kept_cap : 256;
                        kept = realloc(kept, kept_cap * sizeof(*kept));
                    }
                    kept[nkept] = malloc(p->len - head);
                    memcpy(kept[nkept], tail, p->len - head);
                    tail = kept[nkept++];
                }
                CHECK(tn_udp_packet_check_split(p->buf, head, tail, p->len - head,
                                                rxid(dst->rank), dst->rank, &why) == TN_OK);
                tn_udp_conn_input_split(dst->conn, p->buf, head, tail, p->len - head, keep,
                                        p->rail, s->now);
            } else {
                tn_udp_conn_input(dst->conn, p->buf, p->len, p->rail, s->now);
            }
            dst->last_input = s->now;
            app_pull(dst, from_dir);
        }
        if (p->corrupted) {
            ch->corrupt_delivered++;
        }
        ch->freel[ch->nfree++] = idx;
        n++;
    }
    return n;
}

static int sim_done(const sim_t *s)
{
    return s->a.sent == s->a.to_send && s->b.sent == s->b.to_send &&
           s->b.received == s->a.to_send && s->a.received == s->b.to_send &&
           tn_udp_conn_idle(s->a.conn) && tn_udp_conn_idle(s->b.conn);
}

/* Run until both sides have everything acknowledged (stop_when_done) or
 * until the clock reaches until. */
static void sim_run(sim_t *s, uint64_t until, int stop_when_done)
{
    int idle_iters = 0;
    while (s->now < until) {
        ep_t *eps[2] = { &s->a, &s->b };
        for (int i = 0; i < 2; i++) {
            if (eps[i]->late_wake && s->now >= eps[i]->paused_until) {
                tn_udp_conn_note_late(eps[i]->conn);
                eps[i]->late_wake = 0;
            }
        }
        app_send(s, &s->a);
        app_send(s, &s->b);
        int moved = sim_output(s, &s->a, &s->ab, &s->b);
        moved += sim_output(s, &s->b, &s->ba, &s->a);
        moved += sim_arrivals(s, &s->ab, &s->b, 0);
        moved += sim_arrivals(s, &s->ba, &s->a, 1);
        if (s->now >= s->a.paused_until) {
            app_pull(&s->a, 1);
        }
        if (s->now >= s->b.paused_until) {
            app_pull(&s->b, 0);
        }
        if (stop_when_done && sim_done(s)) {
            return;
        }
        if (moved) {
            idle_iters = 0;
            continue;                       /* react at the same instant */
        }
        /* a paused end reads nothing before it wakes */
        uint64_t next = s->now < s->b.paused_until ? s->b.paused_until : chan_next(&s->ab);
        uint64_t t = s->now < s->a.paused_until ? s->a.paused_until : chan_next(&s->ba);
        next = t < next ? t : next;
        t = s->now < s->a.paused_until ? UINT64_MAX : tn_udp_conn_deadline(s->a.conn);
        next = t < next ? t : next;
        t = s->now < s->b.paused_until ? UINT64_MAX : tn_udp_conn_deadline(s->b.conn);
        next = t < next ? t : next;
        if (next <= s->now) {
            /* a deadline is due yet nothing was output */
            if (++idle_iters > 2) {
                s->stuck++;
                next = s->now + 1 * US;
            } else {
                continue;
            }
        }
        s->now = next > until ? until : next;
    }
}

static void check_delivery(const sim_t *s, const char *what)
{
    int ok = s->b.received == s->a.to_send && s->a.received == s->b.to_send &&
             s->a.bad == 0 && s->b.bad == 0;
    if (!ok) {
        fprintf(stderr, "%s: A->B %llu/%llu, B->A %llu/%llu, bad %llu/%llu\n", what,
                (unsigned long long)s->b.received, (unsigned long long)s->a.to_send,
                (unsigned long long)s->a.received, (unsigned long long)s->b.to_send,
                (unsigned long long)s->a.bad, (unsigned long long)s->b.bad);
    }
    CHECK(ok);
    CHECK(s->window_violations == 0);
    CHECK(s->stuck == 0);
    CHECK(s->ab.rejected == s->ab.corrupt_delivered && s->ba.rejected == s->ba.corrupt_delivered);
}

static void print_stats(const char *what, const sim_t *s)
{
    const tn_udp_conn_stats_t *a = tn_udp_conn_stats(s->a.conn);
    printf("%-22s t=%7.2fms sent=%llu retx=%llu fast=%llu rto=%llu dup=%llu ooo=%llu "
           "acks=%llu srtt=%.0fus rto=%.0fus cwnd=%llu[%llu..%llu]\n",
           what, (double)s->now / 1e6, (unsigned long long)a->data_sent,
           (unsigned long long)a->retransmits, (unsigned long long)a->fast_retransmits,
           (unsigned long long)a->timeouts,
           (unsigned long long)tn_udp_conn_stats(s->b.conn)->duplicates,
           (unsigned long long)tn_udp_conn_stats(s->b.conn)->out_of_order,
           (unsigned long long)a->acks_sent, (double)a->srtt_ns / 1e3, (double)a->rto_ns / 1e3,
           (unsigned long long)a->cwnd, (unsigned long long)s->a.cwnd_min_seen,
           (unsigned long long)s->a.cwnd_max_seen);
}

/* ---- the tests ---------------------------------------------------------------------- */

/* Clean channel: everything arrives, nothing is retransmitted, the RTT
 * estimate matches the channel and the RTO comes down from rto_init. */
static void test_clean(void)
{
    sim_t s;
    tn_udp_conn_cfg_t cfg = default_cfg();
    sim_init(&s, &cfg, 50 * US, 1, 3000, 2000);
    sim_run(&s, 10000 * MS, 1);
    print_stats("clean 50us", &s);
    check_delivery(&s, "clean");
    const tn_udp_conn_stats_t *a = tn_udp_conn_stats(s.a.conn);
    CHECK(a->retransmits == 0 && a->timeouts == 0);
    CHECK(tn_udp_conn_stats(s.b.conn)->duplicates == 0);
    CHECK(a->min_rtt_ns >= 100 * US && a->min_rtt_ns <= 100 * US + cfg.ack_delay_ns);
    CHECK(a->srtt_ns >= 100 * US && a->srtt_ns <= 100 * US + cfg.ack_delay_ns);
    CHECK(a->rto_ns < 1 * MS);              /* adapted well below rto_init (2 ms) */
    CHECK(a->cwnd == cfg.cwnd_max);         /* grew while nothing was lost */
    CHECK(a->data_sent == 3000 && a->acks_recv > 0);
    sim_fini(&s);
}

/* The RTO follows a long channel too: 2 ms one way. */
static void test_rto_long(void)
{
    sim_t s;
    tn_udp_conn_cfg_t cfg = default_cfg();
    sim_init(&s, &cfg, 2 * MS, 2, 500, 0);
    sim_run(&s, 10000 * MS, 1);
    print_stats("clean 2ms", &s);
    check_delivery(&s, "rto long");
    const tn_udp_conn_stats_t *a = tn_udp_conn_stats(s.a.conn);
    CHECK(a->srtt_ns >= 4 * MS && a->srtt_ns <= 4 * MS + cfg.ack_delay_ns);
    CHECK(a->rto_ns > 4 * MS && a->rto_ns < 10 * MS);
    /* rto_init (2 ms) < RTT: the first packets time out, once and again
     * after the backoff to 4 ms (Karn: no sample from a retransmission) */
    CHECK(a->timeouts <= 2);
    sim_fini(&s);
}

/* Random loss at several rates, both directions busy. */
static void test_loss(double rate, uint64_t seed, uint64_t msgs)
{
    sim_t s;
    char name[64];
    tn_udp_conn_cfg_t cfg = default_cfg();
    sim_init(&s, &cfg, 50 * US, seed, msgs, msgs / 2);
    s.ab.drop = s.ba.drop = rate;
    sim_run(&s, 60000 * MS, 1);
    snprintf(name, sizeof(name), "loss %.0f%%", rate * 100);
    print_stats(name, &s);
    check_delivery(&s, name);
    const tn_udp_conn_stats_t *a = tn_udp_conn_stats(s.a.conn);
    if (rate > 0) {
        CHECK(a->retransmits > 0);
        CHECK(a->cwnd_stalls > 0 || a->credit_stalls > 0);
        CHECK(s.a.cwnd_min_seen < cfg.cwnd_init);       /* backed off */
    }
    /* retransmissions stay in proportion to the loss */
    CHECK(a->retransmits <= (uint64_t)((double)msgs * (rate * 3 + 0.02)) + 20);
    sim_fini(&s);
}

/* Duplication, reordering (jitter of 40 us on a 50 us channel) and
 * corruption together with some loss. */
static void test_dup_reorder_corrupt(void)
{
    sim_t s;
    tn_udp_conn_cfg_t cfg = default_cfg();
    sim_init(&s, &cfg, 50 * US, 5, 4000, 2000);
    s.ab.dup = s.ba.dup = 0.05;
    s.ab.jitter = s.ba.jitter = 40 * US;
    s.ab.corrupt = s.ba.corrupt = 0.03;
    s.ab.drop = s.ba.drop = 0.01;
    sim_run(&s, 60000 * MS, 1);
    print_stats("dup+reorder+corrupt", &s);
    check_delivery(&s, "dup/reorder/corrupt");
    CHECK(s.ab.corrupted > 0 && s.ab.rejected > 0 && s.ba.rejected > 0);
    CHECK(tn_udp_conn_stats(s.b.conn)->duplicates > 0);
    CHECK(tn_udp_conn_stats(s.b.conn)->out_of_order > 0);
    sim_fini(&s);
}

/* Datagrams received in two parts (the payload placed elsewhere, kept
 * there or lent), under duplication, reordering and loss: every message
 * delivered once, in order, whole; kept tails come out in place, also
 * after waiting out of order. */
static void test_split(void)
{
    sim_t s;
    tn_udp_conn_cfg_t cfg = default_cfg();
    sim_init(&s, &cfg, 50 * US, 9, 4000, 2000);
    s.a.split = s.b.split = 1;
    s.ab.dup = s.ba.dup = 0.05;
    s.ab.jitter = s.ba.jitter = 40 * US;
    s.ab.drop = s.ba.drop = 0.02;
    sim_run(&s, 60000 * MS, 1);
    print_stats("split", &s);
    check_delivery(&s, "split");
    CHECK(s.b.kept_seen > 0 && s.a.kept_seen > 0);
    CHECK(tn_udp_conn_stats(s.b.conn)->out_of_order > 0);
    /* a tail that does not start after the header is refused */
    unsigned char pkt[64] = { 0 };
    const char *why = NULL;
    CHECK(tn_udp_packet_check_split(pkt, 20, pkt + 20, 44, rxid(1), 1, &why) == TN_ERR_PROTO);
    sim_fini(&s);
}

/* cwnd halves under loss and grows back once the loss stops. */
static void test_cwnd(void)
{
    sim_t s;
    tn_udp_conn_cfg_t cfg = default_cfg();
    cfg.window = cfg.sendq_max = cfg.cwnd_max = 256;
    sim_init(&s, &cfg, 50 * US, 6, 200000, 0);
    sim_run(&s, 5 * MS, 0);                 /* lossless: grows to the maximum */
    const tn_udp_conn_stats_t *a = tn_udp_conn_stats(s.a.conn);
    uint64_t before = a->cwnd;
    CHECK(before == cfg.cwnd_max);
    s.ab.drop = 0.05;
    s.a.cwnd_min_seen = UINT64_MAX;
    sim_run(&s, 15 * MS, 0);
    uint64_t lossy_min = s.a.cwnd_min_seen;
    CHECK(lossy_min < before / 4);
    s.ab.drop = 0;
    sim_run(&s, 45 * MS, 0);                /* 300 round trips */
    printf("cwnd                   lossless %llu, under 5%% loss down to %llu, 30 ms later %llu\n",
           (unsigned long long)before, (unsigned long long)lossy_min,
           (unsigned long long)a->cwnd);
    CHECK(a->cwnd >= before / 2 && a->cwnd > 4 * lossy_min);
    s.a.to_send = s.a.sent;                 /* stop and drain */
    sim_run(&s, 10000 * MS, 1);
    check_delivery(&s, "cwnd");
    sim_fini(&s);
}

/* A bottleneck link (about 1 Gb/s with a 32-packet drop-tail queue): losses
 * come from congestion alone; AIMD backs off and everything arrives. */
static void test_bottleneck(void)
{
    sim_t s;
    tn_udp_conn_cfg_t cfg = default_cfg();
    cfg.window = cfg.sendq_max = cfg.cwnd_max = 256;
    sim_init(&s, &cfg, 20 * US, 7, 8000, 0);
    s.ab.bytes_per_ns = 0.125;
    s.ab.queue_max = 32;
    sim_run(&s, 60000 * MS, 1);
    print_stats("bottleneck 1Gb/s", &s);
    check_delivery(&s, "bottleneck");
    CHECK(s.ab.qdrops > 0);
    const tn_udp_conn_stats_t *a = tn_udp_conn_stats(s.a.conn);
    /* goodput: at least 60% of the link */
    double bytes = (double)a->data_bytes_sent - 0;
    double link = 0.125 * (double)s.now;
    printf("bottleneck             link use %.0f%%, queue drops %llu\n", 100 * bytes / link,
           (unsigned long long)s.ab.qdrops);
    CHECK(bytes > 0.6 * link);
    sim_fini(&s);
}

/* A slow receiver behind a deep queue that never drops (a large socket
 * buffer): the oldest packet waits far longer than an RTO, but acks keep
 * coming, so nothing times out and nothing is sent twice. */
static void test_deep_queue(void)
{
    sim_t s;
    tn_udp_conn_cfg_t cfg = default_cfg();
    cfg.window = cfg.sendq_max = cfg.cwnd_max = 1024;
    cfg.cwnd_init = 1024;                   /* one burst: the queue builds at once */
    sim_init(&s, &cfg, 20 * US, 11, 6000, 0);
    s.ab.bytes_per_ns = 0.25;               /* 250 MB/s: the burst drains for ms */
    s.ab.queue_max = 1000000;              /* in units of the packet at hand */
    sim_run(&s, 60000 * MS, 1);
    print_stats("deep queue 250MB/s", &s);
    check_delivery(&s, "deep queue");
    const tn_udp_conn_stats_t *a = tn_udp_conn_stats(s.a.conn);
    CHECK(s.ab.qdrops == 0);
    CHECK(a->timeouts == 0 && a->retransmits == 0);
    sim_fini(&s);
}

/* The receiver is descheduled for 3 ms (ranks outnumber cores): the
 * sender's RTO fires again and again into the silence, but the first ack
 * after the pause shows the packets had arrived, so the window reduction is
 * undone and little is resent. */
static void test_descheduled(void)
{
    sim_t s;
    tn_udp_conn_cfg_t cfg = default_cfg();
    sim_init(&s, &cfg, 50 * US, 15, 20000, 0);
    sim_run(&s, 3 * MS, 0);
    const tn_udp_conn_stats_t *a = tn_udp_conn_stats(s.a.conn);
    CHECK(a->cwnd == cfg.cwnd_max);
    s.b.paused_until = 6 * MS;
    sim_run(&s, 6 * MS, 0);
    CHECK(a->timeouts >= 3 && a->cwnd == cfg.cwnd_min);
    uint64_t retx = a->retransmits;
    sim_run(&s, 6 * MS + 500 * US, 0);      /* a few round trips after the wake */
    CHECK(a->cwnd >= cfg.cwnd_max / 2);
    sim_run(&s, 60000 * MS, 1);
    print_stats("descheduled 3ms", &s);
    check_delivery(&s, "descheduled");
    CHECK(retx <= a->timeouts * cfg.cwnd_min);
    CHECK(a->retransmits <= retx + cfg.cwnd_max);
    sim_fini(&s);
}

/* Tail-loss probes: a receiver descheduled for a little longer than an RTO
 * draws probes (the two oldest resent), not a timeout, and the window
 * stays; descheduled for longer than the probes' backoff, the timeout
 * follows them as without probes. */
static void test_descheduled_probes(void)
{
    sim_t s;
    tn_udp_conn_cfg_t cfg = default_cfg();
    cfg.probes = 2;
    sim_init(&s, &cfg, 50 * US, 15, 20000, 0);
    sim_run(&s, 3 * MS, 0);
    const tn_udp_conn_stats_t *a = tn_udp_conn_stats(s.a.conn);
    CHECK(a->cwnd == cfg.cwnd_max && a->probes == 0);
    uint64_t rto = a->rto_ns;
    CHECK(rto >= cfg.rto_min_ns && rto < 400 * US);
    s.b.paused_until = 3 * MS + rto + rto / 2;
    sim_run(&s, 3 * MS + 4 * rto, 0);
    CHECK(a->probes >= 1 && a->probes <= 2);
    CHECK(a->timeouts == 0 && a->cwnd == cfg.cwnd_max && a->cc_episodes == 0);
    sim_run(&s, 60000 * MS, 1);
    check_delivery(&s, "descheduled, probes");
    print_stats("descheduled 1.5 rto, probes", &s);
    sim_fini(&s);

    sim_init(&s, &cfg, 50 * US, 15, 20000, 0);
    sim_run(&s, 3 * MS, 0);
    a = tn_udp_conn_stats(s.a.conn);
    s.b.paused_until = 6 * MS;
    sim_run(&s, 6 * MS, 0);
    CHECK(a->probes == 2 && a->timeouts >= 1 && a->cwnd == cfg.cwnd_min);
    sim_run(&s, 60000 * MS, 1);
    check_delivery(&s, "descheduled long, probes");
    sim_fini(&s);
}

/* A short tail (4 messages) sent while the receiver is away for 3 ms: every
 * packet times out and is resent before the receiver comes back, so the
 * first ack covers only resent packets and cannot show the timeout was
 * premature.  A receiver that says its acks are late (TN_UDP_F_LATE) gets
 * the window reduction undone; one that does not leaves it reduced. */
static void test_late_tail(void)
{
    for (int say_late = 0; say_late < 2; say_late++) {
        sim_t s;
        tn_udp_conn_cfg_t cfg = default_cfg();
        sim_init(&s, &cfg, 50 * US, 16, 400, 0);
        sim_run(&s, 60000 * MS, 1);
        const tn_udp_conn_stats_t *a = tn_udp_conn_stats(s.a.conn);
        const tn_udp_conn_stats_t *b = tn_udp_conn_stats(s.b.conn);
        uint64_t cwnd_before = a->cwnd;
        CHECK(cwnd_before > cfg.cwnd_min && a->timeouts == 0);
        s.b.paused_until = s.now + 3 * MS;
        s.b.late_wake = say_late;
        s.a.to_send += 4;
        sim_run(&s, s.b.paused_until - 1, 0);
        CHECK(a->timeouts >= 2 && a->cwnd == cfg.cwnd_min);
        sim_run(&s, 60000 * MS, 1);
        check_delivery(&s, say_late ? "late tail, said" : "late tail, unsaid");
        CHECK(b->late_acks == 0);
        if (say_late) {
            CHECK(a->late_acks >= 1 && a->cc_undone == 1 && a->cwnd == cwnd_before);
        } else {
            CHECK(a->late_acks == 0 && a->cc_undone == 0 && a->cwnd < cwnd_before);
        }
        sim_fini(&s);
    }
}

/* Dead peer: the channel swallows everything.  Reported exactly
 * peer_timeout after the later of the last datagram heard and the moment
 * data became outstanding, not before; an idle connection is never dead. */
static void test_dead(void)
{
    sim_t s;
    tn_udp_conn_cfg_t cfg = default_cfg();
    sim_init(&s, &cfg, 50 * US, 8, 100, 100);
    sim_run(&s, 10000 * MS, 1);
    check_delivery(&s, "dead (before)");
    CHECK(!tn_udp_conn_dead(s.a.conn, s.now + 10 * cfg.peer_timeout_ns));   /* idle */
    s.ab.black_hole = s.ba.black_hole = 1;
    s.now += 5 * MS;
    uint64_t heard = s.a.last_input, t0 = s.now;
    CHECK(heard < t0);
    s.a.to_send = 101;                      /* one more message, into the void */
    sim_run(&s, t0 + cfg.peer_timeout_ns - 1, 0);
    CHECK(!tn_udp_conn_dead(s.a.conn, s.now));
    CHECK(!tn_udp_conn_dead(s.a.conn, t0 + cfg.peer_timeout_ns - 1));
    CHECK(tn_udp_conn_dead(s.a.conn, t0 + cfg.peer_timeout_ns));
    sim_run(&s, t0 + cfg.peer_timeout_ns + 5 * MS, 0);
    CHECK(tn_udp_conn_dead(s.a.conn, s.now));
    CHECK(!tn_udp_conn_dead(s.b.conn, s.now));          /* B has nothing outstanding */
    const tn_udp_conn_stats_t *a = tn_udp_conn_stats(s.a.conn);
    CHECK(a->timeouts >= 3);                /* it kept trying, backing off */
    CHECK(a->rto_ns > 4 * cfg.rto_min_ns);
    printf("dead peer              reported at t0+%llums, %llu timeouts, rto %.1fms\n",
           (unsigned long long)(cfg.peer_timeout_ns / MS), (unsigned long long)a->timeouts,
           (double)a->rto_ns / 1e6);
    sim_fini(&s);
}

/* A peer that goes quiet while it has data outstanding, then recovers
 * before peer_timeout: not dead, and everything arrives. */
static void test_outage(void)
{
    sim_t s;
    tn_udp_conn_cfg_t cfg = default_cfg();
    sim_init(&s, &cfg, 50 * US, 9, 3000, 3000);
    sim_run(&s, 2 * MS, 0);
    s.ab.black_hole = s.ba.black_hole = 1;
    sim_run(&s, 2 * MS + cfg.peer_timeout_ns / 2, 0);
    CHECK(!tn_udp_conn_dead(s.a.conn, s.now) && !tn_udp_conn_dead(s.b.conn, s.now));
    s.ab.black_hole = s.ba.black_hole = 0;
    sim_run(&s, 60000 * MS, 1);
    print_stats("50ms outage", &s);
    check_delivery(&s, "outage");
    CHECK(tn_udp_conn_stats(s.a.conn)->timeouts > 0);
    sim_fini(&s);
}

/* Two rails: data is striped over both; one rail dies (silently, then the
 * socket layer reports it): everything still arrives, nothing more goes on
 * the dead rail, and the last rail cannot be taken down. */
static void test_rails(void)
{
    sim_t s;
    tn_udp_conn_cfg_t cfg = default_cfg();
    cfg.nrails = 2;
    sim_init(&s, &cfg, 50 * US, 10, 6000, 3000);
    sim_run(&s, 2 * MS, 0);
    CHECK(s.ab.rail_data[0] > 100 && s.ab.rail_data[1] > 100);
    uint64_t r0 = s.ab.rail_data[0], r1 = s.ab.rail_data[1];
    CHECK(r0 + 1 >= r1 && r1 + 1 >= r0);    /* round-robin */
    /* rail 1 fails silently: retransmissions go on rail 0 */
    s.ab.rail_dead[1] = s.ba.rail_dead[1] = 1;
    sim_run(&s, 3 * MS, 0);
    tn_udp_conn_rail_down(s.a.conn, 1);
    tn_udp_conn_rail_down(s.b.conn, 1);
    uint64_t dead_rail_sent = s.ab.rail_data[1] + s.ba.rail_data[1];
    tn_udp_conn_rail_down(s.a.conn, 0);     /* the last rail: refused */
    tn_udp_conn_rail_down(s.a.conn, 7);     /* no such rail: ignored */
    sim_run(&s, 60000 * MS, 1);
    print_stats("rail down", &s);
    check_delivery(&s, "rails");
    CHECK(s.ab.rail_data[1] + s.ba.rail_data[1] == dead_rail_sent);
    const tn_udp_conn_stats_t *a = tn_udp_conn_stats(s.a.conn);
    CHECK(a->rail_lost[1] > 0);
    CHECK(a->rail_sent[0] > a->rail_sent[1]);
    sim_fini(&s);

    /* a rail that drops everything but is never reported: both ends find
     * it dead from the losses (and only it), stop using it, and everything
     * still arrives */
    sim_init(&s, &cfg, 50 * US, 11, 1000, 500);
    s.ab.rail_dead[1] = s.ba.rail_dead[1] = 1;
    sim_run(&s, 60000 * MS, 1);
    print_stats("rail silently dead", &s);
    check_delivery(&s, "silent rail");
    CHECK(tn_udp_conn_stats(s.a.conn)->rails_down == 1);
    CHECK(tn_udp_conn_stats(s.b.conn)->rails_down == 1);
    CHECK(s.ab.rail_data[1] < 100);          /* stopped early, not striped on */
    sim_fini(&s);

    /* the wrong rail taken down (rail 0, which works) while rail 1 is
     * dead: nothing is acked on the rail left, and after a few timeouts
     * both rails are used again; rail 1 is then found dead from its losses
     * and everything arrives */
    sim_init(&s, &cfg, 50 * US, 14, 2000, 0);
    sim_run(&s, 1 * MS, 0);
    s.ab.rail_dead[1] = s.ba.rail_dead[1] = 1;
    tn_udp_conn_rail_down(s.a.conn, 0);
    sim_run(&s, 60000 * MS, 1);
    print_stats("wrong rail down", &s);
    check_delivery(&s, "wrong rail down");
    CHECK(tn_udp_conn_stats(s.a.conn)->rails_down == 2);
    CHECK(!tn_udp_conn_dead(s.a.conn, s.now));
    sim_fini(&s);

    /* random loss on both rails (5 %) never takes a working rail down */
    sim_init(&s, &cfg, 50 * US, 13, 3000, 1500);
    s.ab.drop = s.ba.drop = 0.05;
    sim_run(&s, 60000 * MS, 1);
    check_delivery(&s, "lossy rails");
    CHECK(tn_udp_conn_stats(s.a.conn)->rails_down == 0);
    CHECK(tn_udp_conn_stats(s.b.conn)->rails_down == 0);
    sim_fini(&s);
}

/* Credits: B's application stops pulling.  A may not have more than window
 * packets beyond what B delivered, stalls on credits, probes, is not taken
 * for dead although the stall outlasts peer_timeout, and completes once B
 * pulls again. */
static void test_credits(void)
{
    sim_t s;
    tn_udp_conn_cfg_t cfg = default_cfg();
    sim_init(&s, &cfg, 50 * US, 12, 1000, 0);
    s.b.pull = 0;
    s.ab.drop = 0.02;
    sim_run(&s, 3 * cfg.peer_timeout_ns, 0);
    CHECK(s.b.received == 0);
    CHECK(s.ab.max_data_psn == cfg.window);  /* filled the window, not more */
    CHECK(s.window_violations == 0);
    CHECK(!tn_udp_conn_dead(s.a.conn, s.now));
    const tn_udp_conn_stats_t *a = tn_udp_conn_stats(s.a.conn);
    CHECK(a->credit_stalls > 0);
    uint64_t pings = a->acks_sent;
    s.b.pull = 1;
    sim_run(&s, 60000 * MS, 1);
    print_stats("receiver stalls", &s);
    check_delivery(&s, "credits");
    printf("receiver stalls        %llu control packets from A (probes), %llu credit stalls\n",
           (unsigned long long)pings, (unsigned long long)a->credit_stalls);
    CHECK(pings > 0);
    sim_fini(&s);

    /* a small window (16, acks every 16) lives on window updates */
    cfg.window = cfg.sendq_max = cfg.cwnd_max = 16;
    cfg.ack_every = 16;
    sim_init(&s, &cfg, 50 * US, 13, 3000, 3000);
    s.ab.drop = s.ba.drop = 0.05;
    sim_run(&s, 60000 * MS, 1);
    print_stats("window 16, 5% loss", &s);
    check_delivery(&s, "small window");
    sim_fini(&s);
}

/* The transport's defaults (window 1024, cwnd 64/4/1024, ack every 16 or
 * after 50 us, RTO 2 ms / 200 us / 200 ms) on a loopback-like channel:
 * 10 us one way, 1% loss, some duplication and reordering. */
static void test_defaults(void)
{
    sim_t s;
    tn_udp_conn_cfg_t cfg = {
        .packet_size = PKT, .window = 1024, .sendq_max = 1024, .ack_every = 16,
        .ack_delay_ns = 50 * US, .rto_init_ns = 2 * MS, .rto_min_ns = 200 * US,
        .rto_max_ns = 200 * MS, .dupthresh = 3, .cwnd_init = 64, .cwnd_min = 4,
        .cwnd_max = 1024, .peer_timeout_ns = 30000 * MS, .nrails = 1, .probes = 2,
    };
    sim_init(&s, &cfg, 10 * US, 14, 20000, 5000);
    s.ab.drop = s.ba.drop = 0.01;
    s.ab.dup = s.ba.dup = 0.01;
    s.ab.jitter = s.ba.jitter = 5 * US;
    sim_run(&s, 60000 * MS, 1);
    print_stats("defaults, 1% loss", &s);
    check_delivery(&s, "defaults");
    CHECK(tn_udp_conn_stats(s.a.conn)->rto_ns <= 300 * US);
    sim_fini(&s);
}

/* Send-side limits and packet validation reasons. */
static void test_api(void)
{
    tn_udp_conn_cfg_t cfg = default_cfg();
    tn_udp_conn_t *c;
    CHECK(tn_udp_conn_new(&cfg, 0, 1, &c) == TN_OK);
    CHECK(tn_udp_conn_max_message(c) == PKT - TN_UDP_OVERHEAD);
    static unsigned char big[PKT];
    struct iovec iov = { big, PKT - TN_UDP_OVERHEAD + 1 };
    CHECK(tn_udp_conn_send(c, &iov, 1, 0) == TN_ERR_INVAL);
    iov.iov_len = 10;
    CHECK(tn_udp_conn_idle(c));
    for (uint32_t i = 0; i < cfg.sendq_max; i++) {
        CHECK(tn_udp_conn_send(c, &iov, 1, 0) == TN_OK);
    }
    CHECK(tn_udp_conn_send(c, &iov, 1, 0) == TN_ERR_AGAIN);
    CHECK(!tn_udp_conn_idle(c));
    CHECK(tn_udp_conn_deadline(c) == 0);    /* data to send now */
    unsigned char pkt[PKT];
    int rail = -1;
    size_t len = tn_udp_conn_output(c, pkt, sizeof(pkt), &rail, 0);
    CHECK(len == sizeof(tn_udp_hdr_t) + 10 && rail == 0);
    const char *why = NULL;
    CHECK(tn_udp_packet_check(pkt, len, rxid(1), 1, &why) == TN_OK);
    tn_udp_hdr_t h;
    memcpy(&h, pkt, sizeof(h));
    CHECK(h.version == TN_UDP_VERSION && h.type == TN_UDP_PKT_DATA && h.psn == 1 &&
          h.ack == 1 && h.credits == cfg.window && h.src == 0 && h.dst == 1 && h.len == 10);
    CHECK(tn_udp_packet_check(pkt, len, rxid(1) + 1, 1, &why) == TN_ERR_PROTO &&
          strcmp(why, "another connection") == 0);
    CHECK(tn_udp_packet_check(pkt, len, rxid(1), 2, &why) == TN_ERR_PROTO &&
          strcmp(why, "addressed to another rank") == 0);
    CHECK(tn_udp_packet_check(pkt, 20, rxid(1), 1, &why) == TN_ERR_PROTO &&
          strcmp(why, "shorter than a header") == 0);
    CHECK(tn_udp_packet_check(pkt, len - 1, rxid(1), 1, &why) == TN_ERR_PROTO &&
          strcmp(why, "bad crc") == 0);
    for (size_t i = 0; i < len; i++) {      /* any flipped byte is caught */
        if (i >= TN_UDP_TAG_OFF && i < TN_UDP_TAG_OFF + TN_UDP_TAG_BYTES) {
            continue;                       /* the tag's: tn_udp_conn_authentic's (test_auth) */
        }
        pkt[i] ^= 0x40;
        CHECK(tn_udp_packet_check(pkt, len, rxid(1), 1, &why) == TN_ERR_PROTO);
        pkt[i] ^= 0x40;
    }
    /* well-formed CRC but bad fields */
    struct { size_t off; unsigned char val; const char *why; } bad[] = {
        { offsetof(tn_udp_hdr_t, version), 9, "unknown version" },
        { offsetof(tn_udp_hdr_t, type), 7, "unknown type" },
        { offsetof(tn_udp_hdr_t, nsack), 9, "too many sack ranges" },
        { offsetof(tn_udp_hdr_t, len), 11, "length mismatch" },
        { offsetof(tn_udp_hdr_t, psn), 0, "bad psn or length for the type" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        unsigned char copy[PKT];
        memcpy(copy, pkt, len);
        copy[bad[i].off] = bad[i].val;
        memset(copy + offsetof(tn_udp_hdr_t, crc), 0, 4);
        uint32_t crc = tn_udp_packet_crc(copy, len);
        memcpy(copy + offsetof(tn_udp_hdr_t, crc), &crc, 4);
        why = NULL;
        CHECK(tn_udp_packet_check(copy, len, rxid(1), 1, &why) == TN_ERR_PROTO);
        CHECK(why != NULL && strcmp(why, bad[i].why) == 0);
    }
    tn_udp_conn_free(c);
    cfg.nrails = 0;
    fprintf(stderr, "(two 'bad connection configuration' errors expected:)\n");
    CHECK(tn_udp_conn_new(&cfg, 0, 1, &c) == TN_ERR_INVAL);
    cfg.nrails = 1;
    cfg.packet_size = TN_UDP_OVERHEAD;
    CHECK(tn_udp_conn_new(&cfg, 0, 1, &c) == TN_ERR_INVAL);
}

/* A sender that pushes a stream without reading its socket passes timers
 * = 0: however long it goes, output must not take the unread acks for loss
 * (no RTO, nothing resent); the next output with timers does. */
static void test_no_timers(void)
{
    tn_udp_conn_cfg_t cfg = default_cfg();
    tn_udp_conn_t *c;
    CHECK(tn_udp_conn_new(&cfg, 0, 1, &c) == TN_OK);
    static unsigned char msg[100];
    struct iovec iov = { msg, sizeof(msg) };
    unsigned char pkt[PKT];
    const void *payload;
    size_t plen;
    int rail;
    uint64_t now = 0;
    CHECK(tn_udp_conn_send(c, &iov, 1, now) == TN_OK);
    CHECK(tn_udp_conn_output_gather(c, pkt, sizeof(pkt), &payload, &plen, NULL, &rail, now, 0) != 0);
    uint64_t due = tn_udp_conn_deadline(c);
    CHECK(due != UINT64_MAX && due > now);          /* the RTO is armed */
    /* long past the RTO, more data goes out, nothing is resent */
    for (int i = 0; i < 5; i++) {
        now = due + (uint64_t)i * 10 * MS;
        CHECK(tn_udp_conn_send(c, &iov, 1, now) == TN_OK);
        size_t n = tn_udp_conn_output_gather(c, pkt, sizeof(pkt), &payload, &plen, NULL, &rail, now, 0);
        tn_udp_hdr_t h;
        memcpy(&h, pkt, sizeof(h));
        CHECK(n != 0 && h.psn == (uint64_t)i + 2 && !(h.flags & TN_UDP_F_RETX));
        CHECK(tn_udp_conn_output_gather(c, pkt, sizeof(pkt), &payload, &plen, NULL, &rail, now, 0) == 0);
    }
    CHECK(tn_udp_conn_stats(c)->timeouts == 0 && tn_udp_conn_stats(c)->retransmits == 0);
    /* with timers the silence counts: a timeout, psn 1 goes out again */
    size_t n = tn_udp_conn_output_gather(c, pkt, sizeof(pkt), &payload, &plen, NULL, &rail, now, 1);
    tn_udp_hdr_t h;
    memcpy(&h, pkt, sizeof(h));
    CHECK(n != 0 && h.psn == 1 && (h.flags & TN_UDP_F_RETX));
    CHECK(tn_udp_conn_stats(c)->timeouts == 1);
    tn_udp_conn_free(c);
    printf("no timers while unread    ok\n");
}

/* Messages sent by reference through loss, duplication and reordering:
 * every byte arrives, each message's memory is released exactly once, and
 * none is read after its release (released memory is scribbled over). */
static void test_by_ref(void)
{
    sim_t s;
    tn_udp_conn_cfg_t cfg = default_cfg();
    cfg.release = ref_release;
    memset(ref_released, 0, sizeof(ref_released));
    ref_bad_release = 0;
    sim_init(&s, &cfg, 50 * US, 31, 3000, 500);
    s.a.by_ref = 1;
    s.ab.drop = s.ba.drop = 0.03;
    s.ab.dup = 0.02;
    s.ab.jitter = 40 * US;
    sim_run(&s, 60000 * MS, 1);
    print_stats("by reference", &s);
    check_delivery(&s, "by reference");
    const tn_udp_conn_stats_t *a = tn_udp_conn_stats(s.a.conn);
    CHECK(a->retransmits > 0);              /* some came from the caller's memory */
    uint64_t released = 0;
    for (int i = 0; i < 3000; i++) {
        released += ref_released[i] == 1;
    }
    CHECK(released == 3000 && ref_bad_release == 0);
    /* bad arguments */
    unsigned char b[8] = { 0 };
    CHECK(tn_udp_conn_send_ref(s.a.conn, b, 4, NULL, 4, NULL, s.now) == TN_ERR_INVAL);
    CHECK(tn_udp_conn_send_ref(s.a.conn, b, 4, b, PKT, NULL, s.now) == TN_ERR_INVAL);
    sim_fini(&s);
    for (int i = 0; i < REF_MAX; i++) {
        free(ref_buf[i]);
        ref_buf[i] = NULL;
    }
}

#include <time.h>
static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
#define TIMED(call)                                                                \
    do {                                                                           \
        double t0_ = wall();                                                       \
        call;                                                                      \
        printf("  (%s: %.0f ms)\n", #call, (wall() - t0_) * 1e3);                  \
    } while (0)

/* SACK ranges take the room a packet has: with more holes than fit, a
 * full data packet carries the TN_UDP_DATA_SACK highest ranges and stays
 * within the packet size, a shorter one more, a pure ack all
 * TN_UDP_MAX_SACK; the sender takes what they say. */
static void test_sack_room(void)
{
    tn_udp_conn_cfg_t cfg = default_cfg();
    cfg.cwnd_init = cfg.cwnd_max;       /* all 24 leave at once */
    tn_udp_conn_t *a, *b;
    CHECK(tn_udp_conn_new(&cfg, 0, 1, &a) == TN_OK);
    CHECK(tn_udp_conn_new(&cfg, 1, 0, &b) == TN_OK);
    static unsigned char msg[PKT], pkt[PKT];
    struct iovec iov = { msg, 10 };
    /* a sends 24 packets; b gets every other one from the third: psn 1 is
     * missing, then holes at 4, 6, ... 24: 11 ranges above the ack */
    for (int i = 0; i < 24; i++) {
        CHECK(tn_udp_conn_send(a, &iov, 1, 0) == TN_OK);
    }
    int rail = -1;
    for (uint64_t psn = 1; psn <= 24; psn++) {
        size_t len = tn_udp_conn_output(a, pkt, sizeof(pkt), &rail, 0);
        CHECK(len > 0);
        if (psn >= 3 && psn % 2 == 1) {
            tn_udp_conn_input(b, pkt, len, 0, 1000);
        }
    }
    size_t len;
    while ((len = tn_udp_conn_output(b, pkt, sizeof(pkt), &rail, 1000)) != 0) {
        /* drain the acks the holes made due at once */
    }
    tn_udp_hdr_t h;
    const char *why = NULL;
    /* a full data packet from b: the two highest ranges, within PKT */
    iov.iov_len = tn_udp_conn_max_message(b);
    CHECK(tn_udp_conn_send(b, &iov, 1, 2000) == TN_OK);
    len = tn_udp_conn_output(b, pkt, sizeof(pkt), &rail, 2000);
    memcpy(&h, pkt, sizeof(h));
    CHECK(len == PKT && h.type == TN_UDP_PKT_DATA && h.nsack == TN_UDP_DATA_SACK);
    CHECK(tn_udp_packet_check(pkt, len, rxid(0), 0, &why) == TN_OK);
    tn_udp_sack_t s;
    memcpy(&s, pkt + sizeof(h), sizeof(s));
    CHECK(h.ack == 1 && s.start == 23 && s.end == 24);     /* the highest first */
    /* a shorter one: as many as fit */
    iov.iov_len = tn_udp_conn_max_message(b) - 3 * sizeof(tn_udp_sack_t);
    CHECK(tn_udp_conn_send(b, &iov, 1, 2000) == TN_OK);
    len = tn_udp_conn_output(b, pkt, sizeof(pkt), &rail, 2000);
    memcpy(&h, pkt, sizeof(h));
    CHECK(len <= PKT && h.nsack == TN_UDP_DATA_SACK + 3);
    /* a pure ack (a duplicate makes one due at once): all that fit the header */
    iov.iov_len = 10;
    CHECK(tn_udp_conn_send(a, &iov, 1, 0) == TN_OK);
    size_t alen = tn_udp_conn_output(a, pkt, sizeof(pkt), &rail, 3000);
    CHECK(alen > 0);
    tn_udp_conn_input(b, pkt, alen, 0, 3000);
    tn_udp_conn_input(b, pkt, alen, 0, 3000);
    len = tn_udp_conn_output(b, pkt, sizeof(pkt), &rail, 3000);
    memcpy(&h, pkt, sizeof(h));
    CHECK(len > 0 && h.type == TN_UDP_PKT_ACK && h.nsack == TN_UDP_MAX_SACK);
    CHECK(tn_udp_packet_check(pkt, len, rxid(0), 0, &why) == TN_OK);
    /* a reads the ranges: the holes below them are lost (packet
     * threshold) and the lowest goes out again first */
    tn_udp_conn_input(a, pkt, len, 0, 3000);
    CHECK(tn_udp_conn_stats(a)->fast_retransmits > 0);
    len = tn_udp_conn_output(a, pkt, sizeof(pkt), &rail, 3000);
    memcpy(&h, pkt, sizeof(h));
    CHECK(len > 0 && h.type == TN_UDP_PKT_DATA && h.psn == 1);
    tn_udp_conn_free(a);
    tn_udp_conn_free(b);
}

/* Pacing lets cfg.pace_burst packets leave back to back after an idle
 * period (at least 16): udp.c asks for a flush's worth of small packets,
 * two full GSO sends, which a burst of 16 cut to one send of 16 at any
 * rate. */
static void test_pace_burst(void)
{
    for (int k = 0; k < 2; k++) {
        tn_udp_conn_cfg_t cfg = default_cfg();
        cfg.window = cfg.sendq_max = cfg.cwnd_init = cfg.cwnd_max = 256;
        cfg.pace_burst = k == 0 ? 0 : 88;
        uint32_t expect = k == 0 ? 16 : 88;
        tn_udp_conn_t *a, *b;
        CHECK(tn_udp_conn_new(&cfg, 0, 1, &a) == TN_OK);
        CHECK(tn_udp_conn_new(&cfg, 1, 0, &b) == TN_OK);
        static unsigned char msg[64], pkt[PKT];
        struct iovec iov = { msg, sizeof(msg) };
        int rail;
        /* one round trip for an RTT sample, which turns pacing on */
        CHECK(tn_udp_conn_send(a, &iov, 1, 0) == TN_OK);
        size_t len = tn_udp_conn_output(a, pkt, sizeof(pkt), &rail, 0);
        CHECK(len > 0);
        tn_udp_conn_input(b, pkt, len, 0, 10 * US);
        len = tn_udp_conn_output(b, pkt, sizeof(pkt), &rail, 40 * US);   /* delayed ack */
        CHECK(len > 0);
        tn_udp_conn_input(a, pkt, len, 0, 50 * US);
        /* idle, then a backlog: what leaves at one instant */
        for (int i = 0; i < 200; i++) {
            CHECK(tn_udp_conn_send(a, &iov, 1, MS) == TN_OK);
        }
        uint32_t n = 0;
        while (tn_udp_conn_output(a, pkt, sizeof(pkt), &rail, MS) != 0) {
            n++;
        }
        CHECK(n >= expect && n <= expect + 1);
        if (!(n >= expect && n <= expect + 1)) {
            fprintf(stderr, "pace_burst %u: %u packets left at once\n", cfg.pace_burst, n);
        }
        /* the rest follows at the paced rate */
        CHECK(tn_udp_conn_output(a, pkt, sizeof(pkt), &rail, MS + 10 * US) != 0);
        tn_udp_conn_free(a);
        tn_udp_conn_free(b);
    }
}

/* The receiver's ack count: a byte count's worth of packets, 16 at least,
 * a window's eighth at most; a stream of small packets draws one pure ack
 * per ack_every of them. */
static void test_ack_every(void)
{
    CHECK(tn_udp_conn_ack_every(1472, 4096, 128 * 1024) == 89);
    CHECK(tn_udp_conn_ack_every(1472, 256, 128 * 1024) == 32);
    CHECK(tn_udp_conn_ack_every(1472, 64, 128 * 1024) == 16);
    CHECK(tn_udp_conn_ack_every(8972, 4096, 128 * 1024) == 16);
    CHECK(tn_udp_conn_ack_every(32768, 4096, 128 * 1024) == 16);
    CHECK(tn_udp_conn_ack_every(1472, 4096, 0) == 16);
    CHECK(tn_udp_conn_ack_every(0, 4096, 128 * 1024) == 16);

    for (int k = 0; k < 2; k++) {
        tn_udp_conn_cfg_t cfg = default_cfg();
        cfg.window = cfg.sendq_max = cfg.cwnd_init = cfg.cwnd_max = 1024;
        cfg.ack_every = k == 0 ? 16 : tn_udp_conn_ack_every(PKT, cfg.window, 64 * 1024);
        CHECK(cfg.ack_every == (k == 0 ? 16u : 54u));
        tn_udp_conn_t *a, *b;
        CHECK(tn_udp_conn_new(&cfg, 0, 1, &a) == TN_OK);
        CHECK(tn_udp_conn_new(&cfg, 1, 0, &b) == TN_OK);
        static unsigned char msg[PKT], pkt[PKT], ack[PKT];
        struct iovec iov = { msg, tn_udp_conn_max_message(a) };
        int rail;
        uint32_t sent = 0, acks = 0;
        /* 500 full packets, each taken in at once; the clock stands still,
         * so only the count can make an ack due (and no packet of a fills
         * half its window, which would ask for one) */
        for (int i = 0; i < 500; i++) {
            CHECK(tn_udp_conn_send(a, &iov, 1, 0) == TN_OK);
            size_t len;
            while ((len = tn_udp_conn_output(a, pkt, sizeof(pkt), &rail, 0)) != 0) {
                sent++;
                tn_udp_conn_input(b, pkt, len, 0, 0);
                size_t alen;
                while ((alen = tn_udp_conn_output(b, ack, sizeof(ack), &rail, 0)) != 0) {
                    acks++;
                    tn_udp_conn_input(a, ack, alen, 0, 0);
                }
            }
        }
        CHECK(sent == 500);
        CHECK(acks == 500 / cfg.ack_every);
        if (acks != 500 / cfg.ack_every) {
            fprintf(stderr, "ack_every %u: %u acks for %u packets\n", cfg.ack_every, acks, sent);
        }
        tn_udp_conn_free(a);
        tn_udp_conn_free(b);
    }
}

/* An ack packet from rank 1 to rank 0 (mode off, as the tests run):
 * cumulative ack, one SACK range [s0, s1) when s1 > s0, credits. */
static size_t forge_ack(unsigned char *pkt, uint64_t ack, uint64_t s0, uint64_t s1)
{
    tn_udp_hdr_t h = {
        .version = TN_UDP_VERSION, .type = TN_UDP_PKT_ACK, .conn = rxid(0), .src = 1,
        .dst = 0, .ack = ack, .credits = 64, .nsack = s1 > s0, .seq = 1,
    };
    memcpy(pkt, &h, sizeof(h));
    size_t len = sizeof(h);
    if (s1 > s0) {
        tn_udp_sack_t r = { s0, s1 };
        memcpy(pkt + len, &r, sizeof(r));
        len += sizeof(r);
    }
    uint32_t crc = tn_udp_packet_crc(pkt, len);
    memcpy(pkt + offsetof(tn_udp_hdr_t, crc), &crc, 4);
    return len;
}

/* Acks are believed only for what was sent: an ack or a SACK range beyond
 * the packets sent is counted and ignored whole (the packets stay in
 * flight and are resent); and a connection whose packets in flight get
 * no new ack for peer_timeout is dead even while acks keep coming. */
static void test_ack_trust(void)
{
    tn_udp_conn_cfg_t cfg = default_cfg();
    tn_udp_conn_t *a;
    CHECK(tn_udp_conn_new(&cfg, 0, 1, &a) == TN_OK);
    unsigned char msg[100] = { 7 }, pkt[PKT], ack[256];
    struct iovec iov = { msg, sizeof(msg) };
    uint64_t now = 0;
    int rail;
    for (int i = 0; i < 3; i++) {
        CHECK(tn_udp_conn_send(a, &iov, 1, now) == TN_OK);
    }
    for (int i = 0; i < 3; i++) {
        CHECK(tn_udp_conn_output(a, pkt, sizeof(pkt), &rail, now) > 0);   /* psn 1..3, lost */
    }
    const char *why;
    size_t len = forge_ack(ack, 1 + 100, 0, 0);           /* acks 100 never sent */
    CHECK(tn_udp_packet_check(ack, len, rxid(0), 0, &why) == TN_OK);   /* well formed */
    tn_udp_conn_input(a, ack, len, 0, now);
    CHECK(tn_udp_conn_stats(a)->bad_acks == 1);
    len = forge_ack(ack, 1, 2, 50);                        /* SACK beyond what was sent */
    tn_udp_conn_input(a, ack, len, 0, now);
    CHECK(tn_udp_conn_stats(a)->bad_acks == 2);
    CHECK(!tn_udp_conn_idle(a));
    /* acks of nothing keep coming for longer than peer_timeout, the
     * packets in flight are resent and never acknowledged */
    int dead = 0;
    while (now < 2 * cfg.peer_timeout_ns && !dead) {
        now += 1 * MS;
        while (tn_udp_conn_output(a, pkt, sizeof(pkt), &rail, now) > 0) {
        }
        len = forge_ack(ack, 1, 0, 0);
        tn_udp_conn_input(a, ack, len, 0, now);
        dead = tn_udp_conn_dead(a, now);
    }
    CHECK(dead == TN_UDP_DEAD_STUCK);
    CHECK(now >= cfg.peer_timeout_ns && now <= cfg.peer_timeout_ns + 2 * MS);
    /* a valid ack of everything: alive and idle again */
    len = forge_ack(ack, 4, 0, 0);
    tn_udp_conn_input(a, ack, len, 0, now);
    CHECK(tn_udp_conn_idle(a) && tn_udp_conn_dead(a, now) == 0);
    CHECK(tn_udp_conn_stats(a)->bad_acks == 2);
    tn_udp_conn_free(a);
}

int main(void)
{
    TIMED(test_ack_every());
    TIMED(test_pace_burst());
    TIMED(test_sack_room());
    TIMED(test_api());
    TIMED(test_ack_trust());
    TIMED(test_clean());
    TIMED(test_rto_long());
    TIMED(test_loss(0.0, 20, 3000));
    TIMED(test_loss(0.01, 21, 3000));
    TIMED(test_loss(0.05, 22, 3000));
    TIMED(test_loss(0.20, 23, 2000));
    TIMED(test_dup_reorder_corrupt());
    TIMED(test_split());
    TIMED(test_cwnd());
    TIMED(test_bottleneck());
    TIMED(test_deep_queue());
    TIMED(test_descheduled());
    TIMED(test_descheduled_probes());
    TIMED(test_late_tail());
    TIMED(test_dead());
    TIMED(test_outage());
    TIMED(test_rails());
    TIMED(test_credits());
    TIMED(test_defaults());
    TIMED(test_no_timers());
    TIMED(test_by_ref());
    return tn_check_report("test_conn");
}
