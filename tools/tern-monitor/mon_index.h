/* A small open-addressing index from strings to array positions, for
 * tern-monitor's tables that grow to tens of thousands of entries (nodes,
 * jobs, alert instances): the caller keeps the entries, the index keeps
 * position + 1 per slot and asks the caller for an entry's key. */
#ifndef TN_MON_INDEX_H
#define TN_MON_INDEX_H

#include <stdint.h>

typedef const char *(*tn_mon_index_key_fn_t)(const void *table, uint32_t pos);

typedef struct {
    uint32_t *slot;             /* position + 1, 0: empty */
    uint32_t  cap;              /* a power of two */
    uint32_t  n;
} tn_mon_index_t;

/* The position of key, or -1. */
int64_t tn_mon_index_find(const tn_mon_index_t *ix, const char *key, const void *table,
                          tn_mon_index_key_fn_t key_of);
/* Add pos (whose key is key, not present yet).  0, or -1 out of memory. */
int tn_mon_index_add(tn_mon_index_t *ix, const char *key, uint32_t pos, const void *table,
                     tn_mon_index_key_fn_t key_of);
/* Rebuild from positions 0..n-1 (after entries moved); of entries with
 * the same key, find then gives the last. */
int tn_mon_index_rebuild(tn_mon_index_t *ix, uint32_t n, const void *table,
                         tn_mon_index_key_fn_t key_of);
void tn_mon_index_free(tn_mon_index_t *ix);

#endif
