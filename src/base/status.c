#include "base/status.h"

const char *tn_status_str(tn_status_t status)
{
    switch (status) {
#define TN_STATUS_CASE(name, val, str) case TN_##name: return str;
    TN_STATUS_LIST(TN_STATUS_CASE)
#undef TN_STATUS_CASE
    }
    return "unknown status";
}
