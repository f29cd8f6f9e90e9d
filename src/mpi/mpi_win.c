/* Windows at the MPI level: creation in every flavour, free, handles,
 * error handlers, info hints, names, groups, attributes, dynamic regions
 * and shared queries.  The window itself is src/rma (rma.h).
 *
 * A window's default error handler is MPI_ERRORS_ARE_FATAL (the
 * standard's).  User handlers made by MPI_Win_create_errhandler are kept
 * as the communicator kind's function pointer: both take a pointer to a
 * handle and the code, and every handle of the ABI is a pointer. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi/mpi_impl.h"
#include "mpi/mpi_info.h"
#include "mpi/mpi_rma.h"
#include "comm/attr.h"

/* ---- handles and errors -------------------------------------------------- */

tn_win_t *tn_mpi_win_last;

int tn_mpi_win_arg(const char *fn, MPI_Win h, tn_win_t **win_p)
{
    tn_win_t *w = tn_mpi_win_cached(h);
    if (w != NULL) {
        *win_p = w;
        return MPI_SUCCESS;
    }
    w = (tn_win_t *)(void *)h;
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (h == MPI_WIN_NULL || !tn_objreg_has(w, TN_OBJ_WIN)) {
        return tn_mpi_err(NULL, MPI_ERR_WIN, fn, "win", "%s",
                          h == MPI_WIN_NULL ? "MPI_WIN_NULL is not a window" : "invalid window");
    }
    __atomic_store_n(&tn_mpi_win_last, w, __ATOMIC_RELEASE);
    *win_p = w;
    return MPI_SUCCESS;
}

int tn_mpi_win_err(tn_win_t *w, int errclass, const char *fn, const char *arg,
                   const char *fmt, ...)
{
    char msg[1024];
    int off = arg != NULL ? snprintf(msg, sizeof(msg), "%s(%s): ", fn, arg)
                          : snprintf(msg, sizeof(msg), "%s: ", fn);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + off, sizeof(msg) - (size_t)off, fmt, ap);
    va_end(ap);
    MPI_Win h = (MPI_Win)(void *)w;
    tn_errh_t *eh = w->errh != NULL ? w->errh : &tn_errh_fatal;
    return tn_mpi_errh_invoke(eh, &h, errclass, msg);
}

int tn_mpi_win_err_status(tn_win_t *w, tn_status_t st, const char *fn)
{
    if (st == TN_ERR_UNSUPPORTED) {
        return tn_mpi_win_err(w, MPI_ERR_UNSUPPORTED_OPERATION, fn, NULL,
                              "not supported on this path yet: padded pair types (MPI_"
                              "DOUBLE_INT ...) or target datatypes of more than 500 pieces "
                              "to a target reached by messages");
    }
    return tn_mpi_win_err(w, tn_mpi_class_of(st), fn, NULL, "%s", tn_status_str(st));
}

/* ---- creation -------------------------------------------------------------- */

static const char *const tn_win_info_defaults[][2] = {
    { "no_locks", "false" },
    { "accumulate_ordering", "rar,raw,war,waw" },
    { "accumulate_ops", "same_op_no_op" },
    { "same_size", "false" },
    { "same_disp_unit", "false" },
    { "alloc_shared_noncontig", "false" },
    { "mpi_win_model", "unified" },
};

/* The hints the window was made with, the defaults for the rest. */
static tn_status_t win_info_new(const tn_info_t *given, tn_info_t **info_p)
{
    tn_info_t *i = NULL;
    tn_status_t st = given != NULL ? tn_info_dup(given, &i) : tn_info_new(&i);
    for (size_t k = 0; st == TN_OK && k < sizeof(tn_win_info_defaults) /
                                             sizeof(tn_win_info_defaults[0]); k++) {
        if (tn_info_get(i, tn_win_info_defaults[k][0]) == NULL) {
            st = tn_info_set(i, tn_win_info_defaults[k][0], tn_win_info_defaults[k][1]);
        }
    }
    if (st != TN_OK && i != NULL) {
        tn_info_release(i);
        return st;
    }
    *info_p = i;
    return st;
}

