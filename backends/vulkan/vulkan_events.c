/* finish, events and queue waits: an event is the number of the submission that
 * completes the work recorded before it (the open batch's, if there is one), and
 * completes with it. Waiting or asking submits that batch first. */
#include <stdlib.h>

#include "device/backend_api.h"
#include "vulkan_internal.h"

tdm_status tdm_vk_finish(tdm_device *dev, void *state)
{
    (void)dev;
    tdm_vk_device *vd = state;
    tdm_status s = tdm_vk_wait(vd, tdm_vk_last_recorded(vd));
    tdm_vk_retire_sweep(vd); /* the device is idle: every retired buffer goes */
    return s;
}

tdm_status tdm_vk_event_record(tdm_device *dev, void *state, void **event)
{
    uint64_t *value = malloc(sizeof *value);
    if (!value)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory for an event",
                        tdm_backend_device_desc(dev)->id);
    *value = tdm_vk_last_recorded(state);
    *event = value;
    return TDM_OK;
}

tdm_status tdm_vk_event_wait(tdm_device *dev, void *state, void *event)
{
    (void)dev;
    return tdm_vk_wait(state, *(const uint64_t *)event);
}

tdm_status tdm_vk_event_query(tdm_device *dev, void *state, void *event, int *done)
{
    (void)dev;
    return tdm_vk_is_done(state, *(const uint64_t *)event, done);
}

void tdm_vk_event_release(tdm_device *dev, void *state, void *event)
{
    (void)dev;
    (void)state;
    free(event);
}

/* One queue per VkDevice, and every tdm_device has its own VkDevice: only a device
 * waiting for itself needs nothing (its later work is ordered after its earlier work
 * wherever the data asks for it). A semaphore cannot cross VkDevices without
 * exporting it, so the core waits on the host for the rest. */
tdm_status tdm_vk_queue_wait(tdm_device *dev, void *state, tdm_device *src, void *src_state,
                             void *event)
{
    (void)event;
    if (state == src_state)
        return TDM_OK;
    return tdm_fail(TDM_ERR_UNSUPPORTED,
                    "%s waiting for %s: two VkDevices share no semaphore; the host waits",
                    tdm_backend_device_desc(dev)->id, tdm_backend_device_desc(src)->id);
}
