#include "runtime/pmi.h"
#include "base/config.h"
#include "base/log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TN_PMI_LINE 2048

static struct {
    int   fd;
    pid_t pid;
    int   singleton;
    char  kvsname[256];
    char  buf[TN_PMI_LINE * 2];
    size_t buflen;
    /* singleton key/value space */
    char **keys, **vals;
    int    nkv;
} tn_pmi = { .fd = -1 };

/* send() with MSG_NOSIGNAL: a launcher that went away gives EPIPE, never a
 * SIGPIPE that would kill the rank.  The application's SIGPIPE disposition
 * is left as it was (its own pipes behave as without MPI).  PMI_FD might
 * be a pipe rather than a socket: then write(), as before. */
static tn_status_t tn_pmi_write(const char *line)
{
    size_t len = strlen(line), off = 0;
    while (off < len) {
        ssize_t n = send(tn_pmi.fd, line + off, len - off, MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK) {
            n = write(tn_pmi.fd, line + off, len - off);
        }
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            tn_log_error("rt", "write to the PMI server failed: %m");
            return TN_ERR_IO;
        }
        off += (size_t)n;
    }
    return TN_OK;
}

static int64_t tn_pmi_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read one line (without the newline) into line, waiting until deadline
 * (CLOCK_MONOTONIC ms; -1: no limit).  TN_ERR_TIMEOUT when it passes. */
static tn_status_t tn_pmi_readline(char *line, size_t len, int64_t deadline)
{
    for (;;) {
        char *nl = memchr(tn_pmi.buf, '\n', tn_pmi.buflen);
        if (nl != NULL) {
            size_t n = (size_t)(nl - tn_pmi.buf);
            if (n >= len) {
                n = len - 1;
            }
            memcpy(line, tn_pmi.buf, n);
            line[n] = '\0';
            size_t used = (size_t)(nl - tn_pmi.buf) + 1;
            memmove(tn_pmi.buf, tn_pmi.buf + used, tn_pmi.buflen - used);
            tn_pmi.buflen -= used;
            return TN_OK;
        }
        if (tn_pmi.buflen == sizeof(tn_pmi.buf)) {
            tn_log_error("rt", "PMI line too long");
            return TN_ERR_PROTO;
        }
        if (deadline >= 0) {
            int64_t left = deadline - tn_pmi_now_ms();
            struct pollfd pfd = { tn_pmi.fd, POLLIN, 0 };
            int rc = left <= 0 ? 0 : poll(&pfd, 1, left > 1000000 ? 1000000 : (int)left);
            if (rc < 0 && errno == EINTR) {
                continue;
            }
            if (rc == 0 && tn_pmi_now_ms() >= deadline) {
                return TN_ERR_TIMEOUT;
            }
            if (rc == 0) {
                continue;
            }
        }
        ssize_t n = read(tn_pmi.fd, tn_pmi.buf + tn_pmi.buflen, sizeof(tn_pmi.buf) - tn_pmi.buflen);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            tn_log_error("rt", "the PMI server closed the connection%s",
                         n < 0 ? " (read error)" : "");
            return TN_ERR_IO;
        }
        tn_pmi.buflen += (size_t)n;
    }
}

/* Value of key in a "cmd=x key=value ..." line (declared in pmi.h for the
 * fuzz harness tests/fuzz/fuzz_pmi.c). */
int tn_pmi_field(const char *line, const char *key, char *out, size_t len)
{
    size_t klen = strlen(key);
    const char *p = line;
    while (*p) {
        while (*p == ' ') {
            p++;
        }
        if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
            p += klen + 1;
            size_t n = strcspn(p, " ");
            if (n >= len) {
                n = len - 1;
            }
            memcpy(out, p, n);
            out[n] = '\0';
            return 1;
        }
        p += strcspn(p, " ");
    }
    return 0;
}

/* Send a command, read the reply whose cmd is expect.  The wait is limited
 * by TERN_PMI_TIMEOUT, or by TERN_PMI_FENCE_TIMEOUT for a fence (a fence
 * waits for the slowest rank, which may compute for hours before it calls
 * MPI_Finalize; that is why its limit is separate and off by default).
 * When the limit passes, the rank says so and the caller gets
 * TN_ERR_TIMEOUT; MPI_Init then fails and the job ends. */
