/* One VkDevice with one compute queue per tdm_device, logical devices included. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/backend_api.h"
#include "vulkan_internal.h"

/* 0: none; 1: core in Vulkan 1.2; 2: through VK_KHR_timeline_semaphore.
 * TDM_VK_FORCE_FENCES=1 takes the fence fallback, so that tests cover it. */
static int timeline_support(const tdm_backend *be, VkPhysicalDevice physical)
{
    int core = tdm_vk_device_api(be, physical) >= VK_API_VERSION_1_2;
    if (tdm_vk_env_flag("TDM_VK_FORCE_FENCES") ||
        (!core && !tdm_vk_has_extension(physical, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME)))
        return 0;
    VkPhysicalDeviceTimelineSemaphoreFeatures timeline = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
    };
    tdm_vk_query_features(physical, &timeline);
    return timeline.timelineSemaphore ? (core ? 1 : 2) : 0;
}

static tdm_status create_device(tdm_vk_device *vd, int timeline)
{
    const char *extensions[6];
    uint32_t extension_count = 0;
    if (vd->import_alignment)
        extensions[extension_count++] = VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME;
    if (timeline == 2)
        extensions[extension_count++] = VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME;
    if (vd->float_controls_extension)
        extensions[extension_count++] = VK_KHR_SHADER_FLOAT_CONTROLS_EXTENSION_NAME;
    /* Required wherever it is offered (MoltenVK). */
    if (tdm_vk_has_extension(vd->physical, "VK_KHR_portability_subset"))
        extensions[extension_count++] = "VK_KHR_portability_subset";
    /* The features to enable, chained: those the device has and the backend uses. */
    void *chain = NULL;
    VkPhysicalDeviceTimelineSemaphoreFeatures features = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
        .timelineSemaphore = VK_TRUE,
    };
    VkPhysicalDevice16BitStorageFeatures storage16 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
        .storageBuffer16BitAccess = VK_TRUE,
    };
    if (timeline) {
        features.pNext = chain;
        chain = &features;
    }
    if (vd->storage16) {
        storage16.pNext = chain;
        chain = &storage16;
    }
    tdm_vk_coopmat_features coopmat;
    tdm_vk_coopmat_enable(&vd->coopmat, &coopmat, &chain, extensions, &extension_count);
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = vd->queue_family,
        .queueCount = 1,
        .pQueuePriorities = &priority,
    };
    VkDeviceCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = chain,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &queue,
        .enabledExtensionCount = extension_count,
        .ppEnabledExtensionNames = extensions,
    };
    VkResult r = vkCreateDevice(vd->physical, &info, NULL, &vd->device);
    if (r != VK_SUCCESS)
        return tdm_vk_fail(vd, "vkCreateDevice", r);
    vkGetDeviceQueue(vd->device, vd->queue_family, 0, &vd->queue);
    return TDM_OK;
}

static tdm_status create_timeline(tdm_vk_device *vd, int timeline)
{
    int core = timeline == 1;
    vd->wait_semaphores = (PFN_vkWaitSemaphores)vkGetDeviceProcAddr(
        vd->device, core ? "vkWaitSemaphores" : "vkWaitSemaphoresKHR");
    vd->get_counter = (PFN_vkGetSemaphoreCounterValue)vkGetDeviceProcAddr(
        vd->device, core ? "vkGetSemaphoreCounterValue" : "vkGetSemaphoreCounterValueKHR");
    if (!vd->wait_semaphores || !vd->get_counter)
        return tdm_fail(TDM_ERR_BACKEND, "%s '%s': timeline semaphore functions are missing",
                        tdm_backend_device_desc(vd->dev)->id,
                        tdm_backend_device_desc(vd->dev)->name);
    VkSemaphoreTypeCreateInfo type = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
        .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
        .initialValue = 0,
    };
    VkSemaphoreCreateInfo info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type};
    VkResult r = vkCreateSemaphore(vd->device, &info, NULL, &vd->timeline);
    return r == VK_SUCCESS ? TDM_OK : tdm_vk_fail(vd, "vkCreateSemaphore", r);
}

