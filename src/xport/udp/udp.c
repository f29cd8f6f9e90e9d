/* The udp transport: connections (udp_conn, sans I/O) driven over the
 * sockets of udp_sock.  Addresses are exchanged through the job's key/value
 * space at start-up; a connection per udp peer is created on first use. */
#include "xport/xport.h"
#include "xport/udp/udp_auth.h"
#include "xport/udp/udp_clock.h"
#include "xport/udp/udp_conn.h"
#include "xport/udp/udp_direct.h"
#include "xport/udp/udp_sock.h"
#include "base/config.h"
#include "base/counters.h"
#include "base/events.h"
#include "base/log.h"
#include "base/monitor.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TN_UDP_RECV_BATCH 32
/* Batches one progress call reads from a rail at most: whatever arrives,
 * junk included, a call returns (and the rank gets on with its other
 * work) after this many; what is left waits in the socket for the next.
 * 8 batches of up to 64 GRO buffers: far more than a window of data. */
#define TN_UDP_RECV_ROUNDS 8

/* Packets one flush gathers at most: two full GSO messages of the
 * smallest packets (1472 bytes on a 1500-byte MTU: 2 x 44). */
#define TN_UDP_SEND_MAX 128

typedef struct {
    tn_udp_conn_t      *conn;
    int                 fin;           /* the peer's FIN arrived: it is finalizing */
    uint64_t            fin_at;        /* when we noticed (finalize only) */
    /* the connection's rails (udp_rails.h): rail i goes from local socket
     * lrail[i] to the peer's addr[i]; pair_of[socket] is the reverse (-1) */
    int                 nrails;
    struct sockaddr_in  addr[TN_UDP_MAX_RAILS];
    int                 lrail[TN_UDP_MAX_RAILS];
    int8_t              pair_of[TN_UDP_MAX_SOCKS];
    int                 route[TN_UDP_MAX_RAILS];    /* connected socket, or -1 */
    uint64_t            due;           /* the connection's deadline, kept current */
    tn_udp_dpeer_t      direct;        /* rendezvous streams to receive in place */
} tn_udp_peer_t;

static struct {
    int                  active;
    int                  auth;         /* tn_udp_auth_mode_t */
    uint8_t              secret[TN_UDP_SECRET_BYTES];
    int                  me;
    int                  world_size;
    tn_udp_peer_t       *peers;        /* [world rank], conn NULL until used */
    int                 *list;         /* world ranks served by udp */
    int                  nlist;
    tn_udp_sock_t        sock;
    tn_udp_conn_cfg_t    cfg;
    tn_xport_am_handler_fn_t *handler;
    tn_xport_ref_done_fn_t   *ref_done;
    void               (*fatal)(const char *msg);
    char                *rbuf;         /* TN_UDP_RECV_BATCH receive buffers */
    size_t               rcap;         /* bytes each (64 KiB with GRO) */
    char                *obuf;         /* send_batch output buffers */
    /* direct receive (udp_direct.h): peers with streams, the last peer whose
     * data came on each rail, the plan's heads; rbuf's first two buffers
     * are its spill area and scratch */
    int                 *dlist;
    int                  ndlist;
    int                  ndirect;        /* streams registered, all peers */
    int                  dlast[TN_UDP_MAX_SOCKS];
    char               (*dheads)[TN_UDP_DIRECT_HEAD];
    tn_udp_dplan_t       dplan;
    uint64_t             late_messages;  /* delivered while closing, dropped */
    uint64_t             last_read_ns;   /* end of the last pass over the sockets (hint) */
    int                  batch;          /* datagrams per receive call */
    int                  send_batch;     /* packets one flush gathers */
    int                  closing;        /* finalize: peers are done sending */
    /* no connection has anything to send or a timer due before this: a
     * progress call that receives nothing skips them all until then */
    uint64_t             next_due;   /* (hint) */
    tn_udp_clock_t       clock;
} tn_udp;

/* The hints above are also read and written by a thread asleep in
 * tn_xport_udp_sleep, without the runtime lock: atomic, relaxed (a stale
 * value costs a shorter or longer sleep, or one late-ack verdict). */
static inline uint64_t tn_udp_hint_get(const uint64_t *v)
{
    return __atomic_load_n(v, __ATOMIC_RELAXED);
}

static inline void tn_udp_hint_set(uint64_t *v, uint64_t x)
{
    __atomic_store_n(v, x, __ATOMIC_RELAXED);
}

/* The counters (base/counters_table.h), outside tn_udp so that finalize
 * keeps them for MPI_T readers. */
static tn_udp_stats_t tn_udp_stats_own;
static tn_udp_stats_t *tn_udp_st = &tn_udp_stats_own;   /* or in the stats segment */

/* FIN: the last message a rank sends each udp peer, from MPI_Finalize after
 * the job's closing barrier.  Shorter than any active message, so it
 * cannot be mistaken for one.  Arriving in order, it tells the peer that
 * everything before it was delivered and nothing more will come or be
 * needed, so the peer may stop waiting for acks from this rank. */
static const char tn_udp_fin_msg[4] = { 'T', 'F', 'I', 'N' };

static uint64_t tn_udp_now(void)
{
    return tn_udp_clock_now(&tn_udp.clock);
}

/* A message sent by reference was acknowledged: its memory is the
 * core's again. */
static void tn_udp_release(void *cookie)
{
    if (tn_udp.ref_done != NULL) {
        tn_udp.ref_done(cookie);
    }
}

/* The job's secret (udp_auth.h): rank 0 draws it and publishes it in the
 * job's key/value space before the address fence; everyone reads it after.
 * Hex in the key/value space; never logged. */
#define TN_UDP_SECRET_KEY "udpsecret"

static tn_status_t tn_udp_secret_put(const tn_xport_job_t *job)
{
    static const char hex[] = "0123456789abcdef";
    char val[2 * TN_UDP_SECRET_BYTES + 1];
    tn_status_t st;

    if (job->world_rank != 0) {
        return TN_OK;
    }
    if ((st = tn_udp_auth_random(tn_udp.secret, sizeof(tn_udp.secret))) != TN_OK) {
        tn_log_error("udp", "no random bytes from the kernel for the job's secret");
        return st;
    }
    for (int i = 0; i < TN_UDP_SECRET_BYTES; i++) {
        val[2 * i] = hex[tn_udp.secret[i] >> 4];
        val[2 * i + 1] = hex[tn_udp.secret[i] & 15];
    }
    val[2 * TN_UDP_SECRET_BYTES] = '\0';
    st = job->kv_put(TN_UDP_SECRET_KEY, val);
    memset(val, 0, sizeof(val));
    if (st == TN_OK) {
        /* everyone checks that it runs rank 0's mode */
        st = job->kv_put("udpauth", tn_udp_auth_name(tn_udp.auth));
    }
    return st;
}

