/* Helpers shared by the collective algorithms (not for use outside coll/). */
#ifndef TN_COLL_COLL_UTIL_H
#define TN_COLL_COLL_UTIL_H

#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"
#include "p2p/p2p.h"

/* A temporary buffer that lives on the stack when small: small messages
 * never call malloc. */
#define TN_COLL_TMP_SMALL 256

typedef struct {
    void *p;
    union {
        char        bytes[TN_COLL_TMP_SMALL];
        long double align_;
        void       *palign_;
    } small;
} tn_coll_tmp_t;

/* Bytes of count elements laid out by extent. */
static inline size_t tn_coll_span(const tn_dt_t *dt, size_t count)
{
    return (size_t)dt->extent * count;
}

/* Larger temporaries (coll_util.c).  Freed ones are kept for the next
 * collective instead of going back to malloc: a buffer above malloc's mmap
 * threshold would otherwise come back as fresh pages, zeroed and faulted in
 * on every call, which costs more than the collective's own copies. */
void *tn_coll_buf_get(size_t bytes);
void tn_coll_buf_put(void *p);

/* NULL only when malloc failed; bytes == 0 gives a valid pointer. */
static inline void *tn_coll_tmp_get(tn_coll_tmp_t *t, size_t bytes)
{
    t->p = bytes <= TN_COLL_TMP_SMALL ? (void *)t->small.bytes : tn_coll_buf_get(bytes);
    return t->p;
}

/* Safe on a tn_coll_tmp_t whose p is NULL (never got). */
static inline void tn_coll_tmp_put(tn_coll_tmp_t *t)
{
    if (t->p != (void *)t->small.bytes) {
        tn_coll_buf_put(t->p);
    }
    t->p = NULL;
}

/* The data of count elements of dt: bytes [*lo_p, *lo_p + span) from the
 * buffer address (data may start before it: negative true_lb or extent).
 * Returns span; 0 for no elements. */
static inline size_t tn_coll_true_range(const tn_dt_t *dt, size_t count, ptrdiff_t *lo_p)
{
    ptrdiff_t lo = dt->true_lb, hi = dt->true_lb + dt->true_extent;
    ptrdiff_t step = count == 0 ? 0 : (ptrdiff_t)(count - 1) * dt->extent;

    if (count == 0) {
        *lo_p = 0;
        return 0;
    }
    if (step < 0) {
        lo += step;
    } else {
        hi += step;
    }
    *lo_p = lo;
    return (size_t)(hi - lo);
}

/* A temporary for count elements of dt in dt's own layout: returns the
 * address to use as the buffer (element i at + i * extent), or NULL when
 * malloc failed.  It covers the data and also the count * extent bytes from
 * the address, since the reduction kernels of the pair types store whole C
 * structs, padding included. */
static inline char *tn_coll_tmp_dt(tn_coll_tmp_t *t, const tn_dt_t *dt, size_t count)
{
    ptrdiff_t lo, hi, whole = (ptrdiff_t)count * dt->extent;
    char *p;

    hi = (ptrdiff_t)tn_coll_true_range(dt, count, &lo);
    hi += lo;
    if (count > 0 && whole > hi) {
        hi = whole;
    }
    if (count > 0 && lo > 0) {
        lo = 0;
    }
    p = tn_coll_tmp_get(t, (size_t)(hi - lo));
    return p == NULL ? NULL : p - lo;
}

/* Copy count elements of dt between two buffers laid out by dt, holes
 * included: for temporaries (use tn_coll_copy to write user buffers). */
static inline void tn_coll_dup(void *dst, const void *src, const tn_dt_t *dt, size_t count)
{
    ptrdiff_t lo;
    size_t span = tn_coll_true_range(dt, count, &lo);

    if (span > 0 && dst != src) {
        memmove((char *)dst + lo, (const char *)src + lo, span);
    }
}

/* Element offset of piece i when count elements are split into p pieces as
 * evenly as possible (the first count % p pieces one element longer). */
static inline size_t tn_coll_piece_off(size_t count, int p, int i)
{
    size_t q = count / (size_t)p, r = count % (size_t)p;

    return (size_t)i * q + ((size_t)i < r ? (size_t)i : r);
}

/* ---- block layouts (tn_coll_blocks_t) ---------------------------------- */
static inline int tn_coll_blk_uniform(const tn_coll_blocks_t *b)
{
    return b->counts == NULL;
}

static inline size_t tn_coll_blk_count(const tn_coll_blocks_t *b, int i)
{
    if (b->counts == NULL) {
        return b->count;
    }
    return b->wide ? (size_t)((const int64_t *)b->counts)[i]
                   : (size_t)((const int *)b->counts)[i];
}

static inline const tn_dt_t *tn_coll_blk_dt(const tn_coll_blocks_t *b, int i)
{
    return b->dts != NULL ? b->dts[i] : b->dt;
}

