#include "base/log.h"
#include "base/config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int tn_log_level_current = TN_LOG_WARN;
static int tn_log_rank = -1;
static char tn_log_subsys_filter[256] = "all";

static const char *const tn_log_level_names[] = {
    "error", "warn", "info", "debug", "trace", "data"
};

void tn_log_configure(void)
{
    const char *lvl = tn_cfg.log_level ? tn_cfg.log_level : "warn";
    for (int i = 0; i <= TN_LOG_DATA; i++) {
        if (strcmp(lvl, tn_log_level_names[i]) == 0) {
            tn_log_level_current = i;
        }
    }
    snprintf(tn_log_subsys_filter, sizeof(tn_log_subsys_filter), "%s",
             tn_cfg.log_subsys ? tn_cfg.log_subsys : "all");
}

void tn_log_set_rank(int rank)
{
    tn_log_rank = rank;
}

int tn_log_enabled(tn_log_level_t level, const char *subsys)
{
    if (level == TN_LOG_ERROR || strcmp(tn_log_subsys_filter, "all") == 0) {
        return 1;
    }
    size_t n = strlen(subsys);
    for (const char *p = tn_log_subsys_filter; (p = strstr(p, subsys)) != NULL; p += n) {
        int starts = (p == tn_log_subsys_filter || p[-1] == ',');
        int ends = (p[n] == '\0' || p[n] == ',');
        if (starts && ends) {
            return 1;
        }
    }
    return 0;
}

void tn_log_emit(tn_log_level_t level, const char *subsys, const char *fmt, ...)
{
    int saved_errno = errno;    /* keep %m meaningful */
    char line[1024];
    int off = snprintf(line, sizeof(line), "[tern %d] %s %s: ", tn_log_rank,
                       tn_log_level_names[level], subsys);
    va_list ap;
    va_start(ap, fmt);
    errno = saved_errno;
    vsnprintf(line + off, sizeof(line) - (size_t)off, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", line);
    errno = saved_errno;
}
