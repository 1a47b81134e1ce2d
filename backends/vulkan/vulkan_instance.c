/* The VkInstance, the validation layer hook and the list of usable physical devices. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/backend_api.h"
#include "vulkan_internal.h"

#define TDM_VK_VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"

/* TDM_VK_SYNC_VALIDATION=1 (with validation): the layer also checks that barriers
 * order every access to memory that needs it, which is slow. */
static int wants_sync_validation(void)
{
    const char *value = getenv("TDM_VK_SYNC_VALIDATION");
    return value && strcmp(value, "1") == 0;
}

static int instance_has_layer(const char *name)
{
    uint32_t count = 0;
    if (vkEnumerateInstanceLayerProperties(&count, NULL) != VK_SUCCESS)
        return 0;
    VkLayerProperties *layers = calloc(count ? count : 1, sizeof *layers);
    if (!layers)
        return 0;
    int found = 0;
    if (vkEnumerateInstanceLayerProperties(&count, layers) == VK_SUCCESS)
        for (uint32_t i = 0; i < count && !found; i++)
            found = strcmp(layers[i].layerName, name) == 0;
    free(layers);
    return found;
}

/* layer NULL: the loader's and the drivers' extensions. */
static int instance_has_extension(const char *layer, const char *name)
{
    uint32_t count = 0;
    if (vkEnumerateInstanceExtensionProperties(layer, &count, NULL) != VK_SUCCESS)
        return 0;
    VkExtensionProperties *ext = calloc(count ? count : 1, sizeof *ext);
    if (!ext)
        return 0;
    int found = 0;
    if (vkEnumerateInstanceExtensionProperties(layer, &count, ext) == VK_SUCCESS)
        for (uint32_t i = 0; i < count && !found; i++)
            found = strcmp(ext[i].extensionName, name) == 0;
    free(ext);
    return found;
}

static VKAPI_ATTR VkBool32 VKAPI_CALL on_validation(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    (void)severity;
    (void)types;
    tdm_context_report_validation(user, data->pMessage ? data->pMessage : "(no message)");
    return VK_FALSE; /* never make the reported call fail */
}

static VkDebugUtilsMessengerCreateInfoEXT messenger_info(tdm_context *ctx)
{
    VkDebugUtilsMessengerCreateInfoEXT info = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = on_validation,
        .pUserData = ctx,
    };
    return info;
}

static tdm_status check_validation_available(void)
{
    if (!instance_has_layer(TDM_VK_VALIDATION_LAYER))
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "vulkan: validation was requested but the layer %s is not installed",
                        TDM_VK_VALIDATION_LAYER);
    if (!instance_has_extension(NULL, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) &&
        !instance_has_extension(TDM_VK_VALIDATION_LAYER, VK_EXT_DEBUG_UTILS_EXTENSION_NAME))
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "vulkan: validation was requested but %s is not available",
                        VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    return TDM_OK;
}

static tdm_status instance_failed(VkResult r)
{
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
        return tdm_fail(TDM_ERR_NOT_FOUND,
                        "vulkan: no Vulkan driver (ICD) is installed: "
                        "vkCreateInstance failed: %s",
                        tdm_vk_result_name(r));
    if (r == VK_ERROR_LAYER_NOT_PRESENT || r == VK_ERROR_EXTENSION_NOT_PRESENT)
        return tdm_fail(TDM_ERR_UNSUPPORTED, "vulkan: vkCreateInstance failed: %s",
                        tdm_vk_result_name(r));
    return tdm_fail(tdm_vk_status(r), "vulkan: vkCreateInstance failed: %s (%d)",
                    tdm_vk_result_name(r), (int)r);
}

/* Fills names (room for 3) and returns how many. */
static uint32_t instance_extensions(int validate, int sync, const char **names,
                                    VkInstanceCreateFlags *flags)
{
    uint32_t count = 0;
    if (validate)
        names[count++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    if (validate && sync) /* the layer offers it */
        names[count++] = VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
    /* Lists drivers such as MoltenVK that are not fully conformant. */
    if (instance_has_extension(NULL, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
        names[count++] = VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME;
        *flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
    }
    return count;
}

static tdm_status create_instance(tdm_backend *be, int validate)
{
    uint32_t loader = VK_API_VERSION_1_0;
    if (vkEnumerateInstanceVersion(&loader) != VK_SUCCESS || loader < VK_API_VERSION_1_1)
        return tdm_fail(TDM_ERR_NOT_FOUND, "vulkan: the Vulkan loader is older than 1.1");
    be->api_version = loader >= VK_API_VERSION_1_2 ? VK_API_VERSION_1_2 : VK_API_VERSION_1_1;

    const char *extensions[3];
    VkInstanceCreateFlags flags = 0;
    int sync = wants_sync_validation();
    uint32_t extension_count = instance_extensions(validate, sync, extensions, &flags);
    const char *layer = TDM_VK_VALIDATION_LAYER;
    VkValidationFeatureEnableEXT sync_feature =
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    VkValidationFeaturesEXT features = {
        .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
        .enabledValidationFeatureCount = 1,
        .pEnabledValidationFeatures = &sync_feature,
    };
    VkDebugUtilsMessengerCreateInfoEXT messenger = messenger_info(be->ctx);
    messenger.pNext = sync ? &features : NULL;
    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "tandem",
        .pEngineName = "tandem",
        .apiVersion = be->api_version,
    };
    VkInstanceCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = validate ? &messenger : NULL, /* also covers vkCreate/DestroyInstance */
        .flags = flags,
        .pApplicationInfo = &app,
        .enabledLayerCount = validate ? 1 : 0,
        .ppEnabledLayerNames = &layer,
        .enabledExtensionCount = extension_count,
        .ppEnabledExtensionNames = extensions,
    };
    VkResult r = vkCreateInstance(&info, NULL, &be->instance);
    return r == VK_SUCCESS ? TDM_OK : instance_failed(r);
}

