/* MPI datatypes: constructors, commit/free, envelope and contents, queries,
 * names, addresses, match_size and get_value_index (the f90 types are in
 * mpi_dt_f90.c).
 *
 * None of these needs MPI_Init: a datatype is usable from any session, so
 * only the arguments are checked.  Errors carry no communicator and go to
 * the default handler.  The int-count forms report MPI_UNDEFINED for values
 * beyond INT_MAX, as the standard asks.
 *
 * Handles: a predefined type's handle is its ABI value, a derived type's is
 * the address of its tn_dt_t (tn_mpi_dt_handle).  tn_mpi_dt_get, used by
 * every communication, packing and reduction entry point through
 * tn_mpi_check_dt, answers only committed types, so an uncommitted one is
 * MPI_ERR_TYPE there; the functions of this file look handles up with
 * dt_lookup, which also accepts uncommitted types (constructors, queries,
 * commit and free work on them).
 *
 * Constructor arguments are kept on the type (tn_dt_set_contents) in the
 * order MPI_Type_get_contents returns them.  A type made by an MPI_*_c
 * constructor keeps them as large counts; the int forms of get_envelope and
 * get_contents refuse such a type with MPI_ERR_TYPE. */
#include "mpi/mpi_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(((tn_dt_t *)0)->user_name) >= MPI_MAX_OBJECT_NAME,
               "tn_dt_t.user_name holds MPI_MAX_OBJECT_NAME bytes");
_Static_assert(TN_DT_COMBINER_NAMED == MPI_COMBINER_NAMED, "combiner value");
_Static_assert(sizeof(MPI_Count) == sizeof(int64_t) && sizeof(MPI_Aint) <= sizeof(int64_t),
               "counts and addresses fit int64_t");

/* Any datatype object, committed or not; NULL if h names none. */
static const tn_dt_t *dt_lookup(MPI_Datatype h)
{
    uintptr_t v = tn_mpi_hval(h);
    const tn_dt_t *dt;

    if (v < TN_MPI_HANDLE_MAX_PREDEF) {
        return tn_dt_predefined(v);     /* NULL for MPI_DATATYPE_NULL */
    }
    dt = (const tn_dt_t *)(const void *)h;
    if (!tn_objreg_has(dt, TN_OBJ_DT)) {
        return NULL;                    /* garbage, freed, or another kind */
    }
    return dt->magic == TN_DT_MAGIC ? dt : NULL;
}

const tn_dt_t *tn_mpi_dt_get(MPI_Datatype h)
{
    const tn_dt_t *dt = dt_lookup(h);

    return dt != NULL && dt->committed ? dt : NULL;
}

const tn_dt_t *tn_mpi_dt_lookup(MPI_Datatype h)
{
    return dt_lookup(h);
}

/* The datatype argument: MPI_ERR_TYPE unless it names a type, committed or
 * not. */
static int dt_arg_named(const char *fn, MPI_Datatype h, const char *arg, const tn_dt_t **dt_p)
{
    const tn_dt_t *dt = dt_lookup(h);

    if (dt == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_TYPE, fn, arg, "%s",
                          h == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL is not a datatype"
                                                 : "invalid datatype handle");
    }
    *dt_p = dt;
    return MPI_SUCCESS;
}

static int dt_arg(const char *fn, MPI_Datatype h, const tn_dt_t **dt_p)
{
    return dt_arg_named(fn, h, "datatype", dt_p);
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

/* MPI_DATATYPE_NULL is a predefined handle with a name too (MPICH and Open
 * MPI answer "MPI_DATATYPE_NULL"; mpi4py's tests expect it). */
int tn_mpi_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    static const char fn[] = "MPI_Type_get_name";
    const tn_dt_t *dt = NULL;
    const char *name;
    size_t len;
    int rc;

    if ((rc = out_arg(fn, type_name, "type_name")) ||
        (rc = out_arg(fn, resultlen, "resultlen"))) {
        return rc;
    }
    if (datatype == MPI_DATATYPE_NULL) {
        len = strlen("MPI_DATATYPE_NULL");
        memcpy(type_name, "MPI_DATATYPE_NULL", len + 1);
        *resultlen = (int)len;
        return MPI_SUCCESS;
    }
    if ((rc = dt_arg(fn, datatype, &dt))) {
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

/* ---- commit and free ------------------------------------------------------- */

/* Derived objects are writable; the lookups hand them out as const. */
static tn_dt_t *dt_writable(const tn_dt_t *dt)
{
    return (tn_dt_t *)dt;
}

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
    /* the layout was flattened by the constructor: committing only opens
     * the type for communication (predefined types come committed) */
    if (!dt->predefined) {
        tn_mpi_enter();
        tn_dt_commit(dt_writable(dt));
        tn_mpi_leave();
    }
    return MPI_SUCCESS;
}

/* The handle goes, the object stays while pending operations hold it. */
int tn_mpi_Type_free(MPI_Datatype *datatype)
{
    static const char fn[] = "MPI_Type_free";
    const tn_dt_t *dt = NULL;
    int rc;

    if (datatype == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "datatype", "NULL pointer");
    }
    if ((rc = dt_arg(fn, *datatype, &dt))) {
        return rc;
    }
    if (dt->predefined) {
        return tn_mpi_err(NULL, MPI_ERR_TYPE, fn, "datatype",
                          "%s is a predefined datatype and cannot be freed", dt->name);
    }
    if (tn_mpi_dt_is_f90(dt)) {
        return tn_mpi_err(NULL, MPI_ERR_TYPE, fn, "datatype",
                          "a type of MPI_Type_create_f90_* is predefined and cannot be freed");
    }
    tn_mpi_enter();
    rc = tn_mpi_type_attr_delete_all(fn, dt);
    tn_mpi_leave();
    if (rc != MPI_SUCCESS) {
        return rc;     /* a delete callback failed: the type stays */
    }
    tn_dt_release(dt);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

/* ---- constructor arguments --------------------------------------------------- */

static int count_arg(const char *fn, int64_t count, const char *arg)
{
    if (count < 0) {
        return tn_mpi_err(NULL, MPI_ERR_COUNT, fn, arg, "negative count %lld", (long long)count);
    }
    return MPI_SUCCESS;
}

/* A block length (i < 0: a scalar argument, else element i of an array). */
static int blen_arg(const char *fn, int64_t v, const char *arg, int64_t i)
{
    if (v >= 0) {
        return MPI_SUCCESS;
    }
    if (i < 0) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, arg, "negative block length %lld",
                          (long long)v);
    }
    return tn_mpi_err(NULL, MPI_ERR_ARG, fn, arg, "element %lld is a negative block length %lld",
                      (long long)i, (long long)v);
}

