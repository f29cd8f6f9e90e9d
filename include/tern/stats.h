/* The stats segment: where each rank publishes its counters for the
 * monitor (tern-monitor top, the node agent).  A format shared between the
 * library (the writer) and its readers; every value below is part of it.
 * docs/monitor.md describes it for users.
 *
 * One file per rank, made by the rank at MPI_Init when TERN_MONITOR is on:
 *   <dir>/tern-stats.<uid>.<job>.<world rank>
 * (<dir> is TERN_MONITOR_DIR, /dev/shm by default; <job> the job's name
 * from PMI with characters outside [A-Za-z0-9_.-] replaced by '_'), mode
 * 0600, created exclusively (a file already there is never reused), and
 * removed when the process exits unless TERN_MONITOR_LINGER is on (an agent
 * that collects the final values removes it then).
 *
 * Layout: the header at offset 0, then tables and regions at the offsets
 * the header gives, each 64-byte aligned:
 *   descriptors  desc_count entries of TERN_STATS_DESC_SIZE bytes: one per
 *                counter (name, class, unit, help, where its values are)
 *   axes         axis_count entries: the element names of array counters
 *                (rails, message classes, size buckets, MPI functions)
 *   strings      NUL-terminated texts the descriptors and axes point at
 *   process      this rank's counters
 *   peers        peer_count records of peer_rec_size bytes, one per world
 *                rank 0..peer_count-1: what this rank did with that peer
 *   nodes        node_count records of the same layout: what it did with
 *                the peers of each node whose world rank is past peer_count
 * The tables and strings are written once, before state becomes RUNNING
 * (release); only counters change afterwards.
 *
 * Writing.  Counters are the library's own: every counter has one writer
 * (the rank's progress, under its lock), bumped with plain stores, no
 * lock and no system call; readers see each 8-byte value whole, not all
 * values of one instant.  The current MPI call is published as in the
 * status slot (tern/status.h): in this segment at call_off when the
 * launcher gave the rank no status slot, otherwise only there.
 *
 * Trust.  The owner of a segment writes what it likes into it: a reader
 * copies it (pread, never a shared mapping a truncate could pull away),
 * checks every offset, count and name of the copy, follows nothing, and
 * prints only what it decoded. */
#ifndef TERN_STATS_H
#define TERN_STATS_H

#include <stdint.h>

#define TERN_STATS_MAGIC     0x4d53544eu   /* "NTSM" */
#define TERN_STATS_VERSION   1
#define TERN_STATS_HDR_SIZE  512
#define TERN_STATS_DESC_SIZE 64
#define TERN_STATS_AXIS_SIZE 32
#define TERN_STATS_ALIGN     64
#define TERN_STATS_NAME_MAX  40            /* bytes of a name, NUL included */
#define TERN_STATS_PREFIX    "tern-stats."

/* state: written by the rank */
enum {
    TERN_STATS_STARTING = 0,   /* tables not written yet */
    TERN_STATS_RUNNING  = 1,   /* between MPI_Init and MPI_Finalize */
    TERN_STATS_FINALIZED = 2,  /* MPI_Finalize returned; values are final */
    TERN_STATS_EXITED   = 3,   /* the process is exiting (a lingering file) */
};

/* classes of counters (the MPI_T classes) */
enum {
    TERN_STATS_COUNTER = 0,        /* only goes up */
    TERN_STATS_LEVEL,              /* a current value */
    TERN_STATS_HIGHWATERMARK,      /* the largest level seen */
    TERN_STATS_TIMER,              /* nanoseconds spent; only goes up */
};

/* where a counter's values are */
enum {
    TERN_STATS_PROCESS = 0,        /* offset from proc_off */
    TERN_STATS_PEER    = 1,        /* offset inside each peer and node record */
};

typedef struct {
    uint32_t magic;            /* TERN_STATS_MAGIC, written last (release) */
    uint16_t version;          /* TERN_STATS_VERSION */
    uint16_t hdr_size;         /* TERN_STATS_HDR_SIZE */
    uint32_t state;            /* TERN_STATS_STARTING... */
    uint32_t flags;            /* TERN_STATS_F_* */
    uint64_t size;             /* bytes of the whole segment */
    uint32_t desc_off, desc_count;
    uint32_t axis_off, axis_count;
    uint32_t str_off, str_size;
    uint32_t proc_off, proc_size;
    uint32_t peer_off, peer_count;
    uint32_t peer_rec_size, node_count;  /* node records follow the peers' */
    uint32_t call_off;         /* a tern_status_call_t line; 0: none here */
    uint32_t status_slot;      /* the launcher's slot when call_off is 0
                                * (UINT32_MAX: no call published) */
    int32_t  pid;
    int32_t  world_rank;
    int32_t  world_size;
    int32_t  local_rank;
    int32_t  local_size;
    int32_t  node_id;          /* index of this rank's node in the job */
    int32_t  nnodes;
    uint32_t uid;
    uint64_t pid_start;        /* start time of pid (field 22 of /proc/pid/stat):
                                * with pid, names the process despite pid reuse */
    uint64_t start_unix_ms;    /* CLOCK_REALTIME when the segment was made */
    uint64_t finalize_unix_ms; /* CLOCK_REALTIME at MPI_Finalize, else 0 */
    char     job[96];          /* the job's name (PMI kvsname), NUL-padded */
    char     host[64];         /* gethostname() */
    char     program[32];      /* the executable's name (comm) */
    char     version_str[32];  /* Tern's version */
    uint64_t calls_hash;       /* the table of published calls the call
                                * line's ids index (tern/status.h) */
    uint32_t ncalls;           /* its ids: 1..ncalls */
    /* call_off 0: the call line is in slot status_slot of the status
     * segment of process status_pid (the launcher or host proxy that
     * started the rank: the memfd named "tern-status" among its
     * descriptors, which same-user readers open through /proc); -1 when
     * unknown */
    int32_t  status_pid;
    int32_t  reserved;
    uint8_t  pad[512 - 380];
} tern_stats_hdr_t;

#define TERN_STATS_F_THREAD_MULTIPLE 1u  /* calls counts may lose updates of
                                          * concurrent threads */

typedef struct {
    char     name[TERN_STATS_NAME_MAX];  /* [a-z0-9_], NUL-terminated */
    uint32_t help;             /* offset in strings of its help text */
    uint32_t unit;             /* offset in strings of its unit ("bytes") */
    uint32_t offset;           /* of element 0 in its region, 8-aligned */
    uint16_t count;            /* elements (uint64_t each): 1 or its axis's */
    uint8_t  region;           /* TERN_STATS_PROCESS, TERN_STATS_PEER */
    uint8_t  cls;              /* TERN_STATS_COUNTER... */
    uint8_t  axis;             /* 0: a scalar; else index + 1 in the axes */
    uint8_t  pad[7];
} tern_stats_desc_t;

typedef struct {
    char     key[24];          /* the label key ("rail", "class,protocol") */
    uint32_t count;            /* elements */
    uint32_t names;            /* offset in strings of count consecutive
                                * NUL-terminated element names */
} tern_stats_axis_t;

_Static_assert(sizeof(tern_stats_hdr_t) == TERN_STATS_HDR_SIZE, "stats header");
_Static_assert(sizeof(tern_stats_desc_t) == TERN_STATS_DESC_SIZE, "stats descriptor");
_Static_assert(sizeof(tern_stats_axis_t) == TERN_STATS_AXIS_SIZE, "stats axis");

#endif
