/* Incremental max-min fair rates (sim_maxmin.h has the argument). */
#include "sim_maxmin.h"
#include "sim_mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MM_EPS 1e-9

_Static_assert(sizeof(tn_sim_mm_flow_t) == 32, "two flows' records to a cache line");
_Static_assert(sizeof(tn_sim_mm_link_t) == 32, "two links' entries to a cache line");

/* How far ahead the passes over scattered flows prefetch: a flow's
 * number of hops PF_AHEAD places ahead, its hops PF_AHEAD / 2 ahead, and
 * what is kept per link of those hops PF_AHEAD / 4 ahead (each level
 * reads what the one before brought in). */
enum { PF_AHEAD = 16 };

/* Flow f's hop slots (fixed or in the pool) into the cache; reads nhop[f]. */
static inline void mm_prefetch_hops(const tn_sim_mm_t *mm, int32_t f)
{
    if (mm->fl[f].nhop != 0) {
        __builtin_prefetch(mm->hop_link + ((size_t)f << mm->hshift));
    } else {
        __builtin_prefetch(mm->xlink + mm->fl[f].xoff);
    }
}

/* A per-link array's entries for flow f's links into the cache; reads
 * its hops. */
static inline void mm_prefetch_links(const tn_sim_mm_t *mm, int32_t f, const void *arr, size_t elem)
{
    int32_t n;
    const int32_t *hl = tn_sim_mm_links(mm, f, &n);
    n = n < 8 ? n : 8;
    for (int32_t k = 0; k < n; k++) {
        __builtin_prefetch((const char *)arr + (size_t)hl[k] * elem);
    }
}

/* Prefetches for the i-th of a list of flows that is walked in order:
 * what the walk at i will need PF_AHEAD / 4 later, arr per link. */
static inline void mm_prefetch_walk(const tn_sim_mm_t *mm, const int32_t *list, int32_t i, int32_t n,
                                    const void *arr, size_t elem)
{
    if (i + PF_AHEAD < n) {
        __builtin_prefetch(&mm->fl[list[i + PF_AHEAD]].nhop);
    }
    if (i + PF_AHEAD / 2 < n) {
        mm_prefetch_hops(mm, list[i + PF_AHEAD / 2]);
    }
    if (arr != NULL && i + PF_AHEAD / 4 < n) {
        mm_prefetch_links(mm, list[i + PF_AHEAD / 4], arr, elem);
    }
}

/* The base of a pass that marks or numbers up to n links (stamp in
 * sim_maxmin.h); the caller takes what it uses from mm->stamp.  The marks
 * restart when the stamps would wrap. */
static uint32_t mm_stamp(tn_sim_mm_t *mm, uint32_t n)
{
    if (mm->stamp > UINT32_MAX - n - 1) {
        for (int32_t l = 0; l < mm->n_link; l++) {
            mm->lk[l].lmark = 0;
        }
        mm->stamp = 1;
    }
    return mm->stamp;
}

/* The base of a pass that marks links with it: a search, a check. */
static inline uint32_t mm_stamp_mark(tn_sim_mm_t *mm)
{
    uint32_t base = mm_stamp(mm, 1);
    mm->stamp++;
    return base;
}

static inline int mm_tight(const tn_sim_mm_t *mm, int32_t l)
{
    return mm->lk[l].load >= mm->lk[l].cap * (1 - MM_EPS);
}

tn_sim_status_t tn_sim_mm_init(tn_sim_mm_t *mm, int32_t n_link, const double *cap, int max_hops)
{
    memset(mm, 0, sizeof(*mm));
    if (n_link < 1 || max_hops < 1 || max_hops > 255) {
        return TN_SIM_ERR_INVAL;
    }
    mm->n_link = n_link;
    while ((1 << mm->hshift) < max_hops) {
        mm->hshift++;
    }
    size_t n = (size_t)n_link;
    /* aligned: a link's entry is never split over two cache lines */
    size_t lk_size = (n * sizeof(tn_sim_mm_link_t) + 63) / 64 * 64;
    mm->lk = aligned_alloc(64, lk_size);
    if (mm->lk != NULL) {
        memset(mm->lk, 0, lk_size);
        for (int32_t l = 0; l < n_link; l++) {
            mm->lk[l].cap = cap[l];
        }
    }
    mm->lq = malloc(n * sizeof(int32_t));
    mm->lglob = malloc(n * sizeof(int32_t));
    mm->lcnt = malloc(n * sizeof(int32_t));
    mm->ladj_off = malloc((n + 1) * sizeof(int32_t));
    mm->lver = malloc(n * sizeof(uint32_t));
    mm->lrem = malloc(n * sizeof(double));
    mm->lsum = malloc(n * sizeof(double));
    mm->lslb = malloc(n * sizeof(double));
    if (mm->lk == NULL || mm->lq == NULL ||
        mm->lglob == NULL || mm->lcnt == NULL || mm->ladj_off == NULL || mm->lver == NULL ||
        mm->lrem == NULL || mm->lsum == NULL || mm->lslb == NULL) {
        tn_sim_mm_fini(mm);
        return TN_SIM_ERR_NOMEM;
    }
    mm->stamp = 1;  /* above every link's mark */
    return tn_sim_mm_reserve(mm, 1024);
}

