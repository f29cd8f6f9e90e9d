/* Direct receive into the user's buffer; see udp_direct.h. */
#include "xport/udp/udp_direct.h"

#include <stdlib.h>
#include <string.h>

tn_status_t tn_udp_direct_add(tn_udp_dpeer_t *p, uint64_t rreq, void *buf, size_t len)
{
    tn_udp_dstream_t *s = malloc(sizeof(*s));
    if (s == NULL) {
        return TN_ERR_NOMEM;
    }
    s->rreq = rreq;
    s->buf = buf;
    s->len = len;
    s->cursor = 0;
    s->next = NULL;
    if (p->tail != NULL) {
        p->tail->next = s;
    } else {
        p->head = s;
    }
    p->tail = s;
    p->n++;
    return TN_OK;
}

void tn_udp_direct_end(tn_udp_dpeer_t *p, uint64_t rreq)
{
    tn_udp_dstream_t *prev = NULL;
    for (tn_udp_dstream_t *s = p->head; s != NULL; prev = s, s = s->next) {
        if (s->rreq != rreq) {
            continue;
        }
        if (prev != NULL) {
            prev->next = s->next;
        } else {
            p->head = s->next;
        }
        if (p->tail == s) {
            p->tail = prev;
        }
        p->n--;
        free(s);
        return;
    }
}

void tn_udp_direct_clear(tn_udp_dpeer_t *p)
{
    while (p->head != NULL) {
        tn_udp_dstream_t *s = p->head;
        p->head = s->next;
        free(s);
    }
    p->tail = NULL;
    p->n = 0;
}

void tn_udp_direct_seen(tn_udp_dpeer_t *p, const tn_am_hdr_t *am, size_t plen)
{
    if (am->type != TN_AM_DATA) {
        return;
    }
    for (tn_udp_dstream_t *s = p->head; s != NULL; s = s->next) {
        if (s->rreq != am->rreq) {
            continue;
        }
        if (am->addr < s->len) {
            size_t end = plen < s->len - am->addr ? (size_t)am->addr + plen : s->len;
            if (end > s->cursor) {
                s->cursor = end;
            }
        }
        return;
    }
}

tn_udp_dstream_t *tn_udp_direct_next_stream(const tn_udp_dpeer_t *p)
{
    for (tn_udp_dstream_t *s = p->head; s != NULL; s = s->next) {
        if (s->cursor < s->len) {
            return s;
        }
    }
    return NULL;
}

void tn_udp_direct_plan(tn_udp_dplan_t *pl, const tn_udp_dpeer_t *p, uint32_t peer,
                        size_t chunk, size_t cap, char (*heads)[TN_UDP_DIRECT_HEAD],
                        char *spill)
{
    pl->niov = 0;
    pl->n = 0;
    pl->peer = peer;
    pl->heads = heads;
    pl->cap = cap;
    pl->dp = p;
    tn_udp_dstream_t *s = p != NULL ? tn_udp_direct_next_stream(p) : NULL;
    size_t off = s != NULL ? s->cursor : 0, used = 0;
    while (s != NULL && chunk != 0 && pl->n < TN_UDP_DIRECT_MAX) {
        size_t plen = s->len - off < chunk ? s->len - off : chunk;
        if (used + TN_UDP_DIRECT_HEAD + plen > cap) {
            break;
        }
        int j = pl->n++;
        pl->pos[j] = used;
        pl->off[j] = off;
        pl->plen[j] = plen;
        pl->rreq[j] = s->rreq;
        pl->iov[pl->niov].iov_base = heads[j];
        pl->iov[pl->niov++].iov_len = TN_UDP_DIRECT_HEAD;
        pl->iov[pl->niov].iov_base = s->buf + off;
        pl->iov[pl->niov++].iov_len = plen;
        used += TN_UDP_DIRECT_HEAD + plen;
        if (plen < chunk) {
            break;          /* a shorter datagram ends a GSO/GRO run */
        }
        off += plen;
        if (off >= s->len) {
            /* the next stream follows in the same run only when this one
             * ended on a full chunk */
            do {
                s = s->next;
            } while (s != NULL && s->cursor >= s->len);
            off = s != NULL ? s->cursor : 0;
        }
    }
    pl->used = used;
    pl->iov[pl->niov].iov_base = spill;
    pl->iov[pl->niov++].iov_len = cap;
}