static tdm_status create_pool(tdm_vk_device *vd)
{
    VkCommandPoolCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, /* slots are reused */
        .queueFamilyIndex = vd->queue_family,
    };
    VkResult r = vkCreateCommandPool(vd->device, &info, NULL, &vd->pool);
    return r == VK_SUCCESS ? TDM_OK : tdm_vk_fail(vd, "vkCreateCommandPool", r);
}

/* GPUs: each kernel's table group size (group_size 0), gemm's blocks 4 x 4 where it
 * takes no tile (its tiles: vulkan_gemm_tiles.c). CPU drivers
 * run a group as a loop over SIMD vectors of subgroupSize lanes, each memory access a
 * loop over the lanes, and invocations without an item cost nearly as much as busy
 * ones: one vector per group keeps every invocation busy (lavapipe's vec4 copy: 1.7
 * GB/s with 64, 3.1 with 8), and gemm's 16 x 16 blocks without a tile load fewer
 * values per product (gemm.glsl). */
static struct tdm_vk_specialization specialization_for(const tdm_vk_device *vd,
                                                       VkPhysicalDeviceType type)
{
    VkPhysicalDeviceSubgroupProperties subgroup = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES,
    };
    if (type != VK_PHYSICAL_DEVICE_TYPE_CPU)
        return (struct tdm_vk_specialization){.group_size = 0, .gemm_rows4 = 1, .gemm_cols4 = 1};
    tdm_vk_query_properties(vd->physical, &subgroup);
    uint32_t size = subgroup.subgroupSize;
    int usable = size >= 4 && size <= 64 && (size & (size - 1)) == 0;
    return (struct tdm_vk_specialization){
        .group_size = usable ? size : 0, .gemm_rows4 = 4, .gemm_cols4 = 4};
}

/* The largest power of two that is a work-group size the device allows. */
static uint32_t max_group_size(const VkPhysicalDeviceLimits *limits)
{
    uint32_t most = limits->maxComputeWorkGroupInvocations < limits->maxComputeWorkGroupSize[0]
                        ? limits->maxComputeWorkGroupInvocations
                        : limits->maxComputeWorkGroupSize[0];
    uint32_t size = 1;
    while (size <= most / 2)
        size *= 2;
    return size;
}

/* TDM_VK_TIGHT_LIMITS=1: a 256-byte storage offset alignment and a 16 MiB binding
 * range, as some Intel and NVIDIA devices have, so that the binding windows and the
 * splitting arithmetic run on lavapipe too. Only ever tighter than the device's. */
static void tighten_limits(tdm_vk_device *vd)
{
    const VkDeviceSize alignment = 256, range = 16u << 20;
    if (!tdm_vk_env_flag("TDM_VK_TIGHT_LIMITS"))
        return;
    if (vd->storage_alignment < alignment)
        vd->storage_alignment = alignment;
    if (vd->max_storage_range > range)
        vd->max_storage_range = range;
}

static void record_limits(const tdm_backend *be, tdm_vk_device *vd, tdm_backend_traits *traits)
{
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(vd->physical, &props);
    VkPhysicalDeviceType type = tdm_vk_device_type(vd->physical);
    vd->max_group_size = max_group_size(&props.limits);
    vd->max_shared_bytes = props.limits.maxComputeSharedMemorySize;
    vd->specialization = specialization_for(vd, type);
    tdm_vk_gemm_tiles_choose(be, vd, type != VK_PHYSICAL_DEVICE_TYPE_CPU, traits);
    vd->max_storage_range = props.limits.maxStorageBufferRange;
    vd->storage_alignment = props.limits.minStorageBufferOffsetAlignment;
    tighten_limits(vd);
    vd->atom_size = props.limits.nonCoherentAtomSize;
    vd->max_groups = props.limits.maxComputeWorkGroupCount[0];
    vd->max_push_constants = props.limits.maxPushConstantsSize;
    vd->unified_memory =
        type == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU || type == VK_PHYSICAL_DEVICE_TYPE_CPU;
    vkGetPhysicalDeviceMemoryProperties(vd->physical, &vd->memory);
}

