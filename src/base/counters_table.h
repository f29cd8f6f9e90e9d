/* The one table of counters: every number TERN_STATS prints, every MPI_T
 * performance variable, and (later) the stats segment's self-describing
 * layout and the Prometheus names.  See docs/mpi_t.md.
 *
 * A set is one struct of uint64_t counters that a layer owns and bumps
 * with plain adds (no lock, no indirection); the struct types below are
 * generated from the set's table, so the table cannot drift from the code.
 *
 * S(ID, prefix, label, cat, kind, TABLE, type)
 *   ID      - TN_CTR_SET_<ID>
 *   prefix  - of the counters' names: "shm_" + field = "shm_am_sent"
 *   label   - how TERN_STATS names the set ("udp peer")
 *   cat     - its category (category_table.h)
 *   kind    - PROCESS: one struct per process; PEER: one per peer (world
 *             rank), NULL for a rank it has nothing with
 *   TABLE   - the X-macro of its counters
 *   type    - the struct generated from TABLE
 *
 * X(field, dim, class, unit, help)
 *   dim     - 1 (a scalar) or an axis of TN_CTR_AXES: an array with one
 *             element per rail, message class, size bucket, MPI function
 *   class   - COUNTER (only goes up), LEVEL (a current value),
 *             HIGHWATERMARK (the largest level seen), TIMER (nanoseconds
 *             spent; only goes up): the MPI_T classes
 *   unit    - what one step counts, in words ("datagrams", "ns") */
#ifndef TN_BASE_COUNTERS_TABLE_H
#define TN_BASE_COUNTERS_TABLE_H

#include <stdint.h>

/* rails a udp peer may have (TN_UDP_MAX_RAILS) */
#define TN_CTR_RAILS 4
/* message classes and the ways messages go (tn_ctr_path) */
#define TN_CTR_CLASSES 3        /* point-to-point, collective, one-sided */
#define TN_CTR_PROTOS 3         /* eager, rendezvous, direct */
#define TN_CTR_PATHS (TN_CTR_CLASSES * TN_CTR_PROTOS)
/* message-size buckets: 0 bytes, then up to 1, 2, 4 ... 2^31 bytes, then more */
#define TN_CTR_SIZES 34
/* MPI functions counted (the generated table's TN_MON_NCALLS fits) */
#define TN_CTR_CALLS 768

/* Axes of array counters: A(ID, key, elements).  Their element names are
 * in counters.c (CALLS: registered by the MPI layer). */
#define TN_CTR_AXES(A)                                                         \
    A(RAILS, "rail", TN_CTR_RAILS)                                             \
    A(CLASS, "class", TN_CTR_CLASSES)                                          \
    A(PATH, "class,protocol", TN_CTR_PATHS)                                    \
    A(SIZE, "le", TN_CTR_SIZES)                                                \
    A(CALLS, "function", TN_CTR_CALLS)

#define TN_CTR_SHM(X)                                                          \
    X(am_sent, 1, COUNTER, "messages", "Active messages sent through the rings") \
    X(am_recv, 1, COUNTER, "messages", "Active messages received from the rings") \
    X(bytes_sent, 1, COUNTER, "bytes", "Payload bytes sent through the rings") \
    X(ring_full, 1, COUNTER, "events", "Sends that found the receiver's ring full") \
    X(wakes, 1, COUNTER, "wake-ups", "Sleeping ranks this rank woke up")       \
    X(naps, 1, COUNTER, "naps", "Times this rank announced it would sleep")    \
    X(sleeps, 1, COUNTER, "sleeps", "Times this rank slept in the kernel")     \
    X(sleep_ns, 1, TIMER, "ns", "Time this rank slept in the kernel waiting for a peer") \
    X(cma_gets, 1, COUNTER, "reads", "Single-copy reads (process_vm_readv)")   \
    X(cma_bytes, 1, COUNTER, "bytes", "Bytes read by single copy")             \
    X(coop_recvs, 1, COUNTER, "messages", "Rendezvous received by a cooperative copy") \
    X(coop_chunks_written, 1, COUNTER, "chunks",                               \
      "Chunks this rank wrote for its receivers in cooperative copies")

#define TN_CTR_UDP(X)                                                          \
    X(direct_hits, 1, COUNTER, "datagrams", "Datagrams received straight into the user's buffer") \
    X(direct_bytes, 1, COUNTER, "bytes", "Bytes received straight into the user's buffer") \
    X(direct_misses, 1, COUNTER, "datagrams",                                  \
      "Direct receives predicted for one peer when another's datagram came")   \
    X(bad_packets, 1, COUNTER, "datagrams", "Dropped: malformed (length, type, ranges) or bad CRC") \
    X(foreign_packets, 1, COUNTER, "datagrams",                                \
      "Dropped: not for this rank from a peer (another job, version, stray traffic)") \
    X(bad_source, 1, COUNTER, "datagrams", "Dropped: not from one of the named peer's rails") \
    X(bad_conn, 1, COUNTER, "datagrams", "Dropped: another connection's id")   \
    X(bad_auth, 1, COUNTER, "datagrams", "Dropped: the authentication tag does not verify")

