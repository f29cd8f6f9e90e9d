/* tern-monitor's JSON writer: nesting and its misuse, the escaping of
 * strings (quotes, backslashes, control bytes, HTML's specials, U+2028,
 * each byte of invalid UTF-8), integers at their limits, doubles in the
 * fewest digits that read back, NaN and infinities as null, a comma
 * locale (where one is installed), a bounded buffer. */
#include "mon_json.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"

static int json_is(tn_mon_buf_t *b, const char *want)
{
    int ok = b->len == strlen(want) && memcmp(b->data, want, b->len) == 0;

    if (!ok) {
        fprintf(stderr, "json: %.*s\n want %s\n", (int)b->len, b->data, want);
    }
    tn_mon_buf_reset(b);
    return ok;
}

int main(void)
{
    tn_mon_buf_t  b;
    tn_mon_json_t j;

    tn_mon_buf_init(&b, 0);
    tn_mon_json_init(&j, &b);
    tn_mon_json_obj(&j);
    tn_mon_json_kstr(&j, "s", "q\"b\\n\n\t\x01\x7f</>&");
    tn_mon_json_key(&j, "a");
    tn_mon_json_arr(&j);
    tn_mon_json_int(&j, INT64_MIN);
    tn_mon_json_uint(&j, UINT64_MAX);
    tn_mon_json_double(&j, 0.1);
    tn_mon_json_double(&j, -2.5e300);
    tn_mon_json_double(&j, NAN);
    tn_mon_json_double(&j, -INFINITY);
    tn_mon_json_bool(&j, 1);
    tn_mon_json_null(&j);
    tn_mon_json_str(&j, NULL);
    tn_mon_json_arr(&j);
    tn_mon_json_arr_end(&j);
    tn_mon_json_arr_end(&j);
    tn_mon_json_kdouble(&j, "third", 1.0 / 3);
    tn_mon_json_obj_end(&j);
    CHECK(tn_mon_json_done(&j) == 0);
    CHECK(json_is(&b, "{\"s\":\"q\\\"b\\\\n\\n\\t\\u0001\\u007f\\u003c/\\u003e\\u0026\","
                      "\"a\":[-9223372036854775808,18446744073709551615,0.1,-2.5e+300,null,"
                      "null,true,null,null,[]],\"third\":0.3333333333333333}"));

    /* UTF-8: valid kept; overlong, surrogate, too large, cut: U+FFFD each */
    tn_mon_json_init(&j, &b);
    tn_mon_json_str_n(&j, "\xc3\xa9\xf0\x9f\x98\x80\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82"
                          "\xe2\x80\xa8\0",
                      21);
    CHECK(tn_mon_json_done(&j) == 0);
    CHECK(json_is(&b, "\"\xc3\xa9\xf0\x9f\x98\x80"
                      "\xef\xbf\xbd\xef\xbf\xbd"
                      "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
                      "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
                      "\xef\xbf\xbd\xef\xbf\xbd"
                      "\\u2028\\u0000\""));

    /* misuse is refused, not written as bad JSON */
    tn_mon_json_init(&j, &b);
    tn_mon_json_obj(&j);
    tn_mon_json_int(&j, 1);                     /* no key */
    CHECK(tn_mon_json_done(&j) == -1);
    tn_mon_buf_reset(&b);
    tn_mon_json_init(&j, &b);
    tn_mon_json_arr(&j);
    tn_mon_json_obj_end(&j);                    /* wrong kind */
    CHECK(tn_mon_json_done(&j) == -1);
    tn_mon_buf_reset(&b);
    tn_mon_json_init(&j, &b);
    tn_mon_json_int(&j, 1);
    tn_mon_json_int(&j, 2);                     /* a second top value */
    CHECK(tn_mon_json_done(&j) == -1);
    tn_mon_buf_reset(&b);
    tn_mon_json_init(&j, &b);
    for (int i = 0; i < TN_MON_JSON_DEPTH_MAX + 1; i++) {
        tn_mon_json_arr(&j);
    }
    CHECK(j.failed);
    tn_mon_buf_free(&b);

    /* a locale whose decimal point is a comma changes nothing, if there is one */
    if (setlocale(LC_NUMERIC, "de_DE.UTF-8") != NULL || setlocale(LC_NUMERIC, "fr_FR.UTF-8")) {
        tn_mon_buf_init(&b, 0);
        tn_mon_json_init(&j, &b);
        tn_mon_json_double(&j, 1.5);
        CHECK(json_is(&b, "1.5"));
        setlocale(LC_NUMERIC, "C");
        tn_mon_buf_free(&b);
    } else {
        printf("test_mon_http: no comma locale here, the locale check skipped\n");
    }
    tn_mon_buf_init(&b, 4);                     /* a bound fails the text */
    tn_mon_json_init(&j, &b);
    tn_mon_json_str(&j, "four");
    CHECK(tn_mon_json_done(&j) == -1);
    tn_mon_buf_free(&b);
    return tn_check_report("test_mon_json");
}
