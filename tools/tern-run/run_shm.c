/* Removal of the job's shared-memory files.  The library names its segments
 * /dev/shm/tern-<kvsname>-<something>; a rank that crashes cannot unlink
 * them, so tern-run does at the end of every job.  Names that start with the
 * kvsname itself are removed too.  The kvsname holds 64 random bits, so no
 * other job's files can match. */
#include "run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define SHM_DIR "/dev/shm"

void tn_run_shm_cleanup(const char *kvsname)
{
    tn_run_buf_t   prefix = { 0 };
    DIR           *dir    = opendir(SHM_DIR);
    struct dirent *ent;

    if (dir == NULL) {
        return;
    }
    tn_run_buf_printf(&prefix, "tern-%s", kvsname);
    while ((ent = readdir(dir)) != NULL) {
        if (strncmp(ent->d_name, prefix.data, prefix.len) != 0 &&
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
}
