/* Collectives through shared memory (not for use outside coll/).
 *
 * A communicator whose ranks all sit on this node and talk through the shm
 * transport may take one of the node segment's collective slots
 * (tn_xport_shm_coll_claim).  In its slot every comm rank r owns an area:
 * one cache line with its counter posted[r], then W = TN_COLL_SHM_WORDS
 * words, then B = TN_XPORT_SHM_COLL_BUFS buffers of sh->bytes.  Collective
 * number s on the communicator (counted from 1 by every rank alike) uses
 * buffer s mod B and word s mod W of each area.
 *
 * posted[r] >= s says: r's data for collective s is in its buffer s mod B (if
 * it has any to give) and r is done reading every buffer of collectives
 * before s.  A rank with data stores it, then posts s; a rank that only
 * reads (a bcast's non-roots, a reduce's root) posts s when it has read.
 * Before r writes its buffer for s it makes sure the readers of the same
 * buffer at s - B are done: posted[j] >= s - B + 1 for every j
 * (tn_coll_shm_may_write), so a root may run up to B - 1 bcasts ahead of
 * its slowest reader; only W - 1 when it writes no data, only its word
 * (tn_coll_shm_may_say).  Posts are release stores followed by a fence
 * and a look at which ranks sleep, so a waiter may block (tn_rt_wait) and
 * still be woken.
 *
 * What r says about collective s is its word s mod W, stored before r posts
 * s and read by the others once they have seen the post; a copy sits in
 * the counter's line at s mod N (N = TN_COLL_SHM_NEAR), where a reader finds
 * it with the counter unless r has posted s + N - 1 since (a reader that
 * fell behind reads the word itself).  Every sized collective on a
 * communicator with a slot goes through it (coll.c), whatever the
 * algorithm, and its ranks say their sizes there before any of them picks
 * an algorithm.  The choice depends on
 * the size, so ranks whose counts disagree (a program error MPI does not
 * have to catch) would otherwise pick different algorithms and wait for
 * each other forever, or copy the wrong number of bytes:
 *   bcast, scatter: the root says its size and every rank picks the
 *     algorithm for it; a receiver whose own size differs takes part with
 *     a temporary of the root's size and keeps what fits (TN_ERR_TRUNCATE
 *     when that is not all of it, as a point-to-point receive);
 *   every other kind: every rank says its size (TN_COLL_SHM_DIFFER when
 *     its own send and receive sizes differ) and checks every rank's word
 *     before it uses that rank's data or starts a message algorithm, so a
 *     rank waits for no one it did not wait for before, except that a
 *     message algorithm starts once every rank has said its size.  All
 *     ranks that look see the same words; when they differ, nothing moves
 *     and every rank that receives (the root of a reduce or gather, every
 *     rank of the others) returns TN_ERR_TRUNCATE.  A reduce or gather
 *     rank other than the root whose data went into the slot has posted
 *     and gone: the root finds its word.
 *
 * The slot is claimed on the communicator's first shm collective, which is
 * collective: the ranks agree on one slot or fall back for good to the
 * point-to-point algorithms (tn_coll_shm_get). */
#ifndef TN_COLL_COLL_SHM_H
#define TN_COLL_COLL_SHM_H

#include <stdatomic.h>
#include "base/monitor.h"
#include "coll/coll_util.h"

#define TN_COLL_SHM_LINE 64
/* Words in the lines after the counter's: how far a root that sends its
 * data by messages may run ahead (a loop of long bcasts). */
#define TN_COLL_SHM_WORDS ((TN_XPORT_SHM_COLL_HDR - TN_COLL_SHM_LINE) / sizeof(uint64_t))
/* Copies of the latest words in the counter's own line, which a reader has
 * just fetched: reading one costs no cache miss. */
#define TN_COLL_SHM_NEAR (TN_COLL_SHM_LINE / sizeof(uint64_t) - 1)

_Static_assert(TN_COLL_SHM_WORDS > TN_XPORT_SHM_COLL_BUFS &&
                   TN_COLL_SHM_WORDS > TN_COLL_SHM_NEAR,
               "tn_coll_shm_may_write covers tn_coll_shm_may_say; words outlast their copies");

