/* tern-wire: an emulated point-to-point link between two TAP devices
 * (docs/benchmarks.md "Emulated links").
 *
 *   tern-wire [--rate R] [--delay D] [--queue Q] [--overhead B] [--rt]
 *             [--daemon] [--pidfile F] TAP_A TAP_B
 *
 * Attaches to two existing TAP devices of the current network namespace
 * (ip tuntap add dev NAME mode tap; each usually a port of a bridge) and
 * forwards every frame that one receives out of the other, both ways, each
 * direction a link of its own (wire_link.h): frames serialised at R bits/s,
 * delivered D after their last bit, dropped after waiting Q.  Values in tc
 * units: R "400mbit" (default none: no limit), D "100us" (default none),
 * Q "200ms" (default), B bytes added to each frame on the wire (default 0).
 *
 * --rt runs it SCHED_FIFO (root), so that the ranks of a job it carries do
 * not hold its deliveries back; --daemon returns once both devices are
 * attached, leaving the forwarder running (its pid in --pidfile).  On
 * SIGTERM or SIGINT it prints each direction's frames, drops and bytes to
 * standard error and exits 0.  Exit status 2 on bad arguments, 1 on a
 * failed set-up. */
#include "wire_link.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define WIRE_FRAMES   65536           /* frames queued per direction */
#define WIRE_DATA     (32u << 20)     /* bytes queued per direction */
#define WIRE_FRAME_MAX 65536          /* largest frame read (jumbo MTUs) */
#define WIRE_BATCH    64              /* frames read per device per wake-up */

static volatile sig_atomic_t wire_stop;

static void wire_on_signal(int sig)
{
    (void)sig;
    wire_stop = 1;
}

static uint64_t wire_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* an existing TAP device NAME, non-blocking; -1 after a message */
static int wire_tap_open(const char *name)
{
    struct ifreq ifr;
    int fd;

    if (strlen(name) >= IFNAMSIZ) {
        fprintf(stderr, "tern-wire: device name '%s' is too long\n", name);
        return -1;
    }
    fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "tern-wire: /dev/net/tun: %m\n");
        return -1;
    }
    memset(&ifr, 0, sizeof(ifr));
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
    memcpy(ifr.ifr_name, name, strlen(name));
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
        fprintf(stderr, "tern-wire: attaching TAP device %s: %m\n", name);
        close(fd);
        return -1;
    }
    return fd;
}

static void wire_usage(void)
{
    fprintf(stderr, "usage: tern-wire [--rate R] [--delay D] [--queue Q] [--overhead B] [--rt]\n"
                    "                 [--daemon] [--pidfile F] TAP_A TAP_B\n");
}

/* frames due now out of FD; the link's next due time */
static uint64_t wire_deliver(wire_link_t *l, int fd, uint64_t now)
{
    const wire_frame_t *f;
    uint64_t next;

    while ((f = wire_link_due(l, now, &next)) != NULL) {
        /* a TAP write hands the frame to the stack at once; a failure
         * (the device's queue full, the device gone) loses it, as a link
         * would */
        if (write(fd, wire_link_bytes(l, f), f->len) != (ssize_t)f->len)
            l->dropped++;
        wire_link_pop(l);
    }
    return next;
}

/* frames waiting on FD into L; -1 when the device failed */
static int wire_receive(wire_link_t *l, int fd, uint8_t *buf)
{
    for (int i = 0; i < WIRE_BATCH; i++) {
        ssize_t n = read(fd, buf, WIRE_FRAME_MAX);
        if (n < 0)
            return errno == EAGAIN || errno == EINTR ? 0 : -1;
        if (n > 0)
            wire_link_push(l, wire_now(), buf, (uint32_t)n);
    }
    return 0;
}

