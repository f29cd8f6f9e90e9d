#include "xport/xport.h"
#include "base/log.h"

tn_status_t tn_xport_check_ops(const tn_xport_ops_t *ops)
{
    if (ops->name == NULL || ops->max_payload == NULL || ops->am_send == NULL ||
        ops->am_send_fill == NULL || ops->progress == NULL || ops->get == NULL ||
        ops->caps == NULL ||
        ops->eager_limit == NULL || ops->tiny_limit == NULL) {
        tn_log_error("xport", "transport %s lacks a required operation",
                     ops->name ? ops->name : "?");
        return TN_ERR_INVAL;
    }
    return TN_OK;
}
