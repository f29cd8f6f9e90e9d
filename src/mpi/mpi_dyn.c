/* Dynamic processes: ports, accept/connect, join, the name service, spawn
 * and the parent intercommunicator (docs/dynamic.md).
 *
 * A port name is "tern:<port id, 16 hex digits>:<card of the opener>"
 * (runtime/proc.h); the id is random, so a stale name finds no port.
 * Spawn asks the launcher over PMI for a new job whose key/value space
 * holds the root's port name (PARENT_ROOT_PORT_NAME, as MPICH names it) and
 * the job's secret; the children connect to it from MPI_Init over their
 * MPI_COMM_WORLD while the parents accept on it. */
#include "mpi/mpi_impl.h"
#include "mpi/mpi_trace.h"
#include "mpi/mpi_info.h"
#include "comm/comm.h"
#include "coll/coll.h"
#include "dt/dt.h"
#include "runtime/pmi.h"
#include "runtime/proc.h"
#include "runtime/rt.h"
#include "xport/sock/sock.h"
#include "base/log.h"

#include <inttypes.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DYN_CONNECT_MS 60000

static tn_comm_t *tn_dyn_parent;     /* our reference; NULL: no parent */

/* Split a port name into its id and its opener's addresses. */
static int port_parse(const char *name, uint64_t *id_p, char *addrs, size_t len)
{
    char hex[17];
    if (name == NULL || strncmp(name, "tern:", 5) != 0 || strlen(name) < 5 + 16 + 2 ||
        name[5 + 16] != ':') {
        return 0;
    }
    memcpy(hex, name + 5, 16);
    hex[16] = '\0';
    char *end = NULL;
    *id_p = strtoull(hex, &end, 16);
    const char *at = strchr(name + 5 + 17, '@');
    if (end != hex + 16 || *id_p == 0 || at == NULL || strlen(at + 1) >= len) {
        return 0;
    }
    snprintf(addrs, len, "%s", at + 1);
    char *bang = strrchr(addrs, '!');           /* the opener's node */
    if (bang != NULL) {
        *bang = '\0';
    }
    return 1;
}

static tn_status_t port_open(char *name, size_t len, uint64_t *id_p)
{
    char card[TN_PROC_CARD_MAX];
    uint64_t id = 0;
    tn_status_t st = tn_rt_proc_card(card, sizeof(card));
    if (st != TN_OK) {
        return st;
    }
    while (id == 0) {
        randombytes_buf(&id, sizeof(id));
    }
    if ((st = tn_xport_sock_port_open(id)) != TN_OK) {
        return st;
    }
    snprintf(name, len, "tern:%016" PRIx64 ":%s", id, card);
    *id_p = id;
    return TN_OK;
}

int tn_mpi_Open_port(MPI_Info info, char *port_name)
{
    static const char fn[] = "MPI_Open_port";
    uint64_t id;
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (port_name == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "port_name", "NULL pointer");
    }
    tn_mpi_enter();
    tn_status_t st = port_open(port_name, MPI_MAX_PORT_NAME, &id);
    tn_mpi_leave();
    if (st != TN_OK) {
        return tn_mpi_err(NULL, MPI_ERR_PORT, fn, NULL, "cannot open a port: %s",
                          tn_status_str(st));
    }
    return MPI_SUCCESS;
}

int tn_mpi_Close_port(const char *port_name)
{
    static const char fn[] = "MPI_Close_port";
    char addrs[TN_SOCK_ADDRS_MAX];
    uint64_t id;
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (!port_parse(port_name, &id, addrs, sizeof(addrs)) || !tn_xport_sock_port_is_open(id)) {
        return tn_mpi_err(NULL, MPI_ERR_PORT, fn, "port_name", "not a port opened here");
    }
    tn_mpi_enter();
    tn_xport_sock_port_drop(id);
    tn_mpi_leave();
    return MPI_SUCCESS;
}

typedef struct {
    uint64_t id;
    int      fd;
} take_t;

static int port_taken(void *arg)
{
    take_t *t = arg;
    return t->fd >= 0 || tn_xport_sock_port_take(t->id, &t->fd);
}

/* The shared part of accept and connect once the root has (or has not)
 * its connection. */
