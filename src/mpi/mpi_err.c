/* Errors: classes and strings, error handlers, argument checks, status. */
#include "mpi/mpi_impl.h"
#include "base/log.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tn_errh_t tn_errh_fatal  = { TN_ERRH_MAGIC, TN_ERRH_FATAL, 1, 0x141, 1, NULL };
tn_errh_t tn_errh_abort  = { TN_ERRH_MAGIC, TN_ERRH_ABORT, 1, 0x142, 1, NULL };
tn_errh_t tn_errh_return = { TN_ERRH_MAGIC, TN_ERRH_RETURN, 1, 0x143, 1, NULL };

/* ------------------------------------------------------------ strings */

static const char *const tn_mpi_class_strings[] = {
    [MPI_SUCCESS]                   = "MPI_SUCCESS: no error",
    [MPI_ERR_BUFFER]                = "MPI_ERR_BUFFER: invalid buffer pointer",
    [MPI_ERR_COUNT]                 = "MPI_ERR_COUNT: invalid count argument",
    [MPI_ERR_TYPE]                  = "MPI_ERR_TYPE: invalid datatype",
    [MPI_ERR_TAG]                   = "MPI_ERR_TAG: invalid tag",
    [MPI_ERR_COMM]                  = "MPI_ERR_COMM: invalid communicator",
    [MPI_ERR_RANK]                  = "MPI_ERR_RANK: invalid rank",
    [MPI_ERR_REQUEST]               = "MPI_ERR_REQUEST: invalid request",
    [MPI_ERR_ROOT]                  = "MPI_ERR_ROOT: invalid root",
    [MPI_ERR_GROUP]                 = "MPI_ERR_GROUP: invalid group",
    [MPI_ERR_OP]                    = "MPI_ERR_OP: invalid operation",
    [MPI_ERR_TOPOLOGY]              = "MPI_ERR_TOPOLOGY: invalid topology",
    [MPI_ERR_DIMS]                  = "MPI_ERR_DIMS: invalid dimension argument",
    [MPI_ERR_ARG]                   = "MPI_ERR_ARG: invalid argument of some other kind",
    [MPI_ERR_UNKNOWN]               = "MPI_ERR_UNKNOWN: unknown error",
    [MPI_ERR_TRUNCATE]              = "MPI_ERR_TRUNCATE: message truncated on receive",
    [MPI_ERR_OTHER]                 = "MPI_ERR_OTHER: known error not in this list",
    [MPI_ERR_INTERN]                = "MPI_ERR_INTERN: internal MPI (implementation) error",
    [MPI_ERR_PENDING]               = "MPI_ERR_PENDING: pending request",
    [MPI_ERR_IN_STATUS]             = "MPI_ERR_IN_STATUS: error code is in status",
    [MPI_ERR_ACCESS]                = "MPI_ERR_ACCESS: permission denied",
    [MPI_ERR_AMODE]                 = "MPI_ERR_AMODE: error related to the amode passed to MPI_FILE_OPEN",
    [MPI_ERR_ASSERT]                = "MPI_ERR_ASSERT: invalid assertion argument",
    [MPI_ERR_BAD_FILE]              = "MPI_ERR_BAD_FILE: invalid file name",
    [MPI_ERR_BASE]                  = "MPI_ERR_BASE: invalid base argument",
    [MPI_ERR_CONVERSION]            = "MPI_ERR_CONVERSION: error in a user data conversion function",
    [MPI_ERR_DISP]                  = "MPI_ERR_DISP: invalid displacement argument",
    [MPI_ERR_DUP_DATAREP]           = "MPI_ERR_DUP_DATAREP: data representation identifier already registered",
    [MPI_ERR_FILE_EXISTS]           = "MPI_ERR_FILE_EXISTS: file exists",
    [MPI_ERR_FILE_IN_USE]           = "MPI_ERR_FILE_IN_USE: file operation could not be completed, file in use",
    [MPI_ERR_FILE]                  = "MPI_ERR_FILE: invalid file handle",
    [MPI_ERR_INFO_KEY]              = "MPI_ERR_INFO_KEY: key longer than MPI_MAX_INFO_KEY",
    [MPI_ERR_INFO_NOKEY]            = "MPI_ERR_INFO_NOKEY: invalid key passed to MPI_INFO_DELETE",
    [MPI_ERR_INFO_VALUE]            = "MPI_ERR_INFO_VALUE: value longer than MPI_MAX_INFO_VAL",
    [MPI_ERR_INFO]                  = "MPI_ERR_INFO: invalid info argument",
    [MPI_ERR_IO]                    = "MPI_ERR_IO: other I/O error",
    [MPI_ERR_KEYVAL]                = "MPI_ERR_KEYVAL: invalid keyval",
    [MPI_ERR_LOCKTYPE]              = "MPI_ERR_LOCKTYPE: invalid locktype argument",
    [MPI_ERR_NAME]                  = "MPI_ERR_NAME: invalid service name passed to MPI_LOOKUP_NAME",
    [MPI_ERR_NO_MEM]                = "MPI_ERR_NO_MEM: out of memory",
    [MPI_ERR_NOT_SAME]              = "MPI_ERR_NOT_SAME: collective argument not identical on all processes",
    [MPI_ERR_NO_SPACE]              = "MPI_ERR_NO_SPACE: not enough space",
    [MPI_ERR_NO_SUCH_FILE]          = "MPI_ERR_NO_SUCH_FILE: file does not exist",
    [MPI_ERR_PORT]                  = "MPI_ERR_PORT: invalid port name",
    [MPI_ERR_QUOTA]                 = "MPI_ERR_QUOTA: quota exceeded",
    [MPI_ERR_READ_ONLY]             = "MPI_ERR_READ_ONLY: read-only file or file system",
    [MPI_ERR_RMA_ATTACH]            = "MPI_ERR_RMA_ATTACH: memory cannot be attached",
    [MPI_ERR_RMA_CONFLICT]          = "MPI_ERR_RMA_CONFLICT: conflicting accesses to window",
    [MPI_ERR_RMA_RANGE]             = "MPI_ERR_RMA_RANGE: target memory is not part of the window",
    [MPI_ERR_RMA_SHARED]            = "MPI_ERR_RMA_SHARED: memory cannot be shared",
    [MPI_ERR_RMA_SYNC]              = "MPI_ERR_RMA_SYNC: wrong synchronization of RMA calls",
    [MPI_ERR_SERVICE]               = "MPI_ERR_SERVICE: invalid service name passed to MPI_UNPUBLISH_NAME",
    [MPI_ERR_SIZE]                  = "MPI_ERR_SIZE: invalid size argument",
    [MPI_ERR_SPAWN]                 = "MPI_ERR_SPAWN: error in spawning processes",
    [MPI_ERR_UNSUPPORTED_DATAREP]   = "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "MPI_ERR_UNSUPPORTED_OPERATION: unsupported operation",
    [MPI_ERR_WIN]                   = "MPI_ERR_WIN: invalid window argument",
    [MPI_ERR_RMA_FLAVOR]            = "MPI_ERR_RMA_FLAVOR: passed window has the wrong flavor",
    [MPI_ERR_PROC_ABORTED]          = "MPI_ERR_PROC_ABORTED: operation failed because a peer process aborted",
    [MPI_ERR_VALUE_TOO_LARGE]       = "MPI_ERR_VALUE_TOO_LARGE: value is too large to store",
    [MPI_ERR_SESSION]               = "MPI_ERR_SESSION: invalid session argument",
    [MPI_ERR_ERRHANDLER]            = "MPI_ERR_ERRHANDLER: invalid errhandler argument",
    [MPI_ERR_ABI]                   = "MPI_ERR_ABI: the ABI cannot support this functionality",
};

