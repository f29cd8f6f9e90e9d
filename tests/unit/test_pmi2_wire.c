/* The PMI-2 decoders on replies of the dynamic-process commands, as
 * Hydra 4.0 writes them: spawn-response (rc, jobid, nerrs, maybe
 * errcodes) and name-lookup-response; tn_pmi2_errcodes_parse on good and
 * bad lists.  fuzz_pmi2 drives the same decoders with hostile input. */
#include "runtime/pmi_wire.h"

#include <string.h>

#include "../check.h"

static tn_pmi2_msg_t msg;

static int parse(const char *body)
{
    return tn_pmi2_msg_parse(body, strlen(body), &msg) == TN_OK;
}

static void errcodes(void)
{
    int c[4] = { 7, 7, 7, 7 };
    CHECK(tn_pmi2_errcodes_parse("", c, 4) == TN_OK && c[0] == 7);
    CHECK(tn_pmi2_errcodes_parse("0,-1,5", c, 4) == TN_OK);
    CHECK(c[0] == 0 && c[1] == -1 && c[2] == 5 && c[3] == 7);
    CHECK(tn_pmi2_errcodes_parse("0,0,0,0", c, 4) == TN_OK && c[3] == 0);
    CHECK(tn_pmi2_errcodes_parse("0,0,0,0,0", c, 4) == TN_ERR_PROTO);    /* more than n */
    CHECK(tn_pmi2_errcodes_parse("0,,1", c, 4) == TN_ERR_PROTO);
    CHECK(tn_pmi2_errcodes_parse("0,", c, 4) == TN_ERR_PROTO);
    CHECK(tn_pmi2_errcodes_parse(",0", c, 4) == TN_ERR_PROTO);
    CHECK(tn_pmi2_errcodes_parse("1x", c, 4) == TN_ERR_PROTO);
    CHECK(tn_pmi2_errcodes_parse("99999999999", c, 4) == TN_ERR_PROTO); /* past int */
    CHECK(tn_pmi2_errcodes_parse("0", c, 0) == TN_ERR_PROTO);
}

static void replies(void)
{
    long v = -5;
    CHECK(parse("cmd=spawn-response;rc=0;jobid=kvs_1_1_2_vm;nerrs=0;"));
    CHECK(strcmp(msg.pair[0].val, "spawn-response") == 0);
    CHECK(tn_pmi2_msg_int(&msg, "rc", -1000, 1000, &v) && v == 0);
    CHECK(tn_pmi2_msg_get(&msg, "errcodes") == NULL);
    CHECK(parse("cmd=name-lookup-response;port=tern:1:k#0@127.0.0.1:5!0;found=TRUE;rc=0;"));
    CHECK(strcmp(tn_pmi2_msg_get(&msg, "port"), "tern:1:k#0@127.0.0.1:5!0") == 0);
    CHECK(parse("cmd=name-unpublish-response;rc=1;errmsg=service_x_not_found;"));
    CHECK(tn_pmi2_msg_int(&msg, "rc", -1000, 1000, &v) && v == 1);
}

int main(void)
{
    errcodes();
    replies();
    return tn_check_report("test_pmi2_wire");
}
