/* The control socket of a running tern-run and the `tern-run --status`
 * client; see run_ctl.h. */
#include "run_ctl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define CTL_REQUEST        "status 1\n"
#define CTL_READ_MS        1000     /* a client's request must come by then */
#define CTL_WRITE_MS       2000     /* and its answer be read by then */
#define CTL_CLIENT_MS      10000    /* the client's patience */

struct tn_run_ctl {
    tn_run_status_t *st;
    pthread_t        thread;
    int              stop_r, stop_w;    /* a pipe: written to stop */
    int              listen_fd;         /* -1 when no socket */
    char             path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

/* ---- the directory ------------------------------------------------------ */

/* Candidate directory i (0: $XDG_RUNTIME_DIR/tern, 1: /tmp/tern-<uid>)
 * into buf; -1 when there is none. */
static int ctl_dir_name(int i, char *buf, size_t len)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    int         n;

    if (i == 0) {
        if (xdg == NULL || xdg[0] != '/') {
            return -1;
        }
        n = snprintf(buf, len, "%s/tern", xdg);
    } else {
        n = snprintf(buf, len, "/tmp/tern-%u", (unsigned)getuid());
    }
    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* Whether dir is a directory of ours that nobody else may enter; made
 * first when create is set.  why_p says why not. */
static int ctl_dir_ok(const char *dir, int create, const char **why_p)
{
    struct stat st;

    if (create && mkdir(dir, 0700) != 0 && errno != EEXIST) {
        *why_p = strerror(errno);
        return 0;
    }
    if (lstat(dir, &st) != 0) {
        *why_p = strerror(errno);
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) {
        *why_p = "not a directory";
        return 0;
    }
    if (st.st_uid != getuid()) {
        *why_p = "owned by another user";
        return 0;
    }
    if ((st.st_mode & 077) != 0) {
        *why_p = "others may enter it";
        return 0;
    }
    return 1;
}

static int ctl_sock_path(char *buf, size_t len, const char *dir, long pid)
{
    int n = snprintf(buf, len, "%s/run-%ld.sock", dir, pid);

    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* The uid at the other end of a connected Unix socket, or -1. */
static long ctl_peer_uid(int fd)
{
    struct ucred cred;
    socklen_t    len = sizeof(cred);

    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof(cred)) {
        return -1;
    }
    return (long)cred.uid;
}

/* ---- the server ----------------------------------------------------------- */

static int ctl_listen(tn_run_ctl_t *ctl)
{
    struct sockaddr_un addr;
    char               dir[sizeof(ctl->path)];
    const char        *why = "no directory";

    for (int i = 0; i < 2; i++) {
        int fd;

        if (ctl_dir_name(i, dir, sizeof(dir)) != 0 ||
            ctl_sock_path(ctl->path, sizeof(ctl->path), dir, (long)getpid()) != 0) {
            continue;
        }
        if (!ctl_dir_ok(dir, 1, &why)) {
            tn_run_debug(1, "%s: %s; not used for the control socket", dir, why);
            continue;
        }
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0) {
            why = strerror(errno);
            break;
        }
        memset(&addr, 0, sizeof(addr));
        addr.sun_family = AF_UNIX;
        memcpy(addr.sun_path, ctl->path, strlen(ctl->path) + 1);
        (void)unlink(ctl->path);        /* our pid: left by a killed tern-run */
        if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0 ||
            chmod(ctl->path, 0600) != 0 || listen(fd, 8) != 0) {
            tn_run_debug(1, "control socket %s: %m", ctl->path);
            close(fd);
            (void)unlink(ctl->path);
            continue;
        }
        ctl->listen_fd = fd;
        tn_run_debug(1, "control socket %s", ctl->path);
        return 0;
    }
    ctl->path[0] = '\0';
    tn_run_debug(1, "no control socket (%s): tern-run --status cannot reach this job", why);
    return -1;
}

/* Wait until fd is ready for events or the deadline passes, keeping the
 * clock going; 1 ready, 0 not. */