#define TN_MPI_NCLASSES ((int)(sizeof(tn_mpi_class_strings) / sizeof(tn_mpi_class_strings[0])))

/* MPI_T return codes have strings too (MPI_Error_string accepts them). */
static const char *const tn_mpi_t_strings[] = {
    "MPI_T_ERR_CANNOT_INIT: the MPI tool information interface cannot be initialized",
    "MPI_T_ERR_NOT_ACCESSIBLE: not accessible now",
    "MPI_T_ERR_NOT_INITIALIZED: the MPI tool information interface is not initialized",
    "MPI_T_ERR_NOT_SUPPORTED: not supported",
    "MPI_T_ERR_MEMORY: out of memory",
    "MPI_T_ERR_INVALID: invalid use of the interface or bad parameter value",
    "MPI_T_ERR_INVALID_INDEX: the index is invalid or has been deleted",
    "MPI_T_ERR_INVALID_ITEM: the item index queried is out of range",
    "MPI_T_ERR_INVALID_SESSION: the session argument is not valid",
    "MPI_T_ERR_INVALID_HANDLE: the handle is invalid",
    "MPI_T_ERR_INVALID_NAME: the name is invalid",
    "MPI_T_ERR_OUT_OF_HANDLES: no more handles available",
    "MPI_T_ERR_OUT_OF_SESSIONS: no more sessions available",
    "MPI_T_ERR_CVAR_SET_NOT_NOW: the cvar cannot be set now",
    "MPI_T_ERR_CVAR_SET_NEVER: the cvar cannot be set until the end of execution",
    "MPI_T_ERR_PVAR_NO_WRITE: the pvar cannot be written or reset",
    "MPI_T_ERR_PVAR_NO_STARTSTOP: the pvar cannot be started or stopped",
    "MPI_T_ERR_PVAR_NO_ATOMIC: the pvar cannot be read and reset atomically",
};
#define TN_MPI_T_FIRST MPI_T_ERR_CANNOT_INIT
#define TN_MPI_T_N ((int)(sizeof(tn_mpi_t_strings) / sizeof(tn_mpi_t_strings[0])))

