/* The Vulkan entry points the backend calls, loaded from libvulkan.so.1 at run time
 * (vulkan_api.c), so that tandem starts where no Vulkan is installed. With
 * VK_NO_PROTOTYPES the headers declare no functions; these hidden globals take the
 * API's own names, so the call sites read as plain Vulkan. They hold the loader's
 * exported entry points, the ones a program linked with -lvulkan calls: those
 * dispatch on their first argument and so serve every instance and device of every
 * context. Extension functions are still fetched per instance or device with
 * vkGetInstanceProcAddr / vkGetDeviceProcAddr. */
#ifndef TDM_VULKAN_API_H
#define TDM_VULKAN_API_H

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

#include "tandem/status.h"

/* Vulkan 1.0 and 1.1 core: what a Vulkan 1.1 loader exports. */
#define TDM_VULKAN_FUNCTIONS(X)                                                                    \
    X(vkAllocateCommandBuffers)                                                                    \
    X(vkAllocateDescriptorSets)                                                                    \
    X(vkAllocateMemory)                                                                            \
    X(vkBeginCommandBuffer)                                                                        \
    X(vkBindBufferMemory)                                                                          \
    X(vkCmdBindDescriptorSets)                                                                     \
    X(vkCmdBindPipeline)                                                                           \
    X(vkCmdCopyBuffer)                                                                             \
    X(vkCmdDispatch)                                                                               \
    X(vkCmdFillBuffer)                                                                             \
    X(vkCmdPipelineBarrier)                                                                        \
    X(vkCmdPushConstants)                                                                          \
    X(vkCmdResetQueryPool)                                                                         \
    X(vkCmdWriteTimestamp)                                                                         \
    X(vkCreateBuffer)                                                                              \
    X(vkCreateCommandPool)                                                                         \
    X(vkCreateComputePipelines)                                                                    \
    X(vkCreateDescriptorPool)                                                                      \
    X(vkCreateDescriptorSetLayout)                                                                 \
    X(vkCreateDevice)                                                                              \
    X(vkCreateFence)                                                                               \
    X(vkCreateInstance)                                                                            \
    X(vkCreatePipelineCache)                                                                       \
    X(vkCreatePipelineLayout)                                                                      \
    X(vkCreateQueryPool)                                                                           \
    X(vkCreateSemaphore)                                                                           \
    X(vkCreateShaderModule)                                                                        \
    X(vkDestroyBuffer)                                                                             \
    X(vkDestroyCommandPool)                                                                        \
    X(vkDestroyDescriptorPool)                                                                     \
    X(vkDestroyDescriptorSetLayout)                                                                \
    X(vkDestroyDevice)                                                                             \
    X(vkDestroyFence)                                                                              \
    X(vkDestroyInstance)                                                                           \
    X(vkDestroyPipeline)                                                                           \
    X(vkDestroyPipelineCache)                                                                      \
    X(vkDestroyPipelineLayout)                                                                     \
    X(vkDestroyQueryPool)                                                                          \
    X(vkDestroySemaphore)                                                                          \
    X(vkDestroyShaderModule)                                                                       \
    X(vkDeviceWaitIdle)                                                                            \
    X(vkEndCommandBuffer)                                                                          \
    X(vkEnumerateDeviceExtensionProperties)                                                        \
    X(vkEnumerateInstanceExtensionProperties)                                                      \
    X(vkEnumerateInstanceLayerProperties)                                                          \
    X(vkEnumerateInstanceVersion)                                                                  \
    X(vkEnumeratePhysicalDevices)                                                                  \
    X(vkFlushMappedMemoryRanges)                                                                   \
    X(vkFreeCommandBuffers)                                                                        \
    X(vkFreeMemory)                                                                                \
    X(vkGetBufferMemoryRequirements)                                                               \
    X(vkGetDeviceProcAddr)                                                                         \
    X(vkGetDeviceQueue)                                                                            \
    X(vkGetFenceStatus)                                                                            \
    X(vkGetInstanceProcAddr)                                                                       \
    X(vkGetPhysicalDeviceExternalBufferProperties)                                                 \
    X(vkGetPhysicalDeviceFeatures2)                                                                \
    X(vkGetPhysicalDeviceMemoryProperties)                                                         \
    X(vkGetPhysicalDeviceProperties)                                                               \
    X(vkGetPhysicalDeviceProperties2)                                                              \
    X(vkGetPhysicalDeviceQueueFamilyProperties)                                                    \
    X(vkGetPipelineCacheData)                                                                      \
    X(vkGetQueryPoolResults)                                                                       \
    X(vkInvalidateMappedMemoryRanges)                                                              \
    X(vkMapMemory)                                                                                 \
    X(vkQueueSubmit)                                                                               \
    X(vkQueueWaitIdle)                                                                             \
    X(vkResetDescriptorPool)                                                                       \
    X(vkResetFences)                                                                               \
    X(vkUpdateDescriptorSets)                                                                      \
    X(vkWaitForFences)

#define TDM_VULKAN_DECLARE(name) extern PFN_##name name;
TDM_VULKAN_FUNCTIONS(TDM_VULKAN_DECLARE)
#undef TDM_VULKAN_DECLARE

/* Loads libvulkan.so.1 and every entry point above, once per process (thread-safe).
 * TDM_ERR_NOT_FOUND, with the reason, when it cannot. *note: the file loaded from,
 * or the reason; it lives as long as the process. */
tdm_status tdm_vk_load(const char **note);

#endif