static int array_arg(const char *fn, const void *a, int64_t n, const char *arg)
{
    if (a == NULL && n > 0) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, arg, "NULL array of %lld elements",
                          (long long)n);
    }
    return MPI_SUCCESS;
}

/* int64 copies of argument arrays (malloc'd; NULL: out of memory, unless
 * n == 0, where a dummy non-NULL pointer is not needed by the callers). */
static int64_t *i64_from_int(const int *a, size_t n)
{
    if (n > SIZE_MAX / 2 / sizeof(int64_t)) {
        return NULL;   /* a negative count cast by the caller */
    }
    int64_t *r = malloc((n ? n : 1) * sizeof(*r));

    for (size_t i = 0; r != NULL && i < n; i++) {
        r[i] = a[i];
    }
    return r;
}

static int64_t *i64_from_aint(const MPI_Aint *a, size_t n)
{
    int64_t *r = malloc((n ? n : 1) * sizeof(*r));

    for (size_t i = 0; r != NULL && i < n; i++) {
        r[i] = a[i];
    }
    return r;
}

/* Keep the arguments: ni integer values then na address values (both given
 * as int64), stored as int and MPI_Aint, or, for a large-count
 * constructor, all of them in that order as large counts. */
static tn_status_t keep_args(tn_dt_t *dt, int combiner, int large, size_t ni,
                             const int64_t *iv, size_t na, const int64_t *av, size_t nd,
                             const tn_dt_t *const *types)
{
    tn_dt_contents_t c = { .combiner = combiner, .large = large, .nd = nd,
                           .types = (const tn_dt_t **)types };
    int64_t *lv = NULL;
    int *ints = NULL;
    tn_status_t st;

    if (large) {
        lv = malloc((ni + na ? ni + na : 1) * sizeof(*lv));
        if (lv == NULL) {
            return TN_ERR_NOMEM;
        }
        if (ni > 0) {
            memcpy(lv, iv, ni * sizeof(*lv));
        }
        if (na > 0) {
            memcpy(lv + ni, av, na * sizeof(*lv));
        }
        c.nl = ni + na;
        c.larges = lv;
    } else {
        ints = malloc((ni ? ni : 1) * sizeof(*ints));
        if (ints == NULL) {
            return TN_ERR_NOMEM;
        }
        for (size_t i = 0; i < ni; i++) {
            ints[i] = (int)iv[i];       /* they came from int arguments */
        }
        c.ni = ni;
        c.ints = ints;
        c.na = na;
        c.addrs = (int64_t *)av;
    }
    st = tn_dt_set_contents(dt, &c);
    free(lv);
    free(ints);
    return st;
}

/* Hand out the type a constructor made (st: how the construction went),
 * after keeping its arguments. */
static int new_type(const char *fn, tn_status_t st, tn_dt_t *dt, int combiner, int large,
                    size_t ni, const int64_t *iv, size_t na, const int64_t *av, size_t nd,
                    const tn_dt_t *const *types, MPI_Datatype *newtype)
{
    if (st == TN_OK) {
        dt->combiner = combiner;
        st = keep_args(dt, combiner, large, ni, iv, na, av, nd, types);
        if (st != TN_OK) {
            tn_dt_release(dt);
        }
    }
    if (st != TN_OK) {
        return tn_mpi_err(NULL, tn_mpi_class_of(st), fn, NULL, "cannot build the datatype: %s",
                          st == TN_ERR_INVAL ? "its size or extent does not fit the address space"
                                             : tn_status_str(st));
    }
    *newtype = tn_mpi_dt_handle(dt);
    return MPI_SUCCESS;
}

/* ---- contiguous, vector, hvector ---------------------------------------------- */

static int type_contiguous(const char *fn, int large, int64_t count, MPI_Datatype oldtype,
                           MPI_Datatype *newtype)
{
    const tn_dt_t *old = NULL;
    tn_dt_t *dt = NULL;
    int rc;

    if ((rc = count_arg(fn, count, "count")) || (rc = dt_arg_named(fn, oldtype, "oldtype", &old)) ||
        (rc = out_arg(fn, newtype, "newtype"))) {
        return rc;
    }
    tn_status_t st = tn_dt_create_contig((size_t)count, old, &dt);
    return new_type(fn, st, dt, MPI_COMBINER_CONTIGUOUS, large, 1, &count, 0, NULL, 1, &old,
                    newtype);
}

int tn_mpi_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return type_contiguous("MPI_Type_contiguous", 0, count, oldtype, newtype);
}

int tn_mpi_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return type_contiguous("MPI_Type_contiguous_c", 1, count, oldtype, newtype);
}

/* hv: the stride is in bytes (hvector), else in extents of oldtype. */
static int type_vector(const char *fn, int large, int hv, int64_t count, int64_t blen,
                       int64_t stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    const tn_dt_t *old = NULL;
    tn_dt_t *dt = NULL;
    int64_t args[3] = { count, blen, stride };
    ptrdiff_t bytes = (ptrdiff_t)stride;
    tn_status_t st;
    int rc;

    if ((rc = count_arg(fn, count, "count")) || (rc = blen_arg(fn, blen, "blocklength", -1)) ||
        (rc = dt_arg_named(fn, oldtype, "oldtype", &old)) ||
        (rc = out_arg(fn, newtype, "newtype"))) {
        return rc;
    }
    if (!hv && __builtin_mul_overflow((ptrdiff_t)stride, old->extent, &bytes)) {
        st = TN_ERR_INVAL;
    } else {
        st = tn_dt_create_hvector((size_t)count, (size_t)blen, bytes, old, &dt);
    }
    return new_type(fn, st, dt, hv ? MPI_COMBINER_HVECTOR : MPI_COMBINER_VECTOR, large,
                    hv ? 2 : 3, args, hv ? 1 : 0, &args[2], 1, &old, newtype);
}