static int info_true(const tn_info_t *i, const char *key)
{
    const char *v = i != NULL ? tn_info_get(i, key) : NULL;
    return v != NULL && strcmp(v, "true") == 0;
}

static int win_new(const char *fn, int flavor, void *base, int64_t size, int64_t disp_unit,
                   MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    tn_comm_t *c = NULL;
    tn_info_t *given = NULL, *hints = NULL;
    tn_win_t *w = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = tn_mpi_check_intra(fn, c, "comm"))) {
        return rc;
    }
    if (win == NULL || (baseptr == NULL && (flavor == TN_WIN_ALLOCATE ||
                                            flavor == TN_WIN_SHARED))) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, win == NULL ? "win" : "baseptr", "NULL pointer");
    }
    if (size < 0) {
        return tn_mpi_err(c, MPI_ERR_SIZE, fn, "size", "%lld is negative", (long long)size);
    }
    if (disp_unit <= 0) {
        return tn_mpi_err(c, MPI_ERR_DISP, fn, "disp_unit", "%lld is not positive",
                          (long long)disp_unit);
    }
    if (info != MPI_INFO_NULL && (given = tn_mpi_info_get(info)) == NULL) {
        return tn_mpi_err(c, MPI_ERR_INFO, fn, "info", "invalid info object");
    }
    if (flavor == TN_WIN_CREATE && size > 0 && base == NULL) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, "base", "NULL base for %lld bytes",
                          (long long)size);
    }
    if (flavor == TN_WIN_SHARED) {
        const tn_comm_nodes_t *nm = tn_comm_nodes(c);
        if (nm != NULL && nm->nnodes > 1) {
            return tn_mpi_err(c, MPI_ERR_RMA_SHARED, fn, "comm",
                              "its ranks are on %d nodes; a shared window needs one (split "
                              "it with MPI_COMM_TYPE_SHARED)", nm->nnodes);
        }
    }
    tn_mpi_enter();
    st = win_info_new(given, &hints);
    if (st == TN_OK) {
        st = tn_rma_win_create(c, flavor, base, (size_t)size, disp_unit,
                               info_true(hints, "alloc_shared_noncontig"), &w);
    }
    if (st == TN_OK && (st = tn_objreg_add(w, TN_OBJ_WIN)) != TN_OK) {
        tn_rma_win_free(w);
    }
    tn_mpi_leave();
    if (st != TN_OK) {
        if (hints != NULL) {
            tn_info_release(hints);
        }
        return tn_mpi_err_status(c, st, fn);
    }
    w->info = hints;
    w->no_locks = info_true(hints, "no_locks");
    snprintf(w->name, sizeof(w->name), "%s", "");
    if (baseptr != NULL) {
        *(void **)baseptr = w->base;
    }
    *win = (MPI_Win)(void *)w;
    return MPI_SUCCESS;
}

int tn_mpi_family_Win_create(void *base, MPI_Aint size, MPI_Count disp_unit, MPI_Info info,
                             MPI_Comm comm, MPI_Win *win, const tn_mpi_call_t *call)
{
    return win_new(call->fn, TN_WIN_CREATE, base, size, disp_unit, info, comm, NULL, win);
}

int tn_mpi_family_Win_allocate(MPI_Aint size, MPI_Count disp_unit, MPI_Info info,
                               MPI_Comm comm, void *baseptr, MPI_Win *win,
                               const tn_mpi_call_t *call)
{
    return win_new(call->fn, TN_WIN_ALLOCATE, NULL, size, disp_unit, info, comm, baseptr, win);
}

int tn_mpi_family_Win_allocate_shared(MPI_Aint size, MPI_Count disp_unit, MPI_Info info,
                                      MPI_Comm comm, void *baseptr, MPI_Win *win,
                                      const tn_mpi_call_t *call)
{
    return win_new(call->fn, TN_WIN_SHARED, NULL, size, disp_unit, info, comm, baseptr, win);
}

int tn_mpi_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return win_new("MPI_Win_create_dynamic", TN_WIN_DYNAMIC, NULL, 0, 1, info, comm, NULL,
                   win);
}