void tn_sim_mm_fini(tn_sim_mm_t *mm)
{
    if (mm->lk != NULL) {
        for (int32_t l = 0; l < mm->n_link; l++) {
            if (mm->lk[l].lvec != NULL) {
                free(mm->lk[l].lvec - 1);
            }
        }
    }
    void *arrays[] = {mm->lk, mm->hop_link, mm->hop_pos, mm->fl,
                      mm->added, mm->removed, mm->aff, mm->aff_old,
                      mm->lq, mm->lglob,
                      mm->lcnt, mm->ladj_off, mm->ladj, mm->lver, mm->lrem, mm->lsum, mm->lslb,
                      mm->nrate, mm->aff_tmp, mm->ahl, mm->aoff, mm->nbneck, mm->frozen, mm->heap,
                      mm->xlink, mm->xpos, mm->xflow, mm->fseq, mm->fres};
    for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) {
        free(arrays[i]);
    }
    memset(mm, 0, sizeof(*mm));
}

tn_sim_status_t tn_sim_mm_reserve(tn_sim_mm_t *mm, int32_t n)
{
    if (n <= mm->fcap) {
        return TN_SIM_OK;
    }
    int32_t cap = mm->fcap > 0 ? mm->fcap : 1024;
    while (cap < n) {
        if (cap > INT32_MAX / 2 / (1 << mm->hshift)) {
            return TN_SIM_ERR_LIMIT;
        }
        cap *= 2;
    }
    size_t c = (size_t)cap, ch = c << mm->hshift, ca = ch + (size_t)mm->xcap;
    struct {
        void **p;
        size_t elem, n;
    } arrays[] = {
        {(void **)&mm->hop_link, sizeof(int32_t), ch}, {(void **)&mm->hop_pos, sizeof(int32_t), ch},
        {(void **)&mm->added, sizeof(int32_t), c},     {(void **)&mm->removed, sizeof(int32_t), c},
        {(void **)&mm->aff, sizeof(int32_t), c},       {(void **)&mm->aff_old, sizeof(double), c},
        {(void **)&mm->nrate, sizeof(double), c},      {(void **)&mm->nbneck, sizeof(int32_t), c},
        {(void **)&mm->aff_tmp, sizeof(double), c},    {(void **)&mm->aoff, sizeof(int32_t), c + 1},
        {(void **)&mm->ahl, sizeof(int32_t), ca},      {(void **)&mm->frozen, 1, c},
        {(void **)&mm->ladj, sizeof(int32_t), ca},      {(void **)&mm->fseq, sizeof(uint64_t), c},
        {(void **)&mm->heap, sizeof(tn_sim_mm_hent_t), ch + (size_t)mm->n_link},
    };
    for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) {
        if (tn_sim_grow(arrays[i].p, arrays[i].elem, arrays[i].n) != 0) {
            return TN_SIM_ERR_NOMEM;
        }
    }
    /* the flows' records stay 64-byte aligned */
    if (tn_sim_grow_aligned((void **)&mm->fl, sizeof(tn_sim_mm_flow_t), (size_t)mm->fcap, c) != 0) {
        return TN_SIM_ERR_NOMEM;
    }
    tn_sim_mm_flow_t *fl = mm->fl;
    memset(fl + mm->fcap, 0, (c - (size_t)mm->fcap) * sizeof(tn_sim_mm_flow_t));
    for (int32_t f = mm->fcap; f < cap; f++) {
        mm->fl[f].state = TN_SIM_MM_FREE;
    }
    mm->fcap = cap;
    return TN_SIM_OK;
}

/* A link's list keeps its capacity in the word before it (next to the
 * slot an add writes, not in an array of its own); 0 with no list. */