typedef struct tn_coll_shm {
    int       slot;
    int       n;
    uint64_t  seq;        /* collectives run through the slot so far */
    uint64_t  all_lb;     /* every rank's posted >= all_lb (seen) */
    size_t    bytes;      /* per buffer */
    char    **area;       /* comm rank -> its area */
    const int *world;     /* comm rank -> world rank (to wake it) */
} tn_coll_shm_t;

/* comm's slot, claimed on first use (collective: every rank calls it at the
 * same point of its collective sequence, from an algorithm that only runs
 * when TN_COLL_R_SHM holds).  *sh_p NULL: no slot, use another algorithm
 * (the same answer on every rank). */
tn_status_t tn_coll_shm_get(tn_comm_t *comm, tn_coll_shm_t **sh_p);

/* Wait until posted[r] >= s. */
void tn_coll_shm_wait(tn_coll_shm_t *sh, int r, uint64_t s);
/* Wait until every rank but me has posted s (and remember it). */
void tn_coll_shm_wait_all(tn_coll_shm_t *sh, int me, uint64_t s);
/* Post s for rank me and wake whoever sleeps. */
void tn_coll_shm_post(tn_coll_shm_t *sh, int me, uint64_t s);

static inline _Atomic uint64_t *tn_coll_shm_posted(const tn_coll_shm_t *sh, int r)
{
    return (_Atomic uint64_t *)sh->area[r];
}

static inline char *tn_coll_shm_buf(const tn_coll_shm_t *sh, int r, uint64_t s)
{
    return sh->area[r] + TN_XPORT_SHM_COLL_HDR +
           (size_t)(s % TN_XPORT_SHM_COLL_BUFS) * sh->bytes;
}

/* A word no size equals: "the sizes differ". */
#define TN_COLL_SHM_DIFFER UINT64_MAX

static inline _Atomic uint64_t *tn_coll_shm_word_p(const tn_coll_shm_t *sh, int r, uint64_t s)
{
    return (_Atomic uint64_t *)(sh->area[r] + TN_COLL_SHM_LINE) + s % TN_COLL_SHM_WORDS;
}

static inline _Atomic uint64_t *tn_coll_shm_near_p(const tn_coll_shm_t *sh, int r, uint64_t s)
{
    return (_Atomic uint64_t *)sh->area[r] + 1 + s % TN_COLL_SHM_NEAR;
}

/* Rank me says w about collective s (before it posts s; after
 * tn_coll_shm_may_say or tn_coll_shm_may_write).  The copy is stored with
 * release: a reader that sees it sees my earlier posts too. */
static inline void tn_coll_shm_say(tn_coll_shm_t *sh, int me, uint64_t s, uint64_t w)
{
    atomic_store_explicit(tn_coll_shm_word_p(sh, me, s), w, memory_order_relaxed);
    atomic_store_explicit(tn_coll_shm_near_p(sh, me, s), w, memory_order_release);
}

/* Say w about s and post s: the two stores back to back, so that a reader
 * spinning on my counter's line takes it over once, not twice. */
static inline void tn_coll_shm_say_post(tn_coll_shm_t *sh, int me, uint64_t s, uint64_t w)
{
    tn_coll_shm_say(sh, me, s, w);
    tn_coll_shm_post(sh, me, s);
}

/* What rank r said about collective s (once it has posted s).  The copy is
 * r's word for s unless r has since said s + N, which it does only after it
 * posted s + N - 1. */
static inline uint64_t tn_coll_shm_heard(const tn_coll_shm_t *sh, int r, uint64_t s)
{
    uint64_t w = atomic_load_explicit(tn_coll_shm_near_p(sh, r, s), memory_order_acquire);

    if (atomic_load_explicit(tn_coll_shm_posted(sh, r), memory_order_relaxed) <
        s + TN_COLL_SHM_NEAR - 1) {
        return w;
    }
    return atomic_load_explicit(tn_coll_shm_word_p(sh, r, s), memory_order_relaxed);
}

