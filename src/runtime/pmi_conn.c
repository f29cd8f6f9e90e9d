/* The socket to the PMI server (pmi_conn.h). */
#include "runtime/pmi_conn.h"
#include "base/config.h"
#include "base/log.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static struct {
    int    fd;
    int    port;
    char   buf[TN_PMI_CONN_BUF];
    size_t len;
} tn_pmi_conn = { .fd = -1 };

static int64_t tn_pmi_conn_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static tn_status_t tn_pmi_conn_connect(const char *port)
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
    tn_pmi_conn.fd = fd;
    return TN_OK;
}

tn_status_t tn_pmi_conn_open(void)
{
    const char *fd = getenv("PMI_FD");
    const char *port = getenv("PMI_PORT");
    tn_pmi_conn.len = 0;
    if (fd != NULL) {
        char *end;
        long v = strtol(fd, &end, 10);
        if (end == fd || *end != '\0' || v < 0 || v > 1 << 20) {
            tn_log_error("rt", "PMI_FD=%s is not a descriptor", fd);
            return TN_ERR_INVAL;
        }
        tn_pmi_conn.fd = (int)v;
        tn_pmi_conn.port = 0;
        return TN_OK;
    }
    if (port != NULL) {
        tn_pmi_conn.port = 1;
        return tn_pmi_conn_connect(port);
    }
    return TN_ERR_NOTFOUND;
}

int tn_pmi_conn_port(void)
{
    return tn_pmi_conn.port;
}

int tn_pmi_conn_is_open(void)
{
    return tn_pmi_conn.fd >= 0;
}

/* send() with MSG_NOSIGNAL: a launcher that went away gives EPIPE, never a
 * SIGPIPE that would kill the rank.  The application's SIGPIPE disposition
 * is left as it was.  PMI_FD might be a pipe rather than a socket: then
 * write(). */
tn_status_t tn_pmi_conn_write(const char *data, size_t len)
{
    size_t off = 0;
    while (off < len) {
        ssize_t n = send(tn_pmi_conn.fd, data + off, len - off, MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK) {
            n = write(tn_pmi_conn.fd, data + off, len - off);
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

/* More bytes into the buffer, waiting until deadline. */
static tn_status_t tn_pmi_conn_fill(int64_t deadline)
{
    if (tn_pmi_conn.len == sizeof(tn_pmi_conn.buf)) {
        tn_log_error("rt", "PMI message longer than %zu bytes", sizeof(tn_pmi_conn.buf));
        return TN_ERR_PROTO;
    }
    for (;;) {
        if (deadline >= 0) {
            int64_t left = deadline - tn_pmi_conn_now_ms();
            struct pollfd pfd = { tn_pmi_conn.fd, POLLIN, 0 };
            int rc = left <= 0 ? 0 : poll(&pfd, 1, left > 1000000 ? 1000000 : (int)left);
            if (rc < 0 && errno == EINTR) {
                continue;
            }
            if (rc == 0 && tn_pmi_conn_now_ms() >= deadline) {
                return TN_ERR_TIMEOUT;
            }
            if (rc == 0) {
                continue;
            }
        }
        ssize_t n = read(tn_pmi_conn.fd, tn_pmi_conn.buf + tn_pmi_conn.len,
                         sizeof(tn_pmi_conn.buf) - tn_pmi_conn.len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            tn_log_error("rt", "the PMI server closed the connection%s",
                         n < 0 ? " (read error)" : "");
            return TN_ERR_IO;
        }
        tn_pmi_conn.len += (size_t)n;
        return TN_OK;
    }
}

static void tn_pmi_conn_consume(size_t n)
{
    memmove(tn_pmi_conn.buf, tn_pmi_conn.buf + n, tn_pmi_conn.len - n);
    tn_pmi_conn.len -= n;
}

tn_status_t tn_pmi_conn_read_line(char *line, size_t len, int64_t deadline)
{
    for (;;) {
        char *nl = memchr(tn_pmi_conn.buf, '\n', tn_pmi_conn.len);
        if (nl != NULL) {
            size_t n = (size_t)(nl - tn_pmi_conn.buf);
            size_t copy = n >= len ? len - 1 : n;
            memcpy(line, tn_pmi_conn.buf, copy);
            line[copy] = '\0';
            tn_pmi_conn_consume(n + 1);
            return TN_OK;
        }
        tn_status_t st = tn_pmi_conn_fill(deadline);
        if (st != TN_OK) {
            return st;
        }
    }
}

tn_status_t tn_pmi_conn_read(char *out, size_t n, int64_t deadline)
{
    size_t got = 0;
    while (got < n) {
        if (tn_pmi_conn.len == 0) {
            tn_status_t st = tn_pmi_conn_fill(deadline);
            if (st != TN_OK) {
                return st;
            }
        }
        size_t take = n - got < tn_pmi_conn.len ? n - got : tn_pmi_conn.len;
        memcpy(out + got, tn_pmi_conn.buf, take);
        tn_pmi_conn_consume(take);
        got += take;
    }
    return TN_OK;
}

int64_t tn_pmi_conn_deadline(int fence)
{
    double limit = fence ? tn_cfg.pmi_fence_timeout : tn_cfg.pmi_timeout;
    return limit > 0 ? tn_pmi_conn_now_ms() + (int64_t)(limit * 1000.0) : -1;
}

/* A fence waits for the slowest rank, which may compute for hours before it
 * calls MPI_Finalize: that is why its limit is separate and off by default. */
void tn_pmi_conn_timed_out(const char *what, int fence)
{
    tn_log_error("rt", "no %s from the PMI server after %g s (%s); giving up "
                 "(TERN_%s sets the limit, 0 = none)", what,
                 fence ? tn_cfg.pmi_fence_timeout : tn_cfg.pmi_timeout,
                 fence ? "some rank never entered the fence" : "server not answering",
                 fence ? "PMI_FENCE_TIMEOUT" : "PMI_TIMEOUT");
}

void tn_pmi_conn_linger(void)
{
    struct pollfd pfd = { tn_pmi_conn.fd, POLLIN, 0 };
    poll(&pfd, 1, 5000);
}

void tn_pmi_conn_close(void)
{
    if (tn_pmi_conn.fd >= 0) {
        close(tn_pmi_conn.fd);
    }
    tn_pmi_conn.fd = -1;
    tn_pmi_conn.len = 0;
}