static int win_attrs_delete_all(const char *fn, tn_win_t *w);

int tn_mpi_Win_free(MPI_Win *win)
{
    static const char fn[] = "MPI_Win_free";
    tn_win_t *w = NULL;
    int rc;

    if (win == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "win", "NULL pointer");
    }
    if ((rc = tn_mpi_win_arg(fn, *win, &w))) {
        return rc;
    }
    if (w->nlocked > 0 || w->lock_all || w->start_ranks != NULL || w->post_ranks != NULL) {
        return tn_mpi_win_err(w, MPI_ERR_RMA_SYNC, fn, "win", "an epoch is still open (%s)",
                              w->post_ranks != NULL ? "MPI_Win_post without MPI_Win_wait"
                              : w->start_ranks != NULL ? "MPI_Win_start without "
                                                         "MPI_Win_complete"
                                                       : "a lock is held");
    }
    tn_mpi_enter();
    rc = win_attrs_delete_all(fn, w);
    if (rc != MPI_SUCCESS) {
        tn_mpi_leave();
        return rc;
    }
    tn_objreg_del(w);
    __atomic_store_n(&tn_mpi_win_last, NULL, __ATOMIC_RELEASE);
    if (w->info != NULL) {
        tn_info_release(w->info);
    }
    tn_status_t st = tn_rma_win_free(w);
    tn_mpi_leave();
    *win = MPI_WIN_NULL;
    return st == TN_OK ? MPI_SUCCESS : tn_mpi_err_status(NULL, st, fn);
}

/* ---- queries ---------------------------------------------------------------- */

int tn_mpi_Win_get_group(MPI_Win win, MPI_Group *group)
{
    static const char fn[] = "MPI_Win_get_group";
    tn_win_t *w = NULL;
    int rc;
    if ((rc = tn_mpi_win_arg(fn, win, &w))) {
        return rc;
    }
    if (group == NULL) {
        return tn_mpi_win_err(w, MPI_ERR_ARG, fn, "group", "NULL pointer");
    }
    tn_mpi_enter();
    tn_group_retain(w->comm->group);
    *group = tn_mpi_group_handle(w->comm->group);
    tn_mpi_leave();
    return MPI_SUCCESS;
}

int tn_mpi_Win_set_name(MPI_Win win, const char *win_name)
{
    static const char fn[] = "MPI_Win_set_name";
    tn_win_t *w = NULL;
    int rc;
    if ((rc = tn_mpi_win_arg(fn, win, &w))) {
        return rc;
    }
    if (win_name == NULL) {
        return tn_mpi_win_err(w, MPI_ERR_ARG, fn, "win_name", "NULL pointer");
    }
    snprintf(w->name, sizeof(w->name), "%s", win_name);
    return MPI_SUCCESS;
}

int tn_mpi_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    static const char fn[] = "MPI_Win_get_name";
    tn_win_t *w = NULL;
    int rc;
    if (win == MPI_WIN_NULL && win_name != NULL && resultlen != NULL &&
        (rc = tn_mpi_check_init(fn)) == MPI_SUCCESS) {
        snprintf(win_name, MPI_MAX_OBJECT_NAME, "MPI_WIN_NULL");
        *resultlen = (int)strlen(win_name);
        return MPI_SUCCESS;
    }
    if ((rc = tn_mpi_win_arg(fn, win, &w))) {
        return rc;
    }
    if (win_name == NULL || resultlen == NULL) {
        return tn_mpi_win_err(w, MPI_ERR_ARG, fn, win_name == NULL ? "win_name" : "resultlen",
                              "NULL pointer");
    }
    snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", w->name);
    *resultlen = (int)strlen(win_name);
    return MPI_SUCCESS;
}

int tn_mpi_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    static const char fn[] = "MPI_Win_get_info";
    tn_win_t *w = NULL;
    tn_info_t *i = NULL;
    int rc;
    if ((rc = tn_mpi_win_arg(fn, win, &w))) {
        return rc;
    }
    if (info_used == NULL) {
        return tn_mpi_win_err(w, MPI_ERR_ARG, fn, "info_used", "NULL pointer");
    }
    tn_status_t st = tn_info_dup(w->info, &i);
    if (st != TN_OK) {
        return tn_mpi_win_err_status(w, st, fn);
    }
    *info_used = tn_mpi_info_handle(i);
    return MPI_SUCCESS;
}

