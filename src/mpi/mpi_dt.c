/* MPI datatype queries, names, addresses (predefined types for now).
 *
 * None of these needs MPI_Init: a datatype is usable from any session, so
 * only the arguments are checked.  Errors carry no communicator and go to
 * the default handler.  The int-count forms report MPI_UNDEFINED for values
 * beyond INT_MAX, as the standard asks. */
#include "mpi/mpi_impl.h"

#include <limits.h>
#include <string.h>

_Static_assert(sizeof(((tn_dt_t *)0)->user_name) >= MPI_MAX_OBJECT_NAME,
               "tn_dt_t.user_name holds MPI_MAX_OBJECT_NAME bytes");
_Static_assert(TN_DT_COMBINER_NAMED == MPI_COMBINER_NAMED, "combiner value");

const tn_dt_t *tn_mpi_dt_get(MPI_Datatype h)
{
    uintptr_t v = tn_mpi_hval(h);
    const tn_dt_t *dt;

    if (v < TN_MPI_HANDLE_MAX_PREDEF) {
        return tn_dt_predefined(v);     /* NULL for MPI_DATATYPE_NULL */
    }
    dt = (const tn_dt_t *)(const void *)h;
    return dt->magic == TN_DT_MAGIC ? dt : NULL;
}

/* The datatype argument: MPI_ERR_TYPE unless it names a type.  (Unlike
 * tn_mpi_check_dt this will not ask for a committed type: the queries work
 * on uncommitted derived types too.) */
static int dt_arg(const char *fn, MPI_Datatype h, const tn_dt_t **dt_p)
{
    const tn_dt_t *dt = tn_mpi_dt_get(h);

    if (dt == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_TYPE, fn, "datatype", "%s",
                          h == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL is not a datatype"
                                                 : "invalid datatype handle");
    }
    *dt_p = dt;
    return MPI_SUCCESS;
}

/* An output pointer argument: MPI_ERR_ARG when NULL. */
static int out_arg(const char *fn, const void *p, const char *arg)
{
    if (p == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, arg, "NULL output pointer");
    }
    return MPI_SUCCESS;
}

/* ---- size and extent ----------------------------------------------------- */

int tn_mpi_Type_size(MPI_Datatype datatype, int *size)
{
    static const char fn[] = "MPI_Type_size";
    const tn_dt_t *dt = NULL;
    int rc;

    if ((rc = dt_arg(fn, datatype, &dt)) || (rc = out_arg(fn, size, "size"))) {
        return rc;
    }
    *size = dt->size > INT_MAX ? MPI_UNDEFINED : (int)dt->size;
    return MPI_SUCCESS;
}

static int type_size_count(const char *fn, MPI_Datatype datatype, MPI_Count *size)
{
    const tn_dt_t *dt = NULL;
    int rc;

    if ((rc = dt_arg(fn, datatype, &dt)) || (rc = out_arg(fn, size, "size"))) {
        return rc;
    }
    *size = (MPI_Count)dt->size;
    return MPI_SUCCESS;
}

int tn_mpi_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    return type_size_count("MPI_Type_size_c", datatype, size);
}

int tn_mpi_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    return type_size_count("MPI_Type_size_x", datatype, size);
}

/* lb and extent (true = 0) or true_lb and true_extent (true = 1). */
static int type_extent(const char *fn, MPI_Datatype datatype, int true_, int64_t *lb,
                       int64_t *extent, const void *lb_p, const void *extent_p)
{
    const tn_dt_t *dt = NULL;
    int rc;

    if ((rc = dt_arg(fn, datatype, &dt)) ||
        (rc = out_arg(fn, lb_p, true_ ? "true_lb" : "lb")) ||
        (rc = out_arg(fn, extent_p, true_ ? "true_extent" : "extent"))) {
        return rc;
    }
    *lb = true_ ? dt->true_lb : dt->lb;
    *extent = true_ ? dt->true_extent : dt->extent;
    return MPI_SUCCESS;
}

int tn_mpi_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    int64_t l, e;
    int rc = type_extent("MPI_Type_get_extent", datatype, 0, &l, &e, lb, extent);

    if (rc == MPI_SUCCESS) {
        *lb = (MPI_Aint)l;
        *extent = (MPI_Aint)e;
    }
    return rc;
}

int tn_mpi_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    return type_extent("MPI_Type_get_extent_c", datatype, 0, lb, extent, lb, extent);
}

int tn_mpi_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    return type_extent("MPI_Type_get_extent_x", datatype, 0, lb, extent, lb, extent);
}

int tn_mpi_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
                                MPI_Aint *true_extent)
{
    int64_t l, e;
    int rc = type_extent("MPI_Type_get_true_extent", datatype, 1, &l, &e, true_lb,
                         true_extent);

    if (rc == MPI_SUCCESS) {
        *true_lb = (MPI_Aint)l;
        *true_extent = (MPI_Aint)e;
    }
    return rc;
}

