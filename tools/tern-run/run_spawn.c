/* Spawned jobs (MPI_Comm_spawn over PMI-1, docs/dynamic.md).
 *
 * The PMI server collects a spawn request (pmi_srv.c); tern-run carries
 * it out by starting another tern-run, a nested launcher, for the new
 * job: "-n N prog args : -n M prog2 ..." with the request's info keys
 * applied (wdir: its working directory; path: put first in its PATH;
 * host: its -host list; soft is accepted and ignored: all maxprocs
 * start; under --netns it runs in the asking rank's namespace).  The
 * nested launcher is a launcher in full: its own kvsname,
 * key/value space and universe, stdio forwarded to ours, its ranks'
 * deaths reported by it.  The preput pairs (the parent's port and the
 * job's secret) reach it through a pipe named by TN_RUN_PREPUT_FD, never
 * its command line or environment, and it puts them in its key/value space
 * before its ranks start.
 *
 * A nested launcher that ends with a non-zero status (one of its ranks
 * died or failed) ends this job too, with a message naming the spawn;
 * this launcher waits for its nested launchers before it exits. */
#include "run.h"
#include "pmi_srv.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
    pid_t pid;              /* -1: reaped */
    int   rank;             /* the parent rank that asked */
    int   id;
} run_spawned_t;

static run_spawned_t *run_spawned;
static int run_nspawned;

static const char *app_info(const tn_pmi_spawn_app_t *app, const char *key)
{
    for (int i = 0; i < app->ninfo; i++) {
        if (strcmp(app->info_key[i], key) == 0) {
            return app->info_val[i];
        }
    }
    return NULL;
}

/* The nested launcher's command line (malloc'd, NULL-terminated). */
static char **spawn_argv(const tn_pmi_spawn_t *sp, const char *netns)
{
    size_t n = 4;
    for (int a = 0; a < sp->napps; a++) {
        n += 6 + (size_t)sp->apps[a].argc;
    }
    char **argv = calloc(n, sizeof(char *));
    char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (argv == NULL || sl <= 0) {
        free(argv);
        return NULL;
    }
    self[sl] = '\0';
    size_t k = 0;
    argv[k++] = strdup(self);
    if (netns != NULL) {
        /* --netns: the new job runs in the network namespace of the rank
         * that asked, where its parent's addresses are */
        argv[k++] = strdup("--netns");
        argv[k++] = strdup(netns);
    }
    const char *host = app_info(&sp->apps[0], "host");
    if (host != NULL) {
        argv[k++] = strdup("-host");
        argv[k++] = strdup(host);
    }
    for (int a = 0; a < sp->napps; a++) {
        char num[16];
        if (a > 0) {
            argv[k++] = strdup(":");
        }
        snprintf(num, sizeof(num), "%d", sp->apps[a].nprocs);
        argv[k++] = strdup("-n");
        argv[k++] = strdup(num);
        argv[k++] = strdup(sp->apps[a].exec);
        for (int i = 0; i < sp->apps[a].argc; i++) {
            argv[k++] = strdup(sp->apps[a].argv[i]);
        }
    }
    argv[k] = NULL;
    return argv;
}

static void argv_free(char **argv)
{
    for (size_t i = 0; argv != NULL && argv[i] != NULL; i++) {
        free(argv[i]);
    }
    free(argv);
}

