/* MPI tools interface: initialisation, enumerations, categories (MPI 4.1
 * chapter 15).  Control variables are in mpi_t_cvar.c, performance
 * variables in mpi_t_pvar.c, events and sources in mpi_t_event.c. */
#include "mpi/mpi_t_impl.h"
#include "base/config.h"
#include "base/counters.h"
#include "base/events.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

int tn_t_refs;
static pthread_mutex_t tn_t_mutex = PTHREAD_MUTEX_INITIALIZER;

void tn_t_lock(void)
{
    pthread_mutex_lock(&tn_t_mutex);
}

void tn_t_unlock(void)
{
    pthread_mutex_unlock(&tn_t_mutex);
}

void tn_t_state_lock(void)
{
    tn_rt_lock();
}

void tn_t_state_unlock(void)
{
    tn_rt_unlock();
}

void tn_t_str(char *dst, int *len_p, const char *src)
{
    if (len_p == NULL) {
        return;
    }
    int need = (int)strlen(src) + 1;
    if (dst == NULL || *len_p <= 0) {
        *len_p = need;
        return;
    }
    int n = need < *len_p ? need : *len_p;
    memcpy(dst, src, (size_t)n - 1);
    dst[n - 1] = '\0';
    *len_p = n;
}

int tn_t_verbosity(int verb)
{
    switch (verb) {
    case TN_CFG_USER:  return MPI_T_VERBOSITY_USER_BASIC;
    case TN_CFG_TUNER: return MPI_T_VERBOSITY_TUNER_DETAIL;
    default:           return MPI_T_VERBOSITY_MPIDEV_DETAIL;
    }
}

int tn_mpi_T_init_thread(int required, int *provided)
{
    if (provided == NULL) {
        return MPI_T_ERR_INVALID;
    }
    (void)required;
    tn_t_lock();
    if (tn_t_refs == 0 && !tn_rt.initialized) {
        tn_config_load(0);      /* the environment's values, before MPI_Init reads them */
    }
    __atomic_store_n(&tn_t_refs, tn_t_refs + 1, __ATOMIC_RELEASE);
    tn_t_unlock();
    /* every MPI_T call serialises on its own locks */
    *provided = MPI_THREAD_MULTIPLE;
    return MPI_SUCCESS;
}

int tn_mpi_T_finalize(void)
{
    tn_t_lock();
    if (tn_t_refs == 0) {
        tn_t_unlock();
        return MPI_T_ERR_NOT_INITIALIZED;
    }
    if (tn_t_refs == 1) {
        tn_t_event_release_all();
        tn_t_pvar_release_all();
        tn_t_cvar_release_all();
    }
    __atomic_store_n(&tn_t_refs, tn_t_refs - 1, __ATOMIC_RELEASE);
    tn_t_unlock();
    return MPI_SUCCESS;
}

/* ---- enumerations ---------------------------------------------------------
 * One per control variable with fixed choices ("a|b|c": the items, valued
 * 0, 1, ...) and one shared by the bools.  An MPI_T_enum is the address of
 * an entry of tn_t_enums. */
#define TN_T_ENUM_MAGIC 0x54454e4du   /* "TENM" */
typedef struct {
    uint32_t magic;
    int      cvar;       /* the variable, or -1 for the bools */
    int      n;
} tn_t_enum_t;

static tn_t_enum_t *tn_t_enums;     /* [config count + 1], the last: bool */
static pthread_once_t tn_t_enums_once = PTHREAD_ONCE_INIT;

static int tn_t_choices(int i)
{
    tn_config_desc_t d;
    char v[8];
    tn_config_describe(i, &d, v, sizeof(v));
    if (d.type != TN_CFG_STRING || strchr(d.valid, '|') == NULL) {
        return d.type == TN_CFG_BOOL ? -1 : 0;
    }
    int n = 1;
    for (const char *p = d.valid; *p; p++) {
        n += *p == '|';
    }
    return n;
}

static void tn_t_enums_make(void)
{
    int n = tn_config_count();
    tn_t_enums = calloc((size_t)n + 1, sizeof(*tn_t_enums));
    if (tn_t_enums == NULL) {
        return;
    }
    for (int i = 0; i < n; i++) {
        int k = tn_t_choices(i);
        if (k > 0) {
            tn_t_enums[i] = (tn_t_enum_t){ TN_T_ENUM_MAGIC, i, k };
        }
    }
    tn_t_enums[n] = (tn_t_enum_t){ TN_T_ENUM_MAGIC, -1, 2 };
}

