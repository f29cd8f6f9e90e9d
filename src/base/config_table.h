/* The one declarative configuration table: every TERN_* variable.
 *
 * X(field, NAME, TYPE, default, valid, cat, verb, access, help)
 *   field   - member of tn_config_t (tn_cfg.field)
 *   NAME    - read from the environment variable TERN_<NAME>
 *   TYPE    - BOOL (0/1/yes/no/on/off/true/false), INT, SIZE (accepts k/m/g
 *             suffixes, powers of 1024), DOUBLE, STRING
 *   default - default as a string, parsed like a user value
 *   valid   - the values accepted: "lo..hi" for INT, SIZE and DOUBLE
 *             (inclusive, in the type's syntax, either end may be left
 *             out), "a|b|c" for a STRING with fixed choices, "" for
 *             anything that parses.  A value that does not parse or is not
 *             valid is warned about and the default is kept.
 *   cat     - the layer it belongs to (category_table.h): its MPI_T category
 *   verb    - who it is for: USER, TUNER (performance tuning) or DEV
 *             (developers, fault injection); the MPI_T verbosity
 *   access  - when it is read: INIT (once, at MPI_Init, or by tern-run:
 *             MPI_T scope READONLY), LAUNCH (set by tern-run for the ranks:
 *             READONLY), LOCAL (read while the job runs, so an MPI_T write
 *             takes effect for what starts after it, in this process only:
 *             scope LOCAL), ALL_EQ (the same, but every process must hold
 *             the same value, e.g. a collective algorithm: scope ALL_EQ)
 *   help    - one line shown by tern-info and docs/config.md
 *
 * Nothing in Tern calls getenv() for TERN_* variables except the loader of
 * this table; unknown TERN_* variables are warned about at MPI_Init. */
#ifndef TN_BASE_CONFIG_TABLE_H
#define TN_BASE_CONFIG_TABLE_H

