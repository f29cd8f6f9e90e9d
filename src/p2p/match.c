/* Matching: posted receives and unexpected messages per context id.
 *
 * Receives from a known source sit in that source's bin, ANY_SOURCE
 * receives in one list; each carries a post sequence so that an arrival
 * takes the earliest matching post across both.  Unexpected messages sit in
 * their source's bin and, in arrival order, on one list for wildcard
 * receives.  The common case (known source, few tags) never scans far. */
#include "p2p/p2p_impl.h"

#include <stdlib.h>
#include <string.h>

#define TN_MATCH_BUCKETS 256

static tn_match_ctx_t *tn_match_table[TN_MATCH_BUCKETS];
static tn_match_ctx_t *tn_match_last;

static int tn_match_grow(tn_match_ctx_t *mc, int src)
{
    if (src < mc->nbins) {
        return 0;
    }
    int n = mc->nbins ? mc->nbins : 8;
    while (n <= src) {
        n *= 2;
    }
    tn_req_list_t *posted = realloc(mc->posted, (size_t)n * sizeof(*posted));
    if (posted == NULL) {
        return -1;
    }
    mc->posted = posted;
    tn_unexp_list_t *unexp = realloc(mc->unexp, (size_t)n * sizeof(*unexp));
    if (unexp == NULL) {
        return -1;
    }
    mc->unexp = unexp;
    memset(mc->posted + mc->nbins, 0, (size_t)(n - mc->nbins) * sizeof(*posted));
    memset(mc->unexp + mc->nbins, 0, (size_t)(n - mc->nbins) * sizeof(*unexp));
    mc->nbins = n;
    return 0;
}

tn_match_ctx_t *tn_match_ctx_get(uint32_t ctx, int create)
{
    if (tn_match_last != NULL && tn_match_last->ctx == ctx) {
        return tn_match_last;
    }
    tn_match_ctx_t **bucket = &tn_match_table[ctx % TN_MATCH_BUCKETS];
    for (tn_match_ctx_t *mc = *bucket; mc != NULL; mc = mc->hnext) {
        if (mc->ctx == ctx) {
            tn_match_last = mc;
            return mc;
        }
    }
    if (!create) {
        return NULL;
    }
    tn_match_ctx_t *mc = calloc(1, sizeof(*mc));
    if (mc == NULL) {
        return NULL;
    }
    mc->ctx = ctx;
    mc->hnext = *bucket;
    *bucket = mc;
    tn_match_last = mc;
    return mc;
}

const tn_comm_t *tn_match_comm(uint32_t ctx)
{
    const tn_match_ctx_t *mc = tn_match_ctx_get(ctx & ~TN_PART_CTX_BIT, 0);
    return mc != NULL ? mc->comm : NULL;
}

static int tn_tag_match(int want, int have)
{
    return want == have || want == TN_ANY_TAG;
}

static void tn_req_list_append(tn_req_list_t *l, struct tn_req *req)
{
    req->next = NULL;
    req->prev = l->tail;
    if (l->tail != NULL) {
        l->tail->next = req;
    } else {
        l->head = req;
    }
    l->tail = req;
}

static void tn_req_list_remove(tn_req_list_t *l, struct tn_req *req)
{
    if (req->prev != NULL) {
        req->prev->next = req->next;
    } else {
        l->head = req->next;
    }
    if (req->next != NULL) {
        req->next->prev = req->prev;
    } else {
        l->tail = req->prev;
    }
    req->next = req->prev = NULL;
}

void tn_match_post(tn_match_ctx_t *mc, struct tn_req *req)
{
    req->post_seq = ++mc->post_seq;
    req->in_posted = 1;
    if (++tn_p2p_st->posted_depth > tn_p2p_st->posted_max) {
        tn_p2p_st->posted_max = tn_p2p_st->posted_depth;
    }
    if (req->peer == TN_ANY_SOURCE) {
        tn_req_list_append(&mc->posted_any, req);
    } else {
        if (tn_match_grow(mc, req->peer) != 0) {
            /* out of memory: degrade to the wildcard list, still correct
             * because arrivals check the source there too */
            tn_req_list_append(&mc->posted_any, req);
            return;
        }
        tn_req_list_append(&mc->posted[req->peer], req);
    }
}

static tn_req_list_t *tn_match_list_of(tn_match_ctx_t *mc, struct tn_req *req)
{
    if (req->peer != TN_ANY_SOURCE && req->peer < mc->nbins) {
        for (struct tn_req *r = mc->posted[req->peer].head; r != NULL; r = r->next) {
            if (r == req) {
                return &mc->posted[req->peer];
            }
        }
    }
    return &mc->posted_any;
}

int tn_match_posted_remove(tn_match_ctx_t *mc, struct tn_req *req)
{
    if (!req->in_posted) {
        return 0;
    }
    tn_req_list_remove(tn_match_list_of(mc, req), req);
    req->in_posted = 0;
    tn_p2p_st->posted_depth--;
    return 1;
}

