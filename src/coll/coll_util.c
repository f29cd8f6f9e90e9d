/* Helpers shared by the collective algorithms. */
#include "coll/coll_util.h"

/* MPI_BYTE in the standard ABI. */
#define TN_ABI_MPI_BYTE 0x247u

const tn_dt_t *tn_coll_byte_dt(void)
{
    static const tn_dt_t *byte_dt;

    if (byte_dt == NULL) {
        byte_dt = tn_dt_predefined(TN_ABI_MPI_BYTE);
    }
    return byte_dt;
}

tn_status_t tn_coll_copy(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                         void *rbuf, size_t rcount, const tn_dt_t *rdt, tn_comm_t *comm)
{
    size_t sbytes = tn_dt_bytes(sdt, scount);

    if (sbytes == 0) {
        return TN_OK;
    }
    if (sbytes > tn_dt_bytes(rdt, rcount)) {
        return TN_ERR_TRUNCATE;
    }
    if (sdt == rdt) {
        memmove(rbuf, sbuf, tn_coll_span(sdt, scount));
        return TN_OK;
    }
    if (sdt->is_contig && rdt->is_contig) {
        memmove(rbuf, sbuf, sbytes);
        return TN_OK;
    }
    /* Different layouts (a pair type with holes against bytes): let the
     * messaging layer pack and unpack through a message to myself. */
    return tn_p2p_sendrecv(sbuf, scount, sdt, comm->rank, TN_COLL_TAG_COPY,
                           rbuf, rcount, rdt, comm->rank, TN_COLL_TAG_COPY,
                           comm, 1, NULL);
}
