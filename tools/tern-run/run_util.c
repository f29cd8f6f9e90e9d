/* Helpers shared by the tern-run files; see run_util.h. */
#include "run_util.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int tn_run_verbose;

void *tn_run_xrealloc(void *ptr, size_t size)
{
    void *p = realloc(ptr, size ? size : 1);

    if (p == NULL) {
        static const char msg[] = "tern-run: out of memory\n";
        (void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
        _exit(1);
    }
    return p;
}

void *tn_run_xmalloc(size_t size)
{
    return tn_run_xrealloc(NULL, size);
}

char *tn_run_xstrdup(const char *str)
{
    size_t len = strlen(str) + 1;

    return memcpy(tn_run_xmalloc(len), str, len);
}

static void buf_reserve(tn_run_buf_t *buf, size_t extra)
{
    size_t need = buf->len + extra;
    size_t cap  = buf->cap ? buf->cap : 256;

    if (need <= buf->cap) {
        return;
    }
    while (cap < need) {
        cap *= 2;
    }
    buf->data = tn_run_xrealloc(buf->data, cap);
    buf->cap  = cap;
}

void tn_run_buf_append(tn_run_buf_t *buf, const void *data, size_t len)
{
    if (len == 0) {
        return;
    }
    buf_reserve(buf, len);
    memcpy(buf->data + buf->len, data, len);
    buf->len += len;
}

void tn_run_buf_printf(tn_run_buf_t *buf, const char *fmt, ...)
{
    va_list ap;
    int     n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n <= 0) {
        return;
    }
    buf_reserve(buf, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(buf->data + buf->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    buf->len += (size_t)n;
}

void tn_run_buf_consume(tn_run_buf_t *buf, size_t len)
{
    if (len >= buf->len) {
        buf->len = 0;
        return;
    }
    memmove(buf->data, buf->data + len, buf->len - len);
    buf->len -= len;
}

void tn_run_buf_free(tn_run_buf_t *buf)
{
    free(buf->data);
    buf->data = NULL;
    buf->len  = buf->cap = 0;
}

int tn_run_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;

    while (len > 0) {
        ssize_t n = write(fd, p, len);

        if (n > 0) {
            p   += n;
            len -= (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd pfd = { .fd = fd, .events = POLLOUT };

            if (poll(&pfd, 1, -1) < 0 && errno != EINTR) {
                return -1;
            }
        } else {
            return -1;
        }
    }
    return 0;
}

int (*tn_run_log_hook)(const char *line, size_t len);

static void vlog(const char *fmt, va_list ap)
{
    char buf[1024];
    int  n = snprintf(buf, sizeof(buf), "tern-run: ");

    n += vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
    if (n > (int)sizeof(buf) - 2) {
        n = (int)sizeof(buf) - 2;
    }
    if (tn_run_log_hook != NULL && tn_run_log_hook(buf, (size_t)n) == 0) {
        return;
    }
    buf[n++] = '\n';
    (void)tn_run_write_all(STDERR_FILENO, buf, (size_t)n);
}

void tn_run_log(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}

void tn_run_debug(int level, const char *fmt, ...)
{
    va_list ap;

    if (tn_run_verbose < level) {
        return;
    }
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}

void tn_run_ranges(tn_run_buf_t *buf, const unsigned char *flag, int n,
                   size_t max)
{
    size_t start = buf->len;
    int    first = 1;

    for (int i = 0; i < n; i++) {
        int j = i;

        if (!flag[i]) {
            continue;
        }
        while (j + 1 < n && flag[j + 1]) {
            j++;
        }
        if (buf->len - start >= max) {
            tn_run_buf_printf(buf, ",...");
            return;
        }
        if (j == i) {
            tn_run_buf_printf(buf, "%s%d", first ? "" : ",", i);
        } else {
            tn_run_buf_printf(buf, "%s%d-%d", first ? "" : ",", i, j);
        }
        first = 0;
        i     = j;
    }
}

int64_t tn_run_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *tn_run_signame(int sig)
{
    static char rt[24];

    switch (sig) {
#define TN_SIG(name) case name: return #name;
    TN_SIG(SIGHUP)  TN_SIG(SIGINT)  TN_SIG(SIGQUIT) TN_SIG(SIGILL)
    TN_SIG(SIGTRAP) TN_SIG(SIGABRT) TN_SIG(SIGBUS)  TN_SIG(SIGFPE)
    TN_SIG(SIGKILL) TN_SIG(SIGUSR1) TN_SIG(SIGSEGV) TN_SIG(SIGUSR2)
    TN_SIG(SIGPIPE) TN_SIG(SIGALRM) TN_SIG(SIGTERM) TN_SIG(SIGCHLD)
    TN_SIG(SIGCONT) TN_SIG(SIGSTOP) TN_SIG(SIGTSTP) TN_SIG(SIGTTIN)
    TN_SIG(SIGTTOU) TN_SIG(SIGURG)  TN_SIG(SIGXCPU) TN_SIG(SIGXFSZ)
    TN_SIG(SIGVTALRM) TN_SIG(SIGPROF) TN_SIG(SIGWINCH) TN_SIG(SIGIO)
    TN_SIG(SIGSYS)
#ifdef SIGSTKFLT
    TN_SIG(SIGSTKFLT)
#endif
#ifdef SIGPWR
    TN_SIG(SIGPWR)
#endif
#undef TN_SIG
    default:
        break;
    }
    if (sig >= SIGRTMIN && sig <= SIGRTMAX) {
        snprintf(rt, sizeof(rt), "SIGRTMIN+%d", sig - SIGRTMIN);
        return rt;
    }
    return "unknown signal";
}