static int wire_run(int fd[2], wire_link_t link[2], const char *names[2])
{
    static uint8_t buf[WIRE_FRAME_MAX];
    struct pollfd pfd[2] = {{.fd = fd[0], .events = POLLIN}, {.fd = fd[1], .events = POLLIN}};
    sigset_t block, wait;

    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGINT);
    sigprocmask(SIG_BLOCK, &block, &wait);
    sigdelset(&wait, SIGTERM);
    sigdelset(&wait, SIGINT);
    while (!wire_stop) {
        uint64_t now = wire_now(), next;
        struct timespec ts, *tsp = NULL;

        /* link 0 carries A's frames to B, link 1 B's to A */
        next = wire_deliver(&link[0], fd[1], now);
        uint64_t n1 = wire_deliver(&link[1], fd[0], now);
        if (n1 < next)
            next = n1;
        if (next != UINT64_MAX) {
            uint64_t d = next > now ? next - now : 0;
            ts.tv_sec = (time_t)(d / 1000000000ull);
            ts.tv_nsec = (long)(d % 1000000000ull);
            tsp = &ts;
        }
        if (ppoll(pfd, 2, tsp, &wait) < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "tern-wire: poll: %m\n");
            return 1;
        }
        for (int i = 0; i < 2; i++) {
            if (pfd[i].revents & (POLLERR | POLLHUP | POLLNVAL)) {
                fprintf(stderr, "tern-wire: device %s failed\n", names[i]);
                return 1;
            }
            if ((pfd[i].revents & POLLIN) && wire_receive(&link[i], fd[i], buf) < 0) {
                fprintf(stderr, "tern-wire: reading %s: %m\n", names[i]);
                return 1;
            }
        }
    }
    for (int i = 0; i < 2; i++)
        fprintf(stderr, "tern-wire: %s -> %s: %llu frames, %llu dropped, %llu bytes\n", names[i],
                names[1 - i], (unsigned long long)link[i].sent,
                (unsigned long long)link[i].dropped, (unsigned long long)link[i].bytes);
    return 0;
}

int main(int argc, char **argv)
{
    wire_link_conf_t conf = {.queue_ns = 200000000ull};
    const char *pidfile = NULL, *names[2];
    int rt = 0, daemon_mode = 0, fd[2] = {-1, -1}, i, status = 1;
    wire_link_t link[2];

    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t x;
        if (strcmp(a, "--rt") == 0) {
            rt = 1;
            continue;
        }
        if (strcmp(a, "--daemon") == 0) {
            daemon_mode = 1;
            continue;
        }
        if (v == NULL) {
            fprintf(stderr, "tern-wire: %s needs a value\n", a);
            return 2;
        }
        i++;
        if (strcmp(a, "--rate") == 0 && wire_parse_rate(v, &conf.rate_bps) == 0)
            continue;
        if (strcmp(a, "--delay") == 0 && wire_parse_time(v, &conf.delay_ns) == 0)
            continue;
        if (strcmp(a, "--queue") == 0 && wire_parse_time(v, &conf.queue_ns) == 0)
            continue;
        if (strcmp(a, "--overhead") == 0) {
            char *end;
            errno = 0;
            x = strtoull(v, &end, 10);
            if (errno == 0 && end != v && *end == '\0' && v[0] != '-' && x <= 1024) {
                conf.overhead = (uint32_t)x;
                continue;
            }
        }
        if (strcmp(a, "--pidfile") == 0) {
            pidfile = v;
            continue;
        }
        fprintf(stderr, "tern-wire: bad option or value: %s %s\n", a, v);
        wire_usage();
        return 2;
    }
    if (argc - i != 2) {
        wire_usage();
        return 2;
    }
    names[0] = argv[i];
    names[1] = argv[i + 1];
    if (wire_link_init(&link[0], &conf, WIRE_FRAMES, WIRE_DATA) < 0) {
        fprintf(stderr, "tern-wire: queues: %m\n");
        return 1;
    }
    if (wire_link_init(&link[1], &conf, WIRE_FRAMES, WIRE_DATA) < 0) {
        fprintf(stderr, "tern-wire: queues: %m\n");
        goto err_link0;
    }
    if ((fd[0] = wire_tap_open(names[0])) < 0)
        goto err_link1;
    if ((fd[1] = wire_tap_open(names[1])) < 0)
        goto err_fd0;
    /* deliveries on time: no timer slack, and ahead of the ranks */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    if (rt) {
        struct sched_param sp = {.sched_priority = 10};
        if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
            fprintf(stderr, "tern-wire: SCHED_FIFO: %m\n");
            goto err_fd1;
        }
    }
    signal(SIGTERM, wire_on_signal);
    signal(SIGINT, wire_on_signal);
    if (daemon_mode) {
        pid_t pid = fork();
        if (pid < 0) {
            fprintf(stderr, "tern-wire: fork: %m\n");
            goto err_fd1;
        }
        if (pid > 0) {
            FILE *f;
            if (pidfile != NULL && ((f = fopen(pidfile, "w")) == NULL ||
                                    fprintf(f, "%d\n", (int)pid) < 0 || fclose(f) != 0)) {
                fprintf(stderr, "tern-wire: %s: %m\n", pidfile);
                kill(pid, SIGTERM);
                return 1;
            }
            return 0;
        }
        /* standard input and output to /dev/null (a caller reading the
         * output waits for no daemon); errors stay on standard error */
        setsid();
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            close(null);
        }
    }
    status = wire_run(fd, link, names);
err_fd1:
    close(fd[1]);
err_fd0:
    close(fd[0]);
err_link1:
    wire_link_fini(&link[1]);
err_link0:
    wire_link_fini(&link[0]);
    return status;
}
