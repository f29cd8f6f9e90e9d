/* The key-value space that the PMI server keeps for one job: string keys to
 * string values, owned (copied) by the store.  A put of an existing key
 * replaces its value. */
#ifndef TN_PMI_KVS_H
#define TN_PMI_KVS_H

#include <stddef.h>

typedef struct tn_pmi_kvs tn_pmi_kvs_t;

tn_pmi_kvs_t *tn_pmi_kvs_create(void);
void tn_pmi_kvs_destroy(tn_pmi_kvs_t *kvs);

/* Store a copy of key and value, replacing an earlier value of key. */
void tn_pmi_kvs_put(tn_pmi_kvs_t *kvs, const char *key, const char *value);

/* The value of key, owned by the store and valid until the next put of the
 * same key; NULL when absent. */
const char *tn_pmi_kvs_get(const tn_pmi_kvs_t *kvs, const char *key);

size_t tn_pmi_kvs_count(const tn_pmi_kvs_t *kvs);
/* Bytes of keys and values held (without terminators). */
size_t tn_pmi_kvs_bytes(const tn_pmi_kvs_t *kvs);

/* 0 when a put of key=value leaves at most max_keys keys and max_bytes
 * bytes in the store, -1 otherwise. */
int tn_pmi_kvs_fits(const tn_pmi_kvs_t *kvs, const char *key,
                    const char *value, size_t max_keys, size_t max_bytes);

#endif
