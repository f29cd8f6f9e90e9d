/* Scatter along a binomial tree rooted at root, equal blocks only.
 *
 * With vr the rank relative to root, rank vr receives the blocks of the
 * relative ranks [vr, vr + sub), sub = min(lowbit(vr), n - vr), from its
 * parent vr - lowbit(vr) in one message, keeps the first and passes each
 * child vr + mask (mask = lowbit(vr)/2, ..., 1) its subtree's blocks.
 * Intermediate ranks hold the blocks in their receive layout (recvcount
 * elements of recvtype each, the only layout they know).  The root sends
 * each child's subtree straight from sendbuf unless it wraps around the end
 * of the communicator, in which case it goes through a temporary.  log2 n
 * steps: the choice for short blocks. */
#include "coll/coll_util.h"

static tn_status_t scatter_root(const void *sbuf, const tn_coll_blocks_t *sb, void *rbuf,
                                size_t rcount, const tn_dt_t *rdt, tn_comm_t *comm)
{
    int n = comm->size, root = comm->rank, nreq = 0, mask;
    const tn_dt_t *sdt = sb->dt;
    size_t scount = sb->count, sblk = tn_coll_span(sdt, scount);
    const char *s = sbuf;
    tn_req_t *reqs[32];
    tn_coll_tmp_t t;
    tn_status_t st = TN_OK;

    t.p = NULL;
    for (mask = 1; mask < n; mask <<= 1) {
    }
    for (mask >>= 1; mask > 0 && st == TN_OK; mask >>= 1) {
        int cnt = n - mask < mask ? n - mask : mask;   /* child's subtree size */
        int first = (mask + root) % n;                 /* its first real rank */
        const char *src = s + (size_t)first * sblk;

        if (first + cnt > n) {
            /* at most one subtree wraps: the one holding relative rank n - root */
            size_t head = (size_t)(n - first);
            char *tmp = tn_coll_tmp_dt(&t, sdt, (size_t)cnt * scount);

            if (tmp == NULL) {
                st = TN_ERR_NOMEM;
                break;
            }
            tn_coll_dup(tmp, src, sdt, head * scount);
            tn_coll_dup(tmp + head * sblk, s, sdt, ((size_t)cnt - head) * scount);
            src = tmp;
        }
        st = tn_p2p_isend(src, (size_t)cnt * scount, sdt, first, TN_COLL_TAG_SCATTER, comm, 1,
                          TN_SEND_STD, &reqs[nreq]);
        if (st == TN_OK) {
            nreq++;
        }
    }
    if (st == TN_OK && rbuf != TN_IN_PLACE) {
        st = tn_coll_copy(s + (size_t)root * sblk, scount, sdt, rbuf, rcount, rdt, comm);
    }
    tn_coll_waitall(nreq, reqs, &st);
    tn_coll_tmp_put(&t);
    return st;
}

tn_status_t tn_coll_scatter_binomial(const void *sbuf, const tn_coll_blocks_t *sb,
                                     void *rbuf, size_t rcount, const tn_dt_t *rdt, int root,
                                     tn_comm_t *comm)
{
    int n = comm->size, rank = comm->rank;
    int vr = (rank - root + n) % n;
    int low, sub, parent, mask, nreq = 0;
    size_t rblk;
    tn_req_t *reqs[32];
    tn_coll_tmp_t t;
    char *tmp;
    tn_status_t st;

    if (rank == root) {
        return scatter_root(sbuf, sb, rbuf, rcount, rdt, comm);
    }
    rblk = tn_coll_span(rdt, rcount);
    low = tn_coll_lowbit(vr);
    sub = n - vr < low ? n - vr : low;
    parent = (vr - low + root) % n;
    if (sub == 1) {
        /* a leaf receives its own block */
        return tn_p2p_recv(rbuf, rcount, rdt, parent, TN_COLL_TAG_SCATTER, comm, 1, NULL);
    }
    tmp = tn_coll_tmp_dt(&t, rdt, (size_t)sub * rcount);
    if (tmp == NULL) {
        return TN_ERR_NOMEM;
    }
    st = tn_p2p_recv(tmp, (size_t)sub * rcount, rdt, parent, TN_COLL_TAG_SCATTER, comm, 1,
                     NULL);
    for (mask = low >> 1; mask > 0 && st == TN_OK; mask >>= 1) {
        int cnt;

        if (vr + mask >= n) {
            continue;
        }
        cnt = n - vr - mask < mask ? n - vr - mask : mask;
        st = tn_p2p_isend(tmp + (size_t)mask * rblk, (size_t)cnt * rcount, rdt,
                          (vr + mask + root) % n, TN_COLL_TAG_SCATTER, comm, 1, TN_SEND_STD,
                          &reqs[nreq]);
        if (st == TN_OK) {
            nreq++;
        }
    }
    if (st == TN_OK) {
        st = tn_coll_copy(tmp, rcount, rdt, rbuf, rcount, rdt, comm);
    }
    tn_coll_waitall(nreq, reqs, &st);
    tn_coll_tmp_put(&t);
    return st;
}
