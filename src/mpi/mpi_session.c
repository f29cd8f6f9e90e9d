/* MPI Sessions (MPI-4): session objects, the process sets "mpi://WORLD" and
 * "mpi://SELF", session error handlers, and the communicators built from a
 * group without a parent communicator (MPI_Comm_create_from_group,
 * MPI_Intercomm_create_from_groups).
 *
 * A session does not own a runtime of its own: MPI_Init and every
 * MPI_Session_init share one, brought up by whichever comes first and torn
 * down after the last (tn_mpi_rt_acquire / tn_mpi_rt_release, mpi_env.c).
 * Communicators from groups are built over the internal world communicator,
 * which exists while the runtime is up even when the world model is not
 * initialized: only the group's members agree on a context id (as
 * MPI_Comm_create_group does), under a tag derived from the string tag, so
 * concurrent creations with different string tags stay apart. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi/mpi_impl.h"
#include "mpi/mpi_info.h"

#define TN_SESSION_MAGIC 0x54534553u   /* "TSES" */

typedef struct tn_session {
    uint32_t   magic;
    tn_errh_t *errh;
    tn_info_t *hints;          /* the info given to MPI_Session_init, or NULL */
    struct tn_session *next;   /* every open session */
} tn_session_t;

static tn_session_t *tn_sessions;

/* The session a communicator built from a group derives from.  Groups do
 * not record their session, so this is the open session when there is only
 * one; with several, none (Bsend then uses the process's buffer). */
static tn_session_t *session_of_groups(void)
{
    return tn_sessions != NULL && tn_sessions->next == NULL ? tn_sessions : NULL;
}

/* The process sets every process knows, in the order Get_nth_pset lists them. */
static const char *const tn_psets[] = { "mpi://WORLD", "mpi://SELF" };
#define TN_NPSETS ((int)(sizeof(tn_psets) / sizeof(tn_psets[0])))

static tn_session_t *session_get(MPI_Session h)
{
    if (tn_mpi_hval(h) < TN_MPI_HANDLE_MAX_PREDEF) {
        return NULL;                 /* MPI_SESSION_NULL and other small values */
    }
    tn_session_t *s = (tn_session_t *)(void *)h;
    if (!tn_objreg_has(s, TN_OBJ_SESSION)) {
        return NULL;                    /* garbage, freed, or another kind */
    }
    return s->magic == TN_SESSION_MAGIC ? s : NULL;
}

tn_errh_t *tn_mpi_session_errh(MPI_Session h)
{
    tn_session_t *s = session_get(h);
    return s != NULL ? s->errh : NULL;
}

/* Report an error with handler eh on the object whose handle is at obj. */
static int obj_err(tn_errh_t *eh, void *obj, int errclass, const char *fn, const char *arg,
                   const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int obj_err(tn_errh_t *eh, void *obj, int errclass, const char *fn, const char *arg,
                   const char *fmt, ...)
{
    char msg[1024];
    int off = arg != NULL ? snprintf(msg, sizeof(msg), "%s(%s): ", fn, arg)
                          : snprintf(msg, sizeof(msg), "%s: ", fn);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + off, sizeof(msg) - (size_t)off, fmt, ap);
    va_end(ap);
    return tn_mpi_errh_invoke(eh, obj, errclass, msg);
}

/* The session behind h for fn, or the error (no session: the error goes
 * where errors outside any object go). */
static int session_arg(const char *fn, MPI_Session h, tn_session_t **s_p)
{
    if ((*s_p = session_get(h)) == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_SESSION, fn, "session", "%s",
                          h == MPI_SESSION_NULL ? "MPI_SESSION_NULL is not a session"
                                                : "invalid session handle");
    }
    return MPI_SUCCESS;
}

static int session_err_null(tn_session_t *s, const char *fn, const char *arg)
{
    MPI_Session h = (MPI_Session)(void *)s;
    return obj_err(s->errh, &h, MPI_ERR_ARG, fn, arg, "NULL pointer");
}

