/* Keys and datagram authentication (see udp_auth.h).  The cryptography is
 * libsodium's: measured on the machines this project runs on
 * (bench/udp_crypto.c), authenticating a 72-byte header costs 70 ns with
 * its AES-256-GCM and about 260 ns with OpenSSL's EVP interface, whose
 * per-call overhead dominates short inputs; the default mode pays this
 * twice per one-way trip. */
#include "xport/udp/udp_auth.h"

#include <errno.h>
#include <pthread.h>
#include <sodium.h>
#include <string.h>
#include <sys/random.h>

_Static_assert(sizeof(crypto_aead_aes256gcm_state) <= sizeof(((tn_udp_key_t *)0)->state),
               "room for libsodium's AES-GCM state");
_Static_assert(crypto_kdf_KEYBYTES == TN_UDP_SECRET_BYTES, "the secret is a KDF key");

#define TN_UDP_HEAD_MAX 256

static pthread_once_t tn_udp_auth_once = PTHREAD_ONCE_INIT;
static int tn_udp_auth_ok, tn_udp_auth_aes;

static void tn_udp_auth_start(void)
{
    tn_udp_auth_ok = sodium_init() >= 0;
    tn_udp_auth_aes = tn_udp_auth_ok && crypto_aead_aes256gcm_is_available();
}

tn_status_t tn_udp_auth_init(void)
{
    pthread_once(&tn_udp_auth_once, tn_udp_auth_start);
    return tn_udp_auth_ok ? TN_OK : TN_ERR_INTERNAL;
}

int tn_udp_auth_parse(const char *s, const char **why_p)
{
    if (s == NULL || strcmp(s, "auth") == 0) {
        return TN_UDP_AUTH_TAG;
    }
    if (strcmp(s, "off") == 0) {
        return TN_UDP_AUTH_OFF;
    }
    *why_p = strcmp(s, "aead") == 0 || strcmp(s, "encrypt") == 0
                 ? "is not implemented yet (use auth, or off on a trusted fabric)"
                 : "is not a mode (auth, off)";
    return -1;
}

const char *tn_udp_auth_name(int mode)
{
    return mode == TN_UDP_AUTH_OFF ? "off" : "auth";
}

tn_status_t tn_udp_auth_random(void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = getrandom(p, n, 0);
        if (r < 0) {
            if (errno == EINTR) {
                continue;
            }
            return TN_ERR_IO;
        }
        p += r;
        n -= (size_t)r;
    }
    return TN_OK;
}

/* KDF contexts: 8 characters each (crypto_kdf_CONTEXTBYTES) */
static const char tn_udp_kdf_key[8] = { 'T', 'e', 'r', 'n', 'U', 'k', 'e', 'y' };
static const char tn_udp_kdf_ids[8] = { 'T', 'e', 'r', 'n', 'U', 'i', 'd', 's' };

void tn_udp_auth_derive(const uint8_t *secret, uint32_t src, uint32_t dst, int mode,
                        tn_udp_dir_t *dir_p, tn_udp_key_t *key_p)
{
    static const uint8_t zero[TN_UDP_SECRET_BYTES];
    uint64_t id = (uint64_t)src << 32 | dst;
    unsigned char ids[16];

    if (secret == NULL) {
        secret = zero;
    }
    crypto_kdf_derive_from_key(ids, sizeof(ids), id, tn_udp_kdf_ids, secret);
    if (dir_p != NULL) {
        uint64_t r;
        memcpy(&dir_p->conn, ids, sizeof(dir_p->conn));
        memcpy(&r, ids + 8, sizeof(r));
        /* unit tests (no secret) start at 1, where they count from */
        dir_p->psn0 = secret == zero ? 1 : 1 + (r & ((UINT64_C(1) << 40) - 1));
    }
    sodium_memzero(ids, sizeof(ids));
    if (key_p != NULL) {
        memset(key_p, 0, sizeof(*key_p));
        key_p->mode = mode;
        key_p->aes = tn_udp_auth_aes;
        crypto_kdf_derive_from_key(key_p->key, sizeof(key_p->key), id, tn_udp_kdf_key, secret);
        if (key_p->aes) {
            crypto_aead_aes256gcm_beforenm((crypto_aead_aes256gcm_state *)key_p->state,
                                           key_p->key);
        }
    }
}

static void tn_udp_nonce(unsigned char n[12], uint64_t seq)
{
    memset(n, 0, 4);
    memcpy(n + 4, &seq, 8);
}

void tn_udp_auth_seal(const tn_udp_key_t *k, uint64_t seq, void *head, size_t head_len,
                      size_t tag_off)
{
    unsigned char nonce[12], *tag = (unsigned char *)head + tag_off, none[1] = { 0 };
    unsigned long long tl;

    if (k->mode == TN_UDP_AUTH_OFF) {
        return;
    }
    tn_udp_nonce(nonce, seq);
    memset(tag, 0, TN_UDP_TAG_BYTES);
    if (k->aes) {
        crypto_aead_aes256gcm_encrypt_detached_afternm(
            none, tag, &tl, none, 0, head, head_len, NULL, nonce,
            (const crypto_aead_aes256gcm_state *)k->state);
    } else {
        crypto_aead_chacha20poly1305_ietf_encrypt_detached(none, tag, &tl, none, 0, head,
                                                           head_len, NULL, nonce, k->key);
    }
}

int tn_udp_auth_open(const tn_udp_key_t *k, uint64_t seq, const void *head, size_t head_len,
                     size_t tag_off)
{
    unsigned char nonce[12], buf[TN_UDP_HEAD_MAX], tag[TN_UDP_TAG_BYTES], none[1] = { 0 };
    int ok;

    if (k->mode == TN_UDP_AUTH_OFF) {
        /* no tag: its field must be zero (one reading of every datagram) */
        static const unsigned char zero[TN_UDP_TAG_BYTES];
        return tag_off + TN_UDP_TAG_BYTES <= head_len &&
               memcmp((const unsigned char *)head + tag_off, zero, sizeof(zero)) == 0;
    }
    if (head_len > sizeof(buf) || tag_off + TN_UDP_TAG_BYTES > head_len) {
        return 0;
    }
    memcpy(buf, head, head_len);
    memcpy(tag, buf + tag_off, sizeof(tag));
    memset(buf + tag_off, 0, sizeof(tag));
    tn_udp_nonce(nonce, seq);
    if (k->aes) {
        ok = crypto_aead_aes256gcm_decrypt_detached_afternm(
                 none, NULL, none, 0, tag, buf, head_len, nonce,
                 (const crypto_aead_aes256gcm_state *)k->state) == 0;
    } else {
        ok = crypto_aead_chacha20poly1305_ietf_decrypt_detached(none, NULL, none, 0, tag, buf,
                                                                head_len, nonce, k->key) == 0;
    }
    return ok;
}

void tn_udp_auth_wipe(tn_udp_key_t *k)
{
    sodium_memzero(k, sizeof(*k));
}
