/* tern-monitor: monitoring of Tern jobs and the network (docs/monitor.md).
 *   tern-monitor top [--dir D] [--interval S] [--once]
 *   tern-monitor dump [--dir D]
 * A stand-alone program: it reads the ranks' stats segments and never
 * links the MPI library. */
#include "mon_top.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: tern-monitor top [--dir DIR] [--interval SECONDS] [--once]\n"
            "       tern-monitor dump [--dir DIR]\n"
            "  top   the Tern jobs of this node, redrawn every second\n"
            "  dump  every counter of every rank of this node, one per line\n"
            "  --dir DIR  where the ranks publish (TERN_MONITOR_DIR; default /dev/shm)\n");
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *cmd = argv[1];
    const char *dir = "/dev/shm";
    double interval = 1.0;
    int frames = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "--interval") == 0 && i + 1 < argc) {
            char *end;
            interval = strtod(argv[++i], &end);
            if (*end != '\0' || !(interval >= 0.1 && interval <= 3600)) {
                fprintf(stderr, "tern-monitor: --interval takes 0.1 to 3600 seconds\n");
                return 2;
            }
        } else if (strcmp(argv[i], "--once") == 0) {
            frames = 1;
        } else {
            fprintf(stderr, "tern-monitor %s: unknown argument '%s'\n", cmd, argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (strcmp(cmd, "top") == 0) {
        return tn_mon_top(stdout, dir, interval, frames);
    }
    if (strcmp(cmd, "dump") == 0) {
        return tn_mon_dump(stdout, dir);
    }
    fprintf(stderr, "tern-monitor: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
