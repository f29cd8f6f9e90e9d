/* The PMI wire formats, decoded and encoded without I/O (pmi_conn.h moves
 * the bytes).  Every decoder here takes what the server sent as hostile:
 * lengths are checked against the buffers, numbers against their ranges;
 * tests/fuzz/fuzz_pmi.c (PMI-1) and fuzz_pmi2.c (PMI-2, process mapping)
 * drive them.
 *
 * PMI-1 ("simple PMI", pmi1_wire.c): one line per message,
 *   "cmd=<name> key=value key=value\n", values without spaces.
 *
 * PMI-2 (pmi2_wire.c), as Slurm's mpi/pmi2 plugin and MPICH's Hydra serve
 * it after a PMI-1 "cmd=init pmi_version=2 pmi_subversion=0" handshake:
 *   a 6-byte header, the body's length in ASCII decimal padded with spaces
 *   (Slurm writes "%-6d", left-aligned; leading spaces are taken too),
 *   then the body "cmd=<name>;key=value;key=value;" with no newline: each
 *   pair ends with ';', a ';' inside a value is written ";;".  Keys are at
 *   most TN_PMI2_KEY_MAX bytes.  Commands used here, with their replies
 *   (every reply carries rc=<int>, 0 = success, maybe errmsg=):
 *     fullinit;pmijobid=;pmirank=;threaded=FALSE
 *                       -> fullinit-response;rank=;size=;appnum=;pmi-version=
 *     job-getid         -> job-getid-response;jobid=
 *     info-getjobattr;key=  -> info-getjobattr-response;found=TRUE|FALSE;value=
 *     kvs-put;key=;value=   -> kvs-put-response
 *     kvs-fence             -> kvs-fence-response
 *     kvs-get;jobid=;srcid=-1;key= -> kvs-get-response;found=;value=
 *     finalize              -> finalize-response
 *     abort;isworld=TRUE;msg=   (no reply: the server ends the job)
 *     spawn;ncmds=;preputcount=;ppkey<i>=;ppval<i>=; then per command
 *       subcmd=;maxprocs=;argc=;argv<i>=;infokeycount=;infokey<i>=;infoval<i>=
 *                       -> spawn-response;rc=;jobid=;nerrs=;errcodes=<c>,<c>,...
 *       (Hydra sends no errcodes when all started; subcmd starts a command)
 *     name-publish;name=;port= -> name-publish-response (rc=1: name taken)
 *     name-lookup;name=        -> name-lookup-response;port=;found=TRUE|FALSE
 *     name-unpublish;name=     -> name-unpublish-response (rc=1: not there)
 *
 * PMI_process_mapping (pmi_map.c), the job attribute of PMI-2 (and a key
 * of Hydra's PMI-1 space): "(vector,(start,count,ppn),...)": node start,
 * start+1, ..., start+count-1 hold ppn consecutive ranks each; the vector
 * repeats until every rank has a node (that is how a cyclic layout reads). */
#ifndef TN_RUNTIME_PMI_WIRE_H
#define TN_RUNTIME_PMI_WIRE_H

#include <stddef.h>
#include "base/status.h"

/* A decimal integer in [lo, hi] (a reply's field, an environment
 * variable): 1 and *v_p, else 0 (NULL, empty, junk after the digits,
 * out of range). */
int tn_pmi_int(const char *s, long lo, long hi, long *v_p);

/* ---- PMI-1 ---------------------------------------------------------------- */
/* The value of key in a "cmd=x key=value ..." line, cut to len - 1 bytes
 * (len >= 1), into out; 1 if found, else 0 (out untouched). */
int tn_pmi1_field(const char *line, const char *key, char *out, size_t len);

/* ---- PMI-2 ---------------------------------------------------------------- */
#define TN_PMI2_HDR       6        /* bytes of the length header */
#define TN_PMI2_BODY_MAX  16384    /* longest body taken from a server */
#define TN_PMI2_KEY_MAX   64       /* longest key (the protocol's limit) */
#define TN_PMI2_VAL_MAX   1024     /* longest value we send (the protocol's) */
#define TN_PMI2_PAIRS_MAX 64       /* most key=value pairs in a reply */

/* A decoded message: pairs point into buf (the body with escapes removed,
 * each key and value NUL-ended).  pair[0] is always cmd. */
typedef struct {
    char buf[TN_PMI2_BODY_MAX + 1];
    struct {
        const char *key;
        const char *val;
    } pair[TN_PMI2_PAIRS_MAX];
    int npairs;
} tn_pmi2_msg_t;

/* The body length a 6-byte header announces, into *len_p (1 ..
 * TN_PMI2_BODY_MAX).  TN_ERR_PROTO for anything else. */
tn_status_t tn_pmi2_hdr_parse(const char hdr[TN_PMI2_HDR], size_t *len_p);
/* Decode a body of len bytes (no NUL needed) into *msg_p.  TN_ERR_PROTO
 * when it does not start with "cmd=", a key is empty, too long or holds a
 * ';', a pair has no '=', or there are more than TN_PMI2_PAIRS_MAX pairs.
 * The ';' after the last value may be missing.  *msg_p is undefined after
 * an error. */
tn_status_t tn_pmi2_msg_parse(const char *body, size_t len, tn_pmi2_msg_t *msg_p);
/* The value of the first pair named key, or NULL. */
const char *tn_pmi2_msg_get(const tn_pmi2_msg_t *msg, const char *key);
/* The decimal integer value of key within [lo, hi] into *v_p: 1; absent,
 * not a number or out of range: 0 (*v_p untouched). */
int tn_pmi2_msg_int(const tn_pmi2_msg_t *msg, const char *key, long lo, long hi, long *v_p);
/* Encode a request: header and body "cmd=<cmd>;k0=v0;...;" into buf (cap
 * bytes), n pairs from keys and vals; the length written into *len_p.
 * Keys must be 1..TN_PMI2_KEY_MAX bytes without '=' or ';', values at
 * most TN_PMI2_VAL_MAX bytes (';' is escaped).  TN_ERR_INVAL otherwise,
 * TN_ERR_TRUNCATE when buf is too small. */
tn_status_t tn_pmi2_msg_build(char *buf, size_t cap, const char *cmd, const char *const *keys,
                              const char *const *vals, int n, size_t *len_p);
/* The errcodes of a spawn-response: a comma list of decimal ints, the
 * code of each process started in order, into codes[0..]; an empty list
 * writes nothing.  TN_ERR_PROTO when an entry is empty or not an int, or
 * the list has more than n entries; codes[] is partly written then. */
tn_status_t tn_pmi2_errcodes_parse(const char *s, int *codes, int n);

/* ---- PMI_process_mapping ---------------------------------------------------- */
/* Decode a mapping for size ranks into node_of[size] and the number of
 * nodes into *nnodes_p; nodes are numbered 0..nnodes-1 in order of their
 * lowest rank (the mapping's own numbers may have gaps).  TN_ERR_PROTO
 * when it is not "(vector" then 1..256 triples ",(start,count,ppn)" then
 * ")" with start >= 0, count and ppn >= 1 (spaces allowed around the
 * punctuation); TN_ERR_INVAL when size < 1; TN_ERR_NOMEM.  node_of is
 * undefined after an error. */
tn_status_t tn_pmi_map_parse(const char *s, int size, int *node_of, int *nnodes_p);

#endif
