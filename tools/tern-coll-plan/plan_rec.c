/* The recorder (plan.h): what the collective algorithms of src/coll call
 * below them, as recording stand-ins.
 *
 * The algorithms are compiled into this program unchanged and call
 * tn_p2p_*, tn_req_waitall_free and tn_op_apply as they do in the
 * library; here those calls append operations to the running member's
 * list instead of moving data.  Receive buffers are left as they are and
 * reductions compute nothing: no algorithm decides what to send from the
 * data it received (they step by rank, size, count and root), which is
 * what makes one member's run independent of the others'.  Communicators
 * are built as the library builds them (the node map is comm/comm_node.c
 * itself); context ids come from a counter that every member's run
 * restarts, as the agreement would give every member the same value.
 * The shared-memory algorithms are represented, not run: what goes
 * through a communicator's slot moves no messages, so it becomes one
 * PL_SYNC among the members (the wrappers' choice of slot or messages is
 * mirrored below, the one piece of this program that restates library
 * logic instead of running it). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/log.h"
#include "base/objreg.h"
#include "base/trace.h"
#include "coll/coll.h"
#include "coll/coll_util.h"
#include "comm/comm.h"
#include "p2p/p2p.h"
#include "runtime/rt.h"

#include "plan.h"

pl_run_t pl_run;

/* ---- what the algorithms read of the library's state ------------------ */
tn_config_t tn_cfg;
unsigned tn_config_generation;
int tn_log_level_current = -1;
int tn_trace_on = 1;
tn_rt_t tn_rt;

int tn_log_enabled(tn_log_level_t level, const char *subsys)
{
    (void)level;
    (void)subsys;
    return 0;
}

void tn_log_emit(tn_log_level_t level, const char *subsys, const char *fmt, ...)
{
    (void)level;
    (void)subsys;
    (void)fmt;
}

/* coll.c reports every choice it makes here (tn_trace_on is set): the
 * first one of a member's run is the algorithm of the collective itself. */
void tn_trace_algo_(unsigned algo)
{
    if (pl_run.picked < 0) {
        pl_run.picked = (int)algo;
    }
}

tn_status_t tn_objreg_add(void *p, tn_obj_kind_t kind)
{
    (void)p;
    (void)kind;
    return TN_OK;
}

void tn_objreg_del(const void *p)
{
    (void)p;
}

/* ---- communicators and groups of one member's run --------------------- */
enum { PL_MAX_OBJS = 64 };

static struct {
    void    *objs[PL_MAX_OBJS];   /* groups and world arrays made */
    int      nobjs;
    tn_comm_t *comms[PL_MAX_OBJS];
    int      ncomms;
    uint32_t next_ctx;
    tn_comm_t *world;
} rec;

static int rec_keep(void *p)
{
    if (p == NULL || rec.nobjs == PL_MAX_OBJS) {
        free(p);
        pl_run.failed = 1;
        return -1;
    }
    rec.objs[rec.nobjs++] = p;
    return 0;
}

tn_status_t tn_group_new(int size, int *world, tn_group_t **group_p)
{
    tn_group_t *g = calloc(1, sizeof(*g));

    if (rec_keep(world) != 0 || rec_keep(g) != 0) {
        return TN_ERR_NOMEM;
    }
    g->size = size;
    g->world = world;
    g->rank = -32766;
    for (int i = 0; i < size; i++) {
        if (world[i] == pl_run.me) {
            g->rank = i;
        }
    }
    *group_p = g;
    return TN_OK;
}

tn_status_t tn_comm_new(tn_group_t *group, uint32_t ctx, const tn_comm_t *parent,
                        tn_comm_t **comm_p)
{
    tn_comm_t *c = calloc(1, sizeof(*c));

    (void)parent;
    if (c == NULL || rec.ncomms == PL_MAX_OBJS) {
        free(c);
        pl_run.failed = 1;
        return TN_ERR_NOMEM;
    }
    rec.comms[rec.ncomms++] = c;
    c->refcount = 1;
    c->ctx = ctx;
    c->rank = group->rank;
    c->size = group->size;
    c->group = group;
    c->peer_world = group->world;
    *comm_p = c;
    return TN_OK;
}

void tn_comm_release(tn_comm_t *comm)
{
    (void)comm;     /* freed with the run (pl_rec_end) */
}

/* Every member's run asks in the same order, so every member gets the
 * same value, as the agreement gives. */
