/* Fuzz harness of the decode of one-sided requests (tn_rma_decode in
 * src/rma/rma_proto.c): a request is what another rank sent to the
 * window's target, hostile until decoded.
 *
 * Input: a byte m.  m == 0xff: a control answer (tn_rma_ctl_decode):
 * u32 sent, u32 seen, then the answer as it arrived; an accepted one must
 * be 16 bytes of a FLUSH, LOCK or UNLOCK type and cookie seen + 1 with an
 * answer outstanding.  Otherwise m is the window set-up, then the
 * description of the window
 * memory, then the request message as it arrived (at most
 * TN_RMA_REQ_MAX bytes; copied to a buffer of its exact size), whose
 * requests are decoded one after the other as the server does, each from
 * where the last one ended, until the message ends or one is refused.
 *   m & 1 == 0: a static window of (u16 N) % (FZ_ARENA - 64) bytes at 64
 *     bytes into an arena;
 *   m & 1 == 1: a dynamic window of ((m >> 1) & 3) + 1 regions, each
 *     (u8 gap, u16 size): it starts gap * 8 bytes after the previous one
 *     ends (rounded up to 8), size % 1024 bytes; then a byte k: when
 *     k < regions, each data request's disp (an address on the wire) is
 *     taken as an offset from region k's base and rewritten to that address, so
 *     the fuzzer reaches regions whose addresses it cannot know.
 * Every byte of the arena that is not window memory is poisoned (ASan), so
 * any touch outside the window is reported where it happens.
 *
 * A request the decode accepts is then carried out on the window memory
 * as the target's server does (rma_am.c's scatter, gather and accumulate
 * are static there and need a running job, so their steps are repeated
 * here on the decoded request: copies through r.at + off, tn_dt_pack /
 * tn_dt_unpack of padded elements, tn_op_apply), data that would follow
 * as a second message (F_DATA) made up by the harness at its declared size.
 *
 * Checked: a rejected request has a reason and leaves *r as it was; an
 * accepted one has a known type, flags its type knows, no body for control
 * types; for data types every segment is non-empty and lies inside the
 * window memory (static: [base, base + size]; dynamic: inside one region),
 * with F_ELEMS exactly one element of a non-contiguous predefined type
 * whose whole extent is inside, segment lengths summing to bytes and whole
 * elements; the inline data exactly what the type needs, followed by zero
 * padding to the next multiple of TN_RMA_ALIGN, where the request ends
 * (used) inside the message; op and element type predefined and valid
 * together. */
#include "rma/rma_proto.h"

#include <sanitizer/asan_interface.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_ARENA   4096
#define FZ_REGIONS 4

static void fz_fail(const char *what)
{
    fprintf(stderr, "fuzz_rma: %s\n", what);
    abort();
}

/* Is [lo, lo + len) inside the window memory?  (lo as an address.) */
static int fz_inside(const tn_rma_mem_t *mem, uint64_t lo, uint64_t len)
{
    if (lo + len < lo) {
        return 0;
    }
    if (!mem->dynamic) {
        return lo >= mem->base && lo + len <= mem->base + mem->size;
    }
    for (int i = 0; i < mem->nregions; i++) {
        const tn_rma_region_t *g = &mem->regions[i];
        if (lo >= g->base && lo + len <= g->base + g->size) {
            return 1;
        }
    }
    return 0;
}

/* The request ends at need bytes, padded: used is right and the padding zero. */
static void fz_check_end(const uint8_t *msg, size_t len, size_t need, size_t used)
{
    if (used != TN_RMA_PADDED(need) || used > len) {
        fz_fail("the request's length is not its padded size inside the message");
    }
    for (size_t i = need; i < used; i++) {
        if (msg[i] != 0) {
            fz_fail("accepted padding that is not zero");
        }
    }
}

