/* One-sided operations and synchronisation at the MPI level: argument
 * and epoch checks, then src/rma.  Each operation is one family core
 * (tools/abi/gen_bindings.py): MPI_Put, MPI_Put_c, MPI_Rput, MPI_Rput_c
 * are tn_mpi_family_Put; so Get, Accumulate and Get_accumulate.
 *
 * Epochs: an operation on target t needs an access epoch that covers t:
 * a fence epoch (from MPI_Win_fence until a fence with
 * MPI_MODE_NOSUCCEED), MPI_Win_lock on t, MPI_Win_lock_all, or
 * MPI_Win_start with t in its group.  Otherwise MPI_ERR_RMA_SYNC. */
#include <stdlib.h>
#include <string.h>
#include "mpi/mpi_rma.h"
#include "mpi/mpi_trace.h"
#include "base/monitor.h"
#include "mpi/mpi_p2p_impl.h"

/* ---- operations ------------------------------------------------------------ */

static int covered(const tn_win_t *w, int t)
{
    return w->fence_open || w->lock_all || w->peers[t].locked || w->peers[t].in_start;
}

/* Checks shared by every operation; *skip_p when the target is MPI_PROC_NULL. */
static int op_args(const char *fn, tn_win_t *w, const tn_rma_op_t *op, int64_t ocount,
                   MPI_Datatype odt, int64_t tcount, MPI_Datatype tdt, int *skip_p)
{
    tn_comm_t *c = w->comm;
    int rc;
    *skip_p = 0;
    if (op->target == MPI_PROC_NULL) {
        *skip_p = 1;
        return MPI_SUCCESS;
    }
    if (op->target < 0 || op->target >= c->size) {
        return tn_mpi_win_err(w, MPI_ERR_RANK, fn, "target_rank", "%d is not in [0, %d)",
                              op->target, c->size);
    }
    if (ocount < 0 || tcount < 0) {
        return tn_mpi_win_err(w, MPI_ERR_COUNT, fn, ocount < 0 ? "origin_count"
                              : "target_count", "negative count");
    }
    if (op->odt == NULL || op->tdt == NULL) {
        return tn_mpi_win_err(w, MPI_ERR_TYPE, fn, op->odt == NULL ? "origin_datatype"
                              : "target_datatype", "%s",
                              (op->odt == NULL ? odt : tdt) == MPI_DATATYPE_NULL
                                  ? "MPI_DATATYPE_NULL" : "invalid or uncommitted datatype");
    }
    if (!covered(w, op->target)) {
        return tn_mpi_win_err(w, MPI_ERR_RMA_SYNC, fn, "win", "no access epoch to rank %d is "
                              "open (MPI_Win_fence, MPI_Win_lock, MPI_Win_lock_all or "
                              "MPI_Win_start first)", op->target);
    }
    if (w->flavor != TN_WIN_DYNAMIC && op->disp < 0) {
        return tn_mpi_win_err(w, MPI_ERR_DISP, fn, "target_disp", "%lld is negative",
                              (long long)op->disp);
    }
    if (op->kind != TN_RMA_OP_CAS &&
        tn_dt_bytes(op->odt, (size_t)ocount) != tn_dt_bytes(op->tdt, (size_t)tcount)) {
        return tn_mpi_win_err(w, MPI_ERR_TYPE, fn, "target_datatype",
                              "the origin moves %zu bytes, the target %zu",
                              tn_dt_bytes(op->odt, (size_t)ocount),
                              tn_dt_bytes(op->tdt, (size_t)tcount));
    }
    if (!tn_rma_in_range(w, op->target, op->disp, op->tdt, (size_t)tcount)) {
        return tn_mpi_win_err(w, MPI_ERR_RMA_RANGE, fn, "target_disp",
                              "the target data reach outside rank %d's window of %llu bytes",
                              op->target, (unsigned long long)w->peers[op->target].size);
    }
    (void)rc;
    return MPI_SUCCESS;
}

/* Accumulate ops: predefined, legal for the target's element type, and
 * origin and target made of that one type. */
