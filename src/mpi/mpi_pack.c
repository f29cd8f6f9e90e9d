/* MPI_Pack / MPI_Unpack / MPI_Pack_size and the "external32" forms.
 *
 * The native packed form is the datatype layer's packed stream (the data
 * bytes of each element in type-map order, no header), so MPI_PACKED data
 * made here can be sent, received as MPI_PACKED and unpacked, or received
 * straight into the original type.  external32 is the standard's portable
 * form (src/dt/dt_ext32.c).
 *
 * A buffer too small for what is packed or unpacked is MPI_ERR_TRUNCATE; a
 * size that an int cannot hold is MPI_ERR_VALUE_TOO_LARGE.  The external
 * forms need no communicator and work outside Init/Finalize. */
#include "mpi/mpi_impl.h"

#include <limits.h>
#include <string.h>

/* The datatype of a pack call: it must be committed. */
static int pack_dt_arg(const char *fn, tn_comm_t *c, MPI_Datatype h, const tn_dt_t **dt_p)
{
    uintptr_t v = tn_mpi_hval(h);

    if (tn_mpi_dt_get(h) == NULL && v >= TN_MPI_HANDLE_MAX_PREDEF &&
        tn_objreg_has((const void *)h, TN_OBJ_DT) &&
        ((const tn_dt_t *)(const void *)h)->magic == TN_DT_MAGIC) {
        return tn_mpi_err(c, MPI_ERR_TYPE, fn, "datatype",
                          "the datatype is not committed (MPI_Type_commit)");
    }
    return tn_mpi_check_dt(fn, c, h, "datatype", dt_p);
}

static int position_arg(const char *fn, tn_comm_t *c, const void *position, int64_t pos,
                        int64_t limit, const char *limit_arg)
{
    if (position == NULL) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, "position", "NULL pointer");
    }
    if (pos < 0 || pos > limit) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, "position", "%lld is not in [0, %s = %lld]",
                          (long long)pos, limit_arg, (long long)limit);
    }
    return MPI_SUCCESS;
}

/* Bytes for count elements of size each, or -1 when they overflow. */
static int64_t stream_bytes(int64_t count, size_t size)
{
    uint64_t b;

    if (__builtin_mul_overflow((uint64_t)count, (uint64_t)size, &b) || b > INT64_MAX) {
        return -1;
    }
    return (int64_t)b;
}

/* Room for bytes more at pos in a buffer of limit bytes. */
static int room_arg(const char *fn, tn_comm_t *c, int64_t pos, int64_t bytes, int64_t limit,
                    const char *what)
{
    if (bytes < 0 || bytes > limit - pos) {
        return tn_mpi_err(c, MPI_ERR_TRUNCATE, fn, what,
                          "%lld bytes do not fit at position %lld of %lld",
                          (long long)bytes, (long long)pos, (long long)limit);
    }
    return MPI_SUCCESS;
}

/* ---- native --------------------------------------------------------------- */

static int pack(const char *fn, const void *inbuf, int64_t incount, MPI_Datatype datatype,
                void *outbuf, int64_t outsize, int64_t *pos, const void *position,
                MPI_Comm comm)
{
    const tn_dt_t *dt = NULL;
    tn_comm_t *c = NULL;
    int64_t bytes;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) ||
        (rc = tn_mpi_check_count(fn, c, incount, "incount")) ||
        (rc = pack_dt_arg(fn, c, datatype, &dt)) ||
        (rc = tn_mpi_check_count(fn, c, outsize, "outsize")) ||
        (rc = position_arg(fn, c, position, *pos, outsize, "outsize"))) {
        return rc;
    }
    bytes = stream_bytes(incount, dt->size);
    if ((rc = room_arg(fn, c, *pos, bytes, outsize, "outsize"))) {
        return rc;
    }
    if (bytes > 0 && outbuf == NULL) {
        return tn_mpi_err(c, MPI_ERR_BUFFER, fn, "outbuf", "NULL buffer");
    }
    tn_dt_pack(dt, inbuf, (size_t)incount, (char *)outbuf + *pos);
    *pos += bytes;
    return MPI_SUCCESS;
}

int tn_mpi_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
                int outsize, int *position, MPI_Comm comm)
{
    int64_t pos = position != NULL ? *position : 0;
    int rc = pack("MPI_Pack", inbuf, incount, datatype, outbuf, outsize, &pos, position, comm);

    if (rc == MPI_SUCCESS) {
        *position = (int)pos;      /* <= outsize: fits */
    }
    return rc;
}

int tn_mpi_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                  MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    int64_t pos = position != NULL ? *position : 0;
    int rc = pack("MPI_Pack_c", inbuf, incount, datatype, outbuf, outsize, &pos, position, comm);

    if (rc == MPI_SUCCESS) {
        *position = pos;
    }
    return rc;
}