static int ctl_wait(tn_run_ctl_t *ctl, int fd, short events, int64_t deadline)
{
    while (1) {
        struct pollfd pfd = { .fd = fd, .events = events };
        int64_t       left = deadline - tn_run_now_ms();
        int           n;

        if (left <= 0) {
            return 0;
        }
        n = poll(&pfd, 1, left < TN_RUN_STATUS_TICK_MS ? (int)left : TN_RUN_STATUS_TICK_MS);
        tn_run_status_tick(ctl->st);
        if (n > 0) {
            return 1;
        }
        if (n < 0 && errno != EINTR) {
            return 0;
        }
    }
}

static void ctl_reply(tn_run_ctl_t *ctl, int fd, const char *data, size_t len)
{
    int64_t deadline = tn_run_now_ms() + CTL_WRITE_MS;

    while (len > 0) {
        ssize_t n = send(fd, data, len, MSG_NOSIGNAL | MSG_DONTWAIT);

        if (n > 0) {
            data += n;
            len  -= (size_t)n;
        } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (!ctl_wait(ctl, fd, POLLOUT, deadline)) {
                return;                 /* a client that does not read */
            }
        } else {
            return;
        }
    }
}

static void ctl_serve(tn_run_ctl_t *ctl)
{
    char         req[64];
    size_t       got = 0;
    int64_t      deadline = tn_run_now_ms() + CTL_READ_MS;
    tn_run_buf_t out = { 0 };
    int          fd = accept4(ctl->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

    if (fd < 0) {
        return;
    }
    if (ctl_peer_uid(fd) != (long)getuid()) {
        tn_run_debug(1, "control socket: a client of another user; dropped");
        close(fd);
        return;
    }
    /* one short line: read until its newline, the buffer is full, or time is up */
    while (got < sizeof(req) && memchr(req, '\n', got) == NULL) {
        ssize_t n = recv(fd, req + got, sizeof(req) - got, MSG_DONTWAIT);

        if (n > 0) {
            got += (size_t)n;
        } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (!ctl_wait(ctl, fd, POLLIN, deadline)) {
                break;
            }
        } else {
            break;
        }
    }
    if (got == strlen(CTL_REQUEST) && memcmp(req, CTL_REQUEST, got) == 0) {
        tn_run_status_summary(ctl->st, &out);
        tn_run_status_report(ctl->st, "  ", &out);
    } else {
        tn_run_buf_printf(&out, "error: this tern-run speaks \"%.*s\" (version 1)\n",
                          (int)strlen(CTL_REQUEST) - 1, CTL_REQUEST);
    }
    ctl_reply(ctl, fd, out.data, out.len);
    tn_run_buf_free(&out);
    close(fd);
}

static void *ctl_main(void *arg)
{
    tn_run_ctl_t *ctl = arg;

    while (1) {
        struct pollfd pfd[2] = {
            { .fd = ctl->stop_r, .events = POLLIN },
            { .fd = ctl->listen_fd, .events = POLLIN },
        };
        int n = poll(pfd, ctl->listen_fd >= 0 ? 2 : 1, TN_RUN_STATUS_TICK_MS);

        tn_run_status_tick(ctl->st);
        if (n > 0 && pfd[0].revents != 0) {
            break;
        }
        if (n > 0 && pfd[1].revents != 0) {
            ctl_serve(ctl);
        }
    }
    return NULL;
}

/* Close the socket (and remove its name), the stop pipe; free. */
static void ctl_free(tn_run_ctl_t *ctl)
{
    if (ctl->listen_fd >= 0) {
        close(ctl->listen_fd);
        (void)unlink(ctl->path);
    }
    close(ctl->stop_r);
    close(ctl->stop_w);
    free(ctl);
}