static int acc_args(const char *fn, tn_win_t *w, MPI_Op h, tn_rma_op_t *op)
{
    /* nothing is computed for no data: like Open MPI and MPICH, any
     * predefined op passes (mpi4py's tests accumulate 0 bytes with MPI_SUM) */
    int empty = tn_dt_bytes(op->tdt, op->tcount) == 0;
    const tn_op_t *o = tn_mpi_op_get(h);
    if (o == NULL || !o->predefined) {
        return tn_mpi_win_err(w, MPI_ERR_OP, fn, "op", "%s", o == NULL ? "invalid op"
                              : "user-defined ops are not allowed in accumulate operations");
    }
    const tn_dt_t *b = op->tdt->basic;
    if (empty) {
        op->op = o;
        return MPI_SUCCESS;
    }
    if (b == NULL || (op->odt->basic != b && o->handle != TN_OP_H_NO_OP)) {
        return tn_mpi_win_err(w, MPI_ERR_TYPE, fn, "target_datatype", "accumulate needs "
                              "origin and target made of one and the same predefined type");
    }
    if (!tn_op_valid_for(o, b)) {
        return tn_mpi_win_err(w, MPI_ERR_OP, fn, "op", "%s is not defined for %s", o->name,
                              b->name != NULL ? b->name : "this type");
    }
    op->op = o;
    return MPI_SUCCESS;
}

static int run_op(const char *fn, tn_win_t *w, const tn_rma_op_t *op,
                  const tn_mpi_call_t *call)
{
    tn_req_t *req = NULL;
    if (call->kind != TN_MPI_CALL_BLOCKING && call->req == NULL) {
        return tn_mpi_win_err(w, MPI_ERR_ARG, fn, "request", "NULL pointer");
    }
    tn_mpi_enter();
    tn_status_t st = tn_rma_op(w, op, call->kind != TN_MPI_CALL_BLOCKING ? &req : NULL);
    tn_mpi_leave();
    if (st != TN_OK) {
        return tn_mpi_win_err_status(w, st, fn);
    }
    if (call->kind != TN_MPI_CALL_BLOCKING) {
        *call->req = tn_mpi_req_handle(req);
    }
    return MPI_SUCCESS;
}

/* An R* call to MPI_PROC_NULL still returns a request. */
static int skip_op(const tn_mpi_call_t *call)
{
    if (call->kind != TN_MPI_CALL_BLOCKING && call->req != NULL) {
        tn_mpi_enter();
        *call->req = tn_mpi_req_handle(tn_req_new_completed());
        tn_mpi_leave();
    }
    return MPI_SUCCESS;
}

/* The trace's name of an operation kind. */
static int trace_rma_kind(tn_rma_kind_t kind)
{
    switch (kind) {
    case TN_RMA_OP_PUT:  return TERN_TRACE_PUT;
    case TN_RMA_OP_GET:  return TERN_TRACE_GET;
    case TN_RMA_OP_ACC:  return TERN_TRACE_ACC;
    case TN_RMA_OP_GACC: return TERN_TRACE_GET_ACC;
    default:             return TERN_TRACE_CAS;
    }
}

