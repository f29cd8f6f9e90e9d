/* Decoding a stats segment (mon_seg.h). */
#include "mon_seg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int seg_fail(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int seg_fail(char *why, size_t whylen, const char *fmt, ...)
{
    if (why != NULL && whylen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* [off, off + n * each) inside [0, size), off aligned to align. */
static int seg_range(uint64_t size, uint64_t off, uint64_t n, uint64_t each, uint64_t align)
{
    uint64_t bytes;
    if (off % align != 0 || __builtin_mul_overflow(n, each, &bytes) || off > size) {
        return 0;
    }
    return bytes <= size - off;
}

/* A fixed-size text field made safe to print: NUL-terminated, printable. */
static void seg_text(char *s, size_t len)
{
    s[len - 1] = '\0';
    for (size_t i = 0; s[i] != '\0'; i++) {
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f) {
            s[i] = '?';
        }
    }
}

/* The string at off of the strings table, if it is NUL-terminated inside
 * it and printable. */
static const char *seg_str(const tn_mon_seg_t *seg, uint32_t off)
{
    const tern_stats_hdr_t *h = &seg->hdr;
    if (off >= h->str_size) {
        return NULL;
    }
    const char *s = (const char *)seg->buf + h->str_off + off;
    size_t room = h->str_size - off;
    for (size_t i = 0; i < room; i++) {
        if (s[i] == '\0') {
            return s;
        }
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f) {
            return NULL;
        }
    }
    return NULL;
}

static int seg_name_ok(const char *n, size_t len)
{
    size_t i;
    for (i = 0; i < len && n[i] != '\0'; i++) {
        char c = n[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9' && i > 0) || (c == '_' && i > 0))) {
            return 0;
        }
    }
    return i > 0 && i < len;
}

static int seg_axes(tn_mon_seg_t *seg, char *why, size_t whylen)
{
    const tern_stats_hdr_t *h = &seg->hdr;
    const tern_stats_axis_t *ax = (const void *)(seg->buf + h->axis_off);
    size_t total = 0;
    for (uint32_t a = 0; a < h->axis_count; a++) {
        if (ax[a].count > TN_MON_SEG_MAX_ELEMS) {
            return seg_fail(why, whylen, "axis %u has %u elements", a, ax[a].count);
        }
        total += ax[a].count;
    }
    seg->names = calloc(total + 1, sizeof(*seg->names));
    if (seg->names == NULL) {
        return seg_fail(why, whylen, "out of memory");
    }
    const char **next = seg->names;
    for (uint32_t a = 0; a < h->axis_count; a++) {
        tn_mon_axis_t *x = &seg->axis[a];
        char key[sizeof(ax[a].key)];
        memcpy(key, ax[a].key, sizeof(key));
        if (memchr(key, '\0', sizeof(key)) == NULL) {
            return seg_fail(why, whylen, "axis %u: key not terminated", a);
        }
        for (const char *c = key; *c != '\0'; c++) {
            if (!((*c >= 'a' && *c <= 'z') || *c == '_' || *c == ',')) {
                return seg_fail(why, whylen, "axis %u: bad key", a);
            }
        }
        /* the key points into our copy of the table, not the header's */
        x->key = ax[a].key;
        x->count = ax[a].count;
        x->names = next;
        uint32_t off = ax[a].names;
        for (uint32_t e = 0; e < x->count; e++) {
            const char *s = seg_str(seg, off);
            if (s == NULL) {
                return seg_fail(why, whylen, "axis %u: element %u is not a string", a, e);
            }
            *next++ = s;
            off += (uint32_t)strlen(s) + 1;
        }
    }
    seg->naxis = (int)h->axis_count;
    return 0;
}

static int seg_ctrs(tn_mon_seg_t *seg, char *why, size_t whylen)
{
    const tern_stats_hdr_t *h = &seg->hdr;
    const tern_stats_desc_t *d = (const void *)(seg->buf + h->desc_off);
    seg->ctr = calloc(h->desc_count + 1, sizeof(*seg->ctr));
    if (seg->ctr == NULL) {
        return seg_fail(why, whylen, "out of memory");
    }
    for (uint32_t i = 0; i < h->desc_count; i++) {
        tn_mon_ctr_t *c = &seg->ctr[i];
        memcpy(c->name, d[i].name, sizeof(c->name));
        if (!seg_name_ok(c->name, sizeof(c->name))) {
            return seg_fail(why, whylen, "counter %u: bad name", i);
        }
        c->help = seg_str(seg, d[i].help);
        c->unit = seg_str(seg, d[i].unit);
        if (c->help == NULL || c->unit == NULL) {
            return seg_fail(why, whylen, "counter %s: help or unit is not a string", c->name);
        }
        if (d[i].region > TERN_STATS_PEER || d[i].cls > TERN_STATS_TIMER ||
            d[i].axis > h->axis_count || d[i].count == 0) {
            return seg_fail(why, whylen, "counter %s: bad region, class, axis or count", c->name);
        }
        c->region = d[i].region;
        c->cls = d[i].cls;
        c->axis = (int)d[i].axis - 1;
        c->count = d[i].count;
        c->offset = d[i].offset;
        if ((c->axis < 0 && c->count != 1) ||
            (c->axis >= 0 && c->count > seg->axis[c->axis].count)) {
            return seg_fail(why, whylen, "counter %s: %u elements for its axis", c->name,
                            c->count);
        }
        uint64_t room = c->region == TERN_STATS_PROCESS ? h->proc_size : h->peer_rec_size;
        if (!seg_range(room, c->offset, c->count, 8, 8)) {
            return seg_fail(why, whylen, "counter %s: outside its region", c->name);
        }
    }
    seg->nctr = (int)h->desc_count;
    return 0;
}