static int dyn_meet(const char *fn, tn_comm_t *c, int fd, int accept_side, int root,
                    MPI_Comm *newcomm)
{
    tn_comm_t *ic = NULL;
    tn_status_t st = tn_comm_dyn_meet(fd, accept_side, root, c, &ic);
    if (fd >= 0) {
        close(fd);
    }
    if (st != TN_OK) {
        tn_mpi_leave();
        return tn_mpi_err(c, MPI_ERR_PORT, fn, NULL, "the groups could not meet: %s",
                          tn_status_str(st));
    }
    tn_mpi_leave();
    *newcomm = tn_mpi_comm_handle(ic);
    TN_MPI_TRACE(tn_mpi_trace_newcomm_(ic));
    return MPI_SUCCESS;
}

static int dyn_args(const char *fn, int root, MPI_Comm comm, MPI_Comm *newcomm,
                    tn_comm_t **c_p)
{
    int rc;
    if ((rc = tn_mpi_check_comm(fn, comm, c_p)) || (rc = tn_mpi_check_intra(fn, *c_p, "comm")) ||
        (rc = tn_mpi_check_root(fn, *c_p, root))) {
        return rc;
    }
    if (newcomm == NULL) {
        return tn_mpi_err(*c_p, MPI_ERR_ARG, fn, "newcomm", "NULL pointer");
    }
    return MPI_SUCCESS;
}

/* Accept on port_id (root only). */
static int dyn_accept(const char *fn, uint64_t id, int root, tn_comm_t *c, MPI_Comm *newcomm)
{
    take_t t = { .id = id, .fd = -1 };
    if (c->rank == root && !port_taken(&t)) {
        tn_rt_wait(port_taken, &t);
    }
    return dyn_meet(fn, c, t.fd, 1, root, newcomm);
}

int tn_mpi_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                       MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_accept";
    tn_comm_t *c = NULL;
    char addrs[TN_SOCK_ADDRS_MAX];
    uint64_t id = 0;
    int rc = dyn_args(fn, root, comm, newcomm, &c);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (c->rank == root &&
        (!port_parse(port_name, &id, addrs, sizeof(addrs)) || !tn_xport_sock_port_is_open(id))) {
        /* the whole group fails in the meeting with MPI_ERR_PORT */
        tn_log_error("mpi", "MPI_Comm_accept: %s is not a port opened here",
                     port_name ? port_name : "(NULL)");
        tn_mpi_enter();
        return dyn_meet(fn, c, -1, 1, root, newcomm);
    }
    tn_mpi_enter();
    return dyn_accept(fn, id, root, c, newcomm);
}

int tn_mpi_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                        MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_connect";
    tn_comm_t *c = NULL;
    char addrs[TN_SOCK_ADDRS_MAX];
    uint64_t id;
    int fd = -1;
    int rc = dyn_args(fn, root, comm, newcomm, &c);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    tn_mpi_enter();
    if (c->rank == root) {
        tn_status_t st = TN_ERR_INVAL;
        if (port_parse(port_name, &id, addrs, sizeof(addrs)) &&
            (st = tn_rt_proc_setup()) == TN_OK) {
            st = tn_xport_sock_port_connect(addrs, id, DYN_CONNECT_MS, &fd);
        }
        if (st != TN_OK) {
            tn_log_error("mpi", "MPI_Comm_connect: no port %s: %s", port_name ? port_name : "",
                         tn_status_str(st));
            fd = -1;
        }
    }
    return dyn_meet(fn, c, fd, 0, root, newcomm);
}

/* Over the user's connected socket: swap port names (length, then the
 * name); the lower name accepts, the other connects, each alone. */