static int data_op(tn_rma_kind_t kind, const void *oaddr, MPI_Count ocount, MPI_Datatype odt,
                   void *raddr, MPI_Count rcount, MPI_Datatype rdt, int target, MPI_Aint disp,
                   MPI_Count tcount, MPI_Datatype tdt, MPI_Op opx, MPI_Win win,
                   const tn_mpi_call_t *call)
{
    const char *fn = call->fn;
    tn_win_t *w = NULL;
    int rc, skip;
    if ((rc = tn_mpi_win_arg(fn, win, &w))) {
        return rc;
    }
    /* field by field: an initializer would clear the whole struct first,
     * which costs more than the rest of a small put */
    tn_rma_op_t op;
    op.kind = kind;
    op.oaddr = oaddr;
    op.ocount = (size_t)ocount;
    op.odt = tn_mpi_dt_get(odt);
    op.raddr = raddr;
    op.rcount = (size_t)rcount;
    op.rdt = NULL;
    op.caddr = NULL;
    op.target = target;
    op.disp = disp;
    op.tcount = (size_t)tcount;
    op.tdt = odt == tdt ? op.odt : tn_mpi_dt_get(tdt);
    op.op = NULL;
    if (kind == TN_RMA_OP_GACC && (op.rdt = tn_mpi_dt_get(rdt)) == NULL) {
        return tn_mpi_win_err(w, MPI_ERR_TYPE, fn, "result_datatype", "invalid or "
                              "uncommitted datatype");
    }
    if (kind == TN_RMA_OP_GACC && opx == MPI_NO_OP) {
        op.odt = op.tdt;                 /* the origin is not read */
        op.ocount = op.tcount;
        ocount = tcount;
        odt = tdt;
    }
    if ((rc = op_args(fn, w, &op, ocount, odt, tcount, tdt, &skip))) {
        return rc;
    }
    if (skip) {
        return skip_op(call);
    }
    TN_MPI_TRACE(tn_mpi_trace_rma_(w->comm, trace_rma_kind(kind), target,
                                   tn_dt_bytes(op.tdt, op.tcount)));
    if ((kind == TN_RMA_OP_ACC || kind == TN_RMA_OP_GACC) && (rc = acc_args(fn, w, opx, &op))) {
        return rc;
    }
    if (call->kind != TN_MPI_CALL_BLOCKING && !w->lock_all && !w->peers[target].locked) {
        return tn_mpi_win_err(w, MPI_ERR_RMA_SYNC, fn, "win", "request-based operations need "
                              "a passive-target epoch (MPI_Win_lock or MPI_Win_lock_all)");
    }
    if (kind == TN_RMA_OP_GACC && (rcount < 0 || tn_dt_bytes(op.rdt, (size_t)rcount) !=
                                                     tn_dt_bytes(op.tdt, op.tcount))) {
        return tn_mpi_win_err(w, MPI_ERR_TYPE, fn, "result_datatype",
                              "the result does not hold the target data");
    }
    return run_op(fn, w, &op, call);
}

/* The common small case in few instructions: a blocking put or get of
 * count elements of one contiguous type on both sides to a target whose
 * memory is mapped here (rma.h "direct"), inside an access epoch and the
 * window.  1 when done; 0 sends the call down the general path, which
 * checks everything again and names what is wrong. */
/* The direct target's memory of count elements of the contiguous type
 * dtype at disp, when a short path may take the operation (every check
 * of data_op passes: a window and a target mapped here inside an access
 * epoch, the bytes inside its window), else NULL. */
static inline char *direct_at(MPI_Win win, int target, MPI_Aint disp, MPI_Count count,
                              MPI_Datatype dtype, tn_win_t **w_p, const tn_dt_t **dt_p)
{
    tn_win_t *w;
    if (count < 0 || disp < 0 || (w = tn_mpi_win_cached(win)) == NULL ||
        (unsigned)target >= (unsigned)w->comm->size) {
        return NULL;
    }
    const tn_rma_peer_t *p = &w->peers[target];
    if (!p->direct || !(w->fence_open || w->lock_all || p->locked || p->in_start)) {
        return NULL;
    }
    const tn_dt_t *dt = tn_mpi_dt_get(dtype);
    uint64_t bytes, lo;
    if (dt == NULL || !dt->is_contig || dt->true_lb != 0 ||
        __builtin_mul_overflow((uint64_t)count, (uint64_t)dt->size, &bytes) ||
        __builtin_mul_overflow((uint64_t)disp, (uint64_t)p->disp_unit, &lo) ||
        lo > p->size || bytes > p->size - lo) {
        return NULL;
    }
    *w_p = w;
    *dt_p = dt;
    return p->local + lo;
}

/* The common small cases in few instructions: a blocking put or get of
 * count elements of one contiguous type on both sides to a direct target
 * (rma.h).  1 when done; 0 sends the call down the general path, which
 * checks everything again and names what is wrong. */
