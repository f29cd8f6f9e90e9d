/* Attribute caching on communicators: keyvals, MPI_Comm_set/get/delete_attr,
 * the predefined attributes (MPI_TAG_UB ...), the copy callbacks run by
 * MPI_Comm_dup and friends, the delete callbacks run by MPI_Comm_free and
 * MPI_Finalize, and the deprecated MPI-1 names (MPI_Keyval_create,
 * MPI_Attr_put ...), which behave exactly like the new ones in C.
 *
 * The bookkeeping lives in comm/attr.c; this file knows the real types of
 * the callbacks and the predefined callback values of the standard ABI
 * (NULL_COPY_FN = 0, DUP_FN = 1, NULL_DELETE_FN = 0), which are compared by
 * value and never called.
 *
 * Choices where the standard leaves room:
 *   - Callbacks run with the big lock held (it is recursive, so they may call
 *     MPI).  A callback that returns anything but MPI_SUCCESS makes the call
 *     fail with that code, reported through the communicator's handler.
 *   - Overwriting a value runs the old value's delete callback first; the
 *     new value then counts as the most recently set.  If that callback
 *     fails, the old value stays.
 *   - MPI_Comm_free and MPI_Finalize delete attributes newest first (the
 *     standard's LIFO order for MPI_COMM_SELF at finalize, used everywhere).
 *     A failing delete callback stops MPI_Comm_free: the communicator stays
 *     valid with the values not yet deleted, and the call returns the code.
 *   - MPI_Comm_dup copies attributes oldest first.  If a copy callback fails
 *     the duplicate is destroyed: the values already copied onto it get
 *     their delete callbacks (errors ignored) and the call returns the code.
 *   - A freed keyval can still be used with get/set/delete (through a saved
 *     copy of its value) while some attribute keeps it alive; freeing it a
 *     second time is MPI_ERR_KEYVAL.  Once its last value is deleted its id
 *     is invalid for good (ids are never reused).
 *   - Deleting an attribute that is not set succeeds and does nothing.
 *   - The predefined attributes read the same on every communicator.
 *
 * Datatype attributes share comm/attr.c (its keyvals have a kind) and live
 * in mpi_type_attr.c; window attributes are not wired (no windows yet). */
#include "mpi/mpi_impl.h"
#include "comm/attr.h"

#include <stdlib.h>
#include <string.h>

static tn_attr_list_t *comm_attrs(const tn_comm_t *c)
{
    return c->attrs;
}

static int comm_predefined_key(int keyval)
{
    return keyval >= MPI_TAG_UB && keyval <= MPI_UNIVERSE_SIZE;
}

static int win_predefined_key(int keyval)
{
    return keyval >= MPI_WIN_BASE && keyval <= MPI_WIN_MODEL;
}

static const char *kind_name(tn_attr_kind_t kind)
{
    switch (kind) {
    case TN_ATTR_COMM:
        return "communicators";
    case TN_ATTR_TYPE:
        return "datatypes";
    case TN_ATTR_WIN:
        return "windows";
    }
    return "another object kind";
}

/* The communicator keyval named by keyval (argument arg of fn).  write: the
 * call would change an attribute, which the predefined ones forbid.  For a
 * predefined key that is only read, *kv_p = NULL. */
static int comm_keyval_arg(const char *fn, tn_comm_t *c, int keyval, const char *arg,
                           int write, tn_keyval_t **kv_p)
{
    tn_keyval_t *kv;

    *kv_p = NULL;
    if (keyval == MPI_KEYVAL_INVALID) {
        return tn_mpi_err(c, MPI_ERR_KEYVAL, fn, arg, "MPI_KEYVAL_INVALID");
    }
    if (comm_predefined_key(keyval)) {
        if (write) {
            return tn_mpi_err(c, MPI_ERR_KEYVAL, fn, arg,
                              "%d is a predefined attribute, which is read-only", keyval);
        }
        return MPI_SUCCESS;
    }
    if (win_predefined_key(keyval)) {
        return tn_mpi_err(c, MPI_ERR_KEYVAL, fn, arg,
                          "%d is a predefined window attribute, not a communicator one",
                          keyval);
    }
    kv = tn_keyval_find(keyval);
    if (kv == NULL) {
        return tn_mpi_err(c, MPI_ERR_KEYVAL, fn, arg,
                          "%d is not a keyval (never created, or freed and no longer "
                          "in use)", keyval);
    }
    if (kv->kind != TN_ATTR_COMM) {
        return tn_mpi_err(c, MPI_ERR_KEYVAL, fn, arg, "keyval %d was created for %s",
                          keyval, kind_name(kv->kind));
    }
    *kv_p = kv;
    return MPI_SUCCESS;
}