int tn_mpi_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb,
                                  MPI_Count *true_extent)
{
    return type_extent("MPI_Type_get_true_extent_c", datatype, 1, true_lb, true_extent,
                       true_lb, true_extent);
}

int tn_mpi_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
                                  MPI_Count *true_extent)
{
    return type_extent("MPI_Type_get_true_extent_x", datatype, 1, true_lb, true_extent,
                       true_lb, true_extent);
}

/* ---- names ---------------------------------------------------------------- */

int tn_mpi_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    static const char fn[] = "MPI_Type_get_name";
    const tn_dt_t *dt = NULL;
    const char *name;
    size_t len;
    int rc;

    if ((rc = dt_arg(fn, datatype, &dt)) || (rc = out_arg(fn, type_name, "type_name")) ||
        (rc = out_arg(fn, resultlen, "resultlen"))) {
        return rc;
    }
    tn_mpi_enter();
    name = dt->user_name[0] != '\0' ? dt->user_name : dt->name != NULL ? dt->name : "";
    len = strnlen(name, MPI_MAX_OBJECT_NAME - 1);
    memcpy(type_name, name, len);
    type_name[len] = '\0';
    tn_mpi_leave();
    *resultlen = (int)len;
    return MPI_SUCCESS;
}

/* Predefined types may be renamed too (the standard allows it).  Names
 * longer than MPI_MAX_OBJECT_NAME - 1 are truncated; an empty name brings
 * back the standard name of a predefined type. */
int tn_mpi_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    static const char fn[] = "MPI_Type_set_name";
    const tn_dt_t *dt = NULL;
    tn_dt_t *w;
    size_t len;
    int rc;

    if ((rc = dt_arg(fn, datatype, &dt))) {
        return rc;
    }
    if (type_name == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "type_name", "NULL name");
    }
    /* datatype objects, the predefined table included, are writable; only
     * the lookups hand them out as const */
    w = (tn_dt_t *)dt;
    len = strnlen(type_name, MPI_MAX_OBJECT_NAME - 1);
    tn_mpi_enter();
    memcpy(w->user_name, type_name, len);
    w->user_name[len] = '\0';
    tn_mpi_leave();
    return MPI_SUCCESS;
}

/* ---- addresses ------------------------------------------------------------ */

int tn_mpi_Get_address(const void *location, MPI_Aint *address)
{
    int rc;

    if ((rc = out_arg("MPI_Get_address", address, "address"))) {
        return rc;
    }
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

/* Address arithmetic wraps like the machine's, without signed overflow. */
MPI_Aint tn_mpi_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

MPI_Aint tn_mpi_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}

/* ---- commit and envelope --------------------------------------------------- */

int tn_mpi_Type_commit(MPI_Datatype *datatype)
{
    static const char fn[] = "MPI_Type_commit";
    const tn_dt_t *dt = NULL;
    int rc;

    if (datatype == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "datatype", "NULL pointer");
    }
    if ((rc = dt_arg(fn, *datatype, &dt))) {
        return rc;
    }
    /* predefined types come committed: a no-op, as in the other MPIs.
     * Derived types (later issue) are flattened here. */
    return MPI_SUCCESS;
}

static int type_envelope(const char *fn, MPI_Datatype datatype, const void *ni,
                         const void *na, const void *nl, const void *nd, int *combiner)
{
    const tn_dt_t *dt = NULL;
    int rc;

    if ((rc = dt_arg(fn, datatype, &dt)) || (rc = out_arg(fn, ni, "num_integers")) ||
        (rc = out_arg(fn, na, "num_addresses")) ||
        (rc = out_arg(fn, nl, "num_large_counts")) ||
        (rc = out_arg(fn, nd, "num_datatypes")) || (rc = out_arg(fn, combiner, "combiner"))) {
        return rc;
    }
    if (dt->combiner != MPI_COMBINER_NAMED) {
        return tn_mpi_err(NULL, MPI_ERR_UNSUPPORTED_OPERATION, fn, "datatype",
                          "envelopes of derived datatypes are not supported yet");
    }
    *combiner = MPI_COMBINER_NAMED;
    return MPI_SUCCESS;
}

int tn_mpi_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                             int *num_datatypes, int *combiner)
{
    static const int unused = 0;
    int rc = type_envelope("MPI_Type_get_envelope", datatype, num_integers, num_addresses,
                           &unused, num_datatypes, combiner);

    if (rc == MPI_SUCCESS) {
        *num_integers = *num_addresses = *num_datatypes = 0;   /* MPI_COMBINER_NAMED */
    }
    return rc;
}

int tn_mpi_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                               MPI_Count *num_addresses, MPI_Count *num_large_counts,
                               MPI_Count *num_datatypes, int *combiner)
{
    int rc = type_envelope("MPI_Type_get_envelope_c", datatype, num_integers, num_addresses,
                           num_large_counts, num_datatypes, combiner);

    if (rc == MPI_SUCCESS) {
        *num_integers = *num_addresses = *num_large_counts = *num_datatypes = 0;
    }
    return rc;
}