static inline int direct_copy(int get, void *oaddr, MPI_Count ocount, MPI_Datatype odt,
                              int target, MPI_Aint disp, MPI_Count tcount, MPI_Datatype tdt,
                              MPI_Win win, const tn_mpi_call_t *call)
{
    tn_win_t *w;
    const tn_dt_t *dt;
    char *at;
    if (call->kind != TN_MPI_CALL_BLOCKING || odt != tdt || ocount != tcount ||
        (at = direct_at(win, target, disp, ocount, odt, &w, &dt)) == NULL) {
        return 0;
    }
    size_t bytes = (size_t)ocount * dt->size;
    tn_mon_sent(tn_comm_world_rank(w->comm, target), TN_MON_RMA, TN_MON_DIRECT, bytes);
    TN_MPI_TRACE(tn_mpi_trace_rma_(w->comm, get ? TERN_TRACE_GET : TERN_TRACE_PUT, target,
                                   bytes));
    if (get) {
        memcpy(oaddr, at, bytes);
    } else {
        memcpy(at, oaddr, bytes);
    }
    return 1;
}

/* The same for a blocking accumulate (kind ACC) or fetch-and-op (GACC,
 * result in raddr) of count elements of one predefined type with a
 * predefined op valid for it, applied under the target's accumulate lock
 * (tn_rma_direct_op). */
static inline int direct_acc(tn_rma_kind_t kind, const void *oaddr, void *raddr,
                             MPI_Count count, MPI_Datatype dtype, int target, MPI_Aint disp,
                             MPI_Op opx, MPI_Win win)
{
    tn_win_t *w;
    const tn_dt_t *dt;
    const tn_op_t *o;
    if (direct_at(win, target, disp, count, dtype, &w, &dt) == NULL || !dt->predefined ||
        (o = tn_mpi_op_get(opx)) == NULL || !o->predefined || !tn_op_valid_for(o, dt)) {
        return 0;
    }
    tn_rma_op_t op = { .kind = kind, .oaddr = oaddr, .ocount = (size_t)count, .odt = dt,
                       .raddr = raddr, .rcount = (size_t)count, .rdt = dt, .target = target,
                       .disp = disp, .tcount = (size_t)count, .tdt = dt, .op = o };
    TN_MPI_TRACE(tn_mpi_trace_rma_(w->comm, trace_rma_kind(kind), target,
                                   (uint64_t)count * dt->size));
    tn_mpi_enter();
    tn_status_t st = tn_rma_direct_op(w, &op);
    tn_mpi_leave();
    return st == TN_OK;          /* else the general path reports it */
}

int tn_mpi_family_Put(const void *origin_addr, MPI_Count origin_count,
                      MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                      MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                      const tn_mpi_call_t *call)
{
    if (direct_copy(0, (void *)origin_addr, origin_count, origin_datatype, target_rank,
                    target_disp, target_count, target_datatype, win, call)) {
        return MPI_SUCCESS;
    }
    return data_op(TN_RMA_OP_PUT, origin_addr, origin_count, origin_datatype, NULL, 0,
                   MPI_DATATYPE_NULL, target_rank, target_disp, target_count,
                   target_datatype, MPI_OP_NULL, win, call);
}

int tn_mpi_family_Get(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                      MPI_Datatype target_datatype, MPI_Win win, const tn_mpi_call_t *call)
{
    if (direct_copy(1, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, win, call)) {
        return MPI_SUCCESS;
    }
    return data_op(TN_RMA_OP_GET, origin_addr, origin_count, origin_datatype, NULL, 0,
                   MPI_DATATYPE_NULL, target_rank, target_disp, target_count,
                   target_datatype, MPI_OP_NULL, win, call);
}