int tn_mpi_Win_set_info(MPI_Win win, MPI_Info info)
{
    static const char fn[] = "MPI_Win_set_info";
    tn_win_t *w = NULL;
    tn_info_t *given = NULL;
    int rc;
    if ((rc = tn_mpi_win_arg(fn, win, &w))) {
        return rc;
    }
    if (info != MPI_INFO_NULL && (given = tn_mpi_info_get(info)) == NULL) {
        return tn_mpi_win_err(w, MPI_ERR_INFO, fn, "info", "invalid info object");
    }
    /* hints Tern acts on are fixed at creation; the others are kept as given */
    for (int k = 0; given != NULL && tn_info_nthkey(given, k) != NULL; k++) {
        const char *key = tn_info_nthkey(given, k);
        if (strcmp(key, "no_locks") == 0 || strcmp(key, "alloc_shared_noncontig") == 0 ||
            strcmp(key, "mpi_win_model") == 0) {
            continue;
        }
        tn_status_t st = tn_info_set(w->info, key, tn_info_get(given, key));
        if (st != TN_OK) {
            return tn_mpi_win_err_status(w, st, fn);
        }
    }
    return MPI_SUCCESS;
}

static int shared_query(const char *fn, MPI_Win win, int rank, MPI_Aint *size, void *disp_unit,
                        int wide, void *baseptr)
{
    tn_win_t *w = NULL;
    int rc;
    if ((rc = tn_mpi_win_arg(fn, win, &w))) {
        return rc;
    }
    if (w->flavor == TN_WIN_DYNAMIC) {
        return tn_mpi_win_err(w, MPI_ERR_RMA_FLAVOR, fn, "win",
                              "a window of MPI_Win_create_dynamic has no memory to share");
    }
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= w->comm->size)) {
        return tn_mpi_win_err(w, MPI_ERR_RANK, fn, "rank", "%d is not in [0, %d)", rank,
                              w->comm->size);
    }
    if (size == NULL || disp_unit == NULL || baseptr == NULL) {
        return tn_mpi_win_err(w, MPI_ERR_ARG, fn, size == NULL ? "size" : disp_unit == NULL
                              ? "disp_unit" : "baseptr", "NULL pointer");
    }
    /* MPI 4.1: any flavour; memory I cannot load from reads as size 0 */
    void *b;
    size_t sz;
    int64_t du;
    tn_rma_shared_query(w, rank == MPI_PROC_NULL ? -1 : rank, &b, &sz, &du);
    *size = (MPI_Aint)sz;
    if (wide) {
        *(MPI_Aint *)disp_unit = (MPI_Aint)du;
    } else {
        *(int *)disp_unit = (int)du;
    }
    *(void **)baseptr = b;
    return MPI_SUCCESS;
}

int tn_mpi_family_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, void *disp_unit,
                                   void *baseptr, const tn_mpi_call_t *call)
{
    return shared_query(call->fn, win, rank, size, disp_unit, call->wide, baseptr);
}

int tn_mpi_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    static const char fn[] = "MPI_Win_attach";
    tn_win_t *w = NULL;
    int rc;
    if ((rc = tn_mpi_win_arg(fn, win, &w))) {
        return rc;
    }
    if (w->flavor != TN_WIN_DYNAMIC) {
        return tn_mpi_win_err(w, MPI_ERR_RMA_FLAVOR, fn, "win",
                              "memory is attached to windows of MPI_Win_create_dynamic only");
    }
    if (size < 0 || (size > 0 && base == NULL)) {
        return tn_mpi_win_err(w, size < 0 ? MPI_ERR_SIZE : MPI_ERR_ARG, fn,
                              size < 0 ? "size" : "base", "%s",
                              size < 0 ? "negative" : "NULL pointer");
    }
    for (int i = 0; i < w->nregions; i++) {
        uintptr_t b = w->regions[i].base, e = b + w->regions[i].size;
        if (size > 0 && (uintptr_t)base < e && (uintptr_t)base + (uintptr_t)size > b) {
            return tn_mpi_win_err(w, MPI_ERR_RMA_ATTACH, fn, "base",
                                  "overlaps memory attached before");
        }
    }
    tn_mpi_enter();
    tn_status_t st = tn_rma_attach(w, base, (size_t)size);
    tn_mpi_leave();
    return st == TN_OK ? MPI_SUCCESS : tn_mpi_win_err_status(w, st, fn);
}