static void fz_check(const tn_rma_req_t *r, const uint8_t *msg, size_t len, size_t used,
                     const tn_rma_mem_t *mem)
{
    tn_rma_hdr_t h;
    memcpy(&h, msg, sizeof(h));
    if (r->type == 0 || r->type >= TN_RMA_NTYPES || r->type != h.type) {
        fz_fail("accepted an unknown type");
    }
    unsigned known = r->type == TN_RMA_PUT ? TN_RMA_F_DATA
                     : r->type == TN_RMA_ACC || r->type == TN_RMA_GACC
                         ? TN_RMA_F_DATA | TN_RMA_F_ELEMS
                     : r->type == TN_RMA_LOCK ? TN_RMA_F_EXCLUSIVE
                                              : 0;
    if ((r->flags & ~known) != 0) {
        fz_fail("accepted flags its type does not know");
    }
    if (r->type > TN_RMA_CAS) {
        if (r->nsegs != 0 || r->bytes != 0 || r->data != NULL || h.disp != 0 ||
            h.op != 0 || h.basic != 0) {
            fz_fail("accepted a control request with a body");
        }
        fz_check_end(msg, len, sizeof(h), used);
        return;
    }
    if (r->nsegs == 0 || (const uint8_t *)r->segs != msg + sizeof(h) ||
        sizeof(h) + (size_t)r->nsegs * sizeof(tn_rma_seg_t) > len) {
        fz_fail("segments not inside the message");
    }
    if (r->type == TN_RMA_ACC || r->type == TN_RMA_GACC || r->type == TN_RMA_CAS) {
        if (r->basic == NULL || !r->basic->predefined || r->basic->size == 0 ||
            !r->basic->is_contig != ((r->flags & TN_RMA_F_ELEMS) != 0)) {
            fz_fail("accepted an element type it cannot use");
        }
    }
    if (r->type == TN_RMA_ACC || r->type == TN_RMA_GACC) {
        if (r->op == NULL || !r->op->predefined || !tn_op_valid_for(r->op, r->basic)) {
            fz_fail("accepted an op not valid for its element type");
        }
    }
    uint64_t sum = 0;
    for (uint32_t i = 0; i < r->nsegs; i++) {
        tn_rma_seg_t s;
        memcpy(&s, &r->segs[i], sizeof(s));
        uint64_t lo = (uint64_t)(uintptr_t)r->at + (uint64_t)s.off;
        if (s.len == 0) {
            fz_fail("accepted an empty segment");
        }
        if (r->basic != NULL && s.len % r->basic->size != 0) {
            fz_fail("accepted a segment of part of an element");
        }
        if (r->flags & TN_RMA_F_ELEMS) {
            if (s.len != r->basic->size ||
                !fz_inside(mem, lo + (uint64_t)r->basic->true_lb,
                           (uint64_t)r->basic->true_extent)) {
                fz_fail("accepted an element reaching outside the window");
            }
        } else if (!fz_inside(mem, lo, s.len)) {
            fz_fail("accepted a segment reaching outside the window");
        }
        sum += s.len;
    }
    if (sum != r->bytes || sum != h.bytes) {
        fz_fail("segment lengths do not add up to bytes");
    }
    size_t want = 0;
    if (r->type == TN_RMA_CAS) {
        if (r->nsegs != 1 || r->bytes != r->basic->size) {
            fz_fail("accepted a compare-and-swap of more than one element");
        }
        want = 2 * r->bytes;
    } else if (r->type != TN_RMA_GET && !(r->flags & TN_RMA_F_DATA) &&
               !(r->type == TN_RMA_GACC && r->op->handle == TN_OP_H_NO_OP)) {
        want = r->bytes;
    }
    size_t at = sizeof(h) + (size_t)r->nsegs * sizeof(tn_rma_seg_t);
    if ((want == 0) != (r->data == NULL) ||
        (want != 0 && (const uint8_t *)r->data != msg + at)) {
        fz_fail("inline data does not match the request");
    }
    fz_check_end(msg, len, at + want, used);
}

/* ---- the server's steps (rma_am.c), on the decoded request --------------- */

static void fz_scatter(const tn_rma_req_t *r, const char *in)
{
    for (uint32_t i = 0; i < r->nsegs; i++) {
        memcpy(r->at + r->segs[i].off, in, r->segs[i].len);
        in += r->segs[i].len;
    }
}