int tn_mpi_family_Accumulate(const void *origin_addr, MPI_Count origin_count,
                             MPI_Datatype origin_datatype, int target_rank,
                             MPI_Aint target_disp, MPI_Count target_count,
                             MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                             const tn_mpi_call_t *call)
{
    if (call->kind == TN_MPI_CALL_BLOCKING && origin_datatype == target_datatype &&
        origin_count == target_count &&
        direct_acc(TN_RMA_OP_ACC, origin_addr, NULL, origin_count, origin_datatype,
                   target_rank, target_disp, op, win)) {
        return MPI_SUCCESS;
    }
    return data_op(TN_RMA_OP_ACC, origin_addr, origin_count, origin_datatype, NULL, 0,
                   MPI_DATATYPE_NULL, target_rank, target_disp, target_count,
                   target_datatype, op, win, call);
}

int tn_mpi_family_Get_accumulate(const void *origin_addr, MPI_Count origin_count,
                                 MPI_Datatype origin_datatype, void *result_addr,
                                 MPI_Count result_count, MPI_Datatype result_datatype,
                                 int target_rank, MPI_Aint target_disp,
                                 MPI_Count target_count, MPI_Datatype target_datatype,
                                 MPI_Op op, MPI_Win win, const tn_mpi_call_t *call)
{
    return data_op(TN_RMA_OP_GACC, origin_addr, origin_count, origin_datatype, result_addr,
                   result_count, result_datatype, target_rank, target_disp, target_count,
                   target_datatype, op, win, call);
}

int tn_mpi_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                        int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    static const tn_mpi_call_t call = { "MPI_Fetch_and_op", TN_MPI_CALL_BLOCKING, 0, NULL,
                                        MPI_INFO_NULL };
    tn_win_t *w = NULL;
    int rc;
    if (direct_acc(TN_RMA_OP_GACC, origin_addr, result_addr, 1, datatype, target_rank,
                   target_disp, op, win)) {
        return MPI_SUCCESS;
    }
    if ((rc = tn_mpi_win_arg(call.fn, win, &w))) {
        return rc;
    }
    const tn_dt_t *dt = tn_mpi_dt_get(datatype);
    if (dt == NULL || !dt->predefined) {
        return tn_mpi_win_err(w, MPI_ERR_TYPE, call.fn, "datatype",
                              "needs a predefined datatype");
    }
    return data_op(TN_RMA_OP_GACC, origin_addr, 1, datatype, result_addr, 1, datatype,
                   target_rank, target_disp, 1, datatype, op, win, &call);
}

int tn_mpi_Compare_and_swap(const void *origin_addr, const void *compare_addr,
                            void *result_addr, MPI_Datatype datatype, int target_rank,
                            MPI_Aint target_disp, MPI_Win win)
{
    static const char fn[] = "MPI_Compare_and_swap";
    tn_win_t *w = NULL;
    int rc, skip;
    if ((rc = tn_mpi_win_arg(fn, win, &w))) {
        return rc;
    }
    const tn_dt_t *dt = tn_mpi_dt_get(datatype);
    if (dt == NULL || !dt->predefined ||
        !(dt->category & (TN_DC_C_INT | TN_DC_F_INT | TN_DC_LOGICAL | TN_DC_BYTE |
                          TN_DC_MULTI_LANG))) {
        return tn_mpi_win_err(w, MPI_ERR_TYPE, fn, "datatype", "needs a predefined integer, "
                              "logical or byte datatype");
    }
    tn_rma_op_t op = { .kind = TN_RMA_OP_CAS, .oaddr = origin_addr, .ocount = 1, .odt = dt,
                       .raddr = result_addr, .rcount = 1, .rdt = dt, .caddr = compare_addr,
                       .target = target_rank, .disp = target_disp, .tcount = 1, .tdt = dt };
    if ((rc = op_args(fn, w, &op, 1, datatype, 1, datatype, &skip)) || skip) {
        return rc;
    }
    TN_MPI_TRACE(tn_mpi_trace_rma_(w->comm, TERN_TRACE_CAS, target_rank, dt->size));
    static const tn_mpi_call_t call = { "MPI_Compare_and_swap", TN_MPI_CALL_BLOCKING, 0, NULL,
                                        MPI_INFO_NULL };
    return run_op(fn, w, &op, &call);
}