/* User-added classes and codes (MPI_Add_error_class/code/string) are
 * numbered above MPI_ERR_LASTCODE, as the standard requires. */
#define TN_MPI_USER_BASE (MPI_ERR_LASTCODE + 1)

typedef struct {
    int   errclass;       /* class of this code (itself for a class) */
    char *string;
    int   removed;        /* MPI_Remove_error_class/code: the number is no longer valid */
} tn_user_err_t;

static tn_user_err_t *tn_user_errs;   /* index: code - TN_MPI_USER_BASE */
static int tn_user_nerrs;

int tn_mpi_lastusedcode(void)
{
    /* The largest code still in use: removed numbers at the top do not count. */
    int n = tn_user_nerrs;
    while (n > 0 && tn_user_errs[n - 1].removed) {
        n--;
    }
    return n > 0 ? TN_MPI_USER_BASE + n - 1 : MPI_ERR_LASTCODE;
}

static tn_user_err_t *tn_mpi_user_err(int code)
{
    if (code >= TN_MPI_USER_BASE && code < TN_MPI_USER_BASE + tn_user_nerrs &&
        !tn_user_errs[code - TN_MPI_USER_BASE].removed) {
        return &tn_user_errs[code - TN_MPI_USER_BASE];
    }
    return NULL;
}

static int tn_mpi_valid_code(int code)
{
    return (code >= 0 && code < TN_MPI_NCLASSES) || tn_mpi_user_err(code) != NULL ||
           (code >= TN_MPI_T_FIRST && code < TN_MPI_T_FIRST + TN_MPI_T_N);
}

/* Class of a valid code. */
static int tn_mpi_code_class(int code)
{
    tn_user_err_t *u = tn_mpi_user_err(code);
    return u != NULL ? u->errclass : code;
}

static const char *tn_mpi_code_string(int code)
{
    if (code >= 0 && code < TN_MPI_NCLASSES) {
        return tn_mpi_class_strings[code];
    }
    if (code >= TN_MPI_T_FIRST && code < TN_MPI_T_FIRST + TN_MPI_T_N) {
        return tn_mpi_t_strings[code - TN_MPI_T_FIRST];
    }
    tn_user_err_t *u = tn_mpi_user_err(code);
    return u != NULL && u->string != NULL ? u->string : "";
}

int tn_mpi_class_of(tn_status_t st)
{
    switch (st) {
    case TN_OK:              return MPI_SUCCESS;
    case TN_ERR_NOMEM:       return MPI_ERR_NO_MEM;
    case TN_ERR_INVAL:       return MPI_ERR_ARG;
    case TN_ERR_UNSUPPORTED: return MPI_ERR_UNSUPPORTED_OPERATION;
    case TN_ERR_TRUNCATE:    return MPI_ERR_TRUNCATE;
    case TN_ERR_PEER_DEAD:   return MPI_ERR_PROC_ABORTED;
    case TN_ERR_IO:          return MPI_ERR_OTHER;
    default:                 return MPI_ERR_INTERN;
    }
}

