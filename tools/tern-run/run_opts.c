/* Command-line parsing of tern-run; see run_opts.h. */
#include "pmi_srv.h"
#include "run_opts.h"
#include "run_slurm.h"
#include "run_util.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifndef TERN_VERSION
#define TERN_VERSION "unknown"
#endif

/* More ranks than this would run out of file descriptors long before. */
#define TN_RUN_MAX_RANKS 4096

static void usage(FILE *f)
{
    fputs("Usage: tern-run [options] program [args...] [: [options] program [args...]]...\n"
          "Start an MPI job on this host, or on several hosts through ssh.\n"
          "\n"
          "  -n N, -np N          number of ranks (default 1; with hosts: their slots)\n"
          "  -x VAR               give the ranks VAR from this environment\n"
          "  -x VAR=VAL           give the ranks VAR set to VAL\n"
          "  -env VAR VAL         same as -x VAR=VAL\n"
          "  -genv VAR VAL        VAR=VAL for the ranks of every block\n"
          "  :                    another program (MPMD): -n, -x and -env apply\n"
          "                       to their own block, MPI_APPNUM is the block number\n"
          "  -host H1[:S],H2...   run on these hosts (S slots each, default 1)\n"
          "  -hostfile F          hosts from F (\"host\", \"host:S\" or \"host slots=S\"\n"
          "                       per line; also -machinefile, --hostfile)\n"
          "  -ppn N               N ranks per host (also --npernode); with --netns,\n"
          "                       per namespace\n"
          "  --map-by slot|node|core  fill each host's slots in order (slot, core),\n"
          "                       or one rank per host in turn (node)\n"
          "  --launcher ssh|slurm|fork  how proxies start on other hosts: the\n"
          "                       remote shell (ssh, TERN_RUN_RSH), srun (the default\n"
          "                       inside a Slurm allocation), or forked on this host\n"
          "                       (a test of the tree)\n"
          "  --launcher-exec CMD  remote shell (or srun) command to start them with\n"
          "  --timeout SEC        end the job after SEC seconds, exit 124\n"
          "                       (default from TERN_RUN_TIMEOUT; 0 = none)\n"
          "  --bind-to core|hwthread|none  bind each rank to one core, to one\n"
          "                       hardware thread, or not; default: core when\n"
          "                       1 < ranks <= cores on the host\n"
          "  --report-bindings    say where each rank is bound\n"
          "  --tag-output         prefix each output line with [rank]\n"
          "  --timestamp-output   prefix each output line with the time it came,\n"
          "                       [2026-11-27 07:31:02.123] (before [rank])\n"
          "  --output-filename DIR  also write each rank's stdout and stderr to\n"
          "                       DIR/1/rank.N/stdout and .../stderr; DIR:nocopy\n"
          "                       only there, DIR:nojobid without the 1/\n"
          "  --netns NS1,NS2,...  run ranks in these network namespaces (nodes of a\n"
          "                       test cluster on one machine; /var/run/netns/NAME),\n"
          "                       in blocks of -ppn ranks (default: spread evenly)\n"
          "  -v                   verbose (twice: trace PMI traffic)\n"
          "  -q, --quiet          no warnings (ranks that never contacted the\n"
          "                       PMI server: programs of another MPI)\n"
          "  --oversubscribe      no warning when ranks outnumber a host's slots\n"
          "  --monitor[=HOST[:PORT]]  the ranks publish their counters (TERN_MONITOR=1,\n"
          "                       for tern-monitor top); with a server, a node agent\n"
          "                       on each host sends them there (docs/monitor.md)\n"
          "  -h, --help           this help\n"
          "  --status [PID]       alone: print where the ranks of your running\n"
          "                       tern-run job PID (default: every job of yours)\n"
          "                       are: each rank's MPI call, its arguments, for\n"
          "                       how long, its pending requests\n"
          "  --version            print the version\n"
          "  --                   end of options\n"
          "Accepted and ignored: --allow-run-as-root.\n"
          "Limits on what ranks may make tern-run hold (the job ends when a\n"
          "rank goes beyond): TERN_RUN_KVS_KEYS, TERN_RUN_KVS_BYTES (PMI\n"
          "key-value space), TERN_RUN_PMI_BACKLOG (unread PMI replies per rank).\n"
          "The ranks get the whole environment of tern-run, plus -x/-env/-genv,\n"
          "on every host.\n"
          "Inside a Slurm allocation (salloc, sbatch: SLURM_JOB_ID and\n"
          "SLURM_JOB_NODELIST set) the hosts are the allocation's nodes and -n\n"
          "defaults to its tasks, unless -host, -hostfile or --netns is given;\n"
          "not in a task that srun started with a PMI server (--mpi=pmi2, pmix).\n"
          "Exit status: 0 when all ranks exit 0; else that of the first rank\n"
          "to fail (128+N for signal N), the MPI_Abort code, 124 on timeout,\n"
          "128+N when tern-run got signal N, 1 when a host was lost.\n"
          "Signals: INT, TERM, HUP, QUIT end the job (forwarded to the ranks);\n"
          "USR1 prints where the ranks are (as --status) on stderr; USR2 is\n"
          "forwarded; TSTP/CONT stop and resume the ranks.  --timeout prints\n"
          "where the ranks are before ending the job.\n", f);
}