int tn_mpi_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                       MPI_Datatype *newtype)
{
    return type_vector("MPI_Type_vector", 0, 0, count, blocklength, stride, oldtype, newtype);
}

int tn_mpi_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                         MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return type_vector("MPI_Type_vector_c", 1, 0, count, blocklength, stride, oldtype, newtype);
}

int tn_mpi_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                               MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return type_vector("MPI_Type_create_hvector", 0, 1, count, blocklength, stride, oldtype,
                       newtype);
}

int tn_mpi_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                 MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return type_vector("MPI_Type_create_hvector_c", 1, 1, count, blocklength, stride, oldtype,
                       newtype);
}

/* ---- indexed family --------------------------------------------------------------
 * blens: count block lengths, or, for the _block combiners, one length
 * blen for all; displs in bytes when bytes != 0, else in extents. */
static int type_indexed(const char *fn, int large, int combiner, int64_t count,
                        const int64_t *blens, int64_t blen, const int64_t *displs, int bytes,
                        MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    const tn_dt_t *old = NULL;
    tn_dt_t *dt = NULL;
    tn_dt_block_t *blocks;
    int64_t *iv;
    size_t n = (size_t)count, ni;
    int blk = combiner == MPI_COMBINER_INDEXED_BLOCK || combiner == MPI_COMBINER_HINDEXED_BLOCK;
    tn_status_t st = TN_OK;
    int rc;

    if ((rc = dt_arg_named(fn, oldtype, "oldtype", &old)) ||
        (rc = out_arg(fn, newtype, "newtype"))) {
        return rc;
    }
    for (size_t i = 0; !blk && i < n; i++) {
        if ((rc = blen_arg(fn, blens[i], "array_of_blocklengths", (int64_t)i))) {
            return rc;
        }
    }
    blocks = malloc((n ? n : 1) * sizeof(*blocks));
    /* the integer arguments: count, the length(s), and element displacements */
    ni = 1 + (blk ? 1 : n) + (bytes ? 0 : n);
    iv = malloc(ni * sizeof(*iv));
    if (blocks == NULL || iv == NULL) {
        free(blocks);
        free(iv);
        return tn_mpi_err(NULL, MPI_ERR_NO_MEM, fn, NULL, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        ptrdiff_t d = (ptrdiff_t)displs[i];
        if (!bytes && __builtin_mul_overflow(d, old->extent, &d)) {
            st = TN_ERR_INVAL;
        }
        blocks[i].disp = d;
        blocks[i].count = (size_t)(blk ? blen : blens[i]);
        blocks[i].type = old;
    }
    iv[0] = count;
    if (blk) {
        iv[1] = blen;
    } else if (n > 0) {
        memcpy(iv + 1, blens, n * sizeof(*iv));
    }
    if (!bytes && n > 0) {
        memcpy(iv + ni - n, displs, n * sizeof(*iv));
    }
    if (st == TN_OK) {
        st = tn_dt_create_blocks(n, blocks, 0, &dt);
    }
    rc = new_type(fn, st, dt, combiner, large, ni, iv, bytes ? n : 0, displs, 1, &old, newtype);
    free(blocks);
    free(iv);
    return rc;
}

/* The int/MPI_Aint argument forms, converted to int64 for type_indexed. */
static int type_indexed_int(const char *fn, int combiner, int count, const int *blens, int blen,
                            const void *displs, int aint_displs, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    int blk = combiner == MPI_COMBINER_INDEXED_BLOCK || combiner == MPI_COMBINER_HINDEXED_BLOCK;
    int64_t *b = NULL, *d = NULL;
    int rc;

    if ((rc = count_arg(fn, count, "count")) ||
        (!blk && (rc = array_arg(fn, blens, count, "array_of_blocklengths"))) ||
        (rc = array_arg(fn, displs, count, "array_of_displacements"))) {
        return rc;
    }
    if (blk && (rc = blen_arg(fn, blen, "blocklength", -1))) {
        return rc;
    }
    if (!blk && (b = i64_from_int(blens, (size_t)count)) == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_NO_MEM, fn, NULL, "out of memory");
    }
    d = aint_displs ? i64_from_aint(displs, (size_t)count) : i64_from_int(displs, (size_t)count);
    if (d == NULL) {
        free(b);
        return tn_mpi_err(NULL, MPI_ERR_NO_MEM, fn, NULL, "out of memory");
    }
    rc = type_indexed(fn, 0, combiner, count, b, blen, d, aint_displs, oldtype, newtype);
    free(b);
    free(d);
    return rc;
}

static int type_indexed_c(const char *fn, int combiner, MPI_Count count, const MPI_Count *blens,
                          MPI_Count blen, const MPI_Count *displs, int bytes,
                          MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int blk = combiner == MPI_COMBINER_INDEXED_BLOCK || combiner == MPI_COMBINER_HINDEXED_BLOCK;
    int rc;

    if ((rc = count_arg(fn, count, "count")) ||
        (!blk && (rc = array_arg(fn, blens, count, "array_of_blocklengths"))) ||
        (rc = array_arg(fn, displs, count, "array_of_displacements"))) {
        return rc;
    }
    if (blk && (rc = blen_arg(fn, blen, "blocklength", -1))) {
        return rc;
    }
    return type_indexed(fn, 1, combiner, count, blens, blen, displs, bytes, oldtype, newtype);
}

