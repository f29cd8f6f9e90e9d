/* Fuzz harness of tern-run's reading of a status slot (tools/tern-run/
 * run_slot.c): what a rank wrote into its slot of the status segment is
 * hostile (a wild pointer, a hostile program), so tn_run_slot_decode
 * checks it and tn_run_slot_format prints only what was decoded.
 *
 * Input: the ask value (4 bytes), the segment clock (8 bytes), then the
 * slot's bytes as the launcher copied them (up to TERN_STATUS_SLOT_SIZE;
 * fewer is a truncated copy).  Seeds: tests/launcher/status_unit --corpus
 * DIR writes the slots its checks make (the library's writer and hostile
 * ones).
 *
 * Checked: counts within the slot (nreqs <= TERN_STATUS_MAX_REQS <=
 * nreqs_total); the communicator's name terminated and printable; an
 * answer taken only for the ask given; the report is printable ASCII
 * lines, each starting with the prefix, of bounded length. */
#include "run_slot.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_PREFIX "P> "

static void fz_fail(const char *what)
{
    fprintf(stderr, "fuzz_status: %s\n", what);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint64_t slot[TERN_STATUS_SLOT_SIZE / 8];
    static tn_run_slot_t s;
    tn_run_buf_t out = { 0 };
    uint32_t     ask;
    uint64_t     now;
    size_t       len;

    if (size < 12) {
        return 0;
    }
    memcpy(&ask, data, 4);
    memcpy(&now, data + 4, 8);
    data += 12;
    size -= 12;
    len = size < sizeof(slot) ? size : sizeof(slot);
    memset(slot, 0, sizeof(slot));
    memcpy(slot, data, len);

    tn_run_slot_decode(slot, len, ask, &s);
    if (s.nreqs > TERN_STATUS_MAX_REQS || s.nreqs_total < s.nreqs) {
        fz_fail("request counts out of bounds");
    }
    if (s.answered && (ask == 0 || len < TERN_STATUS_SLOT_SIZE || !s.attached)) {
        fz_fail("an answer taken without an ask or a whole slot");
    }
    if (memchr(s.comm.name, '\0', sizeof(s.comm.name)) == NULL) {
        fz_fail("communicator name not terminated");
    }
    for (const char *c = s.comm.name; *c != '\0'; c++) {
        if (*c < 0x20 || *c >= 0x7f) {
            fz_fail("communicator name not printable");
        }
    }

    tn_run_slot_format(&s, 12, 345, "host", now, FZ_PREFIX, &out);
    if (out.len == 0 || out.data[out.len - 1] != '\n') {
        fz_fail("the report does not end a line");
    }
    if (out.len > 64 * 1024) {
        fz_fail("report too long");
    }
    for (size_t i = 0; i < out.len; i++) {
        unsigned char c = (unsigned char)out.data[i];

        if (c != '\n' && (c < 0x20 || c >= 0x7f)) {
            fz_fail("unprintable byte in the report");
        }
        if ((i == 0 || out.data[i - 1] == '\n') &&
            strncmp(out.data + i, FZ_PREFIX, strlen(FZ_PREFIX)) != 0) {
            fz_fail("a line without the prefix");
        }
    }
    tn_run_buf_free(&out);
    return 0;
}
