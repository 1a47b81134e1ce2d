/* Small queries about a physical device shared by discovery and device setup, and the
 * group size its kernels get once it is open. */
#include <stdlib.h>
#include <string.h>

#include "vulkan_internal.h"

int tdm_vk_env_flag(const char *name)
{
    const char *value = getenv(name);
    return value && *value && strcmp(value, "0") != 0;
}

VkPhysicalDeviceType tdm_vk_device_type(VkPhysicalDevice physical)
{
    if (tdm_vk_env_flag("TDM_VK_AS_GPU"))
        return VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(physical, &props);
    return props.deviceType;
}

/* The version usable on this device: the lower of the instance's and the device's. */
uint32_t tdm_vk_device_api(const tdm_backend *be, VkPhysicalDevice physical)
{
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(physical, &props);
    return props.apiVersion < be->api_version ? props.apiVersion : be->api_version;
}

/* 0 also when the list cannot be read: the extension is then simply not used. */
int tdm_vk_has_extension(VkPhysicalDevice physical, const char *name)
{
    uint32_t count = 0;
    if (vkEnumerateDeviceExtensionProperties(physical, NULL, &count, NULL) != VK_SUCCESS)
        return 0;
    VkExtensionProperties *ext = calloc(count ? count : 1, sizeof *ext);
    if (!ext)
        return 0;
    int found = 0;
    if (vkEnumerateDeviceExtensionProperties(physical, NULL, &count, ext) == VK_SUCCESS)
        for (uint32_t i = 0; i < count && !found; i++)
            found = strcmp(ext[i].extensionName, name) == 0;
    free(ext);
    return found;
}

void tdm_vk_query_properties(VkPhysicalDevice physical, void *chain)
{
    VkPhysicalDeviceProperties2 props = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
        .pNext = chain,
    };
    vkGetPhysicalDeviceProperties2(physical, &props);
}

void tdm_vk_query_features(VkPhysicalDevice physical, void *chain)
{
    VkPhysicalDeviceFeatures2 features = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
        .pNext = chain,
    };
    vkGetPhysicalDeviceFeatures2(physical, &features);
}

/* Core in Vulkan 1.1, which every device the backend keeps has, but optional. */
int tdm_vk_has_storage16(VkPhysicalDevice physical)
{
    VkPhysicalDevice16BitStorageFeatures storage16 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
    };
    tdm_vk_query_features(physical, &storage16);
    return storage16.storageBuffer16BitAccess == VK_TRUE;
}

int tdm_vk_compute_family(VkPhysicalDevice physical, uint32_t *family)
{
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, NULL);
    VkQueueFamilyProperties *families = calloc(count ? count : 1, sizeof *families);
    if (!families)
        return 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families);
    int found = 0;
    for (uint32_t i = 0; i < count && !found; i++)
        if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && families[i].queueCount > 0) {
            *family = i;
            found = 1;
        }
    free(families);
    return found;
}

uint32_t tdm_vk_group_size(const tdm_vk_device *vd, uint32_t table_group_size)
{
    if (vd->specialization.group_size)
        return vd->specialization.group_size;
    return table_group_size < vd->max_group_size ? table_group_size : vd->max_group_size;
}
