/* Reading a rank's stats segment (include/tern/stats.h): the one decode
 * step between a segment's bytes, which its owner may have written
 * anything into, and the monitor's code.
 *
 * tn_mon_seg_decode() takes a private copy of the whole file (the caller
 * read it with pread, see tn_mon_seg_read) and checks every offset, count,
 * name and string the header and tables give before it returns; what it
 * fills may then be used without further checks: counters' offsets lie
 * inside their region, names are NUL-terminated and printable, axes have
 * the elements the counters index.  Values are read from the copy by
 * tn_mon_seg_value(); a later copy of the same file is decoded again (its
 * tables could have been rewritten). */
#ifndef TN_MON_SEG_H
#define TN_MON_SEG_H

#include <stddef.h>
#include <stdint.h>
#include "tern/stats.h"
#include "tern/status.h"

#define TN_MON_SEG_MAX_SIZE  (256u << 20)  /* bytes a segment may have */
#define TN_MON_SEG_MAX_CTRS  4096
#define TN_MON_SEG_MAX_AXES  32
#define TN_MON_SEG_MAX_ELEMS 4096          /* elements of one axis */
#define TN_MON_SEG_MAX_RECS  (1u << 20)    /* peer or node records */

typedef struct {
    const char *key;            /* "rail" */
    uint32_t    count;
    const char **names;         /* count names */
} tn_mon_axis_t;

typedef struct {
    char        name[TERN_STATS_NAME_MAX];
    const char *help;
    const char *unit;
    uint32_t    offset;         /* of element 0 in its region */
    uint32_t    count;          /* elements */
    int         region;         /* TERN_STATS_PROCESS, TERN_STATS_PEER */
    int         cls;            /* TERN_STATS_COUNTER... */
    int         axis;           /* -1: a scalar; else index in axes */
} tn_mon_ctr_t;

typedef struct {
    tern_stats_hdr_t hdr;       /* a copy; its strings NUL-terminated and
                                 * printable ('?' for anything else) */
    const uint8_t   *buf;       /* the caller's copy of the segment */
    size_t           len;
    int              nctr;
    tn_mon_ctr_t    *ctr;
    int              naxis;
    tn_mon_axis_t    axis[TN_MON_SEG_MAX_AXES];
    const char     **names;     /* storage of the axes' name pointers */
    int              has_call;  /* call is this rank's current call */
    tern_status_call_t call;    /* consistent (seq even) when has_call */
} tn_mon_seg_t;

/* Decode buf (len bytes, a copy that outlives seg's use) into seg.  0, or
 * -1 with a reason in why (never NULL-terminated past whylen). */
int tn_mon_seg_decode(const void *buf, size_t len, tn_mon_seg_t *seg, char *why, size_t whylen);
void tn_mon_seg_free(tn_mon_seg_t *seg);

/* Element elem of counter i: rec -1 for a PROCESS counter, else the
 * record (0..peer_count-1 peers, then the node records).  0 for anything
 * out of range. */
uint64_t tn_mon_seg_value(const tn_mon_seg_t *seg, int i, int rec, int elem);
/* The counter named name, or -1. */
int tn_mon_seg_find(const tn_mon_seg_t *seg, const char *name);
/* Records in all (peers and nodes). */
uint32_t tn_mon_seg_nrecs(const tn_mon_seg_t *seg);

/* Read the segment file path into a new buffer: opened without following
 * links, a regular file of uid (when uid >= 0) of at most
 * TN_MON_SEG_MAX_SIZE bytes.  The buffer (free() it) and its length, or
 * NULL with errno set. */
void *tn_mon_seg_read(const char *path, long uid, size_t *len_p);

#endif
