/* MPI intercommunicator functions: Intercomm_create, Intercomm_merge,
 * Comm_remote_size, Comm_remote_group, Comm_get_parent, and the check that
 * rejects an intercommunicator where an intracommunicator is needed. */
#include "mpi/mpi_impl.h"
#include "mpi/mpi_trace.h"

int tn_mpi_check_intra_slow(const char *fn, tn_comm_t *c, const char *arg)
{
    return tn_mpi_err(c, MPI_ERR_COMM, fn, arg,
                      "%s is an intercommunicator; an intracommunicator is required",
                      c->name[0] ? c->name : "the communicator");
}

static int check_inter(const char *fn, tn_comm_t *c, const char *arg)
{
    if (c->remote == NULL) {
        return tn_mpi_err(c, MPI_ERR_COMM, fn, arg,
                          "%s is an intracommunicator; an intercommunicator is required",
                          c->name[0] ? c->name : "the communicator");
    }
    return MPI_SUCCESS;
}

static int out_arg(const char *fn, tn_comm_t *c, const void *p, const char *arg)
{
    if (p == NULL) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, arg, "output argument is NULL");
    }
    return MPI_SUCCESS;
}

int tn_mpi_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                            int remote_leader, int tag, MPI_Comm *newintercomm)
{
    static const char fn[] = "MPI_Intercomm_create";
    tn_comm_t *c = NULL, *p = NULL, *nc = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, local_comm, &c)) ||
        (rc = tn_mpi_check_intra(fn, c, "local_comm")) ||
        (rc = out_arg(fn, c, newintercomm, "newintercomm")) ||
        (rc = tn_mpi_check_rank(fn, c, local_leader, "local_leader", 0)) ||
        (rc = tn_mpi_check_tag(fn, c, tag, 0))) {
        return rc;
    }
    if (c->rank == local_leader) {
        /* peer_comm and remote_leader are significant at the leader only */
        if ((rc = tn_mpi_check_comm(fn, peer_comm, &p)) ||
            (rc = tn_mpi_check_intra(fn, p, "peer_comm")) ||
            (rc = tn_mpi_check_rank(fn, p, remote_leader, "remote_leader", 0))) {
            return rc;
        }
        if (tn_group_rank_of_world(c->group, tn_comm_world_rank(p, remote_leader)) !=
            MPI_UNDEFINED) {
            return tn_mpi_err(c, MPI_ERR_RANK, fn, "remote_leader",
                              "rank %d of peer_comm is a member of local_comm", remote_leader);
        }
    }
    tn_mpi_enter();
    st = tn_comm_intercomm_create(c, local_leader, p, remote_leader, tag, &nc);
    tn_mpi_leave();
    if (st != TN_OK) {
        return tn_mpi_err_status(c, st, fn);
    }
    *newintercomm = tn_mpi_comm_handle(nc);
    TN_MPI_TRACE(tn_mpi_trace_newcomm_(nc));
    return MPI_SUCCESS;
}

int tn_mpi_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    static const char fn[] = "MPI_Intercomm_merge";
    tn_comm_t *c = NULL, *nc = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, intercomm, &c)) ||
        (rc = check_inter(fn, c, "intercomm")) ||
        (rc = out_arg(fn, c, newintracomm, "newintracomm"))) {
        return rc;
    }
    tn_mpi_enter();
    st = tn_comm_intercomm_merge(c, high, &nc);
    tn_mpi_leave();
    if (st != TN_OK) {
        return tn_mpi_err_status(c, st, fn);
    }
    *newintracomm = tn_mpi_comm_handle(nc);
    TN_MPI_TRACE(tn_mpi_trace_newcomm_(nc));
    return MPI_SUCCESS;
}

int tn_mpi_Comm_remote_size(MPI_Comm comm, int *size)
{
    static const char fn[] = "MPI_Comm_remote_size";
    tn_comm_t *c = NULL;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = check_inter(fn, c, "comm")) ||
        (rc = out_arg(fn, c, size, "size"))) {
        return rc;
    }
    *size = c->remote->size;
    return MPI_SUCCESS;
}

int tn_mpi_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    static const char fn[] = "MPI_Comm_remote_group";
    tn_comm_t *c = NULL;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = check_inter(fn, c, "comm")) ||
        (rc = out_arg(fn, c, group, "group"))) {
        return rc;
    }
    tn_mpi_enter();
    tn_group_retain(c->remote);
    tn_mpi_leave();
    *group = tn_mpi_group_handle(c->remote);
    return MPI_SUCCESS;
}