MPI_T_enum tn_t_cvar_enum(int i)
{
    pthread_once(&tn_t_enums_once, tn_t_enums_make);
    if (tn_t_enums == NULL || i < 0 || i >= tn_config_count()) {
        return MPI_T_ENUM_NULL;
    }
    int k = tn_t_choices(i);
    if (k < 0) {
        return (MPI_T_enum)&tn_t_enums[tn_config_count()];
    }
    return k > 0 ? (MPI_T_enum)&tn_t_enums[i] : MPI_T_ENUM_NULL;
}

/* Item k of the choice list of variable i into buf, or NULL. */
static const char *tn_t_choice(int i, int k, char *buf, size_t len)
{
    tn_config_desc_t d;
    char v[8];
    tn_config_describe(i, &d, v, sizeof(v));
    const char *p = d.valid;
    for (int j = 0; j < k && p != NULL; j++) {
        p = strchr(p, '|');
        p = p != NULL ? p + 1 : NULL;
    }
    if (p == NULL || k < 0) {
        return NULL;
    }
    size_t n = strcspn(p, "|");
    if (n >= len) {
        n = len - 1;
    }
    memcpy(buf, p, n);
    buf[n] = '\0';
    return buf;
}

const char *tn_t_enum_item_name(int i, int k)
{
    static __thread char buf[64];
    if (tn_t_choices(i) < 0) {
        return k == 0 ? "false" : k == 1 ? "true" : NULL;
    }
    return tn_t_choice(i, k, buf, sizeof(buf));
}

int tn_t_enum_find(int i, const char *val)
{
    int n = tn_t_choices(i);
    for (int k = 0; k < n; k++) {
        const char *name = tn_t_enum_item_name(i, k);
        if (name != NULL && strcmp(name, val) == 0) {
            return k;
        }
    }
    return -1;
}

static const tn_t_enum_t *tn_t_enum_of(MPI_T_enum e)
{
    pthread_once(&tn_t_enums_once, tn_t_enums_make);
    const tn_t_enum_t *t = (const tn_t_enum_t *)e;
    int n = tn_config_count();
    if (tn_t_enums == NULL || t < tn_t_enums || t > tn_t_enums + n || t->magic != TN_T_ENUM_MAGIC) {
        return NULL;
    }
    return t;
}

int tn_mpi_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    TN_T_CHECK_INIT();
    const tn_t_enum_t *t = tn_t_enum_of(enumtype);
    if (t == NULL) {
        return MPI_T_ERR_INVALID_HANDLE;
    }
    if (num != NULL) {
        *num = t->n;
    }
    if (t->cvar < 0) {
        tn_t_str(name, name_len, "bool");
    } else {
        tn_config_desc_t d;
        char v[8];
        tn_config_describe(t->cvar, &d, v, sizeof(v));
        tn_t_str(name, name_len, d.name);
    }
    return MPI_SUCCESS;
}

int tn_mpi_T_enum_get_item(MPI_T_enum enumtype, int indx, int *value, char *name, int *name_len)
{
    TN_T_CHECK_INIT();
    const tn_t_enum_t *t = tn_t_enum_of(enumtype);
    if (t == NULL) {
        return MPI_T_ERR_INVALID_HANDLE;
    }
    if (indx < 0 || indx >= t->n) {
        return MPI_T_ERR_INVALID_ITEM;
    }
    char buf[64];
    const char *item = t->cvar < 0 ? (indx ? "true" : "false")
                                   : tn_t_choice(t->cvar, indx, buf, sizeof(buf));
    if (value != NULL) {
        *value = indx;
    }
    tn_t_str(name, name_len, item != NULL ? item : "");
    return MPI_SUCCESS;
}

/* ---- categories ------------------------------------------------------------
 * The layers of category_table.h, in its order; their members come from the
 * other tables' category columns.  Nothing is added while a process runs:
 * the update number stays 0. */
