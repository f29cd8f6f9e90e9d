/* Decoding of one-sided requests: the one step between the wire and the
 * target's server (rma_proto.h). */
#include <string.h>
#include "rma/rma_proto.h"

/* Flags each type may carry. */
static const unsigned tn_rma_flags_ok[TN_RMA_NTYPES] = {
    [TN_RMA_PUT] = TN_RMA_F_DATA,
    [TN_RMA_ACC] = TN_RMA_F_DATA | TN_RMA_F_ELEMS,
    [TN_RMA_GACC] = TN_RMA_F_DATA | TN_RMA_F_ELEMS,
    [TN_RMA_LOCK] = TN_RMA_F_EXCLUSIVE,
};

static int is_data_type(unsigned t)
{
    return t >= TN_RMA_PUT && t <= TN_RMA_CAS;
}

#define BAD(why)          \
    do {                  \
        *why_p = (why);   \
        return TN_ERR_PROTO; \
    } while (0)

/* The local address of [disp + off, + len) if it lies inside mem, else NULL. */
static char *mem_at(const tn_rma_mem_t *mem, uint64_t disp, int64_t off, uint64_t len)
{
    /* a start before disp is fine as long as it is inside the window */
    uint64_t start = disp + (uint64_t)off;
    if ((off < 0 && (uint64_t)(-(off + 1)) >= disp) || (off > 0 && start < disp)) {
        return NULL;                                 /* wraps */
    }
    if (!mem->dynamic) {
        if (start > mem->size || len > mem->size - start) {
            return NULL;
        }
        return (char *)mem->base + start;
    }
    for (int i = 0; i < mem->nregions; i++) {
        const tn_rma_region_t *g = &mem->regions[i];
        if (start >= g->base && start - g->base <= g->size && len <= g->size - (start - g->base)) {
            return (char *)(uintptr_t)start;
        }
    }
    return NULL;
}

/* The padding after a request of need bytes: inside the message, zero. */
static int padded_ok(const void *msg, size_t len, size_t need)
{
    size_t end = TN_RMA_PADDED(need);
    if (end > len) {
        return 0;
    }
    for (size_t i = need; i < end; i++) {
        if (((const unsigned char *)msg)[i] != 0) {
            return 0;
        }
    }
    return 1;
}

