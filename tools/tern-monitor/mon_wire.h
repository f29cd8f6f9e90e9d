/* What a node agent sends the server each second: one frame, the body of
 * an HTTP POST to /api/v1/ingest (docs/monitor.md).  No I/O here: an
 * encoder that appends to a buffer and a decoder that checks a whole frame
 * before it calls back with anything.
 *
 * A frame (all integers LEB128 varints, s: zigzag-signed varints, strings
 * a varint length then the bytes, at most TN_MON_WIRE_STR_MAX, printable):
 *   "TMW1" flags seq t_ms node agent_version
 *   then sections, each: type length payload (a reader skips types it
 *   does not know), the last one END (type 0, empty):
 *   DICT  n, then n metrics: id name class unit help key nelems elems...
 *         names the metric ids the JOB sections use, on this connection
 *   NIC   n, then n interfaces: name oper speed_mbps mtu nctr (idx value)...
 *         cumulative counters (idx: tn_mon_nic_if_ctr_name)
 *   SNMP  n (idx value)...  cumulative (idx: tn_mon_nic_snmp_ctr_name)
 *   IB    n, then n InfiniBand ports: device port state rate_mbps nctr
 *         (idx value)...  cumulative (idx: tn_mon_nic_ib_ctr_name; the data
 *         counters in bytes)
 *   JOB   job program uid world_size nnodes start_unix_ms nranks, then per
 *         rank: rank state pid node_id call in_call call_ms peer_count
 *         nvals (rec metric elem s:delta)...
 *         rec 0: the process; r >= 1: record r - 1 of its segment (peers
 *         0..peer_count-1, then its nodes)
 * Values are deltas since the previous frame on the same connection; a
 * frame with TN_MON_WIRE_FULL (the first of each connection) carries every
 * nonzero value from zero, and its DICT every metric.  A rank a frame does
 * not list did not change; a job it does not list has no rank left on the
 * node. */
#ifndef TN_MON_WIRE_H
#define TN_MON_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include "mon_buf.h"

#define TN_MON_WIRE_MAGIC    "TMW1"
#define TN_MON_WIRE_FULL     1u
#define TN_MON_WIRE_STR_MAX  1024
#define TN_MON_WIRE_MAX_ITEMS (1u << 22)   /* entries of one list */

enum {
    TN_MON_WIRE_END  = 0,           /* the last section, empty: a frame cut
                                     * at a section's end is still refused */
    TN_MON_WIRE_DICT = 1,
    TN_MON_WIRE_NIC  = 2,
    TN_MON_WIRE_SNMP = 3,
    TN_MON_WIRE_JOB  = 4,
    TN_MON_WIRE_IB   = 5,
};

/* A string inside the frame (not NUL-terminated). */
typedef struct {
    const char *p;
    size_t      n;
} tn_mon_wire_str_t;

typedef struct {
    uint32_t flags;
    uint64_t seq, t_ms;
    tn_mon_wire_str_t node, version;
} tn_mon_wire_head_t;

typedef struct {
    uint32_t          id;
    tn_mon_wire_str_t name, unit, help, key;
    uint32_t          cls;            /* TERN_STATS_COUNTER... */
    uint32_t          nelems;         /* 0: a scalar */
    const uint8_t    *elems;          /* nelems strings, walk with _next_str */
    size_t            elems_len;
} tn_mon_wire_metric_t;

typedef struct {
    tn_mon_wire_str_t name;
    uint32_t          oper, speed_mbps, mtu;
    uint32_t          nctr;
    uint32_t          idx[64];
    uint64_t          val[64];
} tn_mon_wire_nic_t;

typedef struct {
    tn_mon_wire_str_t dev;
    uint32_t          port, state;
    uint64_t          rate_mbps;
    uint32_t          nctr;
    uint32_t          idx[64];
    uint64_t          val[64];
} tn_mon_wire_ib_t;

typedef struct {
    tn_mon_wire_str_t job, program;
    uint32_t          uid, world_size, nnodes, nranks;
    uint64_t          start_ms;
} tn_mon_wire_job_t;

typedef struct {
    uint32_t          rank, state, pid, node_id, in_call, peer_count;
    tn_mon_wire_str_t call;
    uint64_t          call_ms;        /* 0: unknown, else ms + 1 */
    uint32_t          nvals;
    const uint8_t    *vals;           /* nvals (rec metric elem delta), _next_val */
    size_t            vals_len;
} tn_mon_wire_rank_t;

/* What a decoded frame calls (any may be NULL). */
typedef struct {
    void (*head)(void *arg, const tn_mon_wire_head_t *h);
    void (*metric)(void *arg, const tn_mon_wire_metric_t *m);
    void (*nic)(void *arg, const tn_mon_wire_nic_t *nic);
    void (*snmp)(void *arg, uint32_t idx, uint64_t value);
    void (*ib)(void *arg, const tn_mon_wire_ib_t *ib);
    void (*job)(void *arg, const tn_mon_wire_job_t *j);
    void (*rank)(void *arg, const tn_mon_wire_job_t *j, const tn_mon_wire_rank_t *r);
} tn_mon_wire_cb_t;

/* Check the whole frame, then (cb not NULL) call back in order.  0, or -1
 * with a reason in why and no call made. */
int tn_mon_wire_decode(const void *buf, size_t len, const tn_mon_wire_cb_t *cb, void *arg,
                       char *why, size_t whylen);

/* Call back through a frame tn_mon_wire_decode() has accepted (the same
 * bytes): no second check. */
void tn_mon_wire_walk(const void *buf, size_t len, const tn_mon_wire_cb_t *cb, void *arg);
/* Only the head of such a frame. */
void tn_mon_wire_walk_head(const void *buf, size_t len, const tn_mon_wire_cb_t *cb, void *arg);

/* Walk a checked list: the next element name of a metric, the next value
 * of a rank; 0 while there is one. */
int tn_mon_wire_next_str(const uint8_t **p, const uint8_t *end, tn_mon_wire_str_t *s);
int tn_mon_wire_next_val(const uint8_t **p, const uint8_t *end, uint32_t *rec, uint32_t *metric,
                         uint32_t *elem, int64_t *delta);

/* ---- encoding ---------------------------------------------------------- */

void tn_mon_wire_uint(tn_mon_buf_t *b, uint64_t v);
void tn_mon_wire_sint(tn_mon_buf_t *b, int64_t v);
void tn_mon_wire_str(tn_mon_buf_t *b, const char *s);
void tn_mon_wire_begin(tn_mon_buf_t *b, uint32_t flags, uint64_t seq, uint64_t t_ms,
                       const char *node, const char *version);
/* A section: begin returns where its length goes; end fills it in (the
 * payload is first written to a scratch buffer by the caller). */
void tn_mon_wire_section(tn_mon_buf_t *b, uint32_t type, const tn_mon_buf_t *payload);
/* The END section: the frame is complete. */
void tn_mon_wire_end(tn_mon_buf_t *b);

#endif
