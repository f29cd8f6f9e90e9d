/* The connection configuration the udp tests and the udp fuzz harness
 * start from: a small window and queue, timers in microseconds, one rail,
 * no secret (ids from an all-zero one; tn_udp_auth_derive). */
#ifndef TERN_TESTS_UDP_CONN_CFG_H
#define TERN_TESTS_UDP_CONN_CFG_H

#include "xport/udp/udp_conn.h"

static inline tn_udp_conn_cfg_t tn_test_conn_cfg(uint32_t packet_size, const uint8_t *secret,
                                                 int auth)
{
    const uint64_t us = 1000ull, ms = 1000000ull;
    return (tn_udp_conn_cfg_t){
        .packet_size = packet_size,
        .window = 64,
        .sendq_max = 64,
        .ack_every = 8,
        .ack_delay_ns = 20 * us,
        .rto_init_ns = 2 * ms,
        .rto_min_ns = 200 * us,
        .rto_max_ns = 50 * ms,
        .dupthresh = 3,
        .cwnd_init = 16,
        .cwnd_min = 2,
        .cwnd_max = 64,
        .peer_timeout_ns = 100 * ms,
        .nrails = 1,
        .secret = secret,
        .auth = auth,
    };
}

#endif
