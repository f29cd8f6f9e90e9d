/* Broadcast as a scatter followed by an allgather (van de Geijn).
 *
 * The packed byte stream (tn_coll_stream_get: the same on every rank,
 * whatever (count, datatype) each passed) is split into n pieces
 * (tn_coll_piece_off), piece i for relative rank vr = i.  A binomial scatter gives every rank its
 * piece: a rank receives the pieces of its subtree [vr, vr + sub) from its
 * parent in one message and passes each child its subtree's pieces, which
 * are contiguous because pieces are in relative order.  A ring allgather
 * then circulates the pieces: in step i, vr passes piece vr - i to vr + 1.
 * The root already holds every piece, so it only sends and its left
 * neighbour never sends to it.  Each rank moves about 2 (n-1)/n of the
 * buffer instead of log2 n whole copies: the choice for medium and large
 * messages.  Pieces may be empty when the message has fewer bytes than
 * there are ranks. */
#include "coll/coll_util.h"

static tn_status_t bcast_sag(char *b, size_t count, int root, tn_comm_t *comm);

tn_status_t tn_coll_bcast_scatter_allgather(void *buf, size_t count, const tn_dt_t *dt,
                                            int root, tn_comm_t *comm)
{
    int vr = (comm->rank - root + comm->size) % comm->size;
    tn_coll_tmp_t t;
    char *b = tn_coll_stream_get(buf, count, dt, vr == 0, &t);
    tn_status_t st;

    if (b == NULL) {
        return TN_ERR_NOMEM;
    }
    st = bcast_sag(b, tn_dt_bytes(dt, count), root, comm);
    tn_coll_stream_put(b, buf, count, dt, vr != 0 && st == TN_OK, &t);
    return st;
}

/* The algorithm on count bytes at b. */
static tn_status_t bcast_sag(char *b, size_t count, int root, tn_comm_t *comm)
{
    int n = comm->size, vr = (comm->rank - root + n) % n;
    const ptrdiff_t ext = 1;
    const tn_dt_t *dt = tn_dt_byte();
    tn_req_t *reqs[32];
    int nreq = 0, mask, i;
    tn_status_t st = TN_OK;

#define PIECE(i) tn_coll_piece_off(count, n, (i))
#define REAL(v) (((v) + root) % n)
    /* scatter: my subtree's pieces from my parent; mask ends at my lowest
     * set bit, or the first power of two >= n at the root */
    for (mask = 1; mask < n; mask <<= 1) {
        if (vr & mask) {
            int sub = n - vr < mask ? n - vr : mask;

            st = tn_p2p_recv(b + (ptrdiff_t)PIECE(vr) * ext, PIECE(vr + sub) - PIECE(vr), dt,
                             REAL(vr - mask), TN_COLL_TAG_BCAST, comm, 1, NULL);
            if (st != TN_OK) {
                return st;
            }
            break;
        }
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        int child = vr + mask;
        int sub;

        if (child >= n) {
            continue;
        }
        sub = n - child < mask ? n - child : mask;
        st = tn_p2p_isend(b + (ptrdiff_t)PIECE(child) * ext, PIECE(child + sub) - PIECE(child),
                          dt, REAL(child), TN_COLL_TAG_BCAST, comm, 1, TN_SEND_STD,
                          &reqs[nreq]);
        if (st != TN_OK) {
            break;
        }
        nreq++;
    }
    tn_coll_waitall(nreq, reqs, &st);
    if (st != TN_OK) {
        return st;
    }

    /* allgather around the ring 0 -> 1 -> ... -> n-1 (-> not back to 0) */
    for (i = 0; i < n - 1; i++) {
        int sp = (vr - i + n) % n, rp = (vr - i - 1 + n) % n;
        char *sptr = b + (ptrdiff_t)PIECE(sp) * ext, *rptr = b + (ptrdiff_t)PIECE(rp) * ext;
        size_t sc = PIECE(sp + 1) - PIECE(sp), rc = PIECE(rp + 1) - PIECE(rp);

        if (vr == 0) {
            st = tn_p2p_send(sptr, sc, dt, REAL(1), TN_COLL_TAG_BCAST, comm, 1);
        } else if (vr == n - 1) {
            st = tn_p2p_recv(rptr, rc, dt, REAL(vr - 1), TN_COLL_TAG_BCAST, comm, 1, NULL);
        } else {
            st = tn_p2p_sendrecv(sptr, sc, dt, REAL(vr + 1), TN_COLL_TAG_BCAST,
                                 rptr, rc, dt, REAL(vr - 1), TN_COLL_TAG_BCAST, comm, 1,
                                 NULL);
        }
        if (st != TN_OK) {
            return st;
        }
    }
#undef PIECE
#undef REAL
    return TN_OK;
}