int tn_mpi_Type_indexed(int count, const int array_of_blocklengths[],
                        const int array_of_displacements[], MPI_Datatype oldtype,
                        MPI_Datatype *newtype)
{
    return type_indexed_int("MPI_Type_indexed", MPI_COMBINER_INDEXED, count,
                            array_of_blocklengths, 0, array_of_displacements, 0, oldtype,
                            newtype);
}

int tn_mpi_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                          const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                          MPI_Datatype *newtype)
{
    return type_indexed_c("MPI_Type_indexed_c", MPI_COMBINER_INDEXED, count,
                          array_of_blocklengths, 0, array_of_displacements, 0, oldtype, newtype);
}

int tn_mpi_Type_create_hindexed(int count, const int array_of_blocklengths[],
                                const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    return type_indexed_int("MPI_Type_create_hindexed", MPI_COMBINER_HINDEXED, count,
                            array_of_blocklengths, 0, array_of_displacements, 1, oldtype,
                            newtype);
}

int tn_mpi_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                  const MPI_Count array_of_displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return type_indexed_c("MPI_Type_create_hindexed_c", MPI_COMBINER_HINDEXED, count,
                          array_of_blocklengths, 0, array_of_displacements, 1, oldtype, newtype);
}

int tn_mpi_Type_create_indexed_block(int count, int blocklength,
                                     const int array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype)
{
    return type_indexed_int("MPI_Type_create_indexed_block", MPI_COMBINER_INDEXED_BLOCK, count,
                            NULL, blocklength, array_of_displacements, 0, oldtype, newtype);
}

int tn_mpi_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                       const MPI_Count array_of_displacements[],
                                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return type_indexed_c("MPI_Type_create_indexed_block_c", MPI_COMBINER_INDEXED_BLOCK, count,
                          NULL, blocklength, array_of_displacements, 0, oldtype, newtype);
}

int tn_mpi_Type_create_hindexed_block(int count, int blocklength,
                                      const MPI_Aint array_of_displacements[],
                                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return type_indexed_int("MPI_Type_create_hindexed_block", MPI_COMBINER_HINDEXED_BLOCK,
                            count, NULL, blocklength, array_of_displacements, 1, oldtype,
                            newtype);
}

int tn_mpi_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                        const MPI_Count array_of_displacements[],
                                        MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return type_indexed_c("MPI_Type_create_hindexed_block_c", MPI_COMBINER_HINDEXED_BLOCK,
                          count, NULL, blocklength, array_of_displacements, 1, oldtype,
                          newtype);
}

/* ---- struct ---------------------------------------------------------------------- */

static int type_struct(const char *fn, int large, int64_t count, const int64_t *blens,
                       const int64_t *displs, const MPI_Datatype types[], MPI_Datatype *newtype)
{
    size_t n = (size_t)count;
    tn_dt_block_t *blocks = malloc((n ? n : 1) * sizeof(*blocks));
    const tn_dt_t **olds = malloc((n ? n : 1) * sizeof(*olds));
    int64_t *iv = malloc((n + 1) * sizeof(*iv));
    tn_dt_t *dt = NULL;
    tn_status_t st;
    int rc = MPI_SUCCESS;

    if (blocks == NULL || olds == NULL || iv == NULL) {
        rc = tn_mpi_err(NULL, MPI_ERR_NO_MEM, fn, NULL, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        olds[i] = dt_lookup(types[i]);
        if (olds[i] == NULL) {
            rc = tn_mpi_err(NULL, MPI_ERR_TYPE, fn, "array_of_types",
                            "element %zu is not a datatype", i);
            goto out;
        }
        if ((rc = blen_arg(fn, blens[i], "array_of_blocklengths", (int64_t)i))) {
            goto out;
        }
        blocks[i].disp = (ptrdiff_t)displs[i];
        blocks[i].count = (size_t)blens[i];
        blocks[i].type = olds[i];
    }
    if ((rc = out_arg(fn, newtype, "newtype"))) {
        goto out;
    }
    iv[0] = count;
    if (n > 0) {
        memcpy(iv + 1, blens, n * sizeof(*iv));
    }
    st = tn_dt_create_blocks(n, blocks, 1, &dt);
    rc = new_type(fn, st, dt, MPI_COMBINER_STRUCT, large, n + 1, iv, n, displs, n, olds,
                  newtype);
out:
    free(blocks);
    free(olds);
    free(iv);
    return rc;
}

static int struct_args(const char *fn, int64_t count, const void *blens, const void *displs,
                       const MPI_Datatype types[])
{
    int rc;

    if ((rc = count_arg(fn, count, "count")) ||
        (rc = array_arg(fn, blens, count, "array_of_blocklengths")) ||
        (rc = array_arg(fn, displs, count, "array_of_displacements")) ||
        (rc = array_arg(fn, types, count, "array_of_types"))) {
        return rc;
    }
    return MPI_SUCCESS;
}

int tn_mpi_Type_create_struct(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[],
                              const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_struct";
    int64_t *b, *d;
    int rc;

    if ((rc = struct_args(fn, count, array_of_blocklengths, array_of_displacements,
                          array_of_types))) {
        return rc;
    }
    b = i64_from_int(array_of_blocklengths, (size_t)count);
    d = i64_from_aint(array_of_displacements, (size_t)count);
    if (b == NULL || d == NULL) {
        rc = tn_mpi_err(NULL, MPI_ERR_NO_MEM, fn, NULL, "out of memory");
    } else {
        rc = type_struct(fn, 0, count, b, d, array_of_types, newtype);
    }
    free(b);
    free(d);
    return rc;
}

int tn_mpi_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[],
                                const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_struct_c";
    int rc;

    if ((rc = struct_args(fn, count, array_of_blocklengths, array_of_displacements,
                          array_of_types))) {
        return rc;
    }
    return type_struct(fn, 1, count, array_of_blocklengths, array_of_displacements,
                       array_of_types, newtype);
}

/* ---- resized, dup ------------------------------------------------------------------ */

