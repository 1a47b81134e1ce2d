/* Wrapping the caller's host memory in a VkBuffer (VK_EXT_external_memory_host),
 * so that the device copies straight from or into it instead of through the
 * staging buffer. */
#include "vulkan_internal.h"

#define TDM_VK_HOST_HANDLE VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT
#define TDM_VK_IMPORT_USAGE (VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT)

/* Transfer buffers must accept the handle type, or creating them is invalid. */
static int buffers_importable(VkPhysicalDevice physical)
{
    VkPhysicalDeviceExternalBufferInfo info = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO,
        .usage = TDM_VK_IMPORT_USAGE,
        .handleType = TDM_VK_HOST_HANDLE,
    };
    VkExternalBufferProperties props = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
    vkGetPhysicalDeviceExternalBufferProperties(physical, &info, &props);
    return (props.externalMemoryProperties.externalMemoryFeatures &
            VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT) != 0;
}

VkDeviceSize tdm_vk_import_alignment(VkPhysicalDevice physical)
{
    if (!tdm_vk_has_extension(physical, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME) ||
        !buffers_importable(physical))
        return 0;
    VkPhysicalDeviceExternalMemoryHostPropertiesEXT host = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT,
    };
    tdm_vk_query_properties(physical, &host);
    return host.minImportedHostPointerAlignment;
}

void tdm_vk_import_load(tdm_vk_device *vd)
{
    if (vd->import_alignment)
        vd->host_pointer_properties = (PFN_vkGetMemoryHostPointerPropertiesEXT)vkGetDeviceProcAddr(
            vd->device, "vkGetMemoryHostPointerPropertiesEXT");
    if (!vd->host_pointer_properties)
        vd->import_alignment = 0;
}

static int create_import_buffer(tdm_vk_device *vd, size_t size, VkBuffer *buffer)
{
    VkExternalMemoryBufferCreateInfo external = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
        .handleTypes = TDM_VK_HOST_HANDLE,
    };
    VkBufferCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .pNext = &external,
        .size = size,
        .usage = TDM_VK_IMPORT_USAGE,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    return vkCreateBuffer(vd->device, &info, NULL, buffer) == VK_SUCCESS;
}

/* Coherent types only: the host then needs no flush or invalidate around a copy. */
static int import_type(tdm_vk_device *vd, void *host, VkBuffer buffer, size_t size, uint32_t *type)
{
    VkMemoryHostPointerPropertiesEXT props = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT,
    };
    if (vd->host_pointer_properties(vd->device, TDM_VK_HOST_HANDLE, host, &props) != VK_SUCCESS)
        return 0;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(vd->device, buffer, &req);
    const VkMemoryPropertyFlags coherent =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    return req.size <= size && req.alignment <= vd->import_alignment &&
           tdm_vk_find_type(vd, req.memoryTypeBits & props.memoryTypeBits, &coherent, 1, type);
}

static int import_memory(tdm_vk_device *vd, void *host, size_t size, uint32_t type,
                         VkDeviceMemory *memory)
{
    VkImportMemoryHostPointerInfoEXT import = {
        .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
        .handleType = TDM_VK_HOST_HANDLE,
        .pHostPointer = host,
    };
    VkMemoryAllocateInfo info = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .pNext = &import,
        .allocationSize = size,
        .memoryTypeIndex = type,
    };
    return vkAllocateMemory(vd->device, &info, NULL, memory) == VK_SUCCESS;
}

int tdm_vk_import(tdm_vk_device *vd, void *host, size_t size, tdm_vk_imported *out)
{
    *out = (tdm_vk_imported){VK_NULL_HANDLE, VK_NULL_HANDLE};
    uint32_t type = 0;
    int ok = create_import_buffer(vd, size, &out->buffer) &&
             import_type(vd, host, out->buffer, size, &type) &&
             import_memory(vd, host, size, type, &out->memory) &&
             vkBindBufferMemory(vd->device, out->buffer, out->memory, 0) == VK_SUCCESS;
    if (!ok)
        tdm_vk_import_release(vd, out);
    return ok;
}

void tdm_vk_import_release(tdm_vk_device *vd, tdm_vk_imported *imported)
{
    vkDestroyBuffer(vd->device, imported->buffer, NULL);
    vkFreeMemory(vd->device, imported->memory, NULL);
    *imported = (tdm_vk_imported){VK_NULL_HANDLE, VK_NULL_HANDLE};
}