static const char *thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE:     return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:   return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default:                    return "MPI_THREAD_MULTIPLE";
    }
}

/* The "thread_level" hint of MPI_Session_init: a level's name or number. */
static int thread_level_of(const char *v)
{
    static const int levels[] = { MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED,
                                  MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE };
    for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
        if (strcmp(v, thread_level_name(levels[i])) == 0 || atoi(v) == levels[i]) {
            return levels[i];
        }
    }
    return -1;
}

/* ------------------------------------------------------------- sessions */

int tn_mpi_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    static const char fn[] = "MPI_Session_init";
    MPI_Session nullh = MPI_SESSION_NULL;
    tn_errh_t *eh = tn_mpi_errh_get(errhandler);
    tn_info_t *hints = NULL;
    int required = MPI_THREAD_SINGLE, provided, rc;

    if (eh == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ERRHANDLER, fn, "errhandler", "invalid error handler");
    }
    if (session == NULL) {
        return obj_err(eh, &nullh, MPI_ERR_ARG, fn, "session", "NULL pointer");
    }
    if (info != MPI_INFO_NULL) {
        tn_info_t *i = tn_mpi_info_get(info);
        if (i == NULL) {
            return obj_err(eh, &nullh, MPI_ERR_INFO, fn, "info", "invalid info handle");
        }
        const char *tl = tn_info_get(i, "thread_level");
        if (tl != NULL && (required = thread_level_of(tl)) < 0) {
            return obj_err(eh, &nullh, MPI_ERR_ARG, fn, "info",
                           "thread_level \"%s\" is not an MPI_THREAD_* level", tl);
        }
        if (tn_info_dup(i, &hints) != TN_OK) {
            return obj_err(eh, &nullh, MPI_ERR_NO_MEM, fn, NULL, "out of memory");
        }
    }
    tn_session_t *s = calloc(1, sizeof(*s));
    if (s != NULL && tn_objreg_add(s, TN_OBJ_SESSION) != TN_OK) {
        free(s);
        s = NULL;
    }
    if (s == NULL) {
        if (hints != NULL) {
            tn_info_release(hints);
        }
        return obj_err(eh, &nullh, MPI_ERR_NO_MEM, fn, NULL, "out of memory");
    }
    if ((rc = tn_mpi_rt_acquire(fn, required, &provided)) != MPI_SUCCESS) {
        if (hints != NULL) {
            tn_info_release(hints);
        }
        tn_objreg_del(s);
        free(s);
        return obj_err(eh, &nullh, rc, fn, NULL, "the MPI runtime cannot be started");
    }
    tn_mpi_enter();
    s->magic = TN_SESSION_MAGIC;
    s->errh = eh;
    tn_mpi_errh_retain(eh);
    s->hints = hints;
    s->next = tn_sessions;
    tn_sessions = s;
    tn_mpi_nsessions++;
    tn_mpi_leave();
    *session = (MPI_Session)(void *)s;
    return MPI_SUCCESS;
}

int tn_mpi_Session_finalize(MPI_Session *session)
{
    static const char fn[] = "MPI_Session_finalize";
    tn_session_t *s;
    int rc;

    if (session == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "session", "NULL pointer");
    }
    if ((rc = session_arg(fn, *session, &s)) != MPI_SUCCESS) {
        return rc;
    }
    tn_mpi_enter();
    /* what this process sent on the session's communicators completes
     * before the session goes */
    tn_p2p_flush();
    tn_mpi_buffer_release(s);
    for (tn_session_t **pp = &tn_sessions; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    }
    s->magic = 0;
    if (s->hints != NULL) {
        tn_info_release(s->hints);
    }
    tn_objreg_del(s);
    free(s);
    tn_mpi_nsessions--;
    tn_mpi_leave();
    *session = MPI_SESSION_NULL;
    return tn_mpi_rt_release(fn, 0);
}