#define TN_CTR_UDP_SOCK(X)                                                     \
    X(sent, 1, COUNTER, "datagrams", "Datagrams sent on the rails' sockets")   \
    X(send_errors, 1, COUNTER, "datagrams", "Datagrams the kernel refused (full buffer, firewall)") \
    X(recv, 1, COUNTER, "datagrams", "Datagrams received")                     \
    X(recv_errors, 1, COUNTER, "calls", "Failed receive calls")                \
    X(fault_dropped, 1, COUNTER, "datagrams", "Fault injector: datagrams dropped") \
    X(fault_duplicated, 1, COUNTER, "datagrams", "Fault injector: datagrams sent twice") \
    X(fault_reordered, 1, COUNTER, "datagrams", "Fault injector: datagrams held back") \
    X(fault_corrupted, 1, COUNTER, "datagrams", "Fault injector: datagrams corrupted") \
    X(gso_sends, 1, COUNTER, "calls", "Segmentation-offload (GSO) sends")      \
    X(gso_datagrams, 1, COUNTER, "datagrams", "Datagrams in GSO sends")        \
    X(gro_recvs, 1, COUNTER, "calls", "Coalesced (GRO) receives")              \
    X(gro_datagrams, 1, COUNTER, "datagrams", "Datagrams in GRO receives")     \
    X(splice_sends, 1, COUNTER, "datagrams", "Zero-copy (splice) datagrams")   \
    X(splice_fallbacks, 1, COUNTER, "runs", "Zero-copy runs sent by copy instead")

#define TN_CTR_UDP_PEER(X)                                                     \
    X(data_sent, 1, COUNTER, "packets", "Data packets sent, retransmissions included") \
    X(data_bytes_sent, 1, COUNTER, "bytes", "Data bytes sent, retransmissions included") \
    X(retransmits, 1, COUNTER, "packets", "Data packets sent again")           \
    X(timeouts, 1, COUNTER, "events", "Retransmission timeouts")               \
    X(fast_retransmits, 1, COUNTER, "packets", "Packets declared lost from acks (fast retransmit)") \
    X(data_recv, 1, COUNTER, "packets", "Data packets received and delivered") \
    X(data_bytes_recv, 1, COUNTER, "bytes", "Data bytes received and delivered") \
    X(duplicates, 1, COUNTER, "packets", "Duplicate packets received")         \
    X(out_of_order, 1, COUNTER, "packets", "Packets received out of order")    \
    X(stale, 1, COUNTER, "packets", "Packets older than the window")           \
    X(acks_sent, 1, COUNTER, "packets", "Acknowledgements sent")               \
    X(acks_recv, 1, COUNTER, "packets", "Acknowledgements received")           \
    X(credit_stalls, 1, COUNTER, "events", "Sends held back by the peer's receive window") \
    X(cwnd_stalls, 1, COUNTER, "events", "Sends held back by the congestion window") \
    X(srtt_ns, 1, LEVEL, "ns", "Smoothed round-trip time")                     \
    X(rttvar_ns, 1, LEVEL, "ns", "Round-trip time variation")                  \
    X(rto_ns, 1, LEVEL, "ns", "Retransmission timeout")                        \
    X(cwnd, 1, LEVEL, "packets", "Congestion window")                          \
    X(min_rtt_ns, 1, LEVEL, "ns", "Smallest round-trip time seen")             \
    X(cc_episodes, 1, COUNTER, "events", "Congestion episodes (a loss or a timeout)") \
    X(cc_undone, 1, COUNTER, "events", "Timeouts found premature and undone")  \
    X(probes, 1, COUNTER, "events", "Tail-loss probes")                        \
    X(late_acks, 1, COUNTER, "packets", "Packets from the peer flagged late")  \
    X(rail_sent, RAILS, COUNTER, "packets", "Packets sent on each rail")       \
    X(rail_lost, RAILS, COUNTER, "packets", "Packets lost on each rail")       \
    X(rails_down, 1, COUNTER, "events", "Rails taken out of use (reported or found dead)") \
    X(bad_acks, 1, COUNTER, "packets", "Packets whose ack covered what was never sent")

