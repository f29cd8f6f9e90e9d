/* Keyvals and attribute lists (see attr.h).
 *
 * Live keyvals sit in one array sorted by id: ids only grow, so creation
 * appends, lookup is a binary search, and destruction closes the gap.  The
 * array holds only live keyvals, so a program that creates and frees
 * keyvals in a loop does not grow it. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "comm/attr.h"

static tn_keyval_t **kv_table;
static int kv_count, kv_cap;
static int kv_next_id = TN_KEYVAL_FIRST;

/* Index of id in kv_table, or -1. */
static int kv_index(int id)
{
    int lo = 0, hi = kv_count - 1;

    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int v = kv_table[mid]->id;

        if (v == id) {
            return mid;
        }
        if (v < id) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return -1;
}

tn_status_t tn_keyval_create(tn_attr_kind_t kind, tn_attr_fn_t *copy_fn,
                             tn_attr_fn_t *delete_fn, void *extra_state,
                             tn_keyval_t **kv_p)
{
    tn_keyval_t *kv;

    if (kv_next_id == INT_MAX) {
        return TN_ERR_AGAIN;
    }
    if (kv_count == kv_cap) {
        int cap = kv_cap != 0 ? 2 * kv_cap : 16;
        tn_keyval_t **t = realloc(kv_table, (size_t)cap * sizeof(*t));

        if (t == NULL) {
            return TN_ERR_NOMEM;
        }
        kv_table = t;
        kv_cap = cap;
    }
    kv = calloc(1, sizeof(*kv));
    if (kv == NULL) {
        return TN_ERR_NOMEM;
    }
    kv->id = kv_next_id++;
    kv->kind = kind;
    kv->freed = 0;
    kv->refcount = 1;
    kv->copy_fn = copy_fn;
    kv->delete_fn = delete_fn;
    kv->extra_state = extra_state;
    kv_table[kv_count++] = kv;
    *kv_p = kv;
    return TN_OK;
}

tn_keyval_t *tn_keyval_find(int id)
{
    int i = id >= TN_KEYVAL_FIRST ? kv_index(id) : -1;

    return i >= 0 ? kv_table[i] : NULL;
}

void tn_keyval_retain(tn_keyval_t *kv)
{
    kv->refcount++;
}

void tn_keyval_release(tn_keyval_t *kv)
{
    int i;

    if (--kv->refcount > 0) {
        return;
    }
    i = kv_index(kv->id);
    if (i >= 0) {
        memmove(&kv_table[i], &kv_table[i + 1], (size_t)(kv_count - i - 1) * sizeof(*kv_table));
        kv_count--;
    }
    if (kv_count == 0) {
        free(kv_table);
        kv_table = NULL;
        kv_cap = 0;
    }
    free(kv);
}

void tn_keyval_free(tn_keyval_t *kv)
{
    kv->freed = 1;
    tn_keyval_release(kv);
}

int tn_keyval_live_count(void)
{
    return kv_count;
}

/* ---- attribute lists --------------------------------------------------- */

tn_attr_t *tn_attr_find(tn_attr_list_t *list, const tn_keyval_t *kv)
{
    int i;

    if (list == NULL) {
        return NULL;
    }
    for (i = 0; i < list->n; i++) {
        if (list->a[i].kv == kv) {
            return &list->a[i];
        }
    }
    return NULL;
}

tn_status_t tn_attr_append(tn_attr_list_t **list_p, tn_keyval_t *kv, void *value)
{
    tn_attr_list_t *list = *list_p;
    int created = 0;

    if (list == NULL) {
        list = calloc(1, sizeof(*list));
        if (list == NULL) {
            return TN_ERR_NOMEM;
        }
        created = 1;
    }
    if (list->n == list->cap) {
        int cap = list->cap != 0 ? 2 * list->cap : 4;
        tn_attr_t *a = realloc(list->a, (size_t)cap * sizeof(*a));

        if (a == NULL) {
            if (created) {
                free(list);
            }
            return TN_ERR_NOMEM;
        }
        list->a = a;
        list->cap = cap;
    }
    list->a[list->n].kv = kv;
    list->a[list->n].value = value;
    list->n++;
    tn_keyval_retain(kv);
    *list_p = list;
    return TN_OK;
}

void tn_attr_remove(tn_attr_list_t *list, tn_keyval_t *kv)
{
    tn_attr_t *a = tn_attr_find(list, kv);
    int i;

    if (a == NULL) {
        return;
    }
    i = (int)(a - list->a);
    memmove(&list->a[i], &list->a[i + 1], (size_t)(list->n - i - 1) * sizeof(*list->a));
    list->n--;
    tn_keyval_release(kv);
}

void tn_attr_list_destroy(tn_attr_list_t *list)
{
    int i;

    if (list == NULL) {
        return;
    }
    for (i = 0; i < list->n; i++) {
        tn_keyval_release(list->a[i].kv);
    }
    free(list->a);
    free(list);
}
