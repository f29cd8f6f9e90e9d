/* The environment of the ranks: tern-run's own, minus variables of an outer
 * process manager that would mislead the ranks' PMI client, plus -genv, plus
 * the block's -x/-env (the head builds that per block and sends it to every
 * host), plus the per-rank variables:
 *   PMI_FD=<fd> PMI_RANK=<r> PMI_SIZE=<n> PMI_JOBID=<kvsname>
 *   MPI_LOCALRANKID=<i> MPI_LOCALNRANKS=<n>  (Hydra's names; this agent's ranks)
 *   TERN_SHM_FD=<fd>    the node's shared segment (run_shm.c), when there is one
 *   TERN_HOST_ID=<h>    the host's index, in a multi-host job
 *   TERN_STATUS_FD=<fd> TERN_STATUS_SLOT=<i>  the status segment and the rank's
 *                       slot in it (run_status.c), when there is one
 * On another host, the variables that describe a login session there
 * (SSH_*, DISPLAY, XAUTHORITY, HOSTNAME) are that host's, not the head's. */
#include "run.h"
#include "run_status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

/* The base environment of each block, shared by its ranks. */
static char  ***env_base;
static size_t  *env_nbase;
static int      env_nblocks;

/* Variables set per rank; inherited ones are dropped from the base. */
static const char *const env_rank_names[] = {
    "PMI_FD", "PMI_RANK", "PMI_SIZE", "PMI_JOBID",
    "MPI_LOCALRANKID", "MPI_LOCALNRANKS", "TERN_SHM_FD", "TERN_HOST_ID",
    "TERN_STATUS_FD", "TERN_STATUS_SLOT",
};
#define ENV_NRANK (sizeof(env_rank_names) / sizeof(env_rank_names[0]))

/* Inherited from an outer launcher (srun, Hydra, Open MPI's PMIx), these
 * would make the ranks' client talk to the wrong server. */
static int env_is_foreign_pm(const char *entry)
{
    return strncmp(entry, "PMI_", 4) == 0 || strncmp(entry, "PMIX_", 5) == 0 ||
           strncmp(entry, "PMI2_", 5) == 0 ||
           strncmp(entry, "MPI_LOCALRANKID=", 16) == 0 ||
           strncmp(entry, "MPI_LOCALNRANKS=", 16) == 0 ||
           strncmp(entry, "TERN_SHM_FD=", 12) == 0 ||
           strncmp(entry, "TERN_HOST_ID=", 13) == 0 ||
           strncmp(entry, "TERN_STATUS_FD=", 15) == 0 ||
           strncmp(entry, "TERN_STATUS_SLOT=", 17) == 0;
}

/* Variables of a login session: each host keeps its own. */
static int env_is_session(const char *entry)
{
    return strncmp(entry, "SSH_", 4) == 0 || strncmp(entry, "DISPLAY=", 8) == 0 ||
           strncmp(entry, "XAUTHORITY=", 11) == 0 ||
           strncmp(entry, "HOSTNAME=", 9) == 0;
}

static int env_name_is(const char *entry, const char *name)
{
    size_t len = strlen(name);

    return strncmp(entry, name, len) == 0 && entry[len] == '=';
}

/* Set name=value in vec[0..*n_p), replacing an earlier entry; vec has room
 * for one more. */
static void env_set(char **vec, size_t *n_p, char *entry, const char *name)
{
    for (size_t i = 0; i < *n_p; i++) {
        if (env_name_is(vec[i], name)) {
            vec[i] = entry;
            return;
        }
    }
    vec[(*n_p)++] = entry;
}

/* Add -x/-env/-genv variables to vec (owned strings, replacing). */
static void env_add_vars(char ***vec_p, size_t *n_p, size_t *cap_p,
                         const tn_run_envvar_t *vars, int nvars)
{
    for (int i = 0; i < nvars; i++) {
        const tn_run_envvar_t *var   = &vars[i];
        const char            *value = var->value;
        tn_run_buf_t           entry = { 0 };
        size_t                 j;

        if (value == NULL) {
            value = getenv(var->name);
            if (value == NULL) {
                tn_run_log("warning: -x %s: not set in the environment",
                           var->name);
                continue;
            }
        }
        tn_run_buf_printf(&entry, "%s=%s", var->name, value);
        tn_run_buf_append(&entry, "", 1);
        for (j = 0; j < *n_p; j++) {
            if (env_name_is((*vec_p)[j], var->name)) {
                break;
            }
        }
        if (j < *n_p) {
            free((*vec_p)[j]);                  /* replaced */
        } else {
            if (*n_p + 2 > *cap_p) {
                *cap_p = *cap_p * 2 + 8;
                *vec_p = tn_run_xrealloc(*vec_p, *cap_p * sizeof(char *));
            }
            (*n_p)++;
        }
        (*vec_p)[j] = entry.data;
    }
}

