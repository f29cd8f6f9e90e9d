/* One reliable connection to a peer, sans I/O: ties the sent map, loss
 * detection, congestion control, pacing and the receive window together.
 * The contract is in udp_conn.h; the choices made here:
 *
 *  - The send queue is the tail of the sent map (psns are given at
 *    tn_udp_conn_send time), so a message is copied once on the way in and
 *    once into the output buffer.
 *  - Before the peer has said anything, its credits are assumed to be our
 *    own window (every rank runs with the same configuration).
 *  - Credits granted = window - (arrived in order but not yet delivered):
 *    the receive ring holds [del, del + window), so out-of-order packets
 *    always fit and a receiver that stops delivering stops the sender after
 *    window packets.
 *  - Output order: retransmissions (on another rail than the lost copy when
 *    another is up), then new data (striped round-robin over the rails that
 *    are up), then a due ack or a zero-window probe (on the rail the peer's
 *    last packet came in on).  Retransmissions and new data both need room
 *    in the congestion window; new data also needs credits.  Pacing applies
 *    only when cwnd >= TN_UDP_PACE_MIN_CWND.
 *  - Acks: at once after a duplicate or gap-closing arrival, the first
 *    TN_UDP_OOO_ACKS out-of-order ones beyond a new hole, a PING, or a data
 *    packet flagged TN_UDP_F_ACKNOW; else after ack_every
 *    data packets (tn_udp_conn_ack_every: a byte count's worth, at least
 *    16) or ack_delay after the first unacknowledged one.  Any
 *    outgoing packet carries the ack.  A data packet asks for an immediate
 *    ack every half window while half the window is in flight, so a
 *    window-limited sender never waits for a delayed ack.
 *  - A sender with data queued, nothing in flight and no credits sends a
 *    PING every RTO (backed off): it learns of credits whose update was lost,
 *    and a live but slow receiver is not mistaken for a dead one.
 *  - The receiver sends a window update (an ack at once) when delivering
 *    has opened the window by a quarter since it was last advertised.
 *  - rail_down re-queues what was in flight on the rail without treating
 *    it as congestion.
 *  - A premature timeout (the peer was descheduled: ranks may outnumber
 *    cores) is recognised by the first ack after it and its window
 *    reduction undone (udp_cc).
 *  - Stats: data_sent counts data packets transmitted, retransmissions
 *    included; fast_retransmits counts packets declared lost by later acks
 *    (packet or time threshold), timeouts RTO expiries that declared
 *    everything in flight lost and probes those that were tail-loss probes
 *    (udp_loss.h: the oldest resent, the window untouched); duplicates counts
 *    copies of packets already received (below ack or buffered); stale
 *    counts data dropped outside the receive window (below ack, or beyond
 *    the credits granted); acks_sent/acks_recv count pure ACK and PING
 *    packets; credit_stalls/cwnd_stalls count the times new data started
 *    waiting for credits / congestion window; rail_lost counts losses by the
 *    rail of the lost copy. */
#include "xport/udp/udp_conn.h"
#include "xport/udp/udp_auth.h"
#include "xport/udp/udp_cc.h"
#include "xport/udp/udp_credit.h"
#include "xport/udp/udp_loss.h"
#include "xport/udp/udp_pace.h"
#include "xport/udp/udp_ranges.h"
#include "xport/udp/udp_sentmap.h"
#include "base/events.h"
#include "base/log.h"
#include "base/monitor.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "the udp wire format is little-endian and is not byte-swapped");
_Static_assert(TN_UDP_MAX_RAILS <= TN_UDP_LOSS_RAILS, "loss results count every rail");
_Static_assert(offsetof(tn_udp_hdr_t, crc) == 40, "crc field offset");
_Static_assert(offsetof(tn_udp_hdr_t, tag) == TN_UDP_TAG_OFF, "tag field offset");

#define TN_UDP_PACE_MIN_CWND 32     /* pace only windows at least this large */
#define TN_UDP_PACE_BURST    16     /* packets that may leave back to back, at least */
/* A rail on which this many first transmissions in a row were found lost by
 * later acks
 * (of packets on other rails), with none acknowledged in between for two
 * RTOs, has stopped working: random loss of a few percent practically never
 * does that, a dead link or a dead interface on the way does at once.
 * Timeouts do not count: they declare everything in flight lost, on every
 * rail.  The verdict can still be wrong (a receiver that acked one rail's
 * backlog before reading the other's, then was descheduled), so a rail
 * taken down comes back when the rails left get no ack at all
 * (TN_UDP_RAIL_RETRY consecutive timeouts). */
#define TN_UDP_RAIL_STRIKES  16
#define TN_UDP_RAIL_RETRY    2

struct tn_udp_conn {
    tn_udp_conn_cfg_t cfg;
    uint32_t          me, peer;
    size_t            max_msg;
    /* the two directions (udp_auth.h): ids and keys */
    tn_udp_dir_t      tx_dir, rx_dir;
    tn_udp_key_t      tx_key, rx_key;
    uint64_t          tx_seq;        /* datagrams sent so far */
    int               crypto_failed; /* sealing failed: nothing can be sent */
    size_t            out_head;      /* header + SACK bytes of the datagram just built */

    /* send side */
    tn_udp_sentmap_t  sm;
    tn_udp_ranges_t   sacked;        /* SACK blocks already applied to sm */
    tn_udp_loss_t     loss;
    tn_udp_cc_t       cc;
    tn_udp_pace_t     pace;
    int               pacing;        /* cwnd is large enough to pace */
    uint64_t          snd_limit;     /* psn < snd_limit may be sent (peer's ack + credits) */
    uint64_t          busy_since;    /* when the send side last became non-empty */
    uint64_t          last_heard;    /* last packet from the peer */
    uint64_t          last_progress; /* last ack that acknowledged something new */
    uint64_t          probe_at;      /* next zero-window probe; 0: not probing */
    uint32_t          probe_backoff;
    int               credit_stalled, cwnd_stalled;
    int               out_ref;       /* the last data packet output was by reference */
    uint32_t          since_ask;     /* data packets sent since one asked for an ack */

    /* receive side */
    tn_udp_credit_t   rx;
    int               ack_pending;   /* data arrived since our last ack */
    int               ack_now;       /* ... and the ack must not wait */
    int               late;          /* flag the next packet TN_UDP_F_LATE */
    uint32_t          unacked;       /* data packets since our last ack */
    uint64_t          rx_top;        /* highest psn received */
    uint32_t          ooo_acks;      /* immediate acks since the latest hole opened */
    uint64_t          ack_deadline;
    uint64_t          adv_limit;     /* ack + credits as last advertised */

