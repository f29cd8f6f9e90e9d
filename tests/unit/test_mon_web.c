/* tern-monitor's embedded web page (mon_web.h): every file of web/ is in
 * the binary byte for byte with its content type, "/" is the page, paths
 * that are not exactly a file's find nothing, and the page names nothing
 * it does not carry: every file index.html refers to is embedded, and no
 * file refers to another host (clusters are offline). */
#include "mon_web.h"

#include <stdlib.h>
#include <string.h>

#include "../check.h"

#ifndef TN_MON_WEB_DIR
#error "TN_MON_WEB_DIR: the source folder of the page"
#endif

static const struct {
    const char *name;
    const char *ctype;
} files[] = {
    { "index.html", "text/html; charset=utf-8" },
    { "app.js", "text/javascript; charset=utf-8" },
    { "style.css", "text/css; charset=utf-8" },
    { "favicon.svg", "image/svg+xml" },
};

/* The whole file web/name, or NULL; its length in *len_p. */
static unsigned char *read_source(const char *name, size_t *len_p)
{
    char           path[512];
    FILE          *f;
    unsigned char *buf = NULL;
    long           n;

    snprintf(path, sizeof path, "%s/%s", TN_MON_WEB_DIR, name);
    f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = malloc((size_t)n + 1);
        if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
        *len_p = (size_t)n;
    }
    fclose(f);
    return buf;
}

/* data[0..len) holds needle at pos: the first from pos, or -1. */
static long find_from(const unsigned char *data, size_t len, size_t pos, const char *needle)
{
    size_t n = strlen(needle);

    for (; pos + n <= len; pos++) {
        if (memcmp(data + pos, needle, n) == 0) {
            return (long)pos;
        }
    }
    return -1;
}

/* No URL of another host in an embedded file.  The one absolute URL the
 * page may spell is SVG's namespace name, which is never fetched. */
static void check_no_other_host(const char *name, const unsigned char *d, size_t len)
{
    static const char *bad[] = { "https:", "//cdn", "src=\"//", "href=\"//", "url(//",
                                 "url(http", "@import" };
    static const char  ns[]  = "http://www.w3.org/2000/svg";
    size_t             i;
    long               at;

    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        at = find_from(d, len, 0, bad[i]);
        if (at >= 0) {
            fprintf(stderr, "%s: \"%s\" at byte %ld\n", name, bad[i], at);
        }
        CHECK(at < 0);
    }
    for (at = find_from(d, len, 0, "http:"); at >= 0;
         at = find_from(d, len, (size_t)at + 1, "http:")) {
        int ok = (size_t)at + strlen(ns) <= len && memcmp(d + at, ns, strlen(ns)) == 0;

        if (!ok) {
            fprintf(stderr, "%s: a URL of another host at byte %ld\n", name, at);
        }
        CHECK(ok);
    }
}

/* Every href="..." and src="..." of index.html that is not a fragment
 * names an embedded file. */
static void check_refs_embedded(const unsigned char *d, size_t len)
{
    static const char *attrs[] = { "href=\"", "src=\"" };
    size_t             i;
    int                refs = 0;

    for (i = 0; i < 2; i++) {
        long at;

        for (at = find_from(d, len, 0, attrs[i]); at >= 0;
             at = find_from(d, len, (size_t)at + 1, attrs[i])) {
            size_t s = (size_t)at + strlen(attrs[i]);
            size_t e = s;
            char   path[256];

            while (e < len && d[e] != '"') {
                e++;
            }
            if (e == s || d[s] == '#' || e - s + 2 > sizeof path) {
                CHECK(e > s && d[s] == '#');
                continue;
            }
            path[0] = '/';
            memcpy(path + 1, d + s, e - s);
            path[e - s + 1] = '\0';
            if (tn_mon_web_find(path, NULL, NULL, NULL) != 0) {
                fprintf(stderr, "index.html refers to %s, which is not embedded\n", path);
                CHECK(0);
            }
            refs++;
        }
    }
    CHECK(refs >= 3); /* the style sheet, the script, the icon */
}

int main(void)
{
    const char          *ctype;
    const unsigned char *data;
    size_t               len;
    size_t               i;

    CHECK(tn_mon_web_nassets == sizeof files / sizeof files[0]);
    for (i = 0; i < sizeof files / sizeof files[0]; i++) {
        char           path[64];
        size_t         src_len = 0;
        unsigned char *src     = read_source(files[i].name, &src_len);

        snprintf(path, sizeof path, "/%s", files[i].name);
        ctype = NULL;
        data  = NULL;
        len   = 0;
        CHECK(tn_mon_web_find(path, &ctype, &data, &len) == 0);
        CHECK(ctype != NULL && strcmp(ctype, files[i].ctype) == 0);
        CHECK(src != NULL);
        if (src != NULL && data != NULL) {
            CHECK(len == src_len && memcmp(data, src, len) == 0); /* verbatim */
            CHECK(data[len] == '\0');
            check_no_other_host(files[i].name, data, len);
            if (strcmp(files[i].name, "index.html") == 0) {
                check_refs_embedded(data, len);
            }
        }
        free(src);
    }

    /* "/" is the page */
    {
        const unsigned char *page;
        size_t               page_len;

        CHECK(tn_mon_web_find("/index.html", NULL, &page, &page_len) == 0);
        CHECK(tn_mon_web_find("/", &ctype, &data, &len) == 0);
        CHECK(data == page && len == page_len);
        CHECK(strcmp(ctype, "text/html; charset=utf-8") == 0);
    }

    /* anything else finds nothing and leaves the outputs alone */
    {
        static const char *miss[] = { "", "index.html", "/index.html/", "//index.html",
                                      "/./index.html", "/../index.html", "/web/index.html",
                                      "/INDEX.HTML", "/index.htm", "/index.html?x=1",
                                      "/app.js\n", "/api/jobs", "/favicon.ico", "/embed.py",
                                      "/mock_api.py", "//" };

        for (i = 0; i < sizeof miss / sizeof miss[0]; i++) {
            ctype = "untouched";
            data  = (const unsigned char *)"untouched";
            len   = 12345;
            CHECK(tn_mon_web_find(miss[i], &ctype, &data, &len) == -1);
            CHECK(strcmp(ctype, "untouched") == 0 && len == 12345);
        }
        CHECK(tn_mon_web_find(NULL, &ctype, &data, &len) == -1);
    }
    return tn_check_report("test_mon_web");
}
