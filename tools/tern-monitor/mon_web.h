/* tern-monitor's web page: the files of web/ embedded in the binary.
 *
 * Clusters are offline, so the page loads nothing from any other host;
 * everything it needs is here, generated at build time by web/embed.py
 * (web_assets.c in the build tree, verbatim copies of the files).  The
 * server's handler answers a GET of a path found here with the bytes and
 * content type found; the page's data come from the /api/ endpoints. */
#ifndef TN_MON_WEB_H
#define TN_MON_WEB_H

#include <stddef.h>

typedef struct {
    const char          *path;  /* "/index.html": '/' and a plain name */
    const char          *ctype; /* "text/html; charset=utf-8" */
    const unsigned char *data;  /* the file's bytes, a NUL after them */
    size_t               len;   /* without that NUL */
} tn_mon_web_asset_t;

/* The policy to send with the page's files: it needs nothing but its own
 * origin (no inline script or style, no other host), so markup that ever
 * slipped into the page could neither run nor load anything. */
#define TN_MON_WEB_CSP                                                           \
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " \
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

/* The generated table (web_assets.c). */
extern const tn_mon_web_asset_t tn_mon_web_assets[];
extern const size_t             tn_mon_web_nassets;

/* The embedded file at path (a request's decoded path, its query left
 * out; "/" is "/index.html").  Returns 0 with its content type, bytes and
 * length in the outputs (static storage: never freed), or -1 (outputs
 * untouched) for anything else: paths match byte for byte, so "..",
 * doubled slashes, a trailing slash or another case find nothing.  Any
 * output pointer may be NULL. */
int tn_mon_web_find(const char *path, const char **ctype, const unsigned char **data,
                    size_t *len);

#endif