static tn_status_t tn_udp_secret_get(const tn_xport_job_t *job)
{
    char val[2 * TN_UDP_SECRET_BYTES + 8];
    tn_status_t st = TN_OK;

    if (job->world_rank == 0) {
        return TN_OK;
    }
    if (job->kv_get(0, "udpauth", val, sizeof(val)) == TN_OK &&
        strcmp(val, tn_udp_auth_name(tn_udp.auth)) != 0) {
        char msg[160];
        snprintf(msg, sizeof(msg), "TERN_UDP_AUTH is %s here and %.16s on rank 0: every "
                 "rank must use the same mode", tn_udp_auth_name(tn_udp.auth), val);
        job->fatal(msg);
    }
    if (job->kv_get(0, TN_UDP_SECRET_KEY, val, sizeof(val)) != TN_OK ||
        tn_udp_secret_parse(val, tn_udp.secret) != TN_OK) {
        st = TN_ERR_PROTO;
    }
    memset(val, 0, sizeof(val));
    if (st != TN_OK) {
        tn_log_error("udp", "rank 0 published no valid job secret");
    }
    return st;
}

int tn_xport_udp_active(void)
{
    return tn_udp.active;
}

static size_t tn_udp_packet_size(void)
{
    size_t ps = tn_cfg.udp_packet_size;
    if (ps < 1024) {
        ps = 1024;
    }
    if (ps > 32768) {
        ps = 32768;
    }
    for (int r = 0; r < tn_udp.sock.nrails; r++) {
        int mtu = tn_udp.sock.mtu[r];
        /* a datagram must fit the path MTU (IPv4 + UDP headers: 28 bytes) */
        if (mtu > 0 && (size_t)(mtu - 28) < ps) {
            ps = (size_t)(mtu - 28) >= 1024 ? (size_t)(mtu - 28) : 1024;
        }
    }
    return ps;
}

/* Packets a peer may have unacknowledged: TERN_UDP_WINDOW, but no more than
 * the receiving socket's buffer holds (the kernel grants twice the size
 * set), so that a full window is not dropped by the receiving kernel while
 * the receiver is busy (32 KiB packets, 4 MiB buffers: 256). */
static uint32_t tn_udp_window(size_t ps)
{
    uint64_t w = tn_cfg.udp_window > 16 ? (uint64_t)tn_cfg.udp_window : 16;
    uint64_t fit = 2 * (uint64_t)tn_cfg.udp_sockbuf / ps;

    if (fit < 64) {
        fit = 64;
    }
    return (uint32_t)(w < fit ? w : fit);
}

/* The rails (udp_rails.h): every rank's card, read after the fence (mine
 * is the one I published), then my rails towards each udp peer; the
 * sockets that no pair uses are closed.  A duplicated pinned address or a
 * peer without a usable rail ends the job with a message. */
static tn_status_t tn_udp_rails_setup(const tn_xport_job_t *job, const char *mine)
{
    int n = job->world_size, me = job->world_rank;
    tn_udp_card_t *cards = calloc((size_t)n, sizeof(*cards));
    uint32_t *dup = calloc((size_t)n, sizeof(*dup));
    tn_udp_rails_t *rails = calloc((size_t)n, sizeof(*rails));
    char val[TN_UDP_CARD_LEN + 8], msg[1024];
    unsigned used = 0;
    tn_status_t st = TN_ERR_NOMEM;

    if (cards == NULL || dup == NULL || rails == NULL) {
        goto out;
    }
    for (int r = 0; r < n; r++) {
        const char *v = mine;
        if (r != me) {
            if ((st = job->kv_get(r, "udp", val, sizeof(val))) != TN_OK) {
                tn_log_error("udp", "rank %d published no udp rails", r);
                goto out;
            }
            v = val;
        }
        if ((st = tn_udp_card_parse(v, &cards[r])) != TN_OK) {
            tn_log_error("udp", "rank %d published bad udp rails '%.200s'", r, v);
            goto out;
        }
    }
    st = tn_udp_rails_plan(cards, job->node_of_world, n, me, job->use, dup, rails, &used, msg,
                           sizeof(msg));
    if (st == TN_ERR_INVAL) {
        job->fatal(msg);
    }
    if (st != TN_OK) {
        goto out;
    }
    tn_udp_rails_summary(cards, job->node_of_world, n, me, dup, rails, job->use,
                         (const char (*)[16])tn_udp.sock.ifname, msg, sizeof(msg));
    tn_log_info("udp", "rails: %s", msg);
    /* the kept sockets are numbered again from 0 */
    int renum[TN_UDP_MAX_SOCKS];
    for (int i = 0, k = 0; i < TN_UDP_MAX_SOCKS; i++) {
        renum[i] = used >> i & 1 ? k++ : -1;
    }
    tn_udp_sock_keep(&tn_udp.sock, used);
    for (int r = 0; r < n; r++) {
        if (r == me || !job->use[r]) {
            continue;
        }
        tn_udp_peer_t *p = &tn_udp.peers[r];
        memset(p->pair_of, -1, sizeof(p->pair_of));
        p->nrails = rails[r].n;
        for (int i = 0; i < p->nrails; i++) {
            const tn_udp_cand_t *c = &cards[r].c[rails[r].pair[i].peer];
            p->lrail[i] = renum[rails[r].pair[i].mine];
            p->pair_of[p->lrail[i]] = (int8_t)i;
            memset(&p->addr[i], 0, sizeof(p->addr[i]));
            p->addr[i].sin_family = AF_INET;
            p->addr[i].sin_addr.s_addr = c->addr;
            p->addr[i].sin_port = htons(c->port);
            char a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN];
            inet_ntop(AF_INET, &tn_udp.sock.addr[p->lrail[i]].sin_addr, a, sizeof(a));
            inet_ntop(AF_INET, &c->addr, b, sizeof(b));
            tn_log_debug("udp", "rail %d to rank %d: %s -> %s:%u", i, r, a, b, (unsigned)c->port);
        }
        tn_udp.list[tn_udp.nlist++] = r;
    }
out:
    free(cards);
    free(dup);
    free(rails);
    return st;
}

/* The counter registry's view of the peers (base/counters.h); called with
 * the runtime lock held, like everything that touches tn_udp. */
static const void *tn_udp_peer_counters(int peer)
{
    if (tn_udp.peers == NULL || peer < 0 || peer >= tn_udp.world_size ||
        tn_udp.peers[peer].conn == NULL) {
        return NULL;
    }
    return tn_udp_conn_stats(tn_udp.peers[peer].conn);
}