static void fz_gather(const tn_rma_req_t *r, char *out)
{
    for (uint32_t i = 0; i < r->nsegs; i++) {
        if (r->flags & TN_RMA_F_ELEMS) {
            tn_dt_pack(r->basic, r->at + r->segs[i].off, 1, out + i * r->basic->size);
        } else {
            memcpy(out, r->at + r->segs[i].off, r->segs[i].len);
            out += r->segs[i].len;
        }
    }
}

static void fz_accumulate(const tn_rma_req_t *r, const char *in)
{
    for (uint32_t i = 0; i < r->nsegs; i++) {
        char *at = r->at + r->segs[i].off;
        size_t len = r->segs[i].len;
        if (r->op->handle == TN_OP_H_NO_OP) {
            continue;
        }
        if (r->flags & TN_RMA_F_ELEMS) {
            _Alignas(16) char tmp[64];
            if ((size_t)r->basic->extent > sizeof(tmp)) {
                return;
            }
            if (r->op->handle == TN_OP_H_REPLACE) {
                tn_dt_unpack(r->basic, in, 1, at);
            } else {
                tn_dt_unpack(r->basic, in, 1, tmp);
                (void)tn_op_apply(r->op, r->basic, r->basic->handle, tmp, at, 1);
            }
        } else if (r->op->handle == TN_OP_H_REPLACE) {
            memcpy(at, in, len);
        } else {
            (void)tn_op_apply(r->op, r->basic, r->basic->handle, in, at, len / r->basic->size);
        }
        in += len;
    }
}

static void fz_serve(const tn_rma_req_t *r)
{
    char *apart = NULL, *old = NULL;
    const char *in = r->data;
    if (r->type > TN_RMA_CAS) {
        return;
    }
    if (r->flags & TN_RMA_F_DATA) {
        /* the second message, of exactly bytes bytes */
        if ((apart = malloc(r->bytes)) == NULL) {
            fz_fail("out of memory");
        }
        for (size_t i = 0; i < r->bytes; i++) {
            apart[i] = (char)(i * 7 + 1);
        }
        in = apart;
    }
    switch (r->type) {
    case TN_RMA_PUT:
        fz_scatter(r, in);
        break;
    case TN_RMA_ACC:
        fz_accumulate(r, in);
        break;
    case TN_RMA_GET:
    case TN_RMA_GACC:
    case TN_RMA_CAS:
        if ((old = malloc(r->bytes)) == NULL) {
            fz_fail("out of memory");
        }
        fz_gather(r, old);
        if (r->type == TN_RMA_GACC) {
            fz_accumulate(r, in);
        } else if (r->type == TN_RMA_CAS && memcmp(old, in, r->bytes) == 0) {
            memcpy(r->at + r->segs[0].off, in + r->bytes, r->bytes);
        }
        break;
    default:
        break;
    }
    free(old);
    free(apart);
}

