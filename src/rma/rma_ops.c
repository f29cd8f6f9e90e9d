/* One-sided operations: the direct path, and the choice of path. */
#include <stdlib.h>
#include <string.h>
#include "rma/rma_impl.h"
#include "base/monitor.h"

/* inout (target layout tdt x tcount) = origin op inout; the origin data
 * comes in its own layout, so it is first copied into the target's. */
static tn_status_t acc_apply(const tn_rma_op_t *op, char *at)
{
    const tn_dt_t *tdt = op->tdt;
    size_t bytes = tn_dt_bytes(tdt, op->tcount);

    if (op->op->handle == TN_OP_H_NO_OP) {
        return TN_OK;
    }
    if (op->op->handle == TN_OP_H_REPLACE) {
        tn_dt_copy(op->odt, op->oaddr, op->ocount, tdt, at, op->tcount, bytes);
        return TN_OK;
    }
    if (op->odt == tdt && op->ocount == op->tcount) {
        return tn_op_apply(op->op, tdt, tdt->handle, op->oaddr, at, op->tcount);
    }
    size_t span;
    ptrdiff_t shift;
    tn_dt_span(tdt, op->tcount, &span, &shift);
    char *tmp = malloc(span > 0 ? span : 1);
    if (tmp == NULL) {
        return TN_ERR_NOMEM;
    }
    tn_dt_copy(op->odt, op->oaddr, op->ocount, tdt, tmp - shift, op->tcount, bytes);
    tn_status_t st = tn_op_apply(op->op, tdt, tdt->handle, tmp - shift, at, op->tcount);
    free(tmp);
    return st;
}

tn_status_t tn_rma_direct_op(tn_win_t *win, const tn_rma_op_t *op)
{
    const tn_rma_peer_t *p = &win->peers[op->target];
    char *at = p->local + op->disp * p->disp_unit;
    size_t bytes = tn_dt_bytes(op->tdt, op->tcount);
    tn_status_t st = TN_OK;

    /* the monitor's count: at the origin, the bytes at the target (those a
     * get brings back included); message-path operations are counted as
     * the messages they become */
    tn_mon_sent(tn_comm_world_rank(win->comm, op->target), TN_MON_RMA, TN_MON_DIRECT, bytes);
    if (bytes == 0) {
        return TN_OK;
    }
    switch (op->kind) {
    case TN_RMA_OP_PUT:
        tn_dt_copy(op->odt, op->oaddr, op->ocount, op->tdt, at, op->tcount, bytes);
        break;
    case TN_RMA_OP_GET:
        tn_dt_copy(op->tdt, at, op->tcount, op->odt, (void *)op->oaddr, op->ocount, bytes);
        break;
    case TN_RMA_OP_ACC:
        tn_rma_acc_lock(p->lock);
        st = acc_apply(op, at);
        tn_rma_acc_unlock(p->lock);
        break;
    case TN_RMA_OP_GACC:
        tn_rma_acc_lock(p->lock);
        tn_dt_copy(op->tdt, at, op->tcount, op->rdt, op->raddr, op->rcount, bytes);
        st = acc_apply(op, at);
        tn_rma_acc_unlock(p->lock);
        break;
    case TN_RMA_OP_CAS: {
        size_t n = op->tdt->size;
        tn_rma_acc_lock(p->lock);
        memcpy(op->raddr, at, n);
        if (memcmp(op->raddr, op->caddr, n) == 0) {
            memcpy(at, op->oaddr, n);
        }
        tn_rma_acc_unlock(p->lock);
        break;
    }
    }
    return st;
}

tn_status_t tn_rma_op(tn_win_t *win, const tn_rma_op_t *op, tn_req_t **req_p)
{
    tn_req_t *user = NULL;
    tn_status_t st;

    if (req_p != NULL) {
        user = tn_req_new_pending(NULL);
        if (user == NULL) {
            return TN_ERR_NOMEM;
        }
    }
    if (win->peers[op->target].direct) {
        st = tn_rma_direct_op(win, op);
        if (user != NULL) {
            tn_req_finish(user);
        }
    } else {
        st = tn_rma_am_op(win, op, user);    /* its messages count themselves */
    }
    if (st != TN_OK && user != NULL) {
        tn_req_free(user);
        user = NULL;
    }
    if (req_p != NULL && st == TN_OK) {
        *req_p = user;
    }
    return st;
}
