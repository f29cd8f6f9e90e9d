/* Environment: init/finalize, threads, time, versions, abort. */
#include "mpi/mpi_impl.h"
#include "base/config.h"
#include "coll/coll.h"
#include "coll/coll_sched.h"
#include "rma/rma.h"
#include "base/counters.h"
#include "tn_status_calls.h"
#include "mpi/mpi_trace.h"
#include "xport/xport.h"

/* the generated bindings' table (tools/abi/gen_bindings.py) */
extern const char *const tn_mon_call_names[TN_MON_NCALLS] __attribute__((visibility("hidden")));

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *tn_mpi_thread_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE:     return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:   return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE:   return "MPI_THREAD_MULTIPLE";
    default:                    return NULL;
    }
}

/* TERN_TRACE: open the rank's trace (base/trace.h) and name MPI_COMM_WORLD
 * in it.  Failures are warned about there; the job runs untraced. */
static void tn_mpi_trace_open(void)
{
    if (tn_cfg.trace == NULL || tn_cfg.trace[0] == '\0') {
        return;
    }
    size_t nalgos = 0;
    while (tn_coll_algos[nalgos].name != NULL) {
        nalgos++;
    }
    char **algos = calloc(nalgos + 1, sizeof(*algos));
    if (algos == NULL) {
        return;
    }
    for (size_t i = 0; i < nalgos; i++) {
        const char *k = tn_coll_kind_name(tn_coll_algos[i].kind);
        size_t n = strlen(k) + strlen(tn_coll_algos[i].name) + 2;
        algos[i] = malloc(n);
        if (algos[i] == NULL) {
            nalgos = i;
            break;
        }
        snprintf(algos[i], n, "%s:%s", k, tn_coll_algos[i].name);
        for (char *q = algos[i]; *q != ':'; q++) {
            *q = (char)tolower((unsigned char)*q);
        }
    }
    int rails = 0;
    for (int r = 0; r < tn_rt.world_size && rails == 0; r++) {
        tern_udp_peer_stats_t ps;
        if (r != tn_rt.world_rank && tn_xport_udp_tool_peer_stats(r, &ps) == 0) {
            rails = ps.nrails;
        }
    }
    unsigned init_call = 0;
    for (unsigned i = 0; i < TN_MON_NCALLS; i++) {
        if (strcmp(tn_mon_call_names[i], "MPI_Init") == 0) {
            init_call = i;
        }
    }
    tn_trace_ident_t id = {
        .dir = tn_cfg.trace, .job = tn_rt.kvsname, .host = tn_rt.hostname,
        .rank = tn_rt.world_rank, .size = tn_rt.world_size, .node = tn_rt.node_id,
        .nnodes = tn_rt.nnodes, .rails = rails,
        .calls = tn_mon_call_names, .ncalls = TN_MON_NCALLS,
        .algos = (const char *const *)algos, .nalgos = (unsigned)nalgos,
        .buffer = (size_t)tn_cfg.trace_buffer, .tsc = tn_cfg.trace_tsc,
        .events = tn_cfg.trace_events,
        .init_call = init_call,
    };
    if (tn_trace_open(&id) == 0) {
        tn_trace_threads(tn_rt.thread_multiple);
        tn_mpi_trace_comm(&tn_comm_world);
        tn_mpi_trace_comm(&tn_comm_self);
    }
    for (size_t i = 0; i < nalgos; i++) {
        free(algos[i]);
    }
    free(algos);
}

/* The core's progress: point-to-point sends, then collective schedules. */
static int tn_mpi_progress_hook(void)
{
    return tn_p2p_progress() + tn_coll_sched_progress() + tn_rma_progress();
}

int tn_mpi_world_state;
int tn_mpi_nsessions;

/* The runtime and the core: 0 never started, 1 up, 2 torn down. */
static int tn_mpi_rt_state;

