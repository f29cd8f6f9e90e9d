/* Neighbourhood allgather(v) and alltoall(v,w): one round, a receive per
 * in-neighbour and a send per out-neighbour, in the order of
 * tn_topo_neighbors.
 *
 * On a Cartesian grid one rank can be both neighbours of a dimension (a
 * periodic dimension of size 1 or 2); the message a rank sends to its -1
 * neighbour arrives at that neighbour's +1 slot and the other way round,
 * so each message carries its slot as sub-tag (2 d for the -1 side, 2 d + 1
 * for the +1 side) and the receiver expects the mirrored slot.  Graph
 * neighbours match in adjacency order (sub-tag 0). */
#include "coll/coll_sched.h"
#include "coll/coll_util.h"
#include "comm/topo.h"

typedef struct {
    int  indeg, outdeg, cart;
    int *src, *dst;
} tn_nbrs_t;

static int tn_nbrs_get(tn_sched_t *s, tn_comm_t *comm, tn_nbrs_t *nb)
{
    tn_topo_neighbors(comm->topo, comm->rank, &nb->indeg, &nb->outdeg, NULL, NULL);
    nb->src = malloc(((size_t)nb->indeg + (size_t)nb->outdeg + 1) * sizeof(int));
    if (nb->src == NULL) {
        tn_sched_fail(s, TN_ERR_NOMEM);
        return 0;
    }
    nb->dst = nb->src + nb->indeg;
    tn_topo_neighbors(comm->topo, comm->rank, &nb->indeg, &nb->outdeg, nb->src, nb->dst);
    nb->cart = comm->topo->kind == TN_TOPO_CART;
    return 1;
}

static int tn_nbrs_sub_in(const tn_nbrs_t *nb, int i)
{
    return nb->cart ? (i ^ 1) % TN_SCHED_TAG_SUBS : 0;
}

static int tn_nbrs_sub_out(const tn_nbrs_t *nb, int j)
{
    return nb->cart ? j % TN_SCHED_TAG_SUBS : 0;
}

void tn_nbc_neighbor_allgather(tn_sched_t *s, const void *sbuf, size_t scount,
                               const tn_dt_t *sdt, void *rbuf, const tn_coll_blocks_t *rb,
                               tn_comm_t *comm)
{
    tn_nbrs_t nb;

    if (!tn_nbrs_get(s, comm, &nb)) {
        return;
    }
    for (int i = 0; i < nb.indeg; i++) {
        if (nb.src[i] != TN_TOPO_PROC_NULL) {
            tn_sched_recv_sub(s, tn_coll_blk_ptr(rb, rbuf, i), tn_coll_blk_count(rb, i),
                              tn_coll_blk_dt(rb, i), nb.src[i], tn_nbrs_sub_in(&nb, i));
        }
    }
    for (int j = 0; j < nb.outdeg; j++) {
        if (nb.dst[j] != TN_TOPO_PROC_NULL) {
            tn_sched_send_sub(s, sbuf, scount, sdt, nb.dst[j], tn_nbrs_sub_out(&nb, j));
        }
    }
    free(nb.src);
}

void tn_nbc_neighbor_alltoall(tn_sched_t *s, const void *sbuf, const tn_coll_blocks_t *sb,
                              void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm)
{
    tn_nbrs_t nb;

    if (!tn_nbrs_get(s, comm, &nb)) {
        return;
    }
    for (int i = 0; i < nb.indeg; i++) {
        if (nb.src[i] != TN_TOPO_PROC_NULL) {
            tn_sched_recv_sub(s, tn_coll_blk_ptr(rb, rbuf, i), tn_coll_blk_count(rb, i),
                              tn_coll_blk_dt(rb, i), nb.src[i], tn_nbrs_sub_in(&nb, i));
        }
    }
    for (int j = 0; j < nb.outdeg; j++) {
        if (nb.dst[j] != TN_TOPO_PROC_NULL) {
            tn_sched_send_sub(s, tn_coll_blk_ptr(sb, sbuf, j), tn_coll_blk_count(sb, j),
                              tn_coll_blk_dt(sb, j), nb.dst[j], tn_nbrs_sub_out(&nb, j));
        }
    }
    free(nb.src);
}
