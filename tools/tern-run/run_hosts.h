/* The hosts of a multi-host job and which ranks run where, without I/O.
 *
 * A host list comes from -host (comma-separated "name" or "name:slots"),
 * from a hostfile (one host per line: "name", "name:slots" as MPICH writes
 * it, or "name slots=N [max_slots=M]" as Open MPI does; '#' starts a
 * comment), or from a Slurm allocation.  A name given twice is one host
 * whose slots add up (a name without slots counts one slot each time).
 *
 * Mapping (tn_run_hosts_map) gives each rank a host:
 *   - ppn > 0 (-ppn, --npernode): ppn ranks per host, ranks 0..ppn-1 on
 *     the first host (map-by node: rank r on host r % nhosts); more ranks
 *     than ppn x hosts is an error;
 *   - map-by slot or core (the default): the hosts' slots in order; ranks
 *     beyond the slots go round again (oversubscription, reported);
 *   - map-by node: one rank per host in turn, skipping full hosts; once
 *     every host is full, round again (oversubscription, reported). */
#ifndef TN_RUN_HOSTS_H
#define TN_RUN_HOSTS_H

#include "run_util.h"

#include <stddef.h>

/* Longest host name accepted (DNS names are shorter). */
#define TN_RUN_HOST_NAME_MAX 255
/* Most slots on one host, and most hosts in one job. */
#define TN_RUN_HOST_SLOTS_MAX 65536
#define TN_RUN_HOSTS_MAX      65536

typedef struct {
    char *name;       /* owned */
    int   slots;      /* slots given, summed over repeats */
    int   given;      /* some occurrence named its slots */
} tn_run_host_t;

typedef struct {
    int            nhosts;
    tn_run_host_t *hosts;
    int           *index;     /* open-addressing table of names: host + 1,
                                 0 empty; index_cap (a power of two) is at
                                 least twice nhosts.  NULL until needed. */
    size_t         index_cap;
} tn_run_hostlist_t;

typedef enum {
    TN_RUN_MAP_SLOT,
    TN_RUN_MAP_NODE,
    TN_RUN_MAP_CORE      /* as slot; binding defaults to core */
} tn_run_map_t;

/* Add the hosts of a -host argument ("a,b:4,c").  Returns 0, or -1 with a
 * message in err. */
int tn_run_hosts_add_arg(tn_run_hostlist_t *hl, const char *arg, char *err,
                         size_t errlen);

/* Add the hosts of a hostfile's text (len bytes, need not end in '\n');
 * fname names it in messages.  Returns 0, or -1 with a message naming the
 * line in err. */
int tn_run_hosts_add_file(tn_run_hostlist_t *hl, const char *text, size_t len,
                          const char *fname, char *err, size_t errlen);

/* Add one host with slots (>= 1), or one slot when slots is 0. */
int tn_run_hosts_add(tn_run_hostlist_t *hl, const char *name, size_t namelen,
                     int slots, char *err, size_t errlen);

void tn_run_hosts_free(tn_run_hostlist_t *hl);

/* Slots of all hosts together (each host at least 1). */
long tn_run_hosts_slots(const tn_run_hostlist_t *hl);

/* Give every rank of nranks a host: host_of[r] (caller's array of nranks).
 * *oversub_p is set to 1 when some host gets more ranks than its slots.
 * Returns 0, or -1 with a message in err. */
int tn_run_hosts_map(const tn_run_hostlist_t *hl, int nranks, int ppn,
                     tn_run_map_t map, int *host_of, int *oversub_p,
                     char *err, size_t errlen);

/* MPICH's PMI_process_mapping value for the map: "(vector,(h,n,k),...)",
 * runs of k consecutive ranks on n consecutive hosts starting at h. */
void tn_run_hosts_mapping_str(const int *host_of, int nranks, tn_run_buf_t *out);

#endif
