/* Device buffers: one VkBuffer with its own allocation, mapped when the host can
 * reach the memory directly. */
#include <stdlib.h>

#include "device/backend_api.h"
#include "vulkan_internal.h"

static tdm_status create_buffer(tdm_vk_device *vd, size_t size, tdm_vk_buffer *vb)
{
    VkBufferCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = size,
        .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                 VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    VkResult r = vkCreateBuffer(vd->device, &info, NULL, &vb->buffer);
    return r == VK_SUCCESS ? TDM_OK : tdm_vk_fail(vd, "vkCreateBuffer", r);
}

static tdm_status map_if_visible(tdm_vk_device *vd, tdm_vk_buffer *vb, VkMemoryPropertyFlags flags)
{
    if (!(flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) || vd->force_staging)
        return TDM_OK;
    vb->coherent = (flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(vd->device, vb->buffer, &req);
    vb->memory_size = req.size;
    void *mapped = NULL;
    VkResult r = vkMapMemory(vd->device, vb->memory, 0, VK_WHOLE_SIZE, 0, &mapped);
    if (r != VK_SUCCESS)
        return tdm_vk_fail(vd, "vkMapMemory", r);
    vb->mapped = mapped;
    return TDM_OK;
}

/* A buffer of `size` bytes in the first memory type that fits. */
static tdm_status allocate(tdm_vk_device *vd, size_t size, tdm_vk_buffer **out)
{
    tdm_vk_buffer *vb = calloc(1, sizeof *vb);
    if (!vb)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory",
                        tdm_backend_device_desc(vd->dev)->id);
    vb->owner = vd;
    /* Unified memory: host-visible device memory is as fast and needs no staging.
     * Otherwise the first device-local type, not a small host-visible window. */
    const VkMemoryPropertyFlags choices[] = {
        VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
        VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
        0,
    };
    size_t first = vd->unified_memory ? 0 : 1;
    VkMemoryPropertyFlags flags = 0;
    tdm_status s = create_buffer(vd, size, vb);
    if (s == TDM_OK)
        s = tdm_vk_allocate(vd, vb->buffer, choices + first, 3 - first, &vb->memory, &flags);
    if (s == TDM_OK)
        s = map_if_visible(vd, vb, flags);
    if (s != TDM_OK) {
        tdm_vk_buffer_destroy(vd, vb);
        return s;
    }
    *out = vb;
    return TDM_OK;
}

/* Out of memory while freed buffers wait for their work: once it has completed and
 * they are gone, a second try. */
tdm_status tdm_vk_buffer_alloc(tdm_buffer *buf, void *device_state, void **state)
{
    tdm_vk_device *vd = device_state;
    tdm_vk_buffer *vb = NULL;
    tdm_vk_retire_sweep(vd);
    tdm_status s = allocate(vd, tdm_backend_buffer_size(buf), &vb);
    if (s == TDM_ERR_OUT_OF_MEMORY && tdm_vk_retire_wait(vd))
        s = allocate(vd, tdm_backend_buffer_size(buf), &vb);
    *state = vb;
    return s;
}

/* The core does not wait for the device (backend.h): the buffer is destroyed once
 * the work recorded before the free has completed (vulkan_buffer_release.c). */
void tdm_vk_buffer_free(tdm_buffer *buf, void *state)
{
    (void)buf;
    tdm_vk_buffer *vb = state;
    if (vb)
        tdm_vk_retire(vb->owner, vb);
}

/* Host-coherent memory of a unified-memory device only: elsewhere mapped memory is
 * a slow window across a bus, or needs flushes the core does not make. The rule
 * that makes it safe with batches is in backend.h: the core writes only where an
 * event after every earlier use of the range has completed, and a batch recorded
 * before the write holds no such use; work recorded after the write is submitted
 * after it, and a submission makes earlier host writes visible. */
void *tdm_vk_host_address(tdm_buffer *buf, void *state)
{
    (void)buf;
    const tdm_vk_buffer *vb = state;
    return vb->owner->unified_memory && vb->coherent ? vb->mapped : NULL;
}