static inline int32_t mm_lvec_cap(const tn_sim_mm_link_t *k)
{
    return k->lvec != NULL ? k->lvec[-1] : 0;
}

/* Link l's list is full: doubles it.  0, or -1 (no memory). */
static int mm_lvec_grow(tn_sim_mm_t *mm, int32_t l)
{
    tn_sim_mm_link_t *k = &mm->lk[l];
    int32_t c = k->lvec != NULL ? k->lvec[-1] * 2 : 4;
    int32_t *base = k->lvec != NULL ? k->lvec - 1 : NULL;
    if (tn_sim_grow((void **)&base, sizeof(int32_t), (size_t)c + 1) != 0) {
        return -1;
    }
    base[0] = c;
    k->lvec = base + 1;
    return 0;
}

/* Moves the live ranges of the pool to its front, in order, and
 * renumbers their slots on the links' lists. */
static void mm_pool_compact(tn_sim_mm_t *mm)
{
    int32_t w = 0;
    mm->compactions++;
    for (int32_t p = 0; p < mm->xend;) {
        int32_t f = mm->xflow[p];
        if (f < 0) {
            p++;
            continue;
        }
        int32_t n = mm->fl[f].xn;  /* p is xoff[f]: ranges are whole and in order */
        for (int32_t k = 0; k < n; k++) {
            int32_t l = mm->xlink[p + k], pos = mm->xpos[p + k];
            mm->xlink[w + k] = l;
            mm->xpos[w + k] = pos;
            mm->xflow[w + k] = f;
            mm->lk[l].lvec[pos] = -1 - (w + k);
        }
        mm->fl[f].xoff = w;
        w += n;
        p += n;
    }
    for (int32_t p = w; p < mm->xend; p++) {
        mm->xflow[p] = -1;
    }
    mm->xend = w;
}

/* A range of n pool slots; its offset, or -1 (no memory, too many). */
static int32_t mm_pool_alloc(tn_sim_mm_t *mm, int32_t n)
{
    if (mm->xend > mm->xcap - n) {
        mm_pool_compact(mm);
    }
    if (mm->xend > mm->xcap - n || (mm->xend > mm->xcap / 2 - n && mm->xend == mm->xlive)) {
        /* full, or more than half full right after a compaction: grow to
         * twice what is held, so that a compaction frees at least as
         * much as it moves */
        int64_t want = 2 * ((int64_t)mm->xend + n);
        int64_t cap = mm->xcap > 0 ? mm->xcap : 1024;
        while (cap < want) {
            cap *= 2;
        }
        if (cap > INT32_MAX / 2 || ((int64_t)mm->fcap << mm->hshift) + cap > INT32_MAX) {
            return -1;
        }
        size_t c = (size_t)cap, ca = ((size_t)mm->fcap << mm->hshift) + c;
        if (tn_sim_grow((void **)&mm->xlink, sizeof(int32_t), c) || tn_sim_grow((void **)&mm->xpos, sizeof(int32_t), c) ||
            tn_sim_grow((void **)&mm->xflow, sizeof(int32_t), c) || tn_sim_grow((void **)&mm->ahl, sizeof(int32_t), ca) ||
            tn_sim_grow((void **)&mm->ladj, sizeof(int32_t), ca)) {
            return -1;
        }
        for (int32_t p = mm->xcap; p < (int32_t)cap; p++) {
            mm->xflow[p] = -1;
        }
        mm->xcap = (int32_t)cap;
    }
    int32_t off = mm->xend;
    mm->xend += n;
    mm->xlive += n;
    return off;
}

/* A long flow's links go in the pool (checked distinct first). */
static tn_sim_status_t mm_add_long(tn_sim_mm_t *mm, int32_t f, const int32_t *links, int n)
{
    uint32_t ep = mm_stamp_mark(mm);
    for (int i = 0; i < n; i++) {
        int32_t l = links[i];
        if (l < 0 || l >= mm->n_link || mm->lk[l].lmark == ep) {
            return TN_SIM_ERR_INVAL;
        }
        mm->lk[l].lmark = ep;
    }
    int32_t off = mm_pool_alloc(mm, n);
    if (off < 0) {
        return TN_SIM_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++) {
        int32_t l = links[i], p = off + i;
        if (mm->lk[l].nfl == mm_lvec_cap(&mm->lk[l]) && mm_lvec_grow(mm, l) != 0) {
            return TN_SIM_ERR_NOMEM;  /* the hops before stay: a fatal error for the caller */
        }
        mm->lk[l].lvec[mm->lk[l].nfl] = -1 - p;
        mm->xpos[p] = mm->lk[l].nfl++;
        mm->xlink[p] = l;
        mm->xflow[p] = f;
    }
    mm->fl[f].nhop = 0;
    mm->fl[f].xoff = off;
    mm->fl[f].xn = n;
    return TN_SIM_OK;
}