#define TN_CTR_P2P(X)                                                          \
    X(proto_errors, 1, COUNTER, "messages", "Malformed active messages (the job ends at the first)") \
    X(unexpected, 1, COUNTER, "messages", "Messages that arrived before their receive was posted") \
    X(unexp_depth, 1, LEVEL, "messages", "Messages waiting in the unexpected queues") \
    X(unexp_max, 1, HIGHWATERMARK, "messages", "Most messages ever waiting in the unexpected queues") \
    X(posted_depth, 1, LEVEL, "receives", "Receives posted and not yet matched") \
    X(posted_max, 1, HIGHWATERMARK, "receives", "Most receives ever posted and not yet matched") \
    X(sends_depth, 1, LEVEL, "messages", "Sends started and not yet complete") \
    X(sends_max, 1, HIGHWATERMARK, "messages", "Most sends ever started and not yet complete")

/* What this rank sent, counted where a message is started (collective
 * algorithms' messages as collective ones; one-sided operations at the
 * origin, the data of gets included). */
#define TN_CTR_MSG(X)                                                          \
    X(msgs_sent, PATH, COUNTER, "messages", "Messages sent, by class and protocol") \
    X(bytes_sent, PATH, COUNTER, "bytes", "Payload bytes sent, by class and protocol") \
    X(size_hist, SIZE, COUNTER, "messages",                                    \
      "Messages sent, by size (each bucket: sizes above the previous bound up to its own)") \
    X(calls, CALLS, COUNTER, "calls", "MPI calls made, by function")

/* The communication matrix: what this rank sent to each peer, and what it
 * took from the peer's buffers in shared-memory collectives (data the
 * peer sent, which only the reader can count). */
#define TN_CTR_PEER_MSG(X)                                                     \
    X(msgs, CLASS, COUNTER, "messages", "Messages sent to the peer, by class") \
    X(bytes, CLASS, COUNTER, "bytes", "Payload bytes sent to the peer, by class") \
    X(coll_took, 1, COUNTER, "blocks",                                         \
      "Collective data this rank read from the peer's shared-memory buffer (sent by the peer, counted here)") \
    X(coll_took_bytes, 1, COUNTER, "bytes",                                    \
      "Bytes of collective data this rank read from the peer's shared-memory buffer")

#define TN_CTR_SETS(S)                                                         \
    S(SHM, "shm_", "shm", SHM, PROCESS, TN_CTR_SHM, tn_shm_stats_t)            \
    S(UDP, "udp_", "udp", UDP, PROCESS, TN_CTR_UDP, tn_udp_stats_t)            \
    S(UDP_SOCK, "udp_sock_", "udp sockets", UDP, PROCESS, TN_CTR_UDP_SOCK, tn_udp_sock_stats_t) \
    S(UDP_PEER, "udp_peer_", "udp peer", UDP, PEER, TN_CTR_UDP_PEER, tn_udp_conn_stats_t) \
    S(P2P, "p2p_", "p2p", P2P, PROCESS, TN_CTR_P2P, tn_p2p_stats_t)               \
    S(MSG, "mpi_", "mpi", P2P, PROCESS, TN_CTR_MSG, tn_msg_stats_t)                \
    S(PEER_MSG, "peer_", "peer", P2P, PEER, TN_CTR_PEER_MSG, tn_peer_msg_stats_t)

/* ---- generated ---------------------------------------------------------- */
typedef enum {
    TN_CTR_AXIS_1 = 0,          /* a scalar */
#define TN_CTR_AXIS_ENUM(id, key, n) TN_CTR_AXIS_##id,
    TN_CTR_AXES(TN_CTR_AXIS_ENUM)
#undef TN_CTR_AXIS_ENUM
    TN_CTR_AXIS_COUNT_
} tn_ctr_axis_t;

#define TN_CTR_DIM_1
#define TN_CTR_N_1 1
#define TN_CTR_AXIS_DIMS(id, key, n_)                                          \
    enum { TN_CTR_N_##id = (n_) };
TN_CTR_AXES(TN_CTR_AXIS_DIMS)
#undef TN_CTR_AXIS_DIMS
#define TN_CTR_DIM_RAILS [TN_CTR_RAILS]
#define TN_CTR_DIM_CLASS [TN_CTR_CLASSES]
#define TN_CTR_DIM_PATH [TN_CTR_PATHS]
#define TN_CTR_DIM_SIZE [TN_CTR_SIZES]
#define TN_CTR_DIM_CALLS [TN_CTR_CALLS]

#define TN_CTR_DECL(field, dim, cls, unit, help) uint64_t field TN_CTR_DIM_##dim;
#define TN_CTR_STRUCT(id, prefix, label, cat, kind, TABLE, type) \
    typedef struct { TABLE(TN_CTR_DECL) } type;
TN_CTR_SETS(TN_CTR_STRUCT)
#undef TN_CTR_STRUCT
#undef TN_CTR_DECL

typedef enum {
#define TN_CTR_SET_ENUM(id, prefix, label, cat, kind, TABLE, type) TN_CTR_SET_##id,
    TN_CTR_SETS(TN_CTR_SET_ENUM)
#undef TN_CTR_SET_ENUM
    TN_CTR_SET_COUNT_
} tn_ctr_set_t;

#endif
