/* Fuzz harness of the value parsers of strings from the environment and
 * the key-value space: the configuration table (src/base/config.c: ints,
 * sizes like "64k", doubles, booleans, strings), TERN_UDP_AUTH
 * (tn_udp_auth_parse), a peer's published udp rails (tn_udp_card_parse,
 * "a,ip/len:port+net/len,..." from the PMI key-value space) and the job's
 * secret as rank 0 publishes it there (tn_udp_secret_parse, hex).
 *
 * Input: a byte choosing the configuration variable (index modulo
 * tn_config_count()), then its value (cut at the first NUL).  The value
 * goes through tn_config_parse_size, tn_config_parse_bool,
 * tn_udp_auth_parse, tn_udp_card_parse and tn_udp_secret_parse directly,
 * then into the environment as that variable, and tn_config_load parses it
 * with the variable's type; tn_config_describe formats the result (into buffers of
 * several sizes).  The variable is removed again before returning.
 *
 * Checked: a size or a bool that parses has no sign / is 0 or 1; a refused
 * TERN_UDP_AUTH says why; a card that parses is within its limits and
 * formats into a string that parses to the same card; a secret parses
 * exactly when it is 64 lowercase hex digits, and then decodes to those
 * digits, else leaves its output as it was;
 * describe NUL-terminates within its buffer (ASan: buffers of exact size). */
#include "base/config.h"
#include "xport/udp/udp_auth.h"
#include "xport/udp/udp_conn.h"
#include "xport/udp/udp_rails.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fz_fail(const char *what, const char *val)
{
    fprintf(stderr, "fuzz_config: %s (value \"%s\")\n", what, val);
    abort();
}

static void fz_secret(const char *val)
{
    static const char hex[] = "0123456789abcdef";
    uint8_t secret[TN_UDP_SECRET_BYTES];
    memset(secret, 0xa5, sizeof(secret));
    tn_status_t st = tn_udp_secret_parse(val, secret);
    size_t len = strlen(val);
    int valid = len == 2 * TN_UDP_SECRET_BYTES && strspn(val, hex) == len;
    if ((st == TN_OK) != valid) {
        fz_fail(valid ? "a valid secret was refused" : "an invalid secret was accepted", val);
    }
    for (int i = 0; i < TN_UDP_SECRET_BYTES; i++) {
        if (st == TN_OK ? hex[secret[i] >> 4] != val[2 * i] ||
                          hex[secret[i] & 15] != val[2 * i + 1]
                        : secret[i] != 0xa5) {
            fz_fail(st == TN_OK ? "a secret does not decode to its digits"
                                : "a refused secret changed the output", val);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* NAME=value for putenv: the environment points into it while set */
    static char env[4096 + 128];
    if (size < 1) {
        return 0;
    }
    int n = tn_config_count();
    if (n <= 0) {
        return 0;
    }
    int idx = data[0] % n;
    size_t len = size - 1;
    if (len > 4096) {
        len = 4096;
    }
    char *val = malloc(len + 1);
    if (val == NULL) {
        fz_fail("out of memory", "");
    }
    memcpy(val, data + 1, len);
    val[len] = '\0';

    uint64_t sz;
    if (tn_config_parse_size(val, &sz) == TN_OK) {
        if (val[0] == '-' || val[0] == '\0') {
            fz_fail("a size with a sign or empty was accepted", val);
        }
    }
    int b;
    if (tn_config_parse_bool(val, &b) == TN_OK && b != 0 && b != 1) {
        fz_fail("a bool other than 0 or 1", val);
    }
    const char *why = NULL;
    int mode = tn_udp_auth_parse(val, &why);
    if (mode < 0 && why == NULL) {
        fz_fail("tn_udp_auth_parse refused without saying why", val);
    }
    tn_udp_card_t card, again;
    if (tn_udp_card_parse(val, &card) == TN_OK) {
        char out[TN_UDP_CARD_LEN];
        if (card.n < 0 || card.n > TN_UDP_MAX_CANDS) {
            fz_fail("a card with too many candidates", val);
        }
        for (int i = 0; i < card.n; i++) {
            if (card.c[i].len > 32 || card.c[i].port == 0 ||
                card.c[i].nroutes > TN_UDP_CAND_ROUTES) {
                fz_fail("a card candidate out of range", val);
            }
        }
        if (tn_udp_card_format(&card, out, sizeof(out)) == 0 ||
            tn_udp_card_parse(out, &again) != TN_OK || memcmp(&card, &again, sizeof(card)) != 0) {
            fz_fail("a card does not survive format and parse", val);
        }
    }
    fz_secret(val);

    tn_config_desc_t desc;
    char buf[64];
    tn_config_describe(idx, &desc, buf, sizeof(buf));
    snprintf(env, sizeof(env), "%s=%s", desc.name, val);
    if (putenv(env) != 0) {
        fz_fail("putenv", val);
    }
    tn_config_load(0);
    static const int blens[] = { 1, 2, 7, 64, 300 };
    for (size_t i = 0; i < sizeof(blens) / sizeof(blens[0]); i++) {
        char *out = malloc((size_t)blens[i]);
        if (out == NULL) {
            fz_fail("out of memory", val);
        }
        tn_config_describe(idx, &desc, out, blens[i]);
        if (memchr(out, '\0', (size_t)blens[i]) == NULL) {
            fz_fail("describe did not NUL-terminate", val);
        }
        free(out);
    }
    unsetenv(desc.name);
    tn_config_load(0);                  /* back to the defaults */
    free(val);
    return 0;
}
