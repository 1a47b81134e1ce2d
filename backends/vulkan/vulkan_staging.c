/* Host transfers for memory the host cannot map, through a host-visible staging
 * buffer in two halves: the device copies one half while the host fills or drains
 * the other. */
#include <string.h>

#include "base/error.h"
#include "vulkan_internal.h"

#define TDM_VK_STAGING_BYTES ((size_t)8 << 20)
#define TDM_VK_STAGING_HALF (TDM_VK_STAGING_BYTES / 2)

/* Created on first use: devices whose memory is mapped never need it. */
static tdm_status ensure_staging(tdm_vk_device *vd)
{
    if (vd->staging != VK_NULL_HANDLE)
        return TDM_OK;
    VkBufferCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = TDM_VK_STAGING_BYTES,
        .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    VkResult r = vkCreateBuffer(vd->device, &info, NULL, &vd->staging);
    if (r != VK_SUCCESS)
        return tdm_vk_fail(vd, "vkCreateBuffer (staging)", r);
    /* Cached memory makes the host's reads fast; coherent needs no flushes. */
    const VkMemoryPropertyFlags choices[] = {
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
            VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
    };
    VkMemoryPropertyFlags flags = 0;
    tdm_status s = tdm_vk_allocate(vd, vd->staging, choices, 2, &vd->staging_memory, &flags);
    void *mapped = NULL;
    if (s == TDM_OK) {
        r = vkMapMemory(vd->device, vd->staging_memory, 0, VK_WHOLE_SIZE, 0, &mapped);
        if (r != VK_SUCCESS)
            s = tdm_vk_fail(vd, "vkMapMemory (staging)", r);
    }
    if (s != TDM_OK) {
        tdm_vk_staging_release(vd);
        return s;
    }
    vd->staging_map = mapped;
    return TDM_OK;
}

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

tdm_status tdm_vk_staged_write(tdm_vk_device *vd, VkBuffer dst, size_t offset,
                               const unsigned char *src, size_t size)
{
    pthread_mutex_lock(&vd->staging_lock);
    tdm_status s = ensure_staging(vd);
    size_t n = 0;
    for (size_t done = 0, half = 0; s == TDM_OK && done < size; done += n, half ^= 1) {
        n = min_size(TDM_VK_STAGING_HALF, size - done);
        s = tdm_vk_wait(vd, vd->staging_busy[half]);
        if (s != TDM_OK)
            break;
        memcpy(vd->staging_map + half * TDM_VK_STAGING_HALF, src + done, n);
        /* No wait for the copy: src may be reused already, and later work is
         * ordered after it on the queue. */
        s = tdm_vk_copy_region(vd, dst, offset + done, vd->staging,
                               half * TDM_VK_STAGING_HALF, n, &vd->staging_busy[half]);
    }
    pthread_mutex_unlock(&vd->staging_lock);
    return s;
}

/* Submits the copy of chunk `chunk` of [offset, offset + size) into its half. */
static tdm_status read_chunk(tdm_vk_device *vd, VkBuffer src, size_t offset, size_t size,
                             size_t chunk)
{
    size_t done = chunk * TDM_VK_STAGING_HALF, half = chunk % 2;
    return tdm_vk_copy_region(vd, vd->staging, half * TDM_VK_STAGING_HALF, src,
                              offset + done, min_size(TDM_VK_STAGING_HALF, size - done),
                              &vd->staging_busy[half]);
}

tdm_status tdm_vk_staged_read(tdm_vk_device *vd, VkBuffer src, size_t offset,
                              unsigned char *dst, size_t size)
{
    pthread_mutex_lock(&vd->staging_lock);
    size_t chunks = (size + TDM_VK_STAGING_HALF - 1) / TDM_VK_STAGING_HALF;
    tdm_status s = ensure_staging(vd);
    if (s == TDM_OK && chunks > 0)
        s = read_chunk(vd, src, offset, size, 0);
    for (size_t k = 0; s == TDM_OK && k < chunks; k++) {
        if (k + 1 < chunks)
            s = read_chunk(vd, src, offset, size, k + 1);
        if (s == TDM_OK)
            s = tdm_vk_wait(vd, vd->staging_busy[k % 2]);
        if (s == TDM_OK) {
            size_t done = k * TDM_VK_STAGING_HALF;
            memcpy(dst + done, vd->staging_map + (k % 2) * TDM_VK_STAGING_HALF,
                   min_size(TDM_VK_STAGING_HALF, size - done));
        }
    }
    pthread_mutex_unlock(&vd->staging_lock);
    return s;
}

void tdm_vk_staging_release(tdm_vk_device *vd)
{
    vkDestroyBuffer(vd->device, vd->staging, NULL);
    vkFreeMemory(vd->device, vd->staging_memory, NULL);
    vd->staging = VK_NULL_HANDLE;
    vd->staging_memory = VK_NULL_HANDLE;
    vd->staging_map = NULL;
}
