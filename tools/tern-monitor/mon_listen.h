/* The listening socket of tern-monitor's web server (mon_srv.h), and the
 * address it is given on the command line.
 *
 * Only literal addresses and "localhost" (127.0.0.1): no name service, so
 * a monitoring server never waits on DNS to start, and what it listens on
 * is exactly what was written. */
#ifndef TN_MON_LISTEN_H
#define TN_MON_LISTEN_H

#include <stddef.h>
#include <stdint.h>

/* Split a listening address as written by a user: "ADDR:PORT",
 * "[IPV6]:PORT", ":PORT" or "PORT" (ADDR is then def), "ADDR", "[IPV6]"
 * or a bare IPv6 address (PORT is then def_port: with two colons or
 * more, nothing is taken as a port).  The address goes to host (cap
 * bytes, NUL-terminated, without brackets), the port to *port_p.  0, or
 * -1 for an empty or unclosed bracket, a port that is not 0..65535 in
 * decimal, or an address longer than cap - 1 bytes.  Whether the address
 * is one is for tn_mon_listen_open to say. */
int tn_mon_listen_parse(const char *spec, const char *def, uint16_t def_port,
                        char *host, size_t cap, uint16_t *port_p);

/* A non-blocking, close-on-exec TCP socket listening on addr (an IPv4 or
 * IPv6 literal, brackets allowed, or "localhost"; NULL: 127.0.0.1) and
 * port (0: one the kernel picks).  0 with the socket in *fd_p and the
 * port bound in *port_p, or -errno (-EINVAL: not a literal). */
int tn_mon_listen_open(const char *addr, uint16_t port, int *fd_p, uint16_t *port_p);

#endif