/* ---- synchronisation ------------------------------------------------------------ */

static int sync_done(tn_win_t *w, tn_status_t st, const char *fn)
{
    return st == TN_OK ? MPI_SUCCESS : tn_mpi_win_err_status(w, st, fn);
}

int tn_mpi_Win_fence(int assert, MPI_Win win)
{
    static const char fn[] = "MPI_Win_fence";
    tn_win_t *w = NULL;
    int rc;
    if ((rc = tn_mpi_win_arg(fn, win, &w))) {
        return rc;
    }
    if (w->nlocked > 0 || w->lock_all || w->start_ranks != NULL || w->post_ranks != NULL) {
        return tn_mpi_win_err(w, MPI_ERR_RMA_SYNC, fn, "win", "a lock or PSCW epoch is open");
    }
    tn_mpi_enter();
    tn_status_t st = tn_rma_fence(w);
    tn_mpi_leave();
    w->fence_open = !(assert & MPI_MODE_NOSUCCEED);
    return sync_done(w, st, fn);
}

static int lock_args(const char *fn, MPI_Win win, int rank, tn_win_t **w_p)
{
    int rc;
    if ((rc = tn_mpi_win_arg(fn, win, w_p))) {
        return rc;
    }
    tn_win_t *w = *w_p;
    if (rank == MPI_PROC_NULL) {
        return MPI_SUCCESS;
    }
    if (rank < 0 || rank >= w->comm->size) {
        return tn_mpi_win_err(w, MPI_ERR_RANK, fn, "rank", "%d is not in [0, %d)", rank,
                              w->comm->size);
    }
    return MPI_SUCCESS;
}

int tn_mpi_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    static const char fn[] = "MPI_Win_lock";
    tn_win_t *w = NULL;
    int rc;
    (void)assert;
    if ((rc = lock_args(fn, win, rank, &w)) || rank == MPI_PROC_NULL) {
        return rc;
    }
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE) {
        return tn_mpi_win_err(w, MPI_ERR_LOCKTYPE, fn, "lock_type", "%d is neither "
                              "MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE", lock_type);
    }
    if (w->peers[rank].locked || w->lock_all || w->start_ranks != NULL) {
        return tn_mpi_win_err(w, MPI_ERR_RMA_SYNC, fn, "rank", "an access epoch to rank %d "
                              "is already open", rank);
    }
    if (w->no_locks) {
        return tn_mpi_win_err(w, MPI_ERR_RMA_SYNC, fn, "win", "the window was made with "
                              "the info hint no_locks=true");
    }
    w->fence_open = 0;
    tn_mpi_enter();
    tn_status_t st = tn_rma_lock(w, rank, lock_type == MPI_LOCK_EXCLUSIVE);
    tn_mpi_leave();
    if (st == TN_OK) {
        w->nlocked++;
    }
    return sync_done(w, st, fn);
}

int tn_mpi_Win_unlock(int rank, MPI_Win win)
{
    static const char fn[] = "MPI_Win_unlock";
    tn_win_t *w = NULL;
    int rc;
    if ((rc = lock_args(fn, win, rank, &w)) || rank == MPI_PROC_NULL) {
        return rc;
    }
    if (!w->peers[rank].locked || w->lock_all) {
        return tn_mpi_win_err(w, MPI_ERR_RMA_SYNC, fn, "rank", "rank %d is not locked "
                              "(MPI_Win_lock)", rank);
    }
    tn_mpi_enter();
    tn_status_t st = tn_rma_unlock(w, rank);
    tn_mpi_leave();
    w->nlocked--;
    return sync_done(w, st, fn);
}

