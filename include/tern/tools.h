/* Tern's tools interface: what tern-info and other tools read from the
 * library without going through MPI.  Stable within a major version. */
#ifndef TERN_TOOLS_H
#define TERN_TOOLS_H

#ifdef __cplusplus
extern "C" {
#endif

/* "0.1.0" */
const char *tern_tools_version(void);
/* Comma-separated list of the transports built in ("self,shm,udp"). */
const char *tern_tools_transports(void);

/* Configuration variables (TERN_*), after reading the environment. */
int tern_tools_config_count(void);
/* Describe variable i: name, default and help (static strings), and its
 * current value formatted into value[len].  Returns 0, or -1 if i is out of
 * range.  *is_set tells whether the environment set it. */
int tern_tools_config_get(int i, const char **name, const char **type, const char **def,
                          const char **help, char *value, int len, int *is_set);
/* The values variable i accepts: "lo..hi" (inclusive; an end may be
 * missing), "a|b|c", or "" for any value of its type; NULL for a bad i. */
const char *tern_tools_config_valid(int i);
/* Where variable i sits in MPI_T (docs/mpi_t.md): its category ("udp",
 * "coll", ...) and its control variable's scope: "readonly" (read at
 * MPI_Init or by tern-run), "local" or "all_eq" (writable while the job
 * runs; all_eq: every process must write the same value).  Static
 * strings; returns 0, or -1 for a bad i. */
int tern_tools_config_mpit(int i, const char **category, const char **scope);

/* Counters (what TERN_STATS prints and MPI_T shows as performance
 * variables, in the same order; docs/mpi_t.md): name, class ("counter",
 * "level", "highwatermark", "timer"), unit, help, category, whether there
 * is one instance per peer, and elements per instance.  Returns 0, or -1
 * for a bad i. */
int tern_tools_counter_count(void);
int tern_tools_counter_get(int i, const char **name, const char **cls, const char **unit,
                           const char **help, const char **category, int *per_peer, int *n);
/* Events (MPI_T events, same order): name, category, help; 0 or -1. */
int tern_tools_event_count(void);
int tern_tools_event_get(int i, const char **name, const char **category, const char **help);
/* MPI functions of the standard ABI that are not implemented yet. */
int tern_tools_function_count(void);
int tern_tools_unsupported_count(void);
const char *tern_tools_unsupported_name(int i);

/* Counters of the udp transport, readable while the job runs (what
 * TERN_STATS=1 prints at finalize; docs/transports/udp.md).  Call them
 * between MPI_Init and MPI_Finalize, from any thread. */
typedef struct {
    unsigned long long datagrams_sent, datagrams_recv;
    unsigned long long send_errors;     /* refused by the kernel (full buffer, firewall) */
    unsigned long long bad;             /* dropped: malformed (length, type, ranges) or bad CRC */
    unsigned long long foreign;         /* dropped: not for this rank from a peer (another
                                         * job's, another version, stray traffic) */
    unsigned long long gso_sends, gso_datagrams, gro_recvs, gro_datagrams;
    unsigned long long splice_sends;    /* zero-copy datagrams */
    unsigned long long direct_datagrams, direct_bytes;  /* received in place */
    unsigned long long fault_dropped, fault_duplicated, fault_reordered, fault_corrupted;
    /* dropped before anything else was looked at (docs/security.md): */
    unsigned long long bad_source;      /* not from one of the named peer's rails */
    unsigned long long bad_conn;        /* another connection's id */
    unsigned long long bad_auth;        /* the authentication tag does not verify */
} tern_udp_stats_t;

#define TERN_UDP_MAX_RAILS 4

/* Towards one peer (world rank). */
typedef struct {
    unsigned long long data_sent, data_bytes_sent, data_recv, data_bytes_recv;
    unsigned long long retransmits, timeouts, fast_retransmits;
    unsigned long long duplicates, out_of_order, stale;
    unsigned long long acks_sent, acks_recv, credit_stalls, cwnd_stalls;
    unsigned long long cc_episodes, tail_probes, late_acks, rails_down;
    unsigned long long cwnd;            /* congestion window, packets */
    double             srtt_us, rttvar_us, rto_us, min_rtt_us;
    int                nrails;
    unsigned long long rail_sent[TERN_UDP_MAX_RAILS], rail_lost[TERN_UDP_MAX_RAILS];
    unsigned long long bad_acks;        /* packets whose ack covered what was never sent */
} tern_udp_peer_stats_t;

/* The process's udp counters: 0, or -1 when the udp transport is not in
 * use (no peer served by it, or outside MPI_Init..MPI_Finalize). */
int tern_tools_udp_stats(tern_udp_stats_t *out);
/* Counters towards world_rank: 0, or -1 when no udp connection to that
 * rank exists (udp not in use, not a udp peer, nothing exchanged yet). */
int tern_tools_udp_peer_stats(int world_rank, tern_udp_peer_stats_t *out);

#ifdef __cplusplus
}
#endif

#endif