int tn_mon_seg_decode(const void *buf, size_t len, tn_mon_seg_t *seg, char *why, size_t whylen)
{
    memset(seg, 0, sizeof(*seg));
    if (len < sizeof(tern_stats_hdr_t) || len > TN_MON_SEG_MAX_SIZE) {
        return seg_fail(why, whylen, "%zu bytes", len);
    }
    seg->buf = buf;
    seg->len = len;
    memcpy(&seg->hdr, buf, sizeof(seg->hdr));
    tern_stats_hdr_t *h = &seg->hdr;
    if (h->magic != TERN_STATS_MAGIC || h->version != TERN_STATS_VERSION ||
        h->hdr_size != TERN_STATS_HDR_SIZE) {
        return seg_fail(why, whylen, "not a stats segment of version %d", TERN_STATS_VERSION);
    }
    if (h->size > len) {
        return seg_fail(why, whylen, "says %llu bytes, has %zu", (unsigned long long)h->size,
                        len);
    }
    uint64_t size = h->size;
    if (h->desc_count > TN_MON_SEG_MAX_CTRS || h->axis_count > TN_MON_SEG_MAX_AXES ||
        h->peer_count > TN_MON_SEG_MAX_RECS || h->node_count > TN_MON_SEG_MAX_RECS ||
        h->peer_rec_size % 8 != 0 || h->peer_rec_size > (64u << 10) ||
        !seg_range(size, h->desc_off, h->desc_count, sizeof(tern_stats_desc_t), 8) ||
        !seg_range(size, h->axis_off, h->axis_count, sizeof(tern_stats_axis_t), 8) ||
        !seg_range(size, h->str_off, h->str_size, 1, 1) ||
        !seg_range(size, h->proc_off, h->proc_size, 1, 8) ||
        !seg_range(size, h->peer_off, (uint64_t)h->peer_count + h->node_count,
                   h->peer_rec_size, 8) ||
        (h->call_off != 0 && !seg_range(size, h->call_off, 1, sizeof(tern_status_call_t), 8))) {
        return seg_fail(why, whylen, "a table or region lies outside the segment");
    }
    if (h->str_size == 0 || seg->buf[h->str_off + h->str_size - 1] != '\0') {
        return seg_fail(why, whylen, "strings not terminated");
    }
    if (h->state > TERN_STATS_EXITED) {
        return seg_fail(why, whylen, "state %u", h->state);
    }
    seg_text(h->job, sizeof(h->job));
    seg_text(h->host, sizeof(h->host));
    seg_text(h->program, sizeof(h->program));
    seg_text(h->version_str, sizeof(h->version_str));
    if (seg_axes(seg, why, whylen) != 0 || seg_ctrs(seg, why, whylen) != 0) {
        tn_mon_seg_free(seg);
        return -1;
    }
    if (h->call_off != 0) {
        memcpy(&seg->call, seg->buf + h->call_off, sizeof(seg->call));
        /* a copy taken while the rank rewrote the line is no record */
        seg->has_call = seg->call.seq % 2 == 0 && seg->call.call <= h->ncalls;
    }
    return 0;
}

void tn_mon_seg_free(tn_mon_seg_t *seg)
{
    free(seg->ctr);
    free(seg->names);
    seg->ctr = NULL;
    seg->names = NULL;
    seg->nctr = seg->naxis = 0;
}

uint32_t tn_mon_seg_nrecs(const tn_mon_seg_t *seg)
{
    return seg->hdr.peer_count + seg->hdr.node_count;
}

uint64_t tn_mon_seg_value(const tn_mon_seg_t *seg, int i, int rec, int elem)
{
    if (i < 0 || i >= seg->nctr || elem < 0 || (uint32_t)elem >= seg->ctr[i].count) {
        return 0;
    }
    const tn_mon_ctr_t *c = &seg->ctr[i];
    size_t at;
    if (c->region == TERN_STATS_PROCESS) {
        at = seg->hdr.proc_off;
    } else if (rec >= 0 && (uint32_t)rec < tn_mon_seg_nrecs(seg)) {
        at = seg->hdr.peer_off + (size_t)rec * seg->hdr.peer_rec_size;
    } else {
        return 0;
    }
    uint64_t v;
    memcpy(&v, seg->buf + at + c->offset + (size_t)elem * 8, sizeof(v));
    return v;
}

int tn_mon_seg_find(const tn_mon_seg_t *seg, const char *name)
{
    for (int i = 0; i < seg->nctr; i++) {
        if (strcmp(seg->ctr[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

void *tn_mon_seg_read(const char *path, long uid, size_t *len_p)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uid >= 0 && st.st_uid != (uid_t)uid) ||
        st.st_size < (off_t)sizeof(tern_stats_hdr_t) || st.st_size > TN_MON_SEG_MAX_SIZE) {
        close(fd);
        errno = EINVAL;
        return NULL;
    }
    size_t len = (size_t)st.st_size;
    char *buf = malloc(len);
    size_t got = 0;
    while (buf != NULL && got < len) {
        ssize_t n = pread(fd, buf + got, len - got, (off_t)got);
        if (n <= 0) {
            break;                  /* truncated since: decode what we have */
        }
        got += (size_t)n;
    }
    close(fd);
    if (buf == NULL || got < sizeof(tern_stats_hdr_t)) {
        free(buf);
        errno = EINVAL;
        return NULL;
    }
    *len_p = got;
    return buf;
}
