/* Max-min fair rates of flows over capacitated links, kept up to date
 * INCREMENTALLY as flows start and end.
 *
 * The allocation is the unique one where no flow can get more without
 * taking from a flow that has no more than it: every flow crosses a
 * "bottleneck" link that is full and on which no flow has a higher rate.
 * Progressive filling (water-filling) finds it: raise every flow's rate
 * together; when a link fills, freeze the flows on it; repeat.
 *
 * What a change can touch (the facts this solver rests on; docs/sim.md
 * gives the argument).  An allocation is THE max-min one iff it is
 * feasible and every flow has a bottleneck; each flow remembers the link
 * it froze on.
 *  1. Search.  The affected set A starts with the flows that start, plus
 *     the flows whose bottleneck is a full ("tight") link of a flow that
 *     starts or ends; each flow that joins A brings in the flows
 *     bottlenecked on its tight links (breadth-first).  A slack link is
 *     nobody's bottleneck, so the search stops there.
 *  2. Refill.  A is refilled by progressive filling with every other
 *     flow's rate fixed (their load taken off the capacities); links that
 *     cannot fill (residual above the sum of upper bounds of their flows'
 *     rates) stay out of the heap.
 *  3. Check.  Every flow of A froze on a full link; if a flow outside A
 *     has a higher rate there, it joins A (with what it brings) and A is
 *     refilled.  A flow outside A keeps its rate and its bottleneck: a
 *     link crossed by A or by an ended flow was searched, so a flow
 *     bottlenecked on it is in A.  At worst A is every flow: from scratch.
 * So the result equals a from-scratch computation (test_sim_maxmin
 * checks it against a naive one on random cases) while the work is
 * proportional to A and the links it crosses.
 *
 * Links are integer ids with capacities (the engine uses port ids and
 * the topology's bandwidths); flows are integer ids the caller owns
 * (tn_sim_mm_reserve sizes the arrays).  Floating point: "full" and
 * "equal" are judged with a relative tolerance of 1e-9.
 *
 * Hop storage.  A flow of up to max_hops links (a route) keeps them in
 * fixed slots, 1 << hshift per flow: slot f << hshift | h, found by a
 * shift.  A longer one (a multicast tree: its rate charged once on each
 * of its links) keeps them in a pool, a contiguous range per flow
 * (xoff, xn), nhop 0 marking it; its slots on the links' lists are
 * negative, -1 - (pool index), and xflow maps them back.  Freed ranges
 * are reclaimed by compaction when the pool runs out (the moved slots
 * are renumbered on their links).  Routes never pay for trees: their
 * hops are found as before, one branch on nhop per flow and one on the
 * slot's sign per list entry. */
#ifndef TN_SIM_MAXMIN_H
#define TN_SIM_MAXMIN_H

#include <stddef.h>
#include <stdint.h>

#include "sim_status.h"

enum { TN_SIM_MM_FREE, TN_SIM_MM_ACTIVE, TN_SIM_MM_ADDED, TN_SIM_MM_REMOVED };

typedef struct {
    double key;   /* the link's share when it went in (stale once it grows) */
    int32_t li;   /* local link number */
} tn_sim_mm_hent_t;

/* What the search, the filling, the commit and the unlinking read of a
 * link, together: one cache line's half (the array is 64-byte aligned),
 * where separate arrays cost a miss each on a fabric of half a million
 * links. */
typedef struct {
    double load;             /* sum of the rates on it */
    double cap;
    int32_t *lvec;           /* hop slots (flow << hshift | hop) on it; lvec[-1]: capacity */
    int32_t nfl;             /* flows on it (added ones included) */
    uint32_t lmark;          /* stamp of the last visit or number (see stamp below) */
} tn_sim_mm_link_t;

/* What the search, the filling, the commit and the engine's rescheduling
 * read of a flow, together: 32 bytes, two to a cache line (the array is
 * 64-byte aligned), where an array per field cost a miss each for
 * flows whose ids are scattered over a million. */
typedef struct {
    double rate;
    int32_t bneck;           /* link it froze on */
    uint32_t fmark;          /* aep when in A */
    int32_t xoff, xn;        /* a long flow's range in the pool */
    uint8_t state;           /* TN_SIM_MM_* */
    uint8_t nhop;            /* hops in the fixed slots; 0: in the pool */
} tn_sim_mm_flow_t;

