/* Alltoall by pairwise exchange: in step i (1 <= i < n) every rank sends its
 * block for rank + i and receives the block of rank - i.  n - 1 steps, one
 * message in flight per direction, so no rank is flooded.  In place, the
 * outgoing blocks are first copied aside, since incoming blocks overwrite
 * them. */
#include "coll/coll_util.h"

tn_status_t tn_coll_alltoall_pairwise(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                                      void *rbuf, size_t rcount, const tn_dt_t *rdt,
                                      tn_comm_t *comm)
{
    int n = comm->size, rank = comm->rank;
    size_t rblk = tn_coll_span(rdt, rcount), sblk;
    tn_coll_tmp_t t;
    const char *s;
    char *r = rbuf;
    tn_status_t st = TN_OK;
    int i;

    t.p = NULL;
    if (sbuf == TN_IN_PLACE) {
        if (n == 1) {
            return TN_OK;
        }
        s = tn_coll_tmp_get(&t, (size_t)n * rblk);
        if (s == NULL) {
            return TN_ERR_NOMEM;
        }
        memcpy((char *)s, rbuf, (size_t)n * rblk);
        scount = rcount;
        sdt = rdt;
    } else {
        s = sbuf;
        st = tn_coll_copy(s + (size_t)rank * tn_coll_span(sdt, scount), scount, sdt,
                          r + (size_t)rank * rblk, rcount, rdt, comm);
        if (st != TN_OK) {
            return st;
        }
    }
    sblk = tn_coll_span(sdt, scount);
    for (i = 1; i < n; i++) {
        int dst = (rank + i) % n;
        int src = (rank - i + n) % n;

        st = tn_p2p_sendrecv(s + (size_t)dst * sblk, scount, sdt, dst, TN_COLL_TAG_ALLTOALL,
                             r + (size_t)src * rblk, rcount, rdt, src, TN_COLL_TAG_ALLTOALL,
                             comm, 1, NULL);
        if (st != TN_OK) {
            break;
        }
    }
    if (t.p != NULL) {
        tn_coll_tmp_put(&t);
    }
    return st;
}