tn_sim_status_t tn_sim_mm_add(tn_sim_mm_t *mm, int32_t f, const int32_t *links, int n)
{
    if (f < 0 || f >= mm->fcap || mm->fl[f].state != TN_SIM_MM_FREE || n < 1 || n > mm->n_link) {
        return TN_SIM_ERR_INVAL;
    }
    if (n <= (1 << mm->hshift)) {
        for (int i = 0; i < n; i++) {
            int32_t l = links[i];
            if (l < 0 || l >= mm->n_link) {
                return TN_SIM_ERR_INVAL;
            }
        }
        int32_t base = f << mm->hshift;
        for (int i = 0; i < n; i++) {
            int32_t l = links[i];
            if (mm->lk[l].nfl == mm_lvec_cap(&mm->lk[l]) && mm_lvec_grow(mm, l) != 0) {
                return TN_SIM_ERR_NOMEM;  /* the hops before stay: a fatal error for the caller */
            }
            mm->lk[l].lvec[mm->lk[l].nfl] = base + i;
            mm->hop_pos[base + i] = mm->lk[l].nfl++;
            mm->hop_link[base + i] = l;
        }
        mm->fl[f].nhop = (uint8_t)n;
    } else {
        tn_sim_status_t st = mm_add_long(mm, f, links, n);
        if (st != TN_SIM_OK) {
            return st;
        }
    }
    mm->fl[f].rate = 0;
    mm->fl[f].state = TN_SIM_MM_ADDED;
    mm->fseq[f] = mm->seq++;
    mm->added[mm->nadded++] = f;
    mm->nactive++;
    return TN_SIM_OK;
}

tn_sim_status_t tn_sim_mm_remove(tn_sim_mm_t *mm, int32_t f)
{
    if (f < 0 || f >= mm->fcap || mm->fl[f].state != TN_SIM_MM_ACTIVE) {
        return TN_SIM_ERR_INVAL;
    }
    mm->fl[f].state = TN_SIM_MM_REMOVED;
    mm->removed[mm->nremoved++] = f;
    return TN_SIM_OK;
}

/* Takes a removed flow off its links for good. */
static void mm_unlink(tn_sim_mm_t *mm, int32_t f)
{
    int32_t n = mm->fl[f].nhop, base = f << mm->hshift;
    int32_t *hl = mm->hop_link + base, *hp = mm->hop_pos + base;
    if (n == 0) {
        n = mm->fl[f].xn;
        hl = mm->xlink + mm->fl[f].xoff;
        hp = mm->xpos + mm->fl[f].xoff;
    }
    for (int32_t i = 0; i < n; i++) {
        int32_t l = hl[i], pos = hp[i];
        int32_t last = --mm->lk[l].nfl;
        int32_t moved = mm->lk[l].lvec[last];
        mm->lk[l].lvec[pos] = moved;
        if (moved >= 0) {
            mm->hop_pos[moved] = pos;
        } else {
            mm->xpos[-1 - moved] = pos;
        }
        /* an empty link's load is exactly 0: rounding does not pile up */
        mm->lk[l].load = mm->lk[l].nfl == 0 ? 0 : mm->lk[l].load - mm->fl[f].rate;
    }
    if (mm->fl[f].nhop == 0) {
        for (int32_t i = 0; i < n; i++) {
            mm->xflow[mm->fl[f].xoff + i] = -1;
        }
        mm->xlive -= n;
    }
    mm->fl[f].state = TN_SIM_MM_FREE;
    mm->fl[f].rate = 0;
    mm->nactive--;
}

static inline void mm_aff_push(tn_sim_mm_t *mm, int32_t f, double old)
{
    mm->fl[f].fmark = mm->aep;
    mm->aff_old[mm->naff] = old;
    mm->aff[mm->naff++] = f;
}

/* Enqueues the tight links of flow f not yet visited in this BFS.  No
 * load changes during a search, so a link is judged once, here, on the
 * cache line its mark is on: most links are slack and never queued. */
