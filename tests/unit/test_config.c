/* Config table: defaults parse and are valid, environment overrides, bad
 * values (unparsable, out of range, not a choice, overflowing, min above
 * max) keep the default, size suffixes. */
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
    CHECK(tn_config_parse_size("18446744073709551615", &v) == TN_OK && v == UINT64_MAX);
    CHECK(tn_config_parse_size("18446744073709551616", &v) != TN_OK);   /* 2^64 */
    CHECK(tn_config_parse_size("17179869184g", &v) != TN_OK);           /* 2^64 bytes */
    CHECK(tn_config_parse_size("k", &v) != TN_OK);
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

    /* every variable: its default is valid; every valid spec parses */
    for (int i = 0; i < n; i++) {
        tn_config_desc_t d;
        char buf[64];
        tn_config_describe(i, &d, buf, sizeof(buf));
        CHECK(d.valid != NULL);
        if (!tn_config_valid(i, d.def)) {
            fprintf(stderr, "default of %s (%s) is not valid (%s)\n", d.name, d.def, d.valid);
            CHECK(0);
        }
        if (strcmp(d.name, "TERN_WAIT") == 0) {
            CHECK(tn_config_valid(i, "spin") && !tn_config_valid(i, "foo"));
        }
        if (strcmp(d.name, "TERN_SHM_CELLS") == 0) {
            CHECK(tn_config_valid(i, "2") && !tn_config_valid(i, "1") &&
                  !tn_config_valid(i, "99999999999999999999"));
        }
        if (strcmp(d.name, "TERN_SHM_CELL_SIZE") == 0) {
            CHECK(tn_config_valid(i, "1m") && !tn_config_valid(i, "2g") &&
                  !tn_config_valid(i, "100"));
        }
        if (strcmp(d.name, "TERN_UDP_PEER_TIMEOUT") == 0) {
            CHECK(tn_config_valid(i, "0.5") && !tn_config_valid(i, "-1") &&
                  !tn_config_valid(i, "inf") && !tn_config_valid(i, "nan"));
        }
    }

    /* bad values in the environment keep the defaults */
    setenv("TERN_WAIT", "foo", 1);
    setenv("TERN_LOG_LEVEL", "foo", 1);
    setenv("TERN_SHM_CELL_SIZE", "64g", 1);              /* a multi-GiB segment */
    setenv("TERN_UDP_SOCKBUF", "99999999999999999999k", 1);   /* overflows */
    setenv("TERN_UDP_WINDOW", "3", 1);
    setenv("TERN_UDP_FAULT_DROP", "150", 1);
    tn_config_load(0);
    CHECK(strcmp(tn_cfg.wait, "auto") == 0);
    CHECK(strcmp(tn_cfg.log_level, "warn") == 0);
    CHECK(tn_cfg.shm_cell_size == 8192);
    CHECK(tn_cfg.udp_sockbuf == 4u << 20);
    CHECK(tn_cfg.udp_window == 4096);
    CHECK(tn_cfg.udp_fault_drop == 0);
    /* RTO_MIN above RTO_MAX: the three RTO settings keep their defaults */
    setenv("TERN_UDP_RTO_MIN", "5000", 1);
    setenv("TERN_UDP_RTO_MAX", "1000", 1);
    tn_config_load(0);
    CHECK(tn_cfg.udp_rto_min == 200 && tn_cfg.udp_rto_max == 200000 &&
          tn_cfg.udp_rto_init == 2000);
    setenv("TERN_UDP_RTO_MIN", "500", 1);               /* consistent: taken */
    setenv("TERN_UDP_RTO_MAX", "100000", 1);
    tn_config_load(0);
    CHECK(tn_cfg.udp_rto_min == 500 && tn_cfg.udp_rto_max == 100000);
    /* a udp port range: both ends with 1 <= min <= max, else ephemeral */
    CHECK(tn_cfg.udp_port_min == 0 && tn_cfg.udp_port_max == 0);
    setenv("TERN_UDP_PORT_MIN", "61000", 1);
    setenv("TERN_UDP_PORT_MAX", "61099", 1);
    tn_config_load(0);
    CHECK(tn_cfg.udp_port_min == 61000 && tn_cfg.udp_port_max == 61099);
    setenv("TERN_UDP_PORT_MAX", "60999", 1);            /* max below min */
    tn_config_load(0);
    CHECK(tn_cfg.udp_port_min == 0 && tn_cfg.udp_port_max == 0);
    unsetenv("TERN_UDP_PORT_MAX");                      /* only one end */
    tn_config_load(0);
    CHECK(tn_cfg.udp_port_min == 0 && tn_cfg.udp_port_max == 0);
    setenv("TERN_UDP_PORT_MIN", "0", 1);
    setenv("TERN_UDP_PORT_MAX", "70000", 1);            /* out of range */
    tn_config_load(0);
    CHECK(tn_cfg.udp_port_min == 0 && tn_cfg.udp_port_max == 0);
    setenv("TERN_UDP_PORT_MIN", "61000", 1);
    setenv("TERN_UDP_PORT_MAX", "61000", 1);            /* one port */
    tn_config_load(0);
    CHECK(tn_cfg.udp_port_min == 61000 && tn_cfg.udp_port_max == 61000);
    unsetenv("TERN_UDP_PORT_MIN");
    unsetenv("TERN_UDP_PORT_MAX");
    if (failures == 0) {
        printf("config: all checks passed\n");
    }
    return failures != 0;
}
