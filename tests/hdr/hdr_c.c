/* mpi.h used the way C programs use it; compiled (not linked) with
 * -std=c99/-std=c11 -Wall -Wextra -Werror -pedantic by tests/hdr. */
#include <mpi.h>
#include <mpi.h> /* the include guard works */
#include <stddef.h>

#if !defined(MPI_VERSION) || MPI_VERSION < 5 || !defined(TERN_MPI)
#error "mpi.h: MPI_VERSION or TERN_MPI missing"
#endif
#if MPI_ABI_VERSION != 1 || TERN_VERSION_MAJOR < 0
#error "mpi.h: ABI version"
#endif

typedef char chk_status[sizeof(MPI_Status) == 32 ? 1 : -1];
typedef char chk_handles[sizeof(MPI_Comm) == sizeof(void *) ? 1 : -1];

static void my_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int i;
    (void)dt;
    for (i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void my_errh(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
}

static void my_event(MPI_T_event_instance ev, MPI_T_event_registration reg,
                     MPI_T_cb_safety safety, void *user)
{
    (void)ev;
    (void)reg;
    (void)user;
    (void)(safety == MPI_T_CB_REQUIRE_THREAD_SAFE);
}

static const char *err_name(int code)
{
    switch (code) {
    case MPI_SUCCESS: return "success";
    case MPI_ERR_TRUNCATE: return "truncate";
    case MPI_ERR_UNSUPPORTED_OPERATION: return "unsupported";
    case MPI_T_ERR_INVALID: return "t invalid";
    case MPI_ANY_SOURCE: return "any source";
    case MPI_UNDEFINED: return "undefined";
    default: return "other";
    }
}

int main(int argc, char **argv);

int main(int argc, char **argv)
{
    int buf[4] = {0, 1, 2, 3}, provided, flag, keyval;
    char name[MPI_MAX_PROCESSOR_NAME];
    MPI_Comm comm = MPI_COMM_WORLD, dup = MPI_COMM_NULL;
    MPI_Datatype types[2] = {MPI_INT, MPI_LONG_LONG_INT};
    MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st, sts[2];
    MPI_Op op = MPI_OP_NULL;
    MPI_Errhandler eh = MPI_ERRORS_RETURN;
    MPI_Aint disp = 0;
    MPI_Count count = 0;
    MPI_Offset off = MPI_DISPLACEMENT_CURRENT;
    MPI_Info info = MPI_INFO_NULL;
    MPI_T_cb_safety safety = MPI_T_CB_REQUIRE_NONE;
    MPI_User_function *uf = my_sum;
    MPI_Comm_errhandler_function *ef = my_errh;
    MPI_T_event_cb_function *evf = my_event;
    double t;

    if (argc > 1000) {
        /* Calls compile; this program is never linked. */
        MPI_Init(&argc, &argv);
        MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
        MPI_Comm_dup(comm, &dup);
        MPI_Send(buf, 4, MPI_INT, 1, MPI_ANY_TAG, comm);
        MPI_Recv(buf, 4, types[0], MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
        MPI_Recv(buf, 4, MPI_BYTE, MPI_PROC_NULL, 0, comm, MPI_STATUS_IGNORE);
        MPI_Irecv(buf, 4, MPI_INT, 0, 0, comm, &reqs[0]);
        MPI_Waitall(2, reqs, sts);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        MPI_Allreduce(MPI_IN_PLACE, buf, 4, MPI_INT, MPI_SUM, comm);
        MPI_Op_create(uf, 1, &op);
        MPI_Op_create(my_sum, 1, &op);
        MPI_Comm_create_errhandler(ef, &eh);
        MPI_Comm_set_errhandler(comm, eh);
        MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
        MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &keyval, NULL);
        MPI_Comm_get_attr(comm, MPI_TAG_UB, &disp, &flag);
        MPI_Comm_spawn("x", MPI_ARGV_NULL, 1, info, 0, comm, &dup, MPI_ERRCODES_IGNORE);
        MPI_Comm_spawn_multiple(1, argv, MPI_ARGVS_NULL, buf, &info, 0, comm, &dup,
                                MPI_ERRCODES_IGNORE);
        MPI_Dist_graph_create_adjacent(comm, 0, buf, MPI_UNWEIGHTED, 0, buf,
                                       MPI_WEIGHTS_EMPTY, info, 0, &dup);
        MPI_Get_address(buf, &disp);
        disp = MPI_Aint_add(disp, 8);
        MPI_Type_size_c(MPI_DOUBLE, &count);
        MPI_Get_processor_name(name, &provided);
        MPI_Pcontrol(1);
        MPI_Pcontrol(2, "extra", 3.0);
        MPI_T_event_register_callback(NULL, safety, info, NULL, evf);
        PMPI_Send(buf, 4, MPI_INT, 1, 0, comm);
        t = MPI_Wtime() + PMPI_Wtick();
        (void)t;
        (void)off;
        MPI_Finalize();
    }
    return (comm == MPI_COMM_NULL || MPI_COMM_SELF == MPI_COMM_WORLD)
               ? 1 : err_name(MPI_SUCCESS)[0] != 's';
}
