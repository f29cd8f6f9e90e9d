/* What the MPI layer tells the trace (base/trace.h, docs/trace.md): the
 * items of the record the entry point opened, in terms of the layer's
 * decoded objects.  Each wrapper returns at once when tracing is off. */
#ifndef TN_MPI_MPI_TRACE_H
#define TN_MPI_MPI_TRACE_H

#include <stdint.h>
#include "base/trace.h"
#include "coll/coll.h"
#include "comm/comm.h"
#include "dt/dt.h"
#include "dt/op.h"
#include "p2p/p2p.h"

uint32_t tn_mpi_trace_comm(tn_comm_t *c);
void tn_mpi_trace_send_(tn_comm_t *c, int dest, int tag, uint64_t bytes, int mode, int form);
void tn_mpi_trace_recv_(tn_comm_t *c, int source, int tag, uint64_t bytes, int form);
void tn_mpi_trace_status_(const tn_msg_status_t *ms);
void tn_mpi_trace_req_(unsigned type, const tn_req_t *req);
void tn_mpi_trace_done_(const tn_req_t *req);
/* root: a rank, or TERN_TRACE_NONE for the unrooted kinds */
void tn_mpi_trace_coll_(tn_comm_t *c, int kind, int root, const tn_op_t *op, uint64_t sbytes,
                        uint64_t rbytes, int form, int flags);
void tn_mpi_trace_counts_(unsigned type, const void *counts, int wide, int n,
                          const tn_dt_t *dt);
/* A counts item (SCOUNTS/RCOUNTS) of n blocks of any layout, in bytes. */
void tn_mpi_trace_blocks_(unsigned type, const tn_coll_blocks_t *b, int n);
/* The NBRS item of a neighbourhood collective on c (its topology's lists). */
void tn_mpi_trace_nbrs_(tn_comm_t *c);
void tn_mpi_trace_newcomm_(tn_comm_t *c);
void tn_mpi_trace_rma_(tn_comm_t *c, int op, int target, uint64_t bytes);

/* A tn_mpi_call_t's kind is the trace's form (blocking 0, nonblocking 1,
 * persistent 2). */
#define TN_MPI_TRACE(call)                              \
    do {                                                \
        if (__builtin_expect(tn_trace_on, 0)) {         \
            call;                                       \
        }                                               \
    } while (0)

#endif
