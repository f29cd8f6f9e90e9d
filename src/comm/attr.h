/* Keyvals and attribute lists: the bookkeeping behind MPI attribute caching.
 *
 * A keyval names one kind of attribute for one kind of object (communicator,
 * datatype, window) and carries the user's copy and delete callbacks and
 * their extra_state.  The core stores the callbacks as opaque function
 * pointers and never calls them: the MPI layer knows their real types, the
 * predefined special values (NULL_COPY_FN = 0, DUP_FN = 1, NULL_DELETE_FN =
 * 0) and when each must run.  Nothing here communicates.
 *
 * Ids.  A keyval's id is the integer the user holds.  Ids start at
 * TN_KEYVAL_FIRST (above every predefined attribute key of the standard) and
 * are never reused within a process, so a stale id can always be told apart.
 *
 * Lifetime.  A keyval holds one reference for the user's id (dropped by
 * tn_keyval_free) and one per attribute value attached with it.  A freed
 * keyval stays findable by its id while attributes still use it (MPI: "the
 * key is marked for deletion ... until all attribute values associated
 * with it have been deleted"); it is destroyed, and its id becomes unknown,
 * when the last reference goes.
 *
 * Attribute lists.  An object keeps its attributes in a tn_attr_list_t
 * (NULL while it has none), in the order in which the values were set.  A
 * keyval appears at most once in a list.  Pointers into a list are
 * invalidated by any append or removal on it.
 *
 * No locking here: the caller serializes (the MPI layer's big lock). */
#ifndef TN_COMM_ATTR_H
#define TN_COMM_ATTR_H

#include "base/status.h"

#define TN_KEYVAL_FIRST 0x10000

/* The object kind a keyval is for. */
typedef enum { TN_ATTR_COMM = 1, TN_ATTR_TYPE = 2, TN_ATTR_WIN = 3 } tn_attr_kind_t;

/* An opaque callback: converted back to its real type before any call. */
typedef void (tn_attr_fn_t)(void);

typedef struct tn_keyval {
    int             id;
    tn_attr_kind_t  kind;
    int             freed;          /* the user freed it */
    int             refcount;       /* user's id (until freed) + attached values */
    tn_attr_fn_t   *copy_fn;
    tn_attr_fn_t   *delete_fn;
    void           *extra_state;
} tn_keyval_t;

typedef struct tn_attr {
    tn_keyval_t *kv;
    void        *value;
} tn_attr_t;

typedef struct tn_attr_list {
    int        n;
    int        cap;
    tn_attr_t *a;                   /* a[0..n) oldest first */
} tn_attr_list_t;

/* ---- keyvals ----------------------------------------------------------- */
/* A new keyval with one reference (the user's).  TN_ERR_NOMEM, or
 * TN_ERR_AGAIN once the id space is exhausted. */
tn_status_t tn_keyval_create(tn_attr_kind_t kind, tn_attr_fn_t *copy_fn,
                             tn_attr_fn_t *delete_fn, void *extra_state,
                             tn_keyval_t **kv_p);
/* The live keyval with this id (freed but still attached ones included),
 * or NULL. */
tn_keyval_t *tn_keyval_find(int id);
void tn_keyval_retain(tn_keyval_t *kv);
/* Drop a reference; destroys the keyval when none is left. */
void tn_keyval_release(tn_keyval_t *kv);
/* The user frees the keyval: marks it freed and drops the user's
 * reference.  The caller checks that it was not freed already. */
void tn_keyval_free(tn_keyval_t *kv);
/* Number of live keyvals (unit tests, leak checks). */
int tn_keyval_live_count(void);

/* ---- attribute lists --------------------------------------------------- */
static inline int tn_attr_count(const tn_attr_list_t *list)
{
    return list != NULL ? list->n : 0;
}

/* The entry of kv in list, or NULL (list may be NULL). */
tn_attr_t *tn_attr_find(tn_attr_list_t *list, const tn_keyval_t *kv);
/* Append (kv, value) as the newest entry, creating the list when *list_p is
 * NULL; takes a reference on kv.  kv must not be in the list already.
 * TN_ERR_NOMEM leaves everything unchanged. */
tn_status_t tn_attr_append(tn_attr_list_t **list_p, tn_keyval_t *kv, void *value);
/* Remove kv's entry (if present) and drop the list's reference on kv. */
void tn_attr_remove(tn_attr_list_t *list, tn_keyval_t *kv);
/* Drop every entry without running any callback, and free the list. */
void tn_attr_list_destroy(tn_attr_list_t *list);

#endif
