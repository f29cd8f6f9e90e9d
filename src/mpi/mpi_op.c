/* MPI reduction operations: handles, user ops, MPI_Reduce_local, and the
 * op argument check of every reducing function.
 *
 * Like the datatype functions these work without MPI_Init (sessions use
 * them too), take no lock (user ops are private heap objects with an atomic
 * reference count) and report errors to the default handler. */
#include "mpi/mpi_impl.h"

const tn_op_t *tn_mpi_op_get(MPI_Op h)
{
    uintptr_t v = tn_mpi_hval(h);
    const tn_op_t *op;

    if (v < TN_MPI_HANDLE_MAX_PREDEF) {
        return tn_op_predefined(v);     /* NULL for MPI_OP_NULL */
    }
    op = (const tn_op_t *)(const void *)h;
    if (!tn_objreg_has(op, TN_OBJ_OP)) {
        return NULL;                    /* garbage, freed, or another kind */
    }
    return op->magic == TN_OP_MAGIC ? op : NULL;
}

/* The op handle alone: MPI_ERR_OP unless it names an op. */
static int op_arg(const char *fn, tn_comm_t *c, MPI_Op h, const tn_op_t **op_p)
{
    const tn_op_t *op = tn_mpi_op_get(h);

    if (op == NULL) {
        return tn_mpi_err(c, MPI_ERR_OP, fn, "op", "%s",
                          h == MPI_OP_NULL ? "MPI_OP_NULL is not an operation"
                                           : "invalid operation handle");
    }
    *op_p = op;
    return MPI_SUCCESS;
}

/* For reductions and collectives: MPI_REPLACE and MPI_NO_OP belong to the
 * one-sided accumulate functions only, which will check ops on their own.
 * dt == NULL checks the handle alone. */
int tn_mpi_check_op(const char *fn, tn_comm_t *c, MPI_Op h, const tn_dt_t *dt,
                    const tn_op_t **op_p)
{
    const tn_op_t *op = NULL;
    int rc;

    if ((rc = op_arg(fn, c, h, &op))) {
        return rc;
    }
    if (dt != NULL) {
        if (h == MPI_REPLACE || h == MPI_NO_OP) {
            return tn_mpi_err(c, MPI_ERR_OP, fn, "op",
                              "%s is only defined for one-sided accumulate operations",
                              op->name);
        }
        if (!tn_op_valid_for(op, dt)) {
            /* the standard name even if the type was renamed: it is what
             * the program spells */
            return tn_mpi_err(c, MPI_ERR_OP, fn, "op", "%s is not defined for %s", op->name,
                              dt->predefined || dt->user_name[0] == '\0'
                                  ? (dt->name != NULL ? dt->name : "a derived datatype")
                                  : dt->user_name);
        }
    }
    *op_p = op;
    return MPI_SUCCESS;
}

/* ---- user ops -------------------------------------------------------------- */

/* MPI_User_function takes an MPI_Datatype *, tn_op_user_fn_t a void * to the
 * same pointer-sized handle: the same calling convention.  The detour through
 * void (*)(void) tells the compiler the conversion is meant. */
static int op_create(const char *fn, tn_op_user_fn_t *user_fn, tn_op_user_c_fn_t *user_c_fn,
                     int commute, MPI_Op *op)
{
    tn_op_t *o = NULL;
    tn_status_t st;

    if (user_fn == NULL && user_c_fn == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "user_fn", "NULL function");
    }
    if (op == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "op", "NULL output pointer");
    }
    st = tn_op_create(user_fn, user_c_fn, commute, &o);
    if (st != TN_OK) {
        return tn_mpi_err_status(NULL, st, fn);
    }
    *op = tn_mpi_op_handle(o);
    return MPI_SUCCESS;
}

int tn_mpi_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    return op_create("MPI_Op_create", (tn_op_user_fn_t *)(void (*)(void))user_fn, NULL,
                     commute, op);
}

int tn_mpi_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    return op_create("MPI_Op_create_c", NULL,
                     (tn_op_user_c_fn_t *)(void (*)(void))user_fn, commute, op);
}

int tn_mpi_Op_free(MPI_Op *op)
{
    static const char fn[] = "MPI_Op_free";
    const tn_op_t *o = NULL;
    int rc;

    if (op == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "op", "NULL pointer");
    }
    if ((rc = op_arg(fn, NULL, *op, &o))) {
        return rc;
    }
    if (o->predefined) {
        return tn_mpi_err(NULL, MPI_ERR_OP, fn, "op", "%s is predefined and cannot be freed",
                          o->name);
    }
    /* operations in flight hold their own references */
    tn_op_release(o);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

int tn_mpi_Op_commutative(MPI_Op op, int *commute)
{
    static const char fn[] = "MPI_Op_commutative";
    const tn_op_t *o = NULL;
    int rc;

    if ((rc = op_arg(fn, NULL, op, &o))) {
        return rc;
    }
    if (commute == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "commute", "NULL output pointer");
    }
    *commute = o->commutative;
    return MPI_SUCCESS;
}

/* ---- MPI_Reduce_local ---------------------------------------------------------- */

static int reduce_local(const char *fn, const void *inbuf, void *inoutbuf, int64_t count,
                        MPI_Datatype datatype, MPI_Op op)
{
    const tn_dt_t *dt = NULL;
    const tn_op_t *o = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_count(fn, NULL, count, "count")) ||
        (rc = tn_mpi_check_dt(fn, NULL, datatype, "datatype", &dt)) ||
        (rc = tn_mpi_check_op(fn, NULL, op, dt, &o))) {
        return rc;
    }
    if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE) {
        return tn_mpi_err(NULL, MPI_ERR_BUFFER, fn, inbuf == MPI_IN_PLACE ? "inbuf" : "inoutbuf",
                          "MPI_IN_PLACE is not allowed here");
    }
    if ((rc = tn_mpi_check_buf(fn, NULL, inbuf, count, dt, "inbuf")) ||
        (rc = tn_mpi_check_buf(fn, NULL, inoutbuf, count, dt, "inoutbuf"))) {
        return rc;
    }
    /* no lock: nothing shared is touched, and a user function may call MPI */
    st = tn_op_apply(o, dt, tn_mpi_hval(datatype), inbuf, inoutbuf, (size_t)count);
    if (st != TN_OK) {
        return tn_mpi_err_status(NULL, st, fn);
    }
    return MPI_SUCCESS;
}

int tn_mpi_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                        MPI_Op op)
{
    return reduce_local("MPI_Reduce_local", inbuf, inoutbuf, count, datatype, op);
}

int tn_mpi_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op)
{
    return reduce_local("MPI_Reduce_local_c", inbuf, inoutbuf, count, datatype, op);
}
