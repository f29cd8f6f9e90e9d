/* The node agent (docs/monitor.md): every interval it reads the ranks'
 * stats segments of this node (mon_scan.h) and the node's network counters
 * (mon_nic.h), and sends the server one frame (mon_wire.h) with what
 * changed, over one kept-alive HTTP connection.  A new connection starts
 * with a full frame, so a server that restarted, or an agent that lost
 * its connection, loses no totals.
 *
 * With reap set (tern-run --monitor, or a service with TERN_MONITOR_LINGER
 * set for the jobs), segments left by ranks that exited or died are
 * removed once their final values were sent. */
#ifndef TN_MON_AGENT_H
#define TN_MON_AGENT_H

#include "mon_buf.h"

typedef struct {
    char        host[256];      /* the server */
    int         port;
    char        token[256];     /* sent as a bearer token; "" none */
    char        node[64];       /* this node's name (hostname) */
    const char *dir;            /* the segments (/dev/shm) */
    const char *root;           /* "/": where /sys and /proc are (--sysroot) */
    double      interval;       /* seconds */
    int         frames;         /* 0: until a signal */
    int         reap;
    int         lock;           /* one agent a node and user: exit if one runs */
    int         exit_when_idle; /* exit when no segment for a while and the
                                 * parent (tern-run) is gone */
    int         parent;         /* that parent's pid, 0: none */
    int         same_netns;     /* only ranks in this network namespace (a
                                 * node of a namespace test cluster) */
} tn_mon_agent_opts_t;

int tn_mon_agent_run(const tn_mon_agent_opts_t *o);
/* One frame into out, no server (tests, benchmarks). */
int tn_mon_agent_frame(const tn_mon_agent_opts_t *o, tn_mon_buf_t *out, int full);

#endif
