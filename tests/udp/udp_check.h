/* The udp unit tests' checks: CHECK counts a failed condition (and says
 * where), udp_check_report ends main with the verdict. */
#ifndef TN_TESTS_UDP_UDP_CHECK_H
#define TN_TESTS_UDP_UDP_CHECK_H

#include <stdio.h>

static int failures;
#define CHECK(cond)                                                                \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                            \
        }                                                                          \
    } while (0)

/* main's exit status: 0 when every check held. */
static inline int udp_check_report(const char *name)
{
    if (failures) {
        fprintf(stderr, "%s: %d failures\n", name, failures);
        return 1;
    }
    printf("%s: ok\n", name);
    return 0;
}

#endif
