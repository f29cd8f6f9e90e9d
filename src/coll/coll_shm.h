/* Collectives through shared memory (not for use outside coll/).
 *
 * A communicator whose ranks all sit on this node and talk through the shm
 * transport may take one of the node segment's collective slots
 * (tn_xport_shm_coll_claim).  In its slot every comm rank r owns an area:
 * TN_XPORT_SHM_COLL_HDR bytes that start with its counter posted[r], then
 * B = TN_XPORT_SHM_COLL_BUFS buffers of sh->bytes.  Collective number s on the
 * communicator (counted from 1 by every rank alike) uses buffer s mod B of
 * each area.
 *
 * posted[r] >= s says: r's data for collective s is in its buffer s mod B (if
 * it has any to give) and r is done reading every buffer of collectives
 * before s.  A rank with data stores it, then posts s; a rank that only
 * reads (a bcast's non-roots, a reduce's root) posts s when it has read.
 * Before r writes its buffer for s it makes sure the readers of the same
 * buffer at s - B are done: posted[j] >= s - B + 1 for every j
 * (tn_coll_shm_may_write), so a root may run up to B - 1 bcasts ahead of
 * its slowest reader.  Posts are release stores followed by a fence
 * and a look at which ranks sleep, so a waiter may block (tn_rt_wait) and
 * still be woken.
 *
 * The slot is claimed on the communicator's first shm collective, which is
 * collective: the ranks agree on one slot or fall back for good to the
 * point-to-point algorithms (tn_coll_shm_get). */
#ifndef TN_COLL_COLL_SHM_H
#define TN_COLL_COLL_SHM_H

#include <stdatomic.h>
#include "coll/coll_util.h"

#define TN_COLL_SHM_LINE 64

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

/* Copy count elements of dt at buf into my buffer for s in dt's layout:
 * element 0 at tn_coll_shm_buf() - lo, lo from tn_coll_true_range (the
 * reduction kernels work on that layout). */
void tn_coll_shm_put_typed(tn_coll_shm_t *sh, int me, uint64_t s, const void *buf,
                           size_t count, const tn_dt_t *dt);
/* rbuf (count elements of dt, the user's) = b_0 op b_1 op ... op b_{n-1},
 * b_j the count elements from element off of rank j's typed buffer for s
 * (put_typed of total >= off + count elements; mine too),
 * waiting for each rank's post: rank order, the same bits everywhere. */
tn_status_t tn_coll_shm_reduce(tn_coll_shm_t *sh, int me, uint64_t s, void *rbuf,
                               size_t off, size_t count, size_t total, const tn_dt_t *dt,
                               const tn_op_t *op, tn_comm_t *comm);
/* Unpack every other rank's packed block of bytes for s into block j of
 * rbuf (uniform blocks rb), waiting for each; remembers that all posted. */
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
}

#endif