/* Start the nested launcher; 0 when it runs. */
static int spawn_start(tn_run_job_t *job, const tn_pmi_spawn_t *sp)
{
    static int next_id;
    int pfd[2];
    int local = sp->rank >= 0 && sp->rank < job->nlocal ? job->ranks[sp->rank].rank : 0;
    char **argv = spawn_argv(sp, tn_run_opts_netns_of(job->opts, local));
    const char *wdir = app_info(&sp->apps[0], "wdir");
    const char *path = app_info(&sp->apps[0], "path");
    run_spawned_t *ns = realloc(run_spawned, sizeof(*ns) * (size_t)(run_nspawned + 1));

    if (argv == NULL || ns == NULL || pipe2(pfd, O_CLOEXEC) != 0) {
        argv_free(argv);
        if (ns != NULL) {
            run_spawned = ns;
        }
        tn_run_log("cannot start a spawned job: %m");
        return -1;
    }
    run_spawned = ns;
    pid_t pid = fork();
    if (pid < 0) {
        tn_run_log("cannot start a spawned job: fork: %m");
        close(pfd[0]);
        close(pfd[1]);
        argv_free(argv);
        return -1;
    }
    if (pid == 0) {
        char fdv[16];
        sigprocmask(SIG_SETMASK, &job->orig_mask, NULL);
        setpgid(0, 0);          /* our signals reach it through tn_run_spawn_signal */
        if (wdir != NULL && chdir(wdir) != 0) {
            fprintf(stderr, "tern-run: spawn: cannot enter %s: %m\n", wdir);
            _exit(127);
        }
        if (path != NULL) {
            const char *old = getenv("PATH");
            size_t len = strlen(path) + (old ? strlen(old) : 0) + 2;
            char *np = malloc(len);
            if (np != NULL) {
                snprintf(np, len, "%s%s%s", path, old ? ":" : "", old ? old : "");
                setenv("PATH", np, 1);
            }
        }
        int rfd = dup(pfd[0]);           /* without O_CLOEXEC */
        snprintf(fdv, sizeof(fdv), "%d", rfd);
        setenv("TN_RUN_PREPUT_FD", fdv, 1);
        execv(argv[0], argv);
        fprintf(stderr, "tern-run: spawn: cannot run %s: %m\n", argv[0]);
        _exit(127);
    }
    close(pfd[0]);
    for (int i = 0; i < sp->npre; i++) {
        dprintf(pfd[1], "%s=%s\n", sp->pre_key[i], sp->pre_val[i]);
    }
    close(pfd[1]);
    argv_free(argv);
    run_spawned[run_nspawned].pid = pid;
    run_spawned[run_nspawned].rank = sp->rank;
    run_spawned[run_nspawned].id = next_id++;
    run_nspawned++;
    tn_run_debug(1, "rank %d spawned job %d (pid %d)", sp->rank, next_id - 1, (int)pid);
    return 0;
}

void tn_run_spawn_serve(tn_run_job_t *job)
{
    if (!job->pmi.spawn.ready) {
        return;
    }
    int rc = job->ending ? -1 : spawn_start(job, &job->pmi.spawn);
    tn_pmi_srv_spawn_done(&job->pmi, rc);
}

static void spawn_judge(tn_run_job_t *job, run_spawned_t *sj, int wstatus)
{
    sj->pid = -1;
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) {
        return;
    }
    if (!job->ending) {
        tn_run_log("spawned job %d (started by rank %d) failed (%s %d): ending the job", sj->id,
                   sj->rank, WIFEXITED(wstatus) ? "exit status" : "signal",
                   WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : WTERMSIG(wstatus));
        tn_run_end(job, WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus),
                   SIGTERM, TN_RUN_GRACE_FAIL_MS);
    }
}

void tn_run_spawn_reap(tn_run_job_t *job)
{
    for (int i = 0; i < run_nspawned; i++) {
        int st;
        if (run_spawned[i].pid > 0 && waitpid(run_spawned[i].pid, &st, WNOHANG) ==
            run_spawned[i].pid) {
            spawn_judge(job, &run_spawned[i], st);
        }
    }
}

void tn_run_spawn_signal(int sig)
{
    for (int i = 0; i < run_nspawned; i++) {
        if (run_spawned[i].pid > 0) {
            kill(run_spawned[i].pid, sig);
        }
    }
}

int tn_run_spawn_wait(tn_run_job_t *job, int status)
{
    for (int i = 0; i < run_nspawned; i++) {
        int st;
        if (run_spawned[i].pid <= 0) {
            continue;
        }
        if (status != 0) {
            kill(run_spawned[i].pid, SIGTERM);   /* the job failed: end them too */
        }
        while (waitpid(run_spawned[i].pid, &st, 0) < 0 && errno == EINTR) {
        }
        int was_ending = job->ending;
        spawn_judge(job, &run_spawned[i], st);
        if (!was_ending && job->ending && status == 0) {
            status = job->exit_status;
        }
    }
    free(run_spawned);
    run_spawned = NULL;
    run_nspawned = 0;
    return status;
}

void tn_run_spawn_preput(tn_run_job_t *job)
{
    const char *v = getenv("TN_RUN_PREPUT_FD");
    char line[4096];
    if (v == NULL) {
        return;
    }
    int fd = atoi(v);
    unsetenv("TN_RUN_PREPUT_FD");
    FILE *f = fd > 2 ? fdopen(fd, "r") : NULL;
    if (f == NULL) {
        return;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        char *eq = strchr(line, '='), *nl = strchr(line, '\n');
        if (nl != NULL) {
            *nl = '\0';
        }
        if (eq != NULL && eq != line) {
            *eq = '\0';
            tn_pmi_srv_put(&job->pmi, line, eq + 1);
        }
    }
    memset(line, 0, sizeof(line));
    fclose(f);
}
