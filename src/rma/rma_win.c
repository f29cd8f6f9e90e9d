/* Windows: creation of every flavour, free, dynamic regions, queries. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"
#include "rma/rma_impl.h"
#include "base/monitor.h"

/* What every rank tells the others at creation. */
typedef struct {
    uint64_t base, size;
    int64_t  disp_unit;
} tn_rma_card_t;

tn_status_t tn_rma_win_create(tn_comm_t *comm, int flavor, void *base, size_t size,
                              int64_t disp_unit, int noncontig, tn_win_t **win_p)
{
    tn_status_t st;
    tn_win_t *win = calloc(1, sizeof(*win));
    tn_rma_card_t *cards = NULL;
    uint64_t *sizes = NULL;

    if (win == NULL) {
        return TN_ERR_NOMEM;
    }
    win->magic = TN_WIN_MAGIC;
    win->flavor = flavor;
    win->size = size;
    win->disp_unit = disp_unit;
    win->lockp = &win->my_lock;
    win->noncontig = noncontig;
    st = tn_comm_dup(comm, &win->comm);
    if (st != TN_OK) {
        goto err_free;
    }
    win->comm->mon_class = TN_MON_RMA;  /* its messages are one-sided traffic */
    int n = win->comm->size, me = win->comm->rank;
    win->peers = calloc((size_t)n, sizeof(*win->peers));
    cards = calloc((size_t)n, sizeof(*cards));
    sizes = calloc((size_t)n, sizeof(*sizes));
    if (win->peers == NULL || cards == NULL || sizes == NULL) {
        st = TN_ERR_NOMEM;
        goto err_comm;
    }
    tn_rma_card_t mine = { (uint64_t)(uintptr_t)base, size, disp_unit };
    st = tn_coll_allgather(&mine, sizeof(mine), tn_dt_byte(), cards, sizeof(mine),
                           tn_dt_byte(), win->comm);
    if (st != TN_OK) {
        goto err_comm;
    }
    win->my_lidx = -1;
    for (int r = 0; r < n; r++) {
        win->peers[r].lidx = -1;
        win->peers[r].base = cards[r].base;
        win->peers[r].size = cards[r].size;
        win->peers[r].disp_unit = cards[r].disp_unit;
        sizes[r] = cards[r].size;
    }
    switch (flavor) {
    case TN_WIN_ALLOCATE:
    case TN_WIN_SHARED:
        st = tn_rma_seg_map(win, sizes, noncontig);
        if (st != TN_OK) {
            goto err_comm;
        }
        win->base = size > 0 ? win->peers[me].local : NULL;
        if (flavor == TN_WIN_SHARED) {
            win->base = win->peers[me].local;   /* may be used as a base even when 0 */
        }
        break;
    case TN_WIN_CREATE:
        win->base = base;
        win->peers[me].local = base;
        win->peers[me].lock = &win->my_lock;
        win->peers[me].direct = 1;
        break;
    default:                                  /* dynamic: every target by message */
        win->base = NULL;
        win->size = 0;
        break;
    }
    for (int r = 0; r < comm->size; r++) {
        win->am |= !win->peers[r].direct;
    }
    st = tn_rma_am_start(win);
    if (st != TN_OK) {
        goto err_seg;
    }
    free(cards);
    free(sizes);
    *win_p = win;
    return TN_OK;
err_seg:
    tn_rma_seg_unmap(win);
err_comm:
    tn_comm_release(win->comm);
err_free:
    free(cards);
    free(sizes);
    free(win->peers);
    free(win);
    return st;
}

tn_status_t tn_rma_win_free(tn_win_t *win)
{
    /* my requests done, then every rank's: after the barrier no one sends
     * to this window again */
    tn_status_t st = tn_rma_am_drain(win, -1);
    tn_status_t st2 = tn_coll_barrier(win->comm);
    if (st == TN_OK) {
        st = st2;
    }
    tn_rma_am_stop(win);
    for (int r = 0; r < win->comm->size; r++) {
        free(win->peers[r].batch);            /* left only when a send failed */
    }
    tn_rma_seg_unmap(win);
    tn_comm_release(win->comm);
    free(win->peers);
    free(win->regions);
    win->magic = 0;
    free(win);
    return st;
}

tn_status_t tn_rma_attach(tn_win_t *win, void *base, size_t size)
{
    if (win->nregions == win->cap_regions) {
        int cap = win->cap_regions ? 2 * win->cap_regions : 4;
        tn_rma_region_t *g = realloc(win->regions, (size_t)cap * sizeof(*g));
        if (g == NULL) {
            return TN_ERR_NOMEM;
        }
        win->regions = g;
        win->cap_regions = cap;
    }
    win->regions[win->nregions].base = (uintptr_t)base;
    win->regions[win->nregions].size = size;
    win->nregions++;
    return TN_OK;
}

tn_status_t tn_rma_detach(tn_win_t *win, const void *base)
{
    for (int i = 0; i < win->nregions; i++) {
        if (win->regions[i].base == (uintptr_t)base) {
            win->regions[i] = win->regions[--win->nregions];
            return TN_OK;
        }
    }
    return TN_ERR_INVAL;
}

void tn_rma_shared_query(tn_win_t *win, int r, void **base_p, size_t *size_p,
                         int64_t *disp_unit_p)
{
    if (r < 0) {                              /* MPI_PROC_NULL: the first with memory */
        for (r = 0; r < win->comm->size - 1 && win->peers[r].size == 0; r++) {
        }
    }
    const tn_rma_peer_t *p = &win->peers[r];
    *base_p = p->direct ? p->local : NULL;
    *size_p = p->direct ? (size_t)p->size : 0;
    *disp_unit_p = p->disp_unit;
}

int tn_rma_in_range(const tn_win_t *win, int target, int64_t disp, const tn_dt_t *dt,
                    size_t count)
{
    if (win->flavor == TN_WIN_DYNAMIC || count == 0) {
        return 1;                             /* the target checks attached regions */
    }
    const tn_rma_peer_t *p = &win->peers[target];
    size_t span;
    ptrdiff_t shift;
    uint64_t bytes, lo;
    if (dt->is_contig && dt->true_lb == 0 && disp >= 0 &&
        !__builtin_mul_overflow((uint64_t)count, (uint64_t)dt->size, &bytes) &&
        !__builtin_mul_overflow((uint64_t)disp, (uint64_t)p->disp_unit, &lo)) {
        /* the common case, without divisions or 128-bit arithmetic */
        return lo <= p->size && bytes <= p->size - lo;
    }
    tn_dt_span(dt, count, &span, &shift);
    /* bytes [disp*unit + shift, + span) */
    __int128 first = (__int128)disp * p->disp_unit + shift;
    return first >= 0 && first + (__int128)span <= (__int128)p->size;
}