    /* rails */
    int               nrails, nup;
    uint8_t           up[TN_UDP_MAX_RAILS];
    int               rr_data, rr_ctl;
    int               rx_rail;       /* rail the peer's latest packet came on (-1: none) */
    uint32_t          strikes[TN_UDP_MAX_RAILS]; /* losses on the rail since its last ack */
    uint64_t          strike_since[TN_UDP_MAX_RAILS]; /* when the first of them was found */

    tn_udp_conn_stats_t *stats;      /* stats_own, or the peer's record in the
                                      * stats segment (shared by a node's peers
                                      * past the dense ones: counters only add) */
    tn_udp_conn_stats_t stats_own;
    uint64_t          cc_episodes_seen, cc_undone_seen;
};

/* out-of-order arrivals acknowledged at once per hole (see tn_conn_on_data) */
#define TN_UDP_OOO_ACKS 3

/* ---- set-up --------------------------------------------------------------- */

/* The keys go before the memory does. */
static void tn_conn_wipe(tn_udp_conn_t *c)
{
    tn_udp_auth_wipe(&c->tx_key);
    tn_udp_auth_wipe(&c->rx_key);
}

tn_status_t tn_udp_conn_new(const tn_udp_conn_cfg_t *cfg, uint32_t me, uint32_t peer,
                            tn_udp_conn_t **conn_p)
{
    tn_status_t st;
    if (cfg->packet_size <= TN_UDP_OVERHEAD || cfg->packet_size > 65507 || cfg->window == 0 ||
        cfg->window > (1u << 24) || cfg->sendq_max == 0 || cfg->sendq_max > (1u << 24) ||
        cfg->nrails < 1 || cfg->nrails > TN_UDP_MAX_RAILS ||
        cfg->auth < TN_UDP_AUTH_OFF || cfg->auth > TN_UDP_AUTH_ENCRYPT) {
        tn_log_error("udp", "bad connection configuration (packet %u, window %u, queue %u, "
                     "rails %d)", cfg->packet_size, cfg->window, cfg->sendq_max, cfg->nrails);
        return TN_ERR_INVAL;
    }
    if (tn_udp_auth_init() != TN_OK) {
        tn_log_error("udp", "the cryptography library did not start");
        return TN_ERR_INTERNAL;
    }
    tn_udp_conn_t *c = NULL;
    if (posix_memalign((void **)&c, 64, sizeof(*c)) != 0) {
        return TN_ERR_NOMEM;
    }
    memset(c, 0, sizeof(*c));
    c->stats = tn_mon_home_peer(TN_CTR_SET_UDP_PEER, (int)peer, &c->stats_own);
    c->cfg = *cfg;
    if (c->cfg.ack_every == 0) {
        c->cfg.ack_every = 1;
    }
    c->me = me;
    c->peer = peer;
    c->cfg.secret = NULL;       /* the keys below are all it needs of it */
    if ((st = tn_udp_auth_derive(cfg->secret, me, peer, cfg->auth, cfg->epoch_bits,
                                 &c->tx_dir, &c->tx_key)) != TN_OK) {
        goto err_free;
    }
    if ((st = tn_udp_auth_derive(cfg->secret, peer, me, cfg->auth, cfg->epoch_bits,
                                 &c->rx_dir, &c->rx_key)) != TN_OK) {
        goto err_free;
    }
    c->max_msg = cfg->packet_size - TN_UDP_OVERHEAD;
    st = tn_udp_sentmap_init(&c->sm, cfg->window + cfg->sendq_max, c->max_msg,
                             c->tx_dir.psn0);
    if (st != TN_OK) {
        goto err_free;
    }
    c->sm.release = cfg->release;
    st = tn_udp_credit_init(&c->rx, cfg->window, c->max_msg, c->rx_dir.psn0);
    if (st != TN_OK) {
        goto err_sentmap;
    }
    tn_udp_ranges_init(&c->sacked);
    tn_udp_loss_init(&c->loss, cfg->rto_init_ns, cfg->rto_min_ns, cfg->rto_max_ns,
                     cfg->dupthresh);
    c->loss.peer_ack_delay_ns = cfg->ack_delay_ns;   /* the peer runs our configuration */
    c->loss.max_probes = cfg->probes;
    tn_udp_cc_init(&c->cc, cfg->cwnd_init, cfg->cwnd_min, cfg->cwnd_max);
    tn_udp_pace_init(&c->pace, cfg->pace_burst > TN_UDP_PACE_BURST ? cfg->pace_burst
                                                                   : TN_UDP_PACE_BURST);
    c->snd_limit = c->tx_dir.psn0 + cfg->window;
    c->adv_limit = tn_udp_credit_limit(&c->rx);
    c->nrails = c->nup = cfg->nrails;
    c->rx_rail = -1;
    for (int r = 0; r < c->nrails; r++) {
        c->up[r] = 1;
    }
    c->stats->rto_ns = tn_udp_loss_rto(&c->loss);
    c->stats->cwnd = c->cc.cwnd;
    *conn_p = c;
    return TN_OK;

err_sentmap:
    tn_udp_sentmap_fini(&c->sm);
err_free:
    tn_conn_wipe(c);
    free(c);
    return st;
}

void tn_udp_conn_free(tn_udp_conn_t *conn)
{
    if (conn == NULL) {
        return;
    }
    tn_udp_credit_fini(&conn->rx);
    tn_udp_sentmap_fini(&conn->sm);
    tn_conn_wipe(conn);
    free(conn);
}

/* An ack is a system call that, across a veth or a real NIC, runs the
 * whole send path on the receiver's core: with 1472-byte datagrams an ack
 * every 16 packets (21 KiB) took 28 % of a receiving core in a 256 KiB
 * stream between two namespaces, 15 % with 128 KiB between acks.  An
 * eighth of the window keeps a window-limited sender fed. */
uint32_t tn_udp_conn_ack_every(size_t packet_size, uint32_t window, uint64_t ack_bytes)
{
    uint64_t n = packet_size != 0 ? ack_bytes / packet_size : 0;

    if (n > window / 8) {
        n = window / 8;
    }
    return n > 16 ? (uint32_t)n : 16;
}

size_t tn_udp_conn_max_message(const tn_udp_conn_t *conn)
{
    return conn->max_msg;
}

uint64_t tn_udp_conn_queued(const tn_udp_conn_t *conn)
{
    return tn_udp_sentmap_queued(&conn->sm);
}

const tn_udp_conn_stats_t *tn_udp_conn_stats(const tn_udp_conn_t *conn)
{
    return conn->stats;
}