/* ---------------------------------------------------------- reporting */

static tn_errh_t *tn_mpi_errh_of(tn_comm_t *comm)
{
    if (comm != NULL && comm->errh != NULL) {
        return comm->errh;
    }
    if (tn_rt.initialized && tn_comm_world.errh != NULL) {
        return tn_comm_world.errh;
    }
    return &tn_errh_fatal;
}

int tn_mpi_errh_invoke(tn_errh_t *eh, void *obj, int errclass, const char *msg)
{
    switch (eh->kind) {
    case TN_ERRH_RETURN:
        tn_log_debug("mpi", "%s", msg);
        return errclass;
    case TN_ERRH_USER: {
        int code = errclass;
        /* may call MPI: the lock is recursive.  Every handle of the ABI is
         * a pointer, so a handler of one kind attached to an object of
         * another still gets a handle of the right size. */
        if (eh->session_fn != NULL) {
            eh->session_fn((MPI_Session *)obj, &code, msg);
        } else {
            eh->comm_fn((MPI_Comm *)obj, &code, msg);
        }
        return errclass;
    }
    case TN_ERRH_FATAL:
    case TN_ERRH_ABORT:
        break;
    }
    char line[1200];
    snprintf(line, sizeof(line), "%s (%s)", msg,
             tn_mpi_valid_code(errclass) ? tn_mpi_code_string(errclass) : "error class");
    tn_rt_abort(errclass, line);
}

static int tn_mpi_invoke(tn_comm_t *comm, int errclass, const char *msg)
{
    MPI_Comm h = tn_mpi_comm_handle(comm != NULL ? comm : &tn_comm_world);
    return tn_mpi_errh_invoke(tn_mpi_errh_of(comm), &h, errclass, msg);
}

int tn_mpi_err(tn_comm_t *comm, int errclass, const char *fn, const char *arg,
               const char *fmt, ...)
{
    char msg[1024];
    int off = arg != NULL ? snprintf(msg, sizeof(msg), "%s(%s): ", fn, arg)
                          : snprintf(msg, sizeof(msg), "%s: ", fn);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + off, sizeof(msg) - (size_t)off, fmt, ap);
    va_end(ap);
    return tn_mpi_invoke(comm, errclass, msg);
}

int tn_mpi_err_status(tn_comm_t *comm, tn_status_t st, const char *fn)
{
    return tn_mpi_err(comm, tn_mpi_class_of(st), fn, NULL, "%s", tn_status_str(st));
}

int tn_mpi_unsupported(const char *fn, int obj_kind, const void *obj)
{
    tn_comm_t *comm = NULL;
    tn_errh_t *seh = NULL;
    if (!tn_rt.initialized || tn_rt.finalized) {
        comm = NULL;
    } else if (obj_kind == 1) {
        comm = tn_mpi_comm_get((MPI_Comm)obj);
    } else if (obj_kind == 4 && (seh = tn_mpi_session_errh((MPI_Session)obj)) != NULL) {
        char msg[512];
        MPI_Session sh = (MPI_Session)obj;
        snprintf(msg, sizeof(msg), "%s: not supported yet by Tern %s (tern-info --unsupported "
                 "lists what is missing)", fn, TERN_VERSION);
        return tn_mpi_errh_invoke(seh, &sh, MPI_ERR_UNSUPPORTED_OPERATION, msg);
    }
    return tn_mpi_err(comm, MPI_ERR_UNSUPPORTED_OPERATION, fn, NULL,
                      "not supported yet by Tern %s (tern-info --unsupported lists what is "
                      "missing)", TERN_VERSION);
}

/* ---------------------------------------------------------------- checks */

int tn_mpi_check_init(const char *fn)
{
    if (tn_mpi_world_active() || (tn_mpi_nsessions > 0 && !tn_rt.finalized)) {
        return MPI_SUCCESS;
    }
    int after = tn_mpi_world_state == 2 || tn_rt.finalized;
    fprintf(stderr, "[tern] %s: called %s\n", fn,
            after ? "after MPI_Finalize (and with no session open)"
                  : "before MPI_Init or MPI_Session_init");
    fflush(stderr);
    if (after) {
        return MPI_ERR_OTHER;
    }
    tn_rt_abort(MPI_ERR_OTHER, NULL);
}

