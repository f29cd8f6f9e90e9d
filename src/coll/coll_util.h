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

/* NULL only when malloc failed; bytes == 0 gives a valid pointer. */
static inline void *tn_coll_tmp_get(tn_coll_tmp_t *t, size_t bytes)
{
    t->p = bytes <= TN_COLL_TMP_SMALL ? (void *)t->small.bytes : malloc(bytes);
    return t->p;
}

static inline void tn_coll_tmp_put(tn_coll_tmp_t *t)
{
    if (t->p != (void *)t->small.bytes) {
        free(t->p);
    }
    t->p = NULL;
}

/* The handle user reduction functions see for dt. */
static inline uintptr_t tn_coll_dt_handle(const tn_dt_t *dt)
{
    return dt->predefined ? dt->handle : (uintptr_t)dt;
}

/* MPI_BYTE, for zero-byte synchronisation messages and raw exchanges. */
const tn_dt_t *tn_coll_byte_dt(void);

/* Copy scount elements of sdt at sbuf into rcount elements of rdt at rbuf
 * (matching type signatures, as between a rank's send and receive buffer in
 * a collective).  TN_ERR_TRUNCATE when the data does not fit. */
tn_status_t tn_coll_copy(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                         void *rbuf, size_t rcount, const tn_dt_t *rdt, tn_comm_t *comm);

/* Lowest set bit of v (v > 0). */
static inline int tn_coll_lowbit(int v)
{
    return v & -v;
}

#endif