int tn_mpi_Comm_join(int fd, MPI_Comm *intercomm)
{
    static const char fn[] = "MPI_Comm_join";
    char mine[MPI_MAX_PORT_NAME], theirs[MPI_MAX_PORT_NAME], addrs[TN_SOCK_ADDRS_MAX];
    uint64_t id, tid;
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (intercomm == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "intercomm", "NULL pointer");
    }
    tn_mpi_enter();
    tn_status_t st = port_open(mine, sizeof(mine), &id);
    uint32_t len = (uint32_t)strlen(mine), rlen = 0;
    if (st == TN_OK &&
        (write(fd, &len, 4) != 4 || write(fd, mine, len) != (ssize_t)len ||
         read(fd, &rlen, 4) != 4 || rlen == 0 || rlen >= sizeof(theirs))) {
        st = TN_ERR_IO;
    }
    size_t got = 0;
    while (st == TN_OK && got < rlen) {
        ssize_t r = read(fd, theirs + got, rlen - got);
        if (r <= 0) {
            st = TN_ERR_IO;
            break;
        }
        got += (size_t)r;
    }
    if (st != TN_OK) {
        tn_mpi_leave();
        return tn_mpi_err(NULL, MPI_ERR_OTHER, fn, "fd", "cannot swap port names over fd: %s",
                          tn_status_str(st));
    }
    theirs[rlen] = '\0';
    if (!port_parse(theirs, &tid, addrs, sizeof(addrs))) {
        tn_xport_sock_port_drop(id);
        tn_mpi_leave();
        return tn_mpi_err(NULL, MPI_ERR_OTHER, fn, "fd", "the other side sent no port name");
    }
    if (strcmp(mine, theirs) < 0) {
        rc = dyn_accept(fn, id, 0, &tn_comm_self, intercomm);
    } else {
        int cfd = -1;
        if (tn_xport_sock_port_connect(addrs, tid, DYN_CONNECT_MS, &cfd) != TN_OK) {
            cfd = -1;
        }
        rc = dyn_meet(fn, &tn_comm_self, cfd, 0, 0, intercomm);
    }
    tn_mpi_enter();
    tn_xport_sock_port_drop(id);
    tn_mpi_leave();
    return rc;
}

/* ---------------------------------------------------------- names */

int tn_mpi_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    static const char fn[] = "MPI_Publish_name";
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (service_name == NULL || port_name == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, service_name ? "port_name" : "service_name",
                          "NULL pointer");
    }
    tn_mpi_enter();
    tn_status_t st = tn_pmi_publish(service_name, port_name);
    tn_mpi_leave();
    if (st == TN_ERR_UNSUPPORTED) {
        return tn_mpi_err(NULL, MPI_ERR_UNSUPPORTED_OPERATION, fn, NULL,
                          "no name service: the launcher does not serve PMI-1 names");
    }
    if (st != TN_OK) {
        return tn_mpi_err(NULL, MPI_ERR_SERVICE, fn, "service_name",
                          "'%s' cannot be published (already published?)", service_name);
    }
    return MPI_SUCCESS;
}

int tn_mpi_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    static const char fn[] = "MPI_Lookup_name";
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (service_name == NULL || port_name == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, service_name ? "port_name" : "service_name",
                          "NULL pointer");
    }
    tn_mpi_enter();
    tn_status_t st = tn_pmi_lookup(service_name, port_name, MPI_MAX_PORT_NAME);
    tn_mpi_leave();
    if (st == TN_ERR_UNSUPPORTED) {
        return tn_mpi_err(NULL, MPI_ERR_UNSUPPORTED_OPERATION, fn, NULL,
                          "no name service: the launcher does not serve PMI-1 names");
    }
    if (st != TN_OK) {
        return tn_mpi_err(NULL, MPI_ERR_NAME, fn, "service_name", "'%s' is not published",
                          service_name);
    }
    return MPI_SUCCESS;
}

int tn_mpi_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    static const char fn[] = "MPI_Unpublish_name";
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (service_name == NULL || port_name == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, service_name ? "port_name" : "service_name",
                          "NULL pointer");
    }
    tn_mpi_enter();
    tn_status_t st = tn_pmi_unpublish(service_name);
    tn_mpi_leave();
    if (st == TN_ERR_UNSUPPORTED) {
        return tn_mpi_err(NULL, MPI_ERR_UNSUPPORTED_OPERATION, fn, NULL,
                          "no name service: the launcher does not serve PMI-1 names");
    }
    if (st != TN_OK) {
        return tn_mpi_err(NULL, MPI_ERR_SERVICE, fn, "service_name", "'%s' is not published",
                          service_name);
    }
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------- spawn */

/* Root: ask the launcher, then accept the children on a fresh port.  The
 * others: learn the outcome, then meet.  errcodes (total entries) on every
 * rank. */