/* Whether the device is lavapipe, whose shader loops end early (TDM_KERNEL_LOOP_BUDGET). */
static int is_llvmpipe(const tdm_backend *be, VkPhysicalDevice physical)
{
    if (tdm_vk_device_api(be, physical) < VK_API_VERSION_1_2 &&
        !tdm_vk_has_extension(physical, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME))
        return 0;
    VkPhysicalDeviceDriverProperties driver = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES,
    };
    tdm_vk_query_properties(physical, &driver);
    return driver.driverID == VK_DRIVER_ID_MESA_LLVMPIPE;
}

/* Once per device: its group size, gemm's blocks and tiles, its binding limits. */
static void log_shape(const tdm_backend *be, const tdm_vk_device *vd)
{
    const struct tdm_vk_specialization *sp = &vd->specialization;
    char tiles[400];
    tdm_vk_gemm_tiles_describe(vd, tiles, sizeof tiles);
    tdm_log(be->ctx, TDM_LOG_DEBUG,
            "%s: group size %s (at most %u), gemm blocks %ux%u per invocation%s, offset "
            "alignment %llu, binding range %llu bytes",
            tdm_backend_device_desc(vd->dev)->id, sp->group_size ? "one subgroup" : "the table's",
            vd->max_group_size, 4 * sp->gemm_rows4, 4 * sp->gemm_cols4, tiles,
            (unsigned long long)vd->storage_alignment, (unsigned long long)vd->max_storage_range);
}

/* Once per device: which path its unmapped host transfers can take. */
static void log_import(const tdm_backend *be, const tdm_vk_device *vd, int switched_off)
{
    if (vd->import_alignment)
        tdm_log(be->ctx, TDM_LOG_DEBUG,
                "%s: host memory import available (VK_EXT_external_memory_host, "
                "alignment %llu bytes)",
                tdm_backend_device_desc(vd->dev)->id, (unsigned long long)vd->import_alignment);
    else
        tdm_log(be->ctx, TDM_LOG_DEBUG, "%s: host memory import unavailable (%s)",
                tdm_backend_device_desc(vd->dev)->id,
                switched_off ? "TDM_VK_NO_HOST_IMPORT" : "not offered");
}

/* Releases whatever part of vd was created; the device must be idle. A batch still
 * open is dropped with the command pool. */
static void release(tdm_vk_device *vd)
{
    tdm_vk_flusher_stop(vd);
    if (vd->device != VK_NULL_HANDLE) {
        tdm_vk_retire_release(vd);
        tdm_vk_pipeline_release(vd);
        tdm_vk_staging_release(vd);
        tdm_vk_release_slots(vd);
        tdm_vk_timestamps_release(vd);
        vkDestroyCommandPool(vd->device, vd->pool, NULL);
        vkDestroySemaphore(vd->device, vd->timeline, NULL);
        vkDestroyDevice(vd->device, NULL);
    }
    tdm_mutex_destroy(&vd->retire_lock);
    tdm_mutex_destroy(&vd->coopmat_lock);
    tdm_mutex_destroy(&vd->staging_lock);
    tdm_mutex_destroy(&vd->lock);
    free(vd);
}