int tn_mpi_check_comm_slow(const char *fn, MPI_Comm h, tn_comm_t **comm_p)
{
    *comm_p = NULL;
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    tn_comm_t *c = tn_mpi_comm_get(h);
    if (c == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_COMM, fn, "comm", "%s",
                          h == MPI_COMM_NULL ? "MPI_COMM_NULL is not a communicator"
                                             : "invalid communicator handle");
    }
    *comm_p = c;
    return MPI_SUCCESS;
}

int tn_mpi_check_dt(const char *fn, tn_comm_t *c, MPI_Datatype h, const char *arg,
                    const tn_dt_t **dt_p)
{
    const tn_dt_t *dt = tn_mpi_dt_get(h);
    if (dt == NULL) {
        return tn_mpi_err(c, MPI_ERR_TYPE, fn, arg, "%s",
                          h == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL is not a datatype"
                                                 : "invalid datatype handle");
    }
    *dt_p = dt;
    return MPI_SUCCESS;
}

int tn_mpi_check_count_slow(const char *fn, tn_comm_t *c, int64_t count, const char *arg)
{
    if (count < 0) {
        return tn_mpi_err(c, MPI_ERR_COUNT, fn, arg, "negative count %lld", (long long)count);
    }
    return MPI_SUCCESS;
}

int tn_mpi_check_buf_slow(const char *fn, tn_comm_t *c, const void *buf, int64_t count,
                          const tn_dt_t *dt, const char *arg)
{
    if (buf == NULL && count > 0 && dt->size > 0 && dt->predefined) {
        return tn_mpi_err(c, MPI_ERR_BUFFER, fn, arg,
                          "NULL buffer with count %lld of %s", (long long)count, dt->name);
    }
    return MPI_SUCCESS;
}

int tn_mpi_check_rank_slow(const char *fn, tn_comm_t *c, int rank, const char *arg, int flags)
{
    if (rank >= 0 && rank < tn_comm_peer_size(c)) {
        return MPI_SUCCESS;
    }
    if ((flags & TN_RANK_PROC_NULL) && rank == MPI_PROC_NULL) {
        return MPI_SUCCESS;
    }
    if ((flags & TN_RANK_ANY) && rank == MPI_ANY_SOURCE) {
        return MPI_SUCCESS;
    }
    return tn_mpi_err(c, MPI_ERR_RANK, fn, arg, "rank %d is not in [0, %d) of %s%s", rank,
                      tn_comm_peer_size(c), c->remote != NULL ? "the remote group of " : "",
                      c->name[0] ? c->name : "the communicator");
}

int tn_mpi_check_tag_slow(const char *fn, tn_comm_t *c, int tag, int allow_any)
{
    if (tag >= 0 || (allow_any && tag == MPI_ANY_TAG)) {
        return MPI_SUCCESS;
    }
    return tn_mpi_err(c, MPI_ERR_TAG, fn, "tag", "tag %d is negative%s", tag,
                      allow_any ? " (and not MPI_ANY_TAG)" : "");
}

int tn_mpi_check_root(const char *fn, tn_comm_t *c, int root)
{
    if (root >= 0 && root < c->size) {
        return MPI_SUCCESS;
    }
    return tn_mpi_err(c, MPI_ERR_ROOT, fn, "root", "root %d is not in [0, %d)", root, c->size);
}

/* ---------------------------------------------------------------- status */

void tn_mpi_status_set(MPI_Status *st, const tn_msg_status_t *ms)
{
    if (st == MPI_STATUS_IGNORE) {
        return;
    }
    st->MPI_SOURCE = ms->source;
    st->MPI_TAG = ms->tag;
    /* MPI_ERROR is left alone: only the calls that fill an array of statuses
     * write it, and only when they return MPI_ERR_IN_STATUS (MPI-4.1 3.2.5) */
    st->MPI_internal[0] = (int)(uint32_t)(ms->bytes & 0xffffffffu);
    st->MPI_internal[1] = (int)(uint32_t)(ms->bytes >> 32);
    st->MPI_internal[2] = ms->cancelled;
}

