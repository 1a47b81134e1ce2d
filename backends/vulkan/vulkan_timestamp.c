/* Timestamps (docs/modules/device.md, "Device timestamps"): vkCmdWriteTimestamp at the
 * bottom of the pipe, which latches the device's timer once the commands before it
 * have completed, into a query pool of one query, where the queue family's
 * timestampValidBits says its queues keep time. */
#include <stdlib.h>

#include "device/backend_api.h"
#include "vulkan_internal.h"

tdm_status tdm_vk_timestamps_open(tdm_vk_device *vd)
{
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(vd->physical, &count, NULL);
    VkQueueFamilyProperties *families = calloc(count, sizeof *families);
    if (!families)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory",
                        tdm_backend_device_desc(vd->dev)->id);
    vkGetPhysicalDeviceQueueFamilyProperties(vd->physical, &count, families);
    vd->timestamp_bits =
        vd->queue_family < count ? families[vd->queue_family].timestampValidBits : 0;
    free(families);
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(vd->physical, &props);
    vd->timestamp_period = props.limits.timestampPeriod;
    if (!vd->timestamp_bits)
        return TDM_OK;
    VkQueryPoolCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
        .queryType = VK_QUERY_TYPE_TIMESTAMP,
        .queryCount = 1,
    };
    VkResult r = vkCreateQueryPool(vd->device, &info, NULL, &vd->timestamps);
    return r == VK_SUCCESS ? TDM_OK : tdm_vk_fail(vd, "vkCreateQueryPool", r);
}

void tdm_vk_timestamps_release(tdm_vk_device *vd)
{
    if (vd->timestamps != VK_NULL_HANDLE)
        vkDestroyQueryPool(vd->device, vd->timestamps, NULL);
}

static tdm_status record_timestamp(tdm_vk_device *vd, tdm_vk_slot *slot, void *arg)
{
    (void)arg;
    vkCmdResetQueryPool(slot->cmd, vd->timestamps, 0, 1);
    vkCmdWriteTimestamp(slot->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, vd->timestamps, 0);
    return TDM_OK;
}

tdm_status tdm_vk_timestamp(tdm_device *dev, void *state, uint64_t *device_ns)
{
    tdm_vk_device *vd = state;
    if (vd->timestamps == VK_NULL_HANDLE)
        return tdm_fail(TDM_ERR_UNSUPPORTED, "%s: its compute queue keeps no timestamps",
                        tdm_backend_device_desc(dev)->id);
    tdm_vk_command cmd = {.record = record_timestamp};
    uint64_t value, ticks = 0;
    tdm_status s = tdm_vk_submit(vd, &cmd, &value);
    if (s == TDM_OK)
        s = tdm_vk_wait(vd, value);
    if (s != TDM_OK)
        return s;
    VkResult r = vkGetQueryPoolResults(vd->device, vd->timestamps, 0, 1, sizeof ticks, &ticks,
                                       sizeof ticks, VK_QUERY_RESULT_64_BIT);
    if (r != VK_SUCCESS)
        return tdm_vk_fail(vd, "vkGetQueryPoolResults", r);
    if (vd->timestamp_bits < 64)
        ticks &= (UINT64_C(1) << vd->timestamp_bits) - 1;
    *device_ns = (uint64_t)((double)ticks * vd->timestamp_period);
    return TDM_OK;
}