static inline int32_t mm_push_links(tn_sim_mm_t *mm, int32_t f, uint32_t lep, int32_t nq)
{
    int32_t n;
    const int32_t *hl = tn_sim_mm_links(mm, f, &n);
    for (int32_t i = 0; i < n; i++) {
        int32_t l = hl[i];
        if (mm->lk[l].lmark != lep) {
            mm->lk[l].lmark = lep;
            if (mm_tight(mm, l)) {
                mm->lq[nq++] = l;
            }
        }
    }
    return nq;
}

/* Breadth-first through tight links: a flow whose bottleneck is a link
 * in the queue (all tight) joins A (its rate may move with that link's
 * load), and its tight links join the queue. */
static void mm_bfs(tn_sim_mm_t *mm, int32_t nq, uint32_t lep)
{
    for (int32_t head = 0; head < nq; head++) {
        /* the queue is known a little ahead: its links' lists' first
         * entries (the entries themselves were read when queued) */
        if (head + PF_AHEAD / 4 < nq) {
            __builtin_prefetch(mm->lk[mm->lq[head + PF_AHEAD / 4]].lvec);
        }
        int32_t l = mm->lq[head];
        /* the flows that join first, then their links, in the same
         * order as one at a time: the scattered reads of each pass are
         * prefetched a few flows ahead */
        const int32_t *v = mm->lk[l].lvec;
        int32_t a0 = mm->naff;
        for (int32_t i = 0, n = mm->lk[l].nfl; i < n; i++) {
            if (i + PF_AHEAD < n && v[i + PF_AHEAD] >= 0) {
                __builtin_prefetch(&mm->fl[v[i + PF_AHEAD] >> mm->hshift].bneck);
            }
            int32_t g = tn_sim_mm_slot_flow(mm, v[i]);
            /* the bottleneck first: one load per flow for most of them */
            if (mm->fl[g].bneck != l || mm->fl[g].state != TN_SIM_MM_ACTIVE ||
                mm->fl[g].fmark == mm->aep) {
                continue;
            }
            mm_aff_push(mm, g, mm->fl[g].rate);
        }
        for (int32_t i = a0, n = mm->naff; i < n; i++) {
            mm_prefetch_walk(mm, mm->aff, i, n, mm->lk, sizeof(*mm->lk));
            nq = mm_push_links(mm, mm->aff[i], lep, nq);
        }
    }
}

/* Heap of local links by (share, local index). */
static inline int mm_hless(const tn_sim_mm_hent_t *a, const tn_sim_mm_hent_t *b)
{
    return a->key < b->key || (a->key == b->key && a->li < b->li);
}

/* 4-ary: half the depth of a binary heap, and a node's children share a
 * cache line or two. */
static void mm_hdown(tn_sim_mm_hent_t *h, int32_t n, int32_t i)
{
    tn_sim_mm_hent_t e = h[i];
    for (;;) {
        int32_t c = 4 * i + 1;
        if (c >= n) {
            break;
        }
        int32_t best = c, end = c + 4 < n ? c + 4 : n;
        for (int32_t j = c + 1; j < end; j++) {
            if (mm_hless(&h[j], &h[best])) {
                best = j;
            }
        }
        if (!mm_hless(&h[best], &e)) {
            break;
        }
        h[i] = h[best];
        i = best;
    }
    h[i] = e;
}

/* A link's share of what is left among its unfrozen flows. */
static inline double mm_share(const tn_sim_mm_t *mm, int32_t li)
{
    double rem = mm->lrem[li];
    return (rem > 0 ? rem : 0) / mm->lcnt[li];
}

/* Water-filling of A, every other flow's rate fixed: nrate / nbneck.
 * full: A is every flow, the residual is the whole capacity.  The heap
 * holds one entry per link whose key may be stale: shares only grow as
 * flows freeze, so an entry's key is never above its link's share, and
 * when the least entry's key is its link's share it is the least share
 * of all; a stale one goes back in with its share (lazy update: a push
 * per pop at most, not per change). */