int tn_mpi_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
    static const char fn[] = "MPI_Session_get_num_psets";
    tn_session_t *s;
    int rc;

    if ((rc = session_arg(fn, session, &s)) != MPI_SUCCESS) {
        return rc;
    }
    if (npset_names == NULL) {
        return session_err_null(s, fn, "npset_names");
    }
    *npset_names = TN_NPSETS;
    return MPI_SUCCESS;
}

int tn_mpi_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len,
                                char *pset_name)
{
    static const char fn[] = "MPI_Session_get_nth_pset";
    tn_session_t *s;
    int rc;

    if ((rc = session_arg(fn, session, &s)) != MPI_SUCCESS) {
        return rc;
    }
    MPI_Session h = session;
    if (n < 0 || n >= TN_NPSETS) {
        return obj_err(s->errh, &h, MPI_ERR_ARG, fn, "n", "%d is not in [0, %d)", n,
                       TN_NPSETS);
    }
    if (pset_len == NULL) {
        return session_err_null(s, fn, "pset_len");
    }
    int need = (int)strlen(tn_psets[n]) + 1;
    if (*pset_len <= 0) {
        *pset_len = need;             /* a query of the length, '\0' included */
        return MPI_SUCCESS;
    }
    if (pset_name == NULL) {
        return session_err_null(s, fn, "pset_name");
    }
    snprintf(pset_name, (size_t)*pset_len, "%s", tn_psets[n]);
    *pset_len = need;
    return MPI_SUCCESS;
}

/* The group of process set name, or NULL when Tern knows no such set. */
static tn_group_t *pset_group(const char *name)
{
    if (strcmp(name, "mpi://WORLD") == 0) {
        return tn_comm_world.group;
    }
    if (strcmp(name, "mpi://SELF") == 0) {
        return tn_comm_self.group;
    }
    return NULL;
}

static int pset_unknown(tn_session_t *s, const char *fn, const char *name)
{
    MPI_Session h = (MPI_Session)(void *)s;
    return obj_err(s->errh, &h, MPI_ERR_ARG, fn, "pset_name",
                   "unknown process set \"%.200s\" (Tern knows \"mpi://WORLD\" and "
                   "\"mpi://SELF\")", name);
}

int tn_mpi_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    static const char fn[] = "MPI_Session_get_pset_info";
    tn_session_t *s;
    tn_info_t *ni = NULL;
    char v[32];
    int rc;

    if ((rc = session_arg(fn, session, &s)) != MPI_SUCCESS) {
        return rc;
    }
    if (pset_name == NULL || info == NULL) {
        return session_err_null(s, fn, pset_name == NULL ? "pset_name" : "info");
    }
    tn_group_t *g = pset_group(pset_name);
    if (g == NULL) {
        return pset_unknown(s, fn, pset_name);
    }
    snprintf(v, sizeof(v), "%d", g->size);
    if (tn_info_new(&ni) != TN_OK || tn_info_set(ni, "mpi_size", v) != TN_OK) {
        if (ni != NULL) {
            tn_info_release(ni);
        }
        MPI_Session h = session;
        return obj_err(s->errh, &h, MPI_ERR_NO_MEM, fn, NULL, "out of memory");
    }
    *info = tn_mpi_info_handle(ni);
    return MPI_SUCCESS;
}

int tn_mpi_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    static const char fn[] = "MPI_Session_get_info";
    tn_session_t *s;
    tn_info_t *ni = NULL;
    tn_status_t st;
    int rc;

    if ((rc = session_arg(fn, session, &s)) != MPI_SUCCESS) {
        return rc;
    }
    if (info_used == NULL) {
        return session_err_null(s, fn, "info_used");
    }
    st = s->hints != NULL ? tn_info_dup(s->hints, &ni) : tn_info_new(&ni);
    if (st == TN_OK) {
        st = tn_info_set(ni, "thread_level", thread_level_name(tn_rt.thread_level));
    }
    if (st != TN_OK) {
        if (ni != NULL) {
            tn_info_release(ni);
        }
        MPI_Session h = session;
        return obj_err(s->errh, &h, MPI_ERR_NO_MEM, fn, NULL, "out of memory");
    }
    *info_used = tn_mpi_info_handle(ni);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------- error handlers */

