/* The sock transport's handshake (sock_hs.h): encoding, decoding, MACs. */
#include "xport/sock/sock_hs.h"

#include <sodium.h>
#include <string.h>

static const uint8_t tn_sock_magic[4] = { 'T', 'N', 'D', 'Y' };

static void put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static uint64_t get_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) {
        v = (v << 8) | p[i];
    }
    return v;
}

size_t tn_sock_hello_make(uint8_t *out, int kind, uint64_t port_id, const char *key)
{
    size_t klen = strlen(key);
    if (klen > TN_SOCK_KEY_MAX || sodium_init() < 0) {
        return 0;
    }
    memcpy(out, tn_sock_magic, 4);
    out[4] = TN_SOCK_VERSION;
    out[5] = (uint8_t)kind;
    put_le(out + 6, klen, 2);
    randombytes_buf(out + 8, TN_SOCK_NONCE);
    put_le(out + 8 + TN_SOCK_NONCE, port_id, 8);
    memcpy(out + TN_SOCK_HELLO_FIXED, key, klen);
    return TN_SOCK_HELLO_FIXED + klen;
}

long tn_sock_hello_size(const uint8_t *in, size_t have)
{
    if (have < TN_SOCK_HELLO_FIXED) {
        return memcmp(in, tn_sock_magic, have < 4 ? have : 4) == 0 ? 0 : -1;
    }
    if (memcmp(in, tn_sock_magic, 4) != 0 || in[4] != TN_SOCK_VERSION) {
        return -1;
    }
    uint64_t klen = get_le(in + 6, 2);
    if (klen == 0 || klen > TN_SOCK_KEY_MAX) {
        return -1;
    }
    return (long)(TN_SOCK_HELLO_FIXED + klen);
}

tn_status_t tn_sock_hello_decode(const uint8_t *in, size_t len, tn_sock_hello_t *h_p)
{
    long want = tn_sock_hello_size(in, len);
    if (want <= 0 || (size_t)want != len) {
        return TN_ERR_PROTO;
    }
    if (in[5] != TN_SOCK_KIND_STREAM && in[5] != TN_SOCK_KIND_PORT) {
        return TN_ERR_PROTO;
    }
    size_t klen = len - TN_SOCK_HELLO_FIXED;
    const uint8_t *key = in + TN_SOCK_HELLO_FIXED;
    for (size_t i = 0; i < klen; i++) {
        if (key[i] < 0x21 || key[i] > 0x7e) {
            return TN_ERR_PROTO;           /* printable, no spaces */
        }
    }
    h_p->kind = in[5];
    h_p->port_id = get_le(in + 8 + TN_SOCK_NONCE, 8);
    memcpy(h_p->key, key, klen);
    h_p->key[klen] = '\0';
    return TN_OK;
}

/* HMAC-SHA-256(secret, who hello nonce_a) */
static void hs_mac(const uint8_t *secret, char who, const uint8_t *hello, size_t hlen,
                   const uint8_t *nonce_a, uint8_t out[TN_SOCK_MAC])
{
    crypto_auth_hmacsha256_state st;
    crypto_auth_hmacsha256_init(&st, secret, TN_SOCK_SECRET_BYTES);
    crypto_auth_hmacsha256_update(&st, (const uint8_t *)&who, 1);
    crypto_auth_hmacsha256_update(&st, hello, hlen);
    crypto_auth_hmacsha256_update(&st, nonce_a, TN_SOCK_NONCE);
    crypto_auth_hmacsha256_final(&st, out);
    sodium_memzero(&st, sizeof(st));
}

tn_status_t tn_sock_reply_make(const uint8_t *secret, const uint8_t *hello, size_t hlen,
                               uint8_t out[TN_SOCK_REPLY_BYTES],
                               uint8_t nonce_a_p[TN_SOCK_NONCE])
{
    if (sodium_init() < 0) {
        return TN_ERR_INTERNAL;
    }
    memcpy(out, tn_sock_magic, 4);
    randombytes_buf(out + 4, TN_SOCK_NONCE);
    memcpy(nonce_a_p, out + 4, TN_SOCK_NONCE);
    hs_mac(secret, 'A', hello, hlen, nonce_a_p, out + 4 + TN_SOCK_NONCE);
    return TN_OK;
}

tn_status_t tn_sock_reply_check(const uint8_t *secret, const uint8_t *hello, size_t hlen,
                                const uint8_t reply[TN_SOCK_REPLY_BYTES],
                                uint8_t confirm[TN_SOCK_MAC])
{
    uint8_t mac[TN_SOCK_MAC];
    if (memcmp(reply, tn_sock_magic, 4) != 0) {
        return TN_ERR_PROTO;
    }
    hs_mac(secret, 'A', hello, hlen, reply + 4, mac);
    if (crypto_verify_32(mac, reply + 4 + TN_SOCK_NONCE) != 0) {
        return TN_ERR_PROTO;
    }
    hs_mac(secret, 'C', hello, hlen, reply + 4, confirm);
    return TN_OK;
}

tn_status_t tn_sock_confirm_check(const uint8_t *secret, const uint8_t *hello, size_t hlen,
                                  const uint8_t nonce_a[TN_SOCK_NONCE],
                                  const uint8_t confirm[TN_SOCK_MAC])
{
    uint8_t mac[TN_SOCK_MAC];
    hs_mac(secret, 'C', hello, hlen, nonce_a, mac);
    return crypto_verify_32(mac, confirm) == 0 ? TN_OK : TN_ERR_PROTO;
}
