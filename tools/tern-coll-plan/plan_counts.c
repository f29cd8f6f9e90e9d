/* tern-coll-plan's --counts decode step (plan_counts.h). */
#include "plan_counts.h"

static int pl_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int pl_counts_parse(const char *buf, size_t len, size_t want, int64_t *out, const char **why)
{
    size_t i = 0, k = 0;
    for (;;) {
        while (i < len && pl_blank(buf[i])) {
            i++;
        }
        if (i == len) {
            break;
        }
        if (buf[i] < '0' || buf[i] > '9') {
            *why = "want exactly one decimal number of bytes per block";
            return -1;
        }
        if (k == want) {
            *why = "more numbers than blocks";
            return -1;
        }
        int64_t x = 0;
        while (i < len && buf[i] >= '0' && buf[i] <= '9') {
            x = x * 10 + (buf[i] - '0');
            if (x > PL_COUNT_MAX) {
                *why = "a block above 2^40 bytes";
                return -1;
            }
            i++;
        }
        if (i < len && !pl_blank(buf[i])) {
            *why = "want exactly one decimal number of bytes per block";
            return -1;
        }
        out[k++] = x;
    }
    if (k != want) {
        *why = "fewer numbers than blocks";
        return -1;
    }
    return 0;
}
