/* VkResult names and their mapping onto tdm_status. */
#include "vulkan_internal.h"

#include "device/backend_api.h"

#define TDM_VK_RESULT_CASE(r)                                                                      \
    case r: return #r;

const char *tdm_vk_result_name(VkResult result)
{
    switch (result) {
        TDM_VK_RESULT_CASE(VK_SUCCESS)
        TDM_VK_RESULT_CASE(VK_NOT_READY)
        TDM_VK_RESULT_CASE(VK_TIMEOUT)
        TDM_VK_RESULT_CASE(VK_INCOMPLETE)
        TDM_VK_RESULT_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
        TDM_VK_RESULT_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        TDM_VK_RESULT_CASE(VK_ERROR_INITIALIZATION_FAILED)
        TDM_VK_RESULT_CASE(VK_ERROR_DEVICE_LOST)
        TDM_VK_RESULT_CASE(VK_ERROR_MEMORY_MAP_FAILED)
        TDM_VK_RESULT_CASE(VK_ERROR_LAYER_NOT_PRESENT)
        TDM_VK_RESULT_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
        TDM_VK_RESULT_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
        TDM_VK_RESULT_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
        TDM_VK_RESULT_CASE(VK_ERROR_TOO_MANY_OBJECTS)
        TDM_VK_RESULT_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
        TDM_VK_RESULT_CASE(VK_ERROR_FRAGMENTED_POOL)
        TDM_VK_RESULT_CASE(VK_ERROR_UNKNOWN)
        TDM_VK_RESULT_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
        TDM_VK_RESULT_CASE(VK_ERROR_FRAGMENTATION)
        TDM_VK_RESULT_CASE(VK_ERROR_VALIDATION_FAILED_EXT)
        TDM_VK_RESULT_CASE(VK_ERROR_INVALID_SHADER_NV)
    default: return "unknown VkResult";
    }
}

tdm_status tdm_vk_status(VkResult result)
{
    switch (result) {
    case VK_SUCCESS: return TDM_OK;
    case VK_ERROR_DEVICE_LOST: return TDM_ERR_DEVICE_LOST;
    case VK_ERROR_OUT_OF_HOST_MEMORY:
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return TDM_ERR_OUT_OF_MEMORY;
    default: return TDM_ERR_BACKEND;
    }
}

tdm_status tdm_vk_fail(const tdm_vk_device *vd, const char *call, VkResult result)
{
    return tdm_fail(tdm_vk_status(result), "%s '%s': %s failed: %s (%d)",
                    tdm_backend_device_desc(vd->dev)->id, tdm_backend_device_desc(vd->dev)->name,
                    call, tdm_vk_result_name(result), (int)result);
}