tn_status_t tn_comm_ctx_agree(tn_comm_t *comm, int n, int me, const int *map, int tag,
                              uint32_t span, int64_t first, uint32_t *ctx_p)
{
    (void)comm;
    (void)n;
    (void)me;
    (void)map;
    (void)tag;
    (void)first;
    *ctx_p = rec.next_ctx;
    rec.next_ctx += 2 * (span > 0 ? span : 1);
    return TN_OK;
}

void pl_rec_begin(int me)
{
    int *world = malloc(sizeof(int) * (size_t)pl_run.n);
    tn_group_t *g = NULL;

    memset(&rec, 0, sizeof(rec));
    rec.next_ctx = 16;
    pl_run.me = me;
    tn_rt.node_of_world = pl_run.node_of;
    tn_rt.nnodes = pl_run.nnodes;
    tn_rt.world_size = pl_run.n;
    tn_rt.world_rank = me;
    tn_rt.node_id = pl_run.node_of[me];
    if (world == NULL) {
        pl_run.failed = 1;
        return;
    }
    for (int i = 0; i < pl_run.n; i++) {
        world[i] = i;
    }
    if (tn_group_new(pl_run.n, world, &g) == TN_OK) {
        (void)tn_comm_new(g, 0, NULL, &rec.world);
    }
}

tn_comm_t *pl_rec_world(void)
{
    return rec.world;
}

void pl_rec_end(void)
{
    for (int i = 0; i < rec.ncomms; i++) {
        tn_comm_nodes_free(rec.comms[i]);
    }
    for (int i = 0; i < rec.ncomms; i++) {
        free(rec.comms[i]);
    }
    for (int i = 0; i < rec.nobjs; i++) {
        free(rec.objs[i]);
    }
    rec.nobjs = 0;
    rec.ncomms = 0;
    rec.world = NULL;
}

/* ---- the recorded operations ------------------------------------------ */
pl_op_t *pl_rec_push(uint8_t type)
{
    pl_rank_t *r = &pl_run.ranks[pl_run.me];

    if (pl_run.failed || pl_run.total_ops >= pl_run.max_ops) {
        pl_run.failed = 1;
        return NULL;
    }
    if (r->nops == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        pl_op_t *a = realloc(r->ops, sizeof(*a) * cap);
        if (a == NULL) {
            pl_run.failed = 1;
            return NULL;
        }
        r->ops = a;
        r->cap = cap;
    }
    pl_run.total_ops++;
    pl_op_t *op = &r->ops[r->nops++];
    memset(op, 0, sizeof(*op));
    op->type = type;
    op->id = -1;
    return op;
}

/* A request is the index of its post among the member's ops, plus one. */
static tn_req_t *rec_req(void)
{
    return (tn_req_t *)(uintptr_t)pl_run.ranks[pl_run.me].nops;
}

static tn_status_t rec_post(uint8_t type, size_t count, const tn_dt_t *dt, int peer, int tag,
                            tn_comm_t *comm, int coll, tn_req_t **req_p)
{
    pl_op_t *op;

    if (peer < 0 || peer >= comm->size) {
        pl_run.failed = 1;
        return TN_ERR_INVAL;
    }
    if ((op = pl_rec_push(type)) == NULL) {
        return TN_ERR_NOMEM;
    }
    op->peer = comm->peer_world[peer];
    op->ctx = comm->ctx + (uint32_t)(coll & 1);
    op->tag = tag;
    op->bytes = (uint64_t)dt->size * count;
    *req_p = rec_req();
    return TN_OK;
}

tn_status_t tn_p2p_isend(const void *buf, size_t count, const tn_dt_t *dt, int dest, int tag,
                         tn_comm_t *comm, int coll, tn_send_mode_t mode, tn_req_t **req_p)
{
    (void)buf;
    (void)mode;
    return rec_post(PL_SEND, count, dt, dest, tag, comm, coll, req_p);
}

tn_status_t tn_p2p_irecv(void *buf, size_t count, const tn_dt_t *dt, int src, int tag,
                         tn_comm_t *comm, int coll, tn_req_t **req_p)
{
    (void)buf;
    return rec_post(PL_RECV, count, dt, src, tag, comm, coll, req_p);
}

int pl_rec_wait(const uint32_t *ops, int n)
{
    pl_rank_t *r = &pl_run.ranks[pl_run.me];
    pl_op_t *op = pl_rec_push(PL_WAIT);

    if (op == NULL) {
        return -1;
    }
    op->wfirst = (uint32_t)r->nwaits;
    for (int i = 0; i < n; i++) {
        if (r->nwaits == r->wcap) {
            size_t cap = r->wcap ? r->wcap * 2 : 64;
            uint32_t *a = realloc(r->waits, sizeof(*a) * cap);
            if (a == NULL) {
                pl_run.failed = 1;
                return -1;
            }
            r->waits = a;
            r->wcap = cap;
        }
        r->waits[r->nwaits++] = ops[i];
        op->wn++;
    }
    return 0;
}