/* The standard's empty status (MPI-4.1 3.7.3) is the one status whose
 * error field is defined: MPI_SUCCESS, with source MPI_ANY_SOURCE and tag
 * MPI_ANY_TAG (null and inactive requests; mpi4py checks it). */
void tn_mpi_status_empty(MPI_Status *st)
{
    tn_msg_status_t ms = { MPI_ANY_SOURCE, MPI_ANY_TAG, TN_OK, 0, 0 };
    tn_mpi_status_set(st, &ms);
    if (st != MPI_STATUS_IGNORE) {
        st->MPI_ERROR = MPI_SUCCESS;
    }
}

uint64_t tn_mpi_status_bytes(const MPI_Status *st)
{
    return (uint64_t)(uint32_t)st->MPI_internal[0] |
           ((uint64_t)(uint32_t)st->MPI_internal[1] << 32);
}

/* ------------------------------------------------------ error functions */

int tn_mpi_Error_class(int errorcode, int *errorclass)
{
    if (!tn_mpi_valid_code(errorcode)) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, "MPI_Error_class", "errorcode",
                          "%d is not a valid error code", errorcode);
    }
    if (errorclass == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, "MPI_Error_class", "errorclass", "NULL pointer");
    }
    *errorclass = tn_mpi_code_class(errorcode);
    return MPI_SUCCESS;
}

int tn_mpi_Error_string(int errorcode, char *string, int *resultlen)
{
    static const char fn[] = "MPI_Error_string";
    if (string == NULL || resultlen == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, string == NULL ? "string" : "resultlen",
                          "NULL pointer");
    }
    if (!tn_mpi_valid_code(errorcode)) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "errorcode",
                          "%d is not a valid error code", errorcode);
    }
    snprintf(string, MPI_MAX_ERROR_STRING, "%s", tn_mpi_code_string(errorcode));
    *resultlen = (int)strlen(string);
    return MPI_SUCCESS;
}

static int tn_mpi_add_err(int errclass, int *code_p)
{
    tn_user_err_t *n = realloc(tn_user_errs, sizeof(*n) * (size_t)(tn_user_nerrs + 1));
    if (n == NULL) {
        return MPI_ERR_NO_MEM;
    }
    tn_user_errs = n;
    int code = TN_MPI_USER_BASE + tn_user_nerrs;
    n[tn_user_nerrs].errclass = errclass < 0 ? code : errclass;
    n[tn_user_nerrs].string = NULL;
    n[tn_user_nerrs].removed = 0;
    tn_user_nerrs++;
    *code_p = code;
    return MPI_SUCCESS;
}

int tn_mpi_Add_error_class(int *errorclass)
{
    int rc = tn_mpi_check_init("MPI_Add_error_class");
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (errorclass == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, "MPI_Add_error_class", "errorclass", "NULL pointer");
    }
    tn_mpi_enter();
    rc = tn_mpi_add_err(-1, errorclass);
    tn_mpi_leave();
    return rc;
}

int tn_mpi_Add_error_code(int errorclass, int *errorcode)
{
    static const char fn[] = "MPI_Add_error_code";
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (errorcode == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "errorcode", "NULL pointer");
    }
    if (!tn_mpi_valid_code(errorclass) ||
        tn_mpi_code_class(errorclass) != errorclass ||
        (errorclass >= TN_MPI_T_FIRST && errorclass < TN_MPI_T_FIRST + TN_MPI_T_N)) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "errorclass", "%d is not an error class",
                          errorclass);
    }
    tn_mpi_enter();
    rc = tn_mpi_add_err(errorclass, errorcode);
    tn_mpi_leave();
    return rc;
}

int tn_mpi_Add_error_string(int errorcode, const char *string)
{
    static const char fn[] = "MPI_Add_error_string";
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (tn_mpi_user_err(errorcode) == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "errorcode",
                          "%d is not a user-added error code or class", errorcode);
    }
    if (string == NULL || strlen(string) >= MPI_MAX_ERROR_STRING) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "string", "%s",
                          string == NULL ? "NULL pointer" : "longer than MPI_MAX_ERROR_STRING");
    }
    tn_mpi_enter();
    tn_user_err_t *e = tn_mpi_user_err(errorcode);
    free(e->string);
    e->string = strdup(string);
    tn_mpi_leave();
    return MPI_SUCCESS;
}