static void mm_fill(tn_sim_mm_t *mm, int full)
{
    uint32_t base = mm_stamp(mm, (uint32_t)mm->n_link);
    int32_t nl = 0, naff = mm->naff;
    /* A's hops as local link numbers, once: the passes below read them in
     * order instead of looking links up all over the fabric's arrays */
    int32_t *ahl = mm->ahl, *aoff = mm->aoff;
    aoff[0] = 0;
    for (int32_t i = 0; i < naff; i++) {
        mm_prefetch_walk(mm, mm->aff, i, naff, mm->lk, sizeof(*mm->lk));
        int32_t f = mm->aff[i], n;
        const int32_t *hl = tn_sim_mm_links(mm, f, &n);
        int32_t *row = ahl + aoff[i];
        aoff[i + 1] = aoff[i] + n;
        for (int32_t k = 0; k < n; k++) {
            int32_t l = hl[k];
            uint32_t m = mm->lk[l].lmark;
            if (m < base) {
                m = base + (uint32_t)nl;
                mm->lk[l].lmark = m;
                mm->lglob[nl] = l;
                mm->lsum[nl] = 0;
                mm->lcnt[nl] = 0;
                nl++;
            }
            int32_t li = (int32_t)(m - base);
            row[k] = li;
            mm->lsum[li] += mm->aff_old[i];
            mm->lcnt[li]++;
        }
    }
    mm->stamp = base + (uint32_t)nl;
    mm->ladj_off[0] = 0;
    for (int32_t li = 0; li < nl; li++) {
        mm->ladj_off[li + 1] = mm->ladj_off[li] + mm->lcnt[li];
        mm->lver[li] = (uint32_t)mm->ladj_off[li];  /* fill cursor */
        int32_t l = mm->lglob[li];
        mm->lrem[li] = full ? mm->lk[l].cap : mm->lk[l].cap - (mm->lk[l].load - mm->lsum[li]);
        mm->lsum[li] = 0;
        mm->lslb[li] = mm_share(mm, li);  /* for the lower bounds below, once per link */
    }
    /* Links that cannot fill stay out of the heap.  Bounds on what a flow
     * of A will get: at least lb = min over its links of residual / count
     * (a link fills at a level no lower than that), at most ub = min over
     * its links of the residual less the other flows' lb.  A link whose
     * residual is above the sum of its flows' ub never fills.  A flow's
     * tightest link stays (its residual less the others' lb is its ub, so
     * it is not above the sum), so every flow keeps a link in the heap. */
    double *lb = mm->aff_tmp;
    for (int32_t i = 0; i < naff; i++) {
        const int32_t *row = ahl + aoff[i];
        int32_t n = aoff[i + 1] - aoff[i];
        double x = INFINITY;
        for (int32_t k = 0; k < n; k++) {
            int32_t li = row[k];
            mm->ladj[mm->lver[li]++] = i;
            double r = mm->lslb[li];
            x = r < x ? r : x;
        }
        lb[i] = x;
        for (int32_t k = 0; k < n; k++) {
            mm->lsum[row[k]] += x;
        }
        mm->frozen[i] = 0;
    }
    for (int32_t li = 0; li < nl; li++) {
        mm->lslb[li] = mm->lsum[li];
        mm->lsum[li] = 0;
    }
    for (int32_t i = 0; i < naff; i++) {
        const int32_t *row = ahl + aoff[i];
        int32_t n = aoff[i + 1] - aoff[i];
        double ub = INFINITY;
        int32_t best = -1;
        for (int32_t k = 0; k < n; k++) {
            int32_t li = row[k];
            double r = mm->lrem[li] - (mm->lslb[li] - lb[i]);
            if (r < ub) {
                ub = r;
                best = li;
            }
        }
        mm->nbneck[i] = best;  /* its tightest link, for the check below (set for good by the filling) */
        ub = ub > 0 ? ub : 0;
        for (int32_t k = 0; k < n; k++) {
            mm->lsum[row[k]] += ub;
        }
    }
    /* lsum becomes the mark "in the heap" (1) or not (0); a margin and a
     * check keep rounding from leaving a flow with no link in the heap */
    for (int32_t li = 0; li < nl; li++) {
        mm->lsum[li] = mm->lrem[li] > mm->lsum[li] * (1 + 1e-9) + 1e-300 ? 0 : 1;
    }
    for (int32_t i = 0; i < naff; i++) {
        const int32_t *row = ahl + aoff[i];
        int32_t n = aoff[i + 1] - aoff[i];
        int32_t in = 0;
        for (int32_t k = 0; k < n && !in; k++) {
            in = mm->lsum[row[k]] != 0;
        }
        if (!in) {
            mm->lsum[mm->nbneck[i]] = 1;
        }
    }
    tn_sim_mm_hent_t *h = mm->heap;
    int32_t nh = 0;
    for (int32_t li = 0; li < nl; li++) {
        if (mm->lsum[li] != 0) {
            h[nh++] = (tn_sim_mm_hent_t){.key = mm_share(mm, li), .li = li};
        }
    }
    for (int32_t i = nh / 4; i >= 0 && nh > 1; i--) {
        mm_hdown(h, nh, i);
    }
    int32_t nfrozen = 0;
    while (nh > 0 && nfrozen < naff) {
        int32_t li = h[0].li;
        if (mm->lcnt[li] == 0) {
            h[0] = h[--nh];  /* every flow of it froze elsewhere */
            mm_hdown(h, nh, 0);
            continue;
        }
        double s = mm_share(mm, li);
        if (s != h[0].key) {
            h[0].key = s;    /* stale: back in with its share */
            mm_hdown(h, nh, 0);
            continue;
        }
        h[0] = h[--nh];
        mm_hdown(h, nh, 0);
        int32_t bl = mm->lglob[li];
        for (int32_t a = mm->ladj_off[li]; a < mm->ladj_off[li + 1]; a++) {
            int32_t j = mm->ladj[a];
            if (mm->frozen[j]) {
                continue;
            }
            mm->frozen[j] = 1;
            nfrozen++;
            mm->nrate[j] = s;
            mm->nbneck[j] = bl;
            const int32_t *row = ahl + aoff[j];
            for (int32_t k = 0, n = aoff[j + 1] - aoff[j]; k < n; k++) {
                mm->lrem[row[k]] -= s;
                mm->lcnt[row[k]]--;
            }
        }
    }
}

