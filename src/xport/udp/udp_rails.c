/* Rail choice between two ranks (see udp_rails.h). */
#include "xport/udp/udp_rails.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t tn_rails_mask(unsigned len)
{
    return len == 0 ? 0 : htonl(0xFFFFFFFFu << (32 - len));
}

size_t tn_udp_card_format(const tn_udp_card_t *card, char *buf, size_t len)
{
    size_t off = 0;
    int w = snprintf(buf, len, "%c", card->pinned ? 'p' : 'a');
    if (w < 0 || (size_t)w >= len) {
        return 0;
    }
    off = (size_t)w;
    for (int i = 0; i < card->n; i++) {
        const tn_udp_cand_t *c = &card->c[i];
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &c->addr, ip, sizeof(ip));
        w = snprintf(buf + off, len - off, ",%s/%u:%u", ip, (unsigned)c->len,
                     (unsigned)c->port);
        if (w < 0 || (size_t)w >= len - off) {
            return 0;
        }
        off += (size_t)w;
        for (int k = 0; k < c->nroutes; k++) {
            inet_ntop(AF_INET, &c->route[k].net, ip, sizeof(ip));
            w = snprintf(buf + off, len - off, "+%s/%u", ip, (unsigned)c->route[k].len);
            if (w < 0 || (size_t)w >= len - off) {
                return 0;
            }
            off += (size_t)w;
        }
    }
    return off;
}

/* A decimal number of at most five digits, no sign, at most max. */
static const char *tn_rails_num(const char *p, unsigned max, unsigned *v_p)
{
    unsigned v = 0;
    int nd = 0;
    while (*p >= '0' && *p <= '9') {
        if (++nd > 5) {
            return NULL;
        }
        v = v * 10 + (unsigned)(*p++ - '0');
    }
    if (nd == 0 || v > max) {
        return NULL;
    }
    *v_p = v;
    return p;
}

/* A dotted-quad IPv4 address. */
static const char *tn_rails_ip(const char *p, uint32_t *addr_p)
{
    char buf[16];
    size_t n = 0;
    struct in_addr a;
    while ((*p >= '0' && *p <= '9') || *p == '.') {
        if (n == sizeof(buf) - 1) {
            return NULL;
        }
        buf[n++] = *p++;
    }
    buf[n] = '\0';
    if (inet_pton(AF_INET, buf, &a) != 1) {
        return NULL;
    }
    *addr_p = a.s_addr;
    return p;
}

tn_status_t tn_udp_card_parse(const char *str, tn_udp_card_t *card_p)
{
    const char *p = str;
    memset(card_p, 0, sizeof(*card_p));
    if (p[0] != 'a' && p[0] != 'p') {
        return TN_ERR_PROTO;
    }
    card_p->pinned = *p++ == 'p';
    while (*p != '\0') {
        if (card_p->n == TN_UDP_MAX_CANDS || *p++ != ',') {
            return TN_ERR_PROTO;
        }
        tn_udp_cand_t *c = &card_p->c[card_p->n++];
        unsigned len, port;
        if ((p = tn_rails_ip(p, &c->addr)) == NULL || *p++ != '/' ||
            (p = tn_rails_num(p, 32, &len)) == NULL || *p++ != ':' ||
            (p = tn_rails_num(p, 65535, &port)) == NULL || port == 0) {
            return TN_ERR_PROTO;
        }
        c->len = (uint8_t)len;
        c->port = (uint16_t)port;
        while (*p == '+') {
            tn_udp_prefix_t *r = &c->route[c->nroutes];
            if (c->nroutes == TN_UDP_CAND_ROUTES || (p = tn_rails_ip(p + 1, &r->net)) == NULL ||
                *p++ != '/' || (p = tn_rails_num(p, 32, &len)) == NULL || len == 0 ||
                (r->net & ~tn_rails_mask(len)) != 0) {
                return TN_ERR_PROTO;
            }
            r->len = (uint8_t)len;
            c->nroutes++;
        }
    }
    return TN_OK;
}

typedef struct {
    uint32_t addr;
    int      node;
    int      rank;
    int      idx;
} tn_rails_seen_t;

static int tn_rails_seen_cmp(const void *x, const void *y)
{
    const tn_rails_seen_t *a = x, *b = y;
    if (a->addr != b->addr) {
        return a->addr < b->addr ? -1 : 1;
    }
    return (a->node > b->node) - (a->node < b->node);
}

