/* Attribute caching on datatypes: MPI_Type_create_keyval / free_keyval /
 * set_attr / get_attr / delete_attr, copy callbacks on MPI_Type_dup, delete
 * callbacks on MPI_Type_free and MPI_Type_delete_attr.
 *
 * The keyval and list bookkeeping is comm/attr.c's (keyvals of kind
 * TN_ATTR_TYPE); the choices are those of mpi_attr.c (overwrite runs the
 * old value's delete callback, free deletes newest first, dup copies
 * oldest first and is undone if a copy callback fails).
 *
 * Where the lists live: datatypes are const to the MPI layer and the
 * predefined ones are a static table, so the lists sit in a small table
 * here keyed by the datatype object, predefined types included.  Only
 * types that have attributes appear in it; an entry goes when its list
 * becomes empty. */
#include "mpi/mpi_impl.h"
#include "comm/attr.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const tn_dt_t  *dt;
    tn_attr_list_t *list;
} tn_type_attrs_t;

static tn_type_attrs_t *tn_tattr;
static int tn_tattr_n, tn_tattr_cap;

static tn_type_attrs_t *tattr_entry(const tn_dt_t *dt)
{
    for (int i = 0; i < tn_tattr_n; i++) {
        if (tn_tattr[i].dt == dt) {
            return &tn_tattr[i];
        }
    }
    return NULL;
}

static tn_attr_list_t *type_attrs(const tn_dt_t *dt)
{
    tn_type_attrs_t *e = tattr_entry(dt);
    return e != NULL ? e->list : NULL;
}

/* Drop dt's entry once its list is empty. */
static void tattr_prune(const tn_dt_t *dt)
{
    tn_type_attrs_t *e = tattr_entry(dt);
    if (e != NULL && tn_attr_count(e->list) == 0) {
        tn_attr_list_destroy(e->list);
        *e = tn_tattr[--tn_tattr_n];
    }
}

static tn_status_t type_attr_append(const tn_dt_t *dt, tn_keyval_t *kv, void *value)
{
    tn_type_attrs_t *e = tattr_entry(dt);
    if (e == NULL) {
        if (tn_tattr_n == tn_tattr_cap) {
            int cap = tn_tattr_cap ? 2 * tn_tattr_cap : 16;
            tn_type_attrs_t *n = realloc(tn_tattr, (size_t)cap * sizeof(*n));
            if (n == NULL) {
                return TN_ERR_NOMEM;
            }
            tn_tattr = n;
            tn_tattr_cap = cap;
        }
        e = &tn_tattr[tn_tattr_n++];
        e->dt = dt;
        e->list = NULL;
    }
    tn_status_t st = tn_attr_append(&e->list, kv, value);
    if (st != TN_OK) {
        tattr_prune(dt);
    }
    return st;
}

static int callback_err(int rc, const char *fn, const char *what, int id)
{
    return tn_mpi_err(NULL, rc, fn, NULL, "the %s callback of keyval %d returned error %d",
                      what, id, rc);
}

static int type_call_delete(const tn_dt_t *dt, tn_keyval_t *kv, void *value)
{
    MPI_Type_delete_attr_function *del = (MPI_Type_delete_attr_function *)kv->delete_fn;
    if (del == MPI_TYPE_NULL_DELETE_FN) {
        return MPI_SUCCESS;
    }
    return del(tn_mpi_dt_handle(dt), kv->id, value, kv->extra_state);
}

static int type_attr_delete_one(const tn_dt_t *dt, tn_keyval_t *kv)
{
    tn_attr_t *a = tn_attr_find(type_attrs(dt), kv);
    if (a == NULL) {
        return MPI_SUCCESS;
    }
    tn_keyval_retain(kv);
    int rc = type_call_delete(dt, kv, a->value);
    if (rc == MPI_SUCCESS) {
        tn_attr_remove(type_attrs(dt), kv);
        tattr_prune(dt);
    }
    tn_keyval_release(kv);
    return rc;
}