static void tn_udp_rail_label(int peer, int rail, char *buf, size_t len)
{
    const tn_udp_peer_t *p = &tn_udp.peers[peer];
    char a[INET_ADDRSTRLEN] = "?", b[INET_ADDRSTRLEN] = "?";
    if (rail < p->nrails) {
        inet_ntop(AF_INET, &tn_udp.sock.addr[p->lrail[rail]].sin_addr, a, sizeof(a));
        inet_ntop(AF_INET, &p->addr[rail].sin_addr, b, sizeof(b));
    }
    snprintf(buf, len, "%s->%s", a, b);
}

tn_status_t tn_xport_udp_init(const tn_xport_job_t *job)
{
    tn_status_t st;
    memset(&tn_udp, 0, sizeof(tn_udp));
    tn_udp_st = tn_mon_home(TN_CTR_SET_UDP, tn_udp_st);
    const uint16_t probe = 1;
    if (*(const uint8_t *)&probe != 1) {
        job->fatal("the udp transport needs a little-endian host");
    }
    tn_udp.me = job->world_rank;
    tn_udp.world_size = job->world_size;
    const char *why = NULL;
    tn_udp.auth = tn_udp_auth_parse(tn_cfg.udp_auth, &why);
    if (tn_udp.auth < 0) {
        char msg[160];
        snprintf(msg, sizeof(msg), "TERN_UDP_AUTH=%.40s %s", tn_cfg.udp_auth, why);
        job->fatal(msg);
    }
    if (tn_udp_auth_init() != TN_OK) {
        job->fatal("the udp transport's cryptography libraries (libsodium, libcrypto) did not "
                   "start");
    }
    tn_udp.handler = job->am_handler;
    tn_udp.ref_done = job->ref_done;
    tn_udp.fatal = job->fatal;
    tn_udp_clock_init(&tn_udp.clock);
    tn_udp.batch = tn_cfg.udp_batch > 0 && tn_cfg.udp_batch <= TN_UDP_RECV_BATCH
                   ? (int)tn_cfg.udp_batch : TN_UDP_RECV_BATCH;
    tn_udp_fault_cfg_t fault = {
        .drop = tn_cfg.udp_fault_drop,
        .dup = tn_cfg.udp_fault_dup,
        .reorder = tn_cfg.udp_fault_reorder,
        .corrupt = tn_cfg.udp_fault_corrupt,
        .seed = (uint64_t)tn_cfg.udp_fault_seed * 1000003ull + (uint64_t)job->world_rank,
    };
    st = tn_udp_sock_open(&tn_udp.sock, tn_cfg.udp_rails, job->nnodes == 1,
                          tn_cfg.udp_sockbuf, tn_cfg.udp_gso, &fault,
                          (unsigned)tn_cfg.udp_port_min, (unsigned)tn_cfg.udp_port_max);
    if (st != TN_OK) {
        return st;
    }
    tn_udp_hint_set(&tn_udp.next_due, UINT64_MAX);
    char card[TN_UDP_CARD_LEN];
    if (tn_udp_card_format(&tn_udp.sock.card, card, sizeof(card)) == 0) {
        st = TN_ERR_INVAL;
        goto err_close;
    }
    if ((st = job->kv_put("udp", card)) != TN_OK || (st = tn_udp_secret_put(job)) != TN_OK ||
        (st = job->fence()) != TN_OK || (st = tn_udp_secret_get(job)) != TN_OK) {
        goto err_close;
    }
    tn_udp.peers = calloc((size_t)job->world_size, sizeof(tn_udp_peer_t));
    tn_udp.list = calloc((size_t)job->world_size, sizeof(int));
    tn_udp.dlist = calloc((size_t)job->world_size, sizeof(int));
    tn_udp.dheads = calloc(TN_UDP_DIRECT_MAX, TN_UDP_DIRECT_HEAD);
    for (int r = 0; r < TN_UDP_MAX_SOCKS; r++) {
        tn_udp.dlast[r] = -1;
    }
    if (tn_udp.peers == NULL || tn_udp.list == NULL || tn_udp.dlist == NULL ||
        tn_udp.dheads == NULL) {
        st = TN_ERR_NOMEM;
        goto err_close;
    }
    if ((st = tn_udp_rails_setup(job, card)) != TN_OK) {
        goto err_close;
    }
    tn_udp_sock_set_routes(&tn_udp.sock, (int)tn_cfg.udp_connect);
    if (tn_cfg.udp_splice != 0) {
        tn_udp_sock_set_splice(&tn_udp.sock, tn_cfg.udp_splice);
    }
    size_t ps = tn_udp_packet_size();
    uint32_t window = tn_udp_window(ps);
    /* A flush gathers enough for two full GSO messages, so small packets
     * (a 1500-byte MTU) leave in 64 KiB sends, not a batch's worth; pacing
     * lets as many leave back to back (its burst is counted in packets) */
    int gso_segs = tn_udp_sock_gso_segs(&tn_udp.sock, ps);
    tn_udp.send_batch = 2 * gso_segs > tn_udp.batch ? 2 * gso_segs : tn_udp.batch;
    if (tn_udp.send_batch > TN_UDP_SEND_MAX) {
        tn_udp.send_batch = TN_UDP_SEND_MAX;
    }
    tn_udp.cfg = (tn_udp_conn_cfg_t){
        .packet_size = (uint32_t)ps,
        .window = window,
        .sendq_max = 1024,
        .ack_every = tn_udp_conn_ack_every(ps, window, tn_cfg.udp_ack_bytes),
        .ack_delay_ns = (uint64_t)tn_cfg.udp_ack_delay * 1000ull,
        .rto_init_ns = (uint64_t)tn_cfg.udp_rto_init * 1000ull,
        .rto_min_ns = (uint64_t)tn_cfg.udp_rto_min * 1000ull,
        .rto_max_ns = (uint64_t)tn_cfg.udp_rto_max * 1000ull,
        .dupthresh = 3,
        .probes = tn_cfg.udp_probes > 0 ? (uint32_t)tn_cfg.udp_probes : 0,
        .cwnd_init = 64,
        .cwnd_min = 4,
        .cwnd_max = window,
        .pace_burst = (uint32_t)tn_udp.send_batch,
        .peer_timeout_ns = (uint64_t)(tn_cfg.udp_peer_timeout * 1e9),
        .nrails = 1,            /* per connection: its peer's rails */
        .release = tn_udp_release,
        .secret = tn_udp.secret,
        .auth = tn_udp.auth,
    };
    tn_udp.rcap = tn_udp_sock_recv_cap(&tn_udp.sock, ps);
    tn_udp.rbuf = malloc((size_t)TN_UDP_RECV_BATCH * tn_udp.rcap);
    tn_udp.obuf = malloc((size_t)tn_udp.send_batch * ps);
    if (tn_udp.rbuf == NULL || tn_udp.obuf == NULL) {
        st = TN_ERR_NOMEM;
        goto err_close;
    }
    tn_udp.active = tn_udp.nlist > 0;
    if (tn_udp.active) {
        tn_ctr_attach(TN_CTR_SET_UDP, tn_udp_st);
        tn_ctr_attach(TN_CTR_SET_UDP_SOCK, tn_udp.sock.stats);
        tn_ctr_attach_peers(TN_CTR_SET_UDP_PEER, tn_udp_peer_counters, tn_udp.world_size,
                            tn_udp_rail_label);
    }
    tn_log_debug("udp", "rank %d: card %s, packet size %zu, %d udp peers, authentication %s",
                 job->world_rank, card, ps, tn_udp.nlist, tn_udp_auth_name(tn_udp.auth));
    return TN_OK;

err_close:
    tn_xport_udp_finalize();
    return st;
}

