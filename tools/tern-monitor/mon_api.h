/* tern-monitor serve: the JSON the web page reads (docs/monitor.md, the
 * shapes in tools/tern-monitor/web/app.js) and the Prometheus text
 * (mon_prom.c), written from the live state (mon_state.h). */
#ifndef TN_MON_API_H
#define TN_MON_API_H

#include <stdint.h>
#include "mon_buf.h"
#include "mon_state.h"

/* The site's host -> switch map: lines "host switch" (# comments). */
typedef struct {
    char (*hosts)[64];
    int   *switch_of;
    int    nhosts;
    char (*switches)[64];
    int    nswitches;
} tn_mon_switch_map_t;

/* Read path into map; 0, or -1 with a reason in why. */
int tn_mon_switch_map_load(const char *path, tn_mon_switch_map_t *map, char *why, size_t whylen);
void tn_mon_switch_map_free(tn_mon_switch_map_t *map);

/* more (may be NULL) adds entries of jobs the state does not hold (the
 * database's) before the array closes. */
struct tn_mon_json;
void tn_mon_api_jobs(const tn_mon_state_t *s, uint64_t now_ms, tn_mon_buf_t *out,
                     void (*more)(void *arg, struct tn_mon_json *j), void *arg);
/* cls -1 (all) or TN_MON_CLS_*; what 0 bytes, 1 messages, 2 average size;
 * window_s 0 for the whole run.  -1: no such job. */
int tn_mon_api_job(const tn_mon_state_t *s, const char *id, int cls, int what, int window_s,
                   uint64_t now_ms, tn_mon_buf_t *out);
void tn_mon_api_nodes(const tn_mon_state_t *s, uint64_t now_ms, tn_mon_buf_t *out);
int tn_mon_api_node(const tn_mon_state_t *s, const char *name, uint64_t now_ms, tn_mon_buf_t *out);
void tn_mon_api_network(const tn_mon_state_t *s, const tn_mon_switch_map_t *map,
                        tn_mon_buf_t *out);

/* /metrics: the Prometheus text exposition format. */
void tn_mon_prom_write(const tn_mon_state_t *s, uint64_t now_ms, tn_mon_buf_t *out);

#endif
