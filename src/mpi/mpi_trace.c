/* The MPI layer's trace items (mpi/mpi_trace.h). */
#include "mpi/mpi_trace.h"

#include <limits.h>
#include <pthread.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll_util.h"
#include "comm/topo.h"
#include "mpi/mpi_impl.h"

static int32_t tn_mpi_trace_rank(int r)
{
    if (r == MPI_ANY_SOURCE) {
        return TERN_TRACE_ANY;
    }
    if (r == MPI_PROC_NULL) {
        return TERN_TRACE_PROC_NULL;
    }
    return r;
}

static uint32_t tn_mpi_trace_next_id = 1;
static pthread_mutex_t tn_mpi_trace_def_lock = PTHREAD_MUTEX_INITIALIZER;

/* Write c's definition under id (the definition lock held). */
static void tn_mpi_trace_define(tn_comm_t *c, uint32_t id)
{
    int n = c->group->size;
    int rn = c->remote != NULL ? c->remote->size : 0;
    int32_t *w = malloc(sizeof(int32_t) * (size_t)(n + rn + 1));
    if (w == NULL) {
        return;
    }
    for (int i = 0; i < n; i++) {
        w[i] = c->group->world[i];
    }
    for (int i = 0; i < rn; i++) {
        w[n + i] = c->remote->world[i];
    }
    tern_trace_commdef_t d = {
        .id = id, .ctx = c->ctx, .size = (uint32_t)n, .rank = (uint32_t)c->rank,
        .remote_size = (uint32_t)rn, .flags = c->remote != NULL ? TERN_TRACE_COMM_INTER : 0,
    };
    tn_trace_record(TERN_TRACE_REC_COMM, TERN_TRACE_I_COMMDEF, &d, sizeof(d), w,
                    sizeof(int32_t) * (size_t)(n + rn));
    free(w);
}

/* The communicator's id in this rank's trace; its definition is written the
 * first time it is named (ids are never reused: a freed communicator's
 * memory may hold a new one, whose id then differs because comm_new zeroes
 * it).  Threads may name a communicator for the first time at once: one
 * writes the definition, and the id is published only after it, so no
 * record that uses the id can reach the file before the definition. */