static int out_arg(const char *fn, tn_comm_t *c, const void *p, const char *arg)
{
    if (p == NULL) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, arg, "NULL pointer");
    }
    return MPI_SUCCESS;
}

/* ---- callbacks --------------------------------------------------------- */

static int comm_call_delete(tn_comm_t *c, tn_keyval_t *kv, void *value)
{
    MPI_Comm_delete_attr_function *del = (MPI_Comm_delete_attr_function *)kv->delete_fn;

    if (del == MPI_COMM_NULL_DELETE_FN) {
        return MPI_SUCCESS;
    }
    return del(tn_mpi_comm_handle(c), kv->id, value, kv->extra_state);
}

/* Run the delete callback of kv's value on c and remove the value when it
 * succeeds; otherwise return the callback's code and keep the value. */
static int comm_attr_delete_one(tn_comm_t *c, tn_keyval_t *kv)
{
    tn_attr_t *a = tn_attr_find(comm_attrs(c), kv);
    int rc;

    if (a == NULL) {
        return MPI_SUCCESS;
    }
    /* The callback may change c's attributes: keep kv alive, then look
     * the value up again. */
    tn_keyval_retain(kv);
    rc = comm_call_delete(c, kv, a->value);
    if (rc == MPI_SUCCESS) {
        tn_attr_remove(comm_attrs(c), kv);
    }
    tn_keyval_release(kv);
    return rc;
}

static int callback_err(tn_comm_t *c, int rc, const char *fn, const char *what, int id)
{
    return tn_mpi_err(c, rc, fn, NULL, "the %s callback of keyval %d returned error %d", what,
                      id, rc);
}

int tn_mpi_comm_attr_delete_all(const char *fn, tn_comm_t *c)
{
    tn_attr_list_t *l;

    while ((l = comm_attrs(c)) != NULL && l->n > 0) {
        tn_keyval_t *kv = l->a[l->n - 1].kv;
        int id = kv->id;
        int rc = comm_attr_delete_one(c, kv);

        if (rc != MPI_SUCCESS) {
            return callback_err(c, rc, fn, "delete", id);
        }
    }
    return MPI_SUCCESS;
}

/* Undo a failed copy: delete what reached nc, ignoring callback errors. */
static void comm_attr_discard(tn_comm_t *nc)
{
    tn_attr_list_t *l;

    while ((l = comm_attrs(nc)) != NULL && l->n > 0) {
        tn_keyval_t *kv = l->a[l->n - 1].kv;

        tn_keyval_retain(kv);
        (void)comm_call_delete(nc, kv, l->a[l->n - 1].value);
        tn_attr_remove(comm_attrs(nc), kv);
        tn_keyval_release(kv);
    }
}

int tn_mpi_comm_attr_copy(const char *fn, tn_comm_t *old, tn_comm_t *nc)
{
    int n = tn_attr_count(comm_attrs(old));
    tn_attr_t *snap;
    int i, rc = MPI_SUCCESS;

    if (n == 0) {
        return MPI_SUCCESS;
    }
    /* Callbacks may change old's list while we walk it: walk a copy. */
    snap = malloc((size_t)n * sizeof(*snap));
    if (snap == NULL) {
        return tn_mpi_err_status(old, TN_ERR_NOMEM, fn);
    }
    memcpy(snap, comm_attrs(old)->a, (size_t)n * sizeof(*snap));
    for (i = 0; i < n; i++) {
        tn_keyval_retain(snap[i].kv);
    }
    for (i = 0; i < n && rc == MPI_SUCCESS; i++) {
        tn_keyval_t *kv = snap[i].kv;
        MPI_Comm_copy_attr_function *copy = (MPI_Comm_copy_attr_function *)kv->copy_fn;
        void *out = NULL;
        int flag = 0;

        if (copy == MPI_COMM_NULL_COPY_FN) {
            continue;
        }
        if (copy == MPI_COMM_DUP_FN) {
            out = snap[i].value;
            flag = 1;
        } else {
            rc = copy(tn_mpi_comm_handle(old), kv->id, kv->extra_state, snap[i].value, &out,
                      &flag);
            if (rc != MPI_SUCCESS) {
                rc = callback_err(old, rc, fn, "copy", kv->id);
                break;
            }
        }
        if (flag) {
            tn_attr_list_t *l = comm_attrs(nc);
            tn_status_t st;

            st = tn_attr_append(&l, kv, out);
            nc->attrs = l;
            if (st != TN_OK) {
                rc = tn_mpi_err_status(old, st, fn);
            }
        }
    }
    for (i = 0; i < n; i++) {
        tn_keyval_release(snap[i].kv);
    }
    free(snap);
    if (rc != MPI_SUCCESS) {
        comm_attr_discard(nc);
    }
    return rc;
}

