/* Helpers for the rma_*.c test programs: a window of any creation flavour
 * over the same byte layout, so that a test body can run on every flavour.
 *
 *   mr_win w;
 *   mr_win_open(&w, MR_DYNAMIC, MPI_COMM_WORLD, bytes, disp_unit, MPI_INFO_NULL);
 *   MPI_Put(..., target, mr_disp(&w, target, byte_offset), ...);
 *   mr_win_close(&w);
 *
 * MR_SHARED builds its window over MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)
 * of the given communicator, so a test must use w.comm, w.rank and w.size
 * (not MPI_COMM_WORLD) for its peers and barriers.  Dynamic windows have
 * disp_unit 1 and the target displacement of byte 0 of each rank's attached
 * block is its address (exchanged with MPI_Allgather); the other flavours
 * use the disp_unit given.  The window gets MPI_ERRORS_RETURN so that MT_CALL
 * reports a failing call instead of the job aborting.
 * Only standard MPI.  Include after mtest.h. */
#ifndef TERN_TESTS_RMA_UTIL_H
#define TERN_TESTS_RMA_UTIL_H

enum { MR_CREATE, MR_ALLOCATE, MR_DYNAMIC, MR_SHARED, MR_NFLAVORS };

MT_UNUSED static const char *const mr_flavor_name[MR_NFLAVORS] = {
    "create", "allocate", "dynamic", "shared"
};

typedef struct {
    MPI_Win win;
    MPI_Comm comm;      /* communicator of the window (owned) */
    int rank, size;     /* in comm */
    int flavor;         /* MR_* */
    char *base;         /* local memory of the window (bytes long) */
    MPI_Aint bytes;
    int disp_unit;      /* as created; 1 for dynamic windows */
    MPI_Aint *dbase;    /* per rank: target_disp of the rank's byte 0 */
    void *owned;        /* memory to release at close (create / dynamic) */
} mr_win;

/* Collective over comm.  Returns 0, or -1 after recording a failure (then
 * every rank of comm fails the same way, as the window calls are collective). */
MT_UNUSED static int mr_win_open(mr_win *w, int flavor, MPI_Comm comm, MPI_Aint bytes,
                                 int disp_unit, MPI_Info info)
{
    memset(w, 0, sizeof *w);
    w->win = MPI_WIN_NULL;
    w->flavor = flavor;
    w->bytes = bytes;
    w->disp_unit = flavor == MR_DYNAMIC ? 1 : disp_unit;
    if (flavor == MR_SHARED)
        MT_CALL(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &w->comm));
    else
        MT_CALL(MPI_Comm_dup(comm, &w->comm));
    MPI_Comm_rank(w->comm, &w->rank);
    MPI_Comm_size(w->comm, &w->size);
    w->dbase = mt_malloc(sizeof(MPI_Aint) * (size_t)w->size);

    int rc = MPI_SUCCESS;
    switch (flavor) {
    case MR_CREATE:
        w->owned = w->base = mt_malloc((size_t)bytes);
        rc = MPI_Win_create(w->base, bytes, disp_unit, info, w->comm, &w->win);
        break;
    case MR_ALLOCATE:
        rc = MPI_Win_allocate(bytes, disp_unit, info, w->comm, &w->base, &w->win);
        break;
    case MR_SHARED:
        rc = MPI_Win_allocate_shared(bytes, disp_unit, info, w->comm, &w->base, &w->win);
        break;
    case MR_DYNAMIC:
        rc = MPI_Alloc_mem(bytes ? bytes : 1, MPI_INFO_NULL, &w->owned);
        if (rc != MPI_SUCCESS)
            break;
        w->base = w->owned;
        memset(w->base, 0, (size_t)bytes);
        rc = MPI_Win_create_dynamic(info, w->comm, &w->win);
        if (rc != MPI_SUCCESS)
            break;
        rc = MPI_Win_attach(w->win, w->base, bytes);
        break;
    }
    if (rc != MPI_SUCCESS) {
        char s[MPI_MAX_ERROR_STRING] = "";
        int l = 0;
        MPI_Error_string(rc, s, &l);
        mt_fail(__FILE__, __LINE__, "%s window of %ld bytes: %s", mr_flavor_name[flavor],
                (long)bytes, s);
        return -1;
    }
    MT_CALL(MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN));
    MPI_Aint mine = 0;
    if (flavor == MR_DYNAMIC)
        MT_CALL(MPI_Get_address(w->base, &mine));
    MT_CALL(MPI_Allgather(&mine, 1, MPI_AINT, w->dbase, 1, MPI_AINT, w->comm));
    return 0;
}

/* Target displacement of byte off of rank target's window memory. */
MT_UNUSED static MPI_Aint mr_disp(const mr_win *w, int target, MPI_Aint off)
{
    if (w->flavor == MR_DYNAMIC)
        return MPI_Aint_add(w->dbase[target], off);
    if (off % w->disp_unit)
        mt_fail(__FILE__, __LINE__, "test bug: offset %ld not a multiple of disp_unit %d",
                (long)off, w->disp_unit);
    return off / w->disp_unit;
}

MT_UNUSED static void mr_win_close(mr_win *w)
{
    if (w->win != MPI_WIN_NULL) {
        if (w->flavor == MR_DYNAMIC)
            MT_CALL(MPI_Win_detach(w->win, w->base));
        MT_CALL(MPI_Win_free(&w->win));
        MT_CHECK(w->win == MPI_WIN_NULL, "MPI_Win_free did not set MPI_WIN_NULL");
    }
    if (w->flavor == MR_DYNAMIC && w->owned)
        MT_CALL(MPI_Free_mem(w->owned));
    else
        free(w->owned);
    free(w->dbase);
    MT_CALL(MPI_Comm_free(&w->comm));
    memset(w, 0, sizeof *w);
    w->win = MPI_WIN_NULL;
}

/* Local access to the window memory between passive-target epochs of other
 * ranks: an exclusive (for writing) or shared lock on oneself, which is the
 * portable way to make the local copy and the window agree. */
MT_UNUSED static void mr_local_begin(const mr_win *w, int lock_type)
{
    MT_CALL(MPI_Win_lock(lock_type, w->rank, 0, w->win));
}

MT_UNUSED static void mr_local_end(const mr_win *w)
{
    MT_CALL(MPI_Win_unlock(w->rank, w->win));
}

/* A group of one rank of the window's group (for PSCW). */
MT_UNUSED static MPI_Group mr_group_of(const mr_win *w, int rank)
{
    MPI_Group all, one = MPI_GROUP_NULL;
    MT_CALL(MPI_Win_get_group(w->win, &all));
    MT_CALL(MPI_Group_incl(all, 1, &rank, &one));
    MT_CALL(MPI_Group_free(&all));
    return one;
}

#endif
