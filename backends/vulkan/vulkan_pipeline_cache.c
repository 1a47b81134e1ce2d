/* The device's VkPipelineCache, kept on disk (device/disk_cache.h): created at the
 * first pipeline from the data a previous run saved, and saved again when the device
 * closes if this run compiled pipelines the data did not hold. The key names the
 * device, its driver version, its pipelineCacheUUID, the specialization and a hash of
 * every embedded shader; the data's own header must name the same device too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/backend_api.h"
#include "spirv_modules.h"
#include "vulkan_internal.h"

/* VkPipelineCacheHeaderVersionOne: length, version, vendorID, deviceID, UUID. */
#define CACHE_HEADER_SIZE (16 + VK_UUID_SIZE)

static uint32_t get32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v); /* the driver writes its header in host order */
    return v;
}

static char *cache_key(const tdm_vk_device *vd, const VkPhysicalDeviceProperties *props)
{
    uint64_t h = TDM_DISK_CACHE_HASH_START;
    const tdm_spirv_module *m;
    char uuid[2 * VK_UUID_SIZE + 1];

    for (size_t i = 0; (m = tdm_spirv_module_at(i)) != NULL; i++) {
        h = tdm_disk_cache_hash(h, m->name, strlen(m->name) + 1);
        h = tdm_disk_cache_hash(h, m->code, m->size);
    }
    for (unsigned i = 0; i < VK_UUID_SIZE; i++)
        snprintf(uuid + 2 * i, 3, "%02x", props->pipelineCacheUUID[i]);
    /* The product shapes' constants, each shape's six (vulkan_gemm_tiles.c). */
    char tiles[TDM_VK_GEMM_TILES * 72] = "";
    for (size_t i = 0, used = 0; i < TDM_VK_GEMM_TILES; i++) {
        const tdm_vk_gemm_tile *t = &vd->gemm_tiles[i];
        int k = snprintf(tiles + used, sizeof tiles - used, " %u %u %u %u %u %u", t->rows4,
                         t->cols4, t->tile_rows4, t->tile_cols4, t->buffers, t->split_sums);
        used += k > 0 ? (size_t)k : 0;
    }
    /* Its fields bound its length: the device's name, then at most 400 characters and
     * the tiles'. */
    char text[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE + 400 + sizeof tiles];
    int n = snprintf(text, sizeof text,
                     "vulkan pipeline cache\ndevice %s\nvendor 0x%04x device 0x%04x\n"
                     "driver version 0x%08x\npipeline cache uuid %s\n"
                     "specialization %u %u %u\ngemm tiles%s\nstorage16 %d\nfloat controls %u\n"
                     "shaders %016llx\n",
                     props->deviceName, props->vendorID, props->deviceID, props->driverVersion,
                     uuid, vd->specialization.group_size, vd->specialization.gemm_rows4,
                     vd->specialization.gemm_cols4, tiles, vd->storage16, vd->float_controls,
                     (unsigned long long)h);
    char *key = n > 0 && (size_t)n < sizeof text ? malloc((size_t)n + 1) : NULL;
    if (key)
        memcpy(key, text, (size_t)n + 1);
    return key;
}

/* NULL when the data's header is this device's, else what is wrong with it. */
static const char *header_mismatch(const unsigned char *data, size_t size,
                                   const VkPhysicalDeviceProperties *props)
{
    if (size < CACHE_HEADER_SIZE || get32(data) < CACHE_HEADER_SIZE || get32(data) > size)
        return "its header is cut short";
    if (get32(data + 4) != VK_PIPELINE_CACHE_HEADER_VERSION_ONE)
        return "its header has another version";
    if (get32(data + 8) != props->vendorID || get32(data + 12) != props->deviceID ||
        memcmp(data + 16, props->pipelineCacheUUID, VK_UUID_SIZE) != 0)
        return "its header names another device or driver";
    return NULL;
}

static VkPipelineCache create(tdm_vk_device *vd, const void *data, size_t size)
{
    VkPipelineCacheCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
        .initialDataSize = size,
        .pInitialData = data,
    };
    VkPipelineCache cache = VK_NULL_HANDLE;
    if (vkCreatePipelineCache(vd->device, &info, NULL, &cache) != VK_SUCCESS)
        cache = VK_NULL_HANDLE;
    return cache;
}

void tdm_vk_pipeline_cache_open(tdm_vk_device *vd)
{
    tdm_context *ctx = tdm_backend_device_context(vd->dev);
    VkPhysicalDeviceProperties props;
    void *data = NULL;
    size_t size = 0;

    if (vd->pipeline_cache_opened)
        return;
    vd->pipeline_cache_opened = 1;
    vkGetPhysicalDeviceProperties(vd->physical, &props);
    vd->pipeline_cache_key = cache_key(vd, &props);
    if (vd->pipeline_cache_key &&
        tdm_disk_cache_load(ctx, "vulkan", vd->pipeline_cache_key, &data, &size)) {
        const char *why = header_mismatch(data, size, &props);
        if (!why && (vd->pipeline_cache = create(vd, data, size)) == VK_NULL_HANDLE)
            why = "vkCreatePipelineCache failed";
        if (why) {
            tdm_disk_cache_refused(ctx, vd->pipeline_cache_key, why);
        } else {
            vd->pipeline_cache_loaded_size = size;
            vd->pipeline_cache_loaded_hash =
                tdm_disk_cache_hash(TDM_DISK_CACHE_HASH_START, data, size);
        }
        free(data);
    }
    /* Without a cache (none could be made) pipelines are compiled as before. */
    if (vd->pipeline_cache == VK_NULL_HANDLE)
        vd->pipeline_cache = create(vd, NULL, 0);
}

void tdm_vk_pipeline_cache_close(tdm_vk_device *vd)
{
    size_t size = 0;
    void *data = NULL;

    if (vd->pipeline_cache == VK_NULL_HANDLE)
        goto done;
    if (vd->pipelines_compiled > 0 && vd->pipeline_cache_key &&
        vkGetPipelineCacheData(vd->device, vd->pipeline_cache, &size, NULL) == VK_SUCCESS &&
        size > 0 && (data = malloc(size)) != NULL &&
        vkGetPipelineCacheData(vd->device, vd->pipeline_cache, &size, data) == VK_SUCCESS &&
        (size != vd->pipeline_cache_loaded_size ||
         tdm_disk_cache_hash(TDM_DISK_CACHE_HASH_START, data, size) !=
             vd->pipeline_cache_loaded_hash))
        tdm_disk_cache_store(tdm_backend_device_context(vd->dev), "vulkan", vd->pipeline_cache_key,
                             data, size);
    free(data);
    vkDestroyPipelineCache(vd->device, vd->pipeline_cache, NULL);
done:
    free(vd->pipeline_cache_key);
}
