// mpi.h used the way C++ programs use it; compiled (not linked) with
// -Wall -Wextra -Werror (and -std=c++11 -pedantic) by tests/hdr.
// Kept valid C++98.
#include <mpi.h>
#include <mpi.h> // the include guard works
#include <cstddef>

#if !defined(MPI_VERSION) || MPI_VERSION < 5 || !defined(TERN_MPI)
#error "mpi.h: MPI_VERSION or TERN_MPI missing"
#endif

typedef char chk_status[sizeof(MPI_Status) == 32 ? 1 : -1];

// Handles are distinct types: overloads on them resolve.
static int kind(MPI_Comm) { return 1; }
static int kind(MPI_Datatype) { return 2; }
static int kind(MPI_Op) { return 3; }
static int kind(int) { return 4; }

template <class T> static bool is_null(T h, T null) { return h == null; }

extern "C" {
static void my_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        static_cast<int *>(inout)[i] += static_cast<int *>(in)[i];
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
    (void)safety;
    (void)user;
}
}

namespace {
struct Comm {
    MPI_Comm c;
    explicit Comm(MPI_Comm c_) : c(c_) {}
    int size() const
    {
        int n = 0;
        MPI_Comm_size(c, &n);
        return n;
    }
};
}

int main(int argc, char **argv)
{
    int buf[4] = {0, 1, 2, 3};
    int provided = 0, keyval = 0, flag = 0;
    MPI_Comm comm = MPI_COMM_WORLD, dup = MPI_COMM_NULL;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;
    MPI_Op op = MPI_OP_NULL;
    MPI_Errhandler eh = MPI_ERRORS_ARE_FATAL;
    MPI_Info info = MPI_INFO_ENV;
    MPI_T_cb_safety safety = MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE;
    MPI_T_source_order order = MPI_T_SOURCE_ORDERED;
    MPI_Offset off = MPI_DISPLACEMENT_CURRENT;
    MPI_Aint attr = 0;
    Comm world(MPI_COMM_WORLD);

    if (argc > 1000) {
        // Calls compile; this program is never linked.
        MPI_Init(&argc, &argv);
        MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
        MPI_Comm_dup(comm, &dup);
        MPI_Isend(buf, 4, MPI_INT, 0, 0, comm, &req);
        MPI_Wait(&req, &st);
        MPI_Recv(buf, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, MPI_STATUS_IGNORE);
        MPI_Allreduce(MPI_IN_PLACE, buf, 4, MPI_INT, MPI_MAX, comm);
        MPI_Op_create(my_sum, 0, &op);
        MPI_Comm_create_errhandler(my_errh, &eh);
        MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
        MPI_Comm_get_attr(comm, MPI_TAG_UB, &attr, &flag);
        MPI_Comm_spawn("x", MPI_ARGV_NULL, 1, info, 0, comm, &dup, MPI_ERRCODES_IGNORE);
        MPI_T_event_register_callback(NULL, safety, info, NULL, my_event);
        MPI_Pcontrol(0, 1, 2);
        PMPI_Barrier(comm);
        provided = world.size();
        MPI_Finalize();
    }
    (void)order;
    (void)off;
    (void)st;
    if (kind(MPI_COMM_WORLD) != 1 || kind(MPI_INT) != 2 || kind(MPI_SUM) != 3 ||
        kind(MPI_ANY_SOURCE) != 4)
        return 1;
    if (!is_null(dup, MPI_COMM_NULL) || is_null(comm, MPI_COMM_SELF))
        return 1;
    return MPI_SUCCESS;
}
