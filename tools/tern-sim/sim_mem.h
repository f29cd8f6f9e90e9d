/* tern-sim's array growth, shared by its modules: plain arrays grow by
 * realloc; arrays of records that must start on a cache line (so that no
 * record straddles two) are copied into a 64-byte-aligned block, since
 * realloc does not keep that alignment. */
#ifndef TN_SIM_MEM_H
#define TN_SIM_MEM_H

#include <stdlib.h>
#include <string.h>

/* *p grows (or shrinks) to n elements of elem bytes; 0, or -1 with *p
 * untouched. */
static inline int tn_sim_grow(void **p, size_t elem, size_t n)
{
    void *q = realloc(*p, elem * n);
    if (q == NULL) {
        return -1;
    }
    *p = q;
    return 0;
}

/* *p becomes a 64-byte-aligned block of n elements of elem bytes (elem *
 * n a multiple of 64 is not needed) holding its first `used` elements;
 * the rest is not cleared.  0, or -1 with *p untouched. */
static inline int tn_sim_grow_aligned(void **p, size_t elem, size_t used, size_t n)
{
    size_t bytes = (elem * n + 63) / 64 * 64;   /* aligned_alloc wants a multiple */
    void *q = aligned_alloc(64, bytes);
    if (q == NULL) {
        return -1;
    }
    if (*p != NULL) {
        memcpy(q, *p, elem * used);
        free(*p);
    }
    *p = q;
    return 0;
}

#endif
