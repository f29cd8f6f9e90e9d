/* Shared parts of the MPI tools interface (mpi_t*.c, docs/mpi_t.md).
 *
 * Everything MPI_T shows comes from the tables of src/base: control
 * variables from config_table.h, performance variables from
 * counters_table.h, events from events.h, categories from
 * category_table.h.  MPI_T keeps no list of its own.
 *
 * Locking: tn_t_lock() guards MPI_T's objects (handles, sessions,
 * registrations); reading or writing the library's state (counters,
 * tn_cfg) also takes the runtime lock, inside tn_t_lock.  Events are
 * delivered with the runtime lock held (from progress), under the event
 * lock only; callbacks run in context MPI_T_CB_REQUIRE_MPI_RESTRICTED. */
#ifndef TN_MPI_MPI_T_IMPL_H
#define TN_MPI_MPI_T_IMPL_H

#include "mpi/mpi_impl.h"

/* MPI_T_init_thread minus MPI_T_finalize calls. */
extern int tn_t_refs;

static inline int tn_t_ready(void)
{
    return __atomic_load_n(&tn_t_refs, __ATOMIC_ACQUIRE) > 0;
}

#define TN_T_CHECK_INIT()                                                      \
    do {                                                                       \
        if (!tn_t_ready()) {                                                   \
            return MPI_T_ERR_NOT_INITIALIZED;                                  \
        }                                                                      \
    } while (0)

void tn_t_lock(void);
void tn_t_unlock(void);

/* Copy src to dst the MPI_T way: *len_p == 0 (or dst NULL) asks for the
 * length, '\0' included; otherwise at most *len_p - 1 characters and the
 * '\0', and *len_p becomes what was written, '\0' included.  len_p NULL:
 * nothing. */
void tn_t_str(char *dst, int *len_p, const char *src);

/* MPI_T verbosity of a table's verb (tn_config_verb_t). */
int tn_t_verbosity(int verb);

/* The enumeration of control variable i (its fixed choices, or false/true
 * for a bool), or MPI_T_ENUM_NULL. */
MPI_T_enum tn_t_cvar_enum(int i);
/* The name of item k of the enumeration of variable i, or NULL. */
const char *tn_t_enum_item_name(int i, int k);
/* The item of variable i's enumeration whose name is val, or -1. */
int tn_t_enum_find(int i, const char *val);

/* Called by the last MPI_T_finalize: every handle, session and
 * registration is freed. */
void tn_t_cvar_release_all(void);
void tn_t_pvar_release_all(void);
void tn_t_event_release_all(void);

/* The library's state is being read or written: the runtime lock once MPI
 * is initialised (before, nothing else runs). */
void tn_t_state_lock(void);
void tn_t_state_unlock(void);

#endif
