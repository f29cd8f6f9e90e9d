/* The counter registry: descriptions from counters_table.h and where each
 * set's structs live, for the readers (TERN_STATS, MPI_T, tern-info).
 *
 * The layers own their counter structs and bump them with plain adds; they
 * attach a set when it comes into use (the transport is active) and detach
 * a PEER set before its structs are freed.  A PROCESS set stays attached
 * after finalize (its struct is static): MPI_T may read it after
 * MPI_Finalize.  Readers serialise with the layers through the runtime
 * lock; values are loaded with relaxed atomic loads (a few counters are
 * bumped atomically outside the lock). */
#ifndef TN_BASE_COUNTERS_H
#define TN_BASE_COUNTERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "base/category_table.h"
#include "base/counters_table.h"

typedef enum {
    TN_CTR_COUNTER, TN_CTR_LEVEL, TN_CTR_HIGHWATERMARK, TN_CTR_TIMER
} tn_ctr_class_t;

typedef enum { TN_CTR_PROCESS, TN_CTR_PEER } tn_ctr_kind_t;

typedef struct {
    const char     *name;      /* "udp_peer_retransmits" */
    const char     *field;     /* "retransmits" */
    tn_ctr_set_t    set;
    size_t          offset;    /* in the set's struct */
    int             n;         /* elements per instance (1, or its axis's) */
    tn_ctr_axis_t   axis;      /* TN_CTR_AXIS_1 for a scalar */
    tn_ctr_class_t  cls;
    const char     *unit;
    const char     *help;
} tn_ctr_desc_t;

typedef struct {
    const char     *prefix;    /* "udp_peer_" */
    const char     *label;     /* "udp peer" */
    tn_category_t   category;
    tn_ctr_kind_t   kind;
    size_t          size;      /* of its struct */
} tn_ctr_set_desc_t;

/* The label key of an axis ("rail") and the name of its element elem
 * ("0"); NULL for a bad axis or element.  The CALLS axis names what the
 * MPI layer registered (tn_ctr_axis_names); tn_ctr_axis_len gives how many
 * elements an axis names (at most its array length). */
const char *tn_ctr_axis_key(tn_ctr_axis_t axis);
const char *tn_ctr_axis_name(tn_ctr_axis_t axis, int elem);
int tn_ctr_axis_len(tn_ctr_axis_t axis);
/* Name the elements of axis (CALLS): names[0..n-1], static strings. */
void tn_ctr_axis_names(tn_ctr_axis_t axis, const char *const *names, int n);

/* The struct of a PEER set towards world rank peer, NULL if none. */
typedef const void *(*tn_ctr_block_fn_t)(int peer);
/* Names element elem of an array counter towards peer, for TERN_STATS
 * ("10.1.0.1->10.1.0.2"); may be NULL. */
typedef void (*tn_ctr_label_fn_t)(int peer, int elem, char *buf, size_t len);

int tn_ctr_count(void);
const tn_ctr_desc_t *tn_ctr_desc(int i);                 /* NULL for a bad i */
const tn_ctr_set_desc_t *tn_ctr_set_desc(tn_ctr_set_t set);
/* The index of counter name, or -1. */
int tn_ctr_index(const char *name);

void tn_ctr_attach(tn_ctr_set_t set, const void *block);
void tn_ctr_attach_peers(tn_ctr_set_t set, tn_ctr_block_fn_t block_of, int npeers,
                         tn_ctr_label_fn_t label);
void tn_ctr_detach(tn_ctr_set_t set);
int tn_ctr_attached(tn_ctr_set_t set);

/* Element elem (< desc->n) of counter i, in the instance of peer (ignored
 * for PROCESS sets); 0 when the set or the peer's struct is not there. */
uint64_t tn_ctr_value(int i, int peer, int elem);

/* Print every attached set, one line per set and peer (and per element of
 * array counters), "[tern stats] rank R <label>[ P]: field=value ...". */
void tn_ctr_print(FILE *out, int rank);

#endif