static void tn_conn_sync_stats(tn_udp_conn_t *c)
{
    c->stats->srtt_ns = c->loss.srtt_ns;
    c->stats->rttvar_ns = c->loss.rttvar_ns;
    c->stats->min_rtt_ns = c->loss.min_rtt_ns == UINT64_MAX ? 0 : c->loss.min_rtt_ns;
    c->stats->rto_ns = tn_udp_loss_rto(&c->loss);
    c->stats->cwnd = c->cc.cwnd;
    c->stats->cc_episodes += c->cc.episodes - c->cc_episodes_seen;
    c->stats->cc_undone += c->cc.undone - c->cc_undone_seen;
    c->cc_episodes_seen = c->cc.episodes;
    c->cc_undone_seen = c->cc.undone;
}

/* ---- sending -------------------------------------------------------------- */

tn_status_t tn_udp_conn_send(tn_udp_conn_t *conn, const struct iovec *iov, int iovcnt,
                             uint64_t now)
{
    size_t total = 0;
    for (int i = 0; i < iovcnt; i++) {
        total += iov[i].iov_len;
    }
    if (total > conn->max_msg) {
        return TN_ERR_INVAL;
    }
    if (tn_udp_sentmap_queued(&conn->sm) >= conn->cfg.sendq_max) {
        return TN_ERR_AGAIN;
    }
    int was_idle = tn_udp_sentmap_outstanding(&conn->sm) == 0;
    uint64_t psn;
    char *dst = tn_udp_sentmap_push(&conn->sm, (uint32_t)total, &psn);
    if (dst == NULL) {
        return TN_ERR_AGAIN;
    }
    /* the payload's share of the wire CRC, once, while copying */
    uint32_t crc = 0;
    for (int i = 0; i < iovcnt; i++) {
        crc = tn_udp_crc32c_copy(crc, dst, iov[i].iov_base, iov[i].iov_len);
        dst += iov[i].iov_len;
    }
    tn_udp_sentmap_get(&conn->sm, psn)->crc = crc;
    if (was_idle) {
        conn->busy_since = now;
    }
    return TN_OK;
}

tn_status_t tn_udp_conn_send_ref(tn_udp_conn_t *conn, const void *head, size_t head_len,
                                 const void *ext, size_t ext_len, void *cookie,
                                 uint64_t now)
{
    if (head_len + ext_len > conn->max_msg || ext == NULL || ext_len == 0) {
        return TN_ERR_INVAL;
    }
    if (tn_udp_sentmap_queued(&conn->sm) >= conn->cfg.sendq_max) {
        return TN_ERR_AGAIN;
    }
    int was_idle = tn_udp_sentmap_outstanding(&conn->sm) == 0;
    uint64_t psn;
    char *dst = tn_udp_sentmap_push_ref(&conn->sm, (uint32_t)(head_len + ext_len), ext,
                                        (uint32_t)ext_len, cookie, &psn);
    if (dst == NULL) {
        return TN_ERR_AGAIN;
    }
    uint32_t crc = tn_udp_crc32c_copy(0, dst, head, head_len);
    tn_udp_sentmap_get(&conn->sm, psn)->crc = tn_udp_crc32c(crc, ext, ext_len);
    if (was_idle) {
        conn->busy_since = now;
    }
    return TN_OK;
}

/* The next rail that is up after rail (round-robin). */
static int tn_conn_next_up(const tn_udp_conn_t *c, int rail)
{
    for (int i = 1; i <= c->nrails; i++) {
        int r = (rail + i) % c->nrails;
        if (c->up[r]) {
            return r;
        }
    }
    return rail;
}

/* Write header, SACK blocks and payload into buf; returns the datagram
 * length (0 if cap is too small).  With gather != 0 the payload is not
 * copied: buf gets the header and SACK blocks only (their length is
 * returned) and the payload goes out from where it is, the CRC covering
 * both.  pcrc: the payload's CRC32C (0 for none), which the wire CRC
 * continues over the header.  The datagram is sealed (tn_conn_seal) once
 * its payload is in place. */
static size_t tn_conn_build(tn_udp_conn_t *c, void *buf, size_t cap, uint8_t type,
                            uint16_t flags, uint64_t psn, const void *payload, uint32_t len,
                            uint32_t pcrc, int gather)
{
    tn_udp_range_t r[TN_UDP_MAX_SACK];
    size_t limit = cap < c->cfg.packet_size ? cap : c->cfg.packet_size;
    if (sizeof(tn_udp_hdr_t) + len > limit) {
        return 0;
    }
    /* the highest ranges that fit in a packet: a full data packet has room
     * for TN_UDP_DATA_SACK, an ack for all */
    size_t room = (limit - sizeof(tn_udp_hdr_t) - len) / sizeof(tn_udp_sack_t);
    uint32_t nsack = tn_udp_ranges_highest(&c->rx.sacks, r,
                                           room < TN_UDP_MAX_SACK ? (uint32_t)room
                                                                  : TN_UDP_MAX_SACK);
    size_t head = sizeof(tn_udp_hdr_t) + nsack * sizeof(tn_udp_sack_t);
    size_t total = head + len;
    tn_udp_hdr_t h = {
        .version = TN_UDP_VERSION,
        .type = type,
        .flags = (uint16_t)(flags | (c->late ? TN_UDP_F_LATE : 0)),
        .conn = c->tx_dir.conn,
        .src = c->me,
        .dst = c->peer,
        .psn = psn,
        .ack = c->rx.ack,
        .credits = tn_udp_credit_credits(&c->rx),
        .nsack = (uint16_t)nsack,
        .len = (uint16_t)len,
        .crc = 0,
        .rsv = 0,
        .seq = ++c->tx_seq,
    };
    char *p = buf;
    memcpy(p, &h, sizeof(h));
    p += sizeof(h);
    for (uint32_t i = 0; i < nsack; i++) {
        tn_udp_sack_t s = { r[i].start, r[i].end };
        memcpy(p, &s, sizeof(s));
        p += sizeof(s);
    }
    uint32_t crc = tn_udp_crc32c(pcrc, buf, head);
    if (gather) {
        total = head;
    } else if (len != 0) {
        memcpy(p, payload, len);
    }
    memcpy((char *)buf + offsetof(tn_udp_hdr_t, crc), &crc, sizeof(crc));
    c->out_head = head;
    /* every packet carries the ack: nothing is owed any more */
    c->late = 0;
    c->ack_pending = 0;
    c->ack_now = 0;
    c->unacked = 0;
    c->adv_limit = tn_udp_credit_limit(&c->rx);
    return total;
}

/* Seal the datagram tn_conn_build just wrote into buf (its header, c->tx_seq
 * its nonce), whose payload is pay[0, npay) (encrypted there in mode
 * encrypt).  0 when the library failed: the connection is dead
 * (TN_UDP_DEAD_CRYPTO). */