/* Copy the received bytes [from, from + len) of pl's layout into dst. */
static void tn_direct_gather(const tn_udp_dplan_t *pl, size_t from, size_t len, char *dst)
{
    size_t start = 0;
    for (int i = 0; i < pl->niov && len != 0; i++) {
        size_t n = pl->iov[i].iov_len;
        if (from < start + n) {
            size_t in = from - start, take = n - in < len ? n - in : len;
            memcpy(dst, (const char *)pl->iov[i].iov_base + in, take);
            dst += take;
            from += take;
            len -= take;
        }
        start += n;
    }
}

enum {
    TN_UDP_DG_PLACE,        /* in one piece: used where it is */
    TN_UDP_DG_HIT,          /* head in its head, payload where it belongs */
    TN_UDP_DG_SPLIT,        /* laid out as planned, but its payload belongs elsewhere */
    TN_UDP_DG_COPY,         /* copied out into scratch, at its place in the receive */
};

/* The planned datagram that starts at p, or -1 (pos[] ascends: a binary
 * search, since a GRO receive of small datagrams plans up to 64). */
static int tn_direct_planned(const tn_udp_dplan_t *pl, size_t p)
{
    int lo = 0, hi = pl->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (pl->pos[mid] < p) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < pl->n && pl->pos[lo] == p ? lo : -1;
}

/* The piece holding all of [p, p + len), or -1 (its start in *start_p). */
static int tn_direct_piece(const tn_udp_dplan_t *pl, size_t p, size_t len, size_t *start_p)
{
    size_t start = 0;
    for (int i = 0; i < pl->niov; i++) {
        size_t n = pl->iov[i].iov_len;
        if (p < start + n) {
            *start_p = start;
            return p + len <= start + n ? i : -1;
        }
        start += n;
    }
    return -1;
}

/* What the datagram at p of dlen bytes is (TN_UDP_DG_*, COPY meaning
 * "spread over pieces"). */
static int tn_direct_classify(const tn_udp_dplan_t *pl, size_t p, size_t dlen)
{
    int j = tn_direct_planned(pl, p);
    if (j >= 0 && dlen > TN_UDP_DIRECT_HEAD && dlen - TN_UDP_DIRECT_HEAD <= pl->plen[j]) {
        tn_udp_hdr_t h;
        memcpy(&h, pl->heads[j], sizeof(h));
        if (h.nsack == 0) {
            tn_am_hdr_t am;
            memcpy(&am, pl->heads[j] + sizeof(h), sizeof(am));
            int hit = h.type == TN_UDP_PKT_DATA && h.src == pl->peer &&
                      am.type == TN_AM_DATA && am.rreq == pl->rreq[j] &&
                      am.addr == pl->off[j] && am.size == pl->plen[j] &&
                      dlen - TN_UDP_DIRECT_HEAD == pl->plen[j];
            return hit ? TN_UDP_DG_HIT : TN_UDP_DG_SPLIT;
        }
    }
    size_t start;
    return tn_direct_piece(pl, p, dlen, &start) >= 0 ? TN_UDP_DG_PLACE : TN_UDP_DG_COPY;
}

/* Where the payload of the datagram at p belongs in one of the plan's
 * streams ([*a, *b)); 0 if it is not such a piece. */
static int tn_direct_dest(const tn_udp_dplan_t *pl, size_t p, size_t dlen, char **a, char **b)
{
    tn_udp_hdr_t h;
    tn_am_hdr_t am;
    if (pl->dp == NULL || dlen < sizeof(h)) {
        return 0;
    }
    tn_direct_gather(pl, p, sizeof(h), (char *)&h);
    size_t head = sizeof(h) + (size_t)h.nsack * sizeof(tn_udp_sack_t);
    if (h.type != TN_UDP_PKT_DATA || h.src != pl->peer || h.nsack > TN_UDP_MAX_SACK ||
        head + sizeof(am) > dlen) {
        return 0;
    }
    tn_direct_gather(pl, p + head, sizeof(am), (char *)&am);
    if (am.type != TN_AM_DATA) {
        return 0;
    }
    for (const tn_udp_dstream_t *s = pl->dp->head; s != NULL; s = s->next) {
        if (s->rreq == am.rreq) {
            if (am.addr >= s->len) {
                return 0;
            }
            *a = s->buf + am.addr;
            *b = *a + (am.size < s->len - am.addr ? am.size : s->len - am.addr);
            return 1;
        }
    }
    return 0;
}

/* Did the datagram at [p, p + dlen) land, even partly, in [a, b) of a
 * user's buffer? */
