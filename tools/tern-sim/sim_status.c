#include "sim_status.h"

const char *tn_sim_status_str(tn_sim_status_t status)
{
    switch (status) {
#define TN_SIM_STATUS_CASE(name, val, str) \
    case TN_SIM_##name:                    \
        return str;
        TN_SIM_STATUS_LIST(TN_SIM_STATUS_CASE)
#undef TN_SIM_STATUS_CASE
    }
    return "unknown status";
}
