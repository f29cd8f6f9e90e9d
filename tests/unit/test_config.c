/* Config table: defaults parse, environment overrides, bad values keep the
 * default, size suffixes. */
#include "base/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"

int main(void)
{
    uint64_t v;
    CHECK(tn_config_parse_size("64k", &v) == TN_OK && v == 65536);
    CHECK(tn_config_parse_size("2M", &v) == TN_OK && v == 2u << 20);
    CHECK(tn_config_parse_size("1g", &v) == TN_OK && v == 1u << 30);
    CHECK(tn_config_parse_size("100", &v) == TN_OK && v == 100);
    CHECK(tn_config_parse_size("8kb", &v) == TN_OK && v == 8192);
    CHECK(tn_config_parse_size("", &v) != TN_OK);
    CHECK(tn_config_parse_size("-5", &v) != TN_OK);
    CHECK(tn_config_parse_size("12q", &v) != TN_OK);
    int b;
    CHECK(tn_config_parse_bool("yes", &b) == TN_OK && b == 1);
    CHECK(tn_config_parse_bool("OFF", &b) == TN_OK && b == 0);
    CHECK(tn_config_parse_bool("maybe", &b) != TN_OK);

    /* every default in the table is valid: loading without environment must
     * reproduce exactly the default strings */
    unsetenv("TERN_SHM_CELLS");
    unsetenv("TERN_SHM_EAGER_THRESHOLD");
    tn_config_load(0);
    CHECK(tn_cfg.shm_cells == 64);
    CHECK(tn_cfg.shm_eager_threshold == 16384);
    CHECK(strcmp(tn_cfg.wait, "auto") == 0);

    setenv("TERN_SHM_CELLS", "16", 1);
    setenv("TERN_SHM_EAGER_THRESHOLD", "4k", 1);
    setenv("TERN_SHM_CMA", "banana", 1);     /* invalid: default kept */
    tn_config_load(0);
    CHECK(tn_cfg.shm_cells == 16);
    CHECK(tn_cfg.shm_eager_threshold == 4096);
    CHECK(tn_cfg.shm_cma == 1);

    int n = tn_config_count(), found = 0;
    for (int i = 0; i < n; i++) {
        tn_config_desc_t d;
        char buf[64];
        tn_config_describe(i, &d, buf, sizeof(buf));
        CHECK(strncmp(d.name, "TERN_", 5) == 0);
        CHECK(d.help != NULL && strlen(d.help) > 10);
        if (strcmp(d.name, "TERN_SHM_CELLS") == 0) {
            found = 1;
            CHECK(strcmp(buf, "16") == 0);
            CHECK(d.is_set == 1);
        }
    }
    CHECK(found);
    if (failures == 0) {
        printf("config: all checks passed\n");
    }
    return failures != 0;
}
