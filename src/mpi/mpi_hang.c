/* What a rank tells the launcher's hang report when asked (runtime/status.h):
 * the communicator and datatype size of the call it is in, and its pending
 * requests.  Runs inside a waiting loop with the runtime lock held, so the
 * request table and the communicators hold still. */
#include "mpi/mpi_impl.h"

#include <string.h>

static uint8_t tn_mpi_hang_comm_kind(const tn_comm_t *c)
{
    return c == &tn_comm_world ? TERN_STATUS_COMM_WORLD
         : c == &tn_comm_self  ? TERN_STATUS_COMM_SELF
                               : TERN_STATUS_COMM_OTHER;
}

typedef struct {
    tern_status_answer_t *ans;
    size_t                max;
} tn_mpi_hang_walk_t;

static void tn_mpi_hang_req(const tn_req_t *req, void *arg)
{
    tn_mpi_hang_walk_t *w = arg;
    tern_status_answer_t *ans = w->ans;

    ans->nreqs_total++;
    if (ans->nreqs >= w->max) {
        return;
    }
    tern_status_req_t *e = &ans->reqs[ans->nreqs++];
    memset(e, 0, sizeof(*e));
    e->peer = TERN_STATUS_PROC_NULL;
    e->peer_world = -1;
    if (req->comm != NULL) {
        e->comm_kind = tn_mpi_hang_comm_kind(req->comm);
        e->ctx = req->comm->ctx;
    }
    if (req->coll) {
        e->flags |= TERN_STATUS_RQ_COLL;
    }
    switch (tn_req_kind(req)) {
    case TN_REQ_SEND:
        e->kind = TERN_STATUS_REQ_SEND;
        if (req->mode == TN_SEND_SYNC) {
            e->flags |= TERN_STATUS_RQ_SYNC;
        }
        e->peer_world = req->world;
        break;
    case TN_REQ_RECV:
        e->kind = TERN_STATUS_REQ_RECV;
        if (req->comm != NULL && req->peer >= 0 && req->peer < tn_comm_peer_size(req->comm)) {
            e->peer_world = tn_comm_world_rank(req->comm, req->peer);
        }
        break;
    default:
        /* a collective schedule or generalized request: its fields mean
         * other things; its point-to-point parts are listed themselves */
        e->kind = TERN_STATUS_REQ_OTHER;
        return;
    }
    e->peer = req->peer;
    e->tag = req->tag;
    e->count = req->count;
    e->bytes = req->bytes;
    e->done = req->offset;
}

void tn_mpi_hang_fill(tern_status_answer_t *ans, size_t max, uint64_t obj, uint64_t dtype)
{
    /* obj and dtype are what the application passed: the lookups check
     * them (a window's handle, garbage and 0 name no communicator) */
    if (obj != 0) {
        const tn_comm_t *c = tn_mpi_comm_get((MPI_Comm)(uintptr_t)obj);
        ans->comm.kind = TERN_STATUS_COMM_BAD;
        if (c != NULL) {
            ans->comm.kind = tn_mpi_hang_comm_kind(c);
            ans->comm.ctx = c->ctx;
            ans->comm.size = c->size;
            ans->comm.rank = c->rank;
            memcpy(ans->comm.name, c->name, strnlen(c->name, sizeof(ans->comm.name)));
        }
    }
    if (dtype != 0) {
        const tn_dt_t *dt = tn_mpi_dt_lookup((MPI_Datatype)(uintptr_t)dtype);
        if (dt != NULL) {
            ans->dtype_size = (int64_t)dt->size;
        }
    }
    tn_mpi_hang_walk_t w = { ans, max };
    tn_req_foreach_pending(tn_mpi_hang_req, &w);
}