#define TN_CONFIG_TABLE(X)                                                     \
    X(log_level, LOG_LEVEL, STRING, "warn", "error|warn|info|debug|trace|data", BASE, USER, LOCAL, \
      "Log verbosity: error, warn, info, debug, trace, data")                  \
    X(log_subsys, LOG_SUBSYS, STRING, "all", "", BASE, USER, LOCAL,            \
      "Comma-separated subsystems to log (base,rt,shm,self,p2p,coll,mpi) or all") \
    X(backtrace, BACKTRACE, BOOL, "1", "", BASE, USER, INIT,                   \
      "Print a backtrace when a rank dies of a fatal signal")                  \
    X(stats, STATS, BOOL, "0", "", BASE, USER, LOCAL,                          \
      "Print per-transport counters at MPI_Finalize")                          \
    X(xport, XPORT, STRING, "auto", "auto|shm|udp", RUNTIME, USER, INIT,       \
      "Transport for other ranks: auto (shm on the node, udp across nodes), shm, udp (all peers)") \
    X(wait, WAIT, STRING, "auto", "auto|spin|yield|block", RUNTIME, USER, INIT, \
      "How to wait: spin, yield, block, or auto (spin, then yield, then block)") \
    X(wait_spin, WAIT_SPIN, INT, "4000", "0..1000000000", RUNTIME, TUNER, INIT, \
      "Polls before a waiting rank starts yielding (auto mode, cores >= ranks)") \
    X(wait_yield, WAIT_YIELD, INT, "200", "0..1000000000", RUNTIME, TUNER, INIT, \
      "Yields before a waiting rank blocks in the kernel (auto mode)")         \
    X(async_progress, ASYNC_PROGRESS, BOOL, "0", "", RUNTIME, USER, INIT,      \
      "Run a progress thread per process from MPI_Init to MPI_Finalize, so that passive-target " \
      "one-sided operations and rendezvous complete while the application computes outside MPI; " \
      "it sleeps in the kernel when there is nothing to do (takes the runtime lock: calls cost more)") \
    X(shm_cells, SHM_CELLS, INT, "64", "2..65536", SHM, TUNER, INIT,           \
      "Cells in each per-pair shared-memory ring (power of two)")              \
    X(shm_cell_size, SHM_CELL_SIZE, SIZE, "8k", "256..1m", SHM, TUNER, INIT,   \
      "Bytes per shared-memory cell, header included (power of two, >= 256)")  \
    X(shm_tiny_threshold, SHM_TINY_THRESHOLD, SIZE, "0", "0..64k", SHM, TUNER, INIT, \
      "Largest message sent inline in the header cache line (0 = all that fit)") \
    X(shm_eager_threshold, SHM_EAGER_THRESHOLD, SIZE, "16k", "0..1g", SHM, TUNER, INIT, \
      "Largest message sent eagerly through cells; larger ones use rendezvous") \
    X(shm_coll_slots, SHM_COLL_SLOTS, INT, "16", "0..64", SHM, TUNER, INIT,    \
      "Collective slots in the node's segment: communicators on one node that run their " \
      "small collectives through shared memory at once (0 = none)")            \
    X(shm_coll_bytes, SHM_COLL_BYTES, SIZE, "8k", "0..16m", SHM, TUNER, INIT,  \
      "Data bytes per rank in a collective slot (4 buffers each); larger collectives " \
      "go through point-to-point messages")                                    \
    X(shm_cma, SHM_CMA, BOOL, "1", "", SHM, TUNER, INIT,                       \
      "Use single-copy process_vm_readv (CMA) for rendezvous when permitted")  \
    X(shm_fd, SHM_FD, INT, "-1", "-1..1048576", SHM, DEV, LAUNCH,              \
      "Set by tern-run, not by users: descriptor of the node's shared segment (a memfd) that the ranks inherit") \
    X(host_id, HOST_ID, INT, "-1", "-1..16777216", RUNTIME, DEV, LAUNCH,       \
      "Set by tern-run, not by users: the host's index in a multi-host job, part of the node's identity") \
    X(status, STATUS, BOOL, "1", "", RUNTIME, USER, INIT,                      \
      "Publish the MPI call this rank is in (and, when asked, its pending requests) to the " \
      "launcher for hang reports (tern-run --status, SIGUSR1, --timeout); a few stores per call") \
    X(status_fd, STATUS_FD, INT, "-1", "-1..1048576", RUNTIME, DEV, LAUNCH,    \
      "Set by tern-run, not by users: descriptor of the host's status segment (a memfd) that the ranks inherit") \
    X(status_slot, STATUS_SLOT, INT, "-1", "-1..1048576", RUNTIME, DEV, LAUNCH, \
      "Set by tern-run, not by users: this rank's slot in the status segment") \
    X(monitor, MONITOR, BOOL, "0", "", RUNTIME, USER, INIT,                    \
      "Publish this rank's counters, communication matrix and current MPI call in a stats " \
      "segment for tern-monitor (docs/monitor.md); plain stores, no system call per message") \
    X(monitor_dir, MONITOR_DIR, STRING, "/dev/shm", "", RUNTIME, USER, INIT,  \
      "Directory of the stats segments (a tmpfs; the node agent reads it)")     \
    X(monitor_peers, MONITOR_PEERS, INT, "1024", "0..65536", RUNTIME, USER, INIT, \
      "Peers (world ranks from 0) with their own record in the stats segment; the others " \
      "are counted per node")                                                  \
    X(monitor_server, MONITOR_SERVER, STRING, "", "", RUNTIME, USER, LAUNCH,   \
      "tern-run --monitor=HOST:PORT sets it: the server its node agents send to (ranks ignore it)") \
    X(monitor_token_file, MONITOR_TOKEN_FILE, STRING, "", "", RUNTIME, USER, LAUNCH, \
      "File with the token tern-run's node agents present to the server (ranks ignore it)") \
    X(trace, TRACE, STRING, "", "", RUNTIME, USER, INIT,                       \
      "Record this rank's MPI calls in DIR/<job>.<rank>.ttr for tern-trace and tern-sim " \
      "(docs/trace.md); empty: off, and the entry points cost one untaken branch") \
    X(trace_buffer, TRACE_BUFFER, SIZE, "256k", "4k..1g", RUNTIME, USER, INIT, \
      "Bytes of trace records a rank buffers before writing them to its file (small enough " \
      "to stay in the core's cache beside the job's own data)") \
    X(trace_events, TRACE_EVENTS, BOOL, "1", "", RUNTIME, USER, INIT,          \
      "Record the transport's events (retransmission bursts, rails down and up, dead peers) " \
      "in the MPI call during which they happen") \
    X(trace_tsc, TRACE_TSC, BOOL, "1", "", RUNTIME, USER, INIT,                \
      "Stamp trace records with the CPU's invariant time-stamp counter where it has one " \
      "(less than half the cost of the system clock); 0: CLOCK_MONOTONIC") \
    X(monitor_linger, MONITOR_LINGER, BOOL, "0", "", RUNTIME, USER, INIT,      \
      "Leave the stats segment at exit for the node agent to collect and remove " \
      "(tern-run --monitor sets it)")                                          \
    X(rndv_scatter_min, RNDV_SCATTER_MIN, SIZE, "0", "0..", P2P, TUNER, INIT,  \
      "Rendezvous into a non-contiguous receive: smallest mean piece read in place by CMA " \
      "(iovecs); smaller pieces are streamed through cells (0 = 64k, 256 if ranks > cores)") \
    X(rndv_cma_min, RNDV_CMA_MIN, SIZE, "0", "0..", P2P, TUNER, INIT,          \
      "Smallest rendezvous read in place by CMA; smaller ones are streamed through cells, " \
      "so the sender need not wait for the receiver to be scheduled (0 = none, 1m if ranks > cores)") \
    X(rndv_coop_min, RNDV_COOP_MIN, SIZE, "128k", "0..", P2P, TUNER, INIT,     \
      "Smallest rendezvous that receiver and sender copy together (the receiver reads chunks " \
      "in place while the sender writes others) when ranks <= cores; 0 = never") \
    X(self_eager_threshold, SELF_EAGER_THRESHOLD, SIZE, "64k", "0..1g", SELF, TUNER, INIT, \
      "Largest send-to-self buffered eagerly; larger ones wait for the receive") \
    X(udp_packet_size, UDP_PACKET_SIZE, SIZE, "32k", "1k..32k", UDP, TUNER, INIT, \
      "udp: largest datagram, 1k..32k, clamped to the path MTU")               \
    X(udp_window, UDP_WINDOW, INT, "4096", "16..16777216", UDP, TUNER, INIT,   \
      "udp: receive window (credits) per peer, in packets (at most what 2 x TERN_UDP_SOCKBUF holds)") \
    X(udp_eager_threshold, UDP_EAGER_THRESHOLD, SIZE, "64k", "0..1g", UDP, TUNER, INIT, \
      "udp: largest message sent eagerly; larger ones use rendezvous")         \
    X(udp_rails, UDP_RAILS, STRING, "auto", "", UDP, USER, INIT,               \
      "udp: comma-separated local IPv4 addresses or interface names to use as rails, or auto " \
      "(interfaces whose addresses no other node has and that share a subnet or route with a peer's)") \
    X(udp_port_min, UDP_PORT_MIN, INT, "0", "0..65535", UDP, TUNER, INIT,      \
      "udp: lowest port of the range the rails' sockets bind in (0: ephemeral ports; set with TERN_UDP_PORT_MAX)") \
    X(udp_port_max, UDP_PORT_MAX, INT, "0", "0..65535", UDP, TUNER, INIT,      \
      "udp: highest port of that range (at least the ranks per node; 0 with TERN_UDP_PORT_MIN=0)") \
    X(udp_auth, UDP_AUTH, STRING, "auth", "", UDP, USER, INIT,                 \
      "udp: datagram authentication: auth (a tag over every header, which holds the payload's CRC), aead (the tag covers the payload too), encrypt (aead, payload encrypted), off (trusted fabrics only; ids still secret-derived)") \
    X(udp_rto_min, UDP_RTO_MIN, INT, "200", "1..60000000", UDP, TUNER, INIT,   \
      "udp: smallest retransmission timeout, microseconds")                    \
    X(udp_rto_max, UDP_RTO_MAX, INT, "200000", "1..60000000", UDP, TUNER, INIT, \
      "udp: largest retransmission timeout, microseconds")                     \
    X(udp_probes, UDP_PROBES, INT, "2", "0..64", UDP, TUNER, INIT,             \
      "udp: tail-loss probes (the oldest packets resent, the window kept) before a retransmission timeout; 0: none") \
    X(udp_rto_init, UDP_RTO_INIT, INT, "2000", "1..60000000", UDP, TUNER, INIT, \
      "udp: retransmission timeout before the first RTT sample, microseconds") \
    X(udp_ack_delay, UDP_ACK_DELAY, INT, "50", "0..1000000", UDP, TUNER, INIT, \
      "udp: longest delay of a pure acknowledgement, microseconds")            \
    X(udp_ack_bytes, UDP_ACK_BYTES, SIZE, "128k", "1k..1g", UDP, TUNER, INIT,  \
      "udp: a receiver acknowledges after this many bytes of datagrams (at least 16 packets) or TERN_UDP_ACK_DELAY, whichever comes first") \
    X(udp_peer_timeout, UDP_PEER_TIMEOUT, DOUBLE, "30", "0..86400", UDP, USER, INIT, \
      "udp: seconds without a sign of life from a peer with data pending before the job ends") \
    X(udp_sockbuf, UDP_SOCKBUF, SIZE, "4m", "64k..1g", UDP, TUNER, INIT,       \
      "udp: socket send and receive buffer size")                              \
    X(udp_batch, UDP_BATCH, INT, "32", "1..32", UDP, TUNER, INIT,              \
      "udp: datagrams per recvmmsg call, and at least per send batch")         \
    X(udp_connect, UDP_CONNECT, INT, "64", "0..1000000", UDP, TUNER, INIT,     \
      "udp: peers per rail that get a connected send socket (saves a route lookup per send; 0: none)") \
    X(udp_send_ref, UDP_SEND_REF, BOOL, "1", "", UDP, TUNER, INIT,             \
      "udp: rendezvous data leaves from the user's buffer (checksummed in place, held until acked) instead of a copy") \
    X(udp_direct, UDP_DIRECT, BOOL, "1", "", UDP, TUNER, INIT,                 \
      "udp: rendezvous data is received straight into the user's buffer (contiguous receives) instead of through a receive buffer") \
    X(udp_gso, UDP_GSO, BOOL, "1", "", UDP, TUNER, INIT,                       \
      "udp: send runs of equal-sized datagrams as one UDP GSO send and take coalesced ones with UDP GRO") \
    X(udp_splice, UDP_SPLICE, SIZE, "20k", "0..", UDP, TUNER, INIT,            \
      "udp: smallest payload sent zero-copy (vmsplice + splice: the kernel reads it in place, no copy into socket buffers); 0 = never") \
    X(udp_fault_drop, UDP_FAULT_DROP, DOUBLE, "0", "0..100", UDP, DEV, INIT,   \
      "udp fault injector: percent of outgoing datagrams dropped")             \
    X(udp_fault_dup, UDP_FAULT_DUP, DOUBLE, "0", "0..100", UDP, DEV, INIT,     \
      "udp fault injector: percent of outgoing datagrams sent twice")          \
    X(udp_fault_reorder, UDP_FAULT_REORDER, DOUBLE, "0", "0..100", UDP, DEV, INIT, \
      "udp fault injector: percent of outgoing datagrams held back behind the next one") \
    X(udp_fault_corrupt, UDP_FAULT_CORRUPT, DOUBLE, "0", "0..100", UDP, DEV, INIT, \
      "udp fault injector: percent of outgoing datagrams with one byte flipped") \
    X(udp_fault_seed, UDP_FAULT_SEED, INT, "1", "", UDP, DEV, INIT,            \
      "udp fault injector: random seed (combined with the rank)")              \
    X(run_timeout, RUN_TIMEOUT, INT, "0", "0..", RUN, USER, INIT,              \
      "tern-run: end the job after this many seconds (0 = no limit)")          \
    X(run_kvs_keys, RUN_KVS_KEYS, INT, "65536", "1..", RUN, TUNER, INIT,       \
      "tern-run: most keys the ranks of a job may put in the PMI key-value space") \
    X(run_kvs_bytes, RUN_KVS_BYTES, SIZE, "64m", "1k..", RUN, TUNER, INIT,     \
      "tern-run: most bytes of keys and values in a job's PMI key-value space") \
    X(run_pmi_backlog, RUN_PMI_BACKLOG, SIZE, "1m", "1k..", RUN, TUNER, INIT,  \
      "tern-run: most bytes of PMI replies that may wait for a rank that does not read them") \
    X(run_rsh, RUN_RSH, STRING, "ssh", "", RUN, USER, INIT,                    \
      "tern-run: remote shell that starts proxies on other hosts (a command line; host and command are appended)") \
    X(run_tree_width, RUN_TREE_WIDTH, INT, "32", "1..4096", RUN, TUNER, INIT,  \
      "tern-run: proxies that tern-run and each proxy start (the fan-out of the launch tree)") \
    X(run_pty, RUN_PTY, BOOL, "1", "", RUN, TUNER, INIT,                       \
      "tern-run: give each rank's stdout a pseudo-terminal, so that C stdio line-buffers it and no line is lost when a rank dies (0: a pipe)") \
    X(pmi, PMI, STRING, "auto", "auto|pmi1|pmi2|pmix", RUNTIME, USER, INIT,    \
      "Process-manager interface: auto (PMIx when PMIX_NAMESPACE and PMIX_RANK are set, else PMI-2 " \
      "on PMI_FD when the server accepts it, else PMI-1), pmi1, pmi2, pmix (needs libpmix at build time)") \
    X(pmi_timeout, PMI_TIMEOUT, DOUBLE, "60", "0..", RUNTIME, USER, INIT,      \
      "Seconds a rank waits for the PMI server to answer a request before it gives up (0 = no limit)") \
    X(pmi_fence_timeout, PMI_FENCE_TIMEOUT, DOUBLE, "0", "0..", RUNTIME, TUNER, INIT, \
      "Seconds a rank waits in a PMI fence for the other ranks before it gives up (0 = no limit)") \
    X(coll_barrier, COLL_BARRIER, STRING, "auto", "", COLL, TUNER, ALL_EQ,     \
      "Barrier algorithm: auto, dissemination, flat, twolevel, shm")           \
    X(coll_bcast, COLL_BCAST, STRING, "auto", "", COLL, TUNER, ALL_EQ,         \
      "Bcast algorithm: auto, binomial, scatter_allgather, pipeline, "         \
      "twolevel, shm")                                                         \
    X(coll_reduce, COLL_REDUCE, STRING, "auto", "", COLL, TUNER, ALL_EQ,       \
      "Reduce algorithm: auto, binomial, rabenseifner, twolevel, shm")         \
    X(coll_allreduce, COLL_ALLREDUCE, STRING, "auto", "", COLL, TUNER, ALL_EQ, \
      "Allreduce algorithm: auto, recdbl, reduce_bcast, rabenseifner, ring, "  \
      "twolevel, shm")                                                         \
    X(coll_gather, COLL_GATHER, STRING, "auto", "", COLL, TUNER, ALL_EQ,       \
      "Gather(v) algorithm: auto, binomial, linear, twolevel, shm")            \
    X(coll_scatter, COLL_SCATTER, STRING, "auto", "", COLL, TUNER, ALL_EQ,     \
      "Scatter(v) algorithm: auto, binomial, linear, twolevel, shm")           \
    X(coll_allgather, COLL_ALLGATHER, STRING, "auto", "", COLL, TUNER, ALL_EQ, \
      "Allgather(v) algorithm: auto, ring, recdbl, bruck, twolevel, shm")      \
    X(coll_alltoall, COLL_ALLTOALL, STRING, "auto", "", COLL, TUNER, ALL_EQ,   \
      "Alltoall(v/w) algorithm: auto, pairwise, bruck, scattered, twolevel, shm") \
    X(coll_reduce_scatter, COLL_REDUCE_SCATTER, STRING, "auto", "", COLL, TUNER, ALL_EQ, \
      "Reduce_scatter(_block) algorithm: auto, rechalving, pairwise, "         \
      "twolevel, shm")                                                         \
    X(coll_scan, COLL_SCAN, STRING, "auto", "", COLL, TUNER, ALL_EQ,           \
      "Scan/Exscan algorithm: auto, recdbl, linear")

#endif