int tn_mpi_Win_lock_all(int assert, MPI_Win win)
{
    static const char fn[] = "MPI_Win_lock_all";
    tn_win_t *w = NULL;
    int rc;
    (void)assert;
    if ((rc = tn_mpi_win_arg(fn, win, &w))) {
        return rc;
    }
    if (w->lock_all || w->nlocked > 0 || w->start_ranks != NULL) {
        return tn_mpi_win_err(w, MPI_ERR_RMA_SYNC, fn, "win", "an access epoch is already "
                              "open");
    }
    w->fence_open = 0;
    tn_mpi_enter();
    tn_status_t st = tn_rma_lock_all(w);
    tn_mpi_leave();
    w->lock_all = st == TN_OK;
    return sync_done(w, st, fn);
}

int tn_mpi_Win_unlock_all(MPI_Win win)
{
    static const char fn[] = "MPI_Win_unlock_all";
    tn_win_t *w = NULL;
    int rc;
    if ((rc = tn_mpi_win_arg(fn, win, &w))) {
        return rc;
    }
    if (!w->lock_all) {
        return tn_mpi_win_err(w, MPI_ERR_RMA_SYNC, fn, "win", "no MPI_Win_lock_all epoch "
                              "is open");
    }
    tn_mpi_enter();
    tn_status_t st = tn_rma_unlock_all(w);
    tn_mpi_leave();
    w->lock_all = 0;
    return sync_done(w, st, fn);
}

static int flush(const char *fn, MPI_Win win, int rank, int local)
{
    tn_win_t *w = NULL;
    int rc;
    /* rank -1: every target (the _all forms) */
    if ((rc = lock_args(fn, win, rank == -1 ? MPI_PROC_NULL : rank, &w)) ||
        rank == MPI_PROC_NULL) {
        return rc;
    }
    if (!w->lock_all && (rank < 0 ? w->nlocked == 0 : !w->peers[rank].locked)) {
        return tn_mpi_win_err(w, MPI_ERR_RMA_SYNC, fn, "win", "no passive-target epoch "
                              "(MPI_Win_lock or MPI_Win_lock_all) is open");
    }
    tn_mpi_enter();
    tn_status_t st = tn_rma_flush(w, rank, local);
    tn_mpi_leave();
    return sync_done(w, st, fn);
}

int tn_mpi_Win_flush(int rank, MPI_Win win)
{
    return flush("MPI_Win_flush", win, rank, 0);
}

int tn_mpi_Win_flush_local(int rank, MPI_Win win)
{
    return flush("MPI_Win_flush_local", win, rank, 1);
}

int tn_mpi_Win_flush_all(MPI_Win win)
{
    return flush("MPI_Win_flush_all", win, -1, 0);
}

int tn_mpi_Win_flush_local_all(MPI_Win win)
{
    return flush("MPI_Win_flush_local_all", win, -1, 1);
}

int tn_mpi_Win_sync(MPI_Win win)
{
    tn_win_t *w = NULL;
    int rc;
    if ((rc = tn_mpi_win_arg("MPI_Win_sync", win, &w))) {
        return rc;
    }
    tn_mpi_enter();
    tn_rma_sync(w);
    tn_mpi_leave();
    return MPI_SUCCESS;
}

/* The comm ranks of group's members (each must be in the window). */
static int group_ranks(const char *fn, tn_win_t *w, MPI_Group group, int **ranks_p, int *n_p)
{
    tn_group_t *g = tn_mpi_group_get(group);
    if (g == NULL || group == MPI_GROUP_NULL) {
        return tn_mpi_win_err(w, MPI_ERR_GROUP, fn, "group", "invalid group");
    }
    int *r = malloc((size_t)(g->size > 0 ? g->size : 1) * sizeof(int));
    if (r == NULL) {
        return tn_mpi_win_err(w, MPI_ERR_NO_MEM, fn, NULL, "out of memory");
    }
    for (int i = 0; i < g->size; i++) {
        r[i] = tn_group_rank_of_world(w->comm->group, g->world[i]);
        if (r[i] == MPI_UNDEFINED) {
            free(r);
            return tn_mpi_win_err(w, MPI_ERR_GROUP, fn, "group", "member %d is not in the "
                                  "window's group", i);
        }
    }
    *ranks_p = r;
    *n_p = g->size;
    return MPI_SUCCESS;
}