tn_run_ctl_t *tn_run_ctl_start(tn_run_status_t *st)
{
    tn_run_ctl_t *ctl = tn_run_xmalloc(sizeof(*ctl));
    int           p[2];
    int           err;

    memset(ctl, 0, sizeof(*ctl));
    ctl->st = st;
    ctl->listen_fd = -1;
    if (pipe2(p, O_CLOEXEC) != 0) {
        tn_run_debug(1, "pipe: %m; no hang reports by --status, durations unknown");
        free(ctl);
        return NULL;
    }
    ctl->stop_r = p[0];
    ctl->stop_w = p[1];
    (void)ctl_listen(ctl);
    /* the thread inherits tern-run's blocked signals: they stay with the
     * main thread's signalfd */
    err = pthread_create(&ctl->thread, NULL, ctl_main, ctl);
    if (err != 0) {
        tn_run_debug(1, "pthread_create: %s; no hang reports by --status", strerror(err));
        ctl_free(ctl);
        return NULL;
    }
    return ctl;
}

void tn_run_ctl_stop(tn_run_ctl_t *ctl)
{
    if (ctl == NULL) {
        return;
    }
    (void)!write(ctl->stop_w, "", 1);
    pthread_join(ctl->thread, NULL);
    ctl_free(ctl);
}

/* ---- the client ------------------------------------------------------------ */

int tn_run_ctl_is_client(int argc, char **argv)
{
    const char *a;

    if (argc < 2) {
        return 0;
    }
    a = argv[1] + (strncmp(argv[1], "--", 2) == 0 ? 2 : argv[1][0] == '-' ? 1 : 0);
    return a != argv[1] && (strcmp(a, "status") == 0 || strncmp(a, "status=", 7) == 0);
}

static int ctl_parse_pid(const char *s, long *pid_p)
{
    char *end;
    long  v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v <= 0 || v > INT_MAX) {
        return -1;
    }
    *pid_p = v;
    return 0;
}

/* Ask the tern-run at path; its answer, made printable, into out.
 * Returns 0, or -1 (why_p says why; *stale_p when nobody listens). */
static int ctl_ask(const char *path, tn_run_buf_t *out, int *stale_p, const char **why_p)
{
    struct sockaddr_un addr;
    int64_t            deadline = tn_run_now_ms() + CTL_CLIENT_MS;
    char               buf[4096];
    int                fd;
    size_t             start = out->len;

    *stale_p = 0;
    memset(&addr, 0, sizeof(addr));
    addr.sun_family = AF_UNIX;
    memcpy(addr.sun_path, path, strlen(path) + 1);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        *why_p = strerror(errno);
        return -1;
    }
    if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
        *stale_p = errno == ECONNREFUSED || errno == ENOENT;
        *why_p = strerror(errno);
        close(fd);
        return -1;
    }
    if (ctl_peer_uid(fd) != (long)getuid()) {
        *why_p = "the socket belongs to another user";
        close(fd);
        return -1;
    }
    if (send(fd, CTL_REQUEST, strlen(CTL_REQUEST), MSG_NOSIGNAL) != (ssize_t)strlen(CTL_REQUEST)) {
        *why_p = strerror(errno);
        close(fd);
        return -1;
    }
    while (out->len - start < TN_RUN_CTL_MAX_REPLY) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        int64_t       left = deadline - tn_run_now_ms();
        ssize_t       n;

        if (left <= 0 || poll(&pfd, 1, (int)left) <= 0) {
            *why_p = "no answer in time";
            break;
        }
        n = recv(fd, buf, sizeof(buf), 0);
        if (n <= 0) {
            break;
        }
        for (ssize_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)buf[i];

            if (!((c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t')) {
                buf[i] = '?';
            }
        }
        tn_run_buf_append(out, buf, (size_t)n);
    }
    close(fd);
    if (out->len == start) {
        *why_p = "an empty answer";
        return -1;
    }
    if (out->data[out->len - 1] != '\n') {
        tn_run_buf_append(out, "\n", 1);
    }
    return 0;
}

