/* Command line of tern-run (also run as mpiexec and mpirun):
 *   tern-run [options] prog [args...]
 * Options end at the first word that is not an option, or at "--".  Long
 * options take one or two dashes ("-genv", "--genv") and "--opt=value". */
#ifndef TN_RUN_OPTS_H
#define TN_RUN_OPTS_H

#include <stddef.h>

typedef enum {
    TN_RUN_BIND_AUTO,   /* bind when 1 < ranks <= CPUs, else not */
    TN_RUN_BIND_CORE,   /* always bind, round-robin when oversubscribed */
    TN_RUN_BIND_NONE
} tn_run_bind_t;

/* One variable to give the ranks (-x, -genv, -env). */
typedef struct {
    const char *name;
    const char *value;   /* NULL: copy from tern-run's environment */
    char       *owned;   /* allocation behind name/value, or NULL */
} tn_run_envvar_t;

typedef struct {
    int              nranks;        /* -n, default 1 */
    int              timeout_s;     /* --timeout or TERN_RUN_TIMEOUT; 0 = none */
    tn_run_bind_t    bind;
    int              tag_output;
    int              quiet;         /* -q: no warnings */
    int              nenv;
    tn_run_envvar_t *env;           /* in command-line order */
    char           **argv;          /* program and arguments, NULL-terminated */
    char            *netns;         /* --netns: comma-separated namespaces (owned) */
    int              nnetns;
    int              ppn;           /* --ppn: ranks per namespace (0 = spread evenly) */
    size_t           kvs_keys;      /* TERN_RUN_KVS_KEYS: PMI keys per job */
    size_t           kvs_bytes;     /* TERN_RUN_KVS_BYTES: their bytes */
    size_t           pmi_backlog;   /* TERN_RUN_PMI_BACKLOG: unread reply bytes */
} tn_run_opts_t;

/* The network namespace rank r runs in (NULL: tern-run's own). */
const char *tn_run_opts_netns_of(const tn_run_opts_t *opts, int rank);

#define TN_RUN_OPTS_RUN (-1)

/* Parse the command line into *opts_p (pointers into argv are kept).
 * Returns TN_RUN_OPTS_RUN to go on and start the job, otherwise the exit
 * status tern-run should end with right away (0 after --help or --version,
 * 2 after a usage error, which has been printed). */
int tn_run_opts_parse(int argc, char **argv, tn_run_opts_t *opts_p);

void tn_run_opts_free(tn_run_opts_t *opts);

#endif
