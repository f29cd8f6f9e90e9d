/* Info handles for the rest of the MPI layer (communicator, window and file
 * info functions).
 *
 * MPI_INFO_NULL is no object.  MPI_INFO_ENV (0x131) is a predefined object
 * built on first use and rebuilt once after MPI_Init (when the world size
 * and thread level become known); it is read-only.  Any other handle is a
 * pointer to a tn_info_t, checked by its magic. */
#ifndef TN_MPI_MPI_INFO_H
#define TN_MPI_MPI_INFO_H

#include <mpi.h>
#include "comm/info.h"

/* The object behind h, or NULL when h is MPI_INFO_NULL or not an info. */
tn_info_t *tn_mpi_info_get(MPI_Info h);
/* The handle to give the user for info. */
MPI_Info tn_mpi_info_handle(tn_info_t *info);

#endif
