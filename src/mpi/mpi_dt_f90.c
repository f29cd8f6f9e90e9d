/* MPI_Type_create_f90_integer / _real / _complex.
 *
 * The standard asks for the predefined type that matches a Fortran variable
 * of KIND selected_int_kind(r) / selected_real_kind(p, r), yet
 * MPI_Type_get_envelope must report MPI_COMBINER_F90_* and get_contents the
 * (p, r) the user asked for.  So each distinct (combiner, p, r) gets one
 * object: a duplicate of the matching sized type (INTEGERn, REALn,
 * COMPLEXn; same layout, same basic type, so reductions and communication
 * treat it as that type), made on first use and kept until the process
 * ends.  Such a type behaves as predefined: MPI_Type_free refuses it and
 * get_contents hands it out without a new reference (tn_mpi_dt_is_f90).
 *
 * The kinds are those of gfortran on the platforms Tern runs on:
 * integers of 1, 2, 4, 8, 16 bytes with decimal ranges 2, 4, 9, 18, 38;
 * reals of 4, 8, 16 bytes with precision/range (6, 37), (15, 307),
 * (33, 4931).  The 10-byte x87 real has no MPI type and is left out.
 * MPI_UNDEFINED for p or r means "no requirement"; no fitting kind is
 * MPI_ERR_ARG. */
#include "mpi/mpi_impl.h"

#include <stdlib.h>

typedef struct f90_kind {
    int          p, r;    /* precision (0 for integers) and decimal range */
    MPI_Datatype h;       /* the sized type */
} f90_kind_t;

static const f90_kind_t f90_ints[] = {
    { 0, 2, MPI_INTEGER1 }, { 0, 4, MPI_INTEGER2 }, { 0, 9, MPI_INTEGER4 },
    { 0, 18, MPI_INTEGER8 }, { 0, 38, MPI_INTEGER16 },
};
static const f90_kind_t f90_reals[] = {
    { 6, 37, MPI_REAL4 }, { 15, 307, MPI_REAL8 }, { 33, 4931, MPI_REAL16 },
};
static const f90_kind_t f90_complexes[] = {
    { 6, 37, MPI_COMPLEX8 }, { 15, 307, MPI_COMPLEX16 }, { 33, 4931, MPI_COMPLEX32 },
};

/* The types handed out so far (under the runtime lock; never freed). */
typedef struct f90_type {
    struct f90_type *next;
    int              combiner, p, r;
    tn_dt_t         *dt;
} f90_type_t;

static f90_type_t *f90_cache;

/* The (p, r) argument: MPI_UNDEFINED is no requirement (0). */
static int f90_param(const char *fn, int v, const char *arg, int *out_p)
{
    if (v == MPI_UNDEFINED) {
        *out_p = 0;
        return MPI_SUCCESS;
    }
    if (v < 0) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, arg, "%d is negative", v);
    }
    *out_p = v;
    return MPI_SUCCESS;
}

static int f90_type(const char *fn, int combiner, int p_arg, int r_arg, const f90_kind_t *kinds,
                    size_t nkinds, MPI_Datatype *newtype)
{
    const f90_kind_t *k = NULL;
    const tn_dt_t *base;
    f90_type_t *e;
    tn_dt_t *dt = NULL;
    tn_status_t st;
    int p = 0, r = 0, rc;
    int ints[2];
    tn_dt_contents_t c = { .combiner = combiner, .ints = ints };

    if ((combiner != MPI_COMBINER_F90_INTEGER && (rc = f90_param(fn, p_arg, "p", &p))) ||
        (rc = f90_param(fn, r_arg, "r", &r))) {
        return rc;
    }
    if (combiner != MPI_COMBINER_F90_INTEGER && p_arg == MPI_UNDEFINED && r_arg == MPI_UNDEFINED) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "p", "p and r are both MPI_UNDEFINED");
    }
    if (newtype == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "newtype", "NULL output pointer");
    }
    for (size_t i = 0; i < nkinds && k == NULL; i++) {
        if (kinds[i].p >= p && kinds[i].r >= r) {
            k = &kinds[i];
        }
    }
    base = k != NULL ? tn_mpi_dt_lookup(k->h) : NULL;
    if (base == NULL) {
        if (combiner == MPI_COMBINER_F90_INTEGER) {
            return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "r",
                              "no integer kind has a decimal range of %d", r_arg);
        }
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "p",
                          "no %s kind has precision %d and decimal range %d",
                          combiner == MPI_COMBINER_F90_REAL ? "real" : "complex", p_arg, r_arg);
    }

    tn_mpi_enter();
    for (e = f90_cache; e != NULL; e = e->next) {
        if (e->combiner == combiner && e->p == p_arg && e->r == r_arg) {
            break;
        }
    }
    if (e != NULL) {
        tn_mpi_leave();
        *newtype = tn_mpi_dt_handle(e->dt);
        return MPI_SUCCESS;
    }
    /* the arguments as given (MPI_UNDEFINED stays MPI_UNDEFINED) */
    if (combiner == MPI_COMBINER_F90_INTEGER) {
        ints[0] = r_arg;
        c.ni = 1;
    } else {
        ints[0] = p_arg;
        ints[1] = r_arg;
        c.ni = 2;
    }
    e = malloc(sizeof(*e));
    st = e != NULL ? tn_dt_create_dup(base, &dt) : TN_ERR_NOMEM;
    if (st == TN_OK) {
        dt->combiner = combiner;
        st = tn_dt_set_contents(dt, &c);
    }
    if (st != TN_OK) {
        goto err_build;
    }
    tn_dt_commit(dt);
    *e = (f90_type_t){ .next = f90_cache, .combiner = combiner, .p = p_arg, .r = r_arg,
                       .dt = dt };
    f90_cache = e;
    tn_mpi_leave();
    *newtype = tn_mpi_dt_handle(dt);
    return MPI_SUCCESS;

err_build:
    if (dt != NULL) {
        tn_dt_release(dt);
    }
    free(e);
    tn_mpi_leave();
    return tn_mpi_err(NULL, tn_mpi_class_of(st), fn, NULL, "cannot build the datatype: %s",
                      tn_status_str(st));
}

int tn_mpi_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    return f90_type("MPI_Type_create_f90_integer", MPI_COMBINER_F90_INTEGER, 0, r, f90_ints,
                    sizeof(f90_ints) / sizeof(f90_ints[0]), newtype);
}

int tn_mpi_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    return f90_type("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, p, r, f90_reals,
                    sizeof(f90_reals) / sizeof(f90_reals[0]), newtype);
}

int tn_mpi_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    return f90_type("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX, p, r,
                    f90_complexes, sizeof(f90_complexes) / sizeof(f90_complexes[0]), newtype);
}