tn_status_t tn_udp_rails_dups(const tn_udp_card_t *cards, const int *node_of, int n,
                              uint32_t *dup_p)
{
    size_t m = 0;
    for (int r = 0; r < n; r++) {
        dup_p[r] = 0;
        m += (size_t)cards[r].n;
    }
    if (m == 0) {
        return TN_OK;
    }
    tn_rails_seen_t *seen = malloc(m * sizeof(*seen));
    if (seen == NULL) {
        return TN_ERR_NOMEM;
    }
    m = 0;
    for (int r = 0; r < n; r++) {
        for (int i = 0; i < cards[r].n; i++) {
            seen[m++] = (tn_rails_seen_t){ cards[r].c[i].addr, node_of[r], r, i };
        }
    }
    qsort(seen, m, sizeof(*seen), tn_rails_seen_cmp);
    /* a run of one address: sorted by node, so it spans two nodes when its
     * first and last entries differ */
    for (size_t s = 0, e; s < m; s = e) {
        for (e = s + 1; e < m && seen[e].addr == seen[s].addr; e++) {
        }
        if (seen[s].node != seen[e - 1].node) {
            for (size_t k = s; k < e; k++) {
                dup_p[seen[k].rank] |= 1u << seen[k].idx;
            }
        }
    }
    free(seen);
    return TN_OK;
}

int tn_udp_rails_dup_rank(const tn_udp_card_t *cards, const int *node_of, int n, int r, int i)
{
    uint32_t addr = cards[r].c[i].addr;
    for (int q = 0; q < n; q++) {
        if (node_of[q] == node_of[r]) {
            continue;
        }
        for (int k = 0; k < cards[q].n; k++) {
            if (cards[q].c[k].addr == addr) {
                return q;
            }
        }
    }
    return -1;
}

/* The longest of candidate c's prefixes that holds addr (0: none). */
static unsigned tn_rails_best(const tn_udp_cand_t *c, uint32_t addr)
{
    unsigned best = 0;
    if (c->len > 0 && ((addr ^ c->addr) & tn_rails_mask(c->len)) == 0) {
        best = c->len;
    }
    for (int k = 0; k < c->nroutes; k++) {
        const tn_udp_prefix_t *r = &c->route[k];
        if (r->len > best && ((addr ^ r->net) & tn_rails_mask(r->len)) == 0) {
            best = r->len;
        }
    }
    return best;
}

int tn_udp_rails_reach(const tn_udp_card_t *card, int i, uint32_t addr)
{
    unsigned mine = tn_rails_best(&card->c[i], addr);
    if (mine == 0) {
        return 0;
    }
    for (int j = 0; j < card->n; j++) {
        if (tn_rails_best(&card->c[j], addr) > mine) {
            return 0;
        }
    }
    return 1;
}

int tn_udp_rails_between(const tn_udp_card_t *cards, const uint32_t *dup, int me, int peer,
                         tn_udp_pair_t *out)
{
    int lo = me < peer ? me : peer, hi = me < peer ? peer : me;
    const tn_udp_card_t *a = &cards[lo], *b = &cards[hi];
    tn_udp_pair_t p[TN_UDP_MAX_RAILS];
    int n = 0;
    if (a->pinned && b->pinned) {
        for (int i = 0; i < a->n && i < b->n && n < TN_UDP_MAX_RAILS; i++) {
            p[n++] = (tn_udp_pair_t){ (uint8_t)i, (uint8_t)i };
        }
    } else {
        unsigned taken = 0;
        for (int i = 0; i < a->n && n < TN_UDP_MAX_RAILS; i++) {
            if (dup[lo] >> i & 1) {
                continue;
            }
            for (int j = 0; j < b->n; j++) {
                if ((taken >> j & 1) || (dup[hi] >> j & 1)) {
                    continue;
                }
                if (tn_udp_rails_reach(a, i, b->c[j].addr) &&
                    tn_udp_rails_reach(b, j, a->c[i].addr)) {
                    p[n++] = (tn_udp_pair_t){ (uint8_t)i, (uint8_t)j };
                    taken |= 1u << j;
                    break;
                }
            }
        }
    }
    for (int k = 0; k < n; k++) {
        out[k] = me == lo ? p[k] : (tn_udp_pair_t){ p[k].peer, p[k].mine };
    }
    return n;
}

/* Append to buf (of len bytes, *off used so far), cutting what does not
 * fit. */
static void tn_rails_put(char *buf, size_t len, size_t *off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void tn_rails_put(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
    if (*off + 1 >= len) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *off, len - *off, fmt, ap);
    va_end(ap);
    if (w > 0) {
        *off += (size_t)w < len - *off ? (size_t)w : len - *off - 1;
    }
}

/* "10.1.2.3/24, 172.17.0.1/16 (on another node too)" */
static void tn_rails_put_card(char *buf, size_t len, size_t *off, const tn_udp_card_t *card,
                              uint32_t dup)
{
    if (card->n == 0) {
        tn_rails_put(buf, len, off, "no IPv4 interface that is up and not loopback");
    }
    for (int i = 0; i < card->n; i++) {
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &card->c[i].addr, ip, sizeof(ip));
        tn_rails_put(buf, len, off, "%s%s/%u%s", i ? ", " : "", ip, (unsigned)card->c[i].len,
                     dup >> i & 1 ? " (on another node too)" : "");
    }
}