tn_status_t tn_rma_decode(const void *msg, size_t len, const tn_rma_mem_t *mem,
                          tn_rma_req_t *r, size_t *used_p, const char **why_p)
{
    tn_rma_hdr_t h;
    tn_rma_req_t out;

    if (len < sizeof(h)) {
        BAD("shorter than a header");
    }
    memcpy(&h, msg, sizeof(h));
    if (h.version != TN_RMA_PROTO_VERSION) {
        BAD("of another protocol version (field version)");
    }
    if (h.type == 0 || h.type >= TN_RMA_NTYPES) {
        BAD("of an unknown type (field type)");
    }
    if ((h.flags & ~tn_rma_flags_ok[h.type]) != 0 || h.pad != 0) {
        BAD("with flags its type does not know (field flags)");
    }
    memset(&out, 0, sizeof(out));
    out.type = h.type;
    out.flags = h.flags;
    out.cookie = h.cookie;
    if (!is_data_type(h.type)) {
        if (h.nsegs != 0 || h.disp != 0 || h.bytes != 0 || h.op != 0 || h.basic != 0) {
            BAD("with a body its type does not have (field nsegs)");
        }
        if (!padded_ok(msg, len, sizeof(h))) {
            BAD("whose padding is missing or not zero (field bytes)");
        }
        *r = out;
        *used_p = TN_RMA_PADDED(sizeof(h));
        return TN_OK;
    }
    size_t body = len - sizeof(h);
    if (h.nsegs == 0 || h.nsegs > body / sizeof(tn_rma_seg_t)) {
        BAD("whose segments do not fit the message (field nsegs)");
    }
    size_t seg_bytes = (size_t)h.nsegs * sizeof(tn_rma_seg_t);
    const tn_rma_seg_t *segs = (const tn_rma_seg_t *)(const void *)((const char *)msg + sizeof(h));
    size_t room = body - seg_bytes;      /* for inline data and what follows */

    if (h.type == TN_RMA_ACC || h.type == TN_RMA_GACC || h.type == TN_RMA_CAS) {
        out.basic = tn_dt_predefined((uintptr_t)h.basic);
        if (out.basic == NULL || out.basic->size == 0 ||
            !out.basic->is_contig != ((h.flags & TN_RMA_F_ELEMS) != 0)) {
            BAD("naming no predefined element type it can use (fields basic, flags)");
        }
    }
    if (h.type == TN_RMA_ACC || h.type == TN_RMA_GACC) {
        out.op = tn_op_predefined((uintptr_t)h.op);
        if (out.op == NULL || !tn_op_valid_for(out.op, out.basic)) {
            BAD("naming no op valid for its element type (field op)");
        }
    }
    /* segments: inside the window, whole elements, summing to bytes */
    uint64_t sum = 0;
    for (uint32_t i = 0; i < h.nsegs; i++) {
        tn_rma_seg_t s;
        memcpy(&s, &segs[i], sizeof(s));
        if (s.len == 0 || s.len > h.bytes - sum) {
            BAD("whose segment lengths do not add up to its size (field segs)");
        }
        if (out.basic != NULL && s.len % out.basic->size != 0) {
            BAD("with a segment that is not whole elements (field segs)");
        }
        if (h.flags & TN_RMA_F_ELEMS) {
            if (s.len != out.basic->size || s.off > INT64_MAX - out.basic->true_lb ||
                mem_at(mem, h.disp, s.off + out.basic->true_lb,
                       (uint64_t)out.basic->true_extent) == NULL) {
                BAD("with an element reaching outside the window (fields disp, segs)");
            }
        } else if (mem_at(mem, h.disp, s.off, s.len) == NULL) {
            BAD("reaching outside the window (fields disp, segs)");
        }
        sum += s.len;
    }
    if (sum != h.bytes) {
        BAD("whose segment lengths do not add up to its size (field bytes)");
    }
    out.bytes = (size_t)h.bytes;
    out.segs = segs;
    out.nsegs = h.nsegs;
    /* segments were checked one by one; disp itself may lie outside the
     * window (a target type with a negative lower bound), so at is the
     * address disp names, never looked up */
    out.at = (char *)(uintptr_t)(mem->dynamic ? h.disp : (uint64_t)mem->base + h.disp);
    /* inline data */
    size_t want = 0;
    switch (h.type) {
    case TN_RMA_PUT:
    case TN_RMA_ACC:
    case TN_RMA_GACC:
        want = (h.flags & TN_RMA_F_DATA) ? 0 : out.bytes;
        if (h.type == TN_RMA_GACC && out.op->handle == TN_OP_H_NO_OP) {
            want = 0;                         /* fetch only: no origin data */
        }
        break;
    case TN_RMA_CAS:
        if (out.bytes != out.basic->size || h.nsegs != 1) {
            BAD("swapping more than one element (field bytes)");
        }
        want = 2 * out.bytes;
        break;
    default:                                  /* GET */
        want = 0;
        break;
    }
    if (want > room) {
        BAD("whose data does not match its size (field bytes)");
    }
    size_t need = sizeof(h) + seg_bytes + want;
    if (!padded_ok(msg, len, need)) {
        BAD("whose padding is missing or not zero (field bytes)");
    }
    out.data = want != 0 ? (const char *)msg + sizeof(h) + seg_bytes : NULL;
    *r = out;
    *used_p = TN_RMA_PADDED(need);
    return TN_OK;
}

tn_status_t tn_rma_ctl_decode(const void *msg, size_t len, uint32_t sent, uint32_t seen,
                              const char **why_p)
{
    uint64_t w[2];
    if (len != sizeof(w)) {
        BAD("answer of the wrong size (field bytes)");
    }
    memcpy(w, msg, sizeof(w));
    if (w[0] < TN_RMA_FLUSH || w[0] > TN_RMA_UNLOCK) {
        BAD("answer of an unknown type (field type)");
    }
    if ((int32_t)(sent - seen) <= 0 || w[1] != (uint64_t)(uint32_t)(seen + 1)) {
        BAD("answer that answers nothing it asked (field cookie)");
    }
    return TN_OK;
}