static int tn_conn_seal(tn_udp_conn_t *c, void *buf, const struct iovec *pay, int npay)
{
    /* seq is the nonce: a connection that sent 2^62 datagrams (centuries
     * at line rate) stops rather than come near a repeat */
    if (c->tx_seq >= UINT64_C(1) << 62 ||
        tn_udp_auth_seal(&c->tx_key, c->tx_seq, buf, c->out_head, TN_UDP_TAG_OFF, pay,
                         npay) != TN_OK) {
        if (!c->crypto_failed) {
            tn_log_error("udp", "%s a datagram to rank %u",
                         c->tx_seq >= UINT64_C(1) << 62 ? "out of nonces for"
                                                        : "the cryptography library failed "
                                                          "to seal", c->peer);
        }
        c->crypto_failed = 1;
        return 0;
    }
    return 1;
}

/* Account losses found by a detection pass (a fast retransmit). */
static void tn_conn_on_lost(tn_udp_conn_t *c, const tn_udp_loss_result_t *res, uint64_t now)
{
    if (res->lost == 0) {
        return;
    }
    tn_event_raise(TN_EVENT_RETRANSMIT_BURST, (int)c->peer, (int)res->lost, 0);
    for (int r = 0; r < c->nrails; r++) {
        c->stats->rail_lost[r] += res->rail_lost[r];
        if (c->strikes[r] == 0 && res->rail_lost_first[r] != 0) {
            c->strike_since[r] = now;
        }
        c->strikes[r] += res->rail_lost_first[r];
    }
    tn_udp_cc_on_loss(&c->cc, res->largest_lost_txseq, c->sm.txseq + 1);
    for (int r = 0; r < c->nrails; r++) {
        if (c->up[r] && c->strikes[r] >= TN_UDP_RAIL_STRIKES && c->nup > 1 &&
            now - c->strike_since[r] >= 2 * tn_udp_loss_rto(&c->loss)) {
            tn_log_warn("udp", "rail %d towards rank %u lost %u packets in a row; "
                        "continuing on the other rails", r, c->peer, c->strikes[r]);
            tn_udp_conn_rail_down(c, r);
        }
    }
}

/* The rails still up got no ack through several timeouts: whatever took
 * the others down may have been wrong, or may be over; use them all again
 * (a rail that is really gone is found again from its losses, or fails at
 * once in the socket layer). */
static void tn_conn_rails_retry(tn_udp_conn_t *c)
{
    tn_log_warn("udp", "no acks from rank %u on the %d rail(s) left; trying all %d again",
                c->peer, c->nup, c->nrails);
    for (int r = 0; r < c->nrails; r++) {
        if (!c->up[r]) {
            tn_event_raise(TN_EVENT_RAIL_STATE, (int)c->peer, r, 1);
        }
        c->up[r] = 1;
        c->strikes[r] = 0;
    }
    c->nup = c->nrails;
}

static void tn_conn_check_timer(tn_udp_conn_t *c, uint64_t now)
{
    tn_udp_loss_result_t res = { 0 };
    switch (tn_udp_loss_on_timer(&c->loss, &c->sm, now, &res)) {
    case TN_UDP_LOSS_TIMER_EARLY:
        c->stats->fast_retransmits += res.lost;
        tn_conn_on_lost(c, &res, now);
        break;
    case TN_UDP_LOSS_TIMER_PROBE:
        /* no evidence of loss: no window change, no rail strikes */
        c->stats->probes++;
        tn_event_raise(TN_EVENT_RETRANSMIT_BURST, (int)c->peer, (int)res.lost, 2);
        tn_log_data("udp", "peer %u: tail-loss probe, %u packets resent, rto now %llu ns",
                    c->peer, res.lost, (unsigned long long)tn_udp_loss_rto(&c->loss));
        break;
    case TN_UDP_LOSS_TIMER_RTO:
        c->stats->timeouts++;
        tn_event_raise(TN_EVENT_RETRANSMIT_BURST, (int)c->peer, (int)res.lost, 1);
        for (int r = 0; r < c->nrails; r++) {
            c->stats->rail_lost[r] += res.rail_lost[r];
        }
        /* before any RTT sample (the peer may not be up yet) a timeout says
         * nothing about the path: ssthresh stays */
        tn_udp_cc_on_timeout(&c->cc, c->sm.txseq + 1, c->loss.srtt_ns != 0);
        tn_log_data("udp", "peer %u: timeout, %u packets lost, rto now %llu ns", c->peer,
                    res.lost, (unsigned long long)tn_udp_loss_rto(&c->loss));
        if (c->nup < c->nrails && c->loss.backoff >= c->cfg.probes + TN_UDP_RAIL_RETRY) {
            tn_conn_rails_retry(c);
        }
        break;
    default:
        return;
    }
    tn_conn_sync_stats(c);
}

/* Is a data packet allowed now by the congestion window and pacing?
 * (credits are checked by the caller for new data only) */
static int tn_conn_cwnd_open(tn_udp_conn_t *c)
{
    if (tn_udp_sentmap_inflight(&c->sm) < c->cc.cwnd) {
        c->cwnd_stalled = 0;
        return 1;
    }
    if (!c->cwnd_stalled) {
        c->cwnd_stalled = 1;
        c->stats->cwnd_stalls++;
    }
    return 0;
}

static void tn_conn_sent_data(tn_udp_conn_t *c, tn_udp_sent_t *e, int rail, uint64_t now);

