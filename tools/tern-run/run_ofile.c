/* --output-filename: the head's per-rank output files; see run.h. */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

struct tn_run_ofile {
    int   nranks;
    int   copy;         /* also show the lines (no "nocopy") */
    int  *fds;          /* [2 * nranks]: stdout, stderr of each rank; -1 */
    char *dir;          /* "DIR/1" or "DIR" (nojobid) */
    int   width;        /* digits of N in rank.N */
};

/* mkdir -p path (modifies path while it works; restores it). */
static int ofile_mkdirs(char *path)
{
    for (char *p = path + 1; ; p++) {
        if (*p != '/' && *p != '\0') {
            continue;
        }
        char c = *p;

        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            *p = c;
            return -1;
        }
        *p = c;
        if (c == '\0') {
            break;
        }
    }
    {
        struct stat st;

        if (stat(path, &st) != 0) {
            return -1;
        }
        if (!S_ISDIR(st.st_mode)) {
            errno = ENOTDIR;
            return -1;
        }
    }
    return 0;
}

/* Split "DIR[:directive,...]" into dir and the directives.  The part after
 * the last ':' is directives when it has no '/'; an unknown one is an
 * error.  Returns 0 or -1 after saying why. */
static int ofile_parse(const char *arg, tn_run_buf_t *dir, int *copy_p,
                       int *jobid_p)
{
    const char *colon = strrchr(arg, ':');
    const char *p;

    *copy_p  = 1;
    *jobid_p = 1;
    if (colon == NULL || strchr(colon, '/') != NULL) {
        colon = arg + strlen(arg);
    }
    tn_run_buf_append(dir, arg, (size_t)(colon - arg));
    while (dir->len > 1 && dir->data[dir->len - 1] == '/') {
        dir->len--;
    }
    if (dir->len == 0) {
        tn_run_log("--output-filename '%s': no directory given", arg);
        return -1;
    }
    for (p = *colon == ':' ? colon + 1 : colon; *p != '\0';) {
        size_t n = strcspn(p, ",");

        if (n == 6 && strncasecmp(p, "nocopy", n) == 0) {
            *copy_p = 0;
        } else if (n == 7 && strncasecmp(p, "nojobid", n) == 0) {
            *jobid_p = 0;
        } else if (n > 0) {
            tn_run_log("--output-filename '%s': unknown directive '%.*s' "
                       "(nocopy, nojobid)", arg, (int)n, p);
            return -1;
        }
        p += n + (p[n] == ',');
    }
    if (*jobid_p) {
        tn_run_buf_append(dir, "/1", 2);    /* Open MPI's first job id */
    }
    tn_run_buf_append(dir, "", 1);
    return 0;
}

int tn_run_ofile_open(tn_run_job_t *job)
{
    const char           *arg = job->opts != NULL ? job->opts->output_dir
                                                  : NULL;
    const tn_run_setup_t *s   = job->setup;
    struct tn_run_ofile  *of;
    tn_run_buf_t          dir  = { 0 };
    tn_run_buf_t          path = { 0 };
    int                   jobid;

    if (arg == NULL) {
        return 0;
    }
    of = tn_run_xmalloc(sizeof(*of));
    memset(of, 0, sizeof(*of));
    of->nranks = s->nranks;
    of->fds    = tn_run_xmalloc((size_t)of->nranks * 2 * sizeof(int));
    for (int i = 0; i < 2 * of->nranks; i++) {
        of->fds[i] = -1;
    }
    job->ofile = of;
    if (ofile_parse(arg, &dir, &of->copy, &jobid) != 0) {
        goto err;
    }
    of->dir = dir.data;
    /* Open MPI's width: the digits of the job's size */
    of->width = 1;
    for (int np = of->nranks / 10; np > 0; np /= 10) {
        of->width++;
    }
    /* two files per rank beside the three descriptors of each local rank
     * (at most all) and child link that tn_run_nofile counts */
    if (tn_run_nofile(of->nranks + (2 * of->nranks + 2) / 3 +
                      (s->tree_width < s->nhosts ? s->tree_width
                                                 : s->nhosts)) != 0) {
        goto err;
    }
    for (int r = 0; r < of->nranks; r++) {
        path.len = 0;
        tn_run_buf_printf(&path, "%s/rank.%0*d", of->dir, of->width, r);
        tn_run_buf_append(&path, "", 1);
        if (ofile_mkdirs(path.data) != 0) {
            tn_run_log("--output-filename: cannot create directory %s: %m",
                       path.data);
            goto err;
        }
        for (int st = 0; st < 2; st++) {
            size_t len = path.len - 1;

            path.len = len;
            tn_run_buf_printf(&path, "/%s", st == 0 ? "stdout" : "stderr");
            tn_run_buf_append(&path, "", 1);
            of->fds[2 * r + st] = open(path.data, O_WRONLY | O_CREAT | O_TRUNC |
                                      O_CLOEXEC | O_NOCTTY, 0666);
            if (of->fds[2 * r + st] < 0) {
                tn_run_log("--output-filename: cannot create %s: %m", path.data);
                goto err;
            }
            path.len = len + 1;
            path.data[len] = '\0';
        }
    }
    tn_run_buf_free(&path);
    tn_run_debug(1, "the output of rank N goes %sto %s/rank.N/stdout and "
                 "stderr", of->copy ? "also " : "", of->dir);
    return 0;

err:
    tn_run_buf_free(&path);
    if (of->dir == NULL) {
        tn_run_buf_free(&dir);
    }
    tn_run_ofile_close(job);
    return -1;
}

int tn_run_ofile_write(tn_run_job_t *job, int rank, int is_err,
                       const char *data, size_t len)
{
    struct tn_run_ofile *of = job->ofile;
    int                 *fd_p;

    if (of == NULL) {
        return 1;
    }
    if (rank < 0 || rank >= of->nranks) {
        return of->copy;
    }
    fd_p = &of->fds[2 * rank + (is_err != 0)];
    if (*fd_p >= 0 && tn_run_write_all(*fd_p, data, len) != 0) {
        tn_run_log("--output-filename: cannot write %s/rank.%0*d/%s: %m; "
                   "no more output goes there", of->dir, of->width, rank,
                   is_err ? "stderr" : "stdout");
        close(*fd_p);
        *fd_p = -1;
    }
    return of->copy;
}

void tn_run_ofile_close(tn_run_job_t *job)
{
    struct tn_run_ofile *of = job->ofile;

    if (of == NULL) {
        return;
    }
    for (int i = 0; i < 2 * of->nranks; i++) {
        if (of->fds[i] >= 0) {
            close(of->fds[i]);
        }
    }
    free(of->fds);
    free(of->dir);
    free(of);
    job->ofile = NULL;
}