static int tn_direct_landed_in(const tn_udp_dplan_t *pl, size_t p, size_t dlen, const char *a,
                               const char *b)
{
    size_t start = 0;
    for (int i = 0; i < pl->niov; i++) {
        size_t n = pl->iov[i].iov_len;
        if ((i & 1) && i < 2 * pl->n && p < start + n && p + dlen > start) {
            const char *base = pl->iov[i].iov_base;
            const char *lo = base + (p > start ? p - start : 0);
            const char *hi = base + (p + dlen < start + n ? p + dlen - start : n);
            if (lo < b && a < hi) {
                return 1;
            }
        }
        start += n;
    }
    return 0;
}

void tn_udp_direct_begin(tn_udp_dplan_t *pl, size_t nbytes, size_t seg, char *scratch)
{
    pl->at = 0;
    pl->k = 0;
    pl->nk = 0;
    pl->seg = seg != 0 && seg < nbytes ? seg : nbytes;
    if (pl->n == 0 || pl->seg == 0) {
        return;                 /* all in the spill area */
    }
    /* the datagrams that start in the planned part, and where the payload
     * of each, delivered, will be written */
    static char *da[TN_UDP_DIRECT_SCAN], *db[TN_UDP_DIRECT_SCAN];
    static int dk[TN_UDP_DIRECT_SCAN];      /* the datagrams with a destination */
    int k = 0, ndk = 0;
    for (size_t p = 0; p < nbytes && p < pl->used; k++) {
        size_t dlen = nbytes - p < pl->seg ? nbytes - p : pl->seg;
        if (k >= TN_UDP_DIRECT_SCAN) {
            tn_direct_gather(pl, p, dlen, scratch + p);     /* too many to look at */
        } else {
            int kind = tn_direct_classify(pl, p, dlen);
            if (kind == TN_UDP_DG_COPY) {
                tn_direct_gather(pl, p, dlen, scratch + p);
            }
            pl->kind[k] = (uint8_t)kind;
            if (kind != TN_UDP_DG_HIT && tn_direct_dest(pl, p, dlen, &da[k], &db[k])) {
                dk[ndk++] = k;
            }
            pl->nk = k + 1;
        }
        p += dlen;
    }
    /* a datagram whose bytes lie where an earlier one's payload will be
     * copied (data that came early lands where later data belongs) is
     * taken out first */
    for (k = 1; k < pl->nk; k++) {
        if (pl->kind[k] == TN_UDP_DG_COPY) {
            continue;
        }
        size_t p = (size_t)k * pl->seg, dlen = nbytes - p < pl->seg ? nbytes - p : pl->seg;
        for (int i = 0; i < ndk && dk[i] < k; i++) {
            int j = dk[i];
            if (tn_direct_landed_in(pl, p, dlen, da[j], db[j])) {
                tn_direct_gather(pl, p, dlen, scratch + p);
                pl->kind[k] = TN_UDP_DG_COPY;
                break;
            }
        }
    }
}

int tn_udp_direct_next(tn_udp_dplan_t *pl, size_t nbytes, char *scratch, tn_udp_dgram_t *d)
{
    if (pl->at >= nbytes || pl->seg == 0) {
        return 0;
    }
    size_t p = pl->at, dlen = nbytes - p < pl->seg ? nbytes - p : pl->seg;
    int k = pl->k++;
    pl->at += dlen;
    d->tail = NULL;
    d->tail_len = 0;
    d->hit = 0;
    int kind = k < pl->nk ? pl->kind[k] : p < pl->used ? TN_UDP_DG_COPY : TN_UDP_DG_PLACE;
    if (kind == TN_UDP_DG_HIT || kind == TN_UDP_DG_SPLIT) {
        int j = tn_direct_planned(pl, p);
        d->pkt = pl->heads[j];
        d->len = TN_UDP_DIRECT_HEAD;
        d->tail = pl->iov[2 * j + 1].iov_base;
        d->tail_len = dlen - TN_UDP_DIRECT_HEAD;
        d->hit = kind == TN_UDP_DG_HIT;
        return 1;
    }
    size_t start;
    int i;
    if (kind == TN_UDP_DG_PLACE && (i = tn_direct_piece(pl, p, dlen, &start)) >= 0) {
        d->pkt = (const char *)pl->iov[i].iov_base + (p - start);
    } else {
        d->pkt = scratch + p;
    }
    d->len = dlen;
    return 1;
}