static int parse_int(const char *s, int min, int max, int *val_p)
{
    char *end;
    long  v;

    errno = 0;
    v     = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < min || v > max) {
        return -1;
    }
    *val_p = (int)v;
    return 0;
}

static void add_env(tn_run_envvar_t **env_p, int *nenv_p, const char *name,
                    const char *value, char *owned)
{
    *env_p = tn_run_xrealloc(*env_p, (size_t)(*nenv_p + 1) * sizeof(**env_p));
    (*env_p)[*nenv_p].name  = name;
    (*env_p)[*nenv_p].value = value;
    (*env_p)[*nenv_p].owned = owned;
    (*nenv_p)++;
}

/* -x VAR or -x VAR=VAL. */
static int add_env_x(tn_run_envvar_t **env_p, int *nenv_p, const char *arg)
{
    const char *eq = strchr(arg, '=');
    char       *copy;

    if (eq == arg || *arg == '\0') {
        return -1;
    }
    if (eq == NULL) {
        add_env(env_p, nenv_p, arg, NULL, NULL);
        return 0;
    }
    copy = tn_run_xstrdup(arg);
    copy[eq - arg] = '\0';
    add_env(env_p, nenv_p, copy, copy + (eq - arg) + 1, copy);
    return 0;
}

/* A byte count or number with an optional k/m/g suffix (powers of 1024),
 * like the SIZE variables of the config table; at least 1. */
static int parse_size(const char *s, size_t *val_p)
{
    char              *end;
    unsigned long long v;
    unsigned           shift = 0;

    errno = 0;
    v     = strtoull(s, &end, 10);
    if (errno != 0 || end == s || s[0] == '-') {
        return -1;
    }
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default:            break;
    }
    if (*end != '\0' || v == 0 || v > (SIZE_MAX >> shift)) {
        return -1;
    }
    *val_p = (size_t)v << shift;
    return 0;
}

/* The limits of the PMI server from the environment (config table). */
static int opts_limits(tn_run_opts_t *opts_p)
{
    static const struct { const char *name; size_t off, def; } lim[] = {
        { "TERN_RUN_KVS_KEYS", offsetof(tn_run_opts_t, kvs_keys),
          TN_PMI_KVS_KEYS_DEF },
        { "TERN_RUN_KVS_BYTES", offsetof(tn_run_opts_t, kvs_bytes),
          TN_PMI_KVS_BYTES_DEF },
        { "TERN_RUN_PMI_BACKLOG", offsetof(tn_run_opts_t, pmi_backlog),
          TN_PMI_BACKLOG_DEF },
    };

    for (size_t i = 0; i < sizeof(lim) / sizeof(lim[0]); i++) {
        const char *v   = getenv(lim[i].name);
        size_t     *out = (size_t *)((char *)opts_p + lim[i].off);

        *out = lim[i].def;
        if (v != NULL && *v != '\0' && parse_size(v, out) != 0) {
            tn_run_log("bad %s='%s' (want a count >= 1, k/m/g allowed)",
                       lim[i].name, v);
            return -1;
        }
    }
    return 0;
}

