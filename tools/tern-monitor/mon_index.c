/* The string index (mon_index.h). */
#include "mon_index.h"

#include <stdlib.h>
#include <string.h>

static uint32_t index_hash(const char *s)
{
    uint32_t h = 2166136261u;           /* FNV-1a */
    for (; *s != '\0'; s++) {
        h = (h ^ (uint8_t)*s) * 16777619u;
    }
    return h;
}

int64_t tn_mon_index_find(const tn_mon_index_t *ix, const char *key, const void *table,
                          tn_mon_index_key_fn_t key_of)
{
    if (ix->cap == 0) {
        return -1;
    }
    for (uint32_t h = index_hash(key) & (ix->cap - 1);; h = (h + 1) & (ix->cap - 1)) {
        uint32_t e = ix->slot[h];
        if (e == 0) {
            return -1;
        }
        if (strcmp(key_of(table, e - 1), key) == 0) {
            return (int64_t)e - 1;
        }
    }
}

static void index_put(uint32_t *slot, uint32_t cap, const char *key, uint32_t pos)
{
    uint32_t h = index_hash(key) & (cap - 1);
    while (slot[h] != 0) {
        h = (h + 1) & (cap - 1);
    }
    slot[h] = pos + 1;
}

int tn_mon_index_rebuild(tn_mon_index_t *ix, uint32_t n, const void *table,
                         tn_mon_index_key_fn_t key_of)
{
    uint32_t cap = ix->cap ? ix->cap : 64;
    while (cap < 2 * (n + 1)) {
        cap *= 2;
    }
    uint32_t *slot = calloc(cap, sizeof(*slot));
    if (slot == NULL) {
        return -1;
    }
    /* the latest first: of entries with one key, the index finds the last */
    for (uint32_t i = n; i-- > 0;) {
        index_put(slot, cap, key_of(table, i), i);
    }
    free(ix->slot);
    ix->slot = slot;
    ix->cap = cap;
    ix->n = n;
    return 0;
}

int tn_mon_index_add(tn_mon_index_t *ix, const char *key, uint32_t pos, const void *table,
                     tn_mon_index_key_fn_t key_of)
{
    if (2 * (ix->n + 1) >= ix->cap) {
        /* grow: every entry placed again, the new one among them */
        uint32_t n = ix->n;
        ix->cap = ix->cap ? 2 * ix->cap : 64;
        free(ix->slot);
        ix->slot = NULL;
        if (tn_mon_index_rebuild(ix, n, table, key_of) != 0) {
            ix->cap = 0;
            ix->n = 0;
            return -1;
        }
    }
    index_put(ix->slot, ix->cap, key, pos);
    ix->n++;
    return 0;
}

void tn_mon_index_free(tn_mon_index_t *ix)
{
    free(ix->slot);
    ix->slot = NULL;
    ix->cap = ix->n = 0;
}
