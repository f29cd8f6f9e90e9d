/* Wire format of one-sided requests (rma_am.c) and their decoding.
 *
 * Requests travel in point-to-point messages on the window's context, tag
 * TN_RMA_TAG_REQ, from origin to target, one or more requests back to back
 * (the origin batches small puts and accumulates, rma_am.c), each
 *     tn_rma_hdr_t | nsegs x tn_rma_seg_t | inline data | zero padding
 * padded to a multiple of TN_RMA_ALIGN bytes so that the next header and
 * every inline element are aligned.
 * The segments are the target layout: byte offsets from the request's
 * displacement and lengths, in the order of the packed data.  Put and
 * accumulate data is inline, or (TN_RMA_F_DATA) follows as a second
 * message of hdr.bytes bytes, tag TN_RMA_TAG_DATA; compare-and-swap
 * carries compare value then origin value inline.  Results (get, get-
 * accumulate, fetch-and-op, compare-and-swap) go back as one message of
 * hdr.bytes bytes, tag TN_RMA_TAG_RESULT, in request order; control
 * answers (flush, lock, unlock) as two words, tag TN_RMA_TAG_CTL:
 * { type, cookie }.
 *
 * The target trusts none of it before tn_rma_decode: version and type
 * known, flags known to the type, sizes consistent with the message,
 * every segment inside the window (dynamic windows: inside one attached
 * region), op and element type predefined and legal together, segment
 * lengths whole elements (F_ELEMS: exactly one element, whose whole extent
 * is inside the window).  All multi-byte fields are host order: both
 * ends run the same build on one machine type (the job secret keeps
 * others out, DESIGN.md "Trust"). */
#ifndef TN_RMA_RMA_PROTO_H
#define TN_RMA_RMA_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include "base/status.h"
#include "dt/dt.h"
#include "dt/op.h"

#define TN_RMA_PROTO_VERSION 1

/* Tags on the window's point-to-point context. */
enum {
    TN_RMA_TAG_REQ = 1,
    TN_RMA_TAG_DATA = 2,
    TN_RMA_TAG_RESULT = 3,
    TN_RMA_TAG_CTL = 4,
    TN_RMA_TAG_POST = 5,
};

/* Request types (wire values). */
enum {
    TN_RMA_PUT = 1,
    TN_RMA_GET = 2,
    TN_RMA_ACC = 3,
    TN_RMA_GACC = 4,      /* get-accumulate and fetch-and-op */
    TN_RMA_CAS = 5,
    TN_RMA_FLUSH = 6,     /* answered by CTL FLUSH after earlier requests */
    TN_RMA_LOCK = 7,      /* answered by CTL LOCK when granted */
    TN_RMA_UNLOCK = 8,    /* answered by CTL UNLOCK */
    TN_RMA_COMPLETE = 9,  /* PSCW: the origin's access epoch ended */
    TN_RMA_NTYPES
};

/* Flags (wire values). */
#define TN_RMA_F_DATA      0x01u   /* PUT/ACC/GACC: data follows as TAG_DATA */
#define TN_RMA_F_EXCLUSIVE 0x02u   /* LOCK: exclusive */
#define TN_RMA_F_ELEMS     0x04u   /* ACC/GACC: one segment per element of a
                                    * padded element type (MPI_SHORT_INT ...):
                                    * off is where the element starts, len
                                    * its data bytes */

/* Largest request message; bigger data follows apart. */
#define TN_RMA_REQ_MAX 8192u
/* Every request starts at a multiple of this in its message. */
#define TN_RMA_ALIGN 16u
#define TN_RMA_PADDED(n) (((n) + TN_RMA_ALIGN - 1) & ~(size_t)(TN_RMA_ALIGN - 1))

typedef struct {
    uint8_t  version;   /* TN_RMA_PROTO_VERSION */
    uint8_t  type;      /* TN_RMA_* */
    uint8_t  flags;     /* TN_RMA_F_* */
    uint8_t  pad;       /* 0 */
    uint32_t nsegs;     /* segments after the header (data requests) */
    uint64_t disp;      /* byte displacement in the window (dynamic: address) */
    uint64_t bytes;     /* data bytes of the target layout */
    uint64_t op;        /* ACC/GACC: predefined op handle */
    uint64_t basic;     /* ACC/GACC/CAS: predefined element type handle */
    uint64_t cookie;    /* echoed in the control answer */
} tn_rma_hdr_t;

typedef struct {
    int64_t  off;       /* from disp */
    uint64_t len;
} tn_rma_seg_t;

/* A region attached to a dynamic window. */
typedef struct {
    uintptr_t base;
    size_t    size;
} tn_rma_region_t;

/* What a target accepts: its window memory. */
typedef struct {
    uintptr_t              base;       /* unused for dynamic windows */
    uint64_t               size;
    const tn_rma_region_t *regions;    /* dynamic windows */
    int                    nregions;
    int                    dynamic;
} tn_rma_mem_t;

/* A decoded request: addresses are checked and point into the window. */
typedef struct {
    unsigned             type;
    unsigned             flags;
    uint64_t             cookie;
    size_t               bytes;
    char                *at;         /* window memory at disp (local address) */
    const tn_rma_seg_t  *segs;
    uint32_t             nsegs;
    const tn_op_t       *op;
    const tn_dt_t       *basic;
    const void          *data;       /* inline data (bytes, or 2 x element: CAS) */
} tn_rma_req_t;

/* Check the first request of msg[0..len) against mem and fill *r and
 * *used_p (its padded length: the next request starts there; the message
 * ends when used reaches len).  TN_OK, or TN_ERR_PROTO with *why_p naming
 * the field.  Changes nothing else.  msg must be TN_RMA_ALIGN-aligned. */
tn_status_t tn_rma_decode(const void *msg, size_t len, const tn_rma_mem_t *mem,
                          tn_rma_req_t *r, size_t *used_p, const char **why_p);

/* A control answer (tag TN_RMA_TAG_CTL: two words { type, cookie }) from
 * a target to which I sent sent answered requests and from which I saw
 * seen answers: TN_OK when it is the next answer I wait for (type FLUSH,
 * LOCK or UNLOCK, cookie seen + 1, an answer outstanding); else
 * TN_ERR_PROTO with *why_p naming the field. */
tn_status_t tn_rma_ctl_decode(const void *msg, size_t len, uint32_t sent, uint32_t seen,
                              const char **why_p);

#endif