/* Read a hostfile into the host list. */
static int opts_hostfile(tn_run_opts_t *opts, const char *fname)
{
    FILE        *f = fopen(fname, "r");
    tn_run_buf_t text = { 0 };
    char         chunk[4096];
    char         err[320];
    size_t       n;
    int          rc;

    if (f == NULL) {
        tn_run_log("hostfile %s: %m", fname);
        return -1;
    }
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        tn_run_buf_append(&text, chunk, n);
        if (text.len > (64u << 20)) {
            break;
        }
    }
    fclose(f);
    if (text.len > (64u << 20)) {
        tn_run_log("hostfile %s: larger than 64 MiB", fname);
        tn_run_buf_free(&text);
        return -1;
    }
    rc = tn_run_hosts_add_file(&opts->hosts, text.data != NULL ? text.data : "",
                               text.len, fname, err, sizeof(err));
    if (rc != 0) {
        tn_run_log("%s", err);
    }
    tn_run_buf_free(&text);
    return rc;
}

/* A BOOL of the config table: 0/1, yes/no, on/off, true/false. */
static int opts_bool(const char *var, int def, int *val_p)
{
    static const char *const word[] = { "0", "1", "no", "yes", "off", "on",
                                        "false", "true" };
    const char *v = getenv(var);

    *val_p = def;
    if (v == NULL || *v == '\0') {
        return 0;
    }
    for (size_t i = 0; i < sizeof(word) / sizeof(word[0]); i++) {
        if (strcasecmp(v, word[i]) == 0) {
            *val_p = (int)(i & 1);
            return 0;
        }
    }
    tn_run_log("bad %s='%s' (want 0 or 1)", var, v);
    return -1;
}

/* Settings that come from the environment (config table). */
static int opts_from_env(tn_run_opts_t *opts_p)
{
    const char *env_timeout = getenv("TERN_RUN_TIMEOUT");
    const char *env_width   = getenv("TERN_RUN_TREE_WIDTH");
    const char *env_rsh     = getenv("TERN_RUN_RSH");

    if (env_timeout != NULL && *env_timeout != '\0' &&
        parse_int(env_timeout, 0, INT_MAX, &opts_p->timeout_s) != 0) {
        tn_run_log("bad TERN_RUN_TIMEOUT='%s' (want seconds >= 0)",
                   env_timeout);
        return -1;
    }
    opts_p->tree_width = 32;
    if (env_width != NULL && *env_width != '\0' &&
        parse_int(env_width, 1, 4096, &opts_p->tree_width) != 0) {
        tn_run_log("bad TERN_RUN_TREE_WIDTH='%s' (want 1 to 4096)", env_width);
        return -1;
    }
    opts_p->rsh = env_rsh != NULL && *env_rsh != '\0' ? env_rsh : "ssh";
    if (opts_bool("TERN_RUN_PTY", 1, &opts_p->pty) != 0) {
        return -1;
    }
    return opts_limits(opts_p);
}

/* Inside a Slurm allocation: SLURM_JOB_ID and SLURM_JOB_NODELIST are set
 * in a salloc shell, a batch script and the tasks of its steps.  There, as
 * under Hydra, the allocation's nodes are the hosts when none are given
 * (-host, -hostfile, --netns), and srun starts the proxies unless
 * --launcher or --launcher-exec says otherwise.  Except in a task that
 * srun started with a PMI server of Slurm's (SLURM_STEP_ID with PMI_FD,
 * PMI_PORT or PMIX_NAMESPACE: "srun --mpi=pmi2 tern-run ..."): that is one
 * rank of Slurm's own job, each of its siblings would start the whole job
 * again, so tern-run stays on this host as it would outside Slurm.
 * Slots: SLURM_TASKS_PER_NODE (the job's tasks on each node); in a step's
 * task that variable describes the step, so there the job's CPUs
 * (SLURM_JOB_CPUS_PER_NODE).  Returns 0, or -1 after saying why. */
