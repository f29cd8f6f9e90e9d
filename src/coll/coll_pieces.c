/* Steps on a vector split into pieces, shared by Rabenseifner's reduce and
 * allreduce and by the recursive-halving reduce_scatter.
 *
 * p (a power of two) new ranks take part; piece i belongs to new rank i.
 * Ranges of pieces [a, b) are contiguous element ranges of the vector,
 * [off(a), off(b)), so every step moves one message per direction. */
#include "coll/coll_util.h"

tn_status_t tn_coll_pieces_halving(char *acc, char *tmp, const tn_dt_t *dt,
                                   const tn_op_t *op, const tn_coll_pieces_t *pc, int nr,
                                   const tn_coll_fold_t *f, int tag, tn_comm_t *comm)
{
    uintptr_t dth = tn_coll_dt_handle(dt);
    ptrdiff_t ext = dt->extent;
    int lo = 0, hi = f->p, mask;
    tn_status_t st = TN_OK;

    /* Halve [lo, hi): keep the half holding my piece, send the other half to
     * the partner, which keeps it, and combine its copy of my half into mine. */
    for (mask = f->p / 2; mask > 0; mask >>= 1) {
        int partner = tn_coll_fold_rank(f, nr ^ mask);
        int klo, khi, slo, shi;
        size_t ko, kc, so, sc;

        if ((nr & mask) == 0) {
            klo = lo;
            khi = lo + mask;
            slo = khi;
            shi = hi;
        } else {
            slo = lo;
            shi = lo + mask;
            klo = shi;
            khi = hi;
        }
        ko = tn_coll_pieces_off(pc, klo);
        kc = tn_coll_pieces_off(pc, khi) - ko;
        so = tn_coll_pieces_off(pc, slo);
        sc = tn_coll_pieces_off(pc, shi) - so;
        st = tn_p2p_sendrecv(acc + (ptrdiff_t)so * ext, sc, dt, partner, tag,
                             tmp, kc, dt, partner, tag, comm, 1, NULL);
        if (st != TN_OK) {
            break;
        }
        /* commutative: the order of the operands does not matter */
        st = tn_op_apply(op, dt, dth, tmp, acc + (ptrdiff_t)ko * ext, kc);
        if (st != TN_OK) {
            break;
        }
        lo = klo;
        hi = khi;
    }
    return st;
}

tn_status_t tn_coll_pieces_doubling(char *acc, const tn_dt_t *dt, const tn_coll_pieces_t *pc,
                                    int nr, const tn_coll_fold_t *f, int tag,
                                    tn_comm_t *comm)
{
    ptrdiff_t ext = dt->extent;
    tn_status_t st = TN_OK;
    int mask;

    /* Before the step of mask, I hold the aligned range of mask pieces around
     * mine; the partner holds the neighbouring one. */
    for (mask = 1; mask < f->p; mask <<= 1) {
        int pnr = nr ^ mask;
        int mine = nr & ~(mask - 1), theirs = pnr & ~(mask - 1);
        size_t so = tn_coll_pieces_off(pc, mine);
        size_t sc = tn_coll_pieces_off(pc, mine + mask) - so;
        size_t ro = tn_coll_pieces_off(pc, theirs);
        size_t rc = tn_coll_pieces_off(pc, theirs + mask) - ro;
        int partner = tn_coll_fold_rank(f, pnr);

        st = tn_p2p_sendrecv(acc + (ptrdiff_t)so * ext, sc, dt, partner, tag,
                             acc + (ptrdiff_t)ro * ext, rc, dt, partner, tag, comm, 1, NULL);
        if (st != TN_OK) {
            break;
        }
    }
    return st;
}

tn_status_t tn_coll_pieces_gather(char *acc, const tn_dt_t *dt, const tn_coll_pieces_t *pc,
                                  int nr, const tn_coll_fold_t *f, int tag,
                                  tn_comm_t *comm)
{
    ptrdiff_t ext = dt->extent;
    int mask;

    /* Before the step of mask, a new rank still taking part (a multiple of
     * mask) holds pieces [nr, nr + mask). */
    for (mask = 1; mask < f->p; mask <<= 1) {
        size_t o, c;
        tn_status_t st;

        if (nr & mask) {
            o = tn_coll_pieces_off(pc, nr);
            c = tn_coll_pieces_off(pc, nr + mask) - o;
            return tn_p2p_send(acc + (ptrdiff_t)o * ext, c, dt,
                               tn_coll_fold_rank(f, nr - mask), tag, comm, 1);
        }
        o = tn_coll_pieces_off(pc, nr + mask);
        c = tn_coll_pieces_off(pc, nr + 2 * mask) - o;
        st = tn_p2p_recv(acc + (ptrdiff_t)o * ext, c, dt, tn_coll_fold_rank(f, nr + mask),
                         tag, comm, 1, NULL);
        if (st != TN_OK) {
            return st;
        }
    }
    return TN_OK;
}
