/* MPI_T control variables: the TERN_* variables of the config table.
 *
 * Types: bool -> MPI_INT with the enumeration "bool" (0 false, 1 true);
 * int -> MPI_COUNT; size -> MPI_UNSIGNED_LONG_LONG; double -> MPI_DOUBLE;
 * a string with fixed choices -> MPI_INT with an enumeration of them; any
 * other string -> MPI_CHAR, count TN_T_STR_COUNT or more (read truncates,
 * '\0' included).  No variable binds to an object.  Writable are the
 * variables whose access is LOCAL or ALL_EQ (scope LOCAL or ALL_EQ); the
 * others are READONLY, and writing them is MPI_T_ERR_CVAR_SET_NEVER. */
#include "mpi/mpi_t_impl.h"
#include "base/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TN_T_CVAR_MAGIC 0x54435652u   /* "TCVR" */
#define TN_T_STR_COUNT 256

typedef struct tn_t_cvar {
    uint32_t           magic;
    int                index;
    int                count;
    struct tn_t_cvar  *next;          /* every handle, for MPI_T_finalize */
} tn_t_cvar_t;

static tn_t_cvar_t *tn_t_cvars;

static void tn_t_cvar_describe(int i, tn_config_desc_t *d, char *value, int len)
{
    tn_t_state_lock();
    tn_config_describe(i, d, value, len);
    tn_t_state_unlock();
}

static MPI_Datatype tn_t_cvar_type(int i, const tn_config_desc_t *d)
{
    switch (d->type) {
    case TN_CFG_BOOL:   return MPI_INT;
    case TN_CFG_INT:    return MPI_COUNT;
    case TN_CFG_SIZE:   return MPI_UNSIGNED_LONG_LONG;
    case TN_CFG_DOUBLE: return MPI_DOUBLE;
    default:            return tn_t_cvar_enum(i) != MPI_T_ENUM_NULL ? MPI_INT : MPI_CHAR;
    }
}

static int tn_t_cvar_scope(const tn_config_desc_t *d)
{
    switch (d->access) {
    case TN_CFG_LOCAL:  return MPI_T_SCOPE_LOCAL;
    case TN_CFG_ALL_EQ: return MPI_T_SCOPE_ALL_EQ;
    default:            return MPI_T_SCOPE_READONLY;
    }
}

int tn_mpi_T_cvar_get_num(int *num_cvar)
{
    TN_T_CHECK_INIT();
    if (num_cvar == NULL) {
        return MPI_T_ERR_INVALID;
    }
    *num_cvar = tn_config_count();
    return MPI_SUCCESS;
}

int tn_mpi_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                           MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc,
                           int *desc_len, int *bind, int *scope)
{
    TN_T_CHECK_INIT();
    if (cvar_index < 0 || cvar_index >= tn_config_count()) {
        return MPI_T_ERR_INVALID_INDEX;
    }
    tn_config_desc_t d;
    char v[8];
    tn_config_describe(cvar_index, &d, v, sizeof(v));   /* descriptions only */
    tn_t_str(name, name_len, d.name);
    tn_t_str(desc, desc_len, d.help);
    if (verbosity != NULL) {
        *verbosity = tn_t_verbosity(d.verb);
    }
    if (datatype != NULL) {
        *datatype = tn_t_cvar_type(cvar_index, &d);
    }
    if (enumtype != NULL) {
        *enumtype = tn_t_cvar_enum(cvar_index);
    }
    if (bind != NULL) {
        *bind = MPI_T_BIND_NO_OBJECT;
    }
    if (scope != NULL) {
        *scope = tn_t_cvar_scope(&d);
    }
    return MPI_SUCCESS;
}

int tn_mpi_T_cvar_get_index(const char *name, int *cvar_index)
{
    TN_T_CHECK_INIT();
    if (name == NULL || cvar_index == NULL) {
        return MPI_T_ERR_INVALID;
    }
    int i = tn_config_index(name);
    if (i < 0) {
        return MPI_T_ERR_INVALID_NAME;
    }
    *cvar_index = i;
    return MPI_SUCCESS;
}

int tn_mpi_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                               int *count)
{
    TN_T_CHECK_INIT();
    if (cvar_index < 0 || cvar_index >= tn_config_count()) {
        return MPI_T_ERR_INVALID_INDEX;
    }
    if (handle == NULL || count == NULL) {
        return MPI_T_ERR_INVALID;
    }
    tn_config_desc_t d;
    char value[4096];
    tn_t_cvar_describe(cvar_index, &d, value, sizeof(value));
    int n = 1;
    if (tn_t_cvar_type(cvar_index, &d) == MPI_CHAR) {
        n = (int)strlen(value) + 1;
        n = n < TN_T_STR_COUNT ? TN_T_STR_COUNT : n;
    }
    tn_t_cvar_t *h = malloc(sizeof(*h));
    if (h == NULL) {
        return MPI_T_ERR_MEMORY;
    }
    *h = (tn_t_cvar_t){ TN_T_CVAR_MAGIC, cvar_index, n, NULL };
    tn_t_lock();
    h->next = tn_t_cvars;
    tn_t_cvars = h;
    tn_t_unlock();
    *handle = (MPI_T_cvar_handle)h;
    *count = n;
    return MPI_SUCCESS;
}