int tn_mpi_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    static const char fn[] = "MPI_Win_post";
    tn_win_t *w = NULL;
    int rc, *ranks = NULL, n = 0;
    (void)assert;
    if ((rc = tn_mpi_win_arg(fn, win, &w))) {
        return rc;
    }
    if (w->post_ranks != NULL) {
        return tn_mpi_win_err(w, MPI_ERR_RMA_SYNC, fn, "win", "an exposure epoch "
                              "(MPI_Win_post) is already open");
    }
    if ((rc = group_ranks(fn, w, group, &ranks, &n))) {
        return rc;
    }
    tn_mpi_enter();
    tn_status_t st = tn_rma_post(w, n, ranks);
    tn_mpi_leave();
    w->post_ranks = ranks;
    w->npost = n;
    return sync_done(w, st, fn);
}

int tn_mpi_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    static const char fn[] = "MPI_Win_start";
    tn_win_t *w = NULL;
    int rc, *ranks = NULL, n = 0;
    (void)assert;
    if ((rc = tn_mpi_win_arg(fn, win, &w))) {
        return rc;
    }
    if (w->start_ranks != NULL || w->lock_all || w->nlocked > 0) {
        return tn_mpi_win_err(w, MPI_ERR_RMA_SYNC, fn, "win", "an access epoch is already "
                              "open");
    }
    if ((rc = group_ranks(fn, w, group, &ranks, &n))) {
        return rc;
    }
    w->fence_open = 0;
    tn_mpi_enter();
    tn_status_t st = tn_rma_start(w, n, ranks);
    tn_mpi_leave();
    for (int i = 0; i < n; i++) {
        w->peers[ranks[i]].in_start = 1;
    }
    w->start_ranks = ranks;
    w->nstart = n;
    return sync_done(w, st, fn);
}

int tn_mpi_Win_complete(MPI_Win win)
{
    static const char fn[] = "MPI_Win_complete";
    tn_win_t *w = NULL;
    int rc;
    if ((rc = tn_mpi_win_arg(fn, win, &w))) {
        return rc;
    }
    if (w->start_ranks == NULL) {
        return tn_mpi_win_err(w, MPI_ERR_RMA_SYNC, fn, "win", "no MPI_Win_start epoch is "
                              "open");
    }
    tn_mpi_enter();
    tn_status_t st = tn_rma_complete(w, w->nstart, w->start_ranks);
    tn_mpi_leave();
    for (int i = 0; i < w->nstart; i++) {
        w->peers[w->start_ranks[i]].in_start = 0;
    }
    free(w->start_ranks);
    w->start_ranks = NULL;
    w->nstart = 0;
    return sync_done(w, st, fn);
}

static int wait_test(const char *fn, MPI_Win win, int *flag)
{
    tn_win_t *w = NULL;
    int rc, done = 0;
    if ((rc = tn_mpi_win_arg(fn, win, &w))) {
        return rc;
    }
    if (w->post_ranks == NULL) {
        return tn_mpi_win_err(w, MPI_ERR_RMA_SYNC, fn, "win", "no MPI_Win_post epoch is "
                              "open");
    }
    if (flag != NULL || fn[8] == 't') {
        if (flag == NULL) {
            return tn_mpi_win_err(w, MPI_ERR_ARG, fn, "flag", "NULL pointer");
        }
    }
    tn_mpi_enter();
    tn_status_t st = tn_rma_wait(w, w->npost, w->post_ranks, flag != NULL, &done);
    tn_mpi_leave();
    if (flag != NULL) {
        *flag = done;
    }
    if (done) {
        free(w->post_ranks);
        w->post_ranks = NULL;
        w->npost = 0;
    }
    return sync_done(w, st, fn);
}

int tn_mpi_Win_wait(MPI_Win win)
{
    return wait_test("MPI_Win_wait", win, NULL);
}

int tn_mpi_Win_test(MPI_Win win, int *flag)
{
    return wait_test("MPI_Win_test", win, flag);
}