struct tn_req *tn_match_posted_take(tn_match_ctx_t *mc, int src, int tag)
{
    struct tn_req *best = NULL;
    tn_req_list_t *best_list = NULL;
    if (src < mc->nbins) {
        for (struct tn_req *r = mc->posted[src].head; r != NULL; r = r->next) {
            if (tn_tag_match(r->tag, tag)) {
                best = r;
                best_list = &mc->posted[src];
                break;
            }
        }
    }
    for (struct tn_req *r = mc->posted_any.head; r != NULL; r = r->next) {
        if (best != NULL && r->post_seq > best->post_seq) {
            break;
        }
        if ((r->peer == TN_ANY_SOURCE || r->peer == src) && tn_tag_match(r->tag, tag)) {
            best = r;
            best_list = &mc->posted_any;
            break;
        }
    }
    if (best != NULL) {
        tn_req_list_remove(best_list, best);
        best->in_posted = 0;
        tn_p2p_st->posted_depth--;
    }
    return best;
}

void tn_match_unexp_add(tn_match_ctx_t *mc, tn_unexp_t *ux)
{
    ux->ctx = mc->ctx;
    ux->snext = ux->gnext = NULL;
    if (tn_match_grow(mc, ux->src) != 0) {
        abort();   /* cannot queue an arrived message: nothing sane to do */
    }
    tn_unexp_list_t *sl = &mc->unexp[ux->src];
    ux->sprev = sl->tail;
    if (sl->tail != NULL) {
        sl->tail->snext = ux;
    } else {
        sl->head = ux;
    }
    sl->tail = ux;
    tn_unexp_list_t *gl = &mc->unexp_all;
    ux->gprev = gl->tail;
    if (gl->tail != NULL) {
        gl->tail->gnext = ux;
    } else {
        gl->head = ux;
    }
    gl->tail = ux;
    tn_p2p_st->unexpected++;
    if (++tn_p2p_st->unexp_depth > tn_p2p_st->unexp_max) {
        tn_p2p_st->unexp_max = tn_p2p_st->unexp_depth;
    }
}

static void tn_match_unexp_unlink(tn_match_ctx_t *mc, tn_unexp_t *ux)
{
    tn_unexp_list_t *sl = &mc->unexp[ux->src];
    if (ux->sprev) ux->sprev->snext = ux->snext; else sl->head = ux->snext;
    if (ux->snext) ux->snext->sprev = ux->sprev; else sl->tail = ux->sprev;
    tn_unexp_list_t *gl = &mc->unexp_all;
    if (ux->gprev) ux->gprev->gnext = ux->gnext; else gl->head = ux->gnext;
    if (ux->gnext) ux->gnext->gprev = ux->gprev; else gl->tail = ux->gprev;
    ux->snext = ux->sprev = ux->gnext = ux->gprev = NULL;
    tn_p2p_st->unexp_depth--;
}

tn_unexp_t *tn_match_unexp_find(tn_match_ctx_t *mc, int src, int tag, int take)
{
    tn_unexp_t *found = NULL;
    if (src == TN_ANY_SOURCE) {
        for (tn_unexp_t *ux = mc->unexp_all.head; ux != NULL; ux = ux->gnext) {
            if (tn_tag_match(tag, ux->tag)) {
                found = ux;
                break;
            }
        }
    } else if (src < mc->nbins) {
        for (tn_unexp_t *ux = mc->unexp[src].head; ux != NULL; ux = ux->snext) {
            if (tn_tag_match(tag, ux->tag)) {
                found = ux;
                break;
            }
        }
    }
    const tn_comm_t *comm;
    if (found != NULL && !found->src_checked && (comm = tn_match_comm(mc->ctx)) != NULL) {
        /* it came before its communicator: am_decode.c could not check */
        if (!tn_comm_src_is(comm, found->src, found->world)) {
            tn_am_violation(found->world, found->type, TN_AM_WHY_NOT_SENDER);
        }
        found->src_checked = 1;
    }
    if (found != NULL && take) {
        tn_match_unexp_unlink(mc, found);
    }
    return found;
}

void tn_unexp_free(tn_unexp_t *ux)
{
    if (ux->data != ux->small) {
        free(ux->data);
    }
    free(ux);
}

tn_unexp_t *tn_match_unexp_withdraw(tn_match_ctx_t *mc, int src, int world, uint64_t sreq)
{
    if (src < 0 || src >= mc->nbins) {
        return NULL;
    }
    for (tn_unexp_t *ux = mc->unexp[src].head; ux != NULL; ux = ux->snext) {
        /* only these carry a live sender request id: a standard eager
         * message's send may be over and its id reused (or sreq holds
         * inline data) */
        int live = ux->type == TN_AM_RTS || (ux->flags & TN_AM_F_SYNC);
        if (live && ux->world == world && ux->sreq == sreq && ux->complete) {
            tn_match_unexp_unlink(mc, ux);
            return ux;
        }
    }
    return NULL;
}

void tn_match_finalize(void)
{
    for (int b = 0; b < TN_MATCH_BUCKETS; b++) {
        tn_match_ctx_t *mc = tn_match_table[b];
        while (mc != NULL) {
            tn_match_ctx_t *next = mc->hnext;
            for (tn_unexp_t *ux = mc->unexp_all.head; ux != NULL;) {
                tn_unexp_t *n = ux->gnext;
                if (ux->data != ux->small) {
                    free(ux->data);
                }
                free(ux);
                ux = n;
            }
            free(mc->posted);
            free(mc->unexp);
            free(mc);
            mc = next;
        }
        tn_match_table[b] = NULL;
    }
    tn_match_last = NULL;
}