static tdm_status open_vd(tdm_backend *be, tdm_vk_device *vd, tdm_backend_traits *traits)
{
    if (!tdm_vk_compute_family(vd->physical, &vd->queue_family))
        return tdm_fail(TDM_ERR_UNSUPPORTED, "%s '%s': no compute queue family",
                        tdm_backend_device_desc(vd->dev)->id,
                        tdm_backend_device_desc(vd->dev)->name);
    int timeline = timeline_support(be, vd->physical);
    /* TDM_VK_NO_HOST_IMPORT=1 keeps the staging path, so that tests cover both. */
    int no_import = tdm_vk_env_flag("TDM_VK_NO_HOST_IMPORT");
    vd->import_alignment = no_import ? 0 : tdm_vk_import_alignment(vd->physical);
    /* TDM_VK_NO_16BIT_STORAGE=1 leaves the feature off, so that tests cover a device
     * without it. */
    vd->storage16 =
        !tdm_vk_env_flag("TDM_VK_NO_16BIT_STORAGE") && tdm_vk_has_storage16(vd->physical);
    vd->float_controls = tdm_vk_float_controls(be, vd->physical, &vd->float_controls_extension);
    char why[TDM_DEVICE_NAME_MAX];
    if (tdm_vk_coopmat_probe(be, vd->physical, &vd->coopmat, why, sizeof why))
        vd->coopmat.state = TDM_VK_COOPMAT_UNCHECKED;
    tdm_status s = create_device(vd, timeline);
    if (s == TDM_OK)
        s = create_pool(vd);
    if (s == TDM_OK && timeline)
        s = create_timeline(vd, timeline);
    if (s == TDM_OK)
        s = tdm_vk_timestamps_open(vd);
    if (s != TDM_OK)
        return s;
    tdm_vk_import_load(vd);
    record_limits(be, vd, traits);
    /* A kernel's view starts up to an alignment past its window's base. */
    traits->max_binding_bytes = vd->max_storage_range - vd->storage_alignment;
    traits->max_loop_iterations = is_llvmpipe(be, vd->physical) ? TDM_KERNEL_LOOP_BUDGET : 0;
    /* A discrete card's memory is not host-visible: TDM_VK_AS_GPU stages as on one. */
    vd->force_staging = tdm_vk_env_flag("TDM_VK_FORCE_STAGING") || tdm_vk_env_flag("TDM_VK_AS_GPU");
    tdm_log(be->ctx, TDM_LOG_DEBUG, "%s: queue family %u, completion by %s%s%s%s%s",
            tdm_backend_device_desc(vd->dev)->id, vd->queue_family,
            timeline ? "timeline semaphore" : "fences", vd->force_staging ? ", staging forced" : "",
            vd->storage16 ? "" : ", no storageBuffer16BitAccess (no float16 twins)",
            vd->float_controls & TDM_VK_KEEP_SPECIALS
                ? ""
                : ", no SignedZeroInfNanPreserve (NaN, infinities and zero signs as the "
                  "compiler leaves them)",
            vd->float_controls & TDM_VK_KEEP_DENORMALS
                ? ""
                : ", no DenormPreserve (denormals as the compiler leaves them)");
    log_shape(be, vd);
    log_import(be, vd, no_import);
    return tdm_vk_flusher_start(vd);
}

tdm_status tdm_vk_open_device(tdm_backend *be, size_t index, tdm_device *dev, void **state,
                              tdm_backend_traits *traits)
{
    tdm_vk_device *vd = calloc(1, sizeof *vd);
    if (!vd)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s '%s': out of host memory",
                        tdm_backend_device_desc(dev)->id, tdm_backend_device_desc(dev)->name);
    if (tdm_mutex_init(&vd->lock) != 0) {
        free(vd);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: cannot create a mutex",
                        tdm_backend_device_desc(dev)->id);
    }
    if (tdm_mutex_init(&vd->staging_lock) != 0) {
        tdm_mutex_destroy(&vd->lock);
        free(vd);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: cannot create a mutex",
                        tdm_backend_device_desc(dev)->id);
    }
    if (tdm_mutex_init(&vd->coopmat_lock) != 0) {
        tdm_mutex_destroy(&vd->staging_lock);
        tdm_mutex_destroy(&vd->lock);
        free(vd);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: cannot create a mutex",
                        tdm_backend_device_desc(dev)->id);
    }
    if (tdm_mutex_init(&vd->retire_lock) != 0) {
        tdm_mutex_destroy(&vd->coopmat_lock);
        tdm_mutex_destroy(&vd->staging_lock);
        tdm_mutex_destroy(&vd->lock);
        free(vd);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: cannot create a mutex",
                        tdm_backend_device_desc(dev)->id);
    }
    vd->dev = dev;
    vd->physical = be->physical[index];
    tdm_status s = open_vd(be, vd, traits);
    if (s != TDM_OK) {
        release(vd);
        return s;
    }
    *state = vd;
    return TDM_OK;
}

void tdm_vk_close_device(tdm_device *dev, void *state)
{
    tdm_vk_device *vd = state;
    if (!vd)
        return;
    tdm_vk_flusher_stop(vd);
    vkDeviceWaitIdle(vd->device); /* nothing to do on failure: everything goes anyway */
    tdm_log(tdm_backend_device_context(dev), TDM_LOG_DEBUG,
            "%s: host transfers: %llu bytes imported, %llu staged",
            tdm_backend_device_desc(dev)->id, (unsigned long long)vd->imported_bytes,
            (unsigned long long)vd->staged_bytes);
    release(vd);
}