static int unpack(const char *fn, const void *inbuf, int64_t insize, int64_t *pos,
                  const void *position, void *outbuf, int64_t outcount, MPI_Datatype datatype,
                  MPI_Comm comm)
{
    const tn_dt_t *dt = NULL;
    tn_comm_t *c = NULL;
    int64_t bytes;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) ||
        (rc = tn_mpi_check_count(fn, c, outcount, "outcount")) ||
        (rc = pack_dt_arg(fn, c, datatype, &dt)) ||
        (rc = tn_mpi_check_count(fn, c, insize, "insize")) ||
        (rc = position_arg(fn, c, position, *pos, insize, "insize"))) {
        return rc;
    }
    bytes = stream_bytes(outcount, dt->size);
    if ((rc = room_arg(fn, c, *pos, bytes, insize, "insize"))) {
        return rc;
    }
    if (bytes > 0 && inbuf == NULL) {
        return tn_mpi_err(c, MPI_ERR_BUFFER, fn, "inbuf", "NULL buffer");
    }
    tn_dt_unpack(dt, (const char *)inbuf + *pos, (size_t)outcount, outbuf);
    *pos += bytes;
    return MPI_SUCCESS;
}

int tn_mpi_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                  MPI_Datatype datatype, MPI_Comm comm)
{
    int64_t pos = position != NULL ? *position : 0;
    int rc = unpack("MPI_Unpack", inbuf, insize, &pos, position, outbuf, outcount, datatype,
                    comm);

    if (rc == MPI_SUCCESS) {
        *position = (int)pos;
    }
    return rc;
}

int tn_mpi_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                    MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    int64_t pos = position != NULL ? *position : 0;
    int rc = unpack("MPI_Unpack_c", inbuf, insize, &pos, position, outbuf, outcount, datatype,
                    comm);

    if (rc == MPI_SUCCESS) {
        *position = pos;
    }
    return rc;
}

static int pack_size(const char *fn, int64_t incount, MPI_Datatype datatype, MPI_Comm comm,
                     const void *size, int64_t *bytes_p)
{
    const tn_dt_t *dt = NULL;
    tn_comm_t *c = NULL;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) ||
        (rc = tn_mpi_check_count(fn, c, incount, "incount")) ||
        (rc = pack_dt_arg(fn, c, datatype, &dt))) {
        return rc;
    }
    if (size == NULL) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, "size", "NULL output pointer");
    }
    *bytes_p = stream_bytes(incount, dt->size);
    if (*bytes_p < 0) {
        return tn_mpi_err(c, MPI_ERR_VALUE_TOO_LARGE, fn, "size", "the size overflows");
    }
    return MPI_SUCCESS;
}

int tn_mpi_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    static const char fn[] = "MPI_Pack_size";
    int64_t bytes = 0;
    int rc = pack_size(fn, incount, datatype, comm, size, &bytes);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (bytes > INT_MAX) {
        return tn_mpi_err(NULL, MPI_ERR_VALUE_TOO_LARGE, fn, "size",
                          "%lld bytes do not fit an int (use MPI_Pack_size_c)", (long long)bytes);
    }
    *size = (int)bytes;
    return MPI_SUCCESS;
}

int tn_mpi_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
                       MPI_Count *size)
{
    int64_t bytes;
    int rc = pack_size("MPI_Pack_size_c", incount, datatype, comm, size, &bytes);

    if (rc == MPI_SUCCESS) {
        *size = bytes;
    }
    return rc;
}

/* ---- external32 ---------------------------------------------------------- */

static int datarep_arg(const char *fn, const char *datarep)
{
    if (datarep == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "datarep", "NULL string");
    }
    if (strcmp(datarep, "external32") != 0) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "datarep",
                          "\"%.64s\" is not a data representation (only \"external32\")",
                          datarep);
    }
    return MPI_SUCCESS;
}

static int pack_external(const char *fn, const char *datarep, const void *inbuf,
                         int64_t incount, MPI_Datatype datatype, void *outbuf, int64_t outsize,
                         int64_t *pos, const void *position)
{
    const tn_dt_t *dt = NULL;
    int64_t bytes;
    tn_status_t st;
    int rc;

    if ((rc = datarep_arg(fn, datarep)) ||
        (rc = tn_mpi_check_count(fn, NULL, incount, "incount")) ||
        (rc = pack_dt_arg(fn, NULL, datatype, &dt)) ||
        (rc = tn_mpi_check_count(fn, NULL, outsize, "outsize")) ||
        (rc = position_arg(fn, NULL, position, *pos, outsize, "outsize"))) {
        return rc;
    }
    bytes = stream_bytes(incount, tn_dt_ext32_size(dt));
    if ((rc = room_arg(fn, NULL, *pos, bytes, outsize, "outsize"))) {
        return rc;
    }
    if (bytes > 0 && outbuf == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_BUFFER, fn, "outbuf", "NULL buffer");
    }
    st = tn_dt_pack_ext32(dt, inbuf, (size_t)incount, (char *)outbuf + *pos);
    if (st != TN_OK) {
        return tn_mpi_err_status(NULL, st, fn);
    }
    *pos += bytes;
    return MPI_SUCCESS;
}

