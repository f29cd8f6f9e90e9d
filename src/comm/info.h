/* Info objects: an ordered list of (key, value) string pairs.
 *
 * Keys are unique.  Setting a key that is present replaces its value in
 * place, so the order of keys is the order in which each was first set
 * (MPI_Info_get_nthkey reports them in that order).  Deleting a key closes
 * the gap.  Lookups scan the list: info objects hold a handful of hints.
 *
 * The core object knows nothing of MPI limits: MPI_MAX_INFO_KEY and
 * MPI_MAX_INFO_VAL are checked by the MPI layer before calling in here.
 * Strings are copied in; pointers returned by tn_info_get / tn_info_nthkey
 * stay valid until the key is set again, deleted, or the object released.
 *
 * Ownership: tn_info_new / tn_info_dup return an object holding one
 * reference.  Whoever keeps an info object beyond a call (a communicator's
 * info hints, say) takes a reference with tn_info_retain and drops it with
 * tn_info_release; the object is freed when the last one goes.  A
 * predefined object (MPI_INFO_ENV) is never freed by release.
 *
 * No locking here: the caller serializes access to one object. */
#ifndef TN_COMM_INFO_H
#define TN_COMM_INFO_H

#include <stdint.h>
#include "base/status.h"

#define TN_INFO_MAGIC 0x54494e46u     /* "TINF" */

typedef struct tn_info_entry {
    char *key;
    char *value;
} tn_info_entry_t;

typedef struct tn_info {
    uint32_t         magic;
    int              refcount;
    int              predefined;    /* MPI_INFO_ENV: never freed */
    uintptr_t        handle;        /* ABI handle of a predefined object, else 0 */
    int              nkeys;
    int              cap;
    tn_info_entry_t *ent;           /* ent[0..nkeys) in insertion order */
} tn_info_t;

/* A new empty object with one reference.  TN_ERR_NOMEM. */
tn_status_t tn_info_new(tn_info_t **info_p);
/* A new object (one reference) holding copies of src's pairs, same order. */
tn_status_t tn_info_dup(const tn_info_t *src, tn_info_t **info_p);
void tn_info_retain(tn_info_t *info);
/* Drop a reference; frees the object when none is left (not predefined). */
void tn_info_release(tn_info_t *info);

/* Set key to value (both copied).  An existing key keeps its position.
 * On TN_ERR_NOMEM the object is unchanged. */
tn_status_t tn_info_set(tn_info_t *info, const char *key, const char *value);
/* The value of key, or NULL when key is absent. */
const char *tn_info_get(const tn_info_t *info, const char *key);
/* Remove key: TN_OK, or TN_ERR_NOTFOUND when it is absent. */
tn_status_t tn_info_delete(tn_info_t *info, const char *key);
/* Remove every pair. */
void tn_info_clear(tn_info_t *info);

static inline int tn_info_nkeys(const tn_info_t *info)
{
    return info->nkeys;
}

/* The n-th key (0-based, insertion order), or NULL when n is out of range. */
const char *tn_info_nthkey(const tn_info_t *info, int n);

#endif
