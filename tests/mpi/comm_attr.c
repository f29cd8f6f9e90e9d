/* Communicator names and predefined attributes, and isolation of traffic
 * between communicators:
 *   - default names "MPI_COMM_WORLD" / "MPI_COMM_SELF", set/get, renaming,
 *     an unnamed new communicator gives "";
 *   - MPI_TAG_UB (>= 32767, same everywhere), MPI_HOST, MPI_IO,
 *     MPI_WTIME_IS_GLOBAL, MPI_APPNUM, MPI_UNIVERSE_SIZE, MPI_LASTUSEDCODE;
 *   - messages with identical source/tag on different communicators never
 *     match each other (blocking, wildcard and probe receives), and
 *     collectives on a duplicate do not interfere with point-to-point. */
#include "mtest.h"

static void names(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    MT_CALL(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    MT_CHECK(!strcmp(name, "MPI_COMM_WORLD") && len == 14, "world name '%s' len %d", name, len);
    MT_CALL(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
    MT_CHECK(!strcmp(name, "MPI_COMM_SELF") && len == 13, "self name '%s' len %d", name, len);

    MPI_Comm c;
    MT_CALL(MPI_Comm_split(MPI_COMM_WORLD, 0, mt_rank, &c));
    memset(name, 'x', sizeof name);
    MT_CALL(MPI_Comm_get_name(c, name, &len));
    MT_CHECK(name[0] == '\0' && len == 0, "unnamed communicator has name '%s' len %d", name, len);
    MT_CALL(MPI_Comm_set_name(c, "tern test comm"));
    MT_CALL(MPI_Comm_get_name(c, name, &len));
    MT_CHECK(!strcmp(name, "tern test comm") && len == 14, "set name: '%s' len %d", name, len);
    MT_CALL(MPI_Comm_set_name(c, "second"));
    MT_CALL(MPI_Comm_get_name(c, name, &len));
    MT_CHECK(!strcmp(name, "second") && len == 6, "renamed: '%s' len %d", name, len);
    /* longest allowed name */
    char longname[MPI_MAX_OBJECT_NAME];
    memset(longname, 'n', sizeof longname);
    longname[MPI_MAX_OBJECT_NAME - 1] = '\0';
    MT_CALL(MPI_Comm_set_name(c, longname));
    MT_CALL(MPI_Comm_get_name(c, name, &len));
    MT_CHECK(!strcmp(name, longname) && len == MPI_MAX_OBJECT_NAME - 1, "long name len %d", len);
    MT_CALL(MPI_Comm_free(&c));

    /* Renaming the world and back. */
    MT_CALL(MPI_Comm_set_name(MPI_COMM_WORLD, "my world"));
    MT_CALL(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    MT_CHECK(!strcmp(name, "my world"), "renamed world '%s'", name);
    MT_CALL(MPI_Comm_set_name(MPI_COMM_WORLD, "MPI_COMM_WORLD"));
}

static void attributes(void)
{
    void *v = NULL;
    int flag = 0;

    MT_CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag));
    MT_CHECK(flag && v, "MPI_TAG_UB not set");
    int tag_ub = flag && v ? *(int *)v : -1;
    MT_CHECK(tag_ub >= 32767, "MPI_TAG_UB = %d", tag_ub);
    int mn = 0, mx = 0;
    MT_CALL(MPI_Allreduce(&tag_ub, &mn, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    MT_CALL(MPI_Allreduce(&tag_ub, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    MT_CHECK(mn == mx, "MPI_TAG_UB differs between ranks (%d..%d)", mn, mx);

    flag = 0;
    MT_CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &v, &flag));
    MT_CHECK(flag, "MPI_HOST not set");
    if (flag) {
        int host = *(int *)v;
        MT_CHECK(host == MPI_PROC_NULL || (host >= 0 && host < mt_size), "MPI_HOST = %d", host);
        MT_CALL(MPI_Allreduce(&host, &mn, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
        MT_CALL(MPI_Allreduce(&host, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
        MT_CHECK(mn == mx, "MPI_HOST differs between ranks");
    }

    flag = 0;
    MT_CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &v, &flag));
    MT_CHECK(flag, "MPI_IO not set");
    if (flag) {
        int io = *(int *)v;
        MT_CHECK(io == MPI_PROC_NULL || io == MPI_ANY_SOURCE || (io >= 0 && io < mt_size),
                 "MPI_IO = %d", io);
    }

    flag = 0;
    MT_CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag));
    if (flag) { /* optional attribute; if present it is a boolean */
        int g = *(int *)v;
        MT_CHECK(g == 0 || g == 1, "MPI_WTIME_IS_GLOBAL = %d", g);
    }

    flag = 0;
    MT_CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, &flag));
    if (flag) {
        int appnum = *(int *)v;
        MT_CHECK(appnum >= 0, "MPI_APPNUM = %d", appnum);
    }

    flag = 0;
    MT_CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag));
    if (flag) {
        int us = *(int *)v;
        MT_CHECK(us >= 1, "MPI_UNIVERSE_SIZE = %d", us);
    }

    flag = 0;
    MT_CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag));
    MT_CHECK(flag && *(int *)v >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE");

    /* The predefined attributes are on MPI_COMM_WORLD; the value of TAG_UB
     * is a valid tag. */
    int x = 3, y = 0;
    MT_CALL(MPI_Sendrecv(&x, 1, MPI_INT, mt_rank, tag_ub, &y, 1, MPI_INT, mt_rank, tag_ub,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MT_CHECK(y == 3, "self message with tag MPI_TAG_UB");
}

static void isolation(void)
{
    if (mt_size < 2)
        return;
    MPI_Comm d1, d2;
    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &d1));
    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &d2));
    if (mt_rank == 1) {
        int a = 1, b = 2, c = 3;
        /* same destination, same tag, three communicators */
        MT_CALL(MPI_Send(&a, 1, MPI_INT, 0, 0, d1));
        MT_CALL(MPI_Send(&b, 1, MPI_INT, 0, 0, MPI_COMM_WORLD));
        MT_CALL(MPI_Send(&c, 1, MPI_INT, 0, 0, d2));
        /* large ones too, received in the other order */
        int *big7 = mt_malloc(100000 * sizeof(int)), *big8 = mt_malloc(100000 * sizeof(int));
        for (int i = 0; i < 100000; i++) {
            big7[i] = 7;
            big8[i] = 8;
        }
        MPI_Request rq[2];
        MT_CALL(MPI_Isend(big7, 100000, MPI_INT, 0, 1, d2, &rq[0]));
        MT_CALL(MPI_Isend(big8, 100000, MPI_INT, 0, 1, d1, &rq[1]));
        MT_CALL(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        free(big7);
        free(big8);
    } else if (mt_rank == 0) {
        int v = -1, flag = 1;
        MPI_Status st;
        /* Wait until everything small has arrived everywhere (probe d2). */
        MT_CALL(MPI_Probe(1, 0, d2, &st));
        MT_CALL(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, d2, &st));
        MT_CHECK(v == 3, "d2 wildcard receive got %d (from another communicator?)", v);
        MT_CALL(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        MT_CHECK(v == 2, "world wildcard receive got %d", v);
        MT_CALL(MPI_Iprobe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        MT_CHECK(!flag, "world sees another communicator's message");
        MT_CALL(MPI_Recv(&v, 1, MPI_INT, 1, 0, d1, &st));
        MT_CHECK(v == 1, "d1 receive got %d", v);
        int *big = mt_malloc(100000 * sizeof(int));
        MT_CALL(MPI_Recv(big, 100000, MPI_INT, 1, 1, d1, &st));
        MT_CHECK(big[0] == 8 && big[99999] == 8, "large on d1 got %d", big[0]);
        MT_CALL(MPI_Recv(big, 100000, MPI_INT, 1, 1, d2, &st));
        MT_CHECK(big[0] == 7 && big[99999] == 7, "large on d2 got %d", big[0]);
        free(big);
    }

    /* A collective on d1 while point-to-point with ANY_TAG is pending on the
     * world: the collective's internal traffic must not match it. */
    MPI_Request r = MPI_REQUEST_NULL;
    int pv = -1;
    if (mt_rank == 0)
        MT_CALL(MPI_Irecv(&pv, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r));
    for (int i = 0; i < 10; i++) {
        int b = mt_rank == i % mt_size ? 1000 + i : -1;
        MT_CALL(MPI_Bcast(&b, 1, MPI_INT, i % mt_size, d1));
        MT_CHECK(b == 1000 + i, "Bcast on d1 round %d gave %d", i, b);
        MT_CALL(MPI_Barrier(d1));
    }
    if (mt_rank == 0) {
        int flag = 1;
        MT_CALL(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
        MT_CHECK(!flag, "a wildcard receive on the world matched collective traffic");
    }
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 1) {
        int v = 99;
        MT_CALL(MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD));
    }
    if (mt_rank == 0) {
        MT_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
        MT_CHECK(pv == 99, "pending wildcard receive got %d", pv);
    }
    MT_CALL(MPI_Comm_free(&d1));
    MT_CALL(MPI_Comm_free(&d2));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    names();
    attributes();
    isolation();
    return mt_finalize();
}
