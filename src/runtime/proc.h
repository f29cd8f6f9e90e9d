/* The process table beyond the world (dynamic processes).
 *
 * Processes are named by a global process index (gpi): 0..world_size-1 are
 * the world ranks, as everywhere else; processes met later (spawned
 * children, a parent, another job through MPI_Comm_accept/connect) get the
 * next free indices, in the order this process learns of them, so a gpi
 * is local to the process that holds it.  Every per-peer table of the
 * runtime (xport_of, node_of_world, local_of_world) and of the core
 * (through the peers_grow hook) grows with it.  Peers of our own world
 * keep their transports (shm, udp); the others are reached by the sock
 * transport (xport/sock/sock.h), each counted as a node of its own.
 *
 * A process is known to the others by its card, "<key>@<addrs>": key is
 * "<kvsname>#<world rank>" (unique: kvsnames are), addrs the sock
 * listener's addresses.  A card of our own job maps to the world rank.
 *
 * The secret that authenticates sock connections is the job's: rank 0
 * draws one at start-up and puts it in the key/value space (the launcher
 * path, like the udp secret); a spawned job finds its parent's under
 * TN_PROC_PARENT_SECRET, preput by the launcher, and uses that one, so
 * parents and children authenticate each other. */
#ifndef TN_RUNTIME_PROC_H
#define TN_RUNTIME_PROC_H

#include <stddef.h>
#include "base/status.h"

#define TN_PROC_CARD_MAX 512
#define TN_PROC_PARENT_SECRET "tn-parent-secret"
#define TN_PROC_PARENT_PORT   "PARENT_ROOT_PORT_NAME"

/* Rank 0 at start-up: draw the job's secret and put it (before the
 * start-up fence). */
tn_status_t tn_rt_proc_secret_put(void);
/* Get the secret, start the sock transport and its listener (once). */
tn_status_t tn_rt_proc_setup(void);
/* This process's card. */
tn_status_t tn_rt_proc_card(char *buf, size_t len);
/* The gpi of the process of card (added when new).  TN_ERR_INVAL for a
 * card that does not parse. */
tn_status_t tn_rt_proc_add(const char *card, int *gpi_p);
/* A value the launcher preput for us (spawned jobs), or TN_ERR_NOTFOUND. */
tn_status_t tn_rt_proc_preput(const char *key, char *value, int len);
/* The job's secret in hex, for the launcher to preput in a spawned job. */
#define TN_PROC_SECRET_HEX 65
tn_status_t tn_rt_proc_secret_hex(char *buf, size_t len);
void tn_rt_proc_finalize(void);

#endif