/* The check of A's bottlenecks: a flow outside A with a higher rate on the
 * link where a flow of A froze joins A (at the end of aff).  Returns how
 * many joined. */
static int32_t mm_check(tn_sim_mm_t *mm)
{
    uint32_t ce = mm_stamp_mark(mm);
    int32_t nviol = 0, naff = mm->naff;
    for (int32_t i = 0; i < naff; i++) {
        int32_t b = mm->nbneck[i];
        if (mm->lk[b].lmark == ce) {
            continue;
        }
        mm->lk[b].lmark = ce;
        double limit = mm->nrate[i] * (1 + MM_EPS) + 1e-300;
        const int32_t *v = mm->lk[b].lvec;
        for (int32_t k = 0, n = mm->lk[b].nfl; k < n; k++) {
            int32_t g = tn_sim_mm_slot_flow(mm, v[k]);
            if (mm->fl[g].fmark == mm->aep || mm->fl[g].state != TN_SIM_MM_ACTIVE || mm->fl[g].rate <= limit) {
                continue;
            }
            mm_aff_push(mm, g, mm->fl[g].rate);
            nviol++;
        }
    }
    return nviol;
}

/* The new rates become the rates; link loads follow (full: from scratch). */
static void mm_commit(tn_sim_mm_t *mm, int full)
{
    int32_t n;
    if (full) {
        for (int32_t i = 0; i < mm->naff; i++) {
            const int32_t *hl = tn_sim_mm_links(mm, mm->aff[i], &n);
            for (int32_t k = 0; k < n; k++) {
                mm->lk[hl[k]].load = 0;
            }
        }
    }
    for (int32_t i = 0; i < mm->naff; i++) {
        mm_prefetch_walk(mm, mm->aff, i, mm->naff, mm->lk, sizeof(*mm->lk));
        int32_t f = mm->aff[i];
        const int32_t *hl = tn_sim_mm_links(mm, f, &n);
        double d = full ? mm->nrate[i] : mm->nrate[i] - mm->aff_old[i];
        for (int32_t k = 0; k < n; k++) {
            mm->lk[hl[k]].load += d;
        }
        mm->fl[f].rate = mm->nrate[i];
        mm->fl[f].bneck = mm->nbneck[i];
    }
}