static tn_status_t tn_pmi_call(const char *cmd, const char *expect, char *reply, size_t len)
{
    if (getpid() != tn_pmi.pid) {
        return TN_ERR_UNSUPPORTED;     /* a fork()ed child: stay off the wire */
    }
    int fence = strcmp(expect, "barrier_out") == 0;
    double limit = fence ? tn_cfg.pmi_fence_timeout : tn_cfg.pmi_timeout;
    int64_t deadline = limit > 0 ? tn_pmi_now_ms() + (int64_t)(limit * 1000.0) : -1;
    tn_status_t st = tn_pmi_write(cmd);
    if (st != TN_OK) {
        return st;
    }
    for (;;) {
        st = tn_pmi_readline(reply, len, deadline);
        if (st == TN_ERR_TIMEOUT) {
            tn_log_error("rt", "no %s from the PMI server after %g s (%s); giving up "
                         "(TERN_%s sets the limit, 0 = none)", expect, limit,
                         fence ? "some rank never entered the fence" : "server not answering",
                         fence ? "PMI_FENCE_TIMEOUT" : "PMI_TIMEOUT");
            return st;
        }
        if (st != TN_OK) {
            return st;
        }
        char c[64] = "";
        if (tn_pmi_field(reply, "cmd", c, sizeof(c)) && strcmp(c, expect) == 0) {
            break;
        }
        if (strcmp(c, "error") == 0) {
            /* the server could not parse what we sent (tern-run) */
            tn_log_error("rt", "the PMI server rejected a request: %s", reply);
            return TN_ERR_PROTO;
        }
        tn_log_debug("rt", "PMI: ignoring \"%s\" while waiting for %s", reply, expect);
    }
    char rc[32];
    if (tn_pmi_field(reply, "rc", rc, sizeof(rc)) && atoi(rc) != 0) {
        return TN_ERR_NOTFOUND;
    }
    return TN_OK;
}

static int tn_pmi_env_int(const char *name, int def)
{
    const char *v = getenv(name);
    return v != NULL ? atoi(v) : def;
}

static tn_status_t tn_pmi_connect_port(const char *port)
{
    char host[256];
    const char *colon = strrchr(port, ':');
    if (colon == NULL || (size_t)(colon - port) >= sizeof(host)) {
        tn_log_error("rt", "PMI_PORT=%s is not host:port", port);
        return TN_ERR_INVAL;
    }
    memcpy(host, port, (size_t)(colon - port));
    host[colon - port] = '\0';
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
    struct addrinfo *res;
    if (getaddrinfo(host, colon + 1, &hints, &res) != 0) {
        tn_log_error("rt", "cannot resolve PMI_PORT=%s", port);
        return TN_ERR_IO;
    }
    int fd = -1;
    for (struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
            break;
        }
        if (fd >= 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0) {
        tn_log_error("rt", "cannot connect to PMI_PORT=%s: %m", port);
        return TN_ERR_IO;
    }
    tn_pmi.fd = fd;
    return TN_OK;
}

tn_status_t tn_pmi_init(tn_pmi_info_t *info_p)
{
    char reply[TN_PMI_LINE], v[256];
    tn_status_t st;
    memset(info_p, 0, sizeof(*info_p));
    tn_pmi.pid = getpid();
    const char *fd = getenv("PMI_FD");
    const char *port = getenv("PMI_PORT");
    if (fd == NULL && port == NULL) {
        tn_pmi.singleton = 1;
        info_p->singleton = 1;
        info_p->rank = 0;
        info_p->size = 1;
        info_p->universe_size = 1;
        snprintf(info_p->kvsname, sizeof(info_p->kvsname), "single-%d", (int)getpid());
        snprintf(tn_pmi.kvsname, sizeof(tn_pmi.kvsname), "%s", info_p->kvsname);
        return TN_OK;
    }
    if (fd != NULL) {
        tn_pmi.fd = atoi(fd);
    } else if ((st = tn_pmi_connect_port(port)) != TN_OK) {
        return st;
    }
    if (fd == NULL) {
        char line[128];
        snprintf(line, sizeof(line), "cmd=initack pmiid=%d\n", tn_pmi_env_int("PMI_ID", 0));
        if ((st = tn_pmi_call(line, "initack", reply, sizeof(reply))) != TN_OK) {
            return st;
        }
    }
    st = tn_pmi_call("cmd=init pmi_version=1 pmi_subversion=1\n", "response_to_init",
                     reply, sizeof(reply));
    if (st == TN_ERR_NOTFOUND) {
        tn_log_error("rt", "PMI server refused PMI-1.1 (%s)", reply);
        return TN_ERR_PROTO;
    }
    if (st != TN_OK) {
        return st;                  /* said why */
    }
    info_p->rank = tn_pmi_env_int("PMI_RANK", 0);
    info_p->size = tn_pmi_env_int("PMI_SIZE", 1);
    if (tn_pmi_call("cmd=get_my_kvsname\n", "my_kvsname", reply, sizeof(reply)) != TN_OK ||
        !tn_pmi_field(reply, "kvsname", tn_pmi.kvsname, sizeof(tn_pmi.kvsname))) {
        tn_log_error("rt", "PMI server did not give a kvsname");
        return TN_ERR_PROTO;
    }
    snprintf(info_p->kvsname, sizeof(info_p->kvsname), "%s", tn_pmi.kvsname);
    info_p->appnum = 0;
    if (tn_pmi_call("cmd=get_appnum\n", "appnum", reply, sizeof(reply)) == TN_OK &&
        tn_pmi_field(reply, "appnum", v, sizeof(v))) {
        info_p->appnum = atoi(v);
    }
    info_p->universe_size = info_p->size;
    if (tn_pmi_call("cmd=get_universe_size\n", "universe_size", reply, sizeof(reply)) == TN_OK &&
        tn_pmi_field(reply, "size", v, sizeof(v)) && atoi(v) > 0) {
        info_p->universe_size = atoi(v);
    }
    return TN_OK;
}

