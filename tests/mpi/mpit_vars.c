/* The MPI tools interface (docs/mpi_t.md): every control variable,
 * performance variable, category and event is enumerated and described;
 * every performance variable is read during traffic, and the counters of
 * the transport in use must move with it (shm on one node; udp when
 * TERN_XPORT=udp, per peer); a writable control variable is written and
 * read back; bad indices, names and handles give the MPI_T error codes.
 * MPI_T is initialised before MPI_Init and used after MPI_Finalize. */
#include <stdlib.h>
#include <string.h>
#include "mtest.h"

#define T_CALL(call)                                                           \
    do {                                                                       \
        int rc_ = (call);                                                      \
        MT_CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_);            \
    } while (0)
#define T_EXPECT(call, code)                                                   \
    do {                                                                       \
        int rc_ = (call);                                                      \
        MT_CHECK(rc_ == (code), "%s returned %d, expected %s", #call, rc_, #code); \
    } while (0)

static int npvar;
static MPI_T_pvar_session session;
static MPI_T_pvar_handle *handles;
static int *counts;

/* Sum of every element of pvar name (0 if none). */
static unsigned long long pvar_sum(const char *name)
{
    for (int i = 0; i < npvar; i++) {
        char n[128];
        int len = sizeof(n);
        MPI_T_pvar_get_info(i, n, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                            NULL);
        if (strcmp(n, name) == 0 && handles[i] != MPI_T_PVAR_HANDLE_NULL) {
            unsigned long long *v = calloc((size_t)counts[i] + 1, sizeof(*v)), s = 0;
            T_CALL(MPI_T_pvar_read(session, handles[i], v));
            for (int k = 0; k < counts[i]; k++) {
                s += v[k];
            }
            free(v);
            return s;
        }
    }
    MT_CHECK(0, "no pvar %s", name);
    return 0;
}

static void traffic(int rank, int size)
{
    static char buf[1 << 20];
    int peer = rank ^ 1;
    if (peer >= size) {
        return;
    }
    for (int i = 0; i < 20; i++) {
        MPI_Sendrecv_replace(buf, (int)sizeof(buf) / (i % 2 ? 1 : 1024), MPI_CHAR, peer, 7,
                             peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

static void check_cvars(void)
{
    int n, provided, writable = -1;
    T_CALL(MPI_T_cvar_get_num(&n));
    MT_CHECK(n > 60, "only %d cvars", n);
    for (int i = 0; i < n; i++) {
        char name[128], desc[1024];
        int nlen = sizeof(name), dlen = sizeof(desc), verb, bind, scope, count;
        MPI_Datatype dt;
        MPI_T_enum et;
        T_CALL(MPI_T_cvar_get_info(i, name, &nlen, &verb, &dt, &et, desc, &dlen, &bind, &scope));
        MT_CHECK(strncmp(name, "TERN_", 5) == 0 && nlen == (int)strlen(name) + 1,
                 "cvar %d: name %s len %d", i, name, nlen);
        int idx;
        T_CALL(MPI_T_cvar_get_index(name, &idx));
        MT_CHECK(idx == i, "cvar %s: index %d, not %d", name, idx, i);
        MPI_T_cvar_handle h;
        T_CALL(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
        char *buf = calloc((size_t)count + 8, 8);
        T_CALL(MPI_T_cvar_read(h, buf));
        if (et != MPI_T_ENUM_NULL) {
            int items, v = *(int *)buf;
            T_CALL(MPI_T_enum_get_info(et, &items, NULL, NULL));
            MT_CHECK(v >= 0 && v < items, "cvar %s: enum value %d of %d", name, v, items);
        }
        if (strcmp(name, "TERN_COLL_BCAST") == 0) {
            writable = i;
            MT_CHECK(scope == MPI_T_SCOPE_ALL_EQ && dt == MPI_CHAR, "TERN_COLL_BCAST scope %d", scope);
        }
        if (strcmp(name, "TERN_SHM_CELLS") == 0) {
            long long v = 7;
            MT_CHECK(scope == MPI_T_SCOPE_READONLY && dt == MPI_COUNT, "TERN_SHM_CELLS scope");
            T_EXPECT(MPI_T_cvar_write(h, &v), MPI_T_ERR_CVAR_SET_NEVER);
        }
        free(buf);
        T_CALL(MPI_T_cvar_handle_free(&h));
        MT_CHECK(h == MPI_T_CVAR_HANDLE_NULL, "handle not nulled");
    }
    (void)provided;
    /* write a writable one and see it change (the same on every rank) */
    MPI_T_cvar_handle h;
    int count;
    T_CALL(MPI_T_cvar_handle_alloc(writable, NULL, &h, &count));
    char *buf = calloc((size_t)count, 1);
    strcpy(buf, "binomial");
    T_CALL(MPI_T_cvar_write(h, buf));
    memset(buf, 0, (size_t)count);
    T_CALL(MPI_T_cvar_read(h, buf));
    MT_CHECK(strcmp(buf, "binomial") == 0, "TERN_COLL_BCAST reads %s after the write", buf);
    strcpy(buf, "no such algorithm, surely");
    T_EXPECT(MPI_T_cvar_write(h, buf), MPI_SUCCESS);   /* any string: warned at use */
    strcpy(buf, "auto");
    T_CALL(MPI_T_cvar_write(h, buf));
    free(buf);
    T_CALL(MPI_T_cvar_handle_free(&h));
    /* an enumerated one: TERN_LOG_LEVEL */
    int ll, items;
    MPI_T_enum et;
    T_CALL(MPI_T_cvar_get_index("TERN_LOG_LEVEL", &ll));
    T_CALL(MPI_T_cvar_get_info(ll, NULL, NULL, NULL, NULL, &et, NULL, NULL, NULL, NULL));
    T_CALL(MPI_T_enum_get_info(et, &items, NULL, NULL));
    MT_CHECK(items == 6, "TERN_LOG_LEVEL has %d items", items);
    T_CALL(MPI_T_cvar_handle_alloc(ll, NULL, &h, &count));
    int v = 0, bad = items;
    T_CALL(MPI_T_cvar_read(h, &v));
    T_EXPECT(MPI_T_cvar_write(h, &bad), MPI_T_ERR_INVALID);
    T_CALL(MPI_T_cvar_write(h, &v));
    T_CALL(MPI_T_cvar_handle_free(&h));
    T_EXPECT(MPI_T_enum_get_item(et, items, &v, NULL, NULL), MPI_T_ERR_INVALID_ITEM);
}

static void check_categories(int ncvar, int npv, int nev)
{
    int n, tc = 0, tp = 0, te = 0, sub = 0;
    T_CALL(MPI_T_category_get_num(&n));
    MT_CHECK(n >= 8, "only %d categories", n);
    for (int c = 0; c < n; c++) {
        char name[64];
        int len = sizeof(name), nc, np, ncat, ne, idx;
        T_CALL(MPI_T_category_get_info(c, name, &len, NULL, NULL, &nc, &np, &ncat));
        T_CALL(MPI_T_category_get_num_events(c, &ne));
        T_CALL(MPI_T_category_get_index(name, &idx));
        MT_CHECK(idx == c, "category %s index %d", name, idx);
        int *ix = malloc(sizeof(int) * (size_t)(nc + np + ne + ncat + 1));
        T_CALL(MPI_T_category_get_cvars(c, nc, ix));
        T_CALL(MPI_T_category_get_pvars(c, np, ix));
        T_CALL(MPI_T_category_get_events(c, ne, ix));
        T_CALL(MPI_T_category_get_categories(c, ncat, ix));
        free(ix);
        tc += nc;
        tp += np;
        te += ne;
        sub += ncat;
    }
    MT_CHECK(tc == ncvar && tp == npv && te == nev,
             "categories hold %d cvars, %d pvars, %d events of %d, %d, %d", tc, tp, te, ncvar,
             npv, nev);
    MT_CHECK(sub >= 3, "the xport category holds shm, self, udp (%d subcategories)", sub);
    int upd;
    T_CALL(MPI_T_category_changed(&upd));
}

static void check_events(void)
{
    int n, ns;
    T_CALL(MPI_T_event_get_num(&n));
    MT_CHECK(n >= 3, "only %d events", n);
    for (int e = 0; e < n; e++) {
        char name[64];
        int len = sizeof(name), ne = 4, idx, bind;
        MPI_Datatype types[4];
        MPI_Aint displs[4];
        T_CALL(MPI_T_event_get_info(e, name, &len, NULL, types, displs, &ne, NULL, NULL, NULL,
                                    NULL, &bind));
        T_CALL(MPI_T_event_get_index(name, &idx));
        MT_CHECK(idx == e && ne >= 2 && types[0] == MPI_INT, "event %s", name);
        MPI_T_event_registration reg;
        T_CALL(MPI_T_event_handle_alloc(e, NULL, MPI_INFO_NULL, &reg));
        MPI_Info used;
        T_CALL(MPI_T_event_handle_get_info(reg, &used));
        MPI_Info_free(&used);
        T_CALL(MPI_T_event_handle_free(reg, NULL, NULL));
    }
    T_CALL(MPI_T_source_get_num(&ns));
    MT_CHECK(ns == 1, "%d sources", ns);
    MPI_Count tps, t0, t1;
    T_CALL(MPI_T_source_get_info(0, NULL, NULL, NULL, NULL, NULL, &tps, NULL, NULL));
    T_CALL(MPI_T_source_get_timestamp(0, &t0));
    T_CALL(MPI_T_source_get_timestamp(0, &t1));
    MT_CHECK(tps == 1000000000 && t1 >= t0, "source clock");
    T_EXPECT(MPI_T_event_get_info(n, NULL, NULL, NULL, NULL, NULL, &ns, NULL, NULL, NULL, NULL,
                                  NULL), MPI_T_ERR_INVALID_INDEX);
    T_EXPECT(MPI_T_event_get_index("nope", &ns), MPI_T_ERR_INVALID_NAME);
}

static void check_errors(void)
{
    int i;
    MPI_T_cvar_handle ch = MPI_T_CVAR_HANDLE_NULL;
    T_EXPECT(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
             MPI_T_ERR_INVALID_INDEX);
    T_EXPECT(MPI_T_cvar_get_index("TERN_NO_SUCH_THING", &i), MPI_T_ERR_INVALID_NAME);
    T_EXPECT(MPI_T_cvar_read(ch, &i), MPI_T_ERR_INVALID_HANDLE);
    T_EXPECT(MPI_T_pvar_get_info(npvar, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                 NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    T_EXPECT(MPI_T_pvar_get_index("shm_am_sent", MPI_T_PVAR_CLASS_LEVEL, &i),
             MPI_T_ERR_INVALID_NAME);
    T_EXPECT(MPI_T_pvar_read(MPI_T_PVAR_SESSION_NULL, handles[0], &i), MPI_T_ERR_INVALID_SESSION);
    T_EXPECT(MPI_T_pvar_read(session, MPI_T_PVAR_ALL_HANDLES, &i), MPI_T_ERR_INVALID_HANDLE);
    T_EXPECT(MPI_T_category_get_info(1000, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
             MPI_T_ERR_INVALID_INDEX);
    T_EXPECT(MPI_T_category_get_index("nope", &i), MPI_T_ERR_INVALID_NAME);
    T_EXPECT(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &i, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
    T_EXPECT(MPI_T_source_get_timestamp(1, NULL), MPI_T_ERR_INVALID_INDEX);
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    /* before MPI_Init, twice (reference counted) */
    T_CALL(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    T_CALL(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    T_CALL(MPI_T_finalize());
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *x = getenv("TERN_XPORT");
    int udp = x != NULL && strcmp(x, "udp") == 0;

    int ncvar, nev;
    T_CALL(MPI_T_cvar_get_num(&ncvar));
    T_CALL(MPI_T_pvar_get_num(&npvar));
    T_CALL(MPI_T_event_get_num(&nev));
    check_cvars();

    /* one session, a handle on every pvar; timers started */
    T_CALL(MPI_T_pvar_session_create(&session));
    handles = calloc((size_t)npvar, sizeof(*handles));
    counts = calloc((size_t)npvar, sizeof(*counts));
    for (int i = 0; i < npvar; i++) {
        char name[128];
        int len = sizeof(name), cls, ro, cont, idx, bind;
        MPI_Datatype dt;
        T_CALL(MPI_T_pvar_get_info(i, name, &len, NULL, &cls, &dt, NULL, NULL, NULL, &bind, &ro,
                                   &cont, NULL));
        T_CALL(MPI_T_pvar_get_index(name, cls, &idx));
        MT_CHECK(idx == i && dt == MPI_UNSIGNED_LONG_LONG && bind == MPI_T_BIND_NO_OBJECT,
                 "pvar %s", name);
        T_CALL(MPI_T_pvar_handle_alloc(session, i, NULL, &handles[i], &counts[i]));
        MT_CHECK(counts[i] >= 1, "pvar %s count %d", name, counts[i]);
        if (strncmp(name, "udp_peer_", 9) == 0) {
            MT_CHECK(counts[i] % size == 0, "per-peer pvar %s: count %d", name, counts[i]);
        }
        if (!cont) {
            T_CALL(MPI_T_pvar_start(session, handles[i]));
        } else {
            T_EXPECT(MPI_T_pvar_start(session, handles[i]), MPI_T_ERR_PVAR_NO_STARTSTOP);
        }
        if (ro) {
            unsigned long long z[64] = { 0 };
            T_EXPECT(MPI_T_pvar_write(session, handles[i], z), MPI_T_ERR_PVAR_NO_WRITE);
        }
    }
    check_categories(ncvar, npvar, nev);
    check_events();
    check_errors();

    /* traffic, then every pvar read; the transport's counters moved */
    traffic(rank, size);
    for (int i = 0; i < npvar; i++) {
        unsigned long long *v = calloc((size_t)counts[i], sizeof(*v));
        T_CALL(MPI_T_pvar_read(session, handles[i], v));
        free(v);
    }
    if (size > 1) {
        /* ranks on other hosts (the netns runs) talk udp without TERN_XPORT */
        if (!udp && pvar_sum("shm_am_sent") == 0) {
            udp = pvar_sum("udp_peer_data_sent") > 0;
            MT_CHECK(udp, "neither shm_am_sent nor udp_peer_data_sent moved");
        }
        const char *sent = udp ? "udp_peer_data_sent" : "shm_am_sent";
        const char *bytes = udp ? "udp_peer_data_bytes_sent" : "shm_am_recv";
        unsigned long long s1 = pvar_sum(sent), b1 = pvar_sum(bytes);
        MT_CHECK(s1 >= 20 && b1 >= 20, "%s=%llu %s=%llu after 20 exchanges", sent, s1, bytes, b1);
        if (udp) {
            MT_CHECK(pvar_sum("udp_peer_data_bytes_recv") >= 20 * (1 << 20) / 2,
                     "udp bytes received");
            MT_CHECK(pvar_sum("udp_sock_sent") > 0, "udp datagrams sent");
        }
        /* readreset: 0 right after, moves again with traffic */
        int si;
        T_CALL(MPI_T_pvar_get_index(sent, MPI_T_PVAR_CLASS_COUNTER, &si));
        unsigned long long *v = calloc((size_t)counts[si], sizeof(*v));
        T_CALL(MPI_T_pvar_readreset(session, handles[si], v));
        MT_CHECK(pvar_sum(sent) == 0, "%s not 0 after readreset", sent);
        traffic(rank, size);
        MT_CHECK(pvar_sum(sent) >= 20, "%s did not move after readreset", sent);
        free(v);
        /* a write sets this handle's view */
        unsigned long long *w = calloc((size_t)counts[si], sizeof(*w));
        w[0] = 1000000;
        T_CALL(MPI_T_pvar_write(session, handles[si], w));
        MT_CHECK(pvar_sum(sent) >= 1000000, "%s write", sent);
        T_CALL(MPI_T_pvar_reset(session, MPI_T_PVAR_ALL_HANDLES));
        MT_CHECK(pvar_sum(sent) < 1000000, "%s reset", sent);
        free(w);
    }
    T_CALL(MPI_T_pvar_stop(session, MPI_T_PVAR_ALL_HANDLES));
    T_CALL(MPI_T_pvar_handle_free(session, &handles[0]));
    T_EXPECT(MPI_T_pvar_handle_free(session, &handles[0]), MPI_T_ERR_INVALID_HANDLE);
    T_CALL(MPI_T_pvar_session_free(&session));
    free(handles);
    free(counts);
    int rc = mt_finalize();
    /* after MPI_Finalize: still readable */
    int n2;
    MT_CHECK(MPI_T_pvar_get_num(&n2) == MPI_SUCCESS && n2 == npvar, "after finalize");
    MPI_T_pvar_session s2;
    MPI_T_pvar_handle h2;
    int c2, si2;
    unsigned long long v2[8];
    if (MPI_T_pvar_session_create(&s2) != MPI_SUCCESS ||
        MPI_T_pvar_get_index("p2p_proto_errors", MPI_T_PVAR_CLASS_COUNTER, &si2) != MPI_SUCCESS ||
        MPI_T_pvar_handle_alloc(s2, si2, NULL, &h2, &c2) != MPI_SUCCESS ||
        MPI_T_pvar_read(s2, h2, v2) != MPI_SUCCESS || MPI_T_pvar_session_free(&s2) != MPI_SUCCESS) {
        fprintf(stderr, "MPI_T after MPI_Finalize failed\n");
        rc = 1;
    }
    if (MPI_T_finalize() != MPI_SUCCESS || MPI_T_finalize() != MPI_T_ERR_NOT_INITIALIZED ||
        MPI_T_cvar_get_num(&n2) != MPI_T_ERR_NOT_INITIALIZED) {
        fprintf(stderr, "MPI_T_finalize reference counting\n");
        rc = 1;
    }
    return rc;
}
