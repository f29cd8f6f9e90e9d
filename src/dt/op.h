/* Reduction operations.
 *
 * Predefined ops live in a static table indexed by the low bits of their ABI
 * handle (0x20..0x3f); user ops (MPI_Op_create) are heap objects.
 * tn_op_apply computes inout[i] = in[i] op inout[i] for i < count, which is
 * the MPI order for non-commutative user ops ("in" holds the lower ranks). */
#ifndef TN_DT_OP_H
#define TN_DT_OP_H

#include <stddef.h>
#include <stdint.h>
#include "base/status.h"
#include "dt/dt.h"

#define TN_OP_MAGIC 0x544f5052u      /* "TOPR" */

typedef void (tn_op_user_fn_t)(void *in, void *inout, int *len, void *dtype_handle_p);
typedef void (tn_op_user_c_fn_t)(void *in, void *inout, int64_t *len, void *dtype_handle_p);

typedef struct tn_op {
    uint32_t     magic;
    int          predefined;
    uintptr_t    handle;          /* ABI handle value for predefined ops */
    const char  *name;            /* "MPI_SUM" */
    int          commutative;
    unsigned     categories;      /* TN_DC_* accepted (predefined) */
    tn_op_user_fn_t   *user_fn;   /* user op (MPI_Op_create) */
    tn_op_user_c_fn_t *user_c_fn; /* user op (MPI_Op_create_c) */
    int          refcount;
} tn_op_t;

const tn_op_t *tn_op_predefined(uintptr_t handle);

/* ABI handles of the two ops that belong to one-sided accumulates
 * (tools/abi/constants.tsv; checked by the unit test). */
#define TN_OP_H_REPLACE 0x3cu
#define TN_OP_H_NO_OP   0x3du

/* A user op (MPI_Op_create / MPI_Op_create_c): exactly one of fn, c_fn is
 * non-NULL.  The new op holds one reference (the user's handle); pending
 * operations that use it take their own with tn_op_retain, and the last
 * tn_op_release frees it.  Both are no-ops on predefined ops.
 * Fails with TN_ERR_NOMEM. */
tn_status_t tn_op_create(tn_op_user_fn_t *fn, tn_op_user_c_fn_t *c_fn, int commutative,
                         tn_op_t **op_p);
void tn_op_retain(const tn_op_t *op);
void tn_op_release(const tn_op_t *op);

/* Is op defined on dt?  (MPI_ERR_OP otherwise.)  User ops, MPI_REPLACE and
 * MPI_NO_OP accept any type; the other predefined ops accept a derived type
 * whose elements are all of one predefined type (dt->basic) they accept. */
int tn_op_valid_for(const tn_op_t *op, const tn_dt_t *dt);

/* inout[i] = in[i] op inout[i].  Both buffers hold count elements laid out
 * as dt describes (element i at +i*extent, padding of pair types and holes
 * of derived types included: the op reads and writes only the data bytes)
 * and must not overlap.  Derived types are reduced in place on that layout,
 * one kernel call per contiguous segment (basic elements in type-map order),
 * so a temporary for them must be a copy of the user layout (see
 * tn_dt_span), not the packed form; MPI_REPLACE copies the data bytes.
 * dt_handle is the MPI handle passed to user functions (user functions get
 * the count in chunks of at most INT_MAX elements; user_c_fn gets it
 * whole).  Returns TN_ERR_INVAL if op is not defined on dt, TN_ERR_NOMEM
 * (derived types of padded pairs or at unaligned addresses go through
 * temporaries). */
tn_status_t tn_op_apply(const tn_op_t *op, const tn_dt_t *dt, uintptr_t dt_handle,
                        const void *in, void *inout, size_t count);

#endif