static int type_resized(const char *fn, int large, MPI_Datatype oldtype, int64_t lb,
                        int64_t extent, MPI_Datatype *newtype)
{
    const tn_dt_t *old = NULL;
    tn_dt_t *dt = NULL;
    int64_t av[2] = { lb, extent };
    int rc;

    if ((rc = dt_arg_named(fn, oldtype, "oldtype", &old)) ||
        (rc = out_arg(fn, newtype, "newtype"))) {
        return rc;
    }
    tn_status_t st = tn_dt_create_resized(old, (ptrdiff_t)lb, (ptrdiff_t)extent, &dt);
    return new_type(fn, st, dt, MPI_COMBINER_RESIZED, large, 0, NULL, 2, av, 1, &old, newtype);
}

int tn_mpi_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                               MPI_Datatype *newtype)
{
    return type_resized("MPI_Type_create_resized", 0, oldtype, lb, extent, newtype);
}

int tn_mpi_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                                 MPI_Datatype *newtype)
{
    return type_resized("MPI_Type_create_resized_c", 1, oldtype, lb, extent, newtype);
}

/* The copy is committed when the original is; attributes (no keyvals on
 * types yet) and the name are not copied. */
int tn_mpi_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_dup";
    const tn_dt_t *old = NULL;
    tn_dt_t *dt = NULL;
    int rc;

    if ((rc = dt_arg_named(fn, oldtype, "oldtype", &old)) ||
        (rc = out_arg(fn, newtype, "newtype"))) {
        return rc;
    }
    tn_status_t st = tn_dt_create_dup(old, &dt);
    rc = new_type(fn, st, dt, MPI_COMBINER_DUP, 0, 0, NULL, 0, NULL, 1, &old, newtype);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    tn_mpi_enter();
    rc = tn_mpi_type_attr_copy(fn, old, tn_mpi_dt_lookup(*newtype));
    tn_mpi_leave();
    if (rc != MPI_SUCCESS) {
        tn_dt_release(tn_mpi_dt_lookup(*newtype));
        *newtype = MPI_DATATYPE_NULL;
    }
    return rc;
}

/* ---- subarray, darray ---------------------------------------------------------------- */

static int order_arg(const char *fn, int order)
{
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "order",
                          "%d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
    }
    return MPI_SUCCESS;
}

/* Keep array-constructor arguments: ni ints, and nl large counts (large)
 * or none. */
static tn_status_t keep_array_args(tn_dt_t *dt, int combiner, int large, size_t ni,
                                   const int *ints, size_t nl, const int64_t *larges,
                                   const tn_dt_t *old)
{
    tn_dt_contents_t c = { .combiner = combiner, .large = large, .ni = ni, .ints = (int *)ints,
                           .nl = nl, .larges = (int64_t *)larges, .nd = 1,
                           .types = (const tn_dt_t **)&old };

    return tn_dt_set_contents(dt, &c);
}

/* Hand out an array type with its arguments kept. */
static int new_array_type(const char *fn, tn_status_t st, tn_dt_t *dt, int combiner, int large,
                          size_t ni, const int *ints, size_t nl, const int64_t *larges,
                          const tn_dt_t *old, MPI_Datatype *newtype)
{
    if (st == TN_OK) {
        dt->combiner = combiner;
        st = keep_array_args(dt, combiner, large, ni, ints, nl, larges, old);
        if (st != TN_OK) {
            tn_dt_release(dt);
        }
    }
    if (st != TN_OK) {
        return tn_mpi_err(NULL, tn_mpi_class_of(st), fn, NULL, "cannot build the datatype: %s",
                          st == TN_ERR_INVAL ? "its size or extent does not fit the address space"
                                             : tn_status_str(st));
    }
    *newtype = tn_mpi_dt_handle(dt);
    return MPI_SUCCESS;
}

/* sizes, subsizes, starts: ndims each, as int64 in one array of 3*ndims. */
static int type_subarray(const char *fn, int large, int ndims, const int64_t *v, int order,
                         MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    const int64_t *sizes = v, *subsizes = v + ndims, *starts = v + 2 * (size_t)ndims;
    const tn_dt_t *old = NULL;
    tn_dt_t *dt = NULL;
    size_t ni = large ? 2 : 3 * (size_t)ndims + 2;
    int *ints;
    int rc;

    if ((rc = order_arg(fn, order)) || (rc = dt_arg_named(fn, oldtype, "oldtype", &old)) ||
        (rc = out_arg(fn, newtype, "newtype"))) {
        return rc;
    }
    for (int i = 0; i < ndims; i++) {
        if (sizes[i] <= 0) {
            return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "array_of_sizes",
                              "element %d is %lld, not positive", i, (long long)sizes[i]);
        }
        if (subsizes[i] < 0 || subsizes[i] > sizes[i]) {
            return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "array_of_subsizes",
                              "element %d is %lld, not in [0, %lld]", i, (long long)subsizes[i],
                              (long long)sizes[i]);
        }
        if (starts[i] < 0 || starts[i] > sizes[i] - subsizes[i]) {
            return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "array_of_starts",
                              "element %d is %lld, not in [0, %lld]", i, (long long)starts[i],
                              (long long)(sizes[i] - subsizes[i]));
        }
    }
    ints = malloc(ni * sizeof(*ints));
    if (ints == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_NO_MEM, fn, NULL, "out of memory");
    }
    ints[0] = ndims;
    ints[ni - 1] = order;
    for (size_t i = 0; !large && i < 3 * (size_t)ndims; i++) {
        ints[1 + i] = (int)v[i];
    }
    tn_status_t st = tn_dt_create_subarray(ndims, sizes, subsizes, starts,
                                           order == MPI_ORDER_FORTRAN, old, &dt);
    rc = new_array_type(fn, st, dt, MPI_COMBINER_SUBARRAY, large, ni, ints,
                        large ? 3 * (size_t)ndims : 0, v, old, newtype);
    free(ints);
    return rc;
}