tn_status_t tn_req_waitall_free(int n, tn_req_t **reqs)
{
    uint32_t idx[64];
    int k = 0;

    for (int i = 0; i < n; i++) {
        uintptr_t q = (uintptr_t)reqs[i];

        if (q == 0) {
            continue;
        }
        if (k == 64) {
            if (pl_rec_wait(idx, k) != 0) {
                return TN_ERR_NOMEM;
            }
            k = 0;
        }
        idx[k++] = (uint32_t)(q - 1);
        reqs[i] = NULL;
    }
    return pl_rec_wait(idx, k) == 0 ? TN_OK : TN_ERR_NOMEM;
}

tn_status_t tn_p2p_send(const void *buf, size_t count, const tn_dt_t *dt, int dest, int tag,
                        tn_comm_t *comm, int coll)
{
    tn_req_t *q;
    tn_status_t st = tn_p2p_isend(buf, count, dt, dest, tag, comm, coll, TN_SEND_STD, &q);

    return st == TN_OK ? tn_req_waitall_free(1, &q) : st;
}

tn_status_t tn_p2p_recv(void *buf, size_t count, const tn_dt_t *dt, int src, int tag,
                        tn_comm_t *comm, int coll, tn_msg_status_t *status_p)
{
    tn_req_t *q;
    tn_status_t st = tn_p2p_irecv(buf, count, dt, src, tag, comm, coll, &q);

    if (status_p != NULL) {
        memset(status_p, 0, sizeof(*status_p));
        status_p->source = src;
        status_p->tag = tag;
        status_p->bytes = (uint64_t)dt->size * count;
    }
    return st == TN_OK ? tn_req_waitall_free(1, &q) : st;
}

tn_status_t tn_p2p_sendrecv(const void *sbuf, size_t scount, const tn_dt_t *sdt, int dest,
                            int stag, void *rbuf, size_t rcount, const tn_dt_t *rdt, int src,
                            int rtag, tn_comm_t *comm, int coll, tn_msg_status_t *status_p)
{
    tn_req_t *q[2] = { NULL, NULL };
    tn_status_t st = tn_p2p_isend(sbuf, scount, sdt, dest, stag, comm, coll, TN_SEND_STD,
                                  &q[0]);

    if (st == TN_OK) {
        st = tn_p2p_irecv(rbuf, rcount, rdt, src, rtag, comm, coll, &q[1]);
    }
    if (status_p != NULL) {
        memset(status_p, 0, sizeof(*status_p));
        status_p->source = src;
        status_p->tag = rtag;
        status_p->bytes = (uint64_t)rdt->size * rcount;
    }
    return st == TN_OK ? tn_req_waitall_free(2, q) : st;
}

tn_status_t tn_op_apply(const tn_op_t *op, const tn_dt_t *dt, uintptr_t dt_handle,
                        const void *in, void *inout, size_t count)
{
    pl_op_t *o = pl_rec_push(PL_CALC);

    (void)op;
    (void)dt_handle;
    (void)in;
    (void)inout;
    if (o == NULL) {
        return TN_ERR_NOMEM;
    }
    o->bytes = (uint64_t)dt->size * count;
    return TN_OK;
}

/* ---- the shared-memory algorithms: one PL_SYNC each ------------------- */
int tn_coll_shm_eligible(tn_comm_t *comm)
{
    if (!pl_run.shm || comm->size < 2) {
        return 0;
    }
    for (int i = 1; i < comm->size; i++) {
        if (pl_run.node_of[comm->peer_world[i]] != pl_run.node_of[comm->peer_world[0]]) {
            return 0;
        }
    }
    return 1;
}

static tn_status_t rec_sync(tn_comm_t *comm, uint64_t bytes)
{
    pl_op_t *op = pl_rec_push(PL_SYNC);

    if (op == NULL) {
        return TN_ERR_NOMEM;
    }
    op->ctx = comm->ctx + 1;
    op->tag = comm->peer_world[0];
    op->peer = comm->size;
    op->bytes = bytes;
    return TN_OK;
}

static uint64_t blk_bytes(const tn_coll_blocks_t *b)
{
    return b == NULL ? 0 : (uint64_t)b->dt->size * b->count;
}