int tn_mpi_Win_detach(MPI_Win win, const void *base)
{
    static const char fn[] = "MPI_Win_detach";
    tn_win_t *w = NULL;
    int rc;
    if ((rc = tn_mpi_win_arg(fn, win, &w))) {
        return rc;
    }
    if (w->flavor != TN_WIN_DYNAMIC) {
        return tn_mpi_win_err(w, MPI_ERR_RMA_FLAVOR, fn, "win",
                              "memory is detached from windows of MPI_Win_create_dynamic only");
    }
    tn_mpi_enter();
    tn_status_t st = tn_rma_detach(w, base);
    tn_mpi_leave();
    if (st != TN_OK) {
        return tn_mpi_win_err(w, MPI_ERR_RMA_ATTACH, fn, "base",
                              "no memory attached at this address");
    }
    return MPI_SUCCESS;
}

/* ---- error handlers ------------------------------------------------------------ */

int tn_mpi_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                                 MPI_Errhandler *errhandler)
{
    tn_errh_t *e = NULL;
    int rc = tn_mpi_errh_create("MPI_Win_create_errhandler", win_errhandler_fn != NULL,
                                "win_errhandler_fn", errhandler, &e);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    e->comm_fn = (MPI_Comm_errhandler_function *)(void (*)(void))win_errhandler_fn;
    *errhandler = tn_mpi_errh_handle(e);
    return MPI_SUCCESS;
}

int tn_mpi_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    static const char fn[] = "MPI_Win_set_errhandler";
    tn_win_t *w = NULL;
    int rc;
    if ((rc = tn_mpi_win_arg(fn, win, &w))) {
        return rc;
    }
    tn_errh_t *e = tn_mpi_errh_get(errhandler);
    if (e == NULL) {
        return tn_mpi_win_err(w, MPI_ERR_ARG, fn, "errhandler", "invalid error handler");
    }
    tn_mpi_errh_retain(e);
    w->errh = e;
    return MPI_SUCCESS;
}

int tn_mpi_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    static const char fn[] = "MPI_Win_get_errhandler";
    tn_win_t *w = NULL;
    int rc;
    if ((rc = tn_mpi_win_arg(fn, win, &w))) {
        return rc;
    }
    if (errhandler == NULL) {
        return tn_mpi_win_err(w, MPI_ERR_ARG, fn, "errhandler", "NULL pointer");
    }
    tn_errh_t *e = w->errh != NULL ? w->errh : &tn_errh_fatal;
    tn_mpi_errh_retain(e);
    *errhandler = tn_mpi_errh_handle(e);
    return MPI_SUCCESS;
}

int tn_mpi_Win_call_errhandler(MPI_Win win, int errorcode)
{
    static const char fn[] = "MPI_Win_call_errhandler";
    tn_win_t *w = NULL;
    int rc;
    if ((rc = tn_mpi_win_arg(fn, win, &w))) {
        return rc;
    }
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    if (tn_mpi_Error_string(errorcode, msg, &len) != MPI_SUCCESS) {
        snprintf(msg, sizeof(msg), "error code %d", errorcode);
    }
    int errclass = errorcode;
    (void)tn_mpi_Error_class(errorcode, &errclass);
    tn_errh_t *eh = w->errh != NULL ? w->errh : &tn_errh_fatal;
    if (eh->kind == TN_ERRH_USER) {
        MPI_Win h = win;
        int code = errorcode;
        ((MPI_Win_errhandler_function *)(void (*)(void))eh->comm_fn)(&h, &code);
        return MPI_SUCCESS;
    }
    tn_mpi_win_err(w, errclass, fn, NULL, "%s", msg);
    return MPI_SUCCESS;
}

