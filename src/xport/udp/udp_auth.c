/* Keys and datagram authentication (see udp_auth.h).  The cryptography is
 * libsodium's and OpenSSL's libcrypto; measured on the machines this
 * project runs on (bench/udp_crypto.c, ns per datagram):
 *
 *                         72-byte header   + 1344 B payload   + 8192 B
 *   libsodium AES-GCM      70 (tag)         330 / 830          1650 / 4270
 *   OpenSSL EVP AES-GCM   240 (tag)         370 / 545           900 / 1980
 *   (payload: authenticated / encrypted)
 *
 * libsodium's call is cheap and OpenSSL's is fast per byte (its GHASH and
 * AES-CTR are stitched; libsodium 1.0.18's are not): mode auth, which
 * covers 72 to 200 bytes per datagram, uses libsodium; the modes that
 * cover the payload use OpenSSL.  OpenSSL's EVP also takes associated data
 * and payload in pieces, as datagrams are sent and received (header here,
 * payload there). */
#include "xport/udp/udp_auth.h"

#include <errno.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <sodium.h>
#include <string.h>
#include <sys/random.h>

_Static_assert(sizeof(crypto_aead_aes256gcm_state) <= sizeof(((tn_udp_ekey_t *)0)->state),
               "room for libsodium's AES-GCM state");
_Static_assert(crypto_kdf_KEYBYTES == TN_UDP_SECRET_BYTES, "the secret is a KDF key");

#define TN_UDP_HEAD_MAX 256

static pthread_once_t tn_udp_auth_once = PTHREAD_ONCE_INIT;
static int tn_udp_auth_ok, tn_udp_auth_aes;

static void tn_udp_auth_start(void)
{
    tn_udp_auth_ok = sodium_init() >= 0 && EVP_aes_256_gcm() != NULL;
    tn_udp_auth_aes = tn_udp_auth_ok && crypto_aead_aes256gcm_is_available();
}

tn_status_t tn_udp_auth_init(void)
{
    pthread_once(&tn_udp_auth_once, tn_udp_auth_start);
    return tn_udp_auth_ok ? TN_OK : TN_ERR_INTERNAL;
}

static const char *const tn_udp_auth_names[] = { "off", "auth", "aead", "encrypt" };

int tn_udp_auth_parse(const char *s, const char **why_p)
{
    if (s == NULL) {
        return TN_UDP_AUTH_TAG;
    }
    for (int m = 0; m < 4; m++) {
        if (strcmp(s, tn_udp_auth_names[m]) == 0) {
            return m;
        }
    }
    *why_p = "is not a mode (auth, aead, encrypt, off)";
    return -1;
}

const char *tn_udp_auth_name(int mode)
{
    return mode >= 0 && mode < 4 ? tn_udp_auth_names[mode] : "?";
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

/* Slot of epoch e, set up with its key: BLAKE2b keyed with the base key
 * over "TernEpoc" and e. */
static tn_status_t tn_udp_epoch_set(tn_udp_key_t *k, uint64_t e)
{
    tn_udp_ekey_t *s = &k->slot[e % 3];
    unsigned char msg[16] = { 'T', 'e', 'r', 'n', 'E', 'p', 'o', 'c' }, key[32];
    tn_status_t st = TN_OK;

    memcpy(msg + 8, &e, sizeof(e));
    crypto_generichash(key, sizeof(key), msg, sizeof(msg), k->base, sizeof(k->base));
    s->valid = 0;
    s->epoch = e;
    if (k->mode == TN_UDP_AUTH_TAG) {
        if (k->aes) {
            crypto_aead_aes256gcm_beforenm((crypto_aead_aes256gcm_state *)s->state, key);
        } else {
            memcpy(s->state, key, sizeof(key));
        }
        s->valid = 1;
    } else if (k->mode == TN_UDP_AUTH_AEAD || k->mode == TN_UDP_AUTH_ENCRYPT) {
        if (s->evp == NULL && (s->evp = EVP_CIPHER_CTX_new()) == NULL) {
            st = TN_ERR_NOMEM;
        } else if (EVP_CipherInit_ex(s->evp, EVP_aes_256_gcm(), NULL, key, NULL, 1) != 1) {
            st = TN_ERR_INTERNAL;
        } else {
            s->valid = 1;
        }
    }
    sodium_memzero(key, sizeof(key));
    return st;
}

tn_status_t tn_udp_auth_derive(const uint8_t *secret, uint32_t src, uint32_t dst, int mode,
                               unsigned bits, tn_udp_dir_t *dir_p, tn_udp_key_t *key_p)
{
    static const uint8_t zero[TN_UDP_SECRET_BYTES];
    uint64_t id = (uint64_t)src << 32 | dst;
    unsigned char ids[16];
    tn_status_t st = TN_OK;

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
        key_p->bits = bits != 0 && bits < 64 ? bits : TN_UDP_EPOCH_BITS;
        crypto_kdf_derive_from_key(key_p->base, sizeof(key_p->base), id, tn_udp_kdf_key,
                                   secret);
        /* seq starts at 1: epoch 0 first, 1 next */
        if (mode != TN_UDP_AUTH_OFF && ((st = tn_udp_epoch_set(key_p, 0)) != TN_OK ||
                                        (st = tn_udp_epoch_set(key_p, 1)) != TN_OK)) {
            tn_udp_auth_wipe(key_p);
        }
    }
    return st;
}

