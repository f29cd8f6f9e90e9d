/* The sock transport's handshake messages (sans I/O; sock.h has the
 * protocol).  Wire, all integers little endian:
 *
 *   hello   (connector -> acceptor), TN_SOCK_HELLO_FIXED + keylen bytes:
 *           "TNDY", version (1), kind (TN_SOCK_KIND_*), u16 keylen,
 *           nonce_c[16], u64 port id (kind port; 0 otherwise), key.
 *   reply   (acceptor -> connector), TN_SOCK_REPLY_BYTES:
 *           "TNDY", nonce_a[16], HMAC-SHA-256(secret, "A" hello nonce_a).
 *   confirm (connector -> acceptor), 32 bytes:
 *           HMAC-SHA-256(secret, "C" hello nonce_a).
 * Each side checks the other's MAC in constant time before it trusts
 * anything of the connection. */
#ifndef TN_XPORT_SOCK_SOCK_HS_H
#define TN_XPORT_SOCK_SOCK_HS_H

#include <stddef.h>
#include <stdint.h>
#include "base/status.h"
#include "xport/sock/sock.h"

#define TN_SOCK_VERSION      1
#define TN_SOCK_NONCE        16
#define TN_SOCK_MAC          32
#define TN_SOCK_HELLO_FIXED  (4 + 1 + 1 + 2 + TN_SOCK_NONCE + 8)
#define TN_SOCK_HELLO_MAX    (TN_SOCK_HELLO_FIXED + TN_SOCK_KEY_MAX)
#define TN_SOCK_REPLY_BYTES  (4 + TN_SOCK_NONCE + TN_SOCK_MAC)

enum { TN_SOCK_KIND_STREAM = 1, TN_SOCK_KIND_PORT = 2 };

typedef struct {
    int      kind;
    uint64_t port_id;
    char     key[TN_SOCK_KEY_MAX + 1];
} tn_sock_hello_t;

/* Write a hello with a fresh nonce into out (TN_SOCK_HELLO_MAX bytes);
 * returns its length, 0 when the key is too long or no random bytes. */
size_t tn_sock_hello_make(uint8_t *out, int kind, uint64_t port_id, const char *key);
/* How many bytes the hello at in (have bytes so far) is in all: 0 when
 * more are needed to tell, -1 when it is no hello. */
long tn_sock_hello_size(const uint8_t *in, size_t have);
/* Decode a whole hello (len from tn_sock_hello_size). */
tn_status_t tn_sock_hello_decode(const uint8_t *in, size_t len, tn_sock_hello_t *h_p);
/* The acceptor's reply to hello (fresh nonce_a, kept in nonce_a_p). */
tn_status_t tn_sock_reply_make(const uint8_t *secret, const uint8_t *hello, size_t hlen,
                               uint8_t out[TN_SOCK_REPLY_BYTES],
                               uint8_t nonce_a_p[TN_SOCK_NONCE]);
/* Connector: check reply, write confirm.  TN_ERR_PROTO when the MAC is
 * wrong (another secret). */
tn_status_t tn_sock_reply_check(const uint8_t *secret, const uint8_t *hello, size_t hlen,
                                const uint8_t reply[TN_SOCK_REPLY_BYTES],
                                uint8_t confirm[TN_SOCK_MAC]);
/* Acceptor: check confirm. */
tn_status_t tn_sock_confirm_check(const uint8_t *secret, const uint8_t *hello, size_t hlen,
                                  const uint8_t nonce_a[TN_SOCK_NONCE],
                                  const uint8_t confirm[TN_SOCK_MAC]);

#endif