int tn_mpi_attr_finalize(void)
{
    int rc, rc2;

    tn_mpi_enter();
    rc = tn_mpi_comm_attr_delete_all("MPI_Finalize", &tn_comm_self);
    rc2 = tn_mpi_comm_attr_delete_all("MPI_Finalize", &tn_comm_world);
    tn_mpi_leave();
    return rc != MPI_SUCCESS ? rc : rc2;
}

/* ---- keyvals ----------------------------------------------------------- */

static int keyval_create(const char *fn, tn_attr_fn_t *copy_fn, tn_attr_fn_t *delete_fn,
                         int *keyval, const char *arg, void *extra_state)
{
    tn_keyval_t *kv = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_init(fn)) || (rc = out_arg(fn, NULL, keyval, arg))) {
        return rc;
    }
    tn_mpi_enter();
    st = tn_keyval_create(TN_ATTR_COMM, copy_fn, delete_fn, extra_state, &kv);
    tn_mpi_leave();
    if (st != TN_OK) {
        return tn_mpi_err_status(NULL, st, fn);
    }
    *keyval = kv->id;
    return MPI_SUCCESS;
}

static int keyval_free(const char *fn, int *keyval, const char *arg)
{
    tn_keyval_t *kv = NULL;
    int rc;

    if ((rc = tn_mpi_check_init(fn)) || (rc = out_arg(fn, NULL, keyval, arg))) {
        return rc;
    }
    if (comm_predefined_key(*keyval) || win_predefined_key(*keyval)) {
        return tn_mpi_err(NULL, MPI_ERR_KEYVAL, fn, arg,
                          "%d is a predefined attribute key and cannot be freed", *keyval);
    }
    tn_mpi_enter();
    if ((rc = comm_keyval_arg(fn, NULL, *keyval, arg, 1, &kv)) != MPI_SUCCESS) {
        tn_mpi_leave();
        return rc;
    }
    if (kv->freed) {
        tn_mpi_leave();
        return tn_mpi_err(NULL, MPI_ERR_KEYVAL, fn, arg, "keyval %d was freed already",
                          *keyval);
    }
    tn_keyval_free(kv);
    tn_mpi_leave();
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int tn_mpi_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                              MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                              int *comm_keyval, void *extra_state)
{
    return keyval_create("MPI_Comm_create_keyval", (tn_attr_fn_t *)comm_copy_attr_fn,
                         (tn_attr_fn_t *)comm_delete_attr_fn, comm_keyval, "comm_keyval",
                         extra_state);
}

int tn_mpi_Comm_free_keyval(int *comm_keyval)
{
    return keyval_free("MPI_Comm_free_keyval", comm_keyval, "comm_keyval");
}

int tn_mpi_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn,
                         int *keyval, void *extra_state)
{
    /* MPI_Copy_function and MPI_Comm_copy_attr_function are the same C
     * type (likewise the delete functions), so both are called alike. */
    return keyval_create("MPI_Keyval_create", (tn_attr_fn_t *)copy_fn,
                         (tn_attr_fn_t *)delete_fn, keyval, "keyval", extra_state);
}

int tn_mpi_Keyval_free(int *keyval)
{
    return keyval_free("MPI_Keyval_free", keyval, "keyval");
}

/* ---- set / get / delete ------------------------------------------------ */

static int comm_attr_set(const char *fn, MPI_Comm comm, int keyval, const char *arg,
                         void *value)
{
    tn_comm_t *c = NULL;
    tn_keyval_t *kv = NULL;
    tn_attr_list_t *l;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c))) {
        return rc;
    }
    tn_mpi_enter();
    if ((rc = comm_keyval_arg(fn, c, keyval, arg, 1, &kv)) != MPI_SUCCESS) {
        tn_mpi_leave();
        return rc;
    }
    /* Deleting the old value may drop the last reference of a freed kv. */
    tn_keyval_retain(kv);
    rc = comm_attr_delete_one(c, kv);
    if (rc != MPI_SUCCESS) {
        tn_keyval_release(kv);
        tn_mpi_leave();
        return callback_err(c, rc, fn, "delete", keyval);
    }
    l = comm_attrs(c);
    tn_attr_remove(l, kv);        /* a delete callback may have set it again */
    st = tn_attr_append(&l, kv, value);
    c->attrs = l;
    tn_keyval_release(kv);
    tn_mpi_leave();
    if (st != TN_OK) {
        return tn_mpi_err_status(c, st, fn);
    }
    return MPI_SUCCESS;
}

