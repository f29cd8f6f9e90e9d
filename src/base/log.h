/* Logging: levels error..trace plus per-packet "data", a subsystem tag, and a
 * compile-time ceiling (TN_LOG_CEILING) above which calls vanish.
 *
 *   tn_log_warn("shm", "ring %d full", i);
 *   tn_log_error("rt", "open %s failed: %m", path);   // %m after syscalls
 *
 * Lines go to stderr as "[tern <rank>] <subsys>: <message>". */
#ifndef TN_BASE_LOG_H
#define TN_BASE_LOG_H

#include <stdarg.h>

typedef enum {
    TN_LOG_ERROR = 0, TN_LOG_WARN, TN_LOG_INFO, TN_LOG_DEBUG, TN_LOG_TRACE, TN_LOG_DATA
} tn_log_level_t;

#ifndef TN_LOG_CEILING
#define TN_LOG_CEILING TN_LOG_TRACE
#endif

extern int tn_log_level_current;   /* runtime level, from TERN_LOG_LEVEL */

/* Apply TERN_LOG_LEVEL / TERN_LOG_SUBSYS from tn_cfg. */
void tn_log_configure(void);
/* Rank shown in log lines (-1 before it is known). */
void tn_log_set_rank(int rank);
int tn_log_enabled(tn_log_level_t level, const char *subsys);
void tn_log_emit(tn_log_level_t level, const char *subsys, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define tn_log_at(lvl, subsys, ...)                                            \
    do {                                                                       \
        if ((lvl) <= TN_LOG_CEILING && (int)(lvl) <= tn_log_level_current &&   \
            tn_log_enabled((lvl), (subsys)))                                   \
            tn_log_emit((lvl), (subsys), __VA_ARGS__);                         \
    } while (0)

#define tn_log_error(subsys, ...) tn_log_at(TN_LOG_ERROR, subsys, __VA_ARGS__)
#define tn_log_warn(subsys, ...)  tn_log_at(TN_LOG_WARN, subsys, __VA_ARGS__)
#define tn_log_info(subsys, ...)  tn_log_at(TN_LOG_INFO, subsys, __VA_ARGS__)
#define tn_log_debug(subsys, ...) tn_log_at(TN_LOG_DEBUG, subsys, __VA_ARGS__)
#define tn_log_trace(subsys, ...) tn_log_at(TN_LOG_TRACE, subsys, __VA_ARGS__)
#define tn_log_data(subsys, ...)  tn_log_at(TN_LOG_DATA, subsys, __VA_ARGS__)

#endif