static size_t tn_conn_send_data(tn_udp_conn_t *c, tn_udp_sent_t *e, int rail, void *buf,
                                size_t cap, const void **payload_p, size_t *plen_p,
                                uint64_t now)
{
    int retx = e->tx_count != 0;
    uint16_t flags = retx ? TN_UDP_F_RETX : 0;
    /* ask for an ack at once every half window while at least half the
     * window is in flight (and when this uses the last credit), so a
     * window-limited sender never waits for a delayed ack.  Asking on
     * every packet that fills the window, as before, drew an ack per
     * few packets once losses had shrunk the window: 0.34 per data
     * packet at 1 % loss, each a system call on both sides */
    uint32_t half = c->cc.cwnd / 2 != 0 ? c->cc.cwnd / 2 : 1;
    c->since_ask++;
    if ((c->since_ask >= half && tn_udp_sentmap_inflight(&c->sm) + 1 >= half) ||
        (!retx && e->psn + 1 >= c->snd_limit)) {
        flags |= TN_UDP_F_ACKNOW;
        c->since_ask = 0;
    }
    c->out_ref = e->ext != NULL;
    if (c->cfg.auth == TN_UDP_AUTH_ENCRYPT) {
        payload_p = NULL;           /* encrypted into buf: the plaintext stays */
    }
    struct iovec pay[2];
    if (e->ext == NULL) {
        size_t n = tn_conn_build(c, buf, cap, TN_UDP_PKT_DATA, flags, e->psn, e->data, e->len,
                                 e->crc, payload_p != NULL);
        if (n == 0) {
            return 0;
        }
        pay[0].iov_base = payload_p != NULL ? e->data : (char *)buf + c->out_head;
        pay[0].iov_len = e->len;
        if (!tn_conn_seal(c, buf, pay, 1)) {
            return 0;
        }
        if (payload_p != NULL) {
            *payload_p = e->data;
            *plen_p = e->len;
        }
        tn_conn_sent_data(c, e, rail, now);
        return n;
    }
    /* by reference: the head follows the header in buf, the rest is ext */
    size_t head_len = e->len - e->ext_len;
    size_t n = tn_conn_build(c, buf, cap, TN_UDP_PKT_DATA, flags, e->psn, NULL, e->len,
                             e->crc, 1);
    if (n == 0) {
        return 0;
    }
    memcpy((char *)buf + n, e->data, head_len);
    pay[0].iov_base = (char *)buf + n;
    pay[0].iov_len = head_len;
    n += head_len;
    if (payload_p != NULL) {
        *payload_p = e->ext;
        *plen_p = e->ext_len;
        pay[1].iov_base = (void *)e->ext;
    } else {
        memcpy((char *)buf + n, e->ext, e->ext_len);
        pay[1].iov_base = (char *)buf + n;
        n += e->ext_len;
    }
    pay[1].iov_len = e->ext_len;
    if (!tn_conn_seal(c, buf, pay, 2)) {
        if (payload_p != NULL) {
            *payload_p = NULL;
            *plen_p = 0;
        }
        return 0;
    }
    tn_conn_sent_data(c, e, rail, now);
    return n;
}

/* Account the transmission of e. */
static void tn_conn_sent_data(tn_udp_conn_t *c, tn_udp_sent_t *e, int rail, uint64_t now)
{
    int retx = e->tx_count != 0;
    tn_udp_sentmap_on_send(&c->sm, e->psn, rail, now);
    if (c->pacing) {
        tn_udp_pace_on_send(&c->pace, now);
    }
    c->stats->data_sent++;
    c->stats->data_bytes_sent += e->len;
    c->stats->rail_sent[rail]++;
    if (retx) {
        c->stats->retransmits++;
    }
}

/* Probing applies when data waits, nothing is in flight and credits are
 * exhausted. */
static int tn_conn_zero_window(const tn_udp_conn_t *c)
{
    return c->sm.nxt < c->sm.end && c->sm.nxt >= c->snd_limit &&
           tn_udp_sentmap_inflight(&c->sm) == 0 && tn_udp_sentmap_nlost(&c->sm) == 0;
}

static size_t tn_conn_output(tn_udp_conn_t *c, void *buf, size_t cap,
                             const void **payload_p, size_t *plen_p, int *rail_p,
                             uint64_t now, int timers)
{
    if (payload_p != NULL) {
        *payload_p = NULL;
        *plen_p = 0;
    }
    if (timers) {
        tn_conn_check_timer(c, now);
    }
    int paced = c->pacing && tn_udp_pace_next(&c->pace, now) > now;

    /* 1. retransmissions */
    tn_udp_sent_t *e = tn_udp_sentmap_next_lost(&c->sm);
    if (e != NULL && !paced && tn_conn_cwnd_open(c)) {
        int rail = c->nup > 1 || !c->up[e->rail] ? tn_conn_next_up(c, e->rail) : e->rail;
        size_t n = tn_conn_send_data(c, e, rail, buf, cap, payload_p, plen_p, now);
        if (n != 0) {
            *rail_p = rail;
            return n;
        }
    }
    /* 2. new data */
    if (e == NULL && c->sm.nxt < c->sm.end && !paced) {
        if (c->sm.nxt >= c->snd_limit) {
            if (!c->credit_stalled) {
                c->credit_stalled = 1;
                c->stats->credit_stalls++;
            }
        } else {
            c->credit_stalled = 0;
            if (tn_conn_cwnd_open(c)) {
                int rail = c->rr_data = tn_conn_next_up(c, c->rr_data);
                size_t n = tn_conn_send_data(c, tn_udp_sentmap_get(&c->sm, c->sm.nxt), rail,
                                             buf, cap, payload_p, plen_p, now);
                if (n != 0) {
                    *rail_p = rail;
                    return n;
                }
            }
        }
    }
    /* 3. an ack that is due, or a probe */
    uint8_t type = 0;
    uint16_t flags = 0;
    if (c->ack_now || (c->ack_pending && now >= c->ack_deadline)) {
        type = TN_UDP_PKT_ACK;
    }
    if (tn_conn_zero_window(c)) {
        if (c->probe_at == 0) {
            c->probe_at = now + tn_udp_loss_rto(&c->loss);
        } else if (now >= c->probe_at) {
            type = TN_UDP_PKT_PING;
            flags = TN_UDP_F_ACKNOW;
            uint64_t wait = tn_udp_loss_rto(&c->loss);
            for (uint32_t i = 0; i < c->probe_backoff && wait < c->cfg.rto_max_ns; i++) {
                wait *= 2;
            }
            if (c->probe_backoff < TN_UDP_LOSS_MAX_BACKOFF) {
                c->probe_backoff++;
            }
            c->probe_at = now + wait;
        }
    } else {
        c->probe_at = 0;
        c->probe_backoff = 0;
    }
    if (type == 0) {
        return 0;
    }
    size_t n = tn_conn_build(c, buf, cap, type, flags, 0, NULL, 0, 0, 0);
    if (n == 0 || !tn_conn_seal(c, buf, NULL, 0)) {
        return 0;
    }
    /* control packets go back the way the peer's last packet came, which is
     * known to work at least one way; else round-robin */
    int rail;
    if (c->rx_rail >= 0 && c->up[c->rx_rail]) {
        rail = c->rx_rail;
    } else {
        rail = c->rr_ctl = tn_conn_next_up(c, c->rr_ctl);
    }
    c->stats->acks_sent++;
    c->stats->rail_sent[rail]++;
    *rail_p = rail;
    return n;
}

size_t tn_udp_conn_output(tn_udp_conn_t *conn, void *buf, size_t cap, int *rail_p,
                          uint64_t now)
{
    return tn_conn_output(conn, buf, cap, NULL, NULL, rail_p, now, 1);
}

size_t tn_udp_conn_output_gather(tn_udp_conn_t *conn, void *buf, size_t cap,
                                 const void **payload_p, size_t *plen_p, int *ref_p,
                                 int *rail_p, uint64_t now, int timers)
{
    size_t n = tn_conn_output(conn, buf, cap, payload_p, plen_p, rail_p, now, timers);
    if (ref_p != NULL) {
        /* the by-reference part, when there is one, is what the payload
         * points to (tn_conn_send_data) */
        *ref_p = n != 0 && *payload_p != NULL && conn->out_ref;
    }
    return n;
}