static int opts_slurm(tn_run_opts_t *opts)
{
    const char *job    = getenv("SLURM_JOB_ID");
    const char *nodes  = getenv("SLURM_JOB_NODELIST");
    const char *step   = getenv("SLURM_STEP_ID");
    const char *cvar   = "SLURM_TASKS_PER_NODE";
    const char *counts;
    char        err[320];

    if (job == NULL || *job == '\0' || nodes == NULL || *nodes == '\0') {
        if (opts->launcher_slurm) {
            tn_run_log("--launcher slurm: not inside a Slurm allocation "
                       "(SLURM_JOB_ID and SLURM_JOB_NODELIST are not set)");
            return -1;
        }
        return 0;
    }
    if (step != NULL && (getenv("PMI_FD") != NULL ||
                         getenv("PMI_PORT") != NULL ||
                         getenv("PMIX_NAMESPACE") != NULL)) {
        tn_run_debug(1, "a task of Slurm step %s.%s with a PMI server: the "
                     "allocation is not tern-run's", job, step);
        return 0;
    }
    opts->slurm_job = job;
    if (!opts->launcher_given) {
        opts->launcher_slurm = 1;
    }
    if (opts->launcher_slurm) {
        tn_run_debug(1, "Slurm job %s: proxies on other nodes are started by "
                     "srun", job);
    }
    if (opts->hosts.nhosts > 0 || opts->nnetns > 0) {
        return 0;
    }
    if (step != NULL) {
        cvar = "SLURM_JOB_CPUS_PER_NODE";
    }
    counts = getenv(cvar);
    if (counts == NULL) {
        tn_run_log("Slurm job %s: %s is not set", job, cvar);
        return -1;
    }
    if (tn_run_slurm_hosts(&opts->hosts, nodes, counts, err, sizeof(err)) != 0) {
        tn_run_log("Slurm job %s: SLURM_JOB_NODELIST and %s: %s", job, cvar,
                   err);
        return -1;
    }
    tn_run_debug(1, "Slurm job %s: %d node%s (%s), %ld slots (%s)", job,
                 opts->hosts.nhosts, opts->hosts.nhosts == 1 ? "" : "s",
                 nodes, tn_run_hosts_slots(&opts->hosts), counts);
    return 0;
}

/* A new, empty block. */
static tn_run_optblock_t *opts_block(tn_run_opts_t *opts)
{
    tn_run_optblock_t *blk;

    opts->blocks = tn_run_xrealloc(opts->blocks, (size_t)(opts->nblocks + 1) *
                                                 sizeof(*opts->blocks));
    blk = &opts->blocks[opts->nblocks++];
    memset(blk, 0, sizeof(*blk));
    return blk;
}

/* The number of ranks of every block, once all options are known. */
static int opts_count_ranks(tn_run_opts_t *opts)
{
    long total = 0;

    for (int b = 0; b < opts->nblocks; b++) {
        tn_run_optblock_t *blk = &opts->blocks[b];

        if (blk->nranks == 0 && opts->nblocks > 1) {
            tn_run_log("program %d (%s) has no -n: every program of an MPMD "
                       "job needs its number of ranks", b + 1, blk->argv[0]);
            return -1;
        }
        if (blk->nranks == 0 && opts->hosts.nhosts > 0) {
            /* as many as the hosts hold */
            long n = opts->ppn > 0 ? (long)opts->ppn * opts->hosts.nhosts
                                   : tn_run_hosts_slots(&opts->hosts);

            blk->nranks = n > TN_RUN_MAX_RANKS ? TN_RUN_MAX_RANKS : (int)n;
        } else if (blk->nranks == 0) {
            blk->nranks = 1;
        }
        total += blk->nranks;
    }
    if (total > TN_RUN_MAX_RANKS) {
        tn_run_log("%ld ranks in all: at most %d", total, TN_RUN_MAX_RANKS);
        return -1;
    }
    opts->nranks = (int)total;
    if (opts->ppn > 0 && opts->hosts.nhosts == 0 && opts->nnetns == 0 &&
        opts->nranks > opts->ppn) {
        tn_run_log("-ppn %d with %d ranks needs %d hosts: give them with -host "
                   "or -hostfile", opts->ppn, opts->nranks,
                   (opts->nranks + opts->ppn - 1) / opts->ppn);
        return -1;
    }
    if (opts->nnetns > 0 && opts->hosts.nhosts > 0) {
        tn_run_log("--netns and -host/-hostfile do not go together");
        return -1;
    }
    return 0;
}