int tn_mpi_rt_acquire(const char *fn, int required, int *provided_p)
{
    if (tn_mpi_rt_state == 2) {
        fprintf(stderr, "[tern] %s: MPI was finalized and cannot be started again\n", fn);
        return MPI_ERR_OTHER;
    }
    if (tn_mpi_rt_state == 1) {
        /* no other thread is inside MPI while a model starts */
        *provided_p = tn_rt_raise_thread_level(required);
        tn_trace_threads(tn_rt.thread_multiple);
        return MPI_SUCCESS;
    }
    static const tn_rt_hooks_t hooks = {
        .am_handler = tn_p2p_am_recv,
        .ref_done = tn_p2p_ref_done,
        .progress = tn_mpi_progress_hook,
        .status_fill = tn_mpi_hang_fill,
        .peers_grow = tn_p2p_peers_grow,
    };
    int granted;
    tn_trace_init_begins();
    /* the stats segment names the functions its calls counts count */
    tn_ctr_axis_names(TN_CTR_AXIS_CALLS, tn_mon_call_names, TN_MON_NCALLS);
    tn_status_t st = tn_rt_init(required, &granted, &hooks);
    if (st == TN_OK) {
        st = tn_p2p_init();
    }
    if (st == TN_OK) {
        st = tn_comm_init(tn_rt.world_rank, tn_rt.world_size);
    }
    if (st == TN_OK) {
        st = tn_mpi_dyn_init();
    }
    if (st == TN_OK) {
        tn_mpi_trace_open();            /* TERN_TRACE: before any thread can call MPI */
        st = tn_rt_async_start();       /* TERN_ASYNC_PROGRESS: the engine is ready */
    }
    if (st != TN_OK) {
        char msg[256];
        snprintf(msg, sizeof(msg), "%s: start-up failed: %s", fn, tn_status_str(st));
        tn_rt_abort(MPI_ERR_OTHER, msg);
    }
    tn_mpi_rt_state = 1;
    *provided_p = granted;
    return MPI_SUCCESS;
}

/* Complete our sends (buffered and freed ones too), then wait for every
 * rank to do so while still progressing, so that nobody is left blocked
 * sending to a rank that stopped listening; then stop everything.  Every
 * process does this exactly once, from MPI_Finalize or at exit. */
static tn_status_t tn_mpi_rt_teardown(void)
{
    tn_rt_async_stop();     /* from here on only this thread is inside MPI */
    tn_mpi_enter();
    tn_p2p_flush();
    tn_status_t st = tn_coll_barrier(&tn_comm_world);
    if (st == TN_OK) {
        st = tn_rt_finalize();
    }
    tn_mpi_dyn_finalize();
    tn_comm_finalize();
    tn_p2p_finalize();
    tn_coll_buf_drain();
    tn_comm_world.errh = tn_comm_self.errh = &tn_errh_return;
    tn_mpi_errh_free_all();
    tn_trace_close();
    tn_mpi_rt_state = 2;
    tn_mpi_leave();
    return st;
}

static void tn_mpi_rt_atexit(void)
{
    /* a program that forgot MPI_Finalize or MPI_Session_finalize keeps the
     * old behaviour: no collective teardown it might hang in */
    if (tn_mpi_rt_state == 1 && tn_mpi_nsessions == 0 && !tn_mpi_world_active() &&
        getpid() == tn_rt.pid) {
        (void)tn_mpi_rt_teardown();
    }
}

int tn_mpi_rt_release(const char *fn, int now)
{
    static int atexit_set;
    if (tn_mpi_rt_state != 1 || tn_mpi_nsessions > 0 || tn_mpi_world_active()) {
        return MPI_SUCCESS;
    }
    if (now) {
        tn_status_t st = tn_mpi_rt_teardown();
        if (st != TN_OK) {
            return tn_mpi_err(NULL, tn_mpi_class_of(st), fn, NULL, "%s", tn_status_str(st));
        }
        return MPI_SUCCESS;
    }
    if (!atexit_set) {
        atexit_set = 1;
        atexit(tn_mpi_rt_atexit);
    }
    return MPI_SUCCESS;
}

static int tn_mpi_init_common(const char *fn, int required, int *provided)
{
    if (tn_mpi_world_state != 0) {
        fprintf(stderr, "[tern] %s: MPI is already %s\n", fn,
                tn_mpi_world_state == 2 ? "finalized" : "initialized");
        return MPI_ERR_OTHER;
    }
    if (tn_mpi_thread_name(required) == NULL) {
        fprintf(stderr, "[tern] %s(required): %d is not an MPI_THREAD_* level\n", fn, required);
        return MPI_ERR_ARG;
    }
    int granted;
    int rc = tn_mpi_rt_acquire(fn, required, &granted);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    tn_comm_world.errh = &tn_errh_fatal;
    tn_comm_self.errh = &tn_errh_fatal;
    tn_mpi_world_state = 1;
    if (provided != NULL) {
        *provided = granted;
    }
    return MPI_SUCCESS;
}

int tn_mpi_Init(int *argc, char ***argv)
{
    return tn_mpi_init_common("MPI_Init", MPI_THREAD_SINGLE, NULL);
}