/* Pointer to the value of a predefined attribute, or NULL when it is not
 * set (MPI_APPNUM, MPI_UNIVERSE_SIZE may be absent).  The user gets
 * pointers to these. */
static int *comm_predefined_value(int keyval)
{
    static int tag_ub = 0x7fffffff;
    static int host = MPI_PROC_NULL;
    static int io = MPI_ANY_SOURCE;
    static int wtime_is_global = 0;
    static int lastusedcode, appnum, universe_size;

    switch (keyval) {
    case MPI_TAG_UB:
        return &tag_ub;
    case MPI_HOST:
        return &host;
    case MPI_IO:
        return &io;
    case MPI_WTIME_IS_GLOBAL:
        return &wtime_is_global;
    case MPI_LASTUSEDCODE:
        lastusedcode = tn_mpi_lastusedcode();
        return &lastusedcode;
    case MPI_APPNUM:
        if (tn_rt.appnum >= 0) {
            appnum = tn_rt.appnum;
            return &appnum;
        }
        return NULL;
    case MPI_UNIVERSE_SIZE:
        if (tn_rt.universe_size > 0) {
            universe_size = tn_rt.universe_size;
            return &universe_size;
        }
        return NULL;
    default:
        return NULL;
    }
}

static int comm_attr_get(const char *fn, MPI_Comm comm, int keyval, const char *arg,
                         void *attribute_val, int *flag)
{
    tn_comm_t *c = NULL;
    tn_keyval_t *kv = NULL;
    tn_attr_t *a;
    void *val = NULL;
    int found = 0;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) ||
        (rc = out_arg(fn, c, attribute_val, "attribute_val")) ||
        (rc = out_arg(fn, c, flag, "flag"))) {
        return rc;
    }
    tn_mpi_enter();
    if ((rc = comm_keyval_arg(fn, c, keyval, arg, 0, &kv)) != MPI_SUCCESS) {
        tn_mpi_leave();
        return rc;
    }
    if (kv == NULL) {
        val = comm_predefined_value(keyval);
        found = val != NULL;
    } else if ((a = tn_attr_find(comm_attrs(c), kv)) != NULL) {
        val = a->value;
        found = 1;
    }
    tn_mpi_leave();
    if (found) {
        *(void **)attribute_val = val;
    }
    *flag = found;
    return MPI_SUCCESS;
}

static int comm_attr_delete(const char *fn, MPI_Comm comm, int keyval, const char *arg)
{
    tn_comm_t *c = NULL;
    tn_keyval_t *kv = NULL;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c))) {
        return rc;
    }
    tn_mpi_enter();
    if ((rc = comm_keyval_arg(fn, c, keyval, arg, 1, &kv)) != MPI_SUCCESS) {
        tn_mpi_leave();
        return rc;
    }
    rc = comm_attr_delete_one(c, kv);
    tn_mpi_leave();
    if (rc != MPI_SUCCESS) {
        return callback_err(c, rc, fn, "delete", keyval);
    }
    return MPI_SUCCESS;
}

int tn_mpi_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    return comm_attr_set("MPI_Comm_set_attr", comm, comm_keyval, "comm_keyval",
                         attribute_val);
}

int tn_mpi_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    return comm_attr_get("MPI_Comm_get_attr", comm, comm_keyval, "comm_keyval",
                         attribute_val, flag);
}

int tn_mpi_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    return comm_attr_delete("MPI_Comm_delete_attr", comm, comm_keyval, "comm_keyval");
}

int tn_mpi_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return comm_attr_set("MPI_Attr_put", comm, keyval, "keyval", attribute_val);
}

int tn_mpi_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return comm_attr_get("MPI_Attr_get", comm, keyval, "keyval", attribute_val, flag);
}

int tn_mpi_Attr_delete(MPI_Comm comm, int keyval)
{
    return comm_attr_delete("MPI_Attr_delete", comm, keyval, "keyval");
}
