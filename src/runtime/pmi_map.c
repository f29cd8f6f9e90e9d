/* PMI_process_mapping (pmi_wire.h). */
#include "runtime/pmi_wire.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define TN_PMI_MAP_BLOCKS 256      /* most triples in a mapping */

/* A decimal number at *p (at most INT_MAX), past it on success. */
static int tn_pmi_map_num(const char **p, long *v_p)
{
    const char *s = *p;
    long v = 0;
    if (*s < '0' || *s > '9') {
        return -1;
    }
    for (; *s >= '0' && *s <= '9'; s++) {
        v = v * 10 + (*s - '0');
        if (v > INT_MAX) {
            return -1;
        }
    }
    *v_p = v;
    *p = s;
    return 0;
}

static int tn_pmi_map_skip(const char **p, const char *lit)
{
    while (**p == ' ') {
        (*p)++;
    }
    size_t n = strlen(lit);
    if (strncmp(*p, lit, n) != 0) {
        return -1;
    }
    *p += n;
    while (**p == ' ') {
        (*p)++;
    }
    return 0;
}

static int tn_pmi_map_cmp(const void *a, const void *b)
{
    const int *x = a, *y = b;       /* (node, rank) pairs */
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

/* Renumber the nodes 0.. in order of their lowest rank: sort (node, rank)
 * pairs; each node's first pair holds its lowest rank; the nodes ordered
 * by that rank get their new numbers.  O(size log size) whatever the
 * mapping's node numbers are. */
static tn_status_t tn_pmi_map_dense(int size, int *node_of, int *nnodes_p)
{
    int (*pr)[2] = malloc(sizeof(*pr) * (size_t)size);
    int *first = malloc(sizeof(int) * (size_t)size);
    if (pr == NULL || first == NULL) {
        free(pr);
        free(first);
        return TN_ERR_NOMEM;
    }
    for (int r = 0; r < size; r++) {
        pr[r][0] = node_of[r];
        pr[r][1] = r;
    }
    qsort(pr, (size_t)size, sizeof(*pr), tn_pmi_map_cmp);
    /* first[r] = 1 when r is the lowest rank of its node */
    memset(first, 0, sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++) {
        if (i == 0 || pr[i][0] != pr[i - 1][0]) {
            first[pr[i][1]] = 1;
        }
    }
    /* number the lowest ranks in rank order, then give every rank its node's */
    int nnodes = 0;
    for (int r = 0; r < size; r++) {
        if (first[r]) {
            first[r] = ++nnodes;           /* new number + 1 */
        }
    }
    for (int i = 0, lead = 0; i < size; i++) {
        if (i == 0 || pr[i][0] != pr[i - 1][0]) {
            lead = pr[i][1];
        }
        node_of[pr[i][1]] = first[lead] - 1;
    }
    free(pr);
    free(first);
    *nnodes_p = nnodes;
    return TN_OK;
}

tn_status_t tn_pmi_map_parse(const char *s, int size, int *node_of, int *nnodes_p)
{
    long blk[TN_PMI_MAP_BLOCKS][3];
    int nblk = 0;
    long ranks_per_round = 0;
    if (size < 1) {
        return TN_ERR_INVAL;
    }
    if (tn_pmi_map_skip(&s, "(") != 0 || tn_pmi_map_skip(&s, "vector") != 0) {
        return TN_ERR_PROTO;
    }
    while (tn_pmi_map_skip(&s, ",") == 0) {
        if (nblk == TN_PMI_MAP_BLOCKS || tn_pmi_map_skip(&s, "(") != 0) {
            return TN_ERR_PROTO;
        }
        for (int k = 0; k < 3; k++) {
            if ((k > 0 && tn_pmi_map_skip(&s, ",") != 0) || tn_pmi_map_num(&s, &blk[nblk][k]) != 0) {
                return TN_ERR_PROTO;
            }
            while (*s == ' ') {
                s++;
            }
        }
        if (tn_pmi_map_skip(&s, ")") != 0 || blk[nblk][1] < 1 || blk[nblk][2] < 1 ||
            blk[nblk][0] + blk[nblk][1] > INT_MAX) {
            return TN_ERR_PROTO;
        }
        ranks_per_round += blk[nblk][1] * blk[nblk][2];   /* < 256 * 2^62: no overflow */
        nblk++;
    }
    if (tn_pmi_map_skip(&s, ")") != 0 || *s != '\0' || nblk == 0 || ranks_per_round < 1) {
        return TN_ERR_PROTO;
    }
    /* the vector repeats until every rank is placed */
    int r = 0;
    while (r < size) {
        for (int b = 0; b < nblk && r < size; b++) {
            for (long n = 0; n < blk[b][1] && r < size; n++) {
                for (long k = 0; k < blk[b][2] && r < size; k++) {
                    node_of[r++] = (int)(blk[b][0] + n);
                }
            }
        }
    }
    return tn_pmi_map_dense(size, node_of, nnodes_p);
}