int tn_run_opts_parse(int argc, char **argv, tn_run_opts_t *opts_p)
{
    tn_run_optblock_t *blk;
    int                i;

    memset(opts_p, 0, sizeof(*opts_p));
    opts_p->bind = TN_RUN_BIND_AUTO;
    opts_p->map  = TN_RUN_MAP_SLOT;
    if (opts_from_env(opts_p) != 0) {
        return 2;
    }
    blk = opts_block(opts_p);

    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *opt = arg + (arg[1] == '-' ? 2 : 1); /* without dashes */
        const char *eq;
        const char *val = NULL;                 /* from "--opt=value" */
        char        name[32];
        char        err[320];
        size_t      len;

        if (strcmp(arg, "--") == 0 || arg[0] != '-' || arg[1] == '\0') {
            /* the program of this block, and its arguments up to ":" */
            int first = i + (strcmp(arg, "--") == 0);
            int end   = first;

            while (end < argc && strcmp(argv[end], ":") != 0) {
                end++;
            }
            if (end == first) {
                tn_run_log("no program given (see tern-run --help)");
                goto err_usage;
            }
            blk->argv = tn_run_xmalloc((size_t)(end - first + 1) * sizeof(char *));
            memcpy(blk->argv, argv + first, (size_t)(end - first) * sizeof(char *));
            blk->argv[end - first] = NULL;
            if (end == argc) {
                i = end;
                break;
            }
            blk = opts_block(opts_p);
            i   = end;
            continue;
        }
        eq  = strchr(opt, '=');
        len = eq != NULL ? (size_t)(eq - opt) : strlen(opt);
        if (len >= sizeof(name)) {
            goto err_unknown;
        }
        memcpy(name, opt, len);
        name[len] = '\0';
        if (eq != NULL) {
            val = eq + 1;
        }

/* The value of an option that takes one: "--opt=v" or the next word. */
#define NEXT_VALUE()                                                    \
        do {                                                            \
            if (val == NULL) {                                          \
                if (i + 1 >= argc) {                                    \
                    tn_run_log("option %s needs a value", arg);         \
                    goto err_usage;                                     \
                }                                                       \
                val = argv[++i];                                        \
            }                                                           \
        } while (0)

        if (strcmp(name, "h") == 0 || strcmp(name, "help") == 0) {
            usage(stdout);
            tn_run_opts_free(opts_p);
            return 0;
        } else if (strcmp(name, "version") == 0) {
            printf("tern-run (Tern) %s\n", TERN_VERSION);
            tn_run_opts_free(opts_p);
            return 0;
        } else if (strcmp(name, "n") == 0 || strcmp(name, "np") == 0) {
            NEXT_VALUE();
            if (parse_int(val, 1, TN_RUN_MAX_RANKS, &blk->nranks) != 0) {
                tn_run_log("bad number of ranks '%s' (1 to %d)", val,
                           TN_RUN_MAX_RANKS);
                goto err_usage;
            }
        } else if (strcmp(name, "x") == 0) {
            NEXT_VALUE();
            if (add_env_x(&blk->env, &blk->nenv, val) != 0) {
                tn_run_log("option -x needs VAR or VAR=VALUE");
                goto err_usage;
            }
        } else if (strcmp(name, "genv") == 0 || strcmp(name, "env") == 0) {
            if (val != NULL || i + 2 >= argc || argv[i + 1][0] == '\0' ||
                strchr(argv[i + 1], '=') != NULL) {
                tn_run_log("option %s needs VAR VALUE", arg);
                goto err_usage;
            }
            if (name[0] == 'g') {
                add_env(&opts_p->env, &opts_p->nenv, argv[i + 1], argv[i + 2],
                        NULL);
            } else {
                add_env(&blk->env, &blk->nenv, argv[i + 1], argv[i + 2], NULL);
            }
            i += 2;
        } else if (strcmp(name, "timeout") == 0) {
            NEXT_VALUE();
            if (parse_int(val, 0, INT_MAX, &opts_p->timeout_s) != 0) {
                tn_run_log("bad timeout '%s' (want seconds >= 0)", val);
                goto err_usage;
            }
        } else if (strcmp(name, "netns") == 0) {
            NEXT_VALUE();
            free(opts_p->netns);
            opts_p->netns = strdup(val);
            opts_p->nnetns = 0;
            if (opts_p->netns == NULL || val[0] == '\0') {
                tn_run_log("option --netns needs a list of namespaces");
                goto err_usage;
            }
            for (const char *c = val; *c; c++) {
                opts_p->nnetns += (*c == ',');
            }
            opts_p->nnetns++;
        } else if (strcmp(name, "ppn") == 0 || strcmp(name, "npernode") == 0 ||
                   strcmp(name, "N") == 0) {
            NEXT_VALUE();
            if (parse_int(val, 1, TN_RUN_MAX_RANKS, &opts_p->ppn) != 0) {
                tn_run_log("bad %s '%s'", arg, val);
                goto err_usage;
            }
        } else if (strcmp(name, "host") == 0 || strcmp(name, "H") == 0 ||
                   strcmp(name, "hosts") == 0) {
            NEXT_VALUE();
            if (tn_run_hosts_add_arg(&opts_p->hosts, val, err, sizeof(err)) != 0) {
                tn_run_log("%s: %s", arg, err);
                goto err_usage;
            }
        } else if (strcmp(name, "hostfile") == 0 || strcmp(name, "f") == 0 ||
                   strcmp(name, "machinefile") == 0) {
            NEXT_VALUE();
            if (opts_hostfile(opts_p, val) != 0) {
                goto err_usage;
            }
        } else if (strcmp(name, "map-by") == 0) {
            NEXT_VALUE();
            if (strcmp(val, "slot") == 0) {
                opts_p->map = TN_RUN_MAP_SLOT;
            } else if (strcmp(val, "node") == 0) {
                opts_p->map = TN_RUN_MAP_NODE;
            } else if (strcmp(val, "core") == 0) {
                opts_p->map = TN_RUN_MAP_CORE;
            } else {
                tn_run_log("bad --map-by '%s' (slot, node or core)", val);
                goto err_usage;
            }
        } else if (strcmp(name, "launcher-exec") == 0 ||
                   strcmp(name, "rsh") == 0) {
            NEXT_VALUE();
            if (val[strspn(val, " \t")] == '\0') {
                tn_run_log("option %s needs a command", arg);
                goto err_usage;
            }
            opts_p->rsh = val;
            opts_p->rsh_given      = 1;
            opts_p->launcher_given = 1;
        } else if (strcmp(name, "launcher") == 0) {
            NEXT_VALUE();
            opts_p->launcher_given = 1;
            opts_p->launcher_fork  = 0;
            opts_p->launcher_slurm = 0;
            if (strcmp(val, "fork") == 0) {
                opts_p->launcher_fork = 1;
            } else if (strcmp(val, "slurm") == 0) {
                opts_p->launcher_slurm = 1;
            } else if (strcmp(val, "ssh") == 0 || strcmp(val, "rsh") == 0) {
                /* that program, unless a command line for it was given */
                const char *env_rsh = getenv("TERN_RUN_RSH");

                if (!opts_p->rsh_given && (env_rsh == NULL || *env_rsh == '\0')) {
                    opts_p->rsh = val;
                }
            } else {
                tn_run_log("bad --launcher '%s' (ssh, rsh, slurm or fork; other "
                           "remote shells with --launcher-exec)", val);
                goto err_usage;
            }
        } else if (strcmp(name, "bind-to") == 0) {
            NEXT_VALUE();
            opts_p->bind_given = 1;
            if (strcmp(val, "core") == 0) {
                opts_p->bind = TN_RUN_BIND_CORE;
            } else if (strcmp(val, "hwthread") == 0) {
                opts_p->bind = TN_RUN_BIND_HWTHREAD;
            } else if (strcmp(val, "none") == 0) {
                opts_p->bind = TN_RUN_BIND_NONE;
            } else {
                tn_run_log("bad --bind-to '%s' (core, hwthread or none)", val);
                goto err_usage;
            }
        } else if (strcmp(name, "output-filename") == 0) {
            NEXT_VALUE();
            opts_p->output_dir = val;           /* checked by run_ofile.c */
        } else if (strcmp(name, "monitor") == 0) {
            opts_p->monitor = 1;                /* "=HOST[:PORT]" optional */
            opts_p->monitor_server = val;
        } else if (val != NULL) {
            goto err_unknown;                   /* flags take no "=value" */
        } else if (strcmp(name, "tag-output") == 0) {
            opts_p->tag_output = 1;
        } else if (strcmp(name, "timestamp-output") == 0) {
            opts_p->timestamp_output = 1;
        } else if (strcmp(name, "report-bindings") == 0) {
            opts_p->report_bindings = 1;
        } else if (strcmp(name, "v") == 0 || strcmp(name, "verbose") == 0) {
            tn_run_verbose++;
        } else if (strcmp(name, "q") == 0 || strcmp(name, "quiet") == 0) {
            opts_p->quiet = 1;
        } else if (strcmp(name, "vv") == 0) {
            tn_run_verbose += 2;
        } else if (strcmp(name, "oversubscribe") == 0) {
            opts_p->oversubscribe = 1;
        } else if (strcmp(name, "allow-run-as-root") == 0) {
            /* an Open MPI habit: nothing to do */
        } else {
            goto err_unknown;
        }
#undef NEXT_VALUE
    }

    if (blk->argv == NULL) {
        tn_run_log("no program given (see tern-run --help)");
        goto err_usage;
    }
    if (opts_slurm(opts_p) != 0) {
        goto err_usage;
    }
    if (opts_count_ranks(opts_p) != 0) {
        goto err_usage;
    }
    if (!opts_p->bind_given && opts_p->map == TN_RUN_MAP_CORE) {
        opts_p->bind = TN_RUN_BIND_CORE;
    }
    return TN_RUN_OPTS_RUN;