static int tn_udp_progress(void);
static int tn_udp_flush(int peer, uint64_t now, int timers);

/* Have the sockets gone unread for longer than a peer's minimum RTO (the
 * application busy outside MPI, or this rank descheduled)?  Then the acks
 * we owe are late through no fault of the network. */
static int tn_udp_away(uint64_t now)
{
    uint64_t last = tn_udp_hint_get(&tn_udp.last_read_ns);
    return last != 0 && now > last && now - last > tn_udp.cfg.rto_min_ns;
}

/* Sleep until a datagram arrives (or extra_fd is readable), a connection's
 * timer is due, or cap_ns have passed. */
static void tn_udp_wait(uint64_t cap_ns, int extra_fd)
{
    /* may run without the runtime lock (tn_xport_udp_sleep): not the
     * transport's clock, whose state another thread may be updating */
    uint64_t now = tn_udp_clock_real(), deadline = now + cap_ns;
    uint64_t due = tn_udp_hint_get(&tn_udp.next_due);
    if (due < deadline) {
        deadline = due;
    }
    if (deadline > now) {
        tn_udp_sock_wait(&tn_udp.sock, deadline - now, extra_fd);
    }
}

/* Finalize: what every connection still waits for.  A peer is done when
 * all our packets to it are acknowledged and its FIN has arrived; once its
 * FIN is here, also when the grace time has passed since then (the acks of
 * our last packets, FIN included, may be lost, and the peer, having
 * received everything it needs, may have gone). */
static int tn_udp_all_done(uint64_t now, uint64_t grace)
{
    int done = 1;
    for (int i = 0; i < tn_udp.nlist; i++) {
        tn_udp_peer_t *p = &tn_udp.peers[tn_udp.list[i]];
        if (p->conn == NULL) {
            continue;
        }
        if (p->fin && p->fin_at == 0) {
            p->fin_at = now;
        }
        if (!(p->fin && (tn_udp_conn_idle(p->conn) || now - p->fin_at >= grace))) {
            done = 0;
        }
    }
    return done;
}

/* Progress and sleep until the next timer or datagram, at most cap_ns. */
static void tn_udp_drain_step(uint64_t cap_ns)
{
    tn_udp_progress();
    tn_udp_wait(cap_ns, -1);
}

/* Finalize runs after the job's closing barrier.  Send a FIN to every peer
 * we have talked to, then progress until every peer is done (see
 * tn_udp_all_done).  The grace time is many retransmission timeouts: a peer
 * that is still here answers our retransmissions well within it.  Bounded
 * by the peer timeout (at most 10 s); a peer that has not sent its FIN by
 * then gets a warning, not an error: the barrier told us it had finished. */
static void tn_udp_drain(void)
{
    tn_udp.closing = 1;
    uint64_t now = tn_udp_now();
    for (int i = 0; i < tn_udp.nlist; i++) {
        int peer = tn_udp.list[i];
        if (tn_udp.peers[peer].conn == NULL) {
            continue;
        }
        struct iovec v = { (void *)tn_udp_fin_msg, sizeof(tn_udp_fin_msg) };
        while (tn_udp_conn_send(tn_udp.peers[peer].conn, &v, 1, now) == TN_ERR_AGAIN) {
            tn_udp_drain_step(1000000);
            now = tn_udp_now();
        }
        tn_udp_flush(peer, now, 1);
    }
    double cap_s = tn_cfg.udp_peer_timeout < 10 ? tn_cfg.udp_peer_timeout : 10;
    uint64_t limit = now + (uint64_t)(cap_s * 1e9);
    uint64_t grace = 2 * (uint64_t)tn_cfg.udp_rto_max * 1000;    /* ns */
    if (grace < 50000000) {
        grace = 50000000;
    }
    while (!tn_udp_all_done(now, grace) && now < limit) {
        tn_udp_drain_step(1000000);
        now = tn_udp_now();
    }
    for (int i = 0; i < tn_udp.nlist; i++) {
        tn_udp_peer_t *p = &tn_udp.peers[tn_udp.list[i]];
        if (p->conn != NULL && !p->fin) {
            tn_log_warn("udp", "rank %d: no FIN from rank %d after %.1f s at finalize",
                        tn_udp.me, tn_udp.list[i], cap_s);
        }
    }
}

void tn_xport_udp_close(void)
{
    if (tn_udp.active && !tn_udp.closing) {
        tn_udp_drain();
    }
}

void tn_xport_udp_finalize(void)
{
    tn_xport_udp_close();
    /* the connections go: MPI_T reads zeros for the peers from now on */
    tn_ctr_detach(TN_CTR_SET_UDP_PEER);
    if (tn_udp.peers != NULL) {
        for (int r = 0; r < tn_udp.world_size; r++) {
            if (tn_udp.peers[r].conn != NULL) {
                tn_udp_conn_free(tn_udp.peers[r].conn);
            }
            tn_udp_direct_clear(&tn_udp.peers[r].direct);
        }
    }
    free(tn_udp.dlist);
    free(tn_udp.dheads);
    tn_udp_sock_close(&tn_udp.sock);
    free(tn_udp.peers);
    free(tn_udp.list);
    free(tn_udp.rbuf);
    free(tn_udp.obuf);
    memset(&tn_udp, 0, sizeof(tn_udp));
}