tn_status_t tn_pmi_put(const char *key, const char *value)
{
    if (tn_pmi.singleton) {
        char **k = realloc(tn_pmi.keys, sizeof(char *) * (size_t)(tn_pmi.nkv + 1));
        char **vv = realloc(tn_pmi.vals, sizeof(char *) * (size_t)(tn_pmi.nkv + 1));
        if (k == NULL || vv == NULL) {
            return TN_ERR_NOMEM;
        }
        tn_pmi.keys = k;
        tn_pmi.vals = vv;
        k[tn_pmi.nkv] = strdup(key);
        vv[tn_pmi.nkv] = strdup(value);
        tn_pmi.nkv++;
        return TN_OK;
    }
    char line[TN_PMI_LINE], reply[TN_PMI_LINE];
    snprintf(line, sizeof(line), "cmd=put kvsname=%s key=%s value=%s\n", tn_pmi.kvsname, key,
             value);
    return tn_pmi_call(line, "put_result", reply, sizeof(reply));
}

tn_status_t tn_pmi_barrier(void)
{
    if (tn_pmi.singleton) {
        return TN_OK;
    }
    char reply[TN_PMI_LINE];
    return tn_pmi_call("cmd=barrier_in\n", "barrier_out", reply, sizeof(reply));
}

tn_status_t tn_pmi_get(const char *key, char *value, int len)
{
    if (tn_pmi.singleton) {
        for (int i = tn_pmi.nkv - 1; i >= 0; i--) {
            if (strcmp(tn_pmi.keys[i], key) == 0) {
                snprintf(value, (size_t)len, "%s", tn_pmi.vals[i]);
                return TN_OK;
            }
        }
        return TN_ERR_NOTFOUND;
    }
    char line[TN_PMI_LINE], reply[TN_PMI_LINE];
    snprintf(line, sizeof(line), "cmd=get kvsname=%s key=%s\n", tn_pmi.kvsname, key);
    tn_status_t st = tn_pmi_call(line, "get_result", reply, sizeof(reply));
    if (st != TN_OK) {
        return st;
    }
    if (!tn_pmi_field(reply, "value", value, (size_t)len)) {
        return TN_ERR_PROTO;
    }
    return TN_OK;
}

tn_status_t tn_pmi_finalize(void)
{
    if (tn_pmi.singleton) {
        for (int i = 0; i < tn_pmi.nkv; i++) {
            free(tn_pmi.keys[i]);
            free(tn_pmi.vals[i]);
        }
        free(tn_pmi.keys);
        free(tn_pmi.vals);
        tn_pmi.keys = tn_pmi.vals = NULL;
        tn_pmi.nkv = 0;
        return TN_OK;
    }
    char reply[TN_PMI_LINE];
    tn_status_t st = tn_pmi_call("cmd=finalize\n", "finalize_ack", reply, sizeof(reply));
    close(tn_pmi.fd);
    tn_pmi.fd = -1;
    return st;
}

void tn_pmi_abort(int code, const char *msg, int user)
{
    if (tn_pmi.singleton || tn_pmi.fd < 0 || getpid() != tn_pmi.pid) {
        return;
    }
    char line[TN_PMI_LINE];
    /* PMI-1 "abort": the server ends the job; we do not wait for a reply. */
    snprintf(line, sizeof(line), "cmd=abort exitcode=%d%s\n", code, user ? "" : " internal=1");
    if (tn_pmi_write(line) == TN_OK) {
        /* Give the launcher the chance to report the abort before it sees
         * us exit: it ends the job (and us) right away. */
        struct pollfd pfd = { tn_pmi.fd, POLLIN, 0 };
        poll(&pfd, 1, 5000);
    }
    (void)msg;
}