static int subarray_args(const char *fn, int ndims, const void *a, const void *b, const void *c)
{
    int rc;

    if (ndims < 0) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "ndims", "negative ndims %d", ndims);
    }
    if ((rc = array_arg(fn, a, ndims, "array_of_sizes")) ||
        (rc = array_arg(fn, b, ndims, "array_of_subsizes")) ||
        (rc = array_arg(fn, c, ndims, "array_of_starts"))) {
        return rc;
    }
    return MPI_SUCCESS;
}

int tn_mpi_Type_create_subarray(int ndims, const int array_of_sizes[],
                                const int array_of_subsizes[], const int array_of_starts[],
                                int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_subarray";
    int64_t *v;
    int rc;

    if ((rc = subarray_args(fn, ndims, array_of_sizes, array_of_subsizes, array_of_starts))) {
        return rc;
    }
    v = malloc((3 * (size_t)(ndims > 0 ? ndims : 0) + 1) * sizeof(*v));
    if (v == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_NO_MEM, fn, NULL, "out of memory");
    }
    for (int i = 0; i < ndims; i++) {
        v[i] = array_of_sizes[i];
        v[ndims + i] = array_of_subsizes[i];
        v[2 * ndims + i] = array_of_starts[i];
    }
    rc = type_subarray(fn, 0, ndims, v, order, oldtype, newtype);
    free(v);
    return rc;
}

int tn_mpi_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                  const MPI_Count array_of_subsizes[],
                                  const MPI_Count array_of_starts[], int order,
                                  MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_subarray_c";
    int64_t *v;
    int rc;

    if ((rc = subarray_args(fn, ndims, array_of_sizes, array_of_subsizes, array_of_starts))) {
        return rc;
    }
    v = malloc((3 * (size_t)(ndims > 0 ? ndims : 0) + 1) * sizeof(*v));
    if (v == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_NO_MEM, fn, NULL, "out of memory");
    }
    memcpy(v, array_of_sizes, (size_t)ndims * sizeof(*v));
    memcpy(v + ndims, array_of_subsizes, (size_t)ndims * sizeof(*v));
    memcpy(v + 2 * ndims, array_of_starts, (size_t)ndims * sizeof(*v));
    rc = type_subarray(fn, 1, ndims, v, order, oldtype, newtype);
    free(v);
    return rc;
}

static int type_darray(const char *fn, int large, int size, int rank, int ndims,
                       const int64_t *gsizes, const int distribs[], const int dargs[],
                       const int psizes[], int order, MPI_Datatype oldtype,
                       MPI_Datatype *newtype)
{
    const tn_dt_t *old = NULL;
    tn_dt_t *dt = NULL;
    size_t n = (size_t)ndims, ni = large ? 3 * n + 4 : 4 * n + 4, k = 0;
    int *ints = NULL, *tdist = NULL, *tdarg = NULL;
    int64_t nprocs = 1;
    tn_status_t st;
    int rc;

    if (size <= 0) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "size", "%d is not positive", size);
    }
    if (rank < 0 || rank >= size) {
        return tn_mpi_err(NULL, MPI_ERR_RANK, fn, "rank", "%d is not in [0, %d)", rank, size);
    }
    if ((rc = order_arg(fn, order)) || (rc = dt_arg_named(fn, oldtype, "oldtype", &old)) ||
        (rc = out_arg(fn, newtype, "newtype"))) {
        return rc;
    }
    for (int i = 0; i < ndims; i++) {
        if (gsizes[i] <= 0) {
            return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "array_of_gsizes",
                              "element %d is %lld, not positive", i, (long long)gsizes[i]);
        }
        if (psizes[i] <= 0) {
            return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "array_of_psizes",
                              "element %d is %d, not positive", i, psizes[i]);
        }
        if (distribs[i] != MPI_DISTRIBUTE_NONE && distribs[i] != MPI_DISTRIBUTE_BLOCK &&
            distribs[i] != MPI_DISTRIBUTE_CYCLIC) {
            return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "array_of_distribs",
                              "element %d is %d, not a distribution", i, distribs[i]);
        }
        if (dargs[i] <= 0 && dargs[i] != MPI_DISTRIBUTE_DFLT_DARG) {
            return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "array_of_dargs",
                              "element %d is %d, neither positive nor "
                              "MPI_DISTRIBUTE_DFLT_DARG", i, dargs[i]);
        }
        if (distribs[i] == MPI_DISTRIBUTE_NONE && psizes[i] != 1) {
            return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "array_of_psizes",
                              "element %d is %d for an undistributed dimension (must be 1)", i,
                              psizes[i]);
        }
        if (distribs[i] == MPI_DISTRIBUTE_BLOCK && dargs[i] != MPI_DISTRIBUTE_DFLT_DARG &&
            (int64_t)dargs[i] * psizes[i] < gsizes[i]) {
            return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "array_of_dargs",
                              "element %d: %d blocks of %d do not cover %lld elements", i,
                              psizes[i], dargs[i], (long long)gsizes[i]);
        }
        nprocs *= psizes[i];
        if (nprocs > size) {
            break;
        }
    }
    if (nprocs != size) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "array_of_psizes",
                          "the process grid does not have size %d processes", size);
    }
    ints = malloc(ni * sizeof(*ints));
    tdist = malloc((n ? n : 1) * sizeof(*tdist));
    tdarg = malloc((n ? n : 1) * sizeof(*tdarg));
    if (ints == NULL || tdist == NULL || tdarg == NULL) {
        rc = tn_mpi_err(NULL, MPI_ERR_NO_MEM, fn, NULL, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        tdist[i] = distribs[i] == MPI_DISTRIBUTE_NONE    ? TN_DT_DISTRIB_NONE
                   : distribs[i] == MPI_DISTRIBUTE_BLOCK ? TN_DT_DISTRIB_BLOCK
                                                         : TN_DT_DISTRIB_CYCLIC;
        tdarg[i] = dargs[i] == MPI_DISTRIBUTE_DFLT_DARG ? TN_DT_DARG_DEFAULT : dargs[i];
    }
    /* size, rank, ndims, [gsizes], distribs, dargs, psizes, order */
    ints[k++] = size;
    ints[k++] = rank;
    ints[k++] = ndims;
    for (size_t i = 0; !large && i < n; i++) {
        ints[k++] = (int)gsizes[i];
    }
    memcpy(ints + k, distribs, n * sizeof(int));
    memcpy(ints + k + n, dargs, n * sizeof(int));
    memcpy(ints + k + 2 * n, psizes, n * sizeof(int));
    ints[k + 3 * n] = order;
    st = tn_dt_create_darray(size, rank, ndims, gsizes, tdist, tdarg, psizes,
                             order == MPI_ORDER_FORTRAN, old, &dt);
    rc = new_array_type(fn, st, dt, MPI_COMBINER_DARRAY, large, ni, ints, large ? n : 0, gsizes,
                        old, newtype);
out:
    free(ints);
    free(tdist);
    free(tdarg);
    return rc;
}

