/* MPI_Comm_spawn and MPI_Comm_spawn_multiple through tern-run:
 *   parent mode (no parent): spawn 3 children of this program (argument
 *   "child"), check errcodes, the intercommunicator's sizes, exchange
 *   messages both ways, merge, disconnect; then spawn_multiple with two
 *   commands (this program with "childA" x1 and "childB" x2, appnum
 *   differing), then a child that spawns a grandchild ("nest").
 *   child mode: MPI_Comm_get_parent, its own MPI_COMM_WORLD, answers.
 * MPI_UNIVERSE_SIZE is set on MPI_COMM_WORLD. */
#include "mtest.h"
#include <limits.h>

static char mt_argv0[PATH_MAX];

static void child(const char *mode)
{
    MPI_Comm parent, merged;
    int rank, size, rsize, v = -1;
    MPI_Comm_get_parent(&parent);
    MT_CHECK(parent != MPI_COMM_NULL, "%s: no parent", mode);
    if (parent == MPI_COMM_NULL) {
        return;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_remote_size(parent, &rsize);
    if (strcmp(mode, "nest") == 0) {
        /* spawn a grandchild, talk to it, then answer our parent */
        MPI_Comm gc;
        int codes[1] = { -1 }, g = 0;
        char *args[] = { "child", NULL };
        MT_CALL(MPI_Comm_spawn(mt_argv0, args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &gc, codes));
        MT_CHECK(codes[0] == MPI_SUCCESS, "grandchild errcode %d", codes[0]);
        if (rank == 0) {
            MT_CALL(MPI_Send(&g, 1, MPI_INT, 0, 7, gc));
            MT_CALL(MPI_Recv(&g, 1, MPI_INT, 0, 7, gc, MPI_STATUS_IGNORE));
            MT_CHECK(g == 1, "grandchild said %d", g);
        }
        MPI_Comm gm;
        MT_CALL(MPI_Intercomm_merge(gc, 0, &gm));
        MT_CALL(MPI_Barrier(gm));
        MPI_Comm_free(&gm);
        MT_CALL(MPI_Comm_disconnect(&gc));
    }
    /* parent rank 0 sends each child its index; the child answers with
     * index + its world size */
    MT_CALL(MPI_Recv(&v, 1, MPI_INT, 0, 7, parent, MPI_STATUS_IGNORE));
    v = v * 1000 + size;
    MT_CALL(MPI_Send(&v, 1, MPI_INT, 0, 7, parent));
    MT_CALL(MPI_Intercomm_merge(parent, 1, &merged));
    int msize;
    MPI_Comm_size(merged, &msize);
    MT_CHECK(msize == size + rsize, "merged size %d", msize);
    MT_CALL(MPI_Barrier(merged));
    MPI_Comm_free(&merged);
    MT_CALL(MPI_Comm_disconnect(&parent));
    MPI_Comm_get_parent(&parent);
    MT_CHECK(parent == MPI_COMM_NULL, "parent still there after disconnect");
}

/* Send index i to child i, expect i*1000 + size back. */
static void talk(MPI_Comm inter, int n, int csize)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) {
        return;
    }
    for (int i = 0; i < n; i++) {
        MT_CALL(MPI_Send(&i, 1, MPI_INT, i, 7, inter));
    }
    for (int i = 0; i < n; i++) {
        int v = -1;
        MT_CALL(MPI_Recv(&v, 1, MPI_INT, i, 7, inter, MPI_STATUS_IGNORE));
        MT_CHECK(v == i * 1000 + csize, "child %d answered %d", i, v);
    }
}

static void merge_disconnect(MPI_Comm *inter, int total)
{
    MPI_Comm merged;
    int msize;
    MT_CALL(MPI_Intercomm_merge(*inter, 0, &merged));
    MPI_Comm_size(merged, &msize);
    MT_CHECK(msize == total, "merged size %d, want %d", msize, total);
    MT_CALL(MPI_Barrier(merged));
    MPI_Comm_free(&merged);
    MT_CALL(MPI_Comm_disconnect(inter));
}

int main(int argc, char **argv)
{
    MPI_Comm parent, inter;
    int size, rsize, flag, *usize;

    if (argc > 1) {
        unsetenv("MTEST_NPROCS");     /* a child: its world is not the test's */
    }
    mt_init(&argc, &argv);
    if (realpath(argv[0], mt_argv0) == NULL) {
        MT_DIE("realpath %s", argv[0]);
    }
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        child(argc > 1 ? argv[1] : "?");
        MPI_Finalize();          /* children print nothing: the parent reports */
        return 0;
    }
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag);
    MT_CHECK(flag && *usize >= size, "MPI_UNIVERSE_SIZE %d (flag %d)", flag ? *usize : -1,
             flag);

    /* 1 -> 3 (or N -> 3) */
    int codes[3] = { -1, -1, -1 };
    char *args[] = { "child", NULL };
    MT_CALL(MPI_Comm_spawn(mt_argv0, args, 3, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes));
    for (int i = 0; i < 3; i++) {
        MT_CHECK(codes[i] == MPI_SUCCESS, "errcode %d = %d", i, codes[i]);
    }
    MPI_Comm_remote_size(inter, &rsize);
    MT_CHECK(rsize == 3, "remote size %d", rsize);
    talk(inter, 3, 3);
    merge_disconnect(&inter, size + 3);

    /* spawn_multiple: two commands, errcodes ignored */
    char *cmds[2] = { mt_argv0, mt_argv0 };
    char *a1[] = { "childA", NULL }, *a2[] = { "childB", NULL };
    char **argvs[2] = { a1, a2 };
    int np[2] = { 1, 2 };
    MPI_Info infos[2] = { MPI_INFO_NULL, MPI_INFO_NULL };
    MT_CALL(MPI_Comm_spawn_multiple(2, cmds, argvs, np, infos, 0, MPI_COMM_WORLD, &inter,
                                    MPI_ERRCODES_IGNORE));
    MPI_Comm_remote_size(inter, &rsize);
    MT_CHECK(rsize == 3, "spawn_multiple remote size %d", rsize);
    talk(inter, 3, 3);
    merge_disconnect(&inter, size + 3);

    /* nested: a child that spawns a grandchild; wdir info key */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "wdir", "/tmp");
    char *an[] = { "nest", NULL };
    MT_CALL(MPI_Comm_spawn(mt_argv0, an, 1, info, 0, MPI_COMM_WORLD, &inter,
                           MPI_ERRCODES_IGNORE));
    MPI_Info_free(&info);
    talk(inter, 1, 1);
    merge_disconnect(&inter, size + 1);
    return mt_finalize();
}
