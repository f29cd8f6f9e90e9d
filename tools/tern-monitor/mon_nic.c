/* The node agent's reads of network counters (mon_nic.h): the files of
 * /sys/class/net, /proc/net/snmp and /sys/class/infiniband, under a root
 * directory, each read once into a fixed buffer and handed to its decoder
 * in mon_nic_parse.c.
 *
 * Directories are opened relative to one another (openat), so a file's
 * path is looked up from its interface's directory, not from "/" again,
 * and the tests can point root at a fake tree.  A file that cannot be
 * opened or read (ENOENT; EINVAL from `speed` on a down or virtual link)
 * leaves its value unread; one that is read but refused counts in n_bad,
 * so the agent can say that the kernel wrote something it did not expect. */
#include "mon_nic.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define IF_PATH(id, name) "statistics/" name,
#define IB_PATH(id, name) "counters/" name,
static const char *const if_paths[] = { TN_MON_NIC_IF_CTRS(IF_PATH) };
static const char *const ib_paths[] = { TN_MON_NIC_IB_CTRS(IB_PATH) };
#undef IF_PATH
#undef IB_PATH

long tn_mon_nic_read(int dirfd, const char *path, char *buf, size_t cap)
{
    ssize_t n;
    int     err;
    int     fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);

    if (fd < 0) {
        return -errno;
    }
    do {
        n = read(fd, buf, cap);
    } while (n < 0 && errno == EINTR);
    err = errno;
    close(fd);
    if (n < 0) {
        return -err;
    }
    return (size_t)n == cap ? -EFBIG : (long)n;
}

/* Read a file; -1 when unreadable, or read but too large (counted bad). */
static long rd(int dirfd, const char *path, char *buf, tn_mon_nic_sample_t *s)
{
    long n = tn_mon_nic_read(dirfd, path, buf, TN_MON_NIC_FILE_MAX);

    if (n == -EFBIG) {
        s->n_bad++;
    }
    return n < 0 ? -1 : n;
}

/* A decimal file into *v; 1 when decoded. */
static int rd_u64(int dirfd, const char *path, char *buf, tn_mon_nic_sample_t *s, uint64_t *v)
{
    long n = rd(dirfd, path, buf, s);

    if (n < 0) {
        return 0;
    }
    if (tn_mon_nic_parse_u64(buf, (size_t)n, v) != 0) {
        s->n_bad++;
        return 0;
    }
    return 1;
}

/* A u32 file (ifindex, type, mtu) into *v; values past 32 bits are bad. */
static void rd_u32(int dirfd, const char *path, char *buf, tn_mon_nic_sample_t *s, uint32_t *v)
{
    uint64_t x;

    if (rd_u64(dirfd, path, buf, s, &x)) {
        if (x > UINT32_MAX) {
            s->n_bad++;
        } else {
            *v = (uint32_t)x;
        }
    }
}

/* A name kept: 1..max-1 printable bytes (no spaces, no '/'), so that it
 * goes into labels and logs as it is; "." and ".." are not entries. */
static int name_ok(const char *name, size_t max)
{
    size_t n = strnlen(name, max);

    if (n == 0 || n == max || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (name[i] <= ' ' || name[i] > '~' || name[i] == '/') {
            return 0;
        }
    }
    return 1;
}

static void read_if(int fd, tn_mon_nic_if_t *itf, char *buf, tn_mon_nic_sample_t *s)
{
    uint64_t v;
    long     n;
    int      oper;

    for (int i = 0; i < TN_MON_NIC_IF_NCTR; i++) {
        if (rd_u64(fd, if_paths[i], buf, s, &itf->ctr[i])) {
            itf->have |= 1u << i;
        }
    }
    rd_u32(fd, "ifindex", buf, s, &itf->ifindex);
    rd_u32(fd, "type", buf, s, &itf->type);
    rd_u32(fd, "mtu", buf, s, &itf->mtu);
    itf->loopback = itf->type == TN_MON_NIC_ARPHRD_LOOPBACK || strcmp(itf->name, "lo") == 0;
    if ((n = rd(fd, "speed", buf, s)) >= 0) {
        if (tn_mon_nic_parse_speed(buf, (size_t)n, &v) == 0) {
            itf->speed_mbps = v;
        } else {
            s->n_bad++;
        }
    }
    itf->oper = TN_MON_NIC_OPER_UNKNOWN;
    if ((n = rd(fd, "operstate", buf, s)) >= 0) {
        if (tn_mon_nic_parse_oper(buf, (size_t)n, &oper) == 0) {
            itf->oper = (uint8_t)oper;
        } else {
            s->n_bad++;
        }
    }
}