int tn_mpi_type_attr_delete_all(const char *fn, const tn_dt_t *dt)
{
    tn_attr_list_t *l;
    while ((l = type_attrs(dt)) != NULL && l->n > 0) {
        tn_keyval_t *kv = l->a[l->n - 1].kv;
        int id = kv->id;
        int rc = type_attr_delete_one(dt, kv);
        if (rc != MPI_SUCCESS) {
            return callback_err(rc, fn, "delete", id);
        }
    }
    return MPI_SUCCESS;
}

int tn_mpi_type_attr_copy(const char *fn, const tn_dt_t *old, const tn_dt_t *nt)
{
    int n = tn_attr_count(type_attrs(old)), rc = MPI_SUCCESS;
    if (n == 0) {
        return MPI_SUCCESS;
    }
    tn_attr_t *snap = malloc((size_t)n * sizeof(*snap));
    if (snap == NULL) {
        return tn_mpi_err_status(NULL, TN_ERR_NOMEM, fn);
    }
    memcpy(snap, type_attrs(old)->a, (size_t)n * sizeof(*snap));
    for (int i = 0; i < n; i++) {
        tn_keyval_retain(snap[i].kv);
    }
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        tn_keyval_t *kv = snap[i].kv;
        MPI_Type_copy_attr_function *copy = (MPI_Type_copy_attr_function *)kv->copy_fn;
        void *out = NULL;
        int flag = 0;
        if (copy == MPI_TYPE_NULL_COPY_FN) {
            continue;
        }
        if (copy == MPI_TYPE_DUP_FN) {
            out = snap[i].value;
            flag = 1;
        } else {
            rc = copy(tn_mpi_dt_handle(old), kv->id, kv->extra_state, snap[i].value, &out,
                      &flag);
            if (rc != MPI_SUCCESS) {
                rc = callback_err(rc, fn, "copy", kv->id);
                break;
            }
        }
        if (flag) {
            tn_status_t st = type_attr_append(nt, kv, out);
            if (st != TN_OK) {
                rc = tn_mpi_err_status(NULL, st, fn);
            }
        }
    }
    for (int i = 0; i < n; i++) {
        tn_keyval_release(snap[i].kv);
    }
    free(snap);
    if (rc != MPI_SUCCESS) {
        /* undo: delete what reached the new type, ignoring callback errors */
        tn_attr_list_t *l;
        while ((l = type_attrs(nt)) != NULL && l->n > 0) {
            tn_keyval_t *kv = l->a[l->n - 1].kv;
            tn_keyval_retain(kv);
            (void)type_call_delete(nt, kv, l->a[l->n - 1].value);
            tn_attr_remove(l, kv);
            tattr_prune(nt);
            tn_keyval_release(kv);
        }
    }
    return rc;
}

/* ---- keyvals ----------------------------------------------------------- */

/* Any valid datatype, committed or not (attributes do not need a commit). */
static int type_arg(const char *fn, MPI_Datatype h, const tn_dt_t **dt_p)
{
    const tn_dt_t *dt = tn_mpi_dt_lookup(h);
    if (dt == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_TYPE, fn, "datatype", "%s",
                          h == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL" : "not a valid datatype");
    }
    *dt_p = dt;
    return MPI_SUCCESS;
}

static int type_keyval_arg(const char *fn, int keyval, const char *arg, tn_keyval_t **kv_p)
{
    if (keyval == MPI_KEYVAL_INVALID) {
        return tn_mpi_err(NULL, MPI_ERR_KEYVAL, fn, arg, "MPI_KEYVAL_INVALID");
    }
    tn_keyval_t *kv = tn_keyval_find(keyval);
    if (kv == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_KEYVAL, fn, arg,
                          "%d is not a keyval (never created, or freed and no longer "
                          "in use)", keyval);
    }
    if (kv->kind != TN_ATTR_TYPE) {
        return tn_mpi_err(NULL, MPI_ERR_KEYVAL, fn, arg,
                          "keyval %d was not created for datatypes", keyval);
    }
    *kv_p = kv;
    return MPI_SUCCESS;
}

