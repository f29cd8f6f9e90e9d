/* The launcher's own protocol between tern-run and its per-host proxies,
 * without I/O.
 *
 * Design note.  A multi-host job is a tree: tern-run (the head) starts a
 * proxy on each of up to TERN_RUN_TREE_WIDTH hosts (through ssh or another
 * remote shell), each proxy starts the proxies of its own subtree, and so
 * on, so that starting H hosts takes O(log H) rounds.  Every link is the
 * remote shell's stdin (down) and stdout (up): no port is opened, and the
 * remote shell authenticates and carries the bytes.  The head sends one
 * SETUP frame naming the job; a proxy passes the same bytes to its
 * children.  Every proxy serves PMI-1 to its local ranks from a local copy
 * of the key-value space: a fence gathers the puts of each subtree on the
 * way up (a proxy sends FENCE once all of its ranks and children have
 * entered) and the head sends the union down (FENCE_DONE), after which
 * every get is answered locally.  Output lines, rank exits, aborts and PMI
 * errors go up to the head, which decides the job's end as it does on one
 * host and sends END down.
 *
 * Frames, all integers little-endian:
 *   u32 length of what follows | u8 type | payload
 * A payload is a sequence of u32 and strings; a string is u32 n and n
 * bytes, the last of which is NUL and none before it (so decoded strings
 * are C strings pointing into the frame).  The decoder checks every length
 * against the frame and every field against its range before anything is
 * used; a frame that fails ends the link (a proxy is a process of another
 * host: hostile until decoded).
 *
 * Down (parent -> child):
 *   SETUP       u32 version, u32 host (the child's host index), the job
 *               (tn_run_setup_t below, encoded by tn_run_proto_setup)
 *   FENCE_DONE  u32 npairs, npairs x (str key, str value)
 *   SIGNAL      u32 sig                 deliver to the ranks
 *   END         u32 sig, u32 grace_ms   the job ends: sig now, SIGKILL
 *                                       after grace_ms
 *   REPORT_ASK  (empty)                 send this host's hang report
 *   STDIN       bytes                   rank 0's stdin, towards its host;
 *                                       no bytes: end of file
 * Up (child -> parent):
 *   HELLO       u32 host, str hostname  the proxy runs
 *   OUT         u32 rank, u32 stream (1 stdout, 2 stderr), bytes (whole
 *               lines, already prefixed: time stamp, tag)
 *   FENCE_ENTER (empty)                 a rank of the subtree entered a
 *                                       fence (sent once per fence)
 *   FENCE       u32 nranks, u32 npairs, npairs x (str key, str value)
 *   EXIT        u32 rank, u32 pid, u32 how (CLD_*), u32 info, u32 flags
 *               (TN_RUN_EXIT_* bits)
 *   ABORT       u32 rank, u32 pid, u32 code (as int32), u32 internal
 *   PMIERR      u32 rank, u32 pid, str message
 *   LOG         str line               a message of the proxy, printed by
 *                                       the head as it is
 *   REPORT      str text               this host's hang report (whole
 *                                       lines, maybe none), one per ask
 *   STDIN_ACK   u32 n                   n bytes of STDIN were written to
 *                                       rank 0 (or dropped): the head
 *                                       keeps at most TN_RUN_STDIN_MAX
 *                                       bytes on their way */
#ifndef TN_RUN_PROTO_H
#define TN_RUN_PROTO_H

#include "run_util.h"

#include <stddef.h>
#include <stdint.h>

#define TN_RUN_PROTO_VERSION 1
/* Largest frame accepted (a fence carries the key-value space's puts). */
#define TN_RUN_FRAME_MAX     (256u << 20)
#define TN_RUN_FRAME_HDR     5

typedef enum {
    TN_RUN_F_SETUP = 1,
    TN_RUN_F_FENCE_DONE,
    TN_RUN_F_SIGNAL,
    TN_RUN_F_END,
    TN_RUN_F_REPORT_ASK,
    TN_RUN_F_STDIN,
    TN_RUN_F_HELLO = 16,
    TN_RUN_F_OUT,
    TN_RUN_F_FENCE_ENTER,
    TN_RUN_F_FENCE,
    TN_RUN_F_EXIT,
    TN_RUN_F_ABORT,
    TN_RUN_F_PMIERR,
    TN_RUN_F_LOG,
    TN_RUN_F_REPORT,
    TN_RUN_F_STDIN_ACK
} tn_run_ftype_t;