err_unknown:
    tn_run_log("unknown option '%s' (see tern-run --help)", argv[i]);
err_usage:
    tn_run_opts_free(opts_p);
    return 2;
}

const char *tn_run_opts_netns_of(const tn_run_opts_t *opts, int rank)
{
    static char name[256];
    if (opts == NULL || opts->nnetns == 0) {
        return NULL;
    }
    int ppn = opts->ppn > 0 ? opts->ppn
                            : (opts->nranks + opts->nnetns - 1) / opts->nnetns;
    int node = (rank / ppn) % opts->nnetns;
    const char *p = opts->netns;
    for (int i = 0; i < node; i++) {
        p = strchr(p, ',') + 1;
    }
    size_t len = strcspn(p, ",");
    if (len >= sizeof(name)) {
        len = sizeof(name) - 1;
    }
    memcpy(name, p, len);
    name[len] = '\0';
    return name;
}

static void opts_free_env(tn_run_envvar_t *env, int nenv)
{
    for (int i = 0; i < nenv; i++) {
        free(env[i].owned);
    }
    free(env);
}

void tn_run_opts_free(tn_run_opts_t *opts)
{
    free(opts->netns);
    opts->netns = NULL;
    opts->nnetns = 0;
    opts_free_env(opts->env, opts->nenv);
    opts->env  = NULL;
    opts->nenv = 0;
    for (int b = 0; b < opts->nblocks; b++) {
        opts_free_env(opts->blocks[b].env, opts->blocks[b].nenv);
        free(opts->blocks[b].argv);
    }
    free(opts->blocks);
    opts->blocks  = NULL;
    opts->nblocks = 0;
    tn_run_hosts_free(&opts->hosts);
}
