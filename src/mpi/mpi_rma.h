/* Windows at the MPI level (mpi_win.c, mpi_rma.c): the handle check and
 * errors reported through the window's error handler. */
#ifndef TN_MPI_MPI_RMA_H
#define TN_MPI_MPI_RMA_H

#include "mpi/mpi_impl.h"
#include "rma/rma.h"

/* The window last found valid: a program's loop of operations on one
 * window skips the registry lookup.  MPI_Win_free clears it. */
extern tn_win_t *tn_mpi_win_last;

/* h's window when it is the one last found valid (and MPI is up), else NULL. */
static inline tn_win_t *tn_mpi_win_cached(MPI_Win h)
{
    tn_win_t *w = (tn_win_t *)(void *)h;
    if (w != NULL && w == __atomic_load_n(&tn_mpi_win_last, __ATOMIC_ACQUIRE) &&
        tn_mpi_world_active()) {
        return w;
    }
    return NULL;
}

/* The window of handle h (MPI_ERR_WIN through the default handler when it
 * is none). */
int tn_mpi_win_arg(const char *fn, MPI_Win h, tn_win_t **win_p);
/* Report errclass on w: "fn(arg): message" through w's handler. */
int tn_mpi_win_err(tn_win_t *w, int errclass, const char *fn, const char *arg,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
int tn_mpi_win_err_status(tn_win_t *w, tn_status_t st, const char *fn);

#endif