static void read_ib_port(int fd, tn_mon_nic_ib_t *ib, char *buf, tn_mon_nic_sample_t *s)
{
    long n;

    for (int i = 0; i < TN_MON_NIC_IB_NCTR; i++) {
        if (rd_u64(fd, ib_paths[i], buf, s, &ib->ctr[i])) {
            ib->have |= 1u << i;
        }
    }
    /* the kernel counts data in 4-byte words: the sample holds bytes */
    ib->ctr[TN_MON_NIC_IB_XMIT_BYTES] *= 4;
    ib->ctr[TN_MON_NIC_IB_RCV_BYTES] *= 4;
    if ((n = rd(fd, "state", buf, s)) >= 0 &&
        tn_mon_nic_parse_ib_state(buf, (size_t)n, &ib->state) != 0) {
        s->n_bad++;
    }
    if ((n = rd(fd, "rate", buf, s)) >= 0 &&
        tn_mon_nic_parse_ib_rate(buf, (size_t)n, &ib->rate_mbps, ib->rate_desc,
                                 sizeof(ib->rate_desc)) != 0) {
        s->n_bad++;
    }
}

/* Open the directory path under dirfd for listing; NULL when absent. */
static DIR *dir_at(int dirfd, const char *path)
{
    int  fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d;

    if (fd < 0) {
        return NULL;
    }
    if ((d = fdopendir(fd)) == NULL) {
        close(fd);
    }
    return d;
}

static void sample_net(int rootfd, char *buf, tn_mon_nic_sample_t *s)
{
    DIR           *d = dir_at(rootfd, "sys/class/net");
    struct dirent *e;

    if (d == NULL) {
        return;
    }
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
            continue;
        }
        if (s->n_if == TN_MON_NIC_IF_MAX || !name_ok(e->d_name, TN_MON_NIC_NAME_LEN)) {
            s->if_dropped++;
            continue;
        }
        int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
            continue; /* gone since the listing */
        }
        tn_mon_nic_if_t *itf = &s->ifs[s->n_if++];
        strcpy(itf->name, e->d_name); /* name_ok: it fits */
        read_if(fd, itf, buf, s);
        close(fd);
    }
    closedir(d);
}

/* The ports of one IB device: ports/<n>/. */
static void sample_ib_dev(int devsfd, const char *dev, char *buf, tn_mon_nic_sample_t *s)
{
    char           path[TN_MON_NIC_IBDEV_LEN + 8];
    DIR           *d;
    struct dirent *e;
    uint64_t       port;

    memcpy(path, dev, strlen(dev) + 1);
    strcat(path, "/ports");
    if ((d = dir_at(devsfd, path)) == NULL) {
        return;
    }
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
            continue;
        }
        if (s->n_ib == TN_MON_NIC_IB_MAX || strlen(e->d_name) > 5 ||
            tn_mon_nic_parse_u64(e->d_name, strlen(e->d_name), &port) != 0 || port == 0 ||
            port > 65535 || strchr(e->d_name, '\n') != NULL) {
            s->ib_dropped++;
            continue;
        }
        int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
            continue;
        }
        tn_mon_nic_ib_t *ib = &s->ib[s->n_ib++];
        strcpy(ib->dev, dev);
        ib->port = (uint32_t)port;
        read_ib_port(fd, ib, buf, s);
        close(fd);
    }
    closedir(d);
}

static void sample_ib(int rootfd, char *buf, tn_mon_nic_sample_t *s)
{
    DIR           *d = dir_at(rootfd, "sys/class/infiniband");
    struct dirent *e;

    if (d == NULL) {
        return;
    }
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
            continue;
        }
        if (!name_ok(e->d_name, TN_MON_NIC_IBDEV_LEN)) {
            s->ib_dropped++;
            continue;
        }
        sample_ib_dev(dirfd(d), e->d_name, buf, s);
    }
    closedir(d);
}

static int if_cmp(const void *a, const void *b)
{
    return strcmp(((const tn_mon_nic_if_t *)a)->name, ((const tn_mon_nic_if_t *)b)->name);
}

static int ib_cmp(const void *a, const void *b)
{
    const tn_mon_nic_ib_t *x = a, *y = b;
    int                    c = strcmp(x->dev, y->dev);

    return c != 0 ? c : (x->port > y->port) - (x->port < y->port);
}

int tn_mon_nic_sample(const char *root, tn_mon_nic_sample_t *s)
{
    char            snmp[TN_MON_NIC_SNMP_MAX];
    char            buf[TN_MON_NIC_FILE_MAX];
    struct timespec ts;
    long            n;
    int             rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (rootfd < 0) {
        return -errno;
    }
    memset(s, 0, sizeof(*s));
    clock_gettime(CLOCK_MONOTONIC, &ts);
    s->t_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    sample_net(rootfd, buf, s);
    qsort(s->ifs, s->n_if, sizeof(s->ifs[0]), if_cmp);
    n = tn_mon_nic_read(rootfd, "proc/net/snmp", snmp, sizeof(snmp));
    if (n == -EFBIG || (n >= 0 && tn_mon_nic_parse_snmp(snmp, (size_t)n, &s->snmp) != 0)) {
        s->n_bad++;
    }
    sample_ib(rootfd, buf, s);
    qsort(s->ib, s->n_ib, sizeof(s->ib[0]), ib_cmp);
    close(rootfd);
    return 0;
}