uint64_t tn_udp_conn_deadline(const tn_udp_conn_t *conn)
{
    const tn_udp_conn_t *c = conn;
    if (c->ack_now) {
        return 0;
    }
    uint64_t d = tn_udp_loss_deadline(&c->loss, &c->sm);
    if (c->ack_pending && c->ack_deadline < d) {
        d = c->ack_deadline;
    }
    /* data that could leave now (or when pacing allows) */
    int sendable = tn_udp_sentmap_inflight(&c->sm) < c->cc.cwnd &&
                   (tn_udp_sentmap_nlost(&c->sm) != 0 ||
                    (c->sm.nxt < c->sm.end && c->sm.nxt < c->snd_limit));
    if (sendable) {
        uint64_t t = c->pacing ? c->pace.t_next : 0;
        if (t < d) {
            d = t;
        }
    }
    if (c->probe_at != 0 && tn_conn_zero_window(c) && c->probe_at < d) {
        d = c->probe_at;
    }
    return d;
}

/* ---- receiving ------------------------------------------------------------ */

/* Apply the ack, SACK blocks and credits every packet carries. */
static void tn_conn_on_ack_info(tn_udp_conn_t *c, const tn_udp_hdr_t *h, const char *sacks,
                                uint64_t now)
{
    tn_udp_acked_t acc = { 0 };
    uint64_t ack = h->ack;
    /* Believe only acks of what was sent: an ack or SACK range beyond the
     * lowest packet never sent makes the whole packet's ack information
     * suspect (a peer never does it), so none of it is used.  Below una
     * is old news and harmless. */
    int bogus = ack > c->sm.nxt;
    for (uint16_t i = 0; i < h->nsack && !bogus; i++) {
        tn_udp_sack_t s;
        memcpy(&s, sacks + (size_t)i * sizeof(s), sizeof(s));
        bogus = s.end > c->sm.nxt;
    }
    if (bogus) {
        c->stats->bad_acks++;
        tn_log_data("udp", "peer %u acked beyond %llu, what was never sent", c->peer,
                    (unsigned long long)c->sm.nxt);
        return;
    }
    if (ack > c->sm.una) {
        tn_udp_sentmap_ack(&c->sm, ack, &acc);
        tn_udp_ranges_remove_below(&c->sacked, c->sm.una);
    }
    for (uint16_t i = 0; i < h->nsack; i++) {
        tn_udp_sack_t s;
        memcpy(&s, sacks + (size_t)i * sizeof(s), sizeof(s));
        uint64_t start = s.start < c->sm.una ? c->sm.una : s.start;
        uint64_t end = s.end > c->sm.nxt ? c->sm.nxt : s.end;
        if (start >= end) {
            continue;
        }
        /* only the part not seen in an earlier ack costs anything */
        uint64_t p = start, gs, ge;
        while (tn_udp_ranges_next_gap(&c->sacked, p, end, &gs, &ge)) {
            tn_udp_sentmap_sack(&c->sm, gs, ge, &acc);
            p = ge;
        }
        tn_udp_ranges_add(&c->sacked, start, end);
    }
    uint64_t limit = ack + h->credits;
    if (limit > c->snd_limit) {
        c->snd_limit = limit;
    }
    if (acc.newly == 0) {
        return;
    }
    c->last_progress = now;
    for (int r = 0; r < c->nrails; r++) {
        if (acc.rail_acked[r] != 0) {
            c->strikes[r] = 0;
        }
    }
    tn_udp_loss_on_ack(&c->loss, &acc, now);
    /* premature: packets the timeout declared lost arrived after all, or
     * the peer says it acks late because it was away */
    if (tn_udp_cc_timeout_verdict(&c->cc, acc.spurious_rto != 0 ||
                                              (h->flags & TN_UDP_F_LATE) != 0)) {
        tn_log_data("udp", "peer %u: premature timeout, window restored to %u", c->peer,
                    c->cc.cwnd);
    }
    tn_udp_cc_on_ack(&c->cc, acc.newly, c->loss.largest_acked_txseq);
    tn_udp_loss_result_t res = { 0 };
    if (tn_udp_loss_detect(&c->loss, &c->sm, now, &res) != 0) {
        c->stats->fast_retransmits += res.lost;
        tn_conn_on_lost(c, &res, now);
    }
    c->probe_backoff = 0;
    c->pacing = c->cc.cwnd >= TN_UDP_PACE_MIN_CWND && c->loss.srtt_ns != 0;
    if (c->pacing) {
        tn_udp_pace_set_rate(&c->pace, c->cc.cwnd, c->loss.srtt_ns,
                             tn_udp_cc_in_slow_start(&c->cc) ? 8 : 5);
    }
    tn_conn_sync_stats(c);
}

/* tail != NULL: the payload is plen bytes at payload, then the rest (of
 * h->len) at tail, kept there when keep (tn_udp_credit_insert_split). */
static void tn_conn_on_data(tn_udp_conn_t *c, const tn_udp_hdr_t *h, const char *payload,
                            int lend, const void *tail, size_t plen, int keep, uint64_t now)
{
    uint64_t ack_before = c->rx.ack;
    tn_udp_rx_t rx = tail != NULL
        ? tn_udp_credit_insert_split(&c->rx, h->psn, payload, (uint32_t)plen, tail,
                                     (uint32_t)(h->len - plen), keep)
        : lend ? tn_udp_credit_insert_lent(&c->rx, h->psn, payload, h->len)
               : tn_udp_credit_insert(&c->rx, h->psn, payload, h->len);
    uint64_t top = c->rx_top;
    if (rx == TN_UDP_RX_INORDER || rx == TN_UDP_RX_OOO) {
        c->rx_top = h->psn > top ? h->psn : top;
    }
    switch (rx) {
    case TN_UDP_RX_INORDER:
        c->stats->data_recv++;
        c->stats->data_bytes_recv += h->len;
        if (c->rx.ack - ack_before > 1) {
            c->ack_now = 1;                 /* a gap closed: tell the sender at once */
        }
        break;
    case TN_UDP_RX_OOO:
        c->stats->data_recv++;
        c->stats->data_bytes_recv += h->len;
        c->stats->out_of_order++;
        /* a packet that opens a new hole, and the next few beyond it, are
         * acknowledged at once: enough for the sender's packet threshold.
         * The rest wait for the usual policy; acking every one of them
         * (each ack a system call on both sides) cost a third more acks
         * than data packets at 1 % loss */
        if (h->psn > top + 1) {
            c->ooo_acks = 0;
        }
        if (c->ooo_acks < TN_UDP_OOO_ACKS) {
            c->ooo_acks++;
            c->ack_now = 1;
        }
        break;
    case TN_UDP_RX_DUP:
        c->stats->duplicates++;
        c->ack_now = 1;
        break;
    case TN_UDP_RX_STALE:
        c->stats->duplicates++;
        c->stats->stale++;
        c->ack_now = 1;                     /* our ack may have been lost */
        break;
    case TN_UDP_RX_BEYOND:
        c->stats->stale++;
        c->ack_now = 1;
        return;
    case TN_UDP_RX_NOMEM:
        /* out of memory, or larger than our messages (a peer configured with
         * a larger packet size): as if lost */
        tn_log_data("udp", "peer %u: no room for psn %llu (%u bytes)", c->peer,
                    (unsigned long long)h->psn, (unsigned)h->len);
        return;
    }
    if (!c->ack_pending) {
        c->ack_pending = 1;
        c->ack_deadline = now + c->cfg.ack_delay_ns;
    }
    if (++c->unacked >= c->cfg.ack_every || (h->flags & TN_UDP_F_ACKNOW) ||
        c->cfg.ack_delay_ns == 0) {
        c->ack_now = 1;
    }
}

