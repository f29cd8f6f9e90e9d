/* Fuzz harness of the sock transport's handshake (src/xport/sock/sock_hs.c):
 * the bytes a peer sends are hostile, and no peer without the job's
 * secret may get a connection accepted.  The harness holds a fixed secret.
 *
 * Input: a byte m, then bytes.
 *   m & 1 == 0, the acceptor: the bytes are what a connector sends, fed in
 *     chunks of ((m >> 1) & 7) + 1 bytes (whole when that is 8) to the
 *     steps of sock.c's in_handshake (static there, on a socket: repeated
 *     here): tn_sock_hello_size on what has arrived, tn_sock_hello_decode
 *     of a whole hello, tn_sock_reply_make, then tn_sock_confirm_check on
 *     the next TN_SOCK_MAC bytes.  The reply's nonce is random, so the
 *     fuzzer cannot write a confirm that fits; (m >> 4) & 7 puts one into
 *     the stream after the hello: 1 the right one (HMAC-SHA-256 under the
 *     secret, computed here from sock_hs.h's description), 2 the same
 *     under another secret, 3 the reply's own MAC sent back, 4 the right
 *     MAC over another nonce, 5 the right one with one bit flipped;
 *     otherwise the input's bytes as they are.
 *   m & 1 == 1, the connector: tn_sock_hello_make with the kind (m >> 1),
 *     port id and key taken from the bytes (u8 keylen, key, u64 port id),
 *     then tn_sock_reply_check of the reply that follows
 *     (TN_SOCK_REPLY_BYTES), where (m >> 4) & 7 makes its MAC as above
 *     (1 right, 2 another secret, 3 the right MAC of the confirm, 4 over
 *     another hello, 5 one bit flipped).
 *
 * Checked: a confirm or a reply passes exactly when its MAC is the right
 * one under the secret (magic included for the reply), and a passing reply
 * yields the right confirm; tn_sock_hello_size never asks for more than
 * TN_SOCK_HELLO_MAX and agrees with the decode; a decoded hello has a
 * known kind and a key of 1 to TN_SOCK_KEY_MAX printable bytes, NUL-ended;
 * a made hello decodes to what was put in. */
#include "xport/sock/sock_hs.h"

#include <sodium.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t fz_secret[TN_SOCK_SECRET_BYTES] = "fuzz_sockhs: the job's secret..";
static const uint8_t fz_other[TN_SOCK_SECRET_BYTES] = "fuzz_sockhs: another secret....";

static void fz_fail(const char *what)
{
    fprintf(stderr, "fuzz_sockhs: %s\n", what);
    abort();
}

/* HMAC-SHA-256(secret, who hello nonce), as sock_hs.h describes it. */
static void fz_mac(const uint8_t *secret, char who, const uint8_t *hello, size_t hlen,
                   const uint8_t *nonce, uint8_t out[TN_SOCK_MAC])
{
    crypto_auth_hmacsha256_state st;
    crypto_auth_hmacsha256_init(&st, secret, TN_SOCK_SECRET_BYTES);
    crypto_auth_hmacsha256_update(&st, (const uint8_t *)&who, 1);
    crypto_auth_hmacsha256_update(&st, hello, hlen);
    crypto_auth_hmacsha256_update(&st, nonce, TN_SOCK_NONCE);
    crypto_auth_hmacsha256_final(&st, out);
}

static void fz_hello_ok(const tn_sock_hello_t *h)
{
    size_t kl = strnlen(h->key, sizeof(h->key));
    if (h->kind != TN_SOCK_KIND_STREAM && h->kind != TN_SOCK_KIND_PORT) {
        fz_fail("a hello of an unknown kind decoded");
    }
    if (kl == 0 || kl > TN_SOCK_KEY_MAX) {
        fz_fail("a hello's key empty, too long or not ended");
    }
    for (size_t i = 0; i < kl; i++) {
        if (h->key[i] < 0x21 || h->key[i] > 0x7e) {
            fz_fail("a hello's key not printable");
        }
    }
}

