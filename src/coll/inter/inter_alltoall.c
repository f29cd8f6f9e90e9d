/* Intercommunicator allgather and alltoall: every process exchanges
 * directly with every remote process (receives posted first, then sends),
 * one message per pair and direction. */
#include "coll/inter/coll_inter.h"
#include "coll/coll_util.h"

/* Receive block i of rb from remote rank i and send block i of sb (or, when
 * sb is NULL, scount elements of sdt at sbuf) to remote rank i. */
static tn_status_t exchange(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                            const tn_coll_blocks_t *sb, void *rbuf, const tn_coll_blocks_t *rb,
                            int tag, tn_comm_t *comm)
{
    int n = comm->remote->size, i, k = 0;
    tn_req_t **reqs;
    tn_status_t st = TN_OK;

    reqs = malloc(2 * (size_t)n * sizeof(*reqs));
    if (reqs == NULL) {
        return TN_ERR_NOMEM;
    }
    for (i = 0; i < n && st == TN_OK; i++) {
        st = tn_p2p_irecv(tn_coll_blk_ptr(rb, rbuf, i), tn_coll_blk_count(rb, i),
                          tn_coll_blk_dt(rb, i), i, tag, comm, 1, &reqs[k]);
        k += st == TN_OK;
    }
    /* start with my own rank's partner so that not every process sends to
     * remote rank 0 first */
    for (i = 0; i < n && st == TN_OK; i++) {
        int dst = (comm->rank + i) % n;

        if (sb != NULL) {
            st = tn_p2p_isend(tn_coll_blk_ptr(sb, sbuf, dst), tn_coll_blk_count(sb, dst),
                              tn_coll_blk_dt(sb, dst), dst, tag, comm, 1, TN_SEND_STD,
                              &reqs[k]);
        } else {
            st = tn_p2p_isend(sbuf, scount, sdt, dst, tag, comm, 1, TN_SEND_STD, &reqs[k]);
        }
        k += st == TN_OK;
    }
    tn_coll_waitall(k, reqs, &st);
    free(reqs);
    return st;
}

tn_status_t tn_coll_inter_allgather(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                                    void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm)
{
    return exchange(sbuf, scount, sdt, NULL, rbuf, rb, TN_COLL_TAG_ALLGATHER, comm);
}

tn_status_t tn_coll_inter_alltoall(const void *sbuf, const tn_coll_blocks_t *sb, void *rbuf,
                                   const tn_coll_blocks_t *rb, tn_comm_t *comm)
{
    return exchange(sbuf, 0, NULL, sb, rbuf, rb, TN_COLL_TAG_ALLTOALL, comm);
}