static int darray_args(const char *fn, int ndims, const void *g, const void *d, const void *a,
                       const void *p)
{
    int rc;

    if (ndims < 0) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "ndims", "negative ndims %d", ndims);
    }
    if ((rc = array_arg(fn, g, ndims, "array_of_gsizes")) ||
        (rc = array_arg(fn, d, ndims, "array_of_distribs")) ||
        (rc = array_arg(fn, a, ndims, "array_of_dargs")) ||
        (rc = array_arg(fn, p, ndims, "array_of_psizes"))) {
        return rc;
    }
    return MPI_SUCCESS;
}

int tn_mpi_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[],
                              const int array_of_psizes[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_darray";
    int64_t *g;
    int rc;

    if ((rc = darray_args(fn, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                          array_of_psizes))) {
        return rc;
    }
    g = i64_from_int(array_of_gsizes, (size_t)ndims);
    if (g == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_NO_MEM, fn, NULL, "out of memory");
    }
    rc = type_darray(fn, 0, size, rank, ndims, g, array_of_distribs, array_of_dargs,
                     array_of_psizes, order, oldtype, newtype);
    free(g);
    return rc;
}

int tn_mpi_Type_create_darray_c(int size, int rank, int ndims,
                                const MPI_Count array_of_gsizes[], const int array_of_distribs[],
                                const int array_of_dargs[], const int array_of_psizes[],
                                int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_darray_c";
    int rc;

    if ((rc = darray_args(fn, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                          array_of_psizes))) {
        return rc;
    }
    return type_darray(fn, 1, size, rank, ndims, array_of_gsizes, array_of_distribs,
                       array_of_dargs, array_of_psizes, order, oldtype, newtype);
}

/* ---- envelope and contents ---------------------------------------------------------- */

/* The counts of a type's constructor arguments; large_api: the _c form. */
static int type_envelope(const char *fn, MPI_Datatype datatype, int large_api,
                         const void *ni_p, const void *na_p, const void *nl_p,
                         const void *nd_p, int *combiner, const tn_dt_contents_t **c_p)
{
    const tn_dt_t *dt = NULL;
    int rc;

    if ((rc = dt_arg(fn, datatype, &dt)) || (rc = out_arg(fn, ni_p, "num_integers")) ||
        (rc = out_arg(fn, na_p, "num_addresses")) ||
        (rc = out_arg(fn, nl_p, "num_large_counts")) ||
        (rc = out_arg(fn, nd_p, "num_datatypes")) || (rc = out_arg(fn, combiner, "combiner"))) {
        return rc;
    }
    if (dt->predefined || dt->contents == NULL) {
        *c_p = NULL;
        *combiner = MPI_COMBINER_NAMED;
        return MPI_SUCCESS;
    }
    if (!large_api && dt->contents->large) {
        return tn_mpi_err(NULL, MPI_ERR_TYPE, fn, "datatype",
                          "the type was made by a large-count constructor: its arguments "
                          "need the _c form");
    }
    *c_p = dt->contents;
    *combiner = dt->contents->combiner;
    return MPI_SUCCESS;
}

int tn_mpi_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                             int *num_datatypes, int *combiner)
{
    static const int unused = 0;
    const tn_dt_contents_t *c = NULL;
    int rc = type_envelope("MPI_Type_get_envelope", datatype, 0, num_integers, num_addresses,
                           &unused, num_datatypes, combiner, &c);

    if (rc == MPI_SUCCESS) {
        *num_integers = c != NULL ? (int)c->ni : 0;
        *num_addresses = c != NULL ? (int)c->na : 0;
        *num_datatypes = c != NULL ? (int)c->nd : 0;
    }
    return rc;
}

int tn_mpi_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                               MPI_Count *num_addresses, MPI_Count *num_large_counts,
                               MPI_Count *num_datatypes, int *combiner)
{
    const tn_dt_contents_t *c = NULL;
    int rc = type_envelope("MPI_Type_get_envelope_c", datatype, 1, num_integers, num_addresses,
                           num_large_counts, num_datatypes, combiner, &c);

    if (rc == MPI_SUCCESS) {
        *num_integers = c != NULL ? (MPI_Count)c->ni : 0;
        *num_addresses = c != NULL ? (MPI_Count)c->na : 0;
        *num_large_counts = c != NULL ? (MPI_Count)c->nl : 0;
        *num_datatypes = c != NULL ? (MPI_Count)c->nd : 0;
    }
    return rc;
}

/* One output array of get_contents: room and pointer. */
static int contents_room(const char *fn, int64_t max, size_t need, const void *a,
                         const char *maxarg, const char *arg)
{
    if (max < 0 || (uint64_t)max < need) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, maxarg, "%lld is less than the %zu needed",
                          (long long)max, need);
    }
    return array_arg(fn, a, (int64_t)need, arg);
}