/* ---- attributes -------------------------------------------------------------------
 * Predefined: MPI_WIN_BASE gives the base itself, the others a pointer to
 * the value.  User keyvals as on communicators (comm/attr.c); windows are
 * never copied, so copy callbacks never run. */

static int win_predefined(int keyval)
{
    return keyval >= MPI_WIN_BASE && keyval <= MPI_WIN_MODEL;
}

static int keyval_of(const char *fn, tn_win_t *w, int keyval, tn_keyval_t **kv_p)
{
    tn_keyval_t *kv = tn_keyval_find(keyval);
    if (kv == NULL || kv->kind != TN_ATTR_WIN) {
        return tn_mpi_win_err(w, MPI_ERR_KEYVAL, fn, "win_keyval", "%d is not a window "
                              "attribute key", keyval);
    }
    *kv_p = kv;
    return MPI_SUCCESS;
}

static int call_delete(tn_win_t *w, tn_keyval_t *kv, void *value)
{
    if (kv->delete_fn == NULL) {
        return MPI_SUCCESS;
    }
    MPI_Win_delete_attr_function *f = (MPI_Win_delete_attr_function *)kv->delete_fn;
    return f((MPI_Win)(void *)w, kv->id, value, kv->extra_state);
}

static int win_attrs_delete_all(const char *fn, tn_win_t *w)
{
    tn_attr_list_t *l = w->attrs;
    while (tn_attr_count(l) > 0) {
        tn_attr_t a = l->a[l->n - 1];
        int rc = call_delete(w, a.kv, a.value);
        if (rc != MPI_SUCCESS) {
            return tn_mpi_win_err(w, rc, fn, NULL, "a delete callback of keyval %d failed",
                                  a.kv->id);
        }
        tn_attr_remove(l, a.kv);
    }
    tn_attr_list_destroy(l);
    w->attrs = NULL;
    return MPI_SUCCESS;
}

int tn_mpi_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                             MPI_Win_delete_attr_function *win_delete_attr_fn,
                             int *win_keyval, void *extra_state)
{
    static const char fn[] = "MPI_Win_create_keyval";
    tn_keyval_t *kv = NULL;
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (win_keyval == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "win_keyval", "NULL pointer");
    }
    tn_mpi_enter();
    tn_status_t st = tn_keyval_create(TN_ATTR_WIN, (tn_attr_fn_t *)win_copy_attr_fn,
                                      (tn_attr_fn_t *)win_delete_attr_fn, extra_state, &kv);
    tn_mpi_leave();
    if (st != TN_OK) {
        return tn_mpi_err_status(NULL, st, fn);
    }
    *win_keyval = kv->id;
    return MPI_SUCCESS;
}

int tn_mpi_Win_free_keyval(int *win_keyval)
{
    static const char fn[] = "MPI_Win_free_keyval";
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (win_keyval == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "win_keyval", "NULL pointer");
    }
    tn_keyval_t *kv = tn_keyval_find(*win_keyval);
    if (win_predefined(*win_keyval) || kv == NULL || kv->kind != TN_ATTR_WIN || kv->freed) {
        return tn_mpi_err(NULL, MPI_ERR_KEYVAL, fn, "win_keyval", "%d is not a window "
                          "attribute key that can be freed", *win_keyval);
    }
    tn_mpi_enter();
    tn_keyval_free(kv);
    tn_mpi_leave();
    *win_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

/* The window and user keyval of set_attr and delete_attr (what: "set",
 * "deleted"). */
static int user_attr_args(const char *fn, MPI_Win win, int keyval, const char *what,
                          tn_win_t **w_p, tn_keyval_t **kv_p)
{
    int rc;
    if ((rc = tn_mpi_win_arg(fn, win, w_p))) {
        return rc;
    }
    if (win_predefined(keyval)) {
        return tn_mpi_win_err(*w_p, MPI_ERR_KEYVAL, fn, "win_keyval",
                              "%d is a predefined attribute and cannot be %s", keyval, what);
    }
    return keyval_of(fn, *w_p, keyval, kv_p);
}

