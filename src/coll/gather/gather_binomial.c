/* Gather along a binomial tree rooted at root.
 *
 * With vr the rank relative to root, rank vr collects the blocks of the
 * relative ranks [vr, vr + sub), sub = min(lowbit(vr), n - vr), from its
 * children vr + 1, vr + 2, vr + 4, ... (each sending its own subtree at
 * once) and sends them to its parent in one message.  Intermediate ranks hold
 * the blocks in their send layout (scount elements of sdt each) in relative
 * order; the root receives each child's subtree straight into recvbuf unless
 * it wraps around the end of the communicator, in which case it goes through
 * a temporary.  log2 n steps; each block crosses log2 n links at most: the
 * choice for short blocks.  Equal blocks only. */
#include "coll/coll_util.h"

/* Root side. */
static tn_status_t gather_root(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                               char *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm)
{
    int n = comm->size, root = comm->rank;
    size_t rcount = rb->count;
    const tn_dt_t *rdt = rb->dt;
    size_t rblk = tn_coll_span(rdt, rcount);
    tn_req_t *reqs[32];
    struct { int first, cnt; tn_coll_tmp_t t; char *buf; } wrap = { 0, 0, { NULL }, NULL };
    int nreq = 0, mask;
    tn_status_t st = TN_OK, st2;

    for (mask = 1; mask < n; mask <<= 1) {
        int cnt = n - mask < mask ? n - mask : mask;   /* child's subtree size */
        int first = (mask + root) % n;                 /* its first real rank */
        char *dst;

        if (first + cnt <= n) {
            dst = rbuf + (size_t)first * rblk;
        } else {
            /* at most one subtree wraps: the one holding relative rank n - root */
            wrap.first = first;
            wrap.cnt = cnt;
            wrap.buf = tn_coll_tmp_dt(&wrap.t, rdt, (size_t)cnt * rcount);
            if (wrap.buf == NULL) {
                st = TN_ERR_NOMEM;
                break;
            }
            dst = wrap.buf;
        }
        st = tn_p2p_irecv(dst, (size_t)cnt * rcount, rdt, (mask + root) % n,
                          TN_COLL_TAG_GATHER, comm, 1, &reqs[nreq]);
        if (st != TN_OK) {
            break;
        }
        nreq++;
    }
    if (st == TN_OK && sbuf != TN_IN_PLACE) {
        st = tn_coll_copy(sbuf, scount, sdt, rbuf + (size_t)root * rblk, rcount, rdt, comm);
    }
    st2 = tn_req_waitall_free(nreq, reqs);
    if (st == TN_OK) {
        st = st2;
    }
    if (wrap.buf != NULL) {
        if (st == TN_OK) {
            size_t head = (size_t)(n - wrap.first);

            st = tn_coll_copy(wrap.buf, head * rcount, rdt, rbuf + (size_t)wrap.first * rblk,
                              head * rcount, rdt, comm);
            if (st == TN_OK) {
                size_t tail = ((size_t)wrap.cnt - head) * rcount;

                st = tn_coll_copy(wrap.buf + head * rblk, tail, rdt, rbuf, tail, rdt, comm);
            }
        }
        tn_coll_tmp_put(&wrap.t);
    }
    return st;
}

tn_status_t tn_coll_gather_binomial(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                                    void *rbuf, const tn_coll_blocks_t *rb, int root,
                                    tn_comm_t *comm)
{
    int n = comm->size, rank = comm->rank;
    int vr = (rank - root + n) % n;
    int low, sub, parent, mask, nreq = 0;
    size_t sblk;
    tn_req_t *reqs[32];
    tn_coll_tmp_t t;
    char *tmp;
    tn_status_t st = TN_OK, st2;

    if (rank == root) {
        return gather_root(sbuf, scount, sdt, rbuf, rb, comm);
    }
    low = tn_coll_lowbit(vr);
    sub = n - vr < low ? n - vr : low;
    parent = (vr - low + root) % n;
    if (sub == 1) {
        /* a leaf sends its own block */
        return tn_p2p_send(sbuf, scount, sdt, parent, TN_COLL_TAG_GATHER, comm, 1);
    }
    sblk = tn_coll_span(sdt, scount);
    tmp = tn_coll_tmp_dt(&t, sdt, (size_t)sub * scount);
    if (tmp == NULL) {
        return TN_ERR_NOMEM;
    }
    for (mask = 1; mask < sub; mask <<= 1) {
        int cnt = sub - mask < mask ? sub - mask : mask;

        st = tn_p2p_irecv(tmp + (size_t)mask * sblk, (size_t)cnt * scount, sdt,
                          (vr + mask + root) % n, TN_COLL_TAG_GATHER, comm, 1, &reqs[nreq]);
        if (st != TN_OK) {
            break;
        }
        nreq++;
    }
    if (st == TN_OK) {
        tn_coll_dup(tmp, sbuf, sdt, scount);
    }
    st2 = tn_req_waitall_free(nreq, reqs);
    if (st == TN_OK) {
        st = st2;
    }
    if (st == TN_OK) {
        st = tn_p2p_send(tmp, (size_t)sub * scount, sdt, parent, TN_COLL_TAG_GATHER, comm, 1);
    }
    tn_coll_tmp_put(&t);
    return st;
}
