/* udp_floor: what the kernel's UDP path between two processes costs with
 * no MPI and no reliability on top: the floor under any UDP transport's
 * latency and bandwidth on that path.  Not an MPI program.
 *
 *   udp_floor [--netns NS0,NS1] [--addr IP0,IP1] [-s SIZE] [-g SEG] [-t SEC]
 *
 * Two processes, pinned to the first two CPUs this one may use, each with
 * one socket: by default both on 127.0.0.1; with --netns each enters its
 * network namespace (/var/run/netns/NAME, needs CAP_SYS_ADMIN) and binds
 * its address from --addr (the two nodes of tests/net/netns_cluster.sh).
 *
 *  - latency: a ping-pong of SIZE bytes (default 8), both sides polling
 *    their non-blocking socket; prints the median one-way time of 5 rounds
 *    as "udp_floor latency SIZE B: X.XX us one-way".
 *  - bandwidth: process 0 streams 64 KiB sends of SEG-byte datagrams
 *    (UDP_SEGMENT; SEG defaults to the path MTU's datagram, at most 32 KiB,
 *    so 1472 bytes on a 1500-byte MTU) for SEC seconds (default 1), process
 *    1 receives with UDP_GRO into a 1 MiB buffer; prints what arrived, with
 *    no acks, no checksum and no flow control: "udp_floor bandwidth SEG B
 *    datagrams: X MB/s received (Y % of sent)".
 *
 * Exit status 0 when both measurements ran, 1 on errors. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif
#ifndef IP_MTU
#define IP_MTU 14
#endif

#define ROUNDS 5
#define TRIPS  20000
#define PORT   42917
#define SEND_MAX 65507         /* one UDP_SEGMENT send: 64 KiB - IP and UDP headers */

typedef struct {
    double lat_us[ROUNDS];
    long   sent, received;     /* bandwidth run, bytes */
    double seconds;            /* receiver's first to last datagram */
    int    seg;
    int    ready[2];
} shared_t;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void usage(void)
{
    fprintf(stderr, "usage: udp_floor [--netns NS0,NS1] [--addr IP0,IP1] [-s SIZE] "
                    "[-g SEG] [-t SEC]\n");
    exit(2);
}

/* "a,b" into two strings */
static void split2(char *arg, char **a, char **b)
{
    char *comma = strchr(arg, ',');
    if (comma == NULL) {
        usage();
    }
    *comma = '\0';
    *a = arg;
    *b = comma + 1;
}

static int enter_netns(const char *name)
{
    char path[256];
    snprintf(path, sizeof(path), "/var/run/netns/%s", name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || setns(fd, CLONE_NEWNET) != 0) {
        fprintf(stderr, "udp_floor: cannot enter network namespace %s: %s\n", name,
                strerror(errno));
        return -1;
    }
    close(fd);
    return 0;
}

/* Both processes meet here: each marks itself ready and waits for the other. */
static void meet(shared_t *sh, int me, int phase)
{
    __atomic_store_n(&sh->ready[me], phase, __ATOMIC_RELEASE);
    while (__atomic_load_n(&sh->ready[1 - me], __ATOMIC_ACQUIRE) < phase) {
        sched_yield();
    }
}

