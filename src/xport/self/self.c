/* Self transport: messages a rank sends to itself.  Active messages are
 * queued (header + payload copied) and delivered by progress, so handlers
 * never run re-entrantly inside a send; "get" is a plain memcpy. */
#include "xport/xport.h"
#include "base/config.h"

#include <stdlib.h>
#include <string.h>

typedef struct tn_self_am {
    struct tn_self_am *next;
    tn_am_hdr_t        hdr;
    size_t             len;
    char               payload[];
} tn_self_am_t;

static struct {
    tn_self_am_t *head, *tail;
    tn_self_am_t *free_small;        /* recycled entries of small payloads */
    int           me;
    tn_xport_am_handler_fn_t *handler;
} tn_self;

#define TN_SELF_SMALL 256

tn_status_t tn_xport_self_init(const tn_xport_job_t *job)
{
    memset(&tn_self, 0, sizeof(tn_self));
    tn_self.me = job->world_rank;
    tn_self.handler = job->am_handler;
    return TN_OK;
}

void tn_xport_self_finalize(void)
{
    tn_self_am_t *list[2] = { tn_self.head, tn_self.free_small };
    for (int i = 0; i < 2; i++) {
        while (list[i] != NULL) {
            tn_self_am_t *next = list[i]->next;
            free(list[i]);
            list[i] = next;
        }
    }
    memset(&tn_self, 0, sizeof(tn_self));
}

static size_t tn_self_max_payload(void)
{
    return (size_t)1 << 20;
}

static size_t tn_self_eager_limit(void)
{
    return tn_cfg.self_eager_threshold;
}

/* A queue entry for a payload of len bytes (recycled when small). */
static tn_self_am_t *tn_self_am_new(const tn_am_hdr_t *hdr, size_t len)
{
    tn_self_am_t *am;
    if (len <= TN_SELF_SMALL && tn_self.free_small != NULL) {
        am = tn_self.free_small;
        tn_self.free_small = am->next;
    } else {
        am = malloc(sizeof(*am) + (len <= TN_SELF_SMALL ? TN_SELF_SMALL : len));
        if (am == NULL) {
            return NULL;
        }
    }
    am->next = NULL;
    am->hdr = *hdr;
    am->len = len;
    return am;
}

static void tn_self_am_queue(tn_self_am_t *am)
{
    if (tn_self.tail != NULL) {
        tn_self.tail->next = am;
    } else {
        tn_self.head = am;
    }
    tn_self.tail = am;
}

static tn_status_t tn_self_am_send(int peer, const tn_am_hdr_t *hdr, const struct iovec *iov,
                                   int iovcnt)
{
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++) {
        len += iov[i].iov_len;
    }
    tn_self_am_t *am = tn_self_am_new(hdr, len);
    if (am == NULL) {
        return TN_ERR_NOMEM;
    }
    size_t off = 0;
    for (int i = 0; i < iovcnt; i++) {
        memcpy(am->payload + off, iov[i].iov_base, iov[i].iov_len);
        off += iov[i].iov_len;
    }
    tn_self_am_queue(am);
    return TN_OK;
}

static tn_status_t tn_self_am_send_fill(int peer, const tn_am_hdr_t *hdr, size_t len,
                                        tn_xport_fill_fn_t *fill, void *arg)
{
    tn_self_am_t *am = tn_self_am_new(hdr, len);
    if (am == NULL) {
        return TN_ERR_NOMEM;
    }
    fill(am->payload, len, arg);
    tn_self_am_queue(am);
    return TN_OK;
}

static int tn_self_progress(void)
{
    int events = 0;
    /* Deliver only what is queued now: handlers may queue replies. */
    tn_self_am_t *am = tn_self.head;
    tn_self.head = tn_self.tail = NULL;
    while (am != NULL) {
        tn_self_am_t *next = am->next;
        tn_self.handler(tn_self.me, &am->hdr, am->payload, am->len);
        if (am->len <= TN_SELF_SMALL) {
            am->next = tn_self.free_small;
            tn_self.free_small = am;
        } else {
            free(am);
        }
        am = next;
        events++;
    }
    return events;
}

static size_t tn_self_tiny_limit(void)
{
    return TN_AM_INLINE_MAX;
}

static tn_status_t tn_self_get(int peer, struct iovec *local, int nlocal, uint64_t remote_addr)
{
    const char *src = (const char *)(uintptr_t)remote_addr;
    for (int i = 0; i < nlocal; i++) {
        memcpy(local[i].iov_base, src, local[i].iov_len);
        src += local[i].iov_len;
    }
    return TN_OK;
}

static unsigned tn_self_caps(int peer)
{
    return TN_XPORT_CAP_GET | TN_XPORT_CAP_FILL;
}

const tn_xport_ops_t tn_xport_self_ops = {
    .name        = "self",
    .max_payload = tn_self_max_payload,
    .am_send     = tn_self_am_send,
    .am_send_fill = tn_self_am_send_fill,
    .progress    = tn_self_progress,
    .get         = tn_self_get,
    .caps        = tn_self_caps,
    .eager_limit = tn_self_eager_limit,
    .tiny_limit  = tn_self_tiny_limit,
};