/* Byte offset of block i from the buffer. */
static inline ptrdiff_t tn_coll_blk_off(const tn_coll_blocks_t *b, int i)
{
    ptrdiff_t d;

    if (b->counts == NULL) {
        return (ptrdiff_t)i * (ptrdiff_t)b->count * b->dt->extent;
    }
    d = b->wide ? (ptrdiff_t)((const int64_t *)b->displs)[i]
                : (ptrdiff_t)((const int *)b->displs)[i];
    return b->dts != NULL ? d : d * b->dt->extent;
}

static inline char *tn_coll_blk_ptr(const tn_coll_blocks_t *b, const void *buf, int i)
{
    return (char *)buf + tn_coll_blk_off(b, i);
}

/* Block i of a send buffer s whose blocks were moved back by shift bytes
 * (tn_coll_inplace_save; shift 0 for the user's buffer). */
static inline const char *tn_coll_src_ptr(const tn_coll_blocks_t *b, const char *s,
                                          ptrdiff_t shift, int i)
{
    return s + (tn_coll_blk_off(b, i) - shift);
}

/* Sum of the counts of blocks [0, i): where block i starts when blocks
 * follow each other (reduce_scatter).  O(i) for non-uniform blocks. */
static inline size_t tn_coll_blk_prefix(const tn_coll_blocks_t *b, int i)
{
    size_t s = 0;
    int j;

    if (b->counts == NULL) {
        return (size_t)i * b->count;
    }
    for (j = 0; j < i; j++) {
        s += tn_coll_blk_count(b, j);
    }
    return s;
}

/* A layout of n blocks as a set of pieces: element offsets into one vector
 * of the blocks' type.  Either count elements split evenly into p pieces
 * (blocks == NULL) or the blocks of reduce_scatter, one after the other. */
typedef struct {
    size_t                  count;
    int                     p;
    const tn_coll_blocks_t *blocks;
} tn_coll_pieces_t;

static inline size_t tn_coll_pieces_off(const tn_coll_pieces_t *pc, int i)
{
    return pc->blocks != NULL ? tn_coll_blk_prefix(pc->blocks, i)
                              : tn_coll_piece_off(pc->count, pc->p, i);
}

/* ---- ranks ------------------------------------------------------------- */
/* Largest power of two <= n (n >= 1). */
static inline int tn_coll_pof2_floor(int n)
{
    int p = 1;

    while (p * 2 <= n) {
        p *= 2;
    }
    return p;
}

static inline int tn_coll_is_pof2(int n)
{
    return n > 0 && (n & (n - 1)) == 0;
}

/* Lowest set bit of v (v > 0). */
static inline int tn_coll_lowbit(int v)
{
    return v & -v;
}

/* Folding n ranks onto p = pof2_floor(n) for the power-of-two algorithms of
 * commutative ops: with vr = (rank - root) mod n and rem = n - p, among the
 * first 2 rem relative ranks each odd one hands its data to the even one
 * below it and sits out; the others get new ranks nr = vr / 2 (vr < 2 rem)
 * or vr - rem.  The root keeps new rank 0. */
typedef struct {
    int n, p, rem, root;
} tn_coll_fold_t;

static inline void tn_coll_fold_init(tn_coll_fold_t *f, int n, int root)
{
    f->n = n;
    f->p = tn_coll_pof2_floor(n);
    f->rem = n - f->p;
    f->root = root;
}

/* New rank of relative rank vr, or -1 when it sits out. */
static inline int tn_coll_fold_newrank(const tn_coll_fold_t *f, int vr)
{
    if (vr < 2 * f->rem) {
        return vr % 2 == 0 ? vr / 2 : -1;
    }
    return vr - f->rem;
}

/* Communicator rank of new rank nr. */
static inline int tn_coll_fold_rank(const tn_coll_fold_t *f, int nr)
{
    int vr = nr < f->rem ? nr * 2 : nr + f->rem;

    return (vr + f->root) % f->n;
}

/* ---- nodes (the two-level algorithms) ---------------------------------- */
/* Whether node k's ranks are consecutive comm ranks, so that their blocks
 * form one run in a buffer of per-rank blocks. */
static inline int tn_coll_node_is_run(const tn_comm_nodes_t *m, int k)
{
    const int *o = m->order + m->start[k];

    return o[m->nlocal[k] - 1] - o[0] == m->nlocal[k] - 1;
}

/* Bytes of the blocks (blk bytes per rank) of the nodes before node upto
 * whose ranks are not one run: where node upto's blocks start in a
 * temporary that holds only those nodes' blocks, packed (upto = nnodes:
 * its size). */
static inline size_t tn_coll_nodes_packed(const tn_comm_nodes_t *m, size_t blk, int upto)
{
    size_t bytes = 0;

    for (int k = 0; k < upto; k++) {
        bytes += tn_coll_node_is_run(m, k) ? 0 : (size_t)m->nlocal[k] * blk;
    }
    return bytes;
}

/* Rank of comm rank r in its node's communicator (the node's ranks in comm
 * order).  O(ranks on the node). */