static const struct {
    const char    *name;
    tn_category_t  parent;
    const char    *desc;
} tn_t_cats[TN_CAT_COUNT_] = {
#define TN_T_CAT(id, name_, parent_, desc_)                                    \
    [TN_CAT_##id] = { .name = name_, .parent = TN_CAT_##parent_, .desc = desc_ },
    TN_CATEGORY_TABLE(TN_T_CAT)
#undef TN_T_CAT
};

enum { TN_T_MEMBER_CVAR, TN_T_MEMBER_PVAR, TN_T_MEMBER_EVENT, TN_T_MEMBER_CAT };

/* Category of member i of kind, or TN_CAT_NONE past the end (-2). */
static int tn_t_member_cat(int kind, int i)
{
    switch (kind) {
    case TN_T_MEMBER_CVAR: {
        if (i >= tn_config_count()) {
            return -2;
        }
        tn_config_desc_t d;
        char v[8];
        tn_config_describe(i, &d, v, sizeof(v));
        return d.category;
    }
    case TN_T_MEMBER_PVAR: {
        const tn_ctr_desc_t *d = tn_ctr_desc(i);
        return d != NULL ? (int)tn_ctr_set_desc(d->set)->category : -2;
    }
    case TN_T_MEMBER_EVENT: {
        const tn_event_desc_t *d = tn_event_desc(i);
        return d != NULL ? (int)d->category : -2;
    }
    default:
        return i < TN_CAT_COUNT_ ? (int)tn_t_cats[i].parent : -2;
    }
}

/* The members of kind in cat: how many, and the first len indices. */
static int tn_t_members(int cat, int kind, int len, int *indices)
{
    int n = 0, c;
    for (int i = 0; (c = tn_t_member_cat(kind, i)) != -2; i++) {
        if (c == cat) {
            if (indices != NULL && n < len) {
                indices[n] = i;
            }
            n++;
        }
    }
    return n;
}

int tn_mpi_T_category_get_num(int *num_cat)
{
    TN_T_CHECK_INIT();
    if (num_cat == NULL) {
        return MPI_T_ERR_INVALID;
    }
    *num_cat = TN_CAT_COUNT_;
    return MPI_SUCCESS;
}

int tn_mpi_T_category_get_info(int cat_index, char *name, int *name_len, char *desc,
                               int *desc_len, int *num_cvars, int *num_pvars,
                               int *num_categories)
{
    TN_T_CHECK_INIT();
    if (cat_index < 0 || cat_index >= TN_CAT_COUNT_) {
        return MPI_T_ERR_INVALID_INDEX;
    }
    tn_t_str(name, name_len, tn_t_cats[cat_index].name);
    tn_t_str(desc, desc_len, tn_t_cats[cat_index].desc);
    if (num_cvars != NULL) {
        *num_cvars = tn_t_members(cat_index, TN_T_MEMBER_CVAR, 0, NULL);
    }
    if (num_pvars != NULL) {
        *num_pvars = tn_t_members(cat_index, TN_T_MEMBER_PVAR, 0, NULL);
    }
    if (num_categories != NULL) {
        *num_categories = tn_t_members(cat_index, TN_T_MEMBER_CAT, 0, NULL);
    }
    return MPI_SUCCESS;
}

int tn_mpi_T_category_get_num_events(int cat_index, int *num_events)
{
    TN_T_CHECK_INIT();
    if (cat_index < 0 || cat_index >= TN_CAT_COUNT_) {
        return MPI_T_ERR_INVALID_INDEX;
    }
    if (num_events == NULL) {
        return MPI_T_ERR_INVALID;
    }
    *num_events = tn_t_members(cat_index, TN_T_MEMBER_EVENT, 0, NULL);
    return MPI_SUCCESS;
}

int tn_mpi_T_category_get_index(const char *name, int *cat_index)
{
    TN_T_CHECK_INIT();
    if (name == NULL || cat_index == NULL) {
        return MPI_T_ERR_INVALID;
    }
    for (int i = 0; i < TN_CAT_COUNT_; i++) {
        if (strcmp(tn_t_cats[i].name, name) == 0) {
            *cat_index = i;
            return MPI_SUCCESS;
        }
    }
    return MPI_T_ERR_INVALID_NAME;
}

static int tn_t_category_list(int cat_index, int kind, int len, int *indices)
{
    TN_T_CHECK_INIT();
    if (cat_index < 0 || cat_index >= TN_CAT_COUNT_) {
        return MPI_T_ERR_INVALID_INDEX;
    }
    if (len < 0 || (len > 0 && indices == NULL)) {
        return MPI_T_ERR_INVALID;
    }
    tn_t_members(cat_index, kind, len, indices);
    return MPI_SUCCESS;
}

int tn_mpi_T_category_get_cvars(int cat_index, int len, int indices[])
{
    return tn_t_category_list(cat_index, TN_T_MEMBER_CVAR, len, indices);
}

int tn_mpi_T_category_get_pvars(int cat_index, int len, int indices[])
{
    return tn_t_category_list(cat_index, TN_T_MEMBER_PVAR, len, indices);
}

int tn_mpi_T_category_get_events(int cat_index, int len, int indices[])
{
    return tn_t_category_list(cat_index, TN_T_MEMBER_EVENT, len, indices);
}

int tn_mpi_T_category_get_categories(int cat_index, int len, int indices[])
{
    return tn_t_category_list(cat_index, TN_T_MEMBER_CAT, len, indices);
}

int tn_mpi_T_category_changed(int *update_number)
{
    TN_T_CHECK_INIT();
    if (update_number == NULL) {
        return MPI_T_ERR_INVALID;
    }
    *update_number = 0;         /* the tables are fixed at build time */
    return MPI_SUCCESS;
}
