/* Shared helpers of the MPI layer: handle conversion, argument checks, error
 * reporting, the big lock.
 *
 * Conventions for an implementation (src/mpi/ files):
 *   - it is written as `int tn_mpi_<Name>(<exact ABI parameters>)` starting in
 *     column 0; tools/abi/gen_bindings.py finds it and generates PMPI_<Name>
 *     and the weak MPI_<Name> around it; every other ABI function becomes an
 *     "unsupported" entry point.
 *   - checks come first, each reported with tn_mpi_err(), which names the
 *     function and the argument, invokes the communicator's error handler and
 *     returns the error class to hand back to the user;
 *   - calls that touch shared state run between tn_mpi_enter()/tn_mpi_leave().
 *
 *   int tn_mpi_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
 *                   int tag, MPI_Comm comm)
 *   {
 *       static const char fn[] = "MPI_Send";
 *       tn_comm_t *c; const tn_dt_t *dt; int rc;
 *       if ((rc = tn_mpi_check_comm(fn, comm, &c)) ||
 *           (rc = tn_mpi_check_count(fn, c, count, "count")) || ...)
 *           return rc;
 *       ...
 *   }
 */
#ifndef TN_MPI_MPI_IMPL_H
#define TN_MPI_MPI_IMPL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include "base/objreg.h"
#include "base/status.h"
#include "comm/comm.h"
#include "dt/dt.h"
#include "dt/op.h"
#include "p2p/p2p.h"
#include "runtime/rt.h"
#include "tn_mpi_protos.h"   /* generated: prototypes of every tn_mpi_<Name> */

/* Predefined handles are small integers (the ABI's values); anything above
 * this bound is a pointer to one of our objects. */
#define TN_MPI_HANDLE_MAX_PREDEF 0x1000u

static inline uintptr_t tn_mpi_hval(const void *h)
{
    return (uintptr_t)h;
}

/* ---- error handlers ---------------------------------------------------- */
#define TN_ERRH_MAGIC 0x54455248u     /* "TERH" */
typedef enum { TN_ERRH_FATAL, TN_ERRH_ABORT, TN_ERRH_RETURN, TN_ERRH_USER } tn_errh_kind_t;
typedef struct tn_errh {
    uint32_t        magic;
    tn_errh_kind_t  kind;
    int             predefined;
    uintptr_t       handle;
    int             refcount;
    MPI_Comm_errhandler_function *comm_fn;
    struct tn_errh *all_next;      /* every user handler, freed at finalize */
    MPI_Session_errhandler_function *session_fn;   /* MPI_Session_create_errhandler */
} tn_errh_t;

/* Release every user-created error handler (MPI_Finalize). */
void tn_mpi_errh_free_all(void);

extern tn_errh_t tn_errh_fatal, tn_errh_abort, tn_errh_return;

tn_errh_t *tn_mpi_errh_get(MPI_Errhandler h);
MPI_Errhandler tn_mpi_errh_handle(tn_errh_t *e);
/* Take a reference to e for an object or a returned handle (predefined
 * handlers are not counted). */
void tn_mpi_errh_retain(tn_errh_t *e);
/* A new user handler (one reference), freed at finalize; NULL: no memory. */
tn_errh_t *tn_mpi_errh_new(void);
/* The checks and allocation of MPI_<Obj>_create_errhandler (have_fn: the
 * function argument fn_arg is not NULL); the caller sets the function and
 * the handle. */
int tn_mpi_errh_create(const char *fn, int have_fn, const char *fn_arg,
                       MPI_Errhandler *errhandler, tn_errh_t **e_p);
/* Invoke eh for an error of class errclass on the object *obj (a handle of
 * any kind, passed by address to a user function) with message msg: returns
 * errclass, or ends the job for the fatal handlers. */
int tn_mpi_errh_invoke(tn_errh_t *eh, void *obj, int errclass, const char *msg);

/* ---- the world and sessions models (mpi_env.c, mpi_session.c) ---------- */
/* MPI_Init ... MPI_Finalize: 0 before MPI_Init, 1 between, 2 after. */
extern int tn_mpi_world_state;
/* Sessions initialized and not yet finalized. */
extern int tn_mpi_nsessions;
static inline int tn_mpi_world_active(void)
{
    return tn_mpi_world_state == 1;
}
/* Bring the runtime up for MPI_Init or MPI_Session_init: the first caller
 * starts it (thread level required), later ones may only raise the thread
 * level.  Returns MPI_SUCCESS or MPI_ERR_OTHER once it has been torn down. */
