/* The environment of the ranks: tern-run's own, minus variables of an outer
 * process manager that would mislead the ranks' PMI client, plus -x/-genv,
 * plus the per-rank PMI variables:
 *   PMI_FD=<fd> PMI_RANK=<r> PMI_SIZE=<n> PMI_JOBID=<kvsname>
 *   MPI_LOCALRANKID=<r> MPI_LOCALNRANKS=<n>   (Hydra's names; one node)
 *   TERN_SHM_FD=<fd>    the node's shared segment (run_shm.c), when there is one
 *   TERN_STATUS_FD=<fd> TERN_STATUS_SLOT=<r>  the status segment and the rank's
 *                       slot in it (run_status.c), when there is one */
#include "run.h"
#include "run_status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

/* The base environment, shared by every rank; strings are owned here. */
static char  **env_base;
static size_t  env_nbase;

/* Variables set per rank; inherited ones are dropped from the base. */
static const char *const env_rank_names[] = {
    "PMI_FD", "PMI_RANK", "PMI_SIZE", "PMI_JOBID",
    "MPI_LOCALRANKID", "MPI_LOCALNRANKS", "TERN_SHM_FD",
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
           strncmp(entry, "TERN_STATUS_FD=", 15) == 0 ||
           strncmp(entry, "TERN_STATUS_SLOT=", 17) == 0;
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

void tn_run_env_init(const tn_run_job_t *job)
{
    const tn_run_opts_t *opts = job->opts;
    size_t               n    = 0;
    size_t               cap;
    char               **e;

    for (e = environ; *e != NULL; e++) {
        n++;
    }
    cap       = n + (size_t)opts->nenv + 1;
    env_base  = tn_run_xmalloc(cap * sizeof(*env_base));
    env_nbase = 0;
    for (e = environ; *e != NULL; e++) {
        if (!env_is_foreign_pm(*e)) {
            env_base[env_nbase++] = tn_run_xstrdup(*e);
        }
    }
    for (int i = 0; i < opts->nenv; i++) {
        const tn_run_envvar_t *var   = &opts->env[i];
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
        for (j = 0; j < env_nbase; j++) {
            if (env_name_is(env_base[j], var->name)) {
                break;
            }
        }
        if (j < env_nbase) {
            free(env_base[j]);                  /* replaced */
        } else {
            env_nbase++;
        }
        env_base[j] = entry.data;
    }
    env_base[env_nbase] = NULL;
}

char **tn_run_env_rank(const tn_run_job_t *job, int rank, int pmi_fd)
{
    /* one allocation: the pointer array, then the per-rank strings */
    size_t  slots = env_nbase + ENV_NRANK + 1;
    size_t  room  = 64 + sizeof(job->kvsname);
    char  **vec   = tn_run_xmalloc(slots * sizeof(char *) + ENV_NRANK * room);
    char   *str   = (char *)(vec + slots);
    size_t  n     = env_nbase;
    long    vals[ENV_NRANK] = { pmi_fd, rank, job->nranks, 0, rank, job->nranks,
                                job->ranks[rank].shm_fd,
                                tn_run_status_fd(job), rank };

    memcpy(vec, env_base, env_nbase * sizeof(char *));
    for (size_t i = 0; i < ENV_NRANK; i++) {
        if (strcmp(env_rank_names[i], "TERN_SHM_FD") == 0 && vals[i] < 0) {
            continue;
        }
        if (strncmp(env_rank_names[i], "TERN_STATUS_", 12) == 0 && tn_run_status_fd(job) < 0) {
            continue;
        }
        if (strcmp(env_rank_names[i], "PMI_JOBID") == 0) {
            snprintf(str, room, "%s=%s", env_rank_names[i], job->kvsname);
        } else {
            snprintf(str, room, "%s=%ld", env_rank_names[i], vals[i]);
        }
        env_set(vec, &n, str, env_rank_names[i]);
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
    for (size_t i = 0; i < env_nbase; i++) {
        free(env_base[i]);
    }
    free(env_base);
    env_base  = NULL;
    env_nbase = 0;
}
