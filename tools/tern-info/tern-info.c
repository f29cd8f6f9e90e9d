/* tern-info: version, transports, configuration variables, and what is
 * not supported yet. */
#include <stdio.h>
#include <string.h>
#include "tern/tools.h"

static void usage(void)
{
    printf("usage: tern-info [--config] [--pvars] [--events] [--unsupported] [--markdown] "
           "[--version] [--help]\n"
           "  (no option)     version, transports and every TERN_* variable\n"
           "  --version       only the version (of the library tern-info runs with)\n"
           "  --config        only the configuration variables\n"
           "  --pvars         the counters (TERN_STATS, MPI_T performance variables)\n"
           "  --events        the MPI_T events\n"
           "  --unsupported   the MPI functions not implemented yet, one per line\n"
           "  --markdown      the configuration variables as a markdown table (with their\n"
           "                  MPI_T category and control-variable scope)\n");
}

static void print_config(int markdown)
{
    int n = tern_tools_config_count();
    if (markdown) {
        printf("| Variable | Type | Default | Valid | Category | MPI_T scope | Description |\n"
               "|---|---|---|---|---|---|---|\n");
    } else {
        printf("Configuration variables (%d):\n", n);
    }
    for (int i = 0; i < n; i++) {
        const char *name, *type, *def, *help;
        char value[256];
        int is_set;
        if (tern_tools_config_get(i, &name, &type, &def, &help, value, sizeof(value),
                                  &is_set) != 0) {
            continue;
        }
        const char *valid = tern_tools_config_valid(i);
        if (valid == NULL || *valid == '\0') {
            valid = "any";
        }
        if (markdown) {
            /* a choice list's bars would split the table's cells */
            char v[256];
            size_t k = 0;
            for (const char *p = valid; *p && k + 3 < sizeof(v); p++) {
                if (*p == '|') {
                    v[k++] = ',';
                    v[k++] = ' ';
                } else {
                    v[k++] = *p;
                }
            }
            v[k] = '\0';
            const char *cat = "", *scope = "";
            tern_tools_config_mpit(i, &cat, &scope);
            printf("| `%s` | %s | `%s` | %s | %s | %s | %s |\n", name, type, def, v, cat, scope,
                   help);
        } else {
            printf("  %-28s = %-10s (default %s, %s, valid %s%s)\n      %s\n", name, value,
                   def, type, valid, is_set ? ", set in the environment" : "", help);
        }
    }
}

/* From the library's counter table: what TERN_STATS prints and MPI_T reads. */
static void print_pvars(void)
{
    int n = tern_tools_counter_count();
    printf("Counters and MPI_T performance variables (%d):\n", n);
    for (int i = 0; i < n; i++) {
        const char *name, *cls, *unit, *help, *cat;
        int per_peer, elems;
        if (tern_tools_counter_get(i, &name, &cls, &unit, &help, &cat, &per_peer, &elems) != 0) {
            continue;
        }
        printf("  %-32s %-13s %-9s %s%s%s\n      %s\n", name, cls, unit, cat,
               per_peer ? ", per peer" : "", elems > 1 ? ", per rail" : "", help);
    }
}

static void print_events(void)
{
    int n = tern_tools_event_count();
    printf("MPI_T events (%d):\n", n);
    for (int i = 0; i < n; i++) {
        const char *name, *cat, *help;
        if (tern_tools_event_get(i, &name, &cat, &help) == 0) {
            printf("  %-24s %s\n      %s\n", name, cat, help);
        }
    }
}

int main(int argc, char **argv)
{
    int config = 0, unsupported = 0, markdown = 0, pvars = 0, events = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--config") == 0) {
            config = 1;
        } else if (strcmp(argv[i], "--pvars") == 0) {
            pvars = 1;
        } else if (strcmp(argv[i], "--events") == 0) {
            events = 1;
        } else if (strcmp(argv[i], "--unsupported") == 0) {
            unsupported = 1;
        } else if (strcmp(argv[i], "--markdown") == 0) {
            markdown = 1;
        } else if (strcmp(argv[i], "--version") == 0) {
            printf("tern-info (Tern) %s\n", tern_tools_version());
            return 0;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage();
            return 0;
        } else {
            fprintf(stderr, "tern-info: unknown option %s\n", argv[i]);
            usage();
            return 2;
        }
    }
    if (unsupported) {
        int n = tern_tools_unsupported_count();
        for (int i = 0; i < n; i++) {
            printf("%s\n", tern_tools_unsupported_name(i));
        }
        return 0;
    }
    if (markdown) {
        print_config(1);
        return 0;
    }
    if (pvars || events) {
        if (pvars) {
            print_pvars();
        }
        if (events) {
            print_events();
        }
        return 0;
    }
    if (!config) {
        int total = tern_tools_function_count();
        int unsup = tern_tools_unsupported_count();
        printf("Tern %s\n", tern_tools_version());
        printf("MPI standard ABI: MPI 5.0, libmpi_abi.so.1\n");
        printf("Transports built in: %s\n", tern_tools_transports());
        printf("MPI functions: %d of %d implemented (%d not supported yet: "
               "tern-info --unsupported)\n", total - unsup, total, unsup);
    }
    print_config(0);
    return 0;
}