static tn_udp_conn_t *tn_udp_conn_of(int peer)
{
    tn_udp_peer_t *p = &tn_udp.peers[peer];
    if (p->conn == NULL) {
        tn_udp_conn_cfg_t cfg = tn_udp.cfg;
        cfg.nrails = p->nrails;
        if (tn_udp_conn_new(&cfg, (uint32_t)tn_udp.me, (uint32_t)peer, &p->conn) != TN_OK) {
            tn_udp.fatal("out of memory for a udp connection");
        }
        for (int r = 0; r < p->nrails; r++) {
            p->route[r] = tn_udp_sock_route(&tn_udp.sock, p->lrail[r], &p->addr[r]);
        }
        p->due = UINT64_MAX;
    }
    return p->conn;
}

/* The connection to peer changed: note its new deadline. */
static void tn_udp_due(int peer)
{
    tn_udp_peer_t *p = &tn_udp.peers[peer];
    p->due = tn_udp_conn_deadline(p->conn);
    if (p->due < tn_udp_hint_get(&tn_udp.next_due)) {
        tn_udp_hint_set(&tn_udp.next_due, p->due);
    }
}

/* Send whatever conn has due, in batches; timers: see
 * tn_udp_conn_output_gather (1 right after the sockets were read). */
static int tn_udp_flush(int peer, uint64_t now, int timers)
{
    tn_udp_peer_t *p = &tn_udp.peers[peer];
    tn_udp_out_t out[TN_UDP_SEND_MAX];
    size_t ps = tn_udp.cfg.packet_size;
    int total = 0;
    /* back from away (see tn_udp_progress) and sending before reading:
     * what goes out carries acks that are late too */
    if (tn_udp_away(now) && p->conn != NULL) {
        tn_udp_conn_note_late(p->conn);
    }
    for (;;) {
        int n = 0;
        while (n < tn_udp.send_batch) {
            int rail = 0;
            char *buf = tn_udp.obuf + (size_t)n * ps;
            const void *payload;
            size_t plen;
            int ref;
            /* the payload goes out from the sent map, no copy */
            size_t len = tn_udp_conn_output_gather(p->conn, buf, ps, &payload, &plen, &ref,
                                                   &rail, now, timers);
            if (len == 0) {
                break;
            }
            out[n].buf = buf;
            out[n].len = len;
            out[n].buf2 = payload;
            out[n].len2 = plen;
            /* rendezvous data, held until acknowledged, may go zero-copy;
             * eager messages (a packet or two, latency-bound) are copied:
             * splice's extra system calls cost them more than the copy */
            out[n].zcopy = ref;
            rail = rail < p->nrails ? rail : 0;
            out[n].rail = p->lrail[rail];
            out[n].route = p->route[rail];
            out[n].to = p->addr[rail];
            n++;
        }
        if (n == 0) {
            tn_udp_due(peer);
            return total;
        }
        int failed = -1;
        tn_udp_sock_send(&tn_udp.sock, out, n, &failed);
        if (failed >= 0 && p->pair_of[failed] >= 0) {
            tn_log_warn("udp", "rail %d towards rank %d failed; continuing on the others",
                        p->pair_of[failed], peer);
            tn_udp_conn_rail_down(p->conn, p->pair_of[failed]);
        }
        total += n;
        if (n < tn_udp.send_batch) {
            tn_udp_due(peer);
            return total;
        }
    }
}

static size_t tn_udp_max_payload(void)
{
    return tn_udp.cfg.packet_size - TN_UDP_OVERHEAD - sizeof(tn_am_hdr_t);
}

static size_t tn_udp_eager_limit(void)
{
    return tn_cfg.udp_eager_threshold;
}

static size_t tn_udp_tiny_limit(void)
{
    return TN_AM_INLINE_MAX;
}

static tn_status_t tn_udp_am_send(int peer, const tn_am_hdr_t *hdr, const struct iovec *iov,
                                  int iovcnt)
{
    struct iovec v[8];
    if (iovcnt > 7) {
        return TN_ERR_INVAL;
    }
    v[0].iov_base = (void *)hdr;
    v[0].iov_len = sizeof(*hdr);
    for (int i = 0; i < iovcnt; i++) {
        v[i + 1] = iov[i];
    }
    uint64_t now = tn_udp_now();
    tn_udp_conn_t *conn = tn_udp_conn_of(peer);
    tn_status_t st = tn_udp_conn_send(conn, v, iovcnt + 1, now);
    if (st != TN_OK) {
        return st;
    }
    /* A piece that fills a packet is one of a stream (eager fragments,
     * rendezvous data) whose next piece follows at once: hold it until a
     * batch is queued, so the pieces leave together (one GSO run) instead
     * of one system call each.  The stream's last, shorter piece flushes
     * them all; a stream that ends on a full piece goes out at the next
     * progress, which the sender's wait drives at once (the connection's
     * deadline is "now" while data is queued). */
    size_t bytes = 0;
    for (int i = 0; i < iovcnt; i++) {
        bytes += iov[i].iov_len;
    }
    if (bytes < tn_udp_max_payload() || tn_udp_conn_queued(conn) >= (uint64_t)tn_udp.send_batch) {
        /* the peer's acks may be waiting unread: no timers here */
        tn_udp_flush(peer, now, 0);
    } else {
        tn_udp_due(peer);
    }
    return TN_OK;
}

/* The same for hdr + len bytes at buf, not copied (see am_send_ref): it
 * flushes like am_send. */
static tn_status_t tn_udp_am_send_ref(int peer, const tn_am_hdr_t *hdr, const void *buf,
                                      size_t len, void *cookie)
{
    uint64_t now = tn_udp_now();
    tn_udp_conn_t *conn = tn_udp_conn_of(peer);
    tn_status_t st = tn_udp_conn_send_ref(conn, hdr, sizeof(*hdr), buf, len, cookie, now);
    if (st != TN_OK) {
        return st;
    }
    if (len < tn_udp_max_payload() || tn_udp_conn_queued(conn) >= (uint64_t)tn_udp.send_batch) {
        tn_udp_flush(peer, now, 0);
    } else {
        tn_udp_due(peer);
    }
    return TN_OK;
}

static void tn_udp_dispatch(int peer, tn_udp_conn_t *conn)
{
    const void *msg, *tail;
    size_t len, tail_len;
    while ((msg = tn_udp_conn_deliver_split(conn, &len, &tail, &tail_len)) != NULL) {
        if (tail != NULL) {
            /* received in place: the active-message header here, its
             * payload already where the receive wants it */
            if (len != sizeof(tn_am_hdr_t) || tn_udp.closing) {
                tn_udp_st->bad_packets += !tn_udp.closing;
                tn_udp.late_messages += tn_udp.closing;
                continue;
            }
            tn_am_hdr_t hdr;
            memcpy(&hdr, msg, sizeof(hdr));
            tn_udp.handler(peer, &hdr, tail, tail_len);
            continue;
        }
        if (len == sizeof(tn_udp_fin_msg) && memcmp(msg, tn_udp_fin_msg, len) == 0) {
            tn_udp.peers[peer].fin = 1;
            continue;
        }
        if (len < sizeof(tn_am_hdr_t)) {
            tn_udp_st->bad_packets++;
            continue;
        }
        if (tn_udp.closing) {
            tn_udp.late_messages++;
            continue;
        }
        tn_am_hdr_t hdr;
        memcpy(&hdr, msg, sizeof(hdr));      /* the message may be unaligned */
        tn_udp.handler(peer, &hdr, (const char *)msg + sizeof(hdr), len - sizeof(hdr));
    }
}

