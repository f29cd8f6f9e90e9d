/* Request pool and completion. */
#include "base/objreg.h"
#include "p2p/p2p_impl.h"
#include "runtime/rt.h"

#include <stdlib.h>
#include <string.h>

static struct tn_req *tn_req_free_list;

/* The request id table (p2p_impl.h): slot -> request memory, which is
 * pooled and never freed, so a slot is never emptied. */
struct tn_req **tn_reqtab;
uint32_t tn_reqtab_len;
static uint32_t tn_reqtab_cap;

static int tn_reqtab_add(struct tn_req *req)
{
    if (tn_reqtab_len == tn_reqtab_cap) {
        if (tn_reqtab_cap >= UINT32_MAX / 2) {
            return -1;
        }
        uint32_t cap = tn_reqtab_cap ? tn_reqtab_cap * 2 : 256;
        struct tn_req **t = realloc(tn_reqtab, (size_t)cap * sizeof(*t));
        if (t == NULL) {
            return -1;
        }
        tn_reqtab = t;
        tn_reqtab_cap = cap;
    }
    req->slot = tn_reqtab_len;
    req->gen = 0;
    tn_reqtab[tn_reqtab_len++] = req;
    return 0;
}

struct tn_req *tn_req_alloc(tn_req_kind_t kind)
{
    struct tn_req *req = tn_req_free_list;
    if (req != NULL) {
        tn_req_free_list = req->next;
    } else {
        req = malloc(sizeof(*req));
        if (req == NULL) {
            return NULL;
        }
        /* pooled requests are never freed, so each address is registered
         * once for good; a released one fails the magic check instead */
        if (tn_objreg_add(req, TN_OBJ_REQ) != TN_OK) {
            free(req);
            return NULL;
        }
        if (tn_reqtab_add(req) != 0) {
            tn_objreg_del(req);
            free(req);
            return NULL;
        }
    }
    uint32_t slot = req->slot, gen = req->gen + 1;
    memset(req, 0, sizeof(*req));
    req->slot = slot;
    req->gen = gen != 0 ? gen : 1;      /* 0 is no id */
    req->magic = TN_REQ_MAGIC;
    req->kind = (uint8_t)kind;
    return req;
}

void tn_req_release(struct tn_req *req)
{
    if (req->gen_fini != NULL) {
        req->gen_fini(req);
        req->gen_fini = NULL;
    }
    tn_req_pending_done(req);      /* released before it completed (errors) */
    if (req->comm != NULL) {
        tn_comm_release(req->comm);
        req->comm = NULL;
    }
    if (req->dt != NULL) {
        tn_dt_release(req->dt);
        req->dt = NULL;
    }
    free(req->pack_buf);
    req->pack_buf = NULL;
    req->magic = 0;
    req->next = tn_req_free_list;
    tn_req_free_list = req;
}

void tn_req_foreach_pending(void (*fn)(const tn_req_t *req, void *arg), void *arg)
{
    for (uint32_t i = 0; i < tn_reqtab_len; i++) {
        const struct tn_req *req = tn_reqtab[i];
        /* released requests have no magic; an inactive persistent request
         * is complete, an active one shows as its inner request */
        if (req->magic == TN_REQ_MAGIC && !req->complete && !req->persistent) {
            fn(req, arg);
        }
    }
}

void tn_req_complete(struct tn_req *req)
{
    tn_req_pending_done(req);
    req->complete = 1;
    if (req->on_complete != NULL) {
        req->on_complete(req);     /* may release req */
        return;
    }
    if (req->user_freed) {
        tn_req_release(req);
    }
}

static int tn_req_done_cond(void *arg)
{
    return ((struct tn_req *)arg)->complete;
}

tn_status_t tn_req_wait(tn_req_t *req, tn_msg_status_t *status_p)
{
    if (!req->complete) {
        tn_rt_wait(tn_req_done_cond, req);
    }
    if (status_p != NULL) {
        *status_p = req->status;
    }
    return (tn_status_t)req->status.error;
}

void tn_req_free(tn_req_t *req)
{
    if (req->complete) {
        tn_req_release(req);
    } else {
        req->user_freed = 1;
    }
}

typedef struct {
    int        n;
    tn_req_t **reqs;
} tn_waitall_arg_t;

static int tn_req_all_done(void *arg)
{
    tn_waitall_arg_t *a = arg;
    for (int i = 0; i < a->n; i++) {
        if (a->reqs[i] != NULL && !a->reqs[i]->complete) {
            return 0;
        }
    }
    return 1;
}

tn_status_t tn_req_waitall_free(int n, tn_req_t **reqs)
{
    tn_waitall_arg_t arg = { n, reqs };
    if (!tn_req_all_done(&arg)) {
        tn_rt_wait(tn_req_all_done, &arg);
    }
    tn_status_t status = TN_OK;
    for (int i = 0; i < n; i++) {
        if (reqs[i] == NULL) {
            continue;
        }
        if (status == TN_OK && reqs[i]->status.error != TN_OK) {
            status = (tn_status_t)reqs[i]->status.error;
        }
        tn_req_release(reqs[i]);
        reqs[i] = NULL;
    }
    return status;
}

tn_req_t *tn_req_new_generic(int persistent, tn_status_t (*start)(tn_req_t *req),
                             void (*fini)(tn_req_t *req), void *arg)
{
    struct tn_req *req = tn_req_alloc(TN_REQ_GENERIC);
    if (req == NULL) {
        return NULL;
    }
    req->persistent = persistent;
    req->complete = persistent;     /* inactive persistent requests are complete */
    req->active = !persistent;
    req->gen_start = start;
    req->gen_fini = fini;
    req->cb_arg = arg;
    req->status.source = TN_ANY_SOURCE;
    req->status.tag = TN_ANY_TAG;
    return req;
}

void tn_req_generic_done(tn_req_t *req, tn_status_t st)
{
    memset(&req->status, 0, sizeof(req->status));
    req->status.source = TN_ANY_SOURCE;
    req->status.tag = TN_ANY_TAG;
    req->status.error = st;
    tn_req_complete(req);
}