int tn_mpi_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                     MPI_Errhandler *errhandler)
{
    static const char fn[] = "MPI_Session_create_errhandler";
    /* allowed before any initialization, like MPI_Session_init itself */
    if (session_errhandler_fn == NULL || errhandler == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn,
                          session_errhandler_fn == NULL ? "session_errhandler_fn"
                                                        : "errhandler", "NULL pointer");
    }
    tn_errh_t *e = tn_mpi_errh_new();
    if (e == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_NO_MEM, fn, NULL, "out of memory");
    }
    e->session_fn = session_errhandler_fn;
    *errhandler = tn_mpi_errh_handle(e);
    return MPI_SUCCESS;
}

int tn_mpi_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
    static const char fn[] = "MPI_Session_set_errhandler";
    tn_session_t *s;
    int rc;

    if ((rc = session_arg(fn, session, &s)) != MPI_SUCCESS) {
        return rc;
    }
    tn_errh_t *e = tn_mpi_errh_get(errhandler);
    if (e == NULL) {
        MPI_Session h = session;
        return obj_err(s->errh, &h, MPI_ERR_ARG, fn, "errhandler", "invalid error handler");
    }
    tn_mpi_errh_retain(e);
    if (!e->predefined) {
        e->magic = TN_ERRH_MAGIC;
    }
    s->errh = e;
    return MPI_SUCCESS;
}

int tn_mpi_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
    static const char fn[] = "MPI_Session_get_errhandler";
    tn_session_t *s;
    int rc;

    if ((rc = session_arg(fn, session, &s)) != MPI_SUCCESS) {
        return rc;
    }
    if (errhandler == NULL) {
        return session_err_null(s, fn, "errhandler");
    }
    tn_mpi_errh_retain(s->errh);
    *errhandler = tn_mpi_errh_handle(s->errh);
    return MPI_SUCCESS;
}

int tn_mpi_Session_call_errhandler(MPI_Session session, int errorcode)
{
    static const char fn[] = "MPI_Session_call_errhandler";
    tn_session_t *s;
    char msg[MPI_MAX_ERROR_STRING];
    int len, errclass = errorcode, rc;

    if ((rc = session_arg(fn, session, &s)) != MPI_SUCCESS) {
        return rc;
    }
    if (tn_mpi_Error_string(errorcode, msg, &len) != MPI_SUCCESS) {
        snprintf(msg, sizeof(msg), "error code %d", errorcode);
    } else {
        (void)tn_mpi_Error_class(errorcode, &errclass);
    }
    MPI_Session h = session;
    if (s->errh->kind == TN_ERRH_USER) {
        int code = errorcode;      /* the user's handler sees the code itself */
        if (s->errh->session_fn != NULL) {
            s->errh->session_fn(&h, &code);
        } else {
            s->errh->comm_fn((MPI_Comm *)(void *)&h, &code);
        }
        return MPI_SUCCESS;
    }
    (void)tn_mpi_errh_invoke(s->errh, &h, errclass, msg);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------- groups */

int tn_mpi_Group_from_session_pset(MPI_Session session, const char *pset_name,
                                   MPI_Group *newgroup)
{
    static const char fn[] = "MPI_Group_from_session_pset";
    tn_session_t *s;
    int rc;

    if ((rc = session_arg(fn, session, &s)) != MPI_SUCCESS) {
        return rc;
    }
    if (pset_name == NULL || newgroup == NULL) {
        return session_err_null(s, fn, pset_name == NULL ? "pset_name" : "newgroup");
    }
    tn_group_t *g = pset_group(pset_name);
    if (g == NULL) {
        return pset_unknown(s, fn, pset_name);
    }
    tn_mpi_enter();
    tn_group_retain(g);
    tn_mpi_leave();
    *newgroup = tn_mpi_group_handle(g);
    return MPI_SUCCESS;
}

/* ------------------------------------------ communicators from groups */

/* The tag a string tag stands for in the context id agreement: FNV-1a,
 * folded to a non-negative user tag (tn_comm_create_group's range). */
static int stringtag_tag(const char *stringtag)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)stringtag; *p; p++) {
        h = (h ^ *p) * 16777619u;
    }
    return (int)(h % 0x7ffffffeu);
}