/* Delete kv's value on w if there is one (its callback first). */
static int user_attr_drop(const char *fn, tn_win_t *w, tn_keyval_t *kv)
{
    int rc = MPI_SUCCESS;
    tn_attr_t *a = tn_attr_find(w->attrs, kv);
    if (a != NULL && (rc = call_delete(w, kv, a->value)) == MPI_SUCCESS) {
        tn_attr_remove(w->attrs, kv);
    }
    if (rc != MPI_SUCCESS) {
        return tn_mpi_win_err(w, rc, fn, NULL, "the delete callback of keyval %d failed",
                              kv->id);
    }
    return MPI_SUCCESS;
}

int tn_mpi_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    static const char fn[] = "MPI_Win_set_attr";
    tn_win_t *w = NULL;
    tn_keyval_t *kv = NULL;
    int rc;
    if ((rc = user_attr_args(fn, win, win_keyval, "set", &w, &kv))) {
        return rc;
    }
    tn_mpi_enter();
    rc = user_attr_drop(fn, w, kv);
    tn_status_t st = rc == MPI_SUCCESS
                         ? tn_attr_append((tn_attr_list_t **)&w->attrs, kv, attribute_val)
                         : TN_OK;
    tn_mpi_leave();
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return st == TN_OK ? MPI_SUCCESS : tn_mpi_win_err_status(w, st, fn);
}

int tn_mpi_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    static const char fn[] = "MPI_Win_get_attr";
    tn_win_t *w = NULL;
    tn_keyval_t *kv = NULL;
    int rc;
    if ((rc = tn_mpi_win_arg(fn, win, &w))) {
        return rc;
    }
    if (attribute_val == NULL || flag == NULL) {
        return tn_mpi_win_err(w, MPI_ERR_ARG, fn, flag == NULL ? "flag" : "attribute_val",
                              "NULL pointer");
    }
    if (win_predefined(win_keyval)) {
        static const int flavors[] = { [TN_WIN_CREATE] = MPI_WIN_FLAVOR_CREATE,
                                       [TN_WIN_ALLOCATE] = MPI_WIN_FLAVOR_ALLOCATE,
                                       [TN_WIN_DYNAMIC] = MPI_WIN_FLAVOR_DYNAMIC,
                                       [TN_WIN_SHARED] = MPI_WIN_FLAVOR_SHARED };
        w->attr_size = (int64_t)w->size;
        w->attr_disp_unit = (int)w->disp_unit;
        w->attr_flavor = flavors[w->flavor];
        w->attr_model = MPI_WIN_UNIFIED;
        void *v = win_keyval == MPI_WIN_BASE ? w->base
                  : win_keyval == MPI_WIN_SIZE ? (void *)&w->attr_size
                  : win_keyval == MPI_WIN_DISP_UNIT ? (void *)&w->attr_disp_unit
                  : win_keyval == MPI_WIN_CREATE_FLAVOR ? (void *)&w->attr_flavor
                                                         : (void *)&w->attr_model;
        *(void **)attribute_val = v;
        *flag = 1;
        return MPI_SUCCESS;
    }
    if ((rc = keyval_of(fn, w, win_keyval, &kv))) {
        return rc;
    }
    tn_attr_t *a = tn_attr_find(w->attrs, kv);
    *flag = a != NULL;
    if (a != NULL) {
        *(void **)attribute_val = a->value;
    }
    return MPI_SUCCESS;
}

int tn_mpi_Win_delete_attr(MPI_Win win, int win_keyval)
{
    static const char fn[] = "MPI_Win_delete_attr";
    tn_win_t *w = NULL;
    tn_keyval_t *kv = NULL;
    int rc;
    if ((rc = user_attr_args(fn, win, win_keyval, "deleted", &w, &kv))) {
        return rc;
    }
    tn_mpi_enter();
    rc = user_attr_drop(fn, w, kv);
    tn_mpi_leave();
    return rc;
}