/* A data packet from src carried am and plen more bytes: a stream
 * received in place moves on. */
static void tn_udp_direct_note(int rail, uint32_t src, const void *pkt, size_t len)
{
    tn_udp_hdr_t h;
    tn_am_hdr_t am;
    memcpy(&h, pkt, sizeof(h));
    size_t head = sizeof(h) + (size_t)h.nsack * sizeof(tn_udp_sack_t);
    if (h.type != TN_UDP_PKT_DATA || head + sizeof(am) > len || h.len < sizeof(am)) {
        return;
    }
    memcpy(&am, (const char *)pkt + head, sizeof(am));
    if (am.type == TN_AM_DATA && tn_udp.peers[src].direct.n != 0) {
        tn_udp_direct_seen(&tn_udp.peers[src].direct, &am, h.len - sizeof(am));
        tn_udp.dlast[rail] = (int)src;
    }
}

/* The connection rail of peer p that a datagram from address from on
 * local socket rail belongs to, or -1 when it came on a socket that no
 * rail to p uses or not from the peer's end of that rail.  The address
 * always; the port only when no rank sends from connected sockets
 * (TERN_UDP_CONNECT=0, the same on every rank): a connected socket sends
 * from a port of its own, which is not published. */
static int tn_udp_from_peer(const tn_udp_peer_t *p, int rail, const struct sockaddr_in *from)
{
    int i = p->pair_of[rail];
    if (i < 0 || from->sin_family != AF_INET ||
        p->addr[i].sin_addr.s_addr != from->sin_addr.s_addr ||
        (tn_cfg.udp_connect == 0 && p->addr[i].sin_port != from->sin_port)) {
        return -1;
    }
    return i;
}

/* One received datagram, pkt[0, len) then tail[0, tail_len) when tail is
 * not NULL (received in place when keep), from address from: check it and
 * feed it to its connection.  The checks run from the cheapest: the header
 * names me and a udp peer, it came from one of that peer's rails, carries
 * the connection id and an authentic tag (udp_auth.h), then the structure
 * and the CRC.  late: this pass began after the sockets had gone unread for
 * longer than the minimum RTO (tn_udp_conn_note_late). */
static void tn_udp_input(int rail, const void *pkt, size_t len, const void *tail,
                         size_t tail_len, int keep, const struct sockaddr_in *from,
                         uint64_t now, int late)
{
    const char *why = NULL;
    tn_udp_hdr_t hv;
    if (len < sizeof(hv)) {
        tn_udp_st->bad_packets++;
        tn_log_data("udp", "dropped a datagram of %zu bytes: shorter than a header",
                    len + tail_len);
        return;
    }
    memcpy(&hv, pkt, sizeof(hv));
    uint32_t src = hv.src;
    if (hv.version != TN_UDP_VERSION || hv.dst != (uint32_t)tn_udp.me ||
        src >= (uint32_t)tn_udp.world_size || tn_udp.peers[src].nrails == 0) {
        tn_udp_st->foreign_packets++;
        return;
    }
    int prail = tn_udp_from_peer(&tn_udp.peers[src], rail, from);
    if (prail < 0) {
        tn_udp_st->bad_source++;
        tn_log_data("udp", "dropped a datagram naming rank %u from an address not its", src);
        return;
    }
    tn_udp_conn_t *conn = tn_udp_conn_of((int)src);
    /* the receive buffers are ours and writable: mode encrypt decrypts
     * the payload where it landed */
    int a = tn_udp_conn_authentic_split(conn, (void *)pkt, len, (void *)tail, tail_len);
    if (a != TN_UDP_AUTH_GOOD) {
        if (a == TN_UDP_AUTH_BAD_CONN) {
            tn_udp_st->bad_conn++;
        } else {
            tn_udp_st->bad_auth++;
        }
        tn_log_data("udp", "dropped a datagram naming rank %u: %s", src,
                    a == TN_UDP_AUTH_BAD_CONN ? "another connection's id" : "bad tag");
        return;
    }
    /* modes aead and encrypt: the tag covered every byte, the CRC adds nothing */
    if (tn_udp_packet_check_crc(pkt, len, tail, tail_len, tn_udp_conn_rx_id(conn),
                                (uint32_t)tn_udp.me, tn_udp_conn_needs_crc(conn),
                                &why) != TN_OK) {
        tn_udp_st->bad_packets++;
        tn_log_data("udp", "dropped a datagram of %zu bytes: %s", len + tail_len,
                    why ? why : "?");
        return;
    }
    if (late) {
        tn_udp_conn_note_late(conn);
    }
    if (tn_udp.ndirect != 0) {
        tn_udp_direct_note(rail, src, pkt, len);
    }
    /* in-order payloads are delivered straight from pkt: dispatch drains
     * the connection before the receive buffer is reused */
    if (tail != NULL) {
        tn_udp_conn_input_split(conn, pkt, len, tail, tail_len, keep, prail, now);
    } else {
        tn_udp_conn_input_lent(conn, pkt, len, prail, now);
    }
    tn_udp_dispatch((int)src, conn);
    tn_udp_due((int)src);
}

/* Acks, retransmissions and data the window now allows, from the
 * connections whose deadline has come by now; ends the job if a peer
 * stopped answering.  timers: the sockets were just drained (see
 * tn_udp_flush). */