uint64_t tn_udp_auth_epoch(const tn_udp_key_t *k)
{
    return k->cur;
}

static void tn_udp_nonce(unsigned char n[12], uint64_t seq)
{
    memset(n, 0, 4);
    memcpy(n + 4, &seq, 8);
}

/* The EVP AEAD over head (associated data) and the payload pieces
 * (associated data too in mode aead; encrypted or decrypted in place in
 * mode encrypt).  enc: seal (tag written to tag) or open (tag checked). */
static int tn_udp_evp(const tn_udp_key_t *k, tn_udp_ekey_t *s, int enc, uint64_t seq,
                      const void *head, size_t head_len, const struct iovec *pay, int npay,
                      unsigned char tag[TN_UDP_TAG_BYTES])
{
    EVP_CIPHER_CTX *ctx = s->evp;
    unsigned char nonce[12], fin[16];
    int ol, crypt = k->mode == TN_UDP_AUTH_ENCRYPT;

    tn_udp_nonce(nonce, seq);
    if (EVP_CipherInit_ex(ctx, NULL, NULL, NULL, nonce, enc) != 1 ||
        EVP_CipherUpdate(ctx, NULL, &ol, head, (int)head_len) != 1) {
        return 0;
    }
    for (int i = 0; i < npay; i++) {
        if (pay[i].iov_len == 0) {
            continue;
        }
        if (pay[i].iov_len > INT32_MAX ||
            EVP_CipherUpdate(ctx, crypt ? pay[i].iov_base : NULL, &ol, pay[i].iov_base,
                             (int)pay[i].iov_len) != 1) {
            return 0;
        }
    }
    if (!enc && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, TN_UDP_TAG_BYTES, tag) != 1) {
        return 0;
    }
    if (EVP_CipherFinal_ex(ctx, fin, &ol) != 1) {
        return 0;           /* open: the tag does not match */
    }
    return !enc || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, TN_UDP_TAG_BYTES, tag) == 1;
}