int tn_mpi_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                              MPI_Type_delete_attr_function *type_delete_attr_fn,
                              int *type_keyval, void *extra_state)
{
    static const char fn[] = "MPI_Type_create_keyval";
    tn_keyval_t *kv = NULL;
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (type_keyval == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "type_keyval", "NULL pointer");
    }
    tn_mpi_enter();
    tn_status_t st = tn_keyval_create(TN_ATTR_TYPE, (tn_attr_fn_t *)type_copy_attr_fn,
                                      (tn_attr_fn_t *)type_delete_attr_fn, extra_state, &kv);
    tn_mpi_leave();
    if (st != TN_OK) {
        return tn_mpi_err_status(NULL, st, fn);
    }
    *type_keyval = kv->id;
    return MPI_SUCCESS;
}

int tn_mpi_Type_free_keyval(int *type_keyval)
{
    static const char fn[] = "MPI_Type_free_keyval";
    tn_keyval_t *kv = NULL;
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (type_keyval == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "type_keyval", "NULL pointer");
    }
    tn_mpi_enter();
    if ((rc = type_keyval_arg(fn, *type_keyval, "type_keyval", &kv)) == MPI_SUCCESS &&
        kv->freed) {
        rc = tn_mpi_err(NULL, MPI_ERR_KEYVAL, fn, "type_keyval", "keyval %d was freed already",
                        *type_keyval);
    }
    if (rc == MPI_SUCCESS) {
        tn_keyval_free(kv);
        *type_keyval = MPI_KEYVAL_INVALID;
    }
    tn_mpi_leave();
    return rc;
}

/* ---- set / get / delete ------------------------------------------------ */

int tn_mpi_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    static const char fn[] = "MPI_Type_set_attr";
    const tn_dt_t *dt = NULL;
    tn_keyval_t *kv = NULL;
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS || (rc = type_arg(fn, datatype, &dt))) {
        return rc;
    }
    tn_mpi_enter();
    if ((rc = type_keyval_arg(fn, type_keyval, "type_keyval", &kv)) == MPI_SUCCESS) {
        tn_keyval_retain(kv);
        if (tn_attr_find(type_attrs(dt), kv) != NULL) {
            /* overwrite: the old value's delete callback first */
            rc = type_attr_delete_one(dt, kv);
            if (rc != MPI_SUCCESS) {
                rc = callback_err(rc, fn, "delete", kv->id);
            }
        }
        if (rc == MPI_SUCCESS) {
            tn_status_t st = type_attr_append(dt, kv, attribute_val);
            if (st != TN_OK) {
                rc = tn_mpi_err_status(NULL, st, fn);
            }
        }
        tn_keyval_release(kv);
    }
    tn_mpi_leave();
    return rc;
}

int tn_mpi_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val,
                         int *flag)
{
    static const char fn[] = "MPI_Type_get_attr";
    const tn_dt_t *dt = NULL;
    tn_keyval_t *kv = NULL;
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS || (rc = type_arg(fn, datatype, &dt))) {
        return rc;
    }
    if (attribute_val == NULL || flag == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, attribute_val == NULL ? "attribute_val" : "flag",
                          "NULL pointer");
    }
    tn_mpi_enter();
    if ((rc = type_keyval_arg(fn, type_keyval, "type_keyval", &kv)) == MPI_SUCCESS) {
        tn_attr_t *a = tn_attr_find(type_attrs(dt), kv);
        *flag = a != NULL;
        if (a != NULL) {
            *(void **)attribute_val = a->value;
        }
    }
    tn_mpi_leave();
    return rc;
}

int tn_mpi_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    static const char fn[] = "MPI_Type_delete_attr";
    const tn_dt_t *dt = NULL;
    tn_keyval_t *kv = NULL;
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS || (rc = type_arg(fn, datatype, &dt))) {
        return rc;
    }
    tn_mpi_enter();
    if ((rc = type_keyval_arg(fn, type_keyval, "type_keyval", &kv)) == MPI_SUCCESS) {
        int id = kv->id;
        rc = type_attr_delete_one(dt, kv);
        if (rc != MPI_SUCCESS) {
            rc = callback_err(rc, fn, "delete", id);
        }
    }
    tn_mpi_leave();
    return rc;
}