static inline int tn_coll_node_rank(const tn_comm_nodes_t *m, int r)
{
    const int *o = m->order + m->start[m->node_of[r]];
    int j = 0;

    while (o[j] != r) {
        j++;
    }
    return j;
}

/* The handle user reduction functions see for dt. */
static inline uintptr_t tn_coll_dt_handle(const tn_dt_t *dt)
{
    return dt->predefined ? dt->handle : (uintptr_t)dt;
}

/* Copy scount elements of sdt at sbuf into rcount elements of rdt at rbuf
 * (matching type signatures, as between a rank's send and receive buffer in
 * a collective), writing only the data bytes of rbuf.  TN_ERR_TRUNCATE when
 * the data does not fit. */
tn_status_t tn_coll_copy(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                         void *rbuf, size_t rcount, const tn_dt_t *rdt, tn_comm_t *comm);

/* Unpack the first len packed bytes at bytes into count elements of dt at
 * buf, or as many as buf holds: TN_ERR_TRUNCATE when len is more than that
 * (buf then holds the bytes that fit, as after a truncated point-to-point
 * receive), TN_OK otherwise (less than buf holds: the rest is untouched). */
tn_status_t tn_coll_unpack_prefix(const void *bytes, size_t len, void *buf, size_t count,
                                  const tn_dt_t *dt);

/* The algorithm for a call of kind on comm (coll.c: TERN_COLL_<KIND> when
 * its restrictions hold, else the rules), for a message size (bytes, as the
 * rules measure it) that every rank agreed on: the communicator's
 * shared-memory slot uses it once the ranks have compared their sizes
 * (coll_shm.h).  Never NULL. */
const tn_coll_algo_t *tn_coll_pick(tn_coll_kind_t kind, tn_comm_t *comm, size_t bytes,
                                   int commutative, int inplace, int vector);

static inline int tn_coll_algo_is_shm(const tn_coll_algo_t *a)
{
    return (a->restrict_ & TN_COLL_R_SHM) != 0;
}

/* The packed bytes of count elements of dt as one buffer, for algorithms
 * that cut a message into pieces: ranks may describe the same bytes with
 * different (count, datatype) pairs (MPI_INT x 262144 at the root, a type
 * of 2 ints x 131072 elsewhere), so pieces must be cut in the byte stream,
 * never by a rank's own element count.  Returns the user's buffer when dt's
 * data is contiguous, otherwise a temporary (t) holding the packed data when
 * pack != 0; NULL when malloc failed.  tn_coll_stream_put unpacks it into
 * buf when unpack != 0 and frees it. */
char *tn_coll_stream_get(void *buf, size_t count, const tn_dt_t *dt, int pack,
                         tn_coll_tmp_t *t);
void tn_coll_stream_put(char *bytes, void *buf, size_t count, const tn_dt_t *dt, int unpack,
                        tn_coll_tmp_t *t);

/* For in-place alltoall: copy the bytes that the blocks of rb cover in rbuf
 * into a temporary (t), so the outgoing data survives incoming blocks.
 * Block i's copy lies at tmp + tn_coll_blk_off(rb, i) - *shift_p.  Returns
 * the temporary, or NULL when malloc failed. */
char *tn_coll_inplace_save(const tn_coll_blocks_t *rb, const void *rbuf, int n,
                           tn_coll_tmp_t *t, ptrdiff_t *shift_p);

/* Building blocks on pieces (coll_pieces.c), for p = power-of-two new ranks
 * nr mapped to communicator ranks through fold f, tag tag.  acc holds the
 * whole vector (pc's pieces of dt); tmp room for half of it or more.
 *
 * Recursive halving: afterwards new rank nr holds in acc piece nr reduced
 * over the p new ranks (commutative ops only). */
tn_status_t tn_coll_pieces_halving(char *acc, char *tmp, const tn_dt_t *dt,
                                   const tn_op_t *op, const tn_coll_pieces_t *pc, int nr,
                                   const tn_coll_fold_t *f, int tag, tn_comm_t *comm);
/* Recursive doubling allgather: from piece nr to all pieces. */
tn_status_t tn_coll_pieces_doubling(char *acc, const tn_dt_t *dt, const tn_coll_pieces_t *pc,
                                    int nr, const tn_coll_fold_t *f, int tag,
                                    tn_comm_t *comm);
/* Binomial gather of the pieces to new rank 0. */
tn_status_t tn_coll_pieces_gather(char *acc, const tn_dt_t *dt, const tn_coll_pieces_t *pc,
                                  int nr, const tn_coll_fold_t *f, int tag,
                                  tn_comm_t *comm);

/* Wait for and free the n requests in reqs, keeping the first error in *st_p. */
static inline void tn_coll_waitall(int n, tn_req_t **reqs, tn_status_t *st_p)
{
    tn_status_t st = tn_req_waitall_free(n, reqs);

    if (*st_p == TN_OK) {
        *st_p = st;
    }
}

#endif