/* The common checks of both constructors: error handler, string tag, info,
 * output.  *eh_p: the handler to report with and to attach (MPI_ERRHANDLER_NULL
 * stands for MPI_ERRORS_ARE_FATAL). */
static int from_group_args(const char *fn, MPI_Errhandler errhandler, const char *stringtag,
                           MPI_Info info, const void *out, const char *outname,
                           tn_errh_t **eh_p, tn_info_t **info_p)
{
    MPI_Comm nullh = MPI_COMM_NULL;
    tn_errh_t *eh = errhandler == MPI_ERRHANDLER_NULL ? &tn_errh_fatal
                                                      : tn_mpi_errh_get(errhandler);
    int rc;

    if ((rc = tn_mpi_check_init(fn)) != MPI_SUCCESS) {
        return rc;
    }
    if (eh == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ERRHANDLER, fn, "errhandler", "invalid error handler");
    }
    *eh_p = eh;
    if (stringtag == NULL || out == NULL) {
        return obj_err(eh, &nullh, MPI_ERR_ARG, fn, stringtag == NULL ? "stringtag" : outname,
                       "NULL pointer");
    }
    if (strlen(stringtag) >= MPI_MAX_STRINGTAG_LEN) {
        return obj_err(eh, &nullh, MPI_ERR_ARG, fn, "stringtag",
                       "longer than MPI_MAX_STRINGTAG_LEN - 1 (%d)", MPI_MAX_STRINGTAG_LEN - 1);
    }
    *info_p = NULL;
    if (info != MPI_INFO_NULL && (*info_p = tn_mpi_info_get(info)) == NULL) {
        return obj_err(eh, &nullh, MPI_ERR_INFO, fn, "info", "invalid info handle");
    }
    return MPI_SUCCESS;
}

static int group_of(const char *fn, tn_errh_t *eh, MPI_Group h, const char *arg,
                    tn_group_t **g_p)
{
    MPI_Comm nullh = MPI_COMM_NULL;
    if (h == MPI_GROUP_NULL || (*g_p = tn_mpi_group_get(h)) == NULL) {
        return obj_err(eh, &nullh, MPI_ERR_GROUP, fn, arg, "%s",
                       h == MPI_GROUP_NULL ? "MPI_GROUP_NULL is not a group"
                                           : "invalid group handle");
    }
    if ((*g_p)->rank == MPI_UNDEFINED) {
        return obj_err(eh, &nullh, MPI_ERR_GROUP, fn, arg,
                       "the calling process is not a member of the group");
    }
    return MPI_SUCCESS;
}

