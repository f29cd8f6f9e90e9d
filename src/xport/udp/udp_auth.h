/* Keys and datagram authentication of the udp transport (sans I/O).
 *
 * Design note.  Every job has a secret of TN_UDP_SECRET_BYTES random bytes
 * (udp.c: rank 0 draws it from the kernel's random source and publishes it
 * through the job's PMI key/value space, which only the job's own processes
 * reach; it never appears in argv, the environment, file or socket names,
 * or logs).  From it each direction of each connection (src -> dst) derives
 * with a KDF (libsodium's crypto_kdf, BLAKE2b):
 *   - its base key (32 bytes),
 *   - its connection id (32 bits, in every header: a datagram whose id is
 *     not the expected one is dropped before anything else is looked at),
 *   - its first packet number (1 + 40 random bits),
 * so that none of them can be guessed by someone without the secret.
 *
 * Modes (TERN_UDP_AUTH):
 *   auth (default): a 16-byte tag over the whole header and its SACK ranges
 *       (AES-256-GCM with no plaintext, i.e. GMAC, where the CPU has AES
 *       instructions, ChaCha20-Poly1305 otherwise; libsodium, whose call
 *       costs a third of OpenSSL's on 72 bytes).  The header holds the
 *       CRC32C of the payload, so the tag binds the payload to the packet:
 *       no one without the key can inject, reorder into or acknowledge a
 *       connection.  Someone on the path who can change packets in flight
 *       can still change a payload and keep its CRC (CRC32C is not a MAC).
 *   aead: the tag covers header, SACK ranges and payload (AES-256-GCM,
 *       OpenSSL's EVP interface, faster per byte than libsodium's): a
 *       changed payload is rejected too.
 *   encrypt: as aead, and the payload (the active-message header and the
 *       user's data) is encrypted; the udp header stays in clear.  The
 *       receiver decrypts in place once the datagram is in its buffer, so
 *       the transport does not receive payloads straight into user buffers
 *       in this mode (udp_direct.h).
 *   off: no tag (its field is zero); the derived ids and packet numbers,
 *       the source address check and every other check still apply.
 *
 * Nonces and keys.  Each direction numbers every datagram it sends (data,
 * retransmissions, acks, pings) in the header's seq field, from 1; the
 * 12-byte nonce is four zero bytes and seq, so no nonce repeats under a
 * key.  Keys rotate: datagrams with seq in [e * 2^bits, (e + 1) * 2^bits)
 * use epoch e's key, BLAKE2b keyed with the base key over e (bits =
 * TN_UDP_EPOCH_BITS, 2^23 datagrams: at most 2^34 AES blocks per key with
 * 32 KiB datagrams, the budget TLS 1.3 sets for AES-GCM).  A receiver
 * holds the keys of the epochs before, at and after the newest one it has
 * authenticated; a datagram of any other epoch fails as a bad tag (so a
 * forged seq cannot make it derive keys), and the first authentic
 * datagram of the next epoch moves the three on.  seq is 64 bits: a
 * connection would need centuries at line rate to wrap it, and ends the
 * job before it could (udp_conn.c).
 * Replayed datagrams authenticate; the connection drops replayed data
 * (its packet number was delivered) and an old ack says less than what is
 * known. */
#ifndef TN_XPORT_UDP_UDP_AUTH_H
#define TN_XPORT_UDP_UDP_AUTH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include "base/status.h"

#define TN_UDP_SECRET_BYTES 32
#define TN_UDP_TAG_BYTES    16
#define TN_UDP_EPOCH_BITS   23      /* datagrams per key: 2^this */

typedef enum {
    TN_UDP_AUTH_OFF     = 0,
    TN_UDP_AUTH_TAG     = 1,    /* "auth": the header (with the payload's CRC) */
    TN_UDP_AUTH_AEAD    = 2,    /* "aead": header and payload */
    TN_UDP_AUTH_ENCRYPT = 3,    /* "encrypt": header and payload, payload encrypted */
} tn_udp_auth_mode_t;