/* The pids of run-<pid>.sock files in dir. */
static int ctl_scan(const char *dir, long *pids, int max, int n)
{
    DIR           *d = opendir(dir);
    struct dirent *ent;

    if (d == NULL) {
        return n;
    }
    while ((ent = readdir(d)) != NULL && n < max) {
        char  num[32];
        long  pid;
        const char *name = ent->d_name;
        size_t      len = strlen(name);

        if (strncmp(name, "run-", 4) != 0 || len < 10 || len - 9 >= sizeof(num) ||
            strcmp(name + len - 5, ".sock") != 0) {
            continue;
        }
        memcpy(num, name + 4, len - 9);
        num[len - 9] = '\0';
        if (ctl_parse_pid(num, &pid) == 0) {
            int seen = 0;

            for (int i = 0; i < n; i++) {
                seen |= pids[i] == pid;
            }
            if (!seen) {
                pids[n++] = pid;
            }
        }
    }
    closedir(d);
    return n;
}

int tn_run_ctl_client(int argc, char **argv)
{
    const char  *eq = strchr(argv[1], '=');
    const char  *arg = eq != NULL ? eq + 1 : argc > 2 ? argv[2] : NULL;
    long         pids[256];
    int          npids = 0;
    int          nok = 0;
    char         dirs[2][sizeof(((struct sockaddr_un *)0)->sun_path)];
    int          dir_ok[2];
    tn_run_buf_t reports = { 0 };
    tn_run_buf_t list = { 0 };

    if (argc > (eq != NULL ? 2 : 3)) {
        tn_run_log("--status takes at most one PID (see tern-run --help)");
        return 2;
    }
    if (arg != NULL && ctl_parse_pid(arg, &pids[0]) != 0) {
        tn_run_log("--status: bad PID '%s'", arg);
        return 2;
    }
    npids = arg != NULL;
    for (int i = 0; i < 2; i++) {
        const char *why = "";

        dir_ok[i] = ctl_dir_name(i, dirs[i], sizeof(dirs[i])) == 0 && access(dirs[i], F_OK) == 0;
        if (dir_ok[i] && !ctl_dir_ok(dirs[i], 0, &why)) {
            tn_run_log("ignoring %s: %s", dirs[i], why);
            dir_ok[i] = 0;
        }
        if (dir_ok[i] && arg == NULL) {
            npids = ctl_scan(dirs[i], pids, (int)(sizeof(pids) / sizeof(pids[0])), npids);
        }
    }
    for (int p = 0; p < npids; p++) {
        int         asked = 0;
        const char *why = "no socket";

        for (int i = 0; i < 2 && !asked; i++) {
            char   path[sizeof(dirs[0])];
            int    stale;
            size_t mark = reports.len;
            size_t before;

            if (!dir_ok[i] || ctl_sock_path(path, sizeof(path), dirs[i], pids[p]) != 0 ||
                access(path, F_OK) != 0) {
                continue;
            }
            if (reports.len > 0) {
                tn_run_buf_append(&reports, "\n", 1);  /* between two jobs' reports */
            }
            before = reports.len;
            if (ctl_ask(path, &reports, &stale, &why) == 0) {
                /* the summary is the answer's first line */
                const char *nl = memchr(reports.data + before, '\n', reports.len - before);

                tn_run_buf_append(&list, "  ", 2);
                tn_run_buf_append(&list, reports.data + before,
                                  (size_t)(nl - (reports.data + before)) + 1);
                asked = 1;
                nok++;
            } else {
                reports.len = mark;             /* nothing of it, nor the separator */
                if (stale && kill((pid_t)pids[p], 0) != 0 && errno == ESRCH) {
                    (void)unlink(path);         /* left by a tern-run that was killed */
                    why = "not running";
                }
            }
        }
        if (!asked && arg != NULL) {
            tn_run_log("--status %ld: %s", pids[p], why);
        }
    }
    if (nok > 1) {
        printf("%d tern-run jobs of yours are running:\n%.*s\n", nok, (int)list.len, list.data);
    }
    if (nok > 0) {
        fwrite(reports.data, 1, reports.len, stdout);
        fflush(stdout);
    } else if (arg == NULL) {
        tn_run_log("--status: no running tern-run job of yours found");
    }
    tn_run_buf_free(&reports);
    tn_run_buf_free(&list);
    return nok > 0 ? 0 : 1;
}