static void fz_acceptor(int chunk, int forge, uint8_t *s, size_t len)
{
    uint8_t in[TN_SOCK_HELLO_MAX + TN_SOCK_MAC + 64];
    uint8_t hello[TN_SOCK_HELLO_MAX], reply[TN_SOCK_REPLY_BYTES], nonce_a[TN_SOCK_NONCE];
    uint8_t right[TN_SOCK_MAC];
    size_t have = 0, hlen = 0, pos = 0;
    int state = 0;                  /* 0 hello, 1 confirm, 2 accepted */

    while (pos < len && state < 2) {
        size_t c = len - pos < (size_t)chunk ? len - pos : (size_t)chunk;
        if (c > sizeof(in) - have) {
            c = sizeof(in) - have;  /* sock.c reads what fits its buffer */
        }
        memcpy(in + have, s + pos, c);
        have += c;
        pos += c;
        if (state == 0) {
            long want = tn_sock_hello_size(in, have);
            if (want < 0) {
                return;                                  /* closed */
            }
            if (want > (long)TN_SOCK_HELLO_MAX || (want > 0 && want < TN_SOCK_HELLO_FIXED)) {
                fz_fail("tn_sock_hello_size out of bounds");
            }
            if (want == 0 || have < (size_t)want) {
                if (have >= TN_SOCK_HELLO_MAX && want == 0) {
                    fz_fail("tn_sock_hello_size undecided on a whole hello's bytes");
                }
                continue;
            }
            tn_sock_hello_t h;
            memset(&h, 0x5a, sizeof(h));
            if (tn_sock_hello_decode(in, (size_t)want, &h) != TN_OK) {
                return;
            }
            fz_hello_ok(&h);
            hlen = (size_t)want;
            memcpy(hello, in, hlen);
            memmove(in, in + hlen, have - hlen);
            have -= hlen;
            if (tn_sock_reply_make(fz_secret, hello, hlen, reply, nonce_a) != TN_OK) {
                fz_fail("tn_sock_reply_make failed");
            }
            if (memcmp(reply + 4, nonce_a, TN_SOCK_NONCE) != 0) {
                fz_fail("the reply does not carry the nonce kept");
            }
            fz_mac(fz_secret, 'C', hello, hlen, nonce_a, right);
            /* the confirm's place in the stream: what follows the hello */
            uint8_t forged[TN_SOCK_MAC];
            uint8_t other_nonce[TN_SOCK_NONCE];
            int put = 1;
            switch (forge) {
            case 1:
                memcpy(forged, right, TN_SOCK_MAC);
                break;
            case 2:
                fz_mac(fz_other, 'C', hello, hlen, nonce_a, forged);
                break;
            case 3:
                memcpy(forged, reply + 4 + TN_SOCK_NONCE, TN_SOCK_MAC);
                break;
            case 4:
                memcpy(other_nonce, nonce_a, TN_SOCK_NONCE);
                other_nonce[0] ^= 1;
                fz_mac(fz_secret, 'C', hello, hlen, other_nonce, forged);
                break;
            case 5:
                memcpy(forged, right, TN_SOCK_MAC);
                forged[TN_SOCK_MAC - 1] ^= 0x80;
                break;
            default:
                put = 0;
                break;
            }
            if (put) {
                /* replace the confirm's bytes, in the buffer and the stream */
                uint8_t *dst[2] = { in, s + pos };
                size_t room[2] = { have, len - pos };
                size_t k = 0;
                for (int b = 0; b < 2 && k < TN_SOCK_MAC; b++) {
                    size_t m = room[b] < TN_SOCK_MAC - k ? room[b] : TN_SOCK_MAC - k;
                    memcpy(dst[b], forged + k, m);
                    k += m;
                }
            }
            state = 1;
        }
        if (state == 1 && have >= TN_SOCK_MAC) {
            int ok = tn_sock_confirm_check(fz_secret, hello, hlen, nonce_a, in) == TN_OK;
            int keyed = sodium_memcmp(in, right, TN_SOCK_MAC) == 0;
            if (ok != keyed) {
                fz_fail(ok ? "a confirm accepted that is not keyed by the secret"
                           : "the right confirm refused");
            }
            if (!ok) {
                return;
            }
            state = 2;
        }
    }
}