int tn_mpi_Pack_external(const char *datarep, const void *inbuf, int incount,
                         MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
                         MPI_Aint *position)
{
    int64_t pos = position != NULL ? *position : 0;
    int rc = pack_external("MPI_Pack_external", datarep, inbuf, incount, datatype, outbuf,
                           outsize, &pos, position);

    if (rc == MPI_SUCCESS) {
        *position = (MPI_Aint)pos;
    }
    return rc;
}

int tn_mpi_Pack_external_c(const char *datarep, const void *inbuf, MPI_Count incount,
                           MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                           MPI_Count *position)
{
    int64_t pos = position != NULL ? *position : 0;
    int rc = pack_external("MPI_Pack_external_c", datarep, inbuf, incount, datatype, outbuf,
                           outsize, &pos, position);

    if (rc == MPI_SUCCESS) {
        *position = pos;
    }
    return rc;
}

static int unpack_external(const char *fn, const char *datarep, const void *inbuf,
                           int64_t insize, int64_t *pos, const void *position, void *outbuf,
                           int64_t outcount, MPI_Datatype datatype)
{
    const tn_dt_t *dt = NULL;
    int64_t bytes;
    tn_status_t st;
    int rc;

    if ((rc = datarep_arg(fn, datarep)) ||
        (rc = tn_mpi_check_count(fn, NULL, outcount, "outcount")) ||
        (rc = pack_dt_arg(fn, NULL, datatype, &dt)) ||
        (rc = tn_mpi_check_count(fn, NULL, insize, "insize")) ||
        (rc = position_arg(fn, NULL, position, *pos, insize, "insize"))) {
        return rc;
    }
    bytes = stream_bytes(outcount, tn_dt_ext32_size(dt));
    if ((rc = room_arg(fn, NULL, *pos, bytes, insize, "insize"))) {
        return rc;
    }
    if (bytes > 0 && inbuf == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_BUFFER, fn, "inbuf", "NULL buffer");
    }
    st = tn_dt_unpack_ext32(dt, (const char *)inbuf + *pos, (size_t)outcount, outbuf);
    if (st != TN_OK) {
        return tn_mpi_err_status(NULL, st, fn);
    }
    *pos += bytes;
    return MPI_SUCCESS;
}

int tn_mpi_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                           MPI_Aint *position, void *outbuf, int outcount,
                           MPI_Datatype datatype)
{
    int64_t pos = position != NULL ? *position : 0;
    int rc = unpack_external("MPI_Unpack_external", datarep, inbuf, insize, &pos, position,
                             outbuf, outcount, datatype);

    if (rc == MPI_SUCCESS) {
        *position = (MPI_Aint)pos;
    }
    return rc;
}

int tn_mpi_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,
                             MPI_Count *position, void *outbuf, MPI_Count outcount,
                             MPI_Datatype datatype)
{
    int64_t pos = position != NULL ? *position : 0;
    int rc = unpack_external("MPI_Unpack_external_c", datarep, inbuf, insize, &pos, position,
                             outbuf, outcount, datatype);

    if (rc == MPI_SUCCESS) {
        *position = pos;
    }
    return rc;
}

static int pack_external_size(const char *fn, const char *datarep, int64_t incount,
                              MPI_Datatype datatype, const void *size, int64_t *bytes_p)
{
    const tn_dt_t *dt = NULL;
    int rc;

    if ((rc = datarep_arg(fn, datarep)) ||
        (rc = tn_mpi_check_count(fn, NULL, incount, "incount")) ||
        (rc = pack_dt_arg(fn, NULL, datatype, &dt))) {
        return rc;
    }
    if (size == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "size", "NULL output pointer");
    }
    *bytes_p = stream_bytes(incount, tn_dt_ext32_size(dt));
    if (*bytes_p < 0) {
        return tn_mpi_err(NULL, MPI_ERR_VALUE_TOO_LARGE, fn, "size", "the size overflows");
    }
    return MPI_SUCCESS;
}

int tn_mpi_Pack_external_size(const char *datarep, int incount, MPI_Datatype datatype,
                              MPI_Aint *size)
{
    int64_t bytes;
    int rc = pack_external_size("MPI_Pack_external_size", datarep, incount, datatype, size,
                                &bytes);

    if (rc == MPI_SUCCESS) {
        *size = (MPI_Aint)bytes;
    }
    return rc;
}

int tn_mpi_Pack_external_size_c(const char *datarep, MPI_Count incount, MPI_Datatype datatype,
                                MPI_Count *size)
{
    int64_t bytes;
    int rc = pack_external_size("MPI_Pack_external_size_c", datarep, incount, datatype, size,
                                &bytes);

    if (rc == MPI_SUCCESS) {
        *size = bytes;
    }
    return rc;
}