static int tn_udp_service(uint64_t now, int timers)
{
    int events = 0;
    if (now < tn_udp_hint_get(&tn_udp.next_due)) {
        return 0;
    }
    uint64_t next = UINT64_MAX;
    for (int i = 0; i < tn_udp.nlist; i++) {
        int peer = tn_udp.list[i];
        tn_udp_conn_t *conn = tn_udp.peers[peer].conn;
        if (conn == NULL) {
            continue;
        }
        if (tn_udp.peers[peer].due > now) {
            next = tn_udp.peers[peer].due < next ? tn_udp.peers[peer].due : next;
            continue;
        }
        events += tn_udp_flush(peer, now, timers);
        next = tn_udp.peers[peer].due < next ? tn_udp.peers[peer].due : next;
        int dead;
        if (timers && !tn_udp.closing && !tn_udp.peers[peer].fin &&
            (dead = tn_udp_conn_dead(conn, now)) != 0) {
            char msg[256], ip[INET_ADDRSTRLEN];
            inet_ntop(AF_INET, &tn_udp.peers[peer].addr[0].sin_addr, ip, sizeof(ip));
            unsigned port = ntohs(tn_udp.peers[peer].addr[0].sin_port);
            if (dead == TN_UDP_DEAD_CRYPTO) {
                snprintf(msg, sizeof(msg), "datagrams to rank %d (udp %s:%u) could not be "
                         "sealed (see the error above); ending the job", peer, ip, port);
            } else {
                snprintf(msg, sizeof(msg), "rank %d (udp %s:%u) %s for %.0f s; ending the job",
                         peer, ip, port,
                         dead == TN_UDP_DEAD_SILENT ? "stopped answering"
                                                    : "acknowledged none of our packets in "
                                                      "flight",
                         tn_cfg.udp_peer_timeout);
            }
            tn_event_raise(TN_EVENT_PEER_FAILURE, peer, dead, 0);  /* reason: TN_UDP_DEAD_* */
            tn_udp.fatal(msg);
        }
    }
    tn_udp_hint_set(&tn_udp.next_due, next);
    return events;
}

/* The peer whose data rail r most likely brings next: the last one whose
 * data came on it, else any with a stream to receive in place; -1: none. */
static int tn_udp_direct_pick(int r)
{
    int p = tn_udp.dlast[r];
    if (p >= 0 && tn_udp_direct_next_stream(&tn_udp.peers[p].direct) != NULL) {
        return p;
    }
    for (int i = 0; i < tn_udp.ndlist; i++) {
        if (tn_udp_direct_next_stream(&tn_udp.peers[tn_udp.dlist[i]].direct) != NULL) {
            return tn_udp.dlist[i];
        }
    }
    return -1;
}

/* Read rail r while streams are received in place: one receive at a time,
 * each laid out for what should come next (udp_direct.h). */
static int tn_udp_recv_direct(int r, uint64_t *now_p, int late)
{
    int events = 0;
    uint64_t now = *now_p;
    tn_udp_dplan_t *pl = &tn_udp.dplan;
    char *spill = tn_udp.rbuf, *scratch = tn_udp.rbuf + tn_udp.rcap;
    /* bounded, like tn_udp_progress's reads: a flood does not keep us here */
    for (int reads = 0; tn_udp.ndirect != 0 && reads < TN_UDP_RECV_ROUNDS * tn_udp.batch;
         reads++) {
        int peer = tn_udp_direct_pick(r);
        tn_udp_direct_plan(pl, peer >= 0 ? &tn_udp.peers[peer].direct : NULL,
                           (uint32_t)peer, tn_udp_max_payload(), tn_udp.rcap, tn_udp.dheads,
                           spill);
        struct sockaddr_in from;
        size_t seg = 0;
        ssize_t n = tn_udp_sock_recv_iov(&tn_udp.sock, r, pl->iov, pl->niov, &from, &seg);
        if (n == 0) {
            break;
        }
        if (n < 0) {
            tn_udp_st->bad_packets++;
            continue;
        }
        tn_udp_direct_begin(pl, (size_t)n, seg, scratch);
        tn_udp_dgram_t d;
        size_t ndg = 0;
        while (tn_udp_direct_next(pl, (size_t)n, scratch, &d)) {
            if (d.hit) {
                tn_udp_st->direct_hits++;
                tn_udp_st->direct_bytes += d.tail_len;
            } else if (pl->n != 0) {
                tn_udp_st->direct_misses++;
            }
            tn_udp_input(r, d.pkt, d.len, d.tail, d.tail_len, d.hit, &from, now, late);
            ndg++;
            events++;
        }
        tn_udp_sock_note_recv(&tn_udp.sock, ndg);
        if (tn_udp_hint_get(&tn_udp.next_due) <= now) {
            events += tn_udp_service(now, 0);
        }
        now = tn_udp_now();
        tn_udp_hint_set(&tn_udp.last_read_ns, now);
    }
    *now_p = now;
    return events;
}

static int tn_udp_progress(void)
{
    if (!tn_udp.active) {
        return 0;
    }
    int events = 0;
    size_t cap = tn_udp.rcap;
    uint64_t now = tn_udp_now();
    size_t lens[TN_UDP_RECV_BATCH], segs[TN_UDP_RECV_BATCH];
    static struct sockaddr_in from[TN_UDP_RECV_BATCH];   /* one place: see tn_udp_sock_recv */
    int late = tn_udp_away(now);
    tn_udp_hint_set(&tn_udp.last_read_ns, now);
    for (int r = 0; r < tn_udp.sock.nrails; r++) {
        if (tn_udp.ndirect != 0) {
            events += tn_udp_recv_direct(r, &now, late);
            if (tn_udp.ndirect != 0) {
                continue;
            }
        }
        int n, rounds = 0;
        while (rounds++ < TN_UDP_RECV_ROUNDS &&
               (n = tn_udp_sock_recv(&tn_udp.sock, r, tn_udp.rbuf, cap, lens, segs, from,
                                     tn_udp.batch)) > 0) {
            for (int i = 0; i < n; i++) {
                char *buf = tn_udp.rbuf + (size_t)i * cap;
                /* a GRO buffer holds several datagrams of segs[i] bytes */
                size_t seg = segs[i] != 0 ? segs[i] : lens[i], off = 0;
                do {
                    size_t len = lens[i] - off < seg ? lens[i] - off : seg;
                    tn_udp_input(r, buf + off, len, NULL, 0, 0, &from[i], now, late);
                    off += len;
                    events++;
                } while (off < lens[i]);
                /* A batch holds up to batch x 64 KiB with GRO (a few
                 * hundred microseconds of work): send what became due (an
                 * ack every ack_every packets) as we go, or a long stream
                 * would keep its sender waiting for acks until its timer
                 * fires.  Not the timers: unread acks may still wait in the
                 * socket. */
                if (tn_udp_hint_get(&tn_udp.next_due) <= now) {
                    events += tn_udp_service(now, 0);
                }
            }
            if (n < tn_udp.batch) {
                break;
            }
            now = tn_udp_now();
            tn_udp_hint_set(&tn_udp.last_read_ns, now);
        }
    }
    /* the sockets were last read when the processing of what came in ended */
    tn_udp_hint_set(&tn_udp.last_read_ns, events != 0 ? tn_udp_now() : now);
    return events + tn_udp_service(now, 1);
}

