/* Host writes and reads, and copies between buffers of one device. */
#include <string.h>

#include "device/backend_api.h"
#include "vulkan_internal.h"

tdm_status tdm_vk_write(tdm_buffer *buf, void *state, size_t offset, const void *src, size_t size)
{
    (void)buf;
    tdm_vk_buffer *vb = state;
    tdm_vk_device *vd = vb->owner;
    if (size == 0)
        return TDM_OK;
    /* Work recorded or running may still use these bytes: then the copy queues behind
     * it through the staging ring rather than the host waiting for the device. */
    int idle = 0;
    tdm_status s = vb->mapped ? tdm_vk_completed(vd, tdm_vk_last_recorded(vd), &idle) : TDM_OK;
    if (s != TDM_OK || !idle)
        return s != TDM_OK ? s : tdm_vk_host_write(vd, vb->buffer, offset, src, size);
    memcpy(vb->mapped + offset, src, size);
    return tdm_vk_sync_mapped(vd, vb, offset, size, 1);
}

tdm_status tdm_vk_read(tdm_buffer *buf, void *state, size_t offset, void *dst, size_t size)
{
    (void)buf;
    tdm_vk_buffer *vb = state;
    tdm_vk_device *vd = vb->owner;
    if (size == 0)
        return TDM_OK;
    if (!vb->mapped)
        return tdm_vk_host_read(vd, vb->buffer, offset, dst, size);
    tdm_status s = tdm_vk_finish(vd->dev, vd);
    if (s == TDM_OK)
        s = tdm_vk_sync_mapped(vd, vb, offset, size, 0);
    if (s == TDM_OK)
        memcpy(dst, vb->mapped + offset, size);
    return s;
}

tdm_status tdm_vk_copy(tdm_buffer *dst, void *dst_state, size_t dst_offset, tdm_buffer *src,
                       void *src_state, size_t src_offset, size_t size)
{
    (void)dst;
    (void)src;
    const tdm_vk_buffer *to = dst_state, *from = src_state;
    if (to->owner != from->owner) /* two VkDevices: the core stages such copies */
        return tdm_fail(TDM_ERR_UNSUPPORTED, "%s -> %s: Vulkan copies only within one device",
                        tdm_backend_device_desc(from->owner->dev)->id,
                        tdm_backend_device_desc(to->owner->dev)->id);
    if (size == 0)
        return TDM_OK;
    return tdm_vk_copy_region(to->owner, to->buffer, dst_offset, from->buffer, src_offset, size, 0,
                              NULL);
}
