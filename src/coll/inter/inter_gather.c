/* Intercommunicator gather and scatter: the root talks to every remote
 * rank directly (no process of the other group forwards data), so the
 * vector forms cost nothing extra. */
#include "coll/inter/coll_inter.h"
#include "coll/coll_util.h"

/* Post one request per remote rank i (receive into / send from block i of
 * the root's buffer) and wait for them all. */
static tn_status_t root_linear(const void *sbuf, const tn_coll_blocks_t *sb, void *rbuf,
                               const tn_coll_blocks_t *rb, int tag, tn_comm_t *comm)
{
    int n = comm->remote->size, i;
    tn_req_t **reqs;
    tn_status_t st = TN_OK;

    reqs = malloc((size_t)n * sizeof(*reqs));
    if (reqs == NULL) {
        return TN_ERR_NOMEM;
    }
    for (i = 0; i < n && st == TN_OK; i++) {
        if (rb != NULL) {
            st = tn_p2p_irecv(tn_coll_blk_ptr(rb, rbuf, i), tn_coll_blk_count(rb, i),
                              tn_coll_blk_dt(rb, i), i, tag, comm, 1, &reqs[i]);
        } else {
            st = tn_p2p_isend(tn_coll_blk_ptr(sb, sbuf, i), tn_coll_blk_count(sb, i),
                              tn_coll_blk_dt(sb, i), i, tag, comm, 1, TN_SEND_STD, &reqs[i]);
        }
    }
    if (st != TN_OK) {
        i--;      /* reqs[i] was not made */
    }
    tn_coll_waitall(i, reqs, &st);
    free(reqs);
    return st;
}

tn_status_t tn_coll_inter_gather(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                                 void *rbuf, const tn_coll_blocks_t *rb, int root,
                                 tn_comm_t *comm)
{
    if (root == TN_PROC_NULL) {
        return TN_OK;
    }
    if (root == TN_COLL_ROOT) {
        return root_linear(NULL, NULL, rbuf, rb, TN_COLL_TAG_GATHER, comm);
    }
    return tn_p2p_send(sbuf, scount, sdt, root, TN_COLL_TAG_GATHER, comm, 1);
}

tn_status_t tn_coll_inter_scatter(const void *sbuf, const tn_coll_blocks_t *sb, void *rbuf,
                                  size_t rcount, const tn_dt_t *rdt, int root,
                                  tn_comm_t *comm)
{
    if (root == TN_PROC_NULL) {
        return TN_OK;
    }
    if (root == TN_COLL_ROOT) {
        return root_linear(sbuf, sb, NULL, NULL, TN_COLL_TAG_SCATTER, comm);
    }
    return tn_p2p_recv(rbuf, rcount, rdt, root, TN_COLL_TAG_SCATTER, comm, 1, NULL);
}