static int type_get_contents(const char *fn, int large_api, MPI_Datatype datatype, int64_t mi,
                             int64_t ma, int64_t ml, int64_t md, int ints[], MPI_Aint addrs[],
                             MPI_Count larges[], MPI_Datatype types[])
{
    static const int64_t unused_i = 0, unused_a = 0, unused_l = 0, unused_d = 0;
    const tn_dt_contents_t *c = NULL;
    int combiner, rc;

    rc = type_envelope(fn, datatype, large_api, &unused_i, &unused_a, &unused_l, &unused_d,
                       &combiner, &c);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (c == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_TYPE, fn, "datatype",
                          "a predefined datatype has no contents (MPI_COMBINER_NAMED)");
    }
    if ((rc = contents_room(fn, mi, c->ni, ints, "max_integers", "array_of_integers")) ||
        (rc = contents_room(fn, ma, c->na, addrs, "max_addresses", "array_of_addresses")) ||
        (large_api &&
         (rc = contents_room(fn, ml, c->nl, larges, "max_large_counts",
                             "array_of_large_counts"))) ||
        (rc = contents_room(fn, md, c->nd, types, "max_datatypes", "array_of_datatypes"))) {
        return rc;
    }
    for (size_t i = 0; i < c->ni; i++) {
        ints[i] = c->ints[i];
    }
    for (size_t i = 0; i < c->na; i++) {
        addrs[i] = (MPI_Aint)c->addrs[i];
    }
    for (size_t i = 0; i < c->nl; i++) {
        larges[i] = c->larges[i];
    }
    /* derived types come back as new references the caller frees (not the
     * f90 ones, which the caller must not free) */
    for (size_t i = 0; i < c->nd; i++) {
        if (!tn_mpi_dt_is_f90(c->types[i])) {
            tn_dt_retain(c->types[i]);
        }
        types[i] = tn_mpi_dt_handle(c->types[i]);
    }
    return MPI_SUCCESS;
}

int tn_mpi_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                             int max_datatypes, int array_of_integers[],
                             MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    return type_get_contents("MPI_Type_get_contents", 0, datatype, max_integers, max_addresses,
                             0, max_datatypes, array_of_integers, array_of_addresses, NULL,
                             array_of_datatypes);
}

int tn_mpi_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
                               MPI_Count max_addresses, MPI_Count max_large_counts,
                               MPI_Count max_datatypes, int array_of_integers[],
                               MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                               MPI_Datatype array_of_datatypes[])
{
    return type_get_contents("MPI_Type_get_contents_c", 1, datatype, max_integers,
                             max_addresses, max_large_counts, max_datatypes, array_of_integers,
                             array_of_addresses, array_of_large_counts, array_of_datatypes);
}

/* ---- match_size, get_value_index ----------------------------------------------------- */

/* The Fortran sized types of each class, as the standard's match_size
 * describes (a type of the class with that many bytes). */
int tn_mpi_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    static const char fn[] = "MPI_Type_match_size";
    static const struct {
        int          cls;
        MPI_Datatype h;
    } cand[] = {
        { MPI_TYPECLASS_INTEGER, MPI_INTEGER1 }, { MPI_TYPECLASS_INTEGER, MPI_INTEGER2 },
        { MPI_TYPECLASS_INTEGER, MPI_INTEGER4 }, { MPI_TYPECLASS_INTEGER, MPI_INTEGER8 },
        { MPI_TYPECLASS_INTEGER, MPI_INTEGER16 },
        { MPI_TYPECLASS_REAL, MPI_REAL2 },       { MPI_TYPECLASS_REAL, MPI_REAL4 },
        { MPI_TYPECLASS_REAL, MPI_REAL8 },       { MPI_TYPECLASS_REAL, MPI_REAL16 },
        { MPI_TYPECLASS_COMPLEX, MPI_COMPLEX4 }, { MPI_TYPECLASS_COMPLEX, MPI_COMPLEX8 },
        { MPI_TYPECLASS_COMPLEX, MPI_COMPLEX16 }, { MPI_TYPECLASS_COMPLEX, MPI_COMPLEX32 },
    };
    int rc;

    if ((rc = out_arg(fn, datatype, "datatype"))) {
        return rc;
    }
    if (typeclass != MPI_TYPECLASS_INTEGER && typeclass != MPI_TYPECLASS_REAL &&
        typeclass != MPI_TYPECLASS_COMPLEX) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "typeclass", "%d is not a type class",
                          typeclass);
    }
    for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) {
        const tn_dt_t *dt = dt_lookup(cand[i].h);
        if (cand[i].cls == typeclass && dt != NULL && dt->size == (size_t)size) {
            *datatype = cand[i].h;
            return MPI_SUCCESS;
        }
    }
    return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "size", "no %s type has %d bytes",
                      typeclass == MPI_TYPECLASS_INTEGER ? "integer"
                      : typeclass == MPI_TYPECLASS_REAL  ? "real"
                                                         : "complex",
                      size);
}

/* The predefined pair type for (value, index), MPI_DATATYPE_NULL if there
 * is none. */
int tn_mpi_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                                MPI_Datatype *pair_type)
{
    static const char fn[] = "MPI_Type_get_value_index";
    static const struct {
        MPI_Datatype v, i, pair;
    } pairs[] = {
        { MPI_FLOAT, MPI_INT, MPI_FLOAT_INT },
        { MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT },
        { MPI_LONG, MPI_INT, MPI_LONG_INT },
        { MPI_INT, MPI_INT, MPI_2INT },
        { MPI_SHORT, MPI_INT, MPI_SHORT_INT },
        { MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT },
        { MPI_REAL, MPI_REAL, MPI_2REAL },
        { MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION },
        { MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER },
    };
    const tn_dt_t *v = NULL, *ix = NULL;
    int rc;

    if ((rc = dt_arg_named(fn, value_type, "value_type", &v)) ||
        (rc = dt_arg_named(fn, index_type, "index_type", &ix)) ||
        (rc = out_arg(fn, pair_type, "pair_type"))) {
        return rc;
    }
    *pair_type = MPI_DATATYPE_NULL;
    for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++) {
        if (dt_lookup(pairs[k].v) == v && dt_lookup(pairs[k].i) == ix) {
            *pair_type = pairs[k].pair;
            break;
        }
    }
    return MPI_SUCCESS;
}
