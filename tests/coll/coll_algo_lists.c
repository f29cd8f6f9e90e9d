/* The algorithm names of the collectives live in three places that must
 * agree: the table tn_coll_algos (src/coll/coll.c), the help line of each
 * TERN_COLL_<KIND> variable ("...: auto, a, b") and the sweep of
 * tests/coll/CMakeLists.txt, passed here as arguments "KIND=a,b". */
#include <stdio.h>
#include <string.h>
#include "base/config.h"
#include "coll/coll.h"

static int errs;

static void fail(const char *what, const char *kind, const char *detail)
{
    fprintf(stderr, "FAIL %s for %s: %s\n", what, kind, detail);
    errs++;
}

/* "a, b, c" (separated by sep) as a list compared with the table's names. */
static void compare(const char *what, const char *kind_name, tn_coll_kind_t kind,
                    const char *list, const char *sep)
{
    char buf[512], table[512] = "", *save = NULL;
    int i, n_list = 0, n_table = 0;

    snprintf(buf, sizeof buf, "%s", list);
    for (char *tok = strtok_r(buf, sep, &save); tok; tok = strtok_r(NULL, sep, &save)) {
        while (*tok == ' ')
            tok++;
        if (strcmp(tok, "auto") == 0)
            continue;
        n_list++;
        for (i = 0; tn_coll_algos[i].name != NULL; i++)
            if (tn_coll_algos[i].kind == kind && strcmp(tn_coll_algos[i].name, tok) == 0)
                break;
        if (tn_coll_algos[i].name == NULL)
            fail(what, kind_name, tok);
    }
    for (i = 0; tn_coll_algos[i].name != NULL; i++) {
        if (tn_coll_algos[i].kind == kind) {
            n_table++;
            strncat(table, " ", sizeof table - strlen(table) - 1);
            strncat(table, tn_coll_algos[i].name, sizeof table - strlen(table) - 1);
        }
    }
    if (n_list != n_table) {
        char d[700];
        snprintf(d, sizeof d, "lists %d algorithms (%s), the table %d (%s)", n_list, list, n_table,
                 table);
        fail(what, kind_name, d);
    }
}

int main(int argc, char **argv)
{
    int seen[TN_COLL_KIND_COUNT_] = { 0 };

    tn_config_load(0);
    for (int k = 0; k < TN_COLL_KIND_COUNT_; k++) {
        const char *kname = tn_coll_kind_name((tn_coll_kind_t)k);
        char var[64], val[256];
        int found = 0;

        snprintf(var, sizeof var, "TERN_COLL_%s", kname);
        for (int i = 0; i < tn_config_count(); i++) {
            tn_config_desc_t d;
            tn_config_describe(i, &d, val, sizeof val);
            if (strcmp(d.name, var) == 0) {
                const char *colon = strchr(d.help, ':');
                found = 1;
                if (colon == NULL)
                    fail("help line", kname, d.help);
                else
                    compare("help line", kname, (tn_coll_kind_t)k, colon + 1, ",");
            }
        }
        if (!found)
            fail("config variable", kname, var);
    }
    for (int a = 1; a < argc; a++) {
        char kname[64];
        const char *eq = strchr(argv[a], '=');
        int k;

        if (eq == NULL || (size_t)(eq - argv[a]) >= sizeof kname) {
            fail("argument", argv[a], "not KIND=a,b");
            continue;
        }
        memcpy(kname, argv[a], (size_t)(eq - argv[a]));
        kname[eq - argv[a]] = '\0';
        for (k = 0; k < TN_COLL_KIND_COUNT_; k++)
            if (strcmp(tn_coll_kind_name((tn_coll_kind_t)k), kname) == 0)
                break;
        if (k == TN_COLL_KIND_COUNT_) {
            fail("test sweep", kname, "no such kind");
            continue;
        }
        seen[k] = 1;
        compare("test sweep", kname, (tn_coll_kind_t)k, eq + 1, ",");
    }
    for (int k = 0; k < TN_COLL_KIND_COUNT_; k++)
        if (!seen[k])
            fail("test sweep", tn_coll_kind_name((tn_coll_kind_t)k), "kind not swept");
    if (errs == 0)
        printf("coll algorithm lists agree\n");
    return errs != 0;
}
