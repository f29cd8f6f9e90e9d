/* Command-line parsing of tern-run; see run_opts.h. */
#include "pmi_srv.h"
#include "run_opts.h"
#include "run_util.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TERN_VERSION
#define TERN_VERSION "unknown"
#endif

/* More ranks than this would run out of file descriptors long before. */
#define TN_RUN_MAX_RANKS 4096

static void usage(FILE *f)
{
    fputs("Usage: tern-run [options] program [args...]\n"
          "Start an MPI job of one or more ranks on this node.\n"
          "\n"
          "  -n N, -np N          number of ranks (default 1)\n"
          "  -x VAR               give the ranks VAR from this environment\n"
          "  -x VAR=VAL           give the ranks VAR set to VAL\n"
          "  -genv VAR VAL        same as -x VAR=VAL (also -env)\n"
          "  --timeout SEC        end the job after SEC seconds, exit 124\n"
          "                       (default from TERN_RUN_TIMEOUT; 0 = none)\n"
          "  --bind-to core|none  bind rank i to the i-th allowed CPU, or not;\n"
          "                       default: bind when 1 < ranks <= CPUs\n"
          "  --tag-output         prefix each output line with [rank]\n"
          "  --netns NS1,NS2,...  run ranks in these network namespaces (nodes of a\n"
          "                       test cluster on one machine; /var/run/netns/NAME),\n"
          "                       in blocks of --ppn ranks (default: spread evenly)\n"
          "  --ppn N              ranks per namespace with --netns\n"
          "  -v                   verbose (twice: trace PMI traffic)\n"
          "  -q, --quiet          no warnings (ranks that never contacted the\n"
          "                       PMI server: programs of another MPI)\n"
          "  -h, --help           this help\n"
          "  --status [PID]       alone: print where the ranks of your running\n"
          "                       tern-run job PID (default: every job of yours)\n"
          "                       are: each rank's MPI call, its arguments, for\n"
          "                       how long, its pending requests\n"
          "  --version            print the version\n"
          "  --                   end of options\n"
          "Accepted and ignored: --oversubscribe, --allow-run-as-root.\n"
          "Limits on what ranks may make tern-run hold (the job ends when a\n"
          "rank goes beyond): TERN_RUN_KVS_KEYS, TERN_RUN_KVS_BYTES (PMI\n"
          "key-value space), TERN_RUN_PMI_BACKLOG (unread PMI replies per rank).\n"
          "The ranks get the whole environment of tern-run, plus -x/-genv.\n"
          "Exit status: 0 when all ranks exit 0; else that of the first rank\n"
          "to fail (128+N for signal N), the MPI_Abort code, 124 on timeout,\n"
          "128+N when tern-run got signal N.\n"
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

static void add_env(tn_run_opts_t *opts, const char *name, const char *value,
                    char *owned)
{
    opts->env = tn_run_xrealloc(opts->env,
                                (size_t)(opts->nenv + 1) * sizeof(*opts->env));
    opts->env[opts->nenv].name  = name;
    opts->env[opts->nenv].value = value;
    opts->env[opts->nenv].owned = owned;
    opts->nenv++;
}

/* -x VAR or -x VAR=VAL. */
static int add_env_x(tn_run_opts_t *opts, const char *arg)
{
    const char *eq = strchr(arg, '=');
    char       *copy;

    if (eq == arg || *arg == '\0') {
        return -1;
    }
    if (eq == NULL) {
        add_env(opts, arg, NULL, NULL);
        return 0;
    }
    copy = tn_run_xstrdup(arg);
    copy[eq - arg] = '\0';
    add_env(opts, copy, copy + (eq - arg) + 1, copy);
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

int tn_run_opts_parse(int argc, char **argv, tn_run_opts_t *opts_p)
{
    const char *env_timeout = getenv("TERN_RUN_TIMEOUT");  /* config table */
    int         i;

    memset(opts_p, 0, sizeof(*opts_p));
    opts_p->nranks = 1;
    opts_p->bind   = TN_RUN_BIND_AUTO;
    if (env_timeout != NULL && *env_timeout != '\0' &&
        parse_int(env_timeout, 0, INT_MAX, &opts_p->timeout_s) != 0) {
        tn_run_log("bad TERN_RUN_TIMEOUT='%s' (want seconds >= 0)",
                   env_timeout);
        return 2;
    }
    if (opts_limits(opts_p) != 0) {
        return 2;
    }

    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *opt = arg + (arg[1] == '-' ? 2 : 1); /* without dashes */
        const char *eq;
        const char *val = NULL;                 /* from "--opt=value" */
        char        name[32];
        size_t      len;

        if (strcmp(arg, "--") == 0) {
            i++;
            break;
        }
        if (arg[0] != '-' || arg[1] == '\0') {
            break;
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
            if (parse_int(val, 1, TN_RUN_MAX_RANKS, &opts_p->nranks) != 0) {
                tn_run_log("bad number of ranks '%s' (1 to %d)", val,
                           TN_RUN_MAX_RANKS);
                goto err_usage;
            }
        } else if (strcmp(name, "x") == 0) {
            NEXT_VALUE();
            if (add_env_x(opts_p, val) != 0) {
                tn_run_log("option -x needs VAR or VAR=VALUE");
                goto err_usage;
            }
        } else if (strcmp(name, "genv") == 0 || strcmp(name, "env") == 0) {
            if (val != NULL || i + 2 >= argc || argv[i + 1][0] == '\0' ||
                strchr(argv[i + 1], '=') != NULL) {
                tn_run_log("option %s needs VAR VALUE", arg);
                goto err_usage;
            }
            add_env(opts_p, argv[i + 1], argv[i + 2], NULL);
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
        } else if (strcmp(name, "ppn") == 0) {
            NEXT_VALUE();
            if (parse_int(val, 1, TN_RUN_MAX_RANKS, &opts_p->ppn) != 0) {
                tn_run_log("bad --ppn '%s'", val);
                goto err_usage;
            }
        } else if (strcmp(name, "bind-to") == 0) {
            NEXT_VALUE();
            if (strcmp(val, "core") == 0 || strcmp(val, "hwthread") == 0) {
                opts_p->bind = TN_RUN_BIND_CORE;
            } else if (strcmp(val, "none") == 0) {
                opts_p->bind = TN_RUN_BIND_NONE;
            } else {
                tn_run_log("bad --bind-to '%s' (core or none)", val);
                goto err_usage;
            }
        } else if (val != NULL) {
            goto err_unknown;                   /* flags take no "=value" */
        } else if (strcmp(name, "tag-output") == 0) {
            opts_p->tag_output = 1;
        } else if (strcmp(name, "v") == 0 || strcmp(name, "verbose") == 0) {
            tn_run_verbose++;
        } else if (strcmp(name, "q") == 0 || strcmp(name, "quiet") == 0) {
            opts_p->quiet = 1;
        } else if (strcmp(name, "vv") == 0) {
            tn_run_verbose += 2;
        } else if (strcmp(name, "oversubscribe") == 0 ||
                   strcmp(name, "allow-run-as-root") == 0) {
            /* Open MPI habits: nothing to do */
        } else {
            goto err_unknown;
        }
#undef NEXT_VALUE
    }

    if (i >= argc) {
        tn_run_log("no program given (see tern-run --help)");
        goto err_usage;
    }
    opts_p->argv = argv + i;
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
    if (opts->nnetns == 0) {
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

void tn_run_opts_free(tn_run_opts_t *opts)
{
    free(opts->netns);
    opts->netns = NULL;
    opts->nnetns = 0;
    for (int i = 0; i < opts->nenv; i++) {
        free(opts->env[i].owned);
    }
    free(opts->env);
    opts->env  = NULL;
    opts->nenv = 0;
}
