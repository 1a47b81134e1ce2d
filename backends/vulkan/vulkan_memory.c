/* Device memory: choosing a memory type, allocating, and keeping mapped memory
 * coherent where the type is not HOST_COHERENT. */
#include "device/backend_api.h"
#include "vulkan_internal.h"

/* The first allowed type with the first set of flags that any allowed type has:
 * the spec orders types so that the first match is the fastest. */
int tdm_vk_find_type(const tdm_vk_device *vd, uint32_t allowed,
                     const VkMemoryPropertyFlags *choices, size_t count, uint32_t *index)
{
    for (size_t c = 0; c < count; c++)
        for (uint32_t i = 0; i < vd->memory.memoryTypeCount; i++)
            if ((allowed & (1u << i)) &&
                (vd->memory.memoryTypes[i].propertyFlags & choices[c]) == choices[c]) {
                *index = i;
                return 1;
            }
    return 0;
}

static tdm_status allocation_failed(const tdm_vk_device *vd, VkDeviceSize size, VkResult r)
{
    return tdm_fail(tdm_vk_status(r), "%s '%s': vkAllocateMemory of %llu bytes failed: %s",
                    tdm_backend_device_desc(vd->dev)->id, tdm_backend_device_desc(vd->dev)->name,
                    (unsigned long long)size, tdm_vk_result_name(r));
}

tdm_status tdm_vk_allocate(tdm_vk_device *vd, VkBuffer buffer, const VkMemoryPropertyFlags *choices,
                           size_t count, VkDeviceMemory *memory, VkMemoryPropertyFlags *got)
{
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(vd->device, buffer, &req);
    uint32_t type = 0;
    if (!tdm_vk_find_type(vd, req.memoryTypeBits, choices, count, &type))
        return tdm_fail(TDM_ERR_UNSUPPORTED, "%s '%s': no memory type with flags 0x%x",
                        tdm_backend_device_desc(vd->dev)->id,
                        tdm_backend_device_desc(vd->dev)->name, (unsigned)choices[count - 1]);
    VkMemoryAllocateInfo info = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .allocationSize = req.size,
        .memoryTypeIndex = type,
    };
    VkResult r = vkAllocateMemory(vd->device, &info, NULL, memory);
    if (r != VK_SUCCESS)
        return allocation_failed(vd, req.size, r);
    r = vkBindBufferMemory(vd->device, buffer, *memory, 0);
    if (r != VK_SUCCESS) {
        vkFreeMemory(vd->device, *memory, NULL);
        *memory = VK_NULL_HANDLE;
        return tdm_vk_fail(vd, "vkBindBufferMemory", r);
    }
    *got = vd->memory.memoryTypes[type].propertyFlags;
    return TDM_OK;
}

/* Flushes host writes (to_device) or invalidates before host reads, on whole
 * nonCoherentAtomSize blocks as the spec requires. */
tdm_status tdm_vk_sync_mapped(tdm_vk_device *vd, const tdm_vk_buffer *vb, size_t offset,
                              size_t size, int to_device)
{
    if (vb->coherent || size == 0)
        return TDM_OK;
    VkDeviceSize atom = vd->atom_size ? vd->atom_size : 1;
    VkDeviceSize start = offset - offset % atom;
    VkDeviceSize end = (offset + size + atom - 1) / atom * atom;
    VkMappedMemoryRange range = {
        .sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
        .memory = vb->memory,
        .offset = start,
        .size = end >= vb->memory_size ? VK_WHOLE_SIZE : end - start,
    };
    VkResult r = to_device ? vkFlushMappedMemoryRanges(vd->device, 1, &range)
                           : vkInvalidateMappedMemoryRanges(vd->device, 1, &range);
    return r == VK_SUCCESS
               ? TDM_OK
               : tdm_vk_fail(
                     vd, to_device ? "vkFlushMappedMemoryRanges" : "vkInvalidateMappedMemoryRanges",
                     r);
}