typedef struct {
    /* links */
    int32_t n_link;
    tn_sim_mm_link_t *lk;    /* [n_link] */
    /* flows */
    int hshift;              /* hop slots per flow = 1 << hshift */
    int32_t fcap;
    int32_t *hop_link;       /* [fcap << hshift] */
    int32_t *hop_pos;        /* [fcap << hshift] index in lvec */
    tn_sim_mm_flow_t *fl;    /* [fcap] */
    /* the pool of long flows' hops */
    int32_t *xlink, *xpos;   /* [xcap] link, index in lvec */
    int32_t *xflow;          /* [xcap] owner, -1: free */
    int32_t xcap, xend, xlive;  /* capacity, end of the used part, hops held */
    int32_t nactive;
    /* the pending batch */
    int32_t *added, nadded, cap_added;
    int32_t *removed, nremoved, cap_removed;
    /* the last solve's affected flows: aff[i], with aff_old[i] its rate
     * before (0 for a flow that started) and rate[aff[i]] now */
    int32_t *aff, naff;
    double *aff_old;
    /* first come, first served (tn_sim_mm_solve_fifo): each flow's add
     * number, and the links' residuals (allocated at its first solve) */
    uint64_t *fseq, seq;
    double *fres;
    /* scratch */
    /* stamps: aep marks A's members; stamp numbers the links' visits.  A
     * pass over links takes a base (mm_stamp): a search or a check marks a
     * link with the base itself, the filling numbers its links base,
     * base + 1, ... (its local numbers: lmark - base); marks below the
     * base are older passes'.  One field on the link's entry, which the
     * search has brought into the cache, not a second array the filling
     * would miss on. */
    uint32_t aep, stamp;
    int32_t *lq;             /* BFS queue of links */
    int32_t *lglob, *lcnt, *ladj_off, *ladj;
    uint32_t *lver;          /* fill cursor of ladj */
    double *lrem, *lsum, *lslb, *nrate, *aff_tmp;
    int32_t *ahl;            /* [(fcap << hshift) + xcap] A's hops as local link numbers */
    int32_t *aoff;           /* [fcap + 1] flow i of A's hops: ahl[aoff[i] .. aoff[i + 1]) */
    int32_t *nbneck;
    uint8_t *frozen;
    tn_sim_mm_hent_t *heap;
    int32_t scratch_links, scratch_flows;  /* sizes of the local arrays */
    int64_t scratch_adj;
    /* counters */
    uint64_t solves, touched, expansions, compactions;
} tn_sim_mm_t;

tn_sim_status_t tn_sim_mm_init(tn_sim_mm_t *mm, int32_t n_link, const double *cap, int max_hops);
void tn_sim_mm_fini(tn_sim_mm_t *mm);
/* Flow ids 0 .. n-1 usable. */
tn_sim_status_t tn_sim_mm_reserve(tn_sim_mm_t *mm, int32_t n);

/* A flow starts over links[0..n-1], n distinct links (above max_hops:
 * a long flow, held in the pool; its links are checked distinct); its
 * rate is set by the next solve.  f must be free. */
tn_sim_status_t tn_sim_mm_add(tn_sim_mm_t *mm, int32_t f, const int32_t *links, int n);
/* A flow ends; its capacity is handed on by the next solve, after which f
 * is free. */
tn_sim_status_t tn_sim_mm_remove(tn_sim_mm_t *mm, int32_t f);
/* Brings the rates up to date after the adds and removes since the last
 * solve (incrementally); aff / aff_old / naff say which flows changed. */
tn_sim_status_t tn_sim_mm_solve(tn_sim_mm_t *mm);
/* The same from scratch (every active flow refilled); for comparison. */
tn_sim_status_t tn_sim_mm_solve_full(tn_sim_mm_t *mm);
/* Not max-min: first come, first served (the flow level's share = fifo).
 * Every active flow, in the order it was added, gets what its links have
 * left after the flows added before it (the least residual on its path,
 * greedily); a flow may get 0 until earlier ones end.  From scratch at
 * every solve: O(flows x hops), for replays and small fabrics. */
tn_sim_status_t tn_sim_mm_solve_fifo(tn_sim_mm_t *mm);

/* The links of flow f (active, added or removed) and their number. */
static inline const int32_t *tn_sim_mm_links(const tn_sim_mm_t *mm, int32_t f, int32_t *n_p)
{
    int32_t n = mm->fl[f].nhop;
    if (n != 0) {
        *n_p = n;
        return mm->hop_link + ((size_t)f << mm->hshift);
    }
    *n_p = mm->fl[f].xn;
    return mm->xlink + mm->fl[f].xoff;
}

/* The flow of a slot on a link's list (lvec). */
static inline int32_t tn_sim_mm_slot_flow(const tn_sim_mm_t *mm, int32_t s)
{
    return s >= 0 ? s >> mm->hshift : mm->xflow[-1 - s];
}

static inline double tn_sim_mm_rate(const tn_sim_mm_t *mm, int32_t f)
{
    return mm->fl[f].rate;
}

/* Flows on a link: the flow engine's load oracle for adaptive routing. */
static inline int32_t tn_sim_mm_nflows(const tn_sim_mm_t *mm, int32_t link)
{
    return mm->lk[link].nfl;
}

/* The rates' sum on a link, and its hop slots (tn_sim_mm_slot_flow maps
 * them to flows), tn_sim_mm_nflows of them. */
static inline double tn_sim_mm_load(const tn_sim_mm_t *mm, int32_t link)
{
    return mm->lk[link].load;
}

/* A link's capacity (the solver's copy of what tn_sim_mm_init got). */
static inline double tn_sim_mm_cap(const tn_sim_mm_t *mm, int32_t link)
{
    return mm->lk[link].cap;
}

static inline const int32_t *tn_sim_mm_slots(const tn_sim_mm_t *mm, int32_t link)
{
    return mm->lk[link].lvec;
}

/* Naive reference (sim_maxmin_ref.c), for tests: progressive filling from
 * scratch over nf flows, flow i on links[off[i] .. off[i+1]-1]; rates out.
 * O(links * flows) per step; small cases only. */
tn_sim_status_t tn_sim_mm_reference(int32_t n_link, const double *cap, int32_t nf,
                                    const int32_t *off, const int32_t *links, double *rates);

#endif