/* The handle h, checked, or NULL.  Called with tn_t_lock held. */
static tn_t_cvar_t *tn_t_cvar_of(MPI_T_cvar_handle h)
{
    for (tn_t_cvar_t *c = tn_t_cvars; c != NULL; c = c->next) {
        if (c == (tn_t_cvar_t *)h && c->magic == TN_T_CVAR_MAGIC) {
            return c;
        }
    }
    return NULL;
}

int tn_mpi_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    TN_T_CHECK_INIT();
    if (handle == NULL) {
        return MPI_T_ERR_INVALID;
    }
    tn_t_lock();
    tn_t_cvar_t **pp = &tn_t_cvars;
    while (*pp != NULL && *pp != (tn_t_cvar_t *)*handle) {
        pp = &(*pp)->next;
    }
    tn_t_cvar_t *c = *pp;
    if (c != NULL) {
        *pp = c->next;
    }
    tn_t_unlock();
    if (c == NULL) {
        return MPI_T_ERR_INVALID_HANDLE;
    }
    c->magic = 0;
    free(c);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

void tn_t_cvar_release_all(void)
{
    while (tn_t_cvars != NULL) {
        tn_t_cvar_t *c = tn_t_cvars;
        tn_t_cvars = c->next;
        c->magic = 0;
        free(c);
    }
}

int tn_mpi_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    TN_T_CHECK_INIT();
    tn_t_lock();
    tn_t_cvar_t *c = tn_t_cvar_of(handle);
    int i = c != NULL ? c->index : -1, count = c != NULL ? c->count : 0;
    tn_t_unlock();
    if (c == NULL) {
        return MPI_T_ERR_INVALID_HANDLE;
    }
    if (buf == NULL) {
        return MPI_T_ERR_INVALID;
    }
    tn_config_desc_t d;
    char value[4096];
    tn_t_cvar_describe(i, &d, value, sizeof(value));
    MPI_Datatype type = tn_t_cvar_type(i, &d);
    if (type == MPI_CHAR) {
        snprintf(buf, (size_t)count, "%s", value);
    } else if (type == MPI_INT) {
        *(int *)buf = d.type == TN_CFG_BOOL ? atoi(value) : tn_t_enum_find(i, value);
    } else if (type == MPI_COUNT) {
        *(MPI_Count *)buf = strtoll(value, NULL, 10);
    } else if (type == MPI_UNSIGNED_LONG_LONG) {
        *(unsigned long long *)buf = strtoull(value, NULL, 10);
    } else {
        *(double *)buf = strtod(value, NULL);
    }
    return MPI_SUCCESS;
}

int tn_mpi_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    TN_T_CHECK_INIT();
    tn_t_lock();
    tn_t_cvar_t *c = tn_t_cvar_of(handle);
    int i = c != NULL ? c->index : -1, count = c != NULL ? c->count : 0;
    tn_t_unlock();
    if (c == NULL) {
        return MPI_T_ERR_INVALID_HANDLE;
    }
    tn_config_desc_t d;
    char v[8];
    tn_config_describe(i, &d, v, sizeof(v));
    if (d.access != TN_CFG_LOCAL && d.access != TN_CFG_ALL_EQ) {
        return MPI_T_ERR_CVAR_SET_NEVER;
    }
    if (buf == NULL) {
        return MPI_T_ERR_INVALID;
    }
    /* through the value's text, so that the table's checks apply */
    char text[4096];
    const char *val = text;
    MPI_Datatype type = tn_t_cvar_type(i, &d);
    if (type == MPI_CHAR) {
        if (memchr(buf, '\0', (size_t)count) == NULL) {
            return MPI_T_ERR_INVALID;
        }
        val = buf;
    } else if (type == MPI_INT && d.type != TN_CFG_BOOL) {
        val = tn_t_enum_item_name(i, *(const int *)buf);
        if (val == NULL || *(const int *)buf < 0) {
            return MPI_T_ERR_INVALID;
        }
    } else if (type == MPI_INT) {
        snprintf(text, sizeof(text), "%d", *(const int *)buf);
    } else if (type == MPI_COUNT) {
        snprintf(text, sizeof(text), "%lld", (long long)*(const MPI_Count *)buf);
    } else if (type == MPI_UNSIGNED_LONG_LONG) {
        snprintf(text, sizeof(text), "%llu", *(const unsigned long long *)buf);
    } else {
        snprintf(text, sizeof(text), "%.17g", *(const double *)buf);
    }
    tn_t_state_lock();
    tn_status_t st = tn_config_set(i, val);
    tn_t_state_unlock();
    switch (st) {
    case TN_OK:           return MPI_SUCCESS;
    case TN_ERR_NOMEM:    return MPI_T_ERR_MEMORY;
    case TN_ERR_UNSUPPORTED: return MPI_T_ERR_CVAR_SET_NEVER;
    default:              return MPI_T_ERR_INVALID;
    }
}
