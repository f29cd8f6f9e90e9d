/* Registry of live library objects, so that a handle from the user can be
 * checked before it is dereferenced.
 *
 * A derived MPI handle is the address of its object.  Every heap object a
 * handle may name is added here when it is created and removed before its
 * memory is freed; a lookup asks tn_objreg_has(p, kind) first and reads the
 * object's magic only when the address is a live object of that kind.  So a
 * garbage value (0x1234), a freed object or an object of another kind gives
 * "no such object" instead of a fault.
 *
 * Open addressing keyed by address, O(1) average; its own spinlock, so it
 * may be called with or without the runtime lock and from any thread.
 * Predefined handles never come here: callers decide them inline first. */
#ifndef TN_BASE_OBJREG_H
#define TN_BASE_OBJREG_H

#include "base/status.h"

typedef enum {
    TN_OBJ_COMM = 1,
    TN_OBJ_GROUP,
    TN_OBJ_DT,
    TN_OBJ_OP,
    TN_OBJ_REQ,
    TN_OBJ_INFO,
    TN_OBJ_ERRH,
    TN_OBJ_SESSION,
    TN_OBJ_MSG,
    TN_OBJ_WIN,
    TN_OBJ_FILE,
} tn_obj_kind_t;

/* Record p as a live object of kind (p is not read: it may be uninitialised
 * memory); TN_ERR_NOMEM if the table cannot grow
 * (the object must then not be handed out). */
tn_status_t tn_objreg_add(void *p, tn_obj_kind_t kind);

/* Forget p (no-op if absent).  Call before freeing p. */
void tn_objreg_del(const void *p);

/* 1 if p is a live object of kind, else 0.  Never dereferences p. */
int tn_objreg_has(const void *p, tn_obj_kind_t kind);

#endif
