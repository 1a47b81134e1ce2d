#include "device/device_status.h"
#include "base/error.h"
#include "device/event_order.h"

tdm_status tdm_device_wait_event(tdm_device *dev, tdm_event *event)
{
    tdm_device *src = event->device;
    if (src == dev)
        return TDM_OK; /* one in-order queue */
    tdm_status s = tdm_device_check_alive(dev, "tdm_device_wait_event");
    if (s == TDM_OK && dev->ops == src->ops && dev->ops->queue_wait) {
        s = tdm_device_result(dev,
                              dev->ops->queue_wait(dev, dev->impl, src, src->impl, event->impl));
        if (s != TDM_ERR_UNSUPPORTED)
            return s;
    }
    return s == TDM_OK || s == TDM_ERR_UNSUPPORTED ? tdm_event_wait(event) : s;
}