static void fz_ctl(const uint8_t *data, size_t size)
{
    uint32_t sent, seen;
    if (size < 8) {
        return;
    }
    memcpy(&sent, data, 4);
    memcpy(&seen, data + 4, 4);
    size_t len = size - 8;
    uint8_t *msg = malloc(len != 0 ? len : 1);
    if (msg == NULL) {
        fz_fail("out of memory");
    }
    memcpy(msg, data + 8, len);
    const char *why = NULL;
    if (tn_rma_ctl_decode(msg, len, sent, seen, &why) != TN_OK) {
        if (why == NULL) {
            fz_fail("a rejected answer without a reason");
        }
    } else {
        uint64_t w[2];
        if (len != sizeof(w)) {
            fz_fail("accepted an answer of the wrong size");
        }
        memcpy(w, msg, sizeof(w));
        if (w[0] < TN_RMA_FLUSH || w[0] > TN_RMA_UNLOCK || w[1] != (uint64_t)(uint32_t)(seen + 1) ||
            (int32_t)(sent - seen) <= 0) {
            fz_fail("accepted an answer to nothing asked");
        }
    }
    free(msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char *arena;
    tn_rma_region_t regions[FZ_REGIONS];
    tn_rma_mem_t mem;
    size_t pos = 1;
    int reloc = -1;

    if (arena == NULL && (arena = aligned_alloc(64, FZ_ARENA)) == NULL) {
        fz_fail("out of memory");
    }
    if (size < 1) {
        return 0;
    }
    if (data[0] == 0xff) {
        fz_ctl(data + 1, size - 1);
        return 0;
    }
    memset(&mem, 0, sizeof(mem));
    ASAN_UNPOISON_MEMORY_REGION(arena, FZ_ARENA);
    memset(arena, 0, FZ_ARENA);
    ASAN_POISON_MEMORY_REGION(arena, FZ_ARENA);
    if (!(data[0] & 1)) {
        if (size < pos + 2) {
            return 0;
        }
        mem.base = (uintptr_t)arena + 64;
        mem.size = (uint64_t)(data[pos] | data[pos + 1] << 8) % (FZ_ARENA - 64);
        pos += 2;
        ASAN_UNPOISON_MEMORY_REGION((char *)mem.base, mem.size);
    } else {
        size_t end = 0;
        mem.dynamic = 1;
        mem.regions = regions;
        mem.nregions = (data[0] >> 1 & 3) + 1;
        for (int i = 0; i < mem.nregions; i++) {
            if (size < pos + 3) {
                return 0;
            }
            size_t start = ((end + 7) & ~(size_t)7) + (size_t)data[pos] * 8;
            size_t len = (size_t)(data[pos + 1] | data[pos + 2] << 8) % 1024;
            pos += 3;
            if (start > FZ_ARENA) {
                start = FZ_ARENA;
            }
            if (len > FZ_ARENA - start) {
                len = FZ_ARENA - start;
            }
            regions[i].base = (uintptr_t)arena + start;
            regions[i].size = len;
            ASAN_UNPOISON_MEMORY_REGION(arena + start, len);
            end = start + len;
        }
        if (size < pos + 1) {
            return 0;
        }
        reloc = data[pos] < mem.nregions ? data[pos] : -1;
        pos++;
    }
    size_t len = size - pos;
    if (len > TN_RMA_REQ_MAX) {
        len = TN_RMA_REQ_MAX;
    }
    uint8_t *msg = malloc(len != 0 ? len : 1);
    if (msg == NULL) {
        fz_fail("out of memory");
    }
    memcpy(msg, data + pos, len);

    size_t used = 0;
    for (size_t off = 0; off < len; off += used) {
        uint8_t *req = msg + off;
        size_t left = len - off;
        if (reloc >= 0 && left >= sizeof(tn_rma_hdr_t) &&
            req[offsetof(tn_rma_hdr_t, type)] <= TN_RMA_CAS) {
            uint64_t disp;
            memcpy(&disp, req + offsetof(tn_rma_hdr_t, disp), sizeof(disp));
            disp += (uint64_t)regions[reloc].base;
            memcpy(req + offsetof(tn_rma_hdr_t, disp), &disp, sizeof(disp));
        }
        tn_rma_req_t r, before;
        const char *why = NULL;
        size_t used_before = (size_t)0x5a5a5a5a;
        used = used_before;
        memset(&r, 0xa5, sizeof(r));
        memcpy(&before, &r, sizeof(r));
        if (tn_rma_decode(req, left, &mem, &r, &used, &why) != TN_OK) {
            if (why == NULL || memcmp(&r, &before, sizeof(r)) != 0 || used != used_before) {
                fz_fail("a rejected request without a reason, or *r or *used changed");
            }
            break;
        }
        fz_check(&r, req, left, used, &mem);
        fz_serve(&r);
        if (used == 0) {
            fz_fail("accepted a request of no bytes");
        }
    }
    free(msg);
    ASAN_UNPOISON_MEMORY_REGION(arena, FZ_ARENA);
    return 0;
}