/* The wrappers (coll/<kind>/<kind>_shm.c) run every collective of a
 * communicator that has a shared-memory slot: they pick the algorithm as
 * for any call; "shm" goes through the slot when the data fits its
 * buffers (TERN_SHM_COLL_BYTES, pl_run.slot), else a message algorithm
 * runs (for "shm": the one each wrapper names).  This mirrors those
 * decisions for the uniform forms the planner calls. */
static int via_slot(const tn_coll_algo_t *a, uint64_t bytes, uint64_t room)
{
    return strcmp(a->name, "shm") == 0 && bytes <= room;
}

static int is_shm(const tn_coll_algo_t *a)
{
    return strcmp(a->name, "shm") == 0;
}

tn_status_t tn_coll_barrier_shm(tn_comm_t *comm)
{
    return rec_sync(comm, 0);
}

tn_status_t tn_coll_bcast_shm(void *buf, size_t count, const tn_dt_t *dt, int root,
                              tn_comm_t *comm)
{
    uint64_t b = (uint64_t)dt->size * count;
    const tn_coll_algo_t *a = tn_coll_pick(TN_COLL_BCAST, comm, b, 1, 0, 0);

    if (b == 0 || via_slot(a, b, pl_run.slot)) {
        return rec_sync(comm, b);
    }
    return (is_shm(a) ? tn_coll_bcast_binomial : a->fn.bcast)(buf, count, dt, root, comm);
}

tn_status_t tn_coll_reduce_shm(const void *sbuf, void *rbuf, size_t count, const tn_dt_t *dt,
                               const tn_op_t *op, int root, tn_comm_t *comm)
{
    uint64_t b = (uint64_t)dt->size * count;
    const tn_coll_algo_t *a = tn_coll_pick(TN_COLL_REDUCE, comm, b, op->commutative, 0, 0);

    if (count > 0 && via_slot(a, b, pl_run.slot)) {
        return rec_sync(comm, b);
    }
    return (is_shm(a) ? tn_coll_reduce_binomial : a->fn.reduce)(sbuf, rbuf, count, dt, op, root,
                                                                 comm);
}

tn_status_t tn_coll_allreduce_shm(const void *sbuf, void *rbuf, size_t count, const tn_dt_t *dt,
                                  const tn_op_t *op, tn_comm_t *comm)
{
    uint64_t b = (uint64_t)dt->size * count;
    const tn_coll_algo_t *a = tn_coll_pick(TN_COLL_ALLREDUCE, comm, b, op->commutative,
                                           sbuf == TN_IN_PLACE, 0);

    if (count > 0 && via_slot(a, b, pl_run.slot)) {
        return rec_sync(comm, b);
    }
    return (is_shm(a) ? tn_coll_allreduce_recdbl : a->fn.allreduce)(sbuf, rbuf, count, dt, op,
                                                                    comm);
}

tn_status_t tn_coll_gather_shm(const void *sbuf, size_t scount, const tn_dt_t *sdt, void *rbuf,
                               const tn_coll_blocks_t *rb, int root, tn_comm_t *comm)
{
    uint64_t b = comm->rank == root ? blk_bytes(rb) : (uint64_t)sdt->size * scount;
    const tn_coll_algo_t *a = tn_coll_pick(TN_COLL_GATHER, comm, b, 1, 0, 0);

    if (via_slot(a, b, pl_run.slot)) {
        return rec_sync(comm, b);
    }
    return (is_shm(a) ? tn_coll_gather_linear : a->fn.gather)(sbuf, scount, sdt, rbuf, rb, root,
                                                              comm);
}

tn_status_t tn_coll_scatter_shm(const void *sbuf, const tn_coll_blocks_t *sb, void *rbuf,
                                size_t rcount, const tn_dt_t *rdt, int root, tn_comm_t *comm)
{
    uint64_t b = comm->rank == root ? blk_bytes(sb) : (uint64_t)rdt->size * rcount;
    const tn_coll_algo_t *a = tn_coll_pick(TN_COLL_SCATTER, comm, b, 1, 0, 0);

    if (b == 0 || via_slot(a, b, pl_run.slot / (uint64_t)comm->size)) {
        return rec_sync(comm, b);
    }
    return (is_shm(a) ? tn_coll_scatter_linear : a->fn.scatter)(sbuf, sb, rbuf, rcount, rdt,
                                                                root, comm);
}

