/* PMI-1 reply lines (pmi_wire.h). */
#include "runtime/pmi_wire.h"

#include <string.h>

int tn_pmi1_field(const char *line, const char *key, char *out, size_t len)
{
    size_t klen = strlen(key);
    const char *p = line;
    while (*p) {
        while (*p == ' ') {
            p++;
        }
        if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
            p += klen + 1;
            size_t n = strcspn(p, " ");
            if (n >= len) {
                n = len - 1;
            }
            memcpy(out, p, n);
            out[n] = '\0';
            return 1;
        }
        p += strcspn(p, " ");
    }
    return 0;
}