static void fz_connector(int kind, int forge, const uint8_t *s, size_t len)
{
    uint8_t hello[TN_SOCK_HELLO_MAX], reply[TN_SOCK_REPLY_BYTES], confirm[TN_SOCK_MAC];
    uint8_t right[TN_SOCK_MAC], right_c[TN_SOCK_MAC];
    char key[TN_SOCK_KEY_MAX + 2];
    uint64_t port = 0;
    size_t kl, hlen;

    if (len < 1) {
        return;
    }
    kl = s[0] < len - 1 ? s[0] : len - 1;
    memcpy(key, s + 1, kl);
    key[kl] = '\0';
    s += 1 + kl;
    len -= 1 + kl;
    if (len >= 8) {
        memcpy(&port, s, 8);
        s += 8;
        len -= 8;
    }
    hlen = tn_sock_hello_make(hello, kind, port, key);
    if (hlen == 0) {
        if (strlen(key) <= TN_SOCK_KEY_MAX) {
            fz_fail("tn_sock_hello_make refused a key that fits");
        }
        return;
    }
    /* an empty key makes a hello no acceptor takes */
    if (hlen != TN_SOCK_HELLO_FIXED + strlen(key) ||
        tn_sock_hello_size(hello, hlen) != (strlen(key) > 0 ? (long)hlen : -1)) {
        fz_fail("a made hello of the wrong size");
    }
    tn_sock_hello_t h;
    int valid = strlen(key) > 0 && (kind == TN_SOCK_KIND_STREAM || kind == TN_SOCK_KIND_PORT);
    for (size_t i = 0; i < strlen(key); i++) {
        valid &= key[i] >= 0x21 && key[i] <= 0x7e;
    }
    if ((tn_sock_hello_decode(hello, hlen, &h) == TN_OK) != valid) {
        fz_fail("a made hello decodes other than its contents say");
    }
    if (valid) {
        fz_hello_ok(&h);
        if (h.kind != kind || h.port_id != port || strcmp(h.key, key) != 0) {
            fz_fail("a made hello decodes to something else");
        }
    }
    /* the reply, with its MAC made right (or nearly) when asked */
    memset(reply, 0, sizeof(reply));
    memcpy(reply, s, len < sizeof(reply) ? len : sizeof(reply));
    fz_mac(fz_secret, 'A', hello, hlen, reply + 4, right);
    fz_mac(fz_secret, 'C', hello, hlen, reply + 4, right_c);
    uint8_t *mac = reply + 4 + TN_SOCK_NONCE;
    switch (forge) {
    case 1:
        memcpy(mac, right, TN_SOCK_MAC);
        break;
    case 2:
        fz_mac(fz_other, 'A', hello, hlen, reply + 4, mac);
        break;
    case 3:
        memcpy(mac, right_c, TN_SOCK_MAC);
        break;
    case 4:
        hello[8] ^= 1;                       /* another nonce_c: another hello */
        fz_mac(fz_secret, 'A', hello, hlen, reply + 4, mac);
        hello[8] ^= 1;
        break;
    case 5:
        memcpy(mac, right, TN_SOCK_MAC);
        mac[0] ^= 1;
        break;
    default:
        break;
    }
    memset(confirm, 0, sizeof(confirm));
    int ok = tn_sock_reply_check(fz_secret, hello, hlen, reply, confirm) == TN_OK;
    int keyed = memcmp(reply, "TNDY", 4) == 0 && sodium_memcmp(mac, right, TN_SOCK_MAC) == 0;
    if (ok != keyed) {
        fz_fail(ok ? "a reply accepted that is not keyed by the secret"
                   : "the right reply refused");
    }
    if (ok && memcmp(confirm, right_c, TN_SOCK_MAC) != 0) {
        fz_fail("a passing reply yields the wrong confirm");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || sodium_init() < 0) {
        return 0;
    }
    int m = data[0];
    int forge = (m >> 4) & 7;
    uint8_t *s = malloc(size);               /* the acceptor's fix-ups write */
    if (s == NULL) {
        fz_fail("out of memory");
    }
    memcpy(s, data + 1, size - 1);
    if (!(m & 1)) {
        int chunk = ((m >> 1) & 7) + 1;
        fz_acceptor(chunk == 8 ? (int)size : chunk, forge, s, size - 1);
    } else {
        fz_connector((m >> 1) & 7, forge, s, size - 1);
    }
    free(s);
    return 0;
}
