/* Keys and datagram authentication of the udp transport (sans I/O).
 *
 * Design note.  Every job has a secret of TN_UDP_SECRET_BYTES random bytes
 * (udp.c: rank 0 draws it from the kernel's random source and publishes it
 * through the job's PMI key/value space, which only the job's own processes
 * reach; it never appears in argv, the environment, file or socket names,
 * or logs).  From it each direction of each connection (src -> dst) derives
 * with a KDF (libsodium's crypto_kdf, BLAKE2b):
 *   - its key (32 bytes),
 *   - its connection id (32 bits, in every header: a datagram whose id is
 *     not the expected one is dropped before anything else is looked at),
 *   - its first packet number (1 + 40 random bits),
 * so that none of them can be guessed by someone without the secret.
 *
 * Modes (TERN_UDP_AUTH):
 *   auth (default): a 16-byte tag over the whole header and its SACK ranges
 *       (AES-256-GCM with no plaintext, i.e. GMAC, where the CPU has AES
 *       instructions, ChaCha20-Poly1305 otherwise; libsodium).  The header
 *       holds the CRC32C of the payload, so the tag binds the payload to
 *       the packet: no one without the key can inject, reorder into or
 *       acknowledge a connection.  Someone on the path who can change
 *       packets in flight can still change a payload and keep its CRC
 *       (CRC32C is not a MAC): the aead modes are for that case.
 *   off: no tag (its field is zero); the derived ids and packet numbers,
 *       the source address check and every other check still apply.
 *   aead, encrypt: the payload authenticated (and encrypted) as well; not
 *       implemented yet, refused at start-up with a message.
 *
 * Nonces.  Each direction numbers every datagram it sends (data,
 * retransmissions, acks, pings) in the header's seq field, from 1; the
 * 12-byte nonce is four zero bytes and seq.  A key thus never sees a nonce
 * twice: seq is 64 bits and a connection that reached 2^63 datagrams
 * would end the job rather than wrap (centuries at line rate).
 * Replayed datagrams authenticate; the connection drops replayed data
 * (its packet number was delivered) and an old ack says less than what is
 * known. */
#ifndef TN_XPORT_UDP_UDP_AUTH_H
#define TN_XPORT_UDP_UDP_AUTH_H

#include <stddef.h>
#include <stdint.h>
#include "base/status.h"

#define TN_UDP_SECRET_BYTES 32
#define TN_UDP_TAG_BYTES    16

typedef enum {
    TN_UDP_AUTH_OFF = 0,
    TN_UDP_AUTH_TAG = 1,      /* "auth": the header (with the payload's CRC) */
} tn_udp_auth_mode_t;

/* One direction's key.  Opaque; 16-byte aligned inside (libsodium's
 * precomputed AES state). */
typedef struct tn_udp_key {
    _Alignas(16) unsigned char state[512];
    unsigned char key[32];
    int           mode;       /* tn_udp_auth_mode_t */
    int           aes;        /* AES-GCM (1) or ChaCha20-Poly1305 (0) */
} tn_udp_key_t;

/* What a direction src -> dst derives from the secret. */
typedef struct {
    uint32_t conn;            /* connection id in its headers */
    uint64_t psn0;            /* its first packet number, in [1, 2^40] */
} tn_udp_dir_t;

/* Parse TERN_UDP_AUTH ("auth", "off"; "aead" and "encrypt" are refused
 * as not implemented): the mode, or -1 with *why_p set. */
int tn_udp_auth_parse(const char *s, const char **why_p);
const char *tn_udp_auth_name(int mode);

/* Set up the library once (thread-safe, idempotent).  TN_ERR_INTERNAL when
 * it cannot start. */
tn_status_t tn_udp_auth_init(void);

/* The direction src -> dst: ids, and its key in the given mode.  secret
 * NULL stands for an all-zero secret whose first packet number is 1 (unit
 * tests count packets from there). */
void tn_udp_auth_derive(const uint8_t *secret, uint32_t src, uint32_t dst, int mode,
                        tn_udp_dir_t *dir_p, tn_udp_key_t *key_p);

/* Write the tag of head[0, head_len) (the header and its SACK ranges,
 * whose 16 bytes at tag_off are the tag field, taken as zero) at
 * head + tag_off, with nonce seq.  Nothing in mode off. */
void tn_udp_auth_seal(const tn_udp_key_t *k, uint64_t seq, void *head, size_t head_len,
                      size_t tag_off);
/* 1 when the tag at head + tag_off authenticates head[0, head_len) with
 * nonce seq (mode off: the tag field is zero), else 0.  head_len <= 256. */
int tn_udp_auth_open(const tn_udp_key_t *k, uint64_t seq, const void *head, size_t head_len,
                     size_t tag_off);

/* Erase a key. */
void tn_udp_auth_wipe(tn_udp_key_t *k);

/* Fill buf with n random bytes from the kernel.  TN_ERR_IO if it cannot. */
tn_status_t tn_udp_auth_random(void *buf, size_t n);

#endif