int tn_mpi_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (provided == NULL) {
        fprintf(stderr, "[tern] MPI_Init_thread(provided): NULL pointer\n");
        return MPI_ERR_ARG;
    }
    return tn_mpi_init_common("MPI_Init_thread", required, provided);
}

int tn_mpi_Finalize(void)
{
    if (!tn_mpi_world_active()) {
        fprintf(stderr, "[tern] MPI_Finalize: called %s\n",
                tn_mpi_world_state == 2 ? "twice" : "before MPI_Init");
        return MPI_ERR_OTHER;
    }
    /* delete callbacks of attributes on MPI_COMM_SELF run first, while MPI
     * still works (the standard's hook for "at finalize" actions) */
    (void)tn_mpi_attr_finalize();
    tn_mpi_world_state = 2;
    /* with sessions still open the runtime stays up for them */
    return tn_mpi_rt_release("MPI_Finalize", 1);
}

int tn_mpi_Initialized(int *flag)
{
    if (flag == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, "MPI_Initialized", "flag", "NULL pointer");
    }
    *flag = tn_mpi_world_state != 0;
    return MPI_SUCCESS;
}

int tn_mpi_Finalized(int *flag)
{
    if (flag == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, "MPI_Finalized", "flag", "NULL pointer");
    }
    *flag = tn_mpi_world_state == 2;
    return MPI_SUCCESS;
}

int tn_mpi_Query_thread(int *provided)
{
    int rc = tn_mpi_check_init("MPI_Query_thread");
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (provided == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, "MPI_Query_thread", "provided", "NULL pointer");
    }
    *provided = tn_rt.thread_level;
    return MPI_SUCCESS;
}

int tn_mpi_Is_thread_main(int *flag)
{
    int rc = tn_mpi_check_init("MPI_Is_thread_main");
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (flag == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, "MPI_Is_thread_main", "flag", "NULL pointer");
    }
    *flag = pthread_equal(pthread_self(), tn_rt.main_thread) != 0;
    return MPI_SUCCESS;
}

int tn_mpi_Abort(MPI_Comm comm, int errorcode)
{
    char msg[128];
    snprintf(msg, sizeof(msg), "MPI_Abort called with error code %d", errorcode);
    tn_rt_abort_user(errorcode, msg);
}

double tn_mpi_Wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double tn_mpi_Wtick(void)
{
    struct timespec ts;
    if (clock_getres(CLOCK_MONOTONIC, &ts) == 0 && (ts.tv_sec || ts.tv_nsec)) {
        return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
    }
    return 1e-9;
}

int tn_mpi_Get_processor_name(char *name, int *resultlen)
{
    if (name == NULL || resultlen == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, "MPI_Get_processor_name",
                          name == NULL ? "name" : "resultlen", "NULL pointer");
    }
    char host[MPI_MAX_PROCESSOR_NAME];
    if (gethostname(host, sizeof(host)) != 0) {
        snprintf(host, sizeof(host), "localhost");
    }
    host[sizeof(host) - 1] = '\0';
    snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", host);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

int tn_mpi_Get_version(int *version, int *subversion)
{
    if (version == NULL || subversion == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, "MPI_Get_version",
                          version == NULL ? "version" : "subversion", "NULL pointer");
    }
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

int tn_mpi_Get_library_version(char *version, int *resultlen)
{
    if (version == NULL || resultlen == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, "MPI_Get_library_version",
                          version == NULL ? "version" : "resultlen", "NULL pointer");
    }
    /* the transports this process uses, which only MPI_Init decides */
    char xports[64];
    tn_rt_xports_in_use(xports, sizeof(xports));
    snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
             "Tern %s (MPI %d.%d, standard ABI %d.%d); transports: %s",
             TERN_VERSION, MPI_VERSION, MPI_SUBVERSION, MPI_ABI_VERSION, MPI_ABI_SUBVERSION,
             xports[0] != '\0' ? xports : "none started");
    *resultlen = (int)strlen(version);
    return MPI_SUCCESS;
}

int tn_mpi_Abi_get_version(int *abi_major, int *abi_minor)
{
    if (abi_major == NULL || abi_minor == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, "MPI_Abi_get_version",
                          abi_major == NULL ? "abi_major" : "abi_minor", "NULL pointer");
    }
    *abi_major = MPI_ABI_VERSION;
    *abi_minor = MPI_ABI_SUBVERSION;
    return MPI_SUCCESS;
}
