/* The nodes' shared segments (memfds), and removal of the job's files in
 * /dev/shm; see run.h.  The library names a segment it makes itself
 * /dev/shm/tern-<hash of kvsname>-n<node>; a rank that crashes cannot unlink
 * it, so tern-run does at the end of every job.  Names that start with the
 * kvsname itself are removed too.  The kvsname holds 64 random bits, so no
 * other job's files can match. */
#include "run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHM_DIR "/dev/shm"

/* Which network namespace rank runs in, as the inode the library sees in
 * /proc/self/ns/net (its node key); 0 when unknown. */
static unsigned long long shm_node_of(const tn_run_job_t *job, int rank)
{
    const char *ns = tn_run_opts_netns_of(job->opts, rank);
    char        path[320];
    struct stat st;

    if (ns == NULL) {
        snprintf(path, sizeof(path), "/proc/self/ns/net");
    } else {
        snprintf(path, sizeof(path), "/var/run/netns/%s", ns);
    }
    return stat(path, &st) == 0 ? (unsigned long long)st.st_ino : 0;
}

void tn_run_shm_create(tn_run_job_t *job)
{
    int                 n    = job->nlocal > 0 ? job->nlocal : 1;
    unsigned long long *keys = tn_run_xmalloc((size_t)n * sizeof(*keys));

    job->shm_fds = tn_run_xmalloc((size_t)n * sizeof(int));
    job->nshm    = 0;
    for (int r = 0; r < job->nlocal; r++) {
        unsigned long long key = shm_node_of(job, job->ranks[r].rank);
        int                g;

        for (g = 0; g < job->nshm && keys[g] != key; g++) {
        }
        if (g == job->nshm) {
            int fd = memfd_create("tern-shm", MFD_CLOEXEC | MFD_ALLOW_SEALING);

            if (fd < 0) {
                tn_run_debug(1, "memfd_create: %m; the ranks name their "
                             "shared segments themselves");
                for (int q = 0; q < job->nlocal; q++) {
                    job->ranks[q].shm_fd = -1;
                }
                tn_run_shm_close(job);
                break;
            }
            keys[g]                = key;
            job->shm_fds[job->nshm++] = fd;
        }
        job->ranks[r].shm_fd = job->shm_fds[g];
    }
    free(keys);
}

void tn_run_shm_close(tn_run_job_t *job)
{
    for (int g = 0; g < job->nshm; g++) {
        close(job->shm_fds[g]);
    }
    free(job->shm_fds);
    job->shm_fds = NULL;
    job->nshm    = 0;
}

/* FNV-1a of the kvsname, as the library names its segments. */
static unsigned long long shm_hash(const char *kvsname)
{
    unsigned long long h = 1469598103934665603ull;

    for (; *kvsname != '\0'; kvsname++) {
        h = (h ^ (unsigned char)*kvsname) * 1099511628211ull;
    }
    return h;
}

void tn_run_shm_cleanup(const char *kvsname)
{
    tn_run_buf_t   prefix = { 0 };
    tn_run_buf_t   hashed = { 0 };
    DIR           *dir;
    struct dirent *ent;

    if (kvsname[0] == '\0') {
        return;                         /* would match every name */
    }
    dir = opendir(SHM_DIR);
    if (dir == NULL) {
        return;
    }
    tn_run_buf_printf(&prefix, "tern-%s", kvsname);
    tn_run_buf_printf(&hashed, "tern-%016llx-", shm_hash(kvsname));
    while ((ent = readdir(dir)) != NULL) {
        if (strncmp(ent->d_name, prefix.data, prefix.len) != 0 &&
            strncmp(ent->d_name, hashed.data, hashed.len) != 0 &&
            strncmp(ent->d_name, kvsname, strlen(kvsname)) != 0) {
            continue;
        }
        if (unlinkat(dirfd(dir), ent->d_name, 0) == 0) {
            tn_run_debug(1, "removed %s/%s", SHM_DIR, ent->d_name);
        } else if (errno != ENOENT) {
            tn_run_log("cannot remove %s/%s: %m", SHM_DIR, ent->d_name);
        }
    }
    closedir(dir);
    tn_run_buf_free(&prefix);
    tn_run_buf_free(&hashed);
}

/* A TERN_* boolean as the library's config table reads it. */
static int shm_env_true(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && (strcmp(v, "1") == 0 || strcasecmp(v, "yes") == 0 ||
                         strcasecmp(v, "on") == 0 || strcasecmp(v, "true") == 0);
}

void tn_run_stats_cleanup(const char *kvsname)
{
    /* the ranks remove their own at exit; these are the killed ones'.  A
     * lingering job's are the node agent's to collect and remove. */
    if (kvsname[0] == '\0' || shm_env_true("TERN_MONITOR_LINGER")) {
        return;
    }
    const char *dirs[2] = { SHM_DIR, getenv("TERN_MONITOR_DIR") };
    tn_run_buf_t prefix = { 0 };
    tn_run_buf_printf(&prefix, "tern-stats.%u.", (unsigned)getuid());
    for (const char *c = kvsname; *c != '\0'; c++) {
        /* the library's file name: other characters become '_' */
        int ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                 (*c >= '0' && *c <= '9') || *c == '_' || *c == '.' || *c == '-';
        tn_run_buf_printf(&prefix, "%c", ok ? *c : '_');
    }
    tn_run_buf_printf(&prefix, ".");
    for (int d = 0; d < 2; d++) {
        if (dirs[d] == NULL || (d == 1 && strcmp(dirs[1], SHM_DIR) == 0)) {
            continue;
        }
        DIR *dir = opendir(dirs[d]);
        struct dirent *ent;
        while (dir != NULL && (ent = readdir(dir)) != NULL) {
            struct stat st;
            if (strncmp(ent->d_name, prefix.data, prefix.len) != 0 ||
                fstatat(dirfd(dir), ent->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
                !S_ISREG(st.st_mode) || st.st_uid != getuid()) {
                continue;
            }
            if (unlinkat(dirfd(dir), ent->d_name, 0) == 0) {
                tn_run_debug(1, "removed %s/%s", dirs[d], ent->d_name);
            }
        }
        if (dir != NULL) {
            closedir(dir);
        }
    }
    tn_run_buf_free(&prefix);
}
