/* Info objects: ordered (key, value) string pairs (see info.h). */
#include "base/objreg.h"
#include "comm/info.h"

#include <stdlib.h>
#include <string.h>

tn_status_t tn_info_new(tn_info_t **info_p)
{
    tn_info_t *info = calloc(1, sizeof(*info));
    if (info == NULL) {
        return TN_ERR_NOMEM;
    }
    if (tn_objreg_add(info, TN_OBJ_INFO) != TN_OK) {
        free(info);
        return TN_ERR_NOMEM;
    }
    info->magic = TN_INFO_MAGIC;
    info->refcount = 1;
    *info_p = info;
    return TN_OK;
}

static void tn_info_free_entries(tn_info_t *info)
{
    for (int i = 0; i < info->nkeys; i++) {
        free(info->ent[i].key);
        free(info->ent[i].value);
    }
    info->nkeys = 0;
}

static tn_status_t tn_info_reserve(tn_info_t *info, int n)
{
    if (n <= info->cap) {
        return TN_OK;
    }
    int cap = info->cap > 0 ? info->cap * 2 : 8;
    while (cap < n) {
        cap *= 2;
    }
    tn_info_entry_t *ent = realloc(info->ent, sizeof(*ent) * (size_t)cap);
    if (ent == NULL) {
        return TN_ERR_NOMEM;
    }
    info->ent = ent;
    info->cap = cap;
    return TN_OK;
}

tn_status_t tn_info_dup(const tn_info_t *src, tn_info_t **info_p)
{
    tn_info_t *info;
    tn_status_t st = tn_info_new(&info);
    if (st != TN_OK) {
        return st;
    }
    st = tn_info_reserve(info, src->nkeys);
    for (int i = 0; st == TN_OK && i < src->nkeys; i++) {
        char *k = strdup(src->ent[i].key);
        char *v = strdup(src->ent[i].value);
        if (k == NULL || v == NULL) {
            free(k);
            free(v);
            st = TN_ERR_NOMEM;
            break;
        }
        info->ent[i].key = k;
        info->ent[i].value = v;
        info->nkeys = i + 1;
    }
    if (st != TN_OK) {
        tn_info_release(info);
        return st;
    }
    *info_p = info;
    return TN_OK;
}

void tn_info_retain(tn_info_t *info)
{
    if (!info->predefined) {
        info->refcount++;
    }
}

void tn_info_release(tn_info_t *info)
{
    if (info->predefined || --info->refcount > 0) {
        return;
    }
    tn_info_free_entries(info);
    free(info->ent);
    info->magic = 0;        /* a stale handle is then recognised as invalid */
    tn_objreg_del(info);
    free(info);
}

static int tn_info_find(const tn_info_t *info, const char *key)
{
    for (int i = 0; i < info->nkeys; i++) {
        if (strcmp(info->ent[i].key, key) == 0) {
            return i;
        }
    }
    return -1;
}

tn_status_t tn_info_set(tn_info_t *info, const char *key, const char *value)
{
    char *v = strdup(value);
    if (v == NULL) {
        return TN_ERR_NOMEM;
    }
    int i = tn_info_find(info, key);
    if (i >= 0) {
        free(info->ent[i].value);
        info->ent[i].value = v;
        return TN_OK;
    }
    char *k = strdup(key);
    if (k == NULL || tn_info_reserve(info, info->nkeys + 1) != TN_OK) {
        free(k);
        free(v);
        return TN_ERR_NOMEM;
    }
    info->ent[info->nkeys].key = k;
    info->ent[info->nkeys].value = v;
    info->nkeys++;
    return TN_OK;
}

const char *tn_info_get(const tn_info_t *info, const char *key)
{
    int i = tn_info_find(info, key);
    return i >= 0 ? info->ent[i].value : NULL;
}

tn_status_t tn_info_delete(tn_info_t *info, const char *key)
{
    int i = tn_info_find(info, key);
    if (i < 0) {
        return TN_ERR_NOTFOUND;
    }
    free(info->ent[i].key);
    free(info->ent[i].value);
    memmove(&info->ent[i], &info->ent[i + 1],
            sizeof(info->ent[0]) * (size_t)(info->nkeys - i - 1));
    info->nkeys--;
    return TN_OK;
}

void tn_info_clear(tn_info_t *info)
{
    tn_info_free_entries(info);
}

const char *tn_info_nthkey(const tn_info_t *info, int n)
{
    return n >= 0 && n < info->nkeys ? info->ent[n].key : NULL;
}
