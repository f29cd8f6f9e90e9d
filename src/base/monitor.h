/* Where counters live, and the counting of messages and MPI calls for the
 * monitor (docs/monitor.md).
 *
 * Each layer's counter set is a struct it bumps with plain adds.  When the
 * rank publishes a stats segment (include/tern/stats.h, made by the
 * runtime at MPI_Init), the structs live in the segment, so a reader sees
 * them without the rank doing anything: a layer asks tn_mon_home() or
 * tn_mon_home_peer() for its struct's address when it starts, and gets its
 * own fallback when nothing is published.
 *
 * The MSG and PEER_MSG sets (counters_table.h) are bumped here, inline, by
 * every layer that starts a message: tn_mon_sent() is a handful of adds,
 * no branch that depends on whether anyone reads them.  Without a segment
 * every peer shares one scratch record (stride 0).
 *
 * Threads: every counter is bumped under the runtime's lock, except the
 * calls counts, which the entry points bump before taking it; with
 * MPI_THREAD_MULTIPLE two threads may then lose one of two updates (the
 * adds are relaxed loads and stores, not atomic additions). */
#ifndef TN_BASE_MONITOR_H
#define TN_BASE_MONITOR_H

#include <stddef.h>
#include <stdint.h>
#include "base/counters_table.h"

/* message classes (the CLASS axis) and protocols */
enum { TN_MON_P2P = 0, TN_MON_COLL = 1, TN_MON_RMA = 2 };
enum { TN_MON_EAGER = 0, TN_MON_RNDV = 1, TN_MON_DIRECT = 2 };

typedef struct {
    tn_msg_stats_t *msg;        /* the MSG set */
    char           *peer;       /* the PEER_MSG block of world rank 0's record */
    size_t          stride;     /* between records; 0 without a segment */
    unsigned        ndense;     /* world ranks with a record of their own */
    /* past ndense: */
    char           *node;       /* the PEER_MSG block of node 0's record */
    const int      *node_of;    /* world rank -> node */
    unsigned        nworld;     /* node_of's length */
    char           *other;      /* the record of ranks of other jobs
                                 * (dynamic processes) */
} tn_mon_t;

extern tn_mon_t tn_mon __attribute__((visibility("hidden")));

/* The size bucket of a message of n bytes (the SIZE axis). */
static inline unsigned tn_mon_bucket(uint64_t n)
{
    if (n <= 1) {
        return (unsigned)n;
    }
    unsigned k = 1u + (unsigned)(64 - __builtin_clzll(n - 1));
    return k < TN_CTR_SIZES - 1 ? k : TN_CTR_SIZES - 1;
}

static inline tn_peer_msg_stats_t *tn_mon_peer(int world)
{
    if ((unsigned)world < tn_mon.ndense) {
        return (tn_peer_msg_stats_t *)(void *)(tn_mon.peer + (size_t)world * tn_mon.stride);
    }
    if ((unsigned)world < tn_mon.nworld) {
        return (tn_peer_msg_stats_t *)(void *)(tn_mon.node +
                                               (size_t)tn_mon.node_of[world] * tn_mon.stride);
    }
    return (tn_peer_msg_stats_t *)(void *)tn_mon.other;
}

/* A message of bytes bytes of class cls started towards world rank world by
 * protocol proto. */
static inline void tn_mon_sent(int world, int cls, int proto, uint64_t bytes)
{
    tn_msg_stats_t *m = tn_mon.msg;
    int path = cls * TN_CTR_PROTOS + proto;
    m->msgs_sent[path]++;
    m->bytes_sent[path] += bytes;
    m->size_hist[tn_mon_bucket(bytes)]++;
    tn_peer_msg_stats_t *p = tn_mon_peer(world);
    p->msgs[cls]++;
    p->bytes[cls] += bytes;
}

/* bytes of collective data this rank wrote into shared memory, for its
 * peers to read (counted as one direct message). */
static inline void tn_mon_wrote(uint64_t bytes)
{
    tn_msg_stats_t *m = tn_mon.msg;
    int path = TN_MON_COLL * TN_CTR_PROTOS + TN_MON_DIRECT;
    m->msgs_sent[path]++;
    m->bytes_sent[path] += bytes;
    m->size_hist[tn_mon_bucket(bytes)]++;
}

/* bytes of collective data this rank read from world rank world's shared
 * buffer: the peer sent them; only the reader knows to whom. */
static inline void tn_mon_took(int world, uint64_t bytes)
{
    tn_peer_msg_stats_t *p = tn_mon_peer(world);
    p->coll_took++;
    p->coll_took_bytes += bytes;
}

/* An MPI call (an id of the generated tn_mon_call_names). */
static inline void tn_mon_call(unsigned id)
{
    uint64_t *c = &tn_mon.msg->calls[id];
    __atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

/* Where set's struct lives: in the segment, or fallback. */
void *tn_mon_home(tn_ctr_set_t set, void *fallback);
/* Where the struct of PEER set `set` towards world rank peer lives: its
 * record in the segment (shared by the peers of a node past the dense
 * ones), or fallback. */
void *tn_mon_home_peer(tn_ctr_set_t set, int peer, void *fallback);

/* ---- the segment's layout (the runtime makes the file) ----------------- */

typedef struct {
    int      peer_count;        /* world ranks with their own record */
    int      node_count;        /* node records */
} tn_mon_shape_t;

/* Bytes of a segment of this shape. */
size_t tn_mon_seg_size(const tn_mon_shape_t *shape);

/* Write the tables into mem (size bytes from tn_mon_seg_size, zeroed, page
 * aligned) and publish the counter sets there: from now on tn_mon_home()
 * points into it and tn_mon counts into it.  hdr fields other than the
 * layout's (identity) are the caller's; state stays STARTING until
 * tn_mon_seg_running().  node_of (world_size entries) must outlive it. */
void tn_mon_seg_build(void *mem, size_t size, const tn_mon_shape_t *shape,
                      const int *node_of, int world_size);
void tn_mon_seg_running(void *mem);
/* The line for the current call (tern_status_call_t) in the segment. */
void *tn_mon_seg_call_line(void *mem);

#endif