/* The datagram is pkt[0, len) followed by tail[0, tail_len) (tail NULL:
 * none; see tn_udp_conn_input_split). */
static void tn_conn_input(tn_udp_conn_t *c, const void *pkt, size_t len, int rail, int lend,
                          const void *tail, size_t tail_len, int keep, uint64_t now)
{
    tn_udp_hdr_t h;
    tn_udp_credit_release(&c->rx);          /* the last delivered message is done */
    if (len < sizeof(h)) {
        return;
    }
    memcpy(&h, pkt, sizeof(h));
    const char *sacks = (const char *)pkt + sizeof(h);
    const char *payload = sacks + (size_t)h.nsack * sizeof(tn_udp_sack_t);
    size_t head = sizeof(h) + (size_t)h.nsack * sizeof(tn_udp_sack_t);
    if (tail == NULL) {
        tail_len = 0;
    }
    if (h.src != c->peer || h.nsack > TN_UDP_MAX_SACK || head + h.len > len + tail_len ||
        (tail_len != 0 && (head > len || h.type != TN_UDP_PKT_DATA))) {
        return;
    }
    c->last_heard = now;
    if (rail >= 0 && rail < c->nrails) {
        c->rx_rail = rail;
    }
    if (h.flags & TN_UDP_F_LATE) {
        c->stats->late_acks++;
    }
    tn_conn_on_ack_info(c, &h, sacks, now);
    switch (h.type) {
    case TN_UDP_PKT_DATA:
        tn_conn_on_data(c, &h, payload, lend, tail_len != 0 ? tail : NULL, len - head, keep,
                        now);
        break;
    case TN_UDP_PKT_PING:
        c->ack_now = 1;
        c->stats->acks_recv++;
        break;
    case TN_UDP_PKT_ACK:
        c->stats->acks_recv++;
        break;
    default:
        break;
    }
}

void tn_udp_conn_note_late(tn_udp_conn_t *conn)
{
    conn->late = 1;
}

void tn_udp_conn_input(tn_udp_conn_t *conn, const void *pkt, size_t len, int rail,
                       uint64_t now)
{
    tn_conn_input(conn, pkt, len, rail, 0, NULL, 0, 0, now);
}

void tn_udp_conn_input_lent(tn_udp_conn_t *conn, const void *pkt, size_t len, int rail,
                            uint64_t now)
{
    tn_conn_input(conn, pkt, len, rail, 1, NULL, 0, 0, now);
}

void tn_udp_conn_input_split(tn_udp_conn_t *conn, const void *pkt, size_t len,
                             const void *tail, size_t tail_len, int keep, int rail,
                             uint64_t now)
{
    tn_conn_input(conn, pkt, len, rail, 1, tail, tail_len, keep, now);
}

const void *tn_udp_conn_deliver(tn_udp_conn_t *conn, size_t *len_p)
{
    return tn_udp_conn_deliver_split(conn, len_p, NULL, NULL);
}

const void *tn_udp_conn_deliver_split(tn_udp_conn_t *conn, size_t *len_p, const void **tail_p,
                                      size_t *tail_len_p)
{
    tn_udp_conn_t *c = conn;
    const void *msg = tn_udp_credit_deliver_split(&c->rx, len_p, tail_p, tail_len_p);
    /* window update: the window opened by a quarter since we last said */
    uint64_t step = c->rx.window / 4 ? c->rx.window / 4 : 1;
    if (tn_udp_credit_limit(&c->rx) >= c->adv_limit + step) {
        c->ack_now = 1;
    }
    return msg;
}

/* ---- liveness and rails ----------------------------------------------------- */

int tn_udp_conn_dead(const tn_udp_conn_t *conn, uint64_t now)
{
    const tn_udp_conn_t *c = conn;
    if (c->crypto_failed) {
        return TN_UDP_DEAD_CRYPTO;
    }
    if (c->cfg.peer_timeout_ns == 0 || tn_udp_sentmap_outstanding(&c->sm) == 0) {
        return 0;
    }
    uint64_t since = c->last_heard > c->busy_since ? c->last_heard : c->busy_since;
    if (now >= since && now - since >= c->cfg.peer_timeout_ns) {
        return TN_UDP_DEAD_SILENT;
    }
    /* packets in flight that no ack has covered for as long: whatever else
     * arrives (acks of nothing new, pings), the connection is stuck */
    if (c->sm.nxt > c->sm.una) {
        since = c->last_progress > c->busy_since ? c->last_progress : c->busy_since;
        if (now >= since && now - since >= c->cfg.peer_timeout_ns) {
            return TN_UDP_DEAD_STUCK;
        }
    }
    return 0;
}

int tn_udp_conn_idle(const tn_udp_conn_t *conn)
{
    return tn_udp_sentmap_outstanding(&conn->sm) == 0 && !conn->ack_pending;
}

void tn_udp_conn_rail_down(tn_udp_conn_t *conn, int rail)
{
    tn_udp_conn_t *c = conn;
    if (rail < 0 || rail >= c->nrails || !c->up[rail] || c->nup <= 1) {
        return;
    }
    c->up[rail] = 0;
    c->nup--;
    c->stats->rails_down++;
    tn_event_raise(TN_EVENT_RAIL_STATE, (int)c->peer, rail, 0);
    /* what is in flight on it will not arrive: resend it elsewhere, without
     * treating it as congestion */
    tn_udp_sent_t *e = tn_udp_sentmap_oldest(&c->sm);
    while (e != NULL) {
        tn_udp_sent_t *next = tn_udp_sentmap_next(&c->sm, e);
        if (e->rail == rail) {
            tn_udp_sentmap_mark_lost(&c->sm, e);
            c->stats->rail_lost[rail]++;
        }
        e = next;
    }
    tn_log_debug("udp", "peer %u: rail %d down, %d left", c->peer, rail, c->nup);
}

