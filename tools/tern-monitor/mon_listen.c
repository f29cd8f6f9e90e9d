/* The web server's listening socket; see mon_listen.h. */
#include "mon_listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int tn_mon_listen_parse(const char *spec, const char *def, uint16_t def_port,
                        char *host, size_t cap, uint16_t *port_p)
{
    const char *h = spec, *colon, *p = NULL;
    size_t      hlen;
    unsigned    port = def_port;

    if (spec[0] == '[') {
        const char *close = strchr(spec, ']');
        if (close == NULL || close == spec + 1 || (close[1] != '\0' && close[1] != ':')) {
            return -1;
        }
        h    = spec + 1;
        hlen = (size_t)(close - h);
        p    = close[1] == ':' ? close + 2 : NULL;
    } else if ((colon = strchr(spec, ':')) != NULL && strchr(colon + 1, ':') == NULL) {
        hlen = (size_t)(colon - spec);
        p    = colon + 1;
    } else if (spec[0] != '\0' && strspn(spec, "0123456789") == strlen(spec)) {
        hlen = 0;                   /* only a port */
        p    = spec;
    } else {
        hlen = strlen(spec);        /* an address alone, bare IPv6 included */
    }
    if (p != NULL) {
        if (p[0] == '\0' || strspn(p, "0123456789") != strlen(p) || strlen(p) > 5) {
            return -1;
        }
        port = 0;
        for (; *p != '\0'; p++) {
            port = port * 10 + (unsigned)(*p - '0');
        }
        if (port > 65535) {
            return -1;
        }
    }
    if (hlen == 0) {
        h    = def;
        hlen = strlen(def);
    }
    if (hlen == 0 || hlen >= cap) {
        return -1;
    }
    memcpy(host, h, hlen);
    host[hlen] = '\0';
    *port_p    = (uint16_t)port;
    return 0;
}

/* A literal address (brackets around IPv6 allowed) or "localhost". */
static int listen_addr(const char *addr, uint16_t port, struct sockaddr_storage *ss,
                       socklen_t *len_p)
{
    struct sockaddr_in  *sin  = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
    char                 host[INET6_ADDRSTRLEN];
    size_t               n;

    if (addr == NULL || strcmp(addr, "localhost") == 0) {
        addr = "127.0.0.1";
    }
    n = strlen(addr);
    if (n >= 2 && addr[0] == '[' && addr[n - 1] == ']') {
        addr++;
        n -= 2;
    }
    if (n >= sizeof(host)) {
        return -EINVAL;
    }
    memcpy(host, addr, n);
    host[n] = '\0';
    memset(ss, 0, sizeof(*ss));
    if (inet_pton(AF_INET, host, &sin->sin_addr) == 1) {
        sin->sin_family = AF_INET;
        sin->sin_port   = htons(port);
        *len_p          = sizeof(*sin);
        return 0;
    }
    if (inet_pton(AF_INET6, host, &sin6->sin6_addr) == 1) {
        sin6->sin6_family = AF_INET6;
        sin6->sin6_port   = htons(port);
        *len_p            = sizeof(*sin6);
        return 0;
    }
    return -EINVAL;
}

int tn_mon_listen_open(const char *addr, uint16_t port, int *fd_p, uint16_t *port_p)
{
    struct sockaddr_storage ss;
    socklen_t               sl;
    int                     one = 1, fd, rc;

    rc = listen_addr(addr, port, &ss, &sl);
    if (rc != 0) {
        return rc;
    }
    fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -errno;
    }
    /* a restarted server must not wait for its old connections' TIME_WAIT */
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
        bind(fd, (struct sockaddr *)&ss, sl) != 0 || listen(fd, 128) != 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
        rc = -errno;
        close(fd);
        return rc;
    }
    *fd_p   = fd;
    *port_p = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
                                            : ((struct sockaddr_in6 *)&ss)->sin6_port);
    return 0;
}