uint32_t tn_mpi_trace_comm(tn_comm_t *c)
{
    if (c == NULL) {
        return 0;
    }
    uint32_t id = __atomic_load_n(&c->trace_id, __ATOMIC_ACQUIRE);
    if (id != 0) {
        return id;
    }
    pthread_mutex_lock(&tn_mpi_trace_def_lock);
    id = __atomic_load_n(&c->trace_id, __ATOMIC_ACQUIRE);
    if (id == 0) {
        id = tn_mpi_trace_next_id++;
        tn_mpi_trace_define(c, id);
        __atomic_store_n(&c->trace_id, id, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&tn_mpi_trace_def_lock);
    return id;
}

void tn_mpi_trace_send_(tn_comm_t *c, int dest, int tag, uint64_t bytes, int mode, int form)
{
    tern_trace_send_t s = {
        .comm = tn_mpi_trace_comm(c), .peer = tn_mpi_trace_rank(dest),
        .world = dest >= 0 ? c->peer_world[dest] : -1, .tag = tag, .bytes = bytes,
        .mode = (uint8_t)mode, .form = (uint8_t)form,
    };
    tn_trace_item_fixed(TERN_TRACE_I_SEND, &s, sizeof(s));
}

void tn_mpi_trace_recv_(tn_comm_t *c, int source, int tag, uint64_t bytes, int form)
{
    tern_trace_recv_t r = {
        .comm = tn_mpi_trace_comm(c), .peer = tn_mpi_trace_rank(source),
        .tag = tag == MPI_ANY_TAG ? TERN_TRACE_ANY : tag, .bytes = bytes, .form = (uint8_t)form,
    };
    tn_trace_item_fixed(TERN_TRACE_I_RECV, &r, sizeof(r));
}

void tn_mpi_trace_status_(const tn_msg_status_t *ms)
{
    tern_trace_status_t s = {
        .source = tn_mpi_trace_rank(ms->source),
        .tag = ms->tag == MPI_ANY_TAG ? TERN_TRACE_ANY : ms->tag, .bytes = ms->bytes,
        .error = tn_mpi_class_of((tn_status_t)ms->error), .cancelled = ms->cancelled != 0,
    };
    tn_trace_item_fixed(TERN_TRACE_I_STATUS, &s, sizeof(s));
}

static uint64_t tn_mpi_trace_req_id(const tn_req_t *req)
{
    return (uint64_t)req->gen << 32 | req->slot;
}

void tn_mpi_trace_req_(unsigned type, const tn_req_t *req)
{
    if (req == NULL) {
        return;
    }
    tern_trace_req_t r = { tn_mpi_trace_req_id(req) };
    tn_trace_item_fixed(type, &r, sizeof(r));
}

void tn_mpi_trace_done_(const tn_req_t *req)
{
    const tn_msg_status_t *ms = &req->status;
    int recv = req->kind == TN_REQ_RECV ||
               (req->persistent && req->pers_kind == TN_REQ_RECV);
    tern_trace_done_t d = {
        .req = tn_mpi_trace_req_id(req),
        .source = recv ? tn_mpi_trace_rank(ms->source) : -1,
        .tag = recv ? (ms->tag == MPI_ANY_TAG ? TERN_TRACE_ANY : ms->tag) : 0,
        .bytes = recv ? ms->bytes : 0,
        .error = tn_mpi_class_of((tn_status_t)ms->error), .cancelled = ms->cancelled != 0,
    };
    tn_trace_item_fixed(TERN_TRACE_I_DONE, &d, sizeof(d));
}

static int32_t tn_mpi_trace_op(const tn_op_t *op)
{
    static const char *const names[TERN_TRACE_NOPS] = {
        NULL, "MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD", "MPI_LAND", "MPI_BAND", "MPI_LOR",
        "MPI_BOR", "MPI_LXOR", "MPI_BXOR", "MPI_MINLOC", "MPI_MAXLOC", "MPI_REPLACE",
        "MPI_NO_OP",
    };
    if (op == NULL) {
        return TERN_TRACE_NONE;
    }
    if (!op->predefined || op->name == NULL) {
        return TERN_TRACE_OP_USER;
    }
    for (int i = 1; i < TERN_TRACE_NOPS; i++) {
        if (strcmp(op->name, names[i]) == 0) {
            return i;
        }
    }
    return TERN_TRACE_OP_USER;
}

void tn_mpi_trace_coll_(tn_comm_t *c, int kind, int root, const tn_op_t *op, uint64_t sbytes,
                        uint64_t rbytes, int form, int flags)
{
    tern_trace_coll_t k = {
        .comm = tn_mpi_trace_comm(c), .kind = (uint16_t)kind, .algo = TERN_TRACE_ALGO_UNKNOWN,
        .root = root,
        .op = tn_mpi_trace_op(op), .seq = c->trace_coll++, .sbytes = sbytes, .rbytes = rbytes,
        .form = (uint8_t)form, .flags = (uint8_t)flags,
    };
    tn_trace_item(TERN_TRACE_I_COLL, &k, sizeof(k), NULL, 0);
}

void tn_mpi_trace_counts_(unsigned type, const void *counts, int wide, int n,
                          const tn_dt_t *dt)
{
    if (counts == NULL || n <= 0 || !tn_trace_active()) {
        return;
    }
    uint64_t *b = malloc(sizeof(uint64_t) * (size_t)n);
    if (b == NULL) {
        return;
    }
    for (int i = 0; i < n; i++) {
        int64_t k = wide ? ((const MPI_Count *)counts)[i] : ((const int *)counts)[i];
        b[i] = k > 0 ? (uint64_t)k * dt->size : 0;
    }
    tn_trace_item(type, b, sizeof(uint64_t) * (size_t)n, NULL, 0);
    free(b);
}

/* The bytes of each of n blocks, whatever their layout (one count and
 * type, counts, counts and a type each). */
void tn_mpi_trace_blocks_(unsigned type, const tn_coll_blocks_t *b, int n)
{
    if (n <= 0 || !tn_trace_active()) {
        return;
    }
    uint64_t *v = malloc(sizeof(uint64_t) * (size_t)n);
    if (v == NULL) {
        return;
    }
    for (int i = 0; i < n; i++) {
        const tn_dt_t *dt = tn_coll_blk_dt(b, i);
        v[i] = dt != NULL ? (uint64_t)tn_coll_blk_count(b, i) * dt->size : 0;
    }
    tn_trace_item(type, v, sizeof(uint64_t) * (size_t)n, NULL, 0);
    free(v);
}

void tn_mpi_trace_nbrs_(tn_comm_t *c)
{
    int indeg = 0, outdeg = 0;
    if (c->topo == NULL || !tn_trace_active()) {
        return;
    }
    tn_topo_neighbors(c->topo, c->rank, &indeg, &outdeg, NULL, NULL);
    _Static_assert(sizeof(int) == sizeof(int32_t), "the lists go out as they are");
    int *r = malloc(sizeof(int) * ((size_t)indeg + (size_t)outdeg + 1));
    if (r == NULL) {
        return;
    }
    tn_topo_neighbors(c->topo, c->rank, &indeg, &outdeg, r, r + indeg);
    for (int i = 0; i < indeg + outdeg; i++) {
        r[i] = r[i] == TN_TOPO_PROC_NULL ? TERN_TRACE_PROC_NULL : r[i];
    }
    tern_trace_nbrs_t h = {
        .comm = tn_mpi_trace_comm(c), .indegree = (uint32_t)indeg, .outdegree = (uint32_t)outdeg,
        .flags = c->topo->kind == TN_TOPO_CART ? TERN_TRACE_NBRS_CART : 0,
    };
    tn_trace_item(TERN_TRACE_I_NBRS, &h, sizeof(h), r, sizeof(int32_t) * ((size_t)indeg + (size_t)outdeg));
    free(r);
}

void tn_mpi_trace_newcomm_(tn_comm_t *c)
{
    tern_trace_newcomm_t n = { c != NULL ? tn_mpi_trace_comm(c) : 0 };
    tn_trace_item_fixed(TERN_TRACE_I_NEWCOMM, &n, sizeof(n));
}

void tn_mpi_trace_rma_(tn_comm_t *c, int op, int target, uint64_t bytes)
{
    tern_trace_rma_t r = {
        .comm = tn_mpi_trace_comm(c), .op = (uint8_t)op, .target = tn_mpi_trace_rank(target),
        .bytes = bytes,
    };
    tn_trace_item_fixed(TERN_TRACE_I_RMA, &r, sizeof(r));
}
