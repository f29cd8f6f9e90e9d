/* tern-monitor serve's configuration files: the alert rules' tuning lines
 * (--rules, tools/tern-monitor/mon_rules.c: tn_mon_rules_tune) and the
 * site's host -> switch map (--switch-map, mon_map.c).  An administrator
 * writes them, but a typo must be an error message, never a crash.
 *
 * Input: a byte (0: the bytes are rule lines, else a switch map), then the
 * file.  A tuned rule keeps its limits: a window inside the samples kept,
 * a hold no longer than a day. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "mon_api.h"
#include "mon_rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) {
        return 0;
    }
    char why[256];
    if (data[0] == 0) {
        tn_mon_rules_t *rs = tn_mon_rules_new(NULL, NULL);
        char *text = malloc(size);
        memcpy(text, data + 1, size - 1);
        text[size - 1] = '\0';
        for (char *save = NULL, *line = strtok_r(text, "\n", &save); line != NULL;
             line = strtok_r(NULL, "\n", &save)) {
            (void)tn_mon_rules_tune(rs, line, why, sizeof(why));
        }
        for (int i = 0; i < TN_MON_NRULES; i++) {
            const tn_mon_rule_t *r = tn_mon_rules_get(rs, i);
            if (r->window_s < 0 || r->window_s > 60 || r->hold_s < 0 || r->hold_s > 86400) {
                abort();
            }
        }
        tn_mon_buf_t out = { 0 };
        tn_mon_rules_prometheus(rs, &out);
        tn_mon_buf_free(&out);
        tn_mon_rules_free(rs);
        free(text);
        return 0;
    }
    int fd = memfd_create("switch-map", 0);
    if (fd < 0 || write(fd, data + 1, size - 1) != (ssize_t)(size - 1)) {
        if (fd >= 0) {
            close(fd);
        }
        return 0;
    }
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    tn_mon_switch_map_t map;
    if (tn_mon_switch_map_load(path, &map, why, sizeof(why)) == 0) {
        for (int h = 0; h < map.nhosts; h++) {
            if (map.switch_of[h] < 0 || map.switch_of[h] >= map.nswitches ||
                strlen(map.hosts[h]) == 0 || strlen(map.hosts[h]) > 63) {
                abort();
            }
        }
        tn_mon_switch_map_free(&map);
    }
    close(fd);
    return 0;
}