char **tn_run_env_block(const tn_run_opts_t *opts, int b, int *n_p)
{
    size_t  n = 0, cap = 8;
    char  **vec;
    char  **e;

    for (e = environ; *e != NULL; e++) {
        cap++;
    }
    vec = tn_run_xmalloc(cap * sizeof(char *));
    for (e = environ; *e != NULL; e++) {
        if (!env_is_foreign_pm(*e)) {
            vec[n++] = tn_run_xstrdup(*e);
        }
    }
    env_add_vars(&vec, &n, &cap, opts->env, opts->nenv);
    env_add_vars(&vec, &n, &cap, opts->blocks[b].env, opts->blocks[b].nenv);
    vec[n] = NULL;
    *n_p = (int)n;
    return vec;
}

void tn_run_env_free_block(char **vec, int n)
{
    for (int i = 0; i < n; i++) {
        free(vec[i]);
    }
    free(vec);
}

void tn_run_env_init(const tn_run_job_t *job)
{
    const tn_run_setup_t *s = job->setup;

    env_nblocks = s->nblocks;
    env_base    = tn_run_xmalloc((size_t)s->nblocks * sizeof(*env_base));
    env_nbase   = tn_run_xmalloc((size_t)s->nblocks * sizeof(*env_nbase));
    for (int b = 0; b < s->nblocks; b++) {
        const tn_run_block_t *blk = &s->blocks[b];
        size_t                n   = 0;
        char                **vec;
        char                **e;
        size_t                cap = (size_t)blk->nenv + 1;

        if (job->is_proxy) {
            for (e = environ; *e != NULL; e++) {
                cap++;
            }
        }
        vec = tn_run_xmalloc(cap * sizeof(char *));
        for (int i = 0; i < blk->nenv; i++) {
            if (!env_is_foreign_pm(blk->env[i]) &&
                !(job->is_proxy && env_is_session(blk->env[i]))) {
                vec[n++] = blk->env[i];
            }
        }
        if (job->is_proxy) {
            for (e = environ; *e != NULL; e++) {
                if (env_is_session(*e)) {
                    vec[n++] = *e;
                }
            }
        }
        vec[n]       = NULL;
        env_base[b]  = vec;
        env_nbase[b] = n;
    }
}

char **tn_run_env_rank(const tn_run_job_t *job, int i, int pmi_fd)
{
    const tn_run_rank_t *rk    = &job->ranks[i];
    size_t               nbase = env_nbase[rk->block];
    /* one allocation: the pointer array, then the per-rank strings */
    size_t  slots = nbase + ENV_NRANK + 1;
    size_t  room  = 64 + sizeof(job->kvsname);
    char  **vec   = tn_run_xmalloc(slots * sizeof(char *) + ENV_NRANK * room);
    char   *str   = (char *)(vec + slots);
    size_t  n     = nbase;
    long    vals[ENV_NRANK] = { pmi_fd, rk->rank, job->nranks, 0, i, job->nlocal,
                                rk->shm_fd, job->multi && !(job->setup->flags &
                                TN_RUN_SETUP_FORK) ? job->host : -1,
                                tn_run_status_fd(job), i };

    memcpy(vec, env_base[rk->block], nbase * sizeof(char *));
    for (size_t k = 0; k < ENV_NRANK; k++) {
        if ((strcmp(env_rank_names[k], "TERN_SHM_FD") == 0 ||
             strcmp(env_rank_names[k], "TERN_HOST_ID") == 0) && vals[k] < 0) {
            continue;
        }
        if (strncmp(env_rank_names[k], "TERN_STATUS_", 12) == 0 &&
            tn_run_status_fd(job) < 0) {
            continue;
        }
        if (strcmp(env_rank_names[k], "PMI_JOBID") == 0) {
            snprintf(str, room, "%s=%s", env_rank_names[k], job->kvsname);
        } else {
            snprintf(str, room, "%s=%ld", env_rank_names[k], vals[k]);
        }
        env_set(vec, &n, str, env_rank_names[k]);
        str += room;
    }
    vec[n] = NULL;
    return vec;
}

void tn_run_env_free_rank(char **envp)
{
    free(envp);
}

void tn_run_env_fini(void)
{
    for (int b = 0; b < env_nblocks; b++) {
        free(env_base[b]);
    }
    free(env_base);
    free(env_nbase);
    env_base    = NULL;
    env_nbase   = NULL;
    env_nblocks = 0;
}

const char *tn_run_env_get(const char *name)
{
    for (size_t i = 0; env_nblocks > 0 && i < env_nbase[0]; i++) {
        if (env_name_is(env_base[0][i], name)) {
            return env_base[0][i] + strlen(name) + 1;
        }
    }
    return NULL;
}