static int dyn_spawn(const char *fn, int count, const tn_pmi_spawn_cmd_t *cmds, int root,
                     tn_comm_t *c, MPI_Comm *intercomm, int *errcodes, int total)
{
    char port[MPI_MAX_PORT_NAME], secret[TN_PROC_SECRET_HEX];
    int64_t out[2] = { TN_OK, 0 };
    uint64_t id = 0;
    int *codes = calloc((size_t)total, sizeof(int));
    tn_status_t st;

    if (codes == NULL) {
        tn_mpi_leave();
        return tn_mpi_err(c, MPI_ERR_NO_MEM, fn, NULL, "out of memory");
    }
    if (c->rank == root) {
        st = port_open(port, sizeof(port), &id);
        if (st == TN_OK) {
            st = tn_rt_proc_secret_hex(secret, sizeof(secret));
        }
        if (st == TN_OK) {
            const char *pk[2] = { TN_PROC_PARENT_PORT, TN_PROC_PARENT_SECRET };
            const char *pv[2] = { port, secret };
            st = tn_pmi_spawn(count, cmds, 2, pk, pv, codes);
            sodium_memzero(secret, sizeof(secret));
        }
        out[0] = st;
    }
    st = tn_coll_bcast(out, sizeof(out), tn_dt_byte(), root, c);
    if (st == TN_OK) {
        st = tn_coll_bcast(codes, (size_t)total * sizeof(int), tn_dt_byte(), root, c);
    }
    if (st == TN_OK && out[0] != TN_OK) {
        st = (tn_status_t)out[0];
    }
    if (errcodes != MPI_ERRCODES_IGNORE) {
        for (int i = 0; i < total; i++) {
            errcodes[i] = st == TN_OK && codes[i] == 0 ? MPI_SUCCESS : MPI_ERR_SPAWN;
        }
    }
    free(codes);
    if (st != TN_OK) {
        if (id != 0) {
            tn_xport_sock_port_drop(id);
        }
        tn_mpi_leave();
        return tn_mpi_err(c, st == TN_ERR_UNSUPPORTED ? MPI_ERR_UNSUPPORTED_OPERATION :
                          MPI_ERR_SPAWN, fn, NULL, "%s",
                          st == TN_ERR_UNSUPPORTED ?
                          "the launcher cannot start processes (run under tern-run or "
                          "mpiexec.hydra)" :
                          "the launcher could not start the processes");
    }
    int rc = dyn_accept(fn, id, root, c, intercomm);
    tn_mpi_enter();
    if (id != 0) {
        tn_xport_sock_port_drop(id);
    }
    tn_mpi_leave();
    return rc == MPI_SUCCESS ? rc : tn_mpi_err(c, MPI_ERR_SPAWN, fn, NULL,
                                               "the children did not connect back");
}

/* The info of a spawn command as key/value arrays (malloc'd). */
static void info_pairs(MPI_Info info, tn_pmi_spawn_cmd_t *cmd)
{
    tn_info_t *in = info == MPI_INFO_NULL ? NULL : tn_mpi_info_get(info);
    int n = in != NULL ? tn_info_nkeys(in) : 0;
    const char **k = n ? malloc(sizeof(char *) * (size_t)n) : NULL;
    const char **v = n ? malloc(sizeof(char *) * (size_t)n) : NULL;
    cmd->ninfo = 0;
    if (n == 0 || k == NULL || v == NULL) {
        free(k);
        free(v);
        cmd->info_key = cmd->info_val = NULL;
        return;
    }
    for (int i = 0; i < n; i++) {
        k[i] = tn_info_nthkey(in, i);
        v[i] = tn_info_get(in, k[i]);
    }
    cmd->ninfo = n;
    cmd->info_key = k;
    cmd->info_val = v;
}

int tn_mpi_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                      MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    static const char fn[] = "MPI_Comm_spawn";
    tn_comm_t *c = NULL;
    tn_pmi_spawn_cmd_t cmd = { 0 };
    int rc = dyn_args(fn, root, comm, intercomm, &c);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (c->rank == root && (command == NULL || maxprocs <= 0)) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, command == NULL ? "command" : "maxprocs",
                          command == NULL ? "NULL pointer" : "must be positive");
    }
    int64_t n = c->rank == root ? maxprocs : 0;
    tn_mpi_enter();
    /* maxprocs counts only at the root: everyone needs it for errcodes */
    if (tn_coll_bcast(&n, sizeof(n), tn_dt_byte(), root, c) != TN_OK) {
        tn_mpi_leave();
        return tn_mpi_err(c, MPI_ERR_OTHER, fn, NULL, "broadcast failed");
    }
    if (c->rank == root) {
        cmd.cmd = command;
        cmd.argv = argv;
        cmd.maxprocs = maxprocs;
        info_pairs(info, &cmd);
    }
    rc = dyn_spawn(fn, 1, &cmd, root, c, intercomm, array_of_errcodes, (int)n);
    free((void *)cmd.info_key);
    free((void *)cmd.info_val);
    return rc;
}

