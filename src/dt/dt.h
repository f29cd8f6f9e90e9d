/* Datatypes.
 *
 * A tn_dt_t describes an MPI datatype.  Predefined types live in a static
 * table indexed by the low byte of their ABI handle (0x200..0x2ff); derived
 * types are heap objects (later issue).  This issue supports predefined types
 * only.  is_contig != 0 means "count elements occupy count*size bytes starting
 * at the buffer" (size == extent, no holes).  The pair types whose C struct
 * has padding (MPI_SHORT_INT, MPI_DOUBLE_INT, MPI_LONG_INT,
 * MPI_LONG_DOUBLE_INT on x86-64) are not contiguous: element i lies at
 * buf + i*extent and only size bytes of it are data; move them with
 * tn_dt_pack/tn_dt_unpack.
 *
 * Ownership: predefined objects are never freed. */
#ifndef TN_DT_DT_H
#define TN_DT_DT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "base/status.h"

#define TN_DT_MAGIC 0x54445459u      /* "TDTY" */
#define TN_DT_COMBINER_NAMED 101     /* MPI_COMBINER_NAMED (ABI value) */

/* Element kinds, the unit reductions work on. */
typedef enum {
    TN_DK_NONE = 0,          /* not reducible (MPI_PACKED, MPI_CHARACTER, ...) */
    TN_DK_CHAR,              /* MPI_CHAR: character, not arithmetic */
    TN_DK_WCHAR,
    TN_DK_BYTE,
    TN_DK_INT8, TN_DK_INT16, TN_DK_INT32, TN_DK_INT64,
    TN_DK_UINT8, TN_DK_UINT16, TN_DK_UINT32, TN_DK_UINT64,
    TN_DK_FLOAT, TN_DK_DOUBLE, TN_DK_LONG_DOUBLE,
    TN_DK_C_FLOAT_COMPLEX, TN_DK_C_DOUBLE_COMPLEX, TN_DK_C_LONG_DOUBLE_COMPLEX,
    TN_DK_BOOL,              /* C _Bool / C++ bool (1 byte) */
    TN_DK_FLOGICAL4,         /* Fortran LOGICAL of 1/2/4/8 bytes */
    TN_DK_FLOGICAL1, TN_DK_FLOGICAL2, TN_DK_FLOGICAL8,
    /* pair types for MINLOC/MAXLOC */
    TN_DK_FLOAT_INT, TN_DK_DOUBLE_INT, TN_DK_LONG_INT, TN_DK_2INT,
    TN_DK_SHORT_INT, TN_DK_LONG_DOUBLE_INT, TN_DK_2FLOAT, TN_DK_2DOUBLE,
    TN_DK_2INT32F,           /* MPI_2INTEGER: pair of Fortran INTEGER */
    TN_DK_COUNT_
} tn_dt_kind_t;

/* Categories of the MPI standard (section "Predefined Reduction Operations"),
 * as bits, so that an op can say which it accepts. */
enum {
    TN_DC_C_INT      = 1 << 0,
    TN_DC_F_INT      = 1 << 1,
    TN_DC_FLOAT      = 1 << 2,
    TN_DC_LOGICAL    = 1 << 3,
    TN_DC_COMPLEX    = 1 << 4,
    TN_DC_BYTE       = 1 << 5,
    TN_DC_MULTI_LANG = 1 << 6,   /* MPI_AINT, MPI_OFFSET, MPI_COUNT */
    TN_DC_PAIR       = 1 << 7,
};

typedef struct tn_dt {
    uint32_t      magic;
    int           predefined;     /* 1 for the static table */
    uintptr_t     handle;         /* ABI handle value for predefined types */
    const char   *name;           /* standard name, "MPI_INT" */
    size_t        size;           /* bytes of data in one element */
    ptrdiff_t     lb, extent;
    ptrdiff_t     true_lb, true_extent;
    int           is_contig;
    tn_dt_kind_t  kind;           /* element kind (predefined) */
    unsigned      category;       /* TN_DC_* bits */
    int           combiner;       /* MPI_COMBINER_NAMED for predefined */
    char          user_name[128]; /* set by MPI_Type_set_name ("" = default) */
} tn_dt_t;

/* The predefined type for an ABI handle value, or NULL. */
const tn_dt_t *tn_dt_predefined(uintptr_t handle);
/* Number of valid predefined types and iteration over them (for tests). */
int tn_dt_predefined_count(void);
const tn_dt_t *tn_dt_predefined_at(int i);

/* Copy the data bytes (size per element, holes skipped) of count elements
 * at buf to/from a packed contiguous buffer: element i lies at buf + i*extent,
 * the packed form is count*size bytes.  unpack writes only the data bytes of
 * buf, never its padding.  The buffers must not overlap; contiguous types
 * are one memcpy. */
void tn_dt_pack(const tn_dt_t *dt, const void *buf, size_t count, void *out);
void tn_dt_unpack(const tn_dt_t *dt, const void *in, size_t count, void *buf);

/* Byte size of count elements. */
static inline size_t tn_dt_bytes(const tn_dt_t *dt, size_t count)
{
    return dt->size * count;
}

#endif