/* ---- validation ------------------------------------------------------------- */

uint32_t tn_udp_packet_crc(const void *pkt, size_t len)
{
    return tn_udp_packet_crc_split(pkt, len, NULL, 0);
}

uint32_t tn_udp_packet_crc_split(const void *pkt, size_t len, const void *tail,
                                 size_t tail_len)
{
    const char *p = pkt;
    tn_udp_hdr_t h;
    memcpy(&h, p, sizeof(h));
    size_t head = sizeof(h) + (size_t)(h.nsack < TN_UDP_MAX_SACK ? h.nsack : TN_UDP_MAX_SACK) *
                              sizeof(tn_udp_sack_t);
    if (head > len) {
        head = len;
    }
    uint32_t crc = tn_udp_crc32c(0, p + head, len - head);
    if (tail_len != 0) {
        crc = tn_udp_crc32c(crc, tail, tail_len);
    }
    /* the header with its crc field as 0: a copy, checksummed in one call
     * (three calls around the field cost more than the copy) */
    unsigned char hb[sizeof(tn_udp_hdr_t) + TN_UDP_MAX_SACK * sizeof(tn_udp_sack_t)];
    memcpy(hb, p, head);
    if (head >= offsetof(tn_udp_hdr_t, crc) + sizeof(h.crc)) {
        memset(hb + offsetof(tn_udp_hdr_t, crc), 0, sizeof(h.crc));
    }
    if (head >= TN_UDP_TAG_OFF + sizeof(h.tag)) {
        memset(hb + TN_UDP_TAG_OFF, 0, sizeof(h.tag));    /* written after the CRC */
    }
    return tn_udp_crc32c(crc, hb, head);
}

tn_status_t tn_udp_packet_check(const void *pkt, size_t len, uint32_t conn, uint32_t me,
                                const char **why_p)
{
    return tn_udp_packet_check_split(pkt, len, NULL, 0, conn, me, why_p);
}

uint32_t tn_udp_conn_rx_id(const tn_udp_conn_t *conn)
{
    return conn->rx_dir.conn;
}

int tn_udp_conn_authentic(tn_udp_conn_t *conn, void *pkt, size_t len)
{
    return tn_udp_conn_authentic_split(conn, pkt, len, NULL, 0);
}

int tn_udp_conn_authentic_split(tn_udp_conn_t *conn, void *pkt, size_t len, void *tail,
                                size_t tail_len)
{
    tn_udp_hdr_t h;
    if (len < sizeof(h)) {
        return TN_UDP_AUTH_BAD_CONN;
    }
    memcpy(&h, pkt, sizeof(h));
    if (h.conn != conn->rx_dir.conn) {
        return TN_UDP_AUTH_BAD_CONN;
    }
    size_t head = sizeof(h) + (size_t)h.nsack * sizeof(tn_udp_sack_t);
    if (h.nsack > TN_UDP_MAX_SACK || head > len) {
        return TN_UDP_AUTH_BAD_TAG;
    }
    struct iovec pay[2] = { { (char *)pkt + head, len - head }, { tail, tail_len } };
    if (!tn_udp_auth_open(&conn->rx_key, h.seq, pkt, head, TN_UDP_TAG_OFF, pay,
                          tail != NULL ? 2 : 1)) {
        return TN_UDP_AUTH_BAD_TAG;
    }
    return TN_UDP_AUTH_GOOD;
}

uint64_t tn_udp_conn_key_epoch(const tn_udp_conn_t *conn, int rx)
{
    return tn_udp_auth_epoch(rx ? &conn->rx_key : &conn->tx_key);
}

tn_status_t tn_udp_packet_check_split(const void *pkt, size_t len, const void *tail,
                                      size_t tail_len, uint32_t conn, uint32_t me,
                                      const char **why_p)
{
    return tn_udp_packet_check_crc(pkt, len, tail, tail_len, conn, me, 1, why_p);
}

int tn_udp_conn_needs_crc(const tn_udp_conn_t *conn)
{
    return conn->cfg.auth != TN_UDP_AUTH_AEAD && conn->cfg.auth != TN_UDP_AUTH_ENCRYPT;
}

tn_status_t tn_udp_packet_check_crc(const void *pkt, size_t len, const void *tail,
                                    size_t tail_len, uint32_t conn, uint32_t me, int crc,
                                    const char **why_p)
{
    const char *why = NULL;
    tn_udp_hdr_t h;
    if (len < sizeof(h)) {
        why = "shorter than a header";
        goto bad;
    }
    memcpy(&h, pkt, sizeof(h));
    if (tail == NULL) {
        tail_len = 0;
    }
    /* first the CRC: a flipped bit anywhere reads as corruption, not as a
     * strange field */
    if (crc && tn_udp_packet_crc_split(pkt, len, tail, tail_len) != h.crc) {
        why = "bad crc";
    } else if (h.version != TN_UDP_VERSION) {
        why = "unknown version";
    } else if (h.conn != conn) {
        why = "another connection";
    } else if (h.dst != me) {
        why = "addressed to another rank";
    } else if (h.type != TN_UDP_PKT_DATA && h.type != TN_UDP_PKT_ACK &&
               h.type != TN_UDP_PKT_PING) {
        why = "unknown type";
    } else if (h.nsack > TN_UDP_MAX_SACK) {
        why = "too many sack ranges";
    } else if (sizeof(h) + (size_t)h.nsack * sizeof(tn_udp_sack_t) + h.len != len + tail_len) {
        why = "length mismatch";
    } else if (tail_len != 0 && sizeof(h) + (size_t)h.nsack * sizeof(tn_udp_sack_t) > len) {
        why = "header split";
    } else if (h.type == TN_UDP_PKT_DATA ? h.psn == 0 : (h.psn != 0 || h.len != 0)) {
        why = "bad psn or length for the type";
    } else {
        const char *p = (const char *)pkt + sizeof(h);
        for (uint16_t i = 0; i < h.nsack; i++) {
            tn_udp_sack_t s;
            memcpy(&s, p + (size_t)i * sizeof(s), sizeof(s));
            if (s.start >= s.end || s.start < h.ack) {
                why = "bad sack range";
                break;
            }
        }
    }
    if (why == NULL) {
        return TN_OK;
    }
bad:
    if (why_p != NULL) {
        *why_p = why;
    }
    return TN_ERR_PROTO;
}