static tdm_status create_messenger(tdm_backend *be)
{
    PFN_vkCreateDebugUtilsMessengerEXT create =
        (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(be->instance,
                                                                  "vkCreateDebugUtilsMessengerEXT");
    be->destroy_messenger = (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
        be->instance, "vkDestroyDebugUtilsMessengerEXT");
    if (!create || !be->destroy_messenger)
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "vulkan: vkCreateDebugUtilsMessengerEXT is not available");
    VkDebugUtilsMessengerCreateInfoEXT info = messenger_info(be->ctx);
    VkResult r = create(be->instance, &info, NULL, &be->messenger);
    if (r != VK_SUCCESS)
        return tdm_fail(tdm_vk_status(r), "vulkan: vkCreateDebugUtilsMessengerEXT failed: %s",
                        tdm_vk_result_name(r));
    return TDM_OK;
}

static int has_compute_queue(VkPhysicalDevice physical)
{
    uint32_t family;
    return tdm_vk_compute_family(physical, &family);
}

static int usable(const tdm_backend *be, VkPhysicalDevice physical)
{
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(physical, &props);
    int ok = has_compute_queue(physical) && tdm_vk_device_api(be, physical) >= VK_API_VERSION_1_1;
    if (!ok)
        tdm_log(be->ctx, TDM_LOG_INFO,
                "vulkan: skipping '%s': it lacks a compute queue or Vulkan 1.1", props.deviceName);
    return ok;
}

static tdm_status collect_devices(tdm_backend *be)
{
    uint32_t count = 0;
    VkResult r = vkEnumeratePhysicalDevices(be->instance, &count, NULL);
    if (r == VK_ERROR_INITIALIZATION_FAILED) /* e.g. only drivers for absent hardware */
        return tdm_fail(TDM_ERR_NOT_FOUND,
                        "vulkan: no working Vulkan driver (ICD): "
                        "vkEnumeratePhysicalDevices failed: %s",
                        tdm_vk_result_name(r));
    if (r != VK_SUCCESS)
        return tdm_fail(tdm_vk_status(r), "vulkan: vkEnumeratePhysicalDevices failed: %s",
                        tdm_vk_result_name(r));
    be->physical = calloc(count ? count : 1, sizeof *be->physical);
    if (!be->physical)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "vulkan: out of host memory listing devices");
    r = vkEnumeratePhysicalDevices(be->instance, &count, be->physical);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE)
        return tdm_fail(tdm_vk_status(r), "vulkan: vkEnumeratePhysicalDevices failed: %s",
                        tdm_vk_result_name(r));
    if (count == 0)
        return tdm_fail(TDM_ERR_NOT_FOUND,
                        "vulkan: no physical device: no working Vulkan driver (ICD)");
    for (uint32_t i = 0; i < count; i++)
        if (usable(be, be->physical[i]))
            be->physical[be->count++] = be->physical[i];
    if (be->count == 0)
        return tdm_fail(TDM_ERR_NOT_FOUND,
                        "vulkan: none of the %u physical devices has a compute queue", count);
    return TDM_OK;
}

tdm_status tdm_vk_create(tdm_context *ctx, tdm_backend **out)
{
    const char *loader;
    tdm_status s = tdm_vk_load(&loader);
    if (s != TDM_OK)
        return s;
    tdm_backend *be = calloc(1, sizeof *be);
    if (!be)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "vulkan: out of host memory");
    be->ctx = ctx;
    be->loader_note = loader;
    int validate = tdm_context_wants_validation(ctx);
    /* The drivers the loader opens for the instance stay loaded in sanitizer builds
     * (tdm_dynlib_keep_loaded_since says why). */
    size_t before = tdm_dynlib_loaded_count();
    s = validate ? check_validation_available() : TDM_OK;
    if (s == TDM_OK)
        s = create_instance(be, validate);
    if (s == TDM_OK && validate)
        s = create_messenger(be);
    if (s == TDM_OK)
        s = collect_devices(be);
    tdm_dynlib_keep_loaded_since(before);
    if (s != TDM_OK) {
        tdm_vk_destroy(be);
        return s;
    }
    *out = be;
    return TDM_OK;
}

void tdm_vk_destroy(tdm_backend *be)
{
    if (!be)
        return;
    if (be->messenger != VK_NULL_HANDLE)
        be->destroy_messenger(be->instance, be->messenger, NULL);
    if (be->instance != VK_NULL_HANDLE)
        vkDestroyInstance(be->instance, NULL);
    free(be->physical);
    free(be);
}

size_t tdm_vk_device_count(const tdm_backend *be)
{
    return be->count;
}

void tdm_vk_summary(const tdm_backend *be, char *out, size_t size)
{
    snprintf(out, size, "%s, Vulkan %u.%u instance%s", be->loader_note,
             VK_API_VERSION_MAJOR(be->api_version), VK_API_VERSION_MINOR(be->api_version),
             be->messenger != VK_NULL_HANDLE ? " with the validation layer" : "");
}
