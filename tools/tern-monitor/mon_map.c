/* The site's host -> switch map (mon_api.h): lines "host switch", blank
 * lines and '#' comments ignored.  An administrator's file, still read
 * with bounds: names of 1 to 63 printable characters, 100 000 hosts. */
#include "mon_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TN_MON_MAP_MAX 100000

static int map_name_ok(const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i++) {
        if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f) {
            return 0;
        }
    }
    return n > 0 && n < 64;
}

int tn_mon_switch_map_load(const char *path, tn_mon_switch_map_t *map, char *why, size_t whylen)
{
    memset(map, 0, sizeof(*map));
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(why, whylen, "cannot open: %m");
        return -1;
    }
    char line[512];
    int lineno = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash != NULL) {
            *hash = '\0';
        }
        char host[128], sw[128], extra[8];
        int n = sscanf(line, "%127s %127s %7s", host, sw, extra);
        if (n <= 0) {
            continue;
        }
        if (n != 2 || !map_name_ok(host) || !map_name_ok(sw) || map->nhosts >= TN_MON_MAP_MAX) {
            snprintf(why, whylen, "line %d: want \"host switch\"", lineno);
            rc = -1;
            break;
        }
        int w;
        for (w = 0; w < map->nswitches && strcmp(map->switches[w], sw) != 0; w++) {
        }
        if (w == map->nswitches) {
            char (*ns)[64] = realloc(map->switches, (size_t)(w + 1) * sizeof(*ns));
            if (ns == NULL) {
                rc = -1;
                break;
            }
            map->switches = ns;
            snprintf(map->switches[map->nswitches++], 64, "%s", sw);
        }
        char (*nh)[64] = realloc(map->hosts, (size_t)(map->nhosts + 1) * sizeof(*nh));
        int *no = nh != NULL ? realloc(map->switch_of, (size_t)(map->nhosts + 1) * sizeof(int)) : NULL;
        if (nh != NULL) {
            map->hosts = nh;
        }
        if (no == NULL) {
            snprintf(why, whylen, "out of memory");
            rc = -1;
            break;
        }
        map->switch_of = no;
        snprintf(map->hosts[map->nhosts], 64, "%s", host);
        map->switch_of[map->nhosts++] = w;
    }
    fclose(f);
    if (rc != 0) {
        tn_mon_switch_map_free(map);
    }
    return rc;
}

void tn_mon_switch_map_free(tn_mon_switch_map_t *map)
{
    free(map->hosts);
    free(map->switch_of);
    free(map->switches);
    memset(map, 0, sizeof(*map));
}
