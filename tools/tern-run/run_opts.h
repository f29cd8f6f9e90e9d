/* Command line of tern-run (also run as mpiexec and mpirun):
 *   tern-run [options] prog [args...] [: [options] prog [args...]]...
 * Options end at the first word that is not an option, or at "--".  Long
 * options take one or two dashes ("-genv", "--genv") and "--opt=value".
 * A word ":" after a program's arguments starts another block of an MPMD
 * job: -n, -x and -env apply to the block they are in (every block has
 * its -n), every other option to the whole job wherever it stands. */
#ifndef TN_RUN_OPTS_H
#define TN_RUN_OPTS_H

#include "run_hosts.h"

#include <stddef.h>

typedef enum {
    TN_RUN_BIND_AUTO,   /* bind to cores when 1 < ranks <= cores, else not */
    TN_RUN_BIND_CORE,   /* each rank to one core (all its hardware threads) */
    TN_RUN_BIND_HWTHREAD,/* each rank to one hardware thread */
    TN_RUN_BIND_NONE
} tn_run_bind_t;

/* One variable to give the ranks (-x, -genv, -env). */
typedef struct {
    const char *name;
    const char *value;   /* NULL: copy from tern-run's environment */
    char       *owned;   /* allocation behind name/value, or NULL */
} tn_run_envvar_t;

/* One block of the command line: "-n N [-x ...] prog args". */
typedef struct {
    int              nranks;        /* -n; 0 when not given */
    int              nenv;
    tn_run_envvar_t *env;           /* -x, -env of this block */
    char           **argv;          /* program and arguments (NULL-terminated,
                                       owned array of pointers into argv) */
} tn_run_optblock_t;

typedef struct {
    int              nranks;        /* all blocks together */
    int              nblocks;
    tn_run_optblock_t *blocks;
    int              timeout_s;     /* --timeout or TERN_RUN_TIMEOUT; 0 = none */
    tn_run_bind_t    bind;
    int              bind_given;    /* --bind-to was given */
    int              report_bindings;
    int              tag_output;
    int              timestamp_output;
    const char      *output_dir;    /* --output-filename (run_ofile.c) */
    int              pty;           /* TERN_RUN_PTY: ranks' stdout on a pty */
    int              quiet;         /* -q: no warnings */
    int              oversubscribe; /* --oversubscribe: no warning for it */
    int              monitor;       /* --monitor: the ranks publish stats segments */
    const char      *monitor_server;/* --monitor=HOST[:PORT]: and a node agent sends them */
    int              nenv;
    tn_run_envvar_t *env;           /* -genv: every block, in order */
    char            *netns;         /* --netns: comma-separated namespaces (owned) */
    int              nnetns;
    int              ppn;           /* -ppn: ranks per host or namespace */
    tn_run_hostlist_t hosts;        /* -host, -hostfile; none: this host */
    tn_run_map_t     map;           /* --map-by */
    const char      *rsh;           /* --launcher-exec or TERN_RUN_RSH */
    int              launcher_fork; /* --launcher fork: proxies run here */
    int              launcher_slurm;/* --launcher slurm: proxies by srun */
    int              launcher_given;/* --launcher or --launcher-exec given */
    int              rsh_given;     /* --launcher-exec given */
    const char      *slurm_job;     /* SLURM_JOB_ID when inside an allocation
                                       that tern-run uses (run_opts.c) */
    int              tree_width;    /* TERN_RUN_TREE_WIDTH */
    size_t           kvs_keys;      /* TERN_RUN_KVS_KEYS: PMI keys per job */
    size_t           kvs_bytes;     /* TERN_RUN_KVS_BYTES: their bytes */
    size_t           pmi_backlog;   /* TERN_RUN_PMI_BACKLOG: unread reply bytes */
} tn_run_opts_t;

/* The network namespace local rank i runs in (NULL: tern-run's own). */
const char *tn_run_opts_netns_of(const tn_run_opts_t *opts, int rank);

#define TN_RUN_OPTS_RUN (-1)

/* Parse the command line into *opts_p (pointers into argv are kept).
 * Returns TN_RUN_OPTS_RUN to go on and start the job, otherwise the exit
 * status tern-run should end with right away (0 after --help or --version,
 * 2 after a usage error, which has been printed). */
int tn_run_opts_parse(int argc, char **argv, tn_run_opts_t *opts_p);

void tn_run_opts_free(tn_run_opts_t *opts);

#endif