/* Give the new communicator its handler and hints, then to the user. */
static int from_group_out(const char *fn, tn_errh_t *eh, tn_info_t *info, tn_status_t st,
                          tn_comm_t *nc, MPI_Comm *newcomm)
{
    MPI_Comm nullh = MPI_COMM_NULL;
    tn_info_t *ni = NULL;

    if (st == TN_OK && info != NULL && (st = tn_info_dup(info, &ni)) != TN_OK) {
        tn_comm_release(nc);
    }
    if (st != TN_OK) {
        return obj_err(eh, &nullh, tn_mpi_class_of(st), fn, NULL, "%s", tn_status_str(st));
    }
    void *session = session_of_groups();
    tn_mpi_errh_retain(eh);
    nc->errh = eh;
    nc->session = session;
    if (nc->local != NULL) {
        nc->local->errh = eh;
        nc->local->session = session;
    }
    nc->info = ni;
    *newcomm = tn_mpi_comm_handle(nc);
    return MPI_SUCCESS;
}

int tn_mpi_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                                  MPI_Errhandler errhandler, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_create_from_group";
    tn_errh_t *eh = NULL;
    tn_info_t *i = NULL;
    tn_group_t *g = NULL;
    tn_comm_t *nc = NULL;
    tn_status_t st;
    int rc;

    if ((rc = from_group_args(fn, errhandler, stringtag, info, newcomm, "newcomm", &eh, &i)) ||
        (rc = group_of(fn, eh, group, "group", &g))) {
        return rc;
    }
    tn_mpi_enter();
    st = tn_comm_create_group(&tn_comm_world, g, stringtag_tag(stringtag), &nc);
    tn_mpi_leave();
    return from_group_out(fn, eh, i, st, nc, newcomm);
}

int tn_mpi_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                        MPI_Group remote_group, int remote_leader,
                                        const char *stringtag, MPI_Info info,
                                        MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    static const char fn[] = "MPI_Intercomm_create_from_groups";
    MPI_Comm nullh = MPI_COMM_NULL;
    tn_errh_t *eh = NULL;
    tn_info_t *i = NULL;
    tn_group_t *lg = NULL, *rg = NULL;
    tn_comm_t *lc = NULL, *ic = NULL;
    tn_status_t st;
    int rc;

    if ((rc = from_group_args(fn, errhandler, stringtag, info, newintercomm, "newintercomm",
                              &eh, &i)) ||
        (rc = group_of(fn, eh, local_group, "local_group", &lg))) {
        return rc;
    }
    if (remote_group == MPI_GROUP_NULL || (rg = tn_mpi_group_get(remote_group)) == NULL ||
        rg->size == 0) {
        return obj_err(eh, &nullh, MPI_ERR_GROUP, fn, "remote_group", "%s",
                       rg == NULL ? "invalid group handle" : "empty group");
    }
    /* every member checks what the leaders use, so that a bad argument
     * fails everywhere instead of leaving the other group waiting */
    if (local_leader < 0 || local_leader >= lg->size) {
        return obj_err(eh, &nullh, MPI_ERR_RANK, fn, "local_leader",
                       "rank %d is not in [0, %d) of the local group", local_leader, lg->size);
    }
    if (remote_leader < 0 || remote_leader >= rg->size) {
        return obj_err(eh, &nullh, MPI_ERR_RANK, fn, "remote_leader",
                       "rank %d is not in [0, %d) of the remote group", remote_leader,
                       rg->size);
    }
    for (int r = 0; r < rg->size; r++) {
        if (tn_group_rank_of_world(lg, rg->world[r]) != MPI_UNDEFINED) {
            return obj_err(eh, &nullh, MPI_ERR_GROUP, fn, "remote_group",
                           "rank %d of the remote group is in the local group too", r);
        }
    }
    int tag = stringtag_tag(stringtag);
    tn_mpi_enter();
    /* a temporary intracommunicator over the local group; the leaders then
     * meet over the world communicator (its collective context) */
    st = tn_comm_create_group(&tn_comm_world, lg, tag, &lc);
    if (st == TN_OK) {
        st = tn_comm_intercomm_create(lc, local_leader, &tn_comm_world,
                                      rg->world[remote_leader], tag, &ic);
        tn_comm_release(lc);
    }
    tn_mpi_leave();
    return from_group_out(fn, eh, i, st, ic, newintercomm);
}
