/* Look up the embedded page's files (mon_web.h). */
#include "mon_web.h"

#include <string.h>

int tn_mon_web_find(const char *path, const char **ctype, const unsigned char **data,
                    size_t *len)
{
    size_t i;

    if (path == NULL) {
        return -1;
    }
    if (strcmp(path, "/") == 0) {
        path = "/index.html";
    }
    /* a handful of files: a linear search costs less than anything cleverer */
    for (i = 0; i < tn_mon_web_nassets; i++) {
        const tn_mon_web_asset_t *a = &tn_mon_web_assets[i];

        if (strcmp(a->path, path) == 0) {
            if (ctype != NULL) {
                *ctype = a->ctype;
            }
            if (data != NULL) {
                *data = a->data;
            }
            if (len != NULL) {
                *len = a->len;
            }
            return 0;
        }
    }
    return -1;
}