tn_status_t tn_udp_rails_plan(const tn_udp_card_t *cards, const int *node_of, int n, int me,
                              const unsigned char *use, uint32_t *dup_p,
                              tn_udp_rails_t *rails_p, unsigned *used_p, char *msg,
                              size_t msglen)
{
    size_t off = 0;
    unsigned used = 0;
    tn_status_t st = tn_udp_rails_dups(cards, node_of, n, dup_p);
    if (st != TN_OK) {
        return st;
    }
    msg[0] = '\0';
    for (int r = 0; r < n; r++) {
        if (!cards[r].pinned || dup_p[r] == 0) {
            continue;
        }
        int i = __builtin_ctz(dup_p[r]);
        int q = tn_udp_rails_dup_rank(cards, node_of, n, r, i);
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &cards[r].c[i].addr, ip, sizeof(ip));
        tn_rails_put(msg, msglen, &off, "TERN_UDP_RAILS: %s, a pinned rail of rank %d (node %d), "
                     "is also an address of rank %d (node %d): datagrams for it would stay "
                     "on the sender's host; pin addresses that are unique in the job",
                     ip, r, node_of[r], q, q >= 0 ? node_of[q] : -1);
        return TN_ERR_INVAL;
    }
    for (int r = 0; r < n; r++) {
        if (r == me || !use[r]) {
            continue;
        }
        tn_udp_rails_t *rl = &rails_p[r];
        rl->n = tn_udp_rails_between(cards, dup_p, me, r, rl->pair);
        if (rl->n == 0) {
            tn_rails_put(msg, msglen, &off, "no usable udp rail between rank %d (", me);
            tn_rails_put_card(msg, msglen, &off, &cards[me], dup_p[me]);
            tn_rails_put(msg, msglen, &off, ") and rank %d (", r);
            tn_rails_put_card(msg, msglen, &off, &cards[r], dup_p[r]);
            tn_rails_put(msg, msglen, &off, "): no two of their addresses that are unique in "
                         "the job share a subnet or a route other than the default; pin "
                         "TERN_UDP_RAILS (docs/transports/udp.md)");
            return TN_ERR_INVAL;
        }
        for (int k = 0; k < rl->n; k++) {
            used |= 1u << rl->pair[k].mine;
        }
    }
    *used_p = used;
    return TN_OK;
}

void tn_udp_rails_summary(const tn_udp_card_t *cards, const int *node_of, int n, int me,
                          const uint32_t *dup, const tn_udp_rails_t *rails,
                          const unsigned char *use, const char (*ifname)[16], char *buf,
                          size_t len)
{
    size_t off = 0;
    const tn_udp_card_t *card = &cards[me];
    buf[0] = '\0';
    for (int i = 0; i < card->n; i++) {
        char ip[INET_ADDRSTRLEN];
        int peers = 0;
        for (int r = 0; r < n; r++) {
            for (int k = 0; r != me && use[r] && k < rails[r].n; k++) {
                peers += rails[r].pair[k].mine == i;
            }
        }
        inet_ntop(AF_INET, &card->c[i].addr, ip, sizeof(ip));
        tn_rails_put(buf, len, &off, "%s%s %s", i ? "; " : "", peers ? "kept" : "dropped", ip);
        if (peers) {
            tn_rails_put(buf, len, &off, ":%u", (unsigned)card->c[i].port);
        }
        if (ifname != NULL) {
            tn_rails_put(buf, len, &off, " (%s)", ifname[i]);
        }
        if (peers) {
            tn_rails_put(buf, len, &off, " for %d peer%s", peers, peers == 1 ? "" : "s");
        } else if (dup[me] >> i & 1) {
            tn_rails_put(buf, len, &off, ": rank %d on another node has it too",
                         tn_udp_rails_dup_rank(cards, node_of, n, me, i));
        } else {
            int reach = 0;
            for (int r = 0; r < n && !reach; r++) {
                for (int j = 0; r != me && use[r] && j < cards[r].n && !reach; j++) {
                    reach = !(dup[r] >> j & 1) &&
                            tn_udp_rails_reach(card, i, cards[r].c[j].addr) &&
                            tn_udp_rails_reach(&cards[r], j, card->c[i].addr);
                }
            }
            tn_rails_put(buf, len, &off, "%s", reach ? ": not needed (other rails pair with "
                         "its peers' rails)" : ": reaches no peer's rail");
        }
    }
    if (card->n == 0) {
        tn_rails_put(buf, len, &off, "no candidate interface");
    }
}