/* MPI-4.1: only user-added classes, codes and strings can be removed; a
 * class cannot go while codes of it remain, and neither a class nor a code
 * while it has a string (MPI_Remove_error_string comes first).  Removed
 * numbers are not reused. */
int tn_mpi_Remove_error_class(int errorclass)
{
    static const char fn[] = "MPI_Remove_error_class";
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    tn_mpi_enter();
    tn_user_err_t *e = tn_mpi_user_err(errorclass);
    if (e == NULL || e->errclass != errorclass) {
        tn_mpi_leave();
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "errorclass",
                          "%d is not a user-added error class", errorclass);
    }
    for (int i = 0; i < tn_user_nerrs; i++) {
        tn_user_err_t *u = &tn_user_errs[i];
        if (!u->removed && u->errclass == errorclass && TN_MPI_USER_BASE + i != errorclass) {
            tn_mpi_leave();
            return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "errorclass",
                              "error code %d of class %d is still in use",
                              TN_MPI_USER_BASE + i, errorclass);
        }
    }
    if (e->string != NULL) {
        tn_mpi_leave();
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "errorclass",
                          "error class %d still has a string (MPI_Remove_error_string first)",
                          errorclass);
    }
    e->removed = 1;
    tn_mpi_leave();
    return MPI_SUCCESS;
}

int tn_mpi_Remove_error_code(int errorcode)
{
    static const char fn[] = "MPI_Remove_error_code";
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    tn_mpi_enter();
    tn_user_err_t *e = tn_mpi_user_err(errorcode);
    if (e == NULL || e->errclass == errorcode) {
        tn_mpi_leave();
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "errorcode",
                          "%d is not a user-added error code", errorcode);
    }
    if (e->string != NULL) {
        tn_mpi_leave();
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "errorcode",
                          "error code %d still has a string (MPI_Remove_error_string first)",
                          errorcode);
    }
    e->removed = 1;
    tn_mpi_leave();
    return MPI_SUCCESS;
}

int tn_mpi_Remove_error_string(int errorcode)
{
    static const char fn[] = "MPI_Remove_error_string";
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    tn_mpi_enter();
    tn_user_err_t *e = tn_mpi_user_err(errorcode);
    if (e == NULL || e->string == NULL) {
        tn_mpi_leave();
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "errorcode", "%d %s", errorcode,
                          e == NULL ? "is not a user-added error code or class"
                                    : "has no string to remove");
    }
    free(e->string);
    e->string = NULL;
    tn_mpi_leave();
    return MPI_SUCCESS;
}

/* -------------------------------------------------------- error handlers */

/* User handlers may stay attached to communicators after MPI_Errhandler_free,
 * so their memory lives until MPI_Finalize. */
static tn_errh_t *tn_errh_all;

void tn_mpi_errh_free_all(void)
{
    while (tn_errh_all != NULL) {
        tn_errh_t *next = tn_errh_all->all_next;
        tn_errh_all->magic = 0;
        tn_objreg_del(tn_errh_all);
        free(tn_errh_all);
        tn_errh_all = next;
    }
}

tn_errh_t *tn_mpi_errh_new(void)
{
    tn_errh_t *e = calloc(1, sizeof(*e));
    if (e != NULL && tn_objreg_add(e, TN_OBJ_ERRH) != TN_OK) {
        free(e);
        e = NULL;
    }
    if (e == NULL) {
        return NULL;
    }
    e->magic = TN_ERRH_MAGIC;
    e->kind = TN_ERRH_USER;
    e->refcount = 1;
    tn_mpi_enter();
    e->all_next = tn_errh_all;
    tn_errh_all = e;
    tn_mpi_leave();
    return e;
}

tn_errh_t *tn_mpi_errh_get(MPI_Errhandler h)
{
    switch (tn_mpi_hval(h)) {
    case 0x141: return &tn_errh_fatal;
    case 0x142: return &tn_errh_abort;
    case 0x143: return &tn_errh_return;
    default: break;
    }
    if (tn_mpi_hval(h) < TN_MPI_HANDLE_MAX_PREDEF) {
        return NULL;
    }
    tn_errh_t *e = (tn_errh_t *)(void *)h;
    if (!tn_objreg_has(e, TN_OBJ_ERRH)) {
        return NULL;                    /* garbage, freed, or another kind */
    }
    return e->magic == TN_ERRH_MAGIC ? e : NULL;
}