/* One epoch's key.  16-byte aligned inside (libsodium's AES state). */
typedef struct {
    _Alignas(16) unsigned char state[512];  /* auth: libsodium AES-GCM state or key */
    void    *evp;                           /* aead, encrypt: EVP_CIPHER_CTX */
    uint64_t epoch;
    int      valid;
} tn_udp_ekey_t;

/* One direction's keys: opaque. */
typedef struct tn_udp_key {
    tn_udp_ekey_t slot[3];      /* epochs cur - 1, cur, cur + 1, at epoch % 3 */
    unsigned char base[32];
    uint64_t      cur;          /* newest epoch used (sender) or authenticated */
    unsigned      bits;         /* datagrams per epoch: 2^bits */
    int           mode;         /* tn_udp_auth_mode_t */
    int           aes;          /* auth: AES-GCM (1) or ChaCha20-Poly1305 (0) */
} tn_udp_key_t;

/* What a direction src -> dst derives from the secret. */
typedef struct {
    uint32_t conn;            /* connection id in its headers */
    uint64_t psn0;            /* its first packet number, in [1, 2^40] */
} tn_udp_dir_t;

/* Parse TERN_UDP_AUTH ("auth", "aead", "encrypt", "off"): the mode, or -1
 * with *why_p set. */
int tn_udp_auth_parse(const char *s, const char **why_p);
const char *tn_udp_auth_name(int mode);

/* Set up the libraries once (thread-safe, idempotent).  TN_ERR_INTERNAL
 * when they cannot start. */
tn_status_t tn_udp_auth_init(void);

/* The direction src -> dst: ids, and its keys in the given mode (epoch
 * bits: 0 for TN_UDP_EPOCH_BITS; tests rotate more often).  secret NULL
 * stands for an all-zero secret whose first packet number is 1 (unit
 * tests count packets from there).  TN_ERR_NOMEM, TN_ERR_INTERNAL (the
 * library failed); on error nothing is left to wipe. */
tn_status_t tn_udp_auth_derive(const uint8_t *secret, uint32_t src, uint32_t dst, int mode,
                               unsigned bits, tn_udp_dir_t *dir_p, tn_udp_key_t *key_p);

/* Seal a datagram sent with nonce seq: head[0, head_len) is its header and
 * SACK ranges, whose 16 bytes at tag_off are the tag field (written here,
 * taken as zero), pay[0, npay) its payload, which mode aead authenticates
 * and mode encrypt encrypts in place.  Nothing in mode off.  TN_OK, or
 * TN_ERR_INTERNAL when the library failed. */
tn_status_t tn_udp_auth_seal(tn_udp_key_t *k, uint64_t seq, void *head, size_t head_len,
                             size_t tag_off, const struct iovec *pay, int npay);
/* 1 when the tag at head + tag_off authenticates the datagram (as sealed
 * above) with nonce seq, else 0 (mode off: 1 when the tag field is zero).
 * Mode encrypt decrypts the payload in place, whatever the outcome: a
 * datagram that fails leaves garbage in pay.  head_len <= 256. */
int tn_udp_auth_open(tn_udp_key_t *k, uint64_t seq, const void *head, size_t head_len,
                     size_t tag_off, const struct iovec *pay, int npay);

/* The newest epoch k used or authenticated (tests). */
uint64_t tn_udp_auth_epoch(const tn_udp_key_t *k);

/* Erase a direction's keys and free what they hold. */
void tn_udp_auth_wipe(tn_udp_key_t *k);

/* Fill buf with n random bytes from the kernel.  TN_ERR_IO if it cannot. */
tn_status_t tn_udp_auth_random(void *buf, size_t n);

/* Decode the job's secret as rank 0 publishes it: exactly
 * 2 * TN_UDP_SECRET_BYTES lowercase hex digits.  TN_OK with secret set,
 * or TN_ERR_PROTO with secret unchanged. */
tn_status_t tn_udp_secret_parse(const char *text, uint8_t secret[TN_UDP_SECRET_BYTES]);

#endif