tn_status_t tn_udp_auth_seal(tn_udp_key_t *k, uint64_t seq, void *head, size_t head_len,
                             size_t tag_off, const struct iovec *pay, int npay)
{
    unsigned char nonce[12], *tag = (unsigned char *)head + tag_off, none[1] = { 0 };
    unsigned long long tl;
    uint64_t e = seq >> k->bits;

    if (k->mode == TN_UDP_AUTH_OFF) {
        return TN_OK;
    }
    memset(tag, 0, TN_UDP_TAG_BYTES);
    if (e != k->cur) {
        /* the sender's seq only grows: the next epoch's key is ready, and
         * the one after is made now */
        tn_status_t st;
        if ((k->slot[e % 3].epoch != e || !k->slot[e % 3].valid) &&
            (st = tn_udp_epoch_set(k, e)) != TN_OK) {
            return st;
        }
        k->cur = e;
        if ((st = tn_udp_epoch_set(k, e + 1)) != TN_OK) {
            return st;
        }
    }
    tn_udp_ekey_t *s = &k->slot[e % 3];
    if (k->mode != TN_UDP_AUTH_TAG) {
        unsigned char t[TN_UDP_TAG_BYTES];
        if (!tn_udp_evp(k, s, 1, seq, head, head_len, pay, npay, t)) {
            return TN_ERR_INTERNAL;
        }
        memcpy(tag, t, sizeof(t));
        return TN_OK;
    }
    tn_udp_nonce(nonce, seq);
    if (k->aes) {
        crypto_aead_aes256gcm_encrypt_detached_afternm(
            none, tag, &tl, none, 0, head, head_len, NULL, nonce,
            (const crypto_aead_aes256gcm_state *)s->state);
    } else {
        crypto_aead_chacha20poly1305_ietf_encrypt_detached(none, tag, &tl, none, 0, head,
                                                           head_len, NULL, nonce, s->state);
    }
    return TN_OK;
}

int tn_udp_auth_open(tn_udp_key_t *k, uint64_t seq, const void *head, size_t head_len,
                     size_t tag_off, const struct iovec *pay, int npay)
{
    unsigned char nonce[12], buf[TN_UDP_HEAD_MAX], tag[TN_UDP_TAG_BYTES], none[1] = { 0 };
    uint64_t e = seq >> k->bits;
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
    /* only the keys at hand: epochs cur - 1 .. cur + 1 */
    tn_udp_ekey_t *s = &k->slot[e % 3];
    if (e + 1 < k->cur || e > k->cur + 1 || !s->valid || s->epoch != e) {
        return 0;
    }
    memcpy(buf, head, head_len);
    memcpy(tag, buf + tag_off, sizeof(tag));
    memset(buf + tag_off, 0, sizeof(tag));
    if (k->mode != TN_UDP_AUTH_TAG) {
        ok = tn_udp_evp(k, s, 0, seq, buf, head_len, pay, npay, tag);
    } else {
        tn_udp_nonce(nonce, seq);
        if (k->aes) {
            ok = crypto_aead_aes256gcm_decrypt_detached_afternm(
                     none, NULL, none, 0, tag, buf, head_len, nonce,
                     (const crypto_aead_aes256gcm_state *)s->state) == 0;
        } else {
            ok = crypto_aead_chacha20poly1305_ietf_decrypt_detached(
                     none, NULL, none, 0, tag, buf, head_len, nonce, s->state) == 0;
        }
    }
    if (ok && e == k->cur + 1) {
        /* the peer moved on: keep this epoch's neighbours at hand.  A
         * failure leaves the epoch after unusable: its datagrams fail */
        k->cur = e;
        (void)tn_udp_epoch_set(k, e + 1);
    }
    return ok;
}

void tn_udp_auth_wipe(tn_udp_key_t *k)
{
    for (int i = 0; i < 3; i++) {
        if (k->slot[i].evp != NULL) {
            EVP_CIPHER_CTX_free(k->slot[i].evp);   /* clears its key schedule */
        }
    }
    sodium_memzero(k, sizeof(*k));
}

static int tn_udp_hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

tn_status_t tn_udp_secret_parse(const char *text, uint8_t secret[TN_UDP_SECRET_BYTES])
{
    uint8_t s[TN_UDP_SECRET_BYTES];
    tn_status_t st = TN_OK;

    if (strlen(text) != 2 * TN_UDP_SECRET_BYTES) {
        return TN_ERR_PROTO;
    }
    for (int i = 0; i < TN_UDP_SECRET_BYTES; i++) {
        int hi = tn_udp_hexval(text[2 * i]), lo = tn_udp_hexval(text[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            st = TN_ERR_PROTO;
            break;
        }
        s[i] = (uint8_t)(hi << 4 | lo);
    }
    if (st == TN_OK) {
        memcpy(secret, s, sizeof(s));
    }
    sodium_memzero(s, sizeof(s));
    return st;
}
