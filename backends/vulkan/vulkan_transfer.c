/* Host writes and reads, and copies between buffers of one device. */
#include <string.h>

#include "device/backend_services.h"
#include "vulkan_internal.h"

tdm_status tdm_vk_write(tdm_buffer *buf, size_t offset, const void *src, size_t size)
{
    tdm_vk_device *vd = buf->device->impl;
    tdm_vk_buffer *vb = buf->impl;
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

tdm_status tdm_vk_read(tdm_buffer *buf, size_t offset, void *dst, size_t size)
{
    tdm_vk_device *vd = buf->device->impl;
    tdm_vk_buffer *vb = buf->impl;
    if (size == 0)
        return TDM_OK;
    if (!vb->mapped)
        return tdm_vk_host_read(vd, vb->buffer, offset, dst, size);
    tdm_status s = tdm_vk_finish(buf->device);
    if (s == TDM_OK)
        s = tdm_vk_sync_mapped(vd, vb, offset, size, 0);
    if (s == TDM_OK)
        memcpy(dst, vb->mapped + offset, size);
    return s;
}

tdm_status tdm_vk_copy(tdm_buffer *dst, size_t dst_offset, tdm_buffer *src, size_t src_offset,
                       size_t size)
{
    if (dst->device != src->device) /* two VkDevices: the core stages such copies */
        return tdm_fail(TDM_ERR_UNSUPPORTED, "%s -> %s: Vulkan copies only within one device",
                        src->device->desc.id, dst->device->desc.id);
    if (size == 0)
        return TDM_OK;
    tdm_vk_buffer *d = dst->impl, *s = src->impl;
    return tdm_vk_copy_region(dst->device->impl, d->buffer, dst_offset, s->buffer, src_offset, size,
                              0, NULL);
}