static int run(int me, int cpu, const char *ns, const char *my_ip, const char *peer_ip,
               int size, int seg, double secs, shared_t *sh)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0 || (ns != NULL && enter_netns(ns) != 0)) {
        return 1;
    }
    struct sockaddr_in mine = { .sin_family = AF_INET, .sin_port = htons(PORT + me) };
    struct sockaddr_in peer = { .sin_family = AF_INET, .sin_port = htons(PORT + 1 - me) };
    if (inet_pton(AF_INET, my_ip, &mine.sin_addr) != 1 ||
        inet_pton(AF_INET, peer_ip, &peer.sin_addr) != 1) {
        fprintf(stderr, "udp_floor: bad address %s or %s\n", my_ip, peer_ip);
        return 1;
    }
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    int buf = 4 << 20, on = 1;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf));
    setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf));
    if (fd < 0 || bind(fd, (struct sockaddr *)&mine, sizeof(mine)) != 0 ||
        connect(fd, (struct sockaddr *)&peer, sizeof(peer)) != 0) {
        fprintf(stderr, "udp_floor: socket on %s: %s\n", my_ip, strerror(errno));
        return 1;
    }
    static char data[1 << 20];
    memset(data, 1, sizeof(data));
    meet(sh, me, 1);

    /* latency: one round of warm-up, then ROUNDS timed ones */
    for (int r = -1; r < ROUNDS; r++) {
        double t0 = now_s();
        for (int k = 0; k < TRIPS; k++) {
            if (me == 0 && send(fd, data, (size_t)size, 0) != size) {
                perror("udp_floor: send");
                return 1;
            }
            while (recv(fd, data, sizeof(data), 0) < 0) {
                if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                    perror("udp_floor: recv");
                    return 1;
                }
            }
            if (me == 1 && send(fd, data, (size_t)size, 0) != size) {
                perror("udp_floor: send");
                return 1;
            }
        }
        if (me == 0 && r >= 0) {
            sh->lat_us[r] = (now_s() - t0) / TRIPS / 2 * 1e6;
        }
    }

    /* bandwidth: the segment size follows the path MTU unless given */
    if (me == 0) {
        int mtu = 0;
        socklen_t len = sizeof(mtu);
        if (seg <= 0) {
            seg = getsockopt(fd, IPPROTO_IP, IP_MTU, &mtu, &len) == 0 && mtu > 28
                  ? mtu - 28 : 1472;
            seg = seg > 32768 ? 32768 : seg;
        }
        sh->seg = seg;
    } else {
        setsockopt(fd, IPPROTO_UDP, UDP_GRO, &on, sizeof(on));
    }
    meet(sh, me, 2);
    if (me == 0) {
        int per = SEND_MAX / seg > 64 ? 64 : SEND_MAX / seg;
        size_t chunk = (size_t)per * (size_t)seg, off = 0;
        char ctl[CMSG_SPACE(sizeof(uint16_t))];
        double t0 = now_s();
        long sent = 0;
        while (now_s() - t0 < secs) {
            if (off + chunk > sizeof(data)) {
                off = 0;
            }
            struct iovec iov = { data + off, chunk };
            struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
            if (per > 1) {
                m.msg_control = ctl;
                m.msg_controllen = sizeof(ctl);
                struct cmsghdr *c = CMSG_FIRSTHDR(&m);
                c->cmsg_level = IPPROTO_UDP;
                c->cmsg_type = UDP_SEGMENT;
                c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
                uint16_t s16 = (uint16_t)seg;
                memcpy(CMSG_DATA(c), &s16, sizeof(s16));
            }
            ssize_t n = sendmsg(fd, &m, 0);
            if (n > 0) {
                sent += n;
                off += chunk;
            } else if (n < 0 && errno != EAGAIN && errno != ENOBUFS && errno != EINTR) {
                perror("udp_floor: sendmsg");
                return 1;
            }
        }
        sh->sent = sent;
        __atomic_store_n(&sh->ready[0], 3, __ATOMIC_RELEASE);
    } else {
        long got = 0;
        double first = 0, last = 0;
        /* until the sender is done and the socket is empty */
        for (;;) {
            ssize_t n = recv(fd, data, sizeof(data), 0);
            if (n > 0) {
                last = now_s();
                if (got == 0) {
                    first = last;
                }
                got += n;
            } else if (__atomic_load_n(&sh->ready[0], __ATOMIC_ACQUIRE) == 3) {
                break;
            }
        }
        sh->received = got;
        sh->seconds = last - first;
    }
    close(fd);
    return 0;
}

int main(int argc, char **argv)
{
    char *ns[2] = { NULL, NULL }, *ip[2] = { "127.0.0.1", "127.0.0.1" };
    int size = 8, seg = 0;
    double secs = 1.0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--netns") == 0 && i + 1 < argc) {
            split2(argv[++i], &ns[0], &ns[1]);
        } else if (strcmp(argv[i], "--addr") == 0 && i + 1 < argc) {
            split2(argv[++i], &ip[0], &ip[1]);
        } else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) {
            size = atoi(argv[++i]);
        } else if (strcmp(argv[i], "-g") == 0 && i + 1 < argc) {
            seg = atoi(argv[++i]);
        } else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc) {
            secs = atof(argv[++i]);
        } else {
            usage();
        }
    }
    if (size < 1 || size > 65507 || seg < 0 || seg > 65507 || secs <= 0) {
        usage();
    }
    cpu_set_t set;
    int cpus[2] = { 0, 0 }, n = 0;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        for (int c = 0; c < CPU_SETSIZE && n < 2; c++) {
            if (CPU_ISSET(c, &set)) {
                cpus[n++] = c;
            }
        }
    }
    if (n < 2) {
        cpus[1] = cpus[0];      /* one CPU: still runs, slowly */
    }
    shared_t *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                        -1, 0);
    if (sh == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    memset(sh, 0, sizeof(*sh));
    pid_t child = fork();
    if (child < 0) {
        perror("fork");
        return 1;
    }
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        _exit(run(1, cpus[1], ns[1], ip[1], ip[0], size, seg, secs, sh));
    }
    int rc = run(0, cpus[0], ns[0], ip[0], ip[1], size, seg, secs, sh);
    if (rc != 0) {
        kill(child, SIGKILL);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (rc != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "udp_floor: failed\n");
        return 1;
    }
    qsort(sh->lat_us, ROUNDS, sizeof(double), cmp_double);
    printf("udp_floor latency %d B: %.2f us one-way\n", size, sh->lat_us[ROUNDS / 2]);
    double rate = sh->seconds > 0 ? (double)sh->received / sh->seconds / 1e6 : 0;
    printf("udp_floor bandwidth %d B datagrams: %.0f MB/s received (%.0f %% of sent)\n",
           sh->seg, rate, sh->sent > 0 ? 100.0 * (double)sh->received / (double)sh->sent : 0);
    return sh->received > 0 ? 0 : 1;
}