int tn_xport_udp_sleep(int (*recheck)(void), uint64_t timeout_ns)
{
    /* shared-memory peers wake us through the wake socket (poll mode) */
    int wake_fd = tn_xport_shm_poll_begin();
    if (recheck() == 0) {
        tn_udp_wait(timeout_ns, wake_fd);
        /* asleep on the sockets is not away from them: a datagram wakes us */
        tn_udp_hint_set(&tn_udp.last_read_ns, tn_udp_clock_real());
    }
    tn_xport_shm_poll_end();
    return wake_fd >= 0;
}

static tn_status_t tn_udp_get(int peer, struct iovec *local, int nlocal, uint64_t remote_addr)
{
    return TN_ERR_UNSUPPORTED;
}

/* Packets are built from iovecs (checksummed while copied into the sent
 * map): the core packs derived datatypes into a staging buffer for us. */
static tn_status_t tn_udp_am_send_fill(int peer, const tn_am_hdr_t *hdr, size_t len,
                                       tn_xport_fill_fn_t *fill, void *arg)
{
    return TN_ERR_UNSUPPORTED;
}

static void tn_udp_recv_direct_add(int peer, uint64_t rreq, void *buf, size_t len)
{
    /* mode encrypt decrypts datagrams where they land, after their tag is
     * checked: never in a user's buffer */
    if (!tn_cfg.udp_direct || tn_udp.auth == TN_UDP_AUTH_ENCRYPT || peer < 0 ||
        peer >= tn_udp.world_size ||
        tn_udp.peers[peer].nrails == 0) {
        return;
    }
    tn_udp_dpeer_t *p = &tn_udp.peers[peer].direct;
    if (tn_udp_direct_add(p, rreq, buf, len) != TN_OK) {
        return;             /* received through the receive buffer instead */
    }
    tn_udp.ndirect++;
    if (p->n == 1) {
        tn_udp.dlist[tn_udp.ndlist++] = peer;
    }
}

static void tn_udp_recv_direct_end(int peer, uint64_t rreq)
{
    if (peer < 0 || peer >= tn_udp.world_size) {
        return;
    }
    tn_udp_dpeer_t *p = &tn_udp.peers[peer].direct;
    int before = p->n;
    tn_udp_direct_end(p, rreq);
    if (p->n == before) {
        return;
    }
    tn_udp.ndirect--;
    if (p->n == 0) {
        for (int i = 0; i < tn_udp.ndlist; i++) {
            if (tn_udp.dlist[i] == peer) {
                tn_udp.dlist[i] = tn_udp.dlist[--tn_udp.ndlist];
                break;
            }
        }
    }
}

static unsigned tn_udp_caps(int peer)
{
    return tn_cfg.udp_send_ref ? TN_XPORT_CAP_REF : 0;
}

int tn_xport_udp_tool_stats(tern_udp_stats_t *out)
{
    if (!tn_udp.active || out == NULL) {
        return -1;
    }
    const tn_udp_sock_stats_t *ss = tn_udp.sock.stats;
    *out = (tern_udp_stats_t){
        .datagrams_sent = ss->sent,
        .datagrams_recv = ss->recv,
        .send_errors = ss->send_errors,
        .bad = tn_udp_st->bad_packets,
        .foreign = tn_udp_st->foreign_packets,
        .gso_sends = ss->gso_sends,
        .gso_datagrams = ss->gso_datagrams,
        .gro_recvs = ss->gro_recvs,
        .gro_datagrams = ss->gro_datagrams,
        .splice_sends = ss->splice_sends,
        .direct_datagrams = tn_udp_st->direct_hits,
        .direct_bytes = tn_udp_st->direct_bytes,
        .fault_dropped = ss->fault_dropped,
        .fault_duplicated = ss->fault_duplicated,
        .fault_reordered = ss->fault_reordered,
        .fault_corrupted = ss->fault_corrupted,
        .bad_source = tn_udp_st->bad_source,
        .bad_conn = tn_udp_st->bad_conn,
        .bad_auth = tn_udp_st->bad_auth,
    };
    return 0;
}

int tn_xport_udp_tool_peer_stats(int world_rank, tern_udp_peer_stats_t *out)
{
    if (!tn_udp.active || out == NULL || world_rank < 0 || world_rank >= tn_udp.world_size ||
        tn_udp.peers[world_rank].conn == NULL) {
        return -1;
    }
    const tn_udp_conn_stats_t *s = tn_udp_conn_stats(tn_udp.peers[world_rank].conn);
    *out = (tern_udp_peer_stats_t){
        .data_sent = s->data_sent,
        .data_bytes_sent = s->data_bytes_sent,
        .data_recv = s->data_recv,
        .data_bytes_recv = s->data_bytes_recv,
        .retransmits = s->retransmits,
        .timeouts = s->timeouts,
        .fast_retransmits = s->fast_retransmits,
        .duplicates = s->duplicates,
        .out_of_order = s->out_of_order,
        .stale = s->stale,
        .acks_sent = s->acks_sent,
        .acks_recv = s->acks_recv,
        .credit_stalls = s->credit_stalls,
        .cwnd_stalls = s->cwnd_stalls,
        .cc_episodes = s->cc_episodes,
        .tail_probes = s->probes,
        .late_acks = s->late_acks,
        .rails_down = s->rails_down,
        .bad_acks = s->bad_acks,
        .cwnd = s->cwnd,
        .srtt_us = (double)s->srtt_ns / 1e3,
        .rttvar_us = (double)s->rttvar_ns / 1e3,
        .rto_us = (double)s->rto_ns / 1e3,
        .min_rtt_us = (double)s->min_rtt_ns / 1e3,
        .nrails = tn_udp.peers[world_rank].nrails,
    };
    _Static_assert(TERN_UDP_MAX_RAILS == TN_UDP_MAX_RAILS, "rail counts of tools.h and udp");
    for (int r = 0; r < TN_UDP_MAX_RAILS; r++) {
        out->rail_sent[r] = s->rail_sent[r];
        out->rail_lost[r] = s->rail_lost[r];
    }
    return 0;
}

const tn_xport_ops_t tn_xport_udp_ops = {
    .name        = "udp",
    .max_payload = tn_udp_max_payload,
    .am_send     = tn_udp_am_send,
    .am_send_fill = tn_udp_am_send_fill,
    .progress    = tn_udp_progress,
    .get         = tn_udp_get,
    .caps        = tn_udp_caps,
    .eager_limit = tn_udp_eager_limit,
    .tiny_limit  = tn_udp_tiny_limit,
    .am_send_ref = tn_udp_am_send_ref,
    .recv_direct = tn_udp_recv_direct_add,
    .recv_direct_end = tn_udp_recv_direct_end,
};