tn_sim_status_t tn_sim_mm_solve(tn_sim_mm_t *mm)
{
    mm->naff = 0;
    if (mm->nadded == 0 && mm->nremoved == 0) {
        return TN_SIM_OK;
    }
    mm->solves++;
    mm->aep++;
    /* seeds: the new flows, and the links of every changed flow, judged
     * tight as they were (the ending flows still on them) */
    uint32_t lep = mm_stamp_mark(mm);
    int32_t nq = 0;
    for (int32_t i = 0; i < mm->nadded; i++) {
        int32_t f = mm->added[i];
        mm_aff_push(mm, f, 0);
        nq = mm_push_links(mm, f, lep, nq);
    }
    for (int32_t i = 0; i < mm->nremoved; i++) {
        nq = mm_push_links(mm, mm->removed[i], lep, nq);
    }
    mm_bfs(mm, nq, lep);
    for (int32_t i = 0; i < mm->nremoved; i++) {
        mm_prefetch_walk(mm, mm->removed, i, mm->nremoved, mm->lk, sizeof(*mm->lk));
        mm_unlink(mm, mm->removed[i]);
    }
    for (int32_t i = 0; i < mm->nadded; i++) {
        mm->fl[mm->added[i]].state = TN_SIM_MM_ACTIVE;
    }
    mm->nremoved = mm->nadded = 0;
    while (mm->naff > 0) {
        mm_fill(mm, 0);
        int32_t a0 = mm->naff;
        if (mm_check(mm) == 0) {
            break;
        }
        mm->expansions++;
        lep = mm_stamp_mark(mm);  /* the violators' links are looked at afresh */
        nq = 0;
        for (int32_t i = a0; i < mm->naff; i++) {
            nq = mm_push_links(mm, mm->aff[i], lep, nq);
        }
        mm_bfs(mm, nq, lep);
    }
    mm_commit(mm, 0);
    mm->touched += (uint64_t)mm->naff;
    return TN_SIM_OK;
}

/* A solve from scratch begins: the batch's ends unlinked, its starts
 * active, every active flow affected (with its rate before). */
static void mm_take_all(tn_sim_mm_t *mm)
{
    for (int32_t i = 0; i < mm->nremoved; i++) {
        mm_unlink(mm, mm->removed[i]);
    }
    for (int32_t i = 0; i < mm->nadded; i++) {
        mm->fl[mm->added[i]].state = TN_SIM_MM_ACTIVE;
    }
    mm->nremoved = mm->nadded = 0;
    mm->naff = 0;
    mm->solves++;
    mm->aep++;
    for (int32_t f = 0; f < mm->fcap; f++) {
        if (mm->fl[f].state == TN_SIM_MM_ACTIVE) {
            mm_aff_push(mm, f, mm->fl[f].rate);
        }
    }
}

tn_sim_status_t tn_sim_mm_solve_full(tn_sim_mm_t *mm)
{
    mm_take_all(mm);
    if (mm->naff > 0) {
        mm_fill(mm, 1);
        mm_commit(mm, 1);
    }
    mm->touched += (uint64_t)mm->naff;
    return TN_SIM_OK;
}

/* aff[] (with aff_old[]) in add order: an insertion sort, the flows being
 * mostly in that order already (ids are reused, so not quite) */
static void mm_fifo_order(tn_sim_mm_t *mm)
{
    for (int32_t i = 1; i < mm->naff; i++) {
        int32_t f = mm->aff[i], j = i;
        double old = mm->aff_old[i];
        uint64_t q = mm->fseq[f];
        while (j > 0 && mm->fseq[mm->aff[j - 1]] > q) {
            mm->aff[j] = mm->aff[j - 1];
            mm->aff_old[j] = mm->aff_old[j - 1];
            j--;
        }
        mm->aff[j] = f;
        mm->aff_old[j] = old;
    }
}

tn_sim_status_t tn_sim_mm_solve_fifo(tn_sim_mm_t *mm)
{
    int32_t n;

    if (mm->fres == NULL && (mm->fres = malloc(sizeof(double) * ((size_t)mm->n_link + 1))) == NULL) {
        return TN_SIM_ERR_NOMEM;
    }
    mm_take_all(mm);
    mm_fifo_order(mm);
    for (int32_t i = 0; i < mm->naff; i++) {
        const int32_t *hl = tn_sim_mm_links(mm, mm->aff[i], &n);
        for (int32_t k = 0; k < n; k++) {
            mm->fres[hl[k]] = mm->lk[hl[k]].cap;
        }
    }
    for (int32_t i = 0; i < mm->naff; i++) {
        const int32_t *hl = tn_sim_mm_links(mm, mm->aff[i], &n);
        double r = INFINITY;
        int32_t b = hl[0];
        for (int32_t k = 0; k < n; k++) {
            if (mm->fres[hl[k]] < r) {
                r = mm->fres[hl[k]];
                b = hl[k];
            }
        }
        /* what is left below the tolerance is nothing (rounding) */
        r = r > 1e-9 * mm->lk[b].cap ? r : 0;
        for (int32_t k = 0; k < n; k++) {
            mm->fres[hl[k]] -= r;
        }
        mm->nrate[i] = r;
        mm->nbneck[i] = b;
    }
    mm_commit(mm, 1);
    mm->touched += (uint64_t)mm->naff;
    return TN_SIM_OK;
}