/* Wait until every rank but me has posted s; whether every one of them said
 * w. */
int tn_coll_shm_all_said(tn_coll_shm_t *sh, int me, uint64_t s, uint64_t w);
/* Log (debug) that rank r did not say w about s: the counts differ. */
void tn_coll_shm_differ(const tn_coll_shm_t *sh, int me, uint64_t s, int r, uint64_t w);

/* The next collective's number. */
static inline uint64_t tn_coll_shm_next(tn_coll_shm_t *sh)
{
    return ++sh->seq;
}

/* Before rank me writes its buffer for s: the readers of s - B are done. */
static inline void tn_coll_shm_may_write(tn_coll_shm_t *sh, int me, uint64_t s)
{
    const uint64_t b = TN_XPORT_SHM_COLL_BUFS;

    if (s > b && sh->all_lb < s - b + 1) {
        tn_coll_shm_wait_all(sh, me, s - b + 1);
    }
}

/* Before rank me says its word for s (and writes no buffer): the readers
 * of s - W are done. */
static inline void tn_coll_shm_may_say(tn_coll_shm_t *sh, int me, uint64_t s)
{
    const uint64_t w = TN_COLL_SHM_WORDS;

    if (s > w && sh->all_lb < s - w + 1) {
        tn_coll_shm_wait_all(sh, me, s - w + 1);
    }
}

/* Copy count elements of dt at buf into my buffer for s in dt's layout:
 * element 0 at tn_coll_shm_buf() - lo, lo from tn_coll_true_range (the
 * reduction kernels work on that layout). */
void tn_coll_shm_put_typed(tn_coll_shm_t *sh, int me, uint64_t s, const void *buf,
                           size_t count, const tn_dt_t *dt);
/* rbuf (count elements of dt, the user's) = b_0 op b_1 op ... op b_{n-1},
 * b_j the count elements from element off of rank j's typed buffer for s
 * (put_typed of total >= off + count elements; mine too),
 * waiting for each rank's post: rank order, the same bits everywhere.
 * TN_ERR_TRUNCATE when another rank did not say w about s (rbuf is then
 * undefined); every rank has posted s on return. */
tn_status_t tn_coll_shm_reduce(tn_coll_shm_t *sh, int me, uint64_t s, uint64_t w, void *rbuf,
                               size_t off, size_t count, size_t total, const tn_dt_t *dt,
                               const tn_op_t *op, tn_comm_t *comm);
/* Unpack every other rank's packed block of bytes for s into block j of
 * rbuf (uniform blocks rb), waiting for each; remembers that all posted.
 * A rank that did not say bytes about s: no copy, TN_ERR_TRUNCATE. */
tn_status_t tn_coll_shm_collect(tn_coll_shm_t *sh, int me, uint64_t s, size_t bytes,
                                void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm);
/* Whether count elements of dt fit a buffer typed (put_typed). */
static inline int tn_coll_shm_fits_typed(const tn_coll_shm_t *sh, size_t count,
                                         const tn_dt_t *dt)
{
    ptrdiff_t lo;

    return tn_coll_true_range(dt, count, &lo) <= sh->bytes &&
           (size_t)count * (size_t)(dt->extent < 0 ? -dt->extent : dt->extent) <= sh->bytes;
}

/* Pack count elements of dt at buf into my buffer for s (as bytes). */
static inline void tn_coll_shm_put_data(tn_coll_shm_t *sh, int me, uint64_t s,
                                        const void *buf, size_t count, const tn_dt_t *dt,
                                        size_t off, tn_comm_t *comm)
{
    size_t bytes = tn_dt_bytes(dt, count);

    tn_coll_copy(buf, count, dt, tn_coll_shm_buf(sh, me, s) + off, bytes, tn_dt_byte(), comm);
    tn_mon_wrote(bytes);
}

/* This rank read bytes of comm rank r's buffer (the monitor's matrix). */
static inline void tn_coll_shm_took(const tn_coll_shm_t *sh, int r, uint64_t bytes)
{
    tn_mon_took(sh->world[r], bytes);
}

#endif