int tn_mpi_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                               const int array_of_maxprocs[], const MPI_Info array_of_info[],
                               int root, MPI_Comm comm, MPI_Comm *intercomm,
                               int array_of_errcodes[])
{
    static const char fn[] = "MPI_Comm_spawn_multiple";
    tn_comm_t *c = NULL;
    tn_pmi_spawn_cmd_t *cmds = NULL;
    int rc = dyn_args(fn, root, comm, intercomm, &c);
    int64_t total = 0;
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (c->rank == root) {
        if (count <= 0 || array_of_commands == NULL || array_of_maxprocs == NULL) {
            return tn_mpi_err(c, MPI_ERR_ARG, fn, count <= 0 ? "count" : "array_of_commands",
                              "must be positive / non-NULL");
        }
        cmds = calloc((size_t)count, sizeof(*cmds));
        if (cmds == NULL) {
            return tn_mpi_err(c, MPI_ERR_NO_MEM, fn, NULL, "out of memory");
        }
        for (int i = 0; i < count; i++) {
            if (array_of_commands[i] == NULL || array_of_maxprocs[i] <= 0) {
                for (int j = 0; j < i; j++) {
                    free((void *)cmds[j].info_key);
                    free((void *)cmds[j].info_val);
                }
                free(cmds);
                return tn_mpi_err(c, MPI_ERR_ARG, fn, "array_of_maxprocs",
                                  "command %d: no command, or maxprocs not positive", i);
            }
            cmds[i].cmd = array_of_commands[i];
            cmds[i].argv = array_of_argv != MPI_ARGVS_NULL ? array_of_argv[i] : NULL;
            cmds[i].maxprocs = array_of_maxprocs[i];
            info_pairs(array_of_info != NULL ? array_of_info[i] : MPI_INFO_NULL, &cmds[i]);
            total += array_of_maxprocs[i];
        }
    }
    tn_mpi_enter();
    if (tn_coll_bcast(&total, sizeof(total), tn_dt_byte(), root, c) != TN_OK) {
        tn_mpi_leave();
        rc = tn_mpi_err(c, MPI_ERR_OTHER, fn, NULL, "broadcast failed");
    } else {
        rc = dyn_spawn(fn, count, cmds, root, c, intercomm, array_of_errcodes, (int)total);
    }
    for (int i = 0; cmds != NULL && i < count; i++) {
        free((void *)cmds[i].info_key);
        free((void *)cmds[i].info_val);
    }
    free(cmds);
    return rc;
}

/* ---------------------------------------------------------- parent */

tn_status_t tn_mpi_dyn_init(void)
{
    char port[MPI_MAX_PORT_NAME], addrs[TN_SOCK_ADDRS_MAX];
    uint64_t id;
    int fd = -1;
    tn_comm_t *ic = NULL;
    if (tn_rt_proc_preput(TN_PROC_PARENT_PORT, port, sizeof(port)) != TN_OK) {
        return TN_OK;                          /* not spawned */
    }
    if (tn_rt.world_rank == 0) {
        tn_status_t st = TN_ERR_INVAL;
        if (port_parse(port, &id, addrs, sizeof(addrs)) && (st = tn_rt_proc_setup()) == TN_OK) {
            st = tn_xport_sock_port_connect(addrs, id, DYN_CONNECT_MS, &fd);
        }
        if (st != TN_OK) {
            tn_log_error("mpi", "a spawned job cannot reach its parent: %s", tn_status_str(st));
            fd = -1;
        }
    }
    tn_status_t st = tn_comm_dyn_meet(fd, 0, 0, &tn_comm_world, &ic);
    if (fd >= 0) {
        close(fd);
    }
    if (st == TN_OK) {
        tn_comm_retain(ic);                    /* one for the user, one for us */
        tn_dyn_parent = ic;
    }
    return st;
}

void tn_mpi_dyn_finalize(void)
{
    if (tn_dyn_parent != NULL) {
        tn_comm_release(tn_dyn_parent);
        tn_dyn_parent = NULL;
    }
}

int tn_mpi_Comm_get_parent(MPI_Comm *parent)
{
    static const char fn[] = "MPI_Comm_get_parent";
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (parent == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "parent", "NULL pointer");
    }
    /* the user's reference gone (MPI_Comm_disconnect, MPI_Comm_free): none */
    *parent = tn_dyn_parent != NULL && tn_dyn_parent->refcount > 1 ?
              tn_mpi_comm_handle(tn_dyn_parent) : MPI_COMM_NULL;
    return MPI_SUCCESS;
}
