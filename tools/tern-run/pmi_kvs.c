/* Chained hash table for the PMI key-value space; see pmi_kvs.h.
 * A job puts a few keys per rank, so simplicity beats cleverness here; the
 * table doubles when it holds more entries than buckets. */
#include "pmi_kvs.h"
#include "run_util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct tn_pmi_kvs_ent {
    struct tn_pmi_kvs_ent *next;
    char                  *key;
    char                  *value;
} tn_pmi_kvs_ent_t;

struct tn_pmi_kvs {
    tn_pmi_kvs_ent_t **buckets;
    size_t             nbuckets;   /* power of two */
    size_t             count;
    size_t             bytes;      /* of keys and values */
};

static uint64_t kvs_hash(const char *key)
{
    uint64_t h = 1469598103934665603ull;   /* FNV-1a */

    for (; *key != '\0'; key++) {
        h = (h ^ (unsigned char)*key) * 1099511628211ull;
    }
    return h;
}

tn_pmi_kvs_t *tn_pmi_kvs_create(void)
{
    tn_pmi_kvs_t *kvs = tn_run_xmalloc(sizeof(*kvs));

    kvs->nbuckets = 64;
    kvs->count    = 0;
    kvs->bytes    = 0;
    kvs->buckets  = tn_run_xmalloc(kvs->nbuckets * sizeof(*kvs->buckets));
    memset(kvs->buckets, 0, kvs->nbuckets * sizeof(*kvs->buckets));
    return kvs;
}

void tn_pmi_kvs_destroy(tn_pmi_kvs_t *kvs)
{
    if (kvs == NULL) {
        return;
    }
    for (size_t i = 0; i < kvs->nbuckets; i++) {
        tn_pmi_kvs_ent_t *ent = kvs->buckets[i];

        while (ent != NULL) {
            tn_pmi_kvs_ent_t *next = ent->next;

            free(ent->key);
            free(ent->value);
            free(ent);
            ent = next;
        }
    }
    free(kvs->buckets);
    free(kvs);
}

static void kvs_grow(tn_pmi_kvs_t *kvs)
{
    size_t             nb  = kvs->nbuckets * 2;
    tn_pmi_kvs_ent_t **tab = tn_run_xmalloc(nb * sizeof(*tab));

    memset(tab, 0, nb * sizeof(*tab));
    for (size_t i = 0; i < kvs->nbuckets; i++) {
        tn_pmi_kvs_ent_t *ent = kvs->buckets[i];

        while (ent != NULL) {
            tn_pmi_kvs_ent_t *next = ent->next;
            size_t            b    = kvs_hash(ent->key) & (nb - 1);

            ent->next = tab[b];
            tab[b]    = ent;
            ent       = next;
        }
    }
    free(kvs->buckets);
    kvs->buckets  = tab;
    kvs->nbuckets = nb;
}

static tn_pmi_kvs_ent_t *kvs_find(const tn_pmi_kvs_t *kvs, const char *key)
{
    tn_pmi_kvs_ent_t *ent = kvs->buckets[kvs_hash(key) & (kvs->nbuckets - 1)];

    while (ent != NULL && strcmp(ent->key, key) != 0) {
        ent = ent->next;
    }
    return ent;
}

void tn_pmi_kvs_put(tn_pmi_kvs_t *kvs, const char *key, const char *value)
{
    tn_pmi_kvs_ent_t *ent = kvs_find(kvs, key);
    size_t            b;

    if (ent != NULL) {
        kvs->bytes -= strlen(ent->value);
        kvs->bytes += strlen(value);
        free(ent->value);
        ent->value = tn_run_xstrdup(value);
        return;
    }
    if (kvs->count >= kvs->nbuckets) {
        kvs_grow(kvs);
    }
    b          = kvs_hash(key) & (kvs->nbuckets - 1);
    ent        = tn_run_xmalloc(sizeof(*ent));
    ent->key   = tn_run_xstrdup(key);
    ent->value = tn_run_xstrdup(value);
    ent->next  = kvs->buckets[b];
    kvs->buckets[b] = ent;
    kvs->count++;
    kvs->bytes += strlen(key) + strlen(value);
}

const char *tn_pmi_kvs_get(const tn_pmi_kvs_t *kvs, const char *key)
{
    const tn_pmi_kvs_ent_t *ent = kvs_find(kvs, key);

    return ent != NULL ? ent->value : NULL;
}

size_t tn_pmi_kvs_count(const tn_pmi_kvs_t *kvs)
{
    return kvs->count;
}

size_t tn_pmi_kvs_bytes(const tn_pmi_kvs_t *kvs)
{
    return kvs->bytes;
}

int tn_pmi_kvs_fits(const tn_pmi_kvs_t *kvs, const char *key,
                    const char *value, size_t max_keys, size_t max_bytes)
{
    const tn_pmi_kvs_ent_t *ent   = kvs_find(kvs, key);
    size_t                  keys  = kvs->count + (ent == NULL);
    size_t                  bytes = kvs->bytes + strlen(value) +
                                    (ent != NULL ? 0 : strlen(key)) -
                                    (ent != NULL ? strlen(ent->value) : 0);

    return keys <= max_keys && bytes <= max_bytes ? 0 : -1;
}
