/* Lock-free single-producer/single-consumer ring of fixed-size cells.
 *
 * Each cell carries its own sequence word, so a consumer polls exactly one
 * cache line per peer and a tiny message (header + inline payload) travels in
 * that same line.  Cell i of round k is free for the producer when
 * seq == k*N + i, published when seq == k*N + i + 1, and handed back by the
 * consumer with seq = (k+1)*N + i.  Positions are private to each side.
 *
 * The ring header line holds producer_waiting: a producer that found the
 * ring full sets it so the consumer wakes it after draining. */
#ifndef TN_XPORT_SHM_RING_H
#define TN_XPORT_SHM_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "xport/xport.h"

#define TN_SHM_CACHELINE 64

typedef struct {
    _Atomic uint64_t seq;
    uint32_t         len;        /* payload bytes after the header line */
    uint32_t         rsv;
    tn_am_hdr_t      hdr;        /* 48 bytes: the first line is exactly full */
} tn_shm_cell_t;                 /* payload starts at byte 64 of the cell */

_Static_assert(sizeof(tn_shm_cell_t) == TN_SHM_CACHELINE, "cell header is one line");

typedef struct {
    _Atomic uint32_t producer_waiting;
    uint32_t         rsv;
    /* A cooperative rendezvous copy from the ring's producer (the sender)
     * to its consumer (the receiver), shm.c: the receiver publishes it,
     * both claim chunks.  claim = id << 40 | next offset to claim (0: no
     * transfer); done = bytes copied (or given up) so far. */
    _Atomic uint64_t coop_claim;
    _Atomic uint64_t coop_done;
    _Atomic uint64_t coop_len;
    _Atomic uint64_t coop_raddr;     /* the receiver's buffer, in its address space */
    _Atomic uint32_t coop_failed;    /* a copy failed: the receiver sends it all again */
    char             pad[TN_SHM_CACHELINE - 44];
} tn_shm_ring_hdr_t;

_Static_assert(sizeof(tn_shm_ring_hdr_t) == TN_SHM_CACHELINE, "ring header is one line");

typedef struct {
    tn_shm_ring_hdr_t *hdr;
    char              *cells;     /* ncells * cell_size bytes */
    uint64_t           pos;       /* private position of this side */
    uint32_t           mask;      /* ncells - 1 */
    uint32_t           cell_size;
} tn_shm_ring_t;

static inline tn_shm_cell_t *tn_shm_ring_cell(const tn_shm_ring_t *r, uint64_t pos)
{
    return (tn_shm_cell_t *)(r->cells + (size_t)(pos & r->mask) * r->cell_size);
}

static inline void *tn_shm_cell_payload(tn_shm_cell_t *cell)
{
    return (char *)cell + TN_SHM_CACHELINE;
}

/* Producer: the next cell if free, else NULL. */
static inline tn_shm_cell_t *tn_shm_ring_reserve(tn_shm_ring_t *r)
{
    tn_shm_cell_t *cell = tn_shm_ring_cell(r, r->pos);
    if (atomic_load_explicit(&cell->seq, memory_order_acquire) != r->pos) {
        return NULL;
    }
    return cell;
}

/* Producer: make the reserved cell visible to the consumer. */
static inline void tn_shm_ring_publish(tn_shm_ring_t *r, tn_shm_cell_t *cell)
{
    atomic_store_explicit(&cell->seq, r->pos + 1, memory_order_release);
    r->pos++;
}

/* Consumer: the next published cell, or NULL. */
static inline tn_shm_cell_t *tn_shm_ring_peek(const tn_shm_ring_t *r)
{
    tn_shm_cell_t *cell = tn_shm_ring_cell(r, r->pos);
    if (atomic_load_explicit(&cell->seq, memory_order_acquire) != r->pos + 1) {
        return NULL;
    }
    return cell;
}

/* Consumer: hand the cell back to the producer. */
static inline void tn_shm_ring_release(tn_shm_ring_t *r, tn_shm_cell_t *cell)
{
    atomic_store_explicit(&cell->seq, r->pos + r->mask + 1, memory_order_release);
    r->pos++;
}

/* Initialise the cells of a fresh ring (creator only). */
static inline void tn_shm_ring_format(char *cells, uint32_t ncells, uint32_t cell_size)
{
    for (uint32_t i = 0; i < ncells; i++) {
        tn_shm_cell_t *cell = (tn_shm_cell_t *)(cells + (size_t)i * cell_size);
        atomic_store_explicit(&cell->seq, i, memory_order_relaxed);
    }
}

#endif
