/* Allreduce as a reduce-scatter followed by an allgather (Rabenseifner), for
 * commutative ops.
 *
 * Ranks fold onto p = 2^k new ranks (tn_coll_fold_t: the odd one of each of
 * the first n - p pairs hands its vector to its even neighbour); recursive
 * halving leaves each new rank its piece of the vector reduced over
 * everyone, recursive doubling gathers the pieces everywhere, and the folded
 * ranks get the result from their neighbour.  About 2 vectors moved per
 * rank in 2 log2 p (+2) steps: the choice for long vectors.  Each piece is
 * reduced at one rank only, so every rank gets the same bits. */
#include "coll/coll_util.h"

/* Two ranks, not in place: each receives its half of the other's vector
 * straight into its result and combines its own half from sbuf into it, then
 * the halves are swapped.  No copy of the vector into rbuf first and no
 * temporary: half the memory traffic of the general path. */
static tn_status_t rabenseifner_two(const char *sbuf, char *rbuf, size_t count,
                                    const tn_dt_t *dt, const tn_op_t *op, tn_comm_t *comm)
{
    int rank = comm->rank, other = 1 - rank;
    ptrdiff_t ext = dt->extent;
    size_t off[3] = { 0, tn_coll_piece_off(count, 2, 1), count };
    size_t mine = off[rank + 1] - off[rank], theirs = off[other + 1] - off[other];
    tn_status_t st;

    st = tn_p2p_sendrecv(sbuf + (ptrdiff_t)off[other] * ext, theirs, dt, other,
                         TN_COLL_TAG_ALLREDUCE, rbuf + (ptrdiff_t)off[rank] * ext, mine, dt,
                         other, TN_COLL_TAG_ALLREDUCE, comm, 1, NULL);
    if (st == TN_OK) {
        st = tn_op_apply(op, dt, tn_coll_dt_handle(dt), sbuf + (ptrdiff_t)off[rank] * ext,
                         rbuf + (ptrdiff_t)off[rank] * ext, mine);
    }
    if (st == TN_OK) {
        st = tn_p2p_sendrecv(rbuf + (ptrdiff_t)off[rank] * ext, mine, dt, other,
                             TN_COLL_TAG_ALLREDUCE, rbuf + (ptrdiff_t)off[other] * ext, theirs,
                             dt, other, TN_COLL_TAG_ALLREDUCE, comm, 1, NULL);
    }
    return st;
}

tn_status_t tn_coll_allreduce_rabenseifner(const void *sbuf, void *rbuf, size_t count,
                                           const tn_dt_t *dt, const tn_op_t *op,
                                           tn_comm_t *comm)
{
    int n = comm->size, rank = comm->rank, nr;
    tn_coll_fold_t f;
    tn_coll_pieces_t pc;
    tn_coll_tmp_t t;
    char *acc = rbuf, *tmp;
    tn_status_t st = TN_OK;

    if (n == 2 && sbuf != TN_IN_PLACE) {
        return rabenseifner_two(sbuf, rbuf, count, dt, op, comm);
    }
    if (sbuf != TN_IN_PLACE) {
        st = tn_coll_copy(sbuf, count, dt, rbuf, count, dt, comm);
        if (st != TN_OK) {
            return st;
        }
    }
    tn_coll_fold_init(&f, n, 0);
    pc.count = count;
    pc.p = f.p;
    pc.blocks = NULL;
    tmp = tn_coll_tmp_dt(&t, dt, count);
    if (tmp == NULL) {
        return TN_ERR_NOMEM;
    }

    if (rank < 2 * f.rem) {
        if (rank % 2 == 1) {
            st = tn_p2p_send(acc, count, dt, rank - 1, TN_COLL_TAG_ALLREDUCE, comm, 1);
            if (st == TN_OK) {
                st = tn_p2p_recv(acc, count, dt, rank - 1, TN_COLL_TAG_ALLREDUCE, comm, 1,
                                 NULL);
            }
            goto out;
        }
        st = tn_p2p_recv(tmp, count, dt, rank + 1, TN_COLL_TAG_ALLREDUCE, comm, 1, NULL);
        if (st == TN_OK) {
            st = tn_op_apply(op, dt, tn_coll_dt_handle(dt), tmp, acc, count);
        }
        if (st != TN_OK) {
            goto out;
        }
    }
    nr = tn_coll_fold_newrank(&f, rank);
    st = tn_coll_pieces_halving(acc, tmp, dt, op, &pc, nr, &f, TN_COLL_TAG_ALLREDUCE, comm);
    if (st == TN_OK) {
        st = tn_coll_pieces_doubling(acc, dt, &pc, nr, &f, TN_COLL_TAG_ALLREDUCE, comm);
    }
    if (st == TN_OK && rank < 2 * f.rem) {
        st = tn_p2p_send(acc, count, dt, rank + 1, TN_COLL_TAG_ALLREDUCE, comm, 1);
    }
out:
    tn_coll_tmp_put(&t);
    return st;
}