int tn_mpi_rt_acquire(const char *fn, int required, int *provided_p);
/* The world model or a session is done: when neither is left the runtime is
 * torn down, right away when now (MPI_Finalize), otherwise at process exit
 * (it cannot be started again, and a later MPI_Session_init may come). */
int tn_mpi_rt_release(const char *fn, int now);
/* Error handler of session h, or NULL when h is not a session. */
tn_errh_t *tn_mpi_session_errh(MPI_Session h);

/* ---- handle conversion (NULL when the handle is invalid) --------------- */
tn_comm_t *tn_mpi_comm_get(MPI_Comm h);
static inline MPI_Comm tn_mpi_comm_handle(const tn_comm_t *c)
{
    return c->predefined ? (MPI_Comm)c->handle : (MPI_Comm)(void *)c;
}
const tn_dt_t *tn_mpi_dt_get(MPI_Datatype h);      /* committed types only */
const tn_dt_t *tn_mpi_dt_lookup(MPI_Datatype h);   /* committed or not */
static inline MPI_Datatype tn_mpi_dt_handle(const tn_dt_t *dt)
{
    return dt->predefined ? (MPI_Datatype)dt->handle : (MPI_Datatype)(void *)dt;
}
/* A type of MPI_Type_create_f90_*: predefined for the user (never freed,
 * handed out without references) though it is a derived object. */
static inline int tn_mpi_dt_is_f90(const tn_dt_t *dt)
{
    return dt->contents != NULL && (dt->contents->combiner == MPI_COMBINER_F90_INTEGER ||
                                    dt->contents->combiner == MPI_COMBINER_F90_REAL ||
                                    dt->contents->combiner == MPI_COMBINER_F90_COMPLEX);
}
const tn_op_t *tn_mpi_op_get(MPI_Op h);
static inline MPI_Op tn_mpi_op_handle(const tn_op_t *op)
{
    return op->predefined ? (MPI_Op)op->handle : (MPI_Op)(void *)op;
}
tn_group_t *tn_mpi_group_get(MPI_Group h);   /* MPI_GROUP_EMPTY included */
MPI_Group tn_mpi_group_handle(tn_group_t *g);

/* ---- errors ------------------------------------------------------------ */
/* Report an error of class errclass raised by fn (e.g. "MPI_Send") on comm
 * (NULL: MPI_COMM_WORLD's handler).  fmt names the argument and what is
 * wrong, e.g. ("dest", "rank 9 is out of range [0, 4)").  The message is
 * "MPI_Send(dest): rank 9 is out of range [0, 4)".  Fatal handlers print it
 * once and end the job; ERRORS_RETURN / user handlers return errclass (the
 * value the MPI function should return). */
