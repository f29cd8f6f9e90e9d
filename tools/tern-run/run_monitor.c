/* tern-run --monitor (run.h): the ranks publish their stats segments, and
 * a node agent (tern-monitor agent, installed beside tern-run) sends them
 * to the server.  The agent takes a per-user lock in the segments'
 * directory, so one serves each node however many jobs ask for one, and
 * leaves once the node has had no segment of its user for a while and the
 * tern-run that started it is gone; it is not killed with the job, so
 * that it can send the job's final values (the ranks' segments linger
 * until it has). */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void tn_run_monitor_env(const tn_run_opts_t *opts)
{
    if (!opts->monitor) {
        return;
    }
    setenv("TERN_MONITOR", "1", 1);
    if (opts->monitor_server != NULL && opts->monitor_server[0] != '\0') {
        setenv("TERN_MONITOR_SERVER", opts->monitor_server, 1);
        setenv("TERN_MONITOR_LINGER", "1", 1);  /* the agent collects and removes */
    }
}

/* <the directory of this executable>/tern-monitor, or "" */
static void monitor_agent_path(char *buf, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    buf[0] = '\0';
    if (n <= 0) {
        return;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash != NULL) {
        *slash = '\0';
        snprintf(buf, len, "%s/tern-monitor", self);
    }
}

void tn_run_monitor_start(tn_run_job_t *job)
{
    const char *server = tn_run_env_get("TERN_MONITOR_SERVER");
    int fork_hosts = (job->setup->flags & TN_RUN_SETUP_FORK) != 0;
    if (server == NULL || server[0] == '\0') {
        return;
    }
    /* one agent a machine: under --launcher fork every "host" is this one */
    if ((fork_hosts && job->is_proxy) || (!fork_hosts && job->nlocal == 0)) {
        return;
    }
    char agent[PATH_MAX + 16];
    monitor_agent_path(agent, sizeof(agent));
    if (agent[0] == '\0' || access(agent, X_OK) != 0) {
        tn_run_log("warning: --monitor: no tern-monitor beside tern-run (%s); no agent started",
                   agent);
        return;
    }
    const char *dir = tn_run_env_get("TERN_MONITOR_DIR");
    const char *token = tn_run_env_get("TERN_MONITOR_TOKEN_FILE");
    const char *argv[16];
    int n = 0;
    argv[n++] = agent;
    argv[n++] = "agent";
    argv[n++] = "--server";
    argv[n++] = server;
    argv[n++] = "--reap";
    argv[n++] = "--lock";
    argv[n++] = "--exit-when-idle";
    char parent[32];
    snprintf(parent, sizeof(parent), "%d", (int)getpid());
    argv[n++] = "--parent";
    argv[n++] = parent;
    if (dir != NULL && dir[0] != '\0') {
        argv[n++] = "--dir";
        argv[n++] = dir;
    }
    if (token != NULL && token[0] != '\0') {
        argv[n++] = "--token-file";
        argv[n++] = token;
    }
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid < 0) {
        tn_run_log("warning: --monitor: fork: %m; no agent started");
        return;
    }
    if (pid == 0) {
        /* its own session, and not our child (twice forked): the job's
         * signals and its end are not the agent's */
        setsid();
        if (fork() != 0) {
            _exit(0);
        }
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            dup2(null, STDOUT_FILENO);
        }
        execv(agent, (char *const *)argv);
        _exit(127);
    }
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
    tn_run_debug(1, "node agent started for %s", server);
}