MPI_Errhandler tn_mpi_errh_handle(tn_errh_t *e)
{
    return e->predefined ? (MPI_Errhandler)e->handle : (MPI_Errhandler)(void *)e;
}

int tn_mpi_errh_create(const char *fn, int have_fn, const char *fn_arg,
                       MPI_Errhandler *errhandler, tn_errh_t **e_p)
{
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (!have_fn || errhandler == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, !have_fn ? fn_arg : "errhandler",
                          "NULL pointer");
    }
    tn_errh_t *e = tn_mpi_errh_new();
    if (e == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_NO_MEM, fn, NULL, "out of memory");
    }
    *e_p = e;
    return MPI_SUCCESS;
}

int tn_mpi_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn,
                                  MPI_Errhandler *errhandler)
{
    tn_errh_t *e = NULL;
    int rc = tn_mpi_errh_create("MPI_Comm_create_errhandler", comm_errhandler_fn != NULL,
                                "comm_errhandler_fn", errhandler, &e);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    e->comm_fn = comm_errhandler_fn;
    *errhandler = tn_mpi_errh_handle(e);
    return MPI_SUCCESS;
}

int tn_mpi_Errhandler_free(MPI_Errhandler *errhandler)
{
    static const char fn[] = "MPI_Errhandler_free";
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (errhandler == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "errhandler", "NULL pointer");
    }
    tn_errh_t *e = tn_mpi_errh_get(*errhandler);
    if (e == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ERRHANDLER, fn, "errhandler", "invalid error handler");
    }
    /* User handlers stay allocated while communicators may use them: the
     * handle becomes MPI_ERRHANDLER_NULL either way. */
    if (!e->predefined && --e->refcount <= 0) {
        e->magic = 0;
    }
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

int tn_mpi_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    static const char fn[] = "MPI_Comm_set_errhandler";
    tn_comm_t *c;
    int rc = tn_mpi_check_comm(fn, comm, &c);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    tn_errh_t *e = tn_mpi_errh_get(errhandler);
    if (e == NULL) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, "errhandler", "invalid error handler");
    }
    tn_mpi_errh_retain(e);
    if (!e->predefined) {
        e->magic = TN_ERRH_MAGIC;
    }
    c->errh = e;
    return MPI_SUCCESS;
}

void tn_mpi_errh_retain(tn_errh_t *e)
{
    if (!e->predefined) {
        e->refcount++;
    }
}

int tn_mpi_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    static const char fn[] = "MPI_Comm_get_errhandler";
    tn_comm_t *c;
    int rc = tn_mpi_check_comm(fn, comm, &c);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (errhandler == NULL) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, "errhandler", "NULL pointer");
    }
    tn_errh_t *e = c->errh != NULL ? c->errh : &tn_errh_fatal;
    tn_mpi_errh_retain(e);
    *errhandler = tn_mpi_errh_handle(e);
    return MPI_SUCCESS;
}

int tn_mpi_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    static const char fn[] = "MPI_Comm_call_errhandler";
    tn_comm_t *c = NULL;
    int rc = tn_mpi_check_comm(fn, comm, &c);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    int errclass = errorcode;
    if (tn_mpi_valid_code(errorcode)) {
        errclass = tn_mpi_code_class(errorcode);
    }
    tn_errh_t *eh = tn_mpi_errh_of(c);
    if (eh->kind == TN_ERRH_USER) {
        MPI_Comm h = comm;
        int code = errorcode;
        if (eh->session_fn != NULL) {
            eh->session_fn((MPI_Session *)(void *)&h, &code);
        } else {
            eh->comm_fn(&h, &code);
        }
        return MPI_SUCCESS;
    }
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    if (tn_mpi_Error_string(errorcode, msg, &len) != MPI_SUCCESS) {
        snprintf(msg, sizeof(msg), "error code %d", errorcode);
    }
    tn_mpi_invoke(c, errclass, msg);
    return MPI_SUCCESS;
}