tn_status_t tn_coll_allgather_shm(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                                  void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm)
{
    uint64_t b = sbuf == TN_IN_PLACE ? blk_bytes(rb) : (uint64_t)sdt->size * scount;
    const tn_coll_algo_t *a = tn_coll_pick(TN_COLL_ALLGATHER, comm, b * (uint64_t)comm->size, 1,
                                           sbuf == TN_IN_PLACE, 0);

    if (via_slot(a, b, pl_run.slot)) {
        return rec_sync(comm, b);
    }
    return (is_shm(a) ? tn_coll_allgather_ring : a->fn.allgather)(sbuf, scount, sdt, rbuf, rb,
                                                                  comm);
}

tn_status_t tn_coll_alltoall_shm(const void *sbuf, const tn_coll_blocks_t *sb, void *rbuf,
                                 const tn_coll_blocks_t *rb, tn_comm_t *comm)
{
    uint64_t b = blk_bytes(rb);
    const tn_coll_algo_t *a = tn_coll_pick(TN_COLL_ALLTOALL, comm, b, 1, sbuf == TN_IN_PLACE, 0);

    if (via_slot(a, b, pl_run.slot / (uint64_t)comm->size)) {
        return rec_sync(comm, b * (uint64_t)comm->size);
    }
    return (is_shm(a) ? tn_coll_alltoall_pairwise : a->fn.alltoall)(sbuf, sb, rbuf, rb, comm);
}

tn_status_t tn_coll_reduce_scatter_shm(const void *sbuf, void *rbuf, const tn_coll_blocks_t *rc,
                                       const tn_op_t *op, tn_comm_t *comm)
{
    uint64_t b = blk_bytes(rc) * (uint64_t)comm->size;
    const tn_coll_algo_t *a = tn_coll_pick(TN_COLL_REDUCE_SCATTER, comm, b, op->commutative,
                                           sbuf == TN_IN_PLACE, 0);

    if (b > 0 && via_slot(a, b, pl_run.slot)) {
        return rec_sync(comm, b);
    }
    return (is_shm(a) ? tn_coll_reduce_scatter_pairwise : a->fn.reduce_scatter)(sbuf, rbuf, rc,
                                                                                op, comm);
}

/* ---- data movement: nothing is moved (no algorithm reads what it got),
 * but what would be is recorded ------------------------------------------ */
int pl_rec_copy(uint64_t bytes)
{
    pl_rank_t *r = &pl_run.ranks[pl_run.me];
    if (bytes == 0) {
        return 0;
    }
    if (r->nops > 0 && r->ops[r->nops - 1].type == PL_COPY) {
        r->ops[r->nops - 1].bytes += bytes;
        return 0;
    }
    pl_op_t *o = pl_rec_push(PL_COPY);
    if (o == NULL) {
        return -1;
    }
    o->bytes = bytes;
    return 0;
}

/* The algorithms' memcpy and memmove (CMakeLists.txt renames them in
 * src/coll's sources): done, since some read back what they wrote (a
 * size header), and recorded. */
void *pl_memcpy(void *dst, const void *src, size_t n);
void *pl_memmove(void *dst, const void *src, size_t n);

void *pl_memcpy(void *dst, const void *src, size_t n)
{
    (void)pl_rec_copy(n);
    return memcpy(dst, src, n);
}

void *pl_memmove(void *dst, const void *src, size_t n)
{
    (void)pl_rec_copy(n);
    return memmove(dst, src, n);
}

void tn_dt_pack(const tn_dt_t *dt, const void *buf, size_t count, void *out)
{
    (void)buf;
    (void)out;
    (void)pl_rec_copy((uint64_t)dt->size * count);   /* a failure shows in pl_run.failed */
}

void tn_dt_unpack(const tn_dt_t *dt, const void *in, size_t count, void *buf)
{
    (void)in;
    (void)buf;
    (void)pl_rec_copy((uint64_t)dt->size * count);
}

void tn_dt_unpack_partial(const tn_dt_t *dt, const void *in, size_t count, size_t offset,
                          size_t len, void *buf)
{
    (void)dt;
    (void)in;
    (void)count;
    (void)offset;
    (void)buf;
    (void)pl_rec_copy(len);
}

void tn_dt_copy(const tn_dt_t *sdt, const void *sbuf, size_t scount, const tn_dt_t *rdt,
                void *rbuf, size_t rcount, size_t bytes)
{
    (void)sdt;
    (void)sbuf;
    (void)scount;
    (void)rdt;
    (void)rbuf;
    (void)rcount;
    (void)pl_rec_copy(bytes);
}
