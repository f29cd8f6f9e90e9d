/* Handle <-> integer conversions of the standard ABI (MPI_<Obj>_toint /
 * MPI_<Obj>_fromint).
 *
 * Predefined handles are small integers already (below
 * TN_MPI_HANDLE_MAX_PREDEF) and convert to themselves.  A user handle is a
 * pointer; it gets an index in one process-wide table the first time it is
 * converted, and converts to TN_MPI_HANDLE_MAX_PREDEF + index from then on.
 * Entries are never removed: a freed object's integer becomes stale, as the
 * standard allows, and a new object at the same address reuses the entry.
 * A hash of pointer -> index keeps toint O(1). */
#include "mpi/mpi_impl.h"

#include <limits.h>
#include <stdlib.h>

static struct {
    uintptr_t *ptrs;      /* index -> pointer */
    size_t     n, cap;
    uint32_t  *hash;      /* open addressing: index + 1, 0 = empty */
    size_t     hcap;      /* power of two */
} tn_htab;

static size_t tn_htab_slot(uintptr_t p, size_t hcap)
{
    uint64_t h = (uint64_t)p * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 32) & (hcap - 1);
}

static int tn_htab_rehash(size_t hcap)
{
    uint32_t *h = calloc(hcap, sizeof(*h));
    if (h == NULL) {
        return -1;
    }
    for (size_t i = 0; i < tn_htab.n; i++) {
        size_t s = tn_htab_slot(tn_htab.ptrs[i], hcap);
        while (h[s] != 0) {
            s = (s + 1) & (hcap - 1);
        }
        h[s] = (uint32_t)(i + 1);
    }
    free(tn_htab.hash);
    tn_htab.hash = h;
    tn_htab.hcap = hcap;
    return 0;
}

/* Integer of user handle p, or -1 when the table cannot grow (lock held). */
static int tn_htab_index(uintptr_t p)
{
    if (tn_htab.hcap != 0) {
        for (size_t s = tn_htab_slot(p, tn_htab.hcap); tn_htab.hash[s] != 0;
             s = (s + 1) & (tn_htab.hcap - 1)) {
            if (tn_htab.ptrs[tn_htab.hash[s] - 1] == p) {
                return (int)(tn_htab.hash[s] - 1);
            }
        }
    }
    if (tn_htab.n >= (size_t)(INT_MAX - TN_MPI_HANDLE_MAX_PREDEF)) {
        return -1;
    }
    if (tn_htab.n == tn_htab.cap) {
        size_t cap = tn_htab.cap ? 2 * tn_htab.cap : 64;
        uintptr_t *np = realloc(tn_htab.ptrs, cap * sizeof(*np));
        if (np == NULL) {
            return -1;
        }
        tn_htab.ptrs = np;
        tn_htab.cap = cap;
    }
    if (2 * (tn_htab.n + 1) > tn_htab.hcap &&
        tn_htab_rehash(tn_htab.hcap ? 2 * tn_htab.hcap : 128) != 0) {
        return -1;
    }
    size_t i = tn_htab.n++;
    tn_htab.ptrs[i] = p;
    size_t s = tn_htab_slot(p, tn_htab.hcap);
    while (tn_htab.hash[s] != 0) {
        s = (s + 1) & (tn_htab.hcap - 1);
    }
    tn_htab.hash[s] = (uint32_t)(i + 1);
    return (int)i;
}

static int tn_mpi_toint(uintptr_t h)
{
    if (h < TN_MPI_HANDLE_MAX_PREDEF) {
        return (int)h;
    }
    tn_mpi_enter();
    int i = tn_htab_index(h);
    tn_mpi_leave();
    /* No error path in the ABI: an integer that fromint maps to the null
     * handle (0) is the best we can do when memory runs out. */
    return i < 0 ? 0 : (int)TN_MPI_HANDLE_MAX_PREDEF + i;
}

static uintptr_t tn_mpi_fromint(int v)
{
    if (v >= 0 && (unsigned)v < TN_MPI_HANDLE_MAX_PREDEF) {
        return (uintptr_t)v;
    }
    uintptr_t p = 0;
    tn_mpi_enter();
    size_t i = (size_t)((unsigned)v - TN_MPI_HANDLE_MAX_PREDEF);
    if (v > 0 && i < tn_htab.n) {
        p = tn_htab.ptrs[i];
    }
    tn_mpi_leave();
    return p;
}

int tn_mpi_Comm_toint(MPI_Comm comm)
{
    return tn_mpi_toint(tn_mpi_hval(comm));
}

MPI_Comm tn_mpi_Comm_fromint(int comm)
{
    return (MPI_Comm)tn_mpi_fromint(comm);
}

int tn_mpi_Type_toint(MPI_Datatype datatype)
{
    return tn_mpi_toint(tn_mpi_hval(datatype));
}

MPI_Datatype tn_mpi_Type_fromint(int datatype)
{
    return (MPI_Datatype)tn_mpi_fromint(datatype);
}

int tn_mpi_Group_toint(MPI_Group group)
{
    return tn_mpi_toint(tn_mpi_hval(group));
}

MPI_Group tn_mpi_Group_fromint(int group)
{
    return (MPI_Group)tn_mpi_fromint(group);
}

int tn_mpi_Request_toint(MPI_Request request)
{
    return tn_mpi_toint(tn_mpi_hval(request));
}

MPI_Request tn_mpi_Request_fromint(int request)
{
    return (MPI_Request)tn_mpi_fromint(request);
}

int tn_mpi_Op_toint(MPI_Op op)
{
    return tn_mpi_toint(tn_mpi_hval(op));
}

MPI_Op tn_mpi_Op_fromint(int op)
{
    return (MPI_Op)tn_mpi_fromint(op);
}

int tn_mpi_Info_toint(MPI_Info info)
{
    return tn_mpi_toint(tn_mpi_hval(info));
}

MPI_Info tn_mpi_Info_fromint(int info)
{
    return (MPI_Info)tn_mpi_fromint(info);
}

int tn_mpi_Errhandler_toint(MPI_Errhandler errhandler)
{
    return tn_mpi_toint(tn_mpi_hval(errhandler));
}

MPI_Errhandler tn_mpi_Errhandler_fromint(int errhandler)
{
    return (MPI_Errhandler)tn_mpi_fromint(errhandler);
}

int tn_mpi_Message_toint(MPI_Message message)
{
    return tn_mpi_toint(tn_mpi_hval(message));
}

MPI_Message tn_mpi_Message_fromint(int message)
{
    return (MPI_Message)tn_mpi_fromint(message);
}

int tn_mpi_Session_toint(MPI_Session session)
{
    return tn_mpi_toint(tn_mpi_hval(session));
}

MPI_Session tn_mpi_Session_fromint(int session)
{
    return (MPI_Session)tn_mpi_fromint(session);
}

int tn_mpi_Win_toint(MPI_Win win)
{
    return tn_mpi_toint(tn_mpi_hval(win));
}

MPI_Win tn_mpi_Win_fromint(int win)
{
    return (MPI_Win)tn_mpi_fromint(win);
}