/* EXIT flags: the rank's PMI state when it exited. */
#define TN_RUN_EXIT_CONTACTED  1u
#define TN_RUN_EXIT_INITED     2u
#define TN_RUN_EXIT_FINALIZED  4u
#define TN_RUN_EXIT_IN_BARRIER 8u
#define TN_RUN_EXIT_LOST       16u   /* its host was lost: how/info unknown */

/* One block of an MPMD job ("-n 2 ./a : -n 3 ./b"). */
typedef struct {
    int          nranks;
    int          argc;
    char       **argv;      /* NULL-terminated */
    int          nenv;
    char       **env;       /* "NAME=VALUE": the ranks' whole base environment */
} tn_run_block_t;

/* What every proxy must know of the job. */
typedef struct {
    const char     *kvsname;
    int             nranks;
    int             nhosts;
    char          **hosts;      /* [nhosts] names as the user gave them */
    int            *host_of;    /* [nranks] */
    int             head_host;  /* the host whose ranks the head runs, or -1 */
    int             nblocks;
    tn_run_block_t *blocks;     /* rank r is in the block its index falls in */
    const char     *cwd;        /* "" for none */
    const char     *rsh;        /* remote shell command line */
    const char     *proxy;      /* path of tern-run on every host */
    int             tree_width;
    int             bind;       /* tn_run_bind_t */
    int             flags;      /* TN_RUN_SETUP_* */
    int             verbose;
    int             timeout_s;  /* informational: the head enforces it */
    uint64_t        kvs_keys, kvs_bytes, pmi_backlog;
} tn_run_setup_t;

#define TN_RUN_SETUP_TAG            1
#define TN_RUN_SETUP_TIMESTAMP      2
#define TN_RUN_SETUP_REPORT_BINDING 4
#define TN_RUN_SETUP_QUIET          8
#define TN_RUN_SETUP_FORK           16   /* children are forked, not rsh'd:
                                                every host is this machine,
                                                one node to the library (no
                                                TERN_HOST_ID, no memfd) */
#define TN_RUN_SETUP_SLURM          32   /* children are started by srun
                                                inside a Slurm allocation */
#define TN_RUN_SETUP_PTY            64   /* ranks' stdout on a pty (TERN_RUN_PTY) */

/* A decoded frame: pointers into the frame's bytes. */
typedef struct {
    tn_run_ftype_t type;
    uint32_t       u[5];        /* the leading integers, in order */
    const char    *str;         /* HELLO hostname, PMIERR message, LOG line */
    const char    *data;        /* OUT bytes; FENCE/FENCE_DONE pairs */
    size_t         len;         /* their length */
    uint32_t       npairs;      /* FENCE, FENCE_DONE */
} tn_run_frame_t;

/* Writers: append one whole frame to out. */
void tn_run_proto_u32s(tn_run_buf_t *out, tn_run_ftype_t type, int n, ...);
void tn_run_proto_str(tn_run_buf_t *out, tn_run_ftype_t type, int nu,
                      const uint32_t *u, const char *str);
void tn_run_proto_out(tn_run_buf_t *out, int rank, int stream,
                      const char *data, size_t len);
void tn_run_proto_stdin(tn_run_buf_t *out, const char *data, size_t len);
/* FENCE (nranks >= 0) or FENCE_DONE (nranks < 0) of npairs pairs already
 * encoded in pairs (tn_run_proto_pair). */
void tn_run_proto_fence(tn_run_buf_t *out, int nranks, uint32_t npairs,
                        const tn_run_buf_t *pairs);
void tn_run_proto_pair(tn_run_buf_t *pairs, const char *key, const char *value);
void tn_run_proto_setup(tn_run_buf_t *out, int host, const tn_run_setup_t *s);

/* The first whole frame in buf[0..len): returns its size (header
 * included) and decodes it into *f; 0 when more bytes are needed; -1 when
 * the bytes are not a valid frame (*why says what). */
long tn_run_proto_decode(const char *buf, size_t len, tn_run_frame_t *f,
                         const char **why);

/* Iterate over encoded pairs: *off starts at 0; returns 1 and the pair, or
 * 0 at the end.  The pairs of a decoded frame are known valid. */
int tn_run_proto_next_pair(const char *data, size_t len, size_t *off,
                           const char **key, const char **value);

/* Decode a SETUP frame's payload into *s (pointers into the frame; arrays
 * allocated, freed by tn_run_proto_setup_free).  Returns 0 or -1 with
 * *why set. */
int tn_run_proto_setup_decode(const tn_run_frame_t *f, tn_run_setup_t *s,
                              int *host_p, const char **why);
void tn_run_proto_setup_free(tn_run_setup_t *s);

/* The block that rank belongs to. */
int tn_run_setup_block_of(const tn_run_setup_t *s, int rank);

#endif