int tn_mpi_err(tn_comm_t *comm, int errclass, const char *fn, const char *arg,
               const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Largest error code in use (MPI_LASTUSEDCODE attribute). */
int tn_mpi_lastusedcode(void);
/* Map an internal status to an MPI error class. */
int tn_mpi_class_of(tn_status_t st);
/* Report an internal failure status of fn on comm. */
int tn_mpi_err_status(tn_comm_t *comm, tn_status_t st, const char *fn);

/* ---- argument checks: return MPI_SUCCESS or the reported error --------- */
/* The common, valid case is decided inline; anything else goes to the
 * out-of-line *_slow function, which reports the error. */
/* MPI usable: between MPI_Init and MPI_Finalize, or while a session is open. */
int tn_mpi_check_init(const char *fn);
int tn_mpi_check_comm_slow(const char *fn, MPI_Comm h, tn_comm_t **comm_p);
int tn_mpi_check_dt(const char *fn, tn_comm_t *c, MPI_Datatype h, const char *arg,
                    const tn_dt_t **dt_p);
int tn_mpi_check_count_slow(const char *fn, tn_comm_t *c, int64_t count, const char *arg);
int tn_mpi_check_buf_slow(const char *fn, tn_comm_t *c, const void *buf, int64_t count,
                          const tn_dt_t *dt, const char *arg);
/* flags for tn_mpi_check_rank */
enum { TN_RANK_PROC_NULL = 1, TN_RANK_ANY = 2 };
int tn_mpi_check_rank_slow(const char *fn, tn_comm_t *c, int rank, const char *arg, int flags);
int tn_mpi_check_tag_slow(const char *fn, tn_comm_t *c, int tag, int allow_any);
int tn_mpi_check_root(const char *fn, tn_comm_t *c, int root);
int tn_mpi_check_op(const char *fn, tn_comm_t *c, MPI_Op h, const tn_dt_t *dt,
                    const tn_op_t **op_p);

static inline int tn_mpi_check_comm(const char *fn, MPI_Comm h, tn_comm_t **comm_p)
{
    if (tn_mpi_hval(h) == tn_mpi_hval(MPI_COMM_WORLD) && tn_mpi_world_active()) {
        *comm_p = &tn_comm_world;
        return MPI_SUCCESS;
    }
    return tn_mpi_check_comm_slow(fn, h, comm_p);
}

static inline int tn_mpi_check_count(const char *fn, tn_comm_t *c, int64_t count,
                                     const char *arg)
{
    return count >= 0 ? MPI_SUCCESS : tn_mpi_check_count_slow(fn, c, count, arg);
}

static inline int tn_mpi_check_buf(const char *fn, tn_comm_t *c, const void *buf,
                                   int64_t count, const tn_dt_t *dt, const char *arg)
{
    return buf != NULL || count == 0 ? MPI_SUCCESS
                                     : tn_mpi_check_buf_slow(fn, c, buf, count, dt, arg);
}

static inline int tn_mpi_check_rank(const char *fn, tn_comm_t *c, int rank, const char *arg,
                                    int flags)
{
    return rank >= 0 && rank < tn_comm_peer_size(c)
               ? MPI_SUCCESS
               : tn_mpi_check_rank_slow(fn, c, rank, arg, flags);
}

/* MPI_ERR_COMM for an intercommunicator where fn needs an intracommunicator
 * (mpi_inter.c). */
int tn_mpi_check_intra_slow(const char *fn, tn_comm_t *c, const char *arg);
static inline int tn_mpi_check_intra(const char *fn, tn_comm_t *c, const char *arg)
{
    return c->remote == NULL ? MPI_SUCCESS : tn_mpi_check_intra_slow(fn, c, arg);
}

static inline int tn_mpi_check_tag(const char *fn, tn_comm_t *c, int tag, int allow_any)
{
    return tag >= 0 ? MPI_SUCCESS : tn_mpi_check_tag_slow(fn, c, tag, allow_any);
}

/* ---- status ------------------------------------------------------------ */
/* MPI_Status.MPI_internal[0..1] hold the byte count, [2] the cancel flag.
 * Both fill source, tag, count and the cancel flag, never MPI_ERROR: the
 * multiple-completion calls set that themselves (see mpi_req.c). */
void tn_mpi_status_set(MPI_Status *st, const tn_msg_status_t *ms);
void tn_mpi_status_empty(MPI_Status *st);     /* PROC_NULL / inactive request */
uint64_t tn_mpi_status_bytes(const MPI_Status *st);

/* ---- the big lock (only taken when MPI_THREAD_MULTIPLE was granted) ---- */
static inline void tn_mpi_enter(void) { tn_rt_lock(); }
static inline void tn_mpi_leave(void) { tn_rt_unlock(); }

/* ---- attributes (mpi_attr.c) ------------------------------------------ */
/* Copy the attributes of old to its duplicate nc (copy callbacks). */
int tn_mpi_comm_attr_copy(const char *fn, tn_comm_t *old, tn_comm_t *nc);
/* Delete every attribute of c, newest first (delete callbacks). */
int tn_mpi_comm_attr_delete_all(const char *fn, tn_comm_t *c);
/* Datatype attributes (mpi_type_attr.c): copy onto a duplicate, delete
 * all (MPI_Type_free). */
int tn_mpi_type_attr_copy(const char *fn, const tn_dt_t *old, const tn_dt_t *nt);
int tn_mpi_type_attr_delete_all(const char *fn, const tn_dt_t *dt);
/* MPI_Finalize: delete the attributes of MPI_COMM_SELF, then MPI_COMM_WORLD. */
int tn_mpi_attr_finalize(void);

/* ---- buffered sends (mpi_bsend.c) -------------------------------------- */
/* MPI_Comm_free: wait for the sends buffered in c's own buffer, then detach
 * it (lock held or not; the big lock is recursive). */
void tn_mpi_comm_buffer_release(tn_comm_t *c);
/* The same for the buffer of any owner (a communicator or a session). */
void tn_mpi_buffer_release(const void *owner);

/* Entry point of every unsupported function (called by generated code). */
/* Dynamic processes (mpi_dyn.c): connect a spawned job to its parent
 * (MPI_Init, after the communicators exist), drop the parent at the end. */
tn_status_t tn_mpi_dyn_init(void);
void tn_mpi_dyn_finalize(void);
int tn_mpi_unsupported(const char *fn, int obj_kind, const void *obj);

/* mpi_hang.c: the answer to the launcher's hang report (runtime/status.h) */
tn_rt_status_fill_fn_t tn_mpi_hang_fill;

#endif
